//! RFC 5681 §3.2 fast retransmit and fast recovery: one episode per three duplicate ACKs, ended by
//! the first ACK of new data.

use super::{AckOutcome, FirstRetransmit, LossRecovery, Seq};
use crate::tcp::cc::Window;
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, Default)]
pub struct Reno {
    active: bool,
}

impl LossRecovery for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn in_recovery(&self) -> bool {
        self.active
    }

    fn should_enter(&self, dupacks: u32, s: &Seq, _sb: &Scoreboard) -> bool {
        // RFC 5681 §3.2 step 2: the third duplicate ACK (no guard: Reno may halve twice).
        dupacks == s.dupthresh
    }

    fn enter(&mut self, s: &Seq, _sb: &Scoreboard, w: &mut Window) -> FirstRetransmit {
        // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3·SMSS.
        self.active = true;
        w.set(w.ssthresh + s.dupthresh as u64 * s.mss);
        FirstRetransmit::Head
    }

    fn on_dupack(&mut self, w: &mut Window) {
        // RFC 5681 §3.2 step 4: inflate by one SMSS.
        w.cwnd += w.mss as f64;
    }

    fn on_ack(&mut self, _s: &Seq, _acked: u64, w: &mut Window) -> AckOutcome {
        // RFC 5681 §3.2 step 6: deflate on the first new ACK and leave recovery.
        w.set(w.ssthresh);
        self.active = false;
        AckOutcome::Exit
    }

    fn on_timeout(&mut self, _s: &Seq) {
        self.active = false;
    }

    fn abandon(&mut self) {
        // RFC 3522 §3.2 (Eifel): a spurious episode ends at once, without deflating.
        self.active = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::WindowUnit;

    const M: u64 = 1000;

    #[test]
    fn fast_recovery_inflates_per_duplicate_and_deflates_to_ssthresh_on_the_first_new_ack() {
        // RFC 5681 §3.2 steps 2–6, with no `recover` guard: Reno may start again at once.
        let mut r = Reno::default();
        let s = Seq::test(10_000, 20_000);
        let sb = Scoreboard::default();
        assert!(!r.should_enter(2, &s, &sb));
        assert!(r.should_enter(3, &s, &sb));
        assert!(!r.should_enter(4, &s, &sb));
        let mut w = Window::new(WindowUnit::Bytes, M, 10 * M, 5 * M);
        assert_eq!(r.enter(&s, &sb, &mut w), FirstRetransmit::Head);
        assert!(r.in_recovery());
        assert_eq!(w.window(), 8 * M, "step 3: ssthresh + 3·SMSS");
        r.on_dupack(&mut w);
        assert_eq!(w.window(), 9 * M, "step 4: + SMSS");
        // Step 6: even a partial ACK ends Reno's episode.
        assert_eq!(
            r.on_ack(&Seq::test(11_000, 20_000), M, &mut w),
            AckOutcome::Exit
        );
        assert_eq!(w.window(), 5 * M);
        assert!(!r.in_recovery());
        assert!(r.should_enter(3, &Seq::test(11_000, 20_000), &sb));
        // A timeout ends an episode too.
        r.enter(&s, &sb, &mut w);
        r.on_timeout(&s);
        assert!(!r.in_recovery());
        // RFC 3522 §3.2: an episode found spurious (its reduction undone) ends at once (the
        // socket restores the window itself; `abandon` has no access to it).
        r.enter(&s, &sb, &mut w);
        r.abandon();
        assert!(!r.in_recovery());
    }
}
