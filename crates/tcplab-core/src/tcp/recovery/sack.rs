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
