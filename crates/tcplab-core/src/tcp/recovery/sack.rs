//! RFC 6675 SACK-based loss recovery: the scoreboard decides what is lost, pipe (SetPipe) what is
//! in flight, and NextSeg what to send; cwnd is not inflated.

use super::prr::Prr;
use super::{beyond_recover, AckOutcome, FirstRetransmit, LossRecovery, Seq};
use crate::tcp::cc::Window;
use crate::tcp::config::{RecoverBoundary, TcpConfig};
use crate::tcp::scoreboard::{NextSeg, Scoreboard};

#[derive(Clone, Debug)]
pub struct Sack {
    active: bool,
    /// RecoveryPoint: HighData when the episode (or a timeout) began.
    recover: u64,
    /// HighRxt, as the exclusive end of the highest retransmitted range.
    high_rxt: u64,
    /// RescueRxt (RFC 6675 §4 rule (4)); None = undefined.
    rescue_rxt: Option<u64>,
    boundary: RecoverBoundary,
    /// RFC 6937 state when `prr` is on.
    prr: Option<Prr>,
}

impl Sack {
    pub fn new(cfg: &TcpConfig, iss: u64) -> Sack {
        Sack {
            active: false,
            recover: iss,
            high_rxt: iss,
            rescue_rxt: None,
            boundary: cfg.recover_boundary,
            prr: cfg.prr.then(Prr::default),
        }
    }

    pub fn prr_mut(&mut self) -> Option<&mut Prr> {
        self.prr.as_mut()
    }

    /// SetPipe() of RFC 6675 §4.
    pub fn pipe(&self, s: &Seq, sb: &Scoreboard) -> u64 {
        sb.pipe(s.snd_una, s.snd_max, self.high_rxt, s.dupthresh, s.mss)
    }

    /// NextSeg() of RFC 6675 §4; `can_send_new` says whether rule (2) may send new data.
    pub fn next_seg(&self, s: &Seq, sb: &Scoreboard, can_send_new: bool) -> NextSeg {
        // Rule (4) needs HighACK > RescueRxt, HighACK being snd_una − 1.
        let rescue_ok = self.rescue_rxt.is_none_or(|r| s.snd_una > r + 1);
        sb.next_seg(
            s.snd_una,
            s.snd_max,
            self.high_rxt,
            rescue_ok,
            can_send_new,
            s.dupthresh,
            s.mss,
        )
    }

    /// Records a retransmission NextSeg chose.
    pub fn on_retransmitted(&mut self, seq: u64, len: u64, rescue: bool) {
        if rescue {
            // RFC 6675 §4 rule (4): RescueRxt = RecoveryPoint.
            self.rescue_rxt = Some(self.recover);
        } else {
            self.high_rxt = self.high_rxt.max(seq + len);
        }
    }
}

impl LossRecovery for Sack {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn in_recovery(&self) -> bool {
        self.active
    }

    fn sack_dupacks(&self) -> bool {
        true
    }

    fn should_enter(&self, dupacks: u32, s: &Seq, sb: &Scoreboard) -> bool {
        // RFC 6675 §5 (2.1)/(2.2): DupAcks ≥ DupThresh, or IsLost(HighACK + 1); and no new
        // episode until the cumulative ACK is beyond RecoveryPoint.
        (dupacks >= s.dupthresh || sb.is_lost(s.snd_una, s.dupthresh, s.mss))
            && beyond_recover(self.boundary, s.snd_una, self.recover)
    }

    fn enter(&mut self, s: &Seq, sb: &Scoreboard, w: &mut Window) -> FirstRetransmit {
        self.active = true;
        // (4.1) RecoveryPoint = HighData.
        self.recover = s.snd_max - 1;
        // (4.2) cwnd = ssthresh (set by the socket from the controller); with PRR, RFC 6937 sets
        // it on each ACK from here on.
        w.set(w.ssthresh);
        if let Some(p) = self.prr.as_mut() {
            p.start(s.flight_size());
        }
        // (4.3) Retransmit the first segment presumed lost; HighRxt and RescueRxt to its end.
        let len = (sb.unsacked_run_end(s.snd_una, s.snd_max) - s.snd_una)
            .min(s.mss)
            .max(1);
        self.high_rxt = s.snd_una + len;
        self.rescue_rxt = Some(s.snd_una + len - 1);
        FirstRetransmit::Range {
            seq: s.snd_una,
            len,
        }
    }

    fn on_dupack(&mut self, _w: &mut Window) {
        // RFC 6675: no inflation; pipe accounts for what has left the network.
    }

    fn on_ack(&mut self, s: &Seq, _acked: u64, w: &mut Window) -> AckOutcome {
        // RFC 6675 §5 (A): an ACK covering RecoveryPoint ends the episode.
        if s.snd_una > self.recover {
            self.active = false;
            w.set(w.ssthresh);
            return AckOutcome::Exit;
        }
        AckOutcome::Stay {
            retransmit_head: false,
            restart_timer: true,
        }
    }

    fn on_timeout(&mut self, s: &Seq) {
        // RFC 6675 §5.1: RecoveryPoint = HighData, HighRxt = HighACK.
        self.active = false;
        self.recover = s.snd_max - 1;
        self.high_rxt = s.snd_una;
    }

    fn abandon(&mut self) {
        self.active = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::WindowUnit;

    const M: u64 = 1000;

    fn window() -> Window {
        Window::new(WindowUnit::Bytes, M, 10 * M, 5 * M)
    }

    /// A scoreboard with `blocks` SACKed above `una`.
    fn board(una: u64, blocks: &[(u64, u64)]) -> Scoreboard {
        let mut sb = Scoreboard::default();
        for &(s, e) in blocks {
            sb.add(s, e, una);
        }
        sb
    }

    fn rxt(seq: u64, len: u64, rescue: bool) -> NextSeg {
        NextSeg::Retransmit { seq, len, rescue }
    }

    #[test]
    fn the_first_retransmission_stops_at_the_first_sacked_byte() {
        // RFC 6675 §5 (4.3): the first retransmission is the segment starting at HighACK + 1; when
        // a SACKed byte follows 500 bytes later, only those 500 bytes are missing.
        let mut r = Sack::new(&TcpConfig::default(), 0);
        let s = Seq::test(10_000, 20_000);
        let sb = board(10_000, &[(10_500, 11_000), (12_000, 15_000)]);
        assert_eq!(
            r.enter(&s, &sb, &mut window()),
            FirstRetransmit::Range {
                seq: 10_000,
                len: 500
            }
        );
        assert!(r.in_recovery());
        // HighRxt is the end of that retransmission: the next one is the lost hole above it.
        assert_eq!(r.next_seg(&s, &sb, false), rxt(11_000, M, false));
        // SetPipe: 500 retransmitted octets, the unlost 5000 above the highest SACKed byte.
        assert_eq!(r.pipe(&s, &sb), 500 + 5000);
        // RFC 3708 / RFC 3522: an episode found spurious (its reduction undone) ends at once.
        r.abandon();
        assert!(!r.in_recovery());
    }

    #[test]
    fn the_rescue_waits_until_highack_passes_rescuerxt() {
        // Two lost segments at 10 000 and 11 000, three SACKed above them.
        let mut r = Sack::new(&TcpConfig::default(), 0);
        let s = Seq::test(10_000, 20_000);
        let sb = board(10_000, &[(12_000, 15_000)]);
        assert_eq!(
            r.enter(&s, &sb, &mut window()),
            FirstRetransmit::Range {
                seq: 10_000,
                len: M
            }
        );
        // (4.3) HighRxt = 11 000 (exclusive end): rule (1) sends the second hole next.
        assert_eq!(r.next_seg(&s, &sb, false), rxt(11_000, M, false));
        r.on_retransmitted(11_000, M, false);
        // Both holes retransmitted: rules (1) and (3) have nothing, and RescueRxt = 10 999 (the
        // last byte of the first retransmission) forbids rule (4) while HighACK ≤ 10 999.
        assert_eq!(r.next_seg(&s, &sb, false), NextSeg::Nothing);
        assert_eq!(
            r.pipe(&s, &sb),
            2 * M + 5 * M,
            "two retransmissions + 5 unlost"
        );
        // The first retransmission is ACKed: HighACK = 10 999 = RescueRxt, still no rescue.
        let s = Seq::test(11_000, 20_000);
        assert_eq!(r.next_seg(&s, &sb, false), NextSeg::Nothing);
        // One byte more: HighACK > RescueRxt, rule (4) resends the highest unSACKed segment.
        let s = Seq::test(11_001, 20_000);
        assert_eq!(r.next_seg(&s, &sb, false), rxt(19_000, M, true));
        // One rescue per episode: RescueRxt = RecoveryPoint (19 999) from now on.
        r.on_retransmitted(19_000, M, true);
        let s = Seq::test(12_000, 20_000);
        assert_eq!(r.next_seg(&s, &sb, false), NextSeg::Nothing);
    }

    #[test]
    fn the_episode_ends_on_an_ack_beyond_recoverypoint() {
        let mut r = Sack::new(&TcpConfig::default(), 0);
        let sb = board(10_000, &[(11_000, 14_000)]);
        let mut w = window();
        r.enter(&Seq::test(10_000, 20_000), &sb, &mut w);
        assert_eq!(w.window(), 5 * M, "(4.2) cwnd = ssthresh");
        // (4.1) RecoveryPoint = HighData = 19 999: an ACK of 19 999 does not cover it.
        assert!(matches!(
            r.on_ack(&Seq::test(19_999, 20_000), 0, &mut w),
            AckOutcome::Stay { .. }
        ));
        assert!(r.in_recovery());
        // (A) an ACK above RecoveryPoint ends the episode.
        assert_eq!(
            r.on_ack(&Seq::test(20_000, 20_000), 0, &mut w),
            AckOutcome::Exit
        );
        assert!(!r.in_recovery());
    }

    #[test]
    fn a_new_episode_needs_three_dupacks_or_islost_and_an_ack_beyond_recoverypoint() {
        let mut r = Sack::new(&TcpConfig::default(), 0);
        let s = Seq::test(10_000, 20_000);
        let nothing = board(10_000, &[]);
        // (2.1) DupThresh duplicates; two are not enough without IsLost.
        assert!(!r.should_enter(2, &s, &nothing));
        assert!(r.should_enter(3, &s, &nothing));
        // (2.2) IsLost(HighACK + 1) with two duplicates: 3 SACKed segments above the hole.
        let lost = board(10_000, &[(11_000, 14_000)]);
        assert!(r.should_enter(2, &s, &lost));
        // §5.1 after a timeout RecoveryPoint = HighData (19 999): no episode until an ACK
        // beyond it, and HighRxt = HighACK.
        r.enter(&s, &lost, &mut window());
        r.on_timeout(&s);
        assert!(!r.in_recovery());
        assert!(!r.should_enter(3, &Seq::test(19_999, 30_000), &nothing));
        assert!(r.should_enter(3, &Seq::test(20_000, 30_000), &nothing));
        assert_eq!(r.next_seg(&s, &lost, false), rxt(10_000, M, false));
    }
}
