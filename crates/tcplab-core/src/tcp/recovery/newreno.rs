//! RFC 6582 NewReno: partial ACKs keep the episode going and retransmit the next hole; `recover`
//! keeps one window of losses to one reduction.

use super::{beyond_recover, AckOutcome, FirstRetransmit, LossRecovery, Seq};
use crate::tcp::cc::Window;
use crate::tcp::config::{FullAckCwnd, PartialAckTimer, RecoverBoundary, TcpConfig};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug)]
pub struct NewReno {
    active: bool,
    /// Seen a partial ACK in this episode (RFC 6582 §3.2 step 3, the "Impatient" timer).
    partial_seen: bool,
    /// RFC 6582 `recover`: the highest sequence number sent when the episode (or a timeout)
    /// began.
    recover: u64,
    boundary: RecoverBoundary,
    timer: PartialAckTimer,
    full_ack: FullAckCwnd,
}

impl NewReno {
    pub fn new(cfg: &TcpConfig, iss: u64) -> NewReno {
        NewReno {
            active: false,
            partial_seen: false,
            // RFC 6582 §3.2: "recover" is initialised to the initial send sequence number.
            recover: iss,
            boundary: cfg.recover_boundary,
            timer: cfg.partial_ack_timer,
            full_ack: cfg.full_ack,
        }
    }
}

impl LossRecovery for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn in_recovery(&self) -> bool {
        self.active
    }

    fn should_enter(&self, dupacks: u32, s: &Seq, _sb: &Scoreboard) -> bool {
        // RFC 6582 §3.2 step 2: the third duplicate, if the cumulative ACK is beyond `recover`.
        dupacks == s.dupthresh && beyond_recover(self.boundary, s.snd_una, self.recover)
    }

    fn enter(&mut self, s: &Seq, _sb: &Scoreboard, w: &mut Window) -> FirstRetransmit {
        // RFC 6582 §3.2 step 2 / RFC 5681 §3.2 step 3: recover = HighData; cwnd = ssthresh + 3·SMSS.
        self.active = true;
        self.partial_seen = false;
        self.recover = s.snd_max - 1;
        w.set(w.ssthresh + s.dupthresh as u64 * s.mss);
        FirstRetransmit::Head
    }

    fn on_dupack(&mut self, w: &mut Window) {
        // RFC 5681 §3.2 step 4: inflate by one SMSS.
        w.cwnd += w.mss as f64;
    }

    fn on_ack(&mut self, s: &Seq, acked: u64, w: &mut Window) -> AckOutcome {
        if s.snd_una > self.recover {
            // RFC 6582 §3.2 step 3: full acknowledgment.
            let cwnd = match self.full_ack {
                FullAckCwnd::Ssthresh => w.ssthresh,
                FullAckCwnd::FlightSize => w.ssthresh.min(s.flight_size().max(s.mss) + s.mss),
            };
            w.set(cwnd);
            self.active = false;
            return AckOutcome::Exit;
        }
        // RFC 6582 §3.2 step 3: partial ACK — retransmit the first unacknowledged segment,
        // deflate by the amount acknowledged, add back one SMSS if at least one SMSS was
        // acknowledged.
        let mut cwnd = (w.cwnd as u64).saturating_sub(acked);
        if acked >= s.mss {
            cwnd += s.mss;
        }
        w.cwnd = cwnd.max(s.mss) as f64;
        // RFC 6582 §4: Impatient resets the timer on the first partial ACK only, Slow-but-Steady
        // on each.
        let restart_timer = match self.timer {
            PartialAckTimer::Impatient => !self.partial_seen,
            PartialAckTimer::SlowButSteady => true,
        };
        self.partial_seen = true;
        AckOutcome::Stay {
            retransmit_head: true,
            restart_timer,
        }
    }

    fn on_timeout(&mut self, s: &Seq) {
        // RFC 6582 §3.2 step 4: recover = HighData after a timeout.
        self.active = false;
        self.recover = s.snd_max - 1;
    }

    fn abandon(&mut self) {
        // RFC 3522 §3.2 (Eifel): a spurious episode ends at once; `recover` stays, so the
        // duplicates the retransmission caused cannot start another.
        self.active = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::WindowUnit;

    const M: u64 = 1000;

    fn window() -> Window {
        // cwnd 10 segments, ssthresh 5 (the socket has already halved it).
        Window::new(WindowUnit::Bytes, M, 10 * M, 5 * M)
    }

    fn newreno(cfg: impl FnOnce(&mut TcpConfig)) -> NewReno {
        let mut c = TcpConfig::default();
        cfg(&mut c);
        NewReno::new(&c, 0)
    }

    #[test]
    fn an_episode_starts_on_the_third_duplicate_only_and_inflates_by_one_smss_per_duplicate() {
        let mut r = newreno(|_| {});
        let s = Seq::test(10_000, 20_000);
        let sb = Scoreboard::default();
        // RFC 6582 §3.2 step 2: exactly DupThresh duplicates, not fewer nor a later one.
        assert!(!r.should_enter(2, &s, &sb));
        assert!(r.should_enter(3, &s, &sb));
        assert!(!r.should_enter(4, &s, &sb));
        let mut w = window();
        assert_eq!(r.enter(&s, &sb, &mut w), FirstRetransmit::Head);
        assert!(r.in_recovery());
        assert_eq!(w.window(), 5 * M + 3 * M, "cwnd = ssthresh + 3·SMSS");
        r.on_dupack(&mut w);
        assert_eq!(w.window(), 9 * M, "RFC 5681 §3.2 step 4");
    }

    #[test]
    fn a_partial_ack_deflates_by_the_bytes_acked_and_adds_back_one_smss() {
        // recover = HighData = 19 999; an ACK of 19 999 (snd_una) is partial.
        let mut r = newreno(|_| {});
        let sb = Scoreboard::default();
        let mut w = window();
        r.enter(&Seq::test(10_000, 20_000), &sb, &mut w);
        w.set(9 * M);
        let out = r.on_ack(&Seq::test(12_000, 20_000), 2 * M, &mut w);
        assert_eq!(
            out,
            AckOutcome::Stay {
                retransmit_head: true,
                restart_timer: true
            }
        );
        assert_eq!(w.window(), 9 * M - 2 * M + M);
        // Less than one SMSS acknowledged: no SMSS added back.
        r.on_ack(&Seq::test(12_500, 20_000), 500, &mut w);
        assert_eq!(w.window(), 8 * M - 500);
        // Exactly one SMSS: added back (">= SMSS").
        r.on_ack(&Seq::test(13_500, 20_000), M, &mut w);
        assert_eq!(w.window(), 8 * M - 500);
        r.on_ack(&Seq::test(19_500, 20_000), 6 * M, &mut w);
        assert_eq!(w.window(), 2_500);
        r.on_ack(&Seq::test(19_800, 20_000), 800, &mut w);
        assert_eq!(w.window(), 1_700);
        // Deflation never leaves less than one SMSS.
        r.on_ack(&Seq::test(19_999, 20_000), 199, &mut w);
        assert_eq!(w.window(), 1_501);
        r.on_ack(&Seq::test(19_999, 20_000), 900, &mut w);
        assert_eq!(w.window(), M);
        assert!(r.in_recovery(), "19 999 = recover is not beyond it");
    }

    #[test]
    fn impatient_restarts_the_timer_on_the_first_partial_ack_and_slow_but_steady_on_each() {
        // RFC 6582 §4.
        for (timer, expect) in [
            (PartialAckTimer::Impatient, [true, false, false]),
            (PartialAckTimer::SlowButSteady, [true, true, true]),
        ] {
            let mut r = newreno(|c| c.partial_ack_timer = timer);
            let sb = Scoreboard::default();
            let mut w = window();
            // A second episode re-arms Impatient's first-partial-ACK restart.
            for _ in 0..2 {
                r.on_timeout(&Seq::test(0, 10_000));
                r.enter(&Seq::test(10_000, 20_000), &sb, &mut w);
                for (k, want) in expect.iter().enumerate() {
                    let una = 11_000 + k as u64 * M;
                    match r.on_ack(&Seq::test(una, 20_000), M, &mut w) {
                        AckOutcome::Stay { restart_timer, .. } => {
                            assert_eq!(restart_timer, *want, "{timer:?}, partial ACK {k}")
                        }
                        AckOutcome::Exit => panic!("a partial ACK ended the episode"),
                    }
                }
            }
        }
    }

    #[test]
    fn a_full_ack_sets_cwnd_by_the_configured_option() {
        // RFC 6582 §3.2 step 3: option (1) min(ssthresh, max(FlightSize, SMSS) + SMSS), option
        // (2) ssthresh.
        for (full_ack, una, snd_max, want) in [
            // FlightSize 2000 after the ACK: 3000 < ssthresh 5000.
            (FullAckCwnd::FlightSize, 20_000, 22_000, 3 * M),
            // Nothing in flight: max(0, SMSS) + SMSS.
            (FullAckCwnd::FlightSize, 22_000, 22_000, 2 * M),
            // FlightSize 6000: ssthresh is the smaller.
            (FullAckCwnd::FlightSize, 20_000, 26_000, 5 * M),
            (FullAckCwnd::Ssthresh, 20_000, 22_000, 5 * M),
        ] {
            let mut r = newreno(|c| c.full_ack = full_ack);
            let mut w = window();
            // recover = 19 999: an ACK of 20 000 covers it.
            r.enter(&Seq::test(10_000, 20_000), &Scoreboard::default(), &mut w);
            let out = r.on_ack(&Seq::test(una, snd_max), M, &mut w);
            assert_eq!(out, AckOutcome::Exit, "{full_ack:?} at {una}");
            assert_eq!(w.window(), want, "{full_ack:?} at {una}");
            assert!(!r.in_recovery());
        }
    }

    #[test]
    fn recover_keeps_one_window_of_losses_to_one_reduction() {
        let sb = Scoreboard::default();
        // RFC 6582 §3.2 step 1 with the Inclusive boundary: ACK > recover.
        let mut r = newreno(|_| {});
        let mut w = window();
        r.enter(&Seq::test(10_000, 20_000), &sb, &mut w);
        r.on_ack(&Seq::test(20_000, 20_000), M, &mut w);
        assert!(!r.should_enter(3, &Seq::test(19_999, 30_000), &sb));
        assert!(r.should_enter(3, &Seq::test(20_000, 30_000), &sb));
        // Strict: ACK − 1 > recover, one byte later.
        let mut r = newreno(|c| c.recover_boundary = RecoverBoundary::Strict);
        r.enter(&Seq::test(10_000, 20_000), &sb, &mut w);
        r.on_ack(&Seq::test(20_000, 20_000), M, &mut w);
        assert!(!r.should_enter(3, &Seq::test(20_000, 30_000), &sb));
        assert!(r.should_enter(3, &Seq::test(20_001, 30_000), &sb));
        // Step 4: after a timeout recover = HighData, with no episode under way.
        let mut r = newreno(|_| {});
        r.on_timeout(&Seq::test(10_000, 40_000));
        assert!(!r.in_recovery());
        assert!(!r.should_enter(3, &Seq::test(39_999, 50_000), &sb));
        assert!(r.should_enter(3, &Seq::test(40_000, 50_000), &sb));
        // recover starts at the ISS (0 here): the first episode may start at once.
        assert!(newreno(|_| {}).should_enter(3, &Seq::test(1, 50_000), &sb));
    }
}
