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
}
