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
}
