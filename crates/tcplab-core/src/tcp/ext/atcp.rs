//! ATCP (Liu & Singh, JSAC 19(7) 2001), as seed 003 §5 describes it, with the three changes of
//! seed 003 §7 as switches (ALGORITHMS.md §5.2). A layer at the sender between TCP and IP with
//! four states:
//! - Normal: the 1st and 2nd duplicate ACKs go to TCP; the 3rd, or an RTO, puts TCP in persist
//!   and resends → Loss.
//! - Loss: further duplicates are absorbed; ATCP's own timer (TCP's RTO value) resends again; a
//!   new ACK takes TCP out of persist → Normal.
//! - Congested (ECN-Echo seen): TCP runs its own congestion control; its next new segment →
//!   Normal.
//! - Disconnected (ICMP destination unreachable): TCP in persist with cwnd = 1 segment, probes
//!   at RTO intervals backed off; any ACK from the receiver → Normal.

use super::{
    AtcpParams, Ctx, Extension, LossRetransmit, Notice, ProbeBackoff, Resend, Response, SenderEvent,
};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtcpState {
    Normal,
    Loss,
    Congested,
    Disconnected,
}

impl AtcpState {
    pub fn name(self) -> &'static str {
        match self {
            AtcpState::Normal => "normal",
            AtcpState::Loss => "loss",
            AtcpState::Congested => "congested",
            AtcpState::Disconnected => "disconnected",
        }
    }
}

/// The longest probe interval (RFC 1122 §4.2.2.17 leaves it open; TCP's persist_max default).
const PROBE_MAX: SimTime = SimTime::from_secs(60);

#[derive(Clone, Debug)]
pub struct Atcp {
    p: AtcpParams,
    state: AtcpState,
    /// ATCP's retransmission timer (Loss) or probe timer (Disconnected).
    timer: Option<SimTime>,
    /// Timeouts absorbed since snd_una last advanced.
    absorbed: u32,
    /// The threshold was reached: TCP handles losses itself until snd_una advances.
    handed_back: bool,
    /// Probes sent in this disconnection.
    probes: u32,
    /// SND.MAX when Loss was entered: with `lost_segment`, an ACK below it reveals the next lost
    /// segment (NewReno's partial ACK, RFC 6582 §3.2 step 4).
    recover: u64,
}

impl Atcp {
    pub fn new(p: AtcpParams) -> Atcp {
        Atcp {
            p,
            state: AtcpState::Normal,
            timer: None,
            absorbed: 0,
            handed_back: false,
            probes: 0,
            recover: 0,
        }
    }

    pub fn atcp_state(&self) -> AtcpState {
        self.state
    }

    fn loss_resend(&self) -> Resend {
        match self.p.loss_retransmit {
            LossRetransmit::Window => Resend::Window,
            LossRetransmit::LostSegment => Resend::Head,
        }
    }

    /// Absorbs one timeout; false once the threshold says TCP must take this one.
    fn absorb_timeout(&mut self) -> bool {
        self.absorbed += 1;
        let t = self.p.timeout_threshold;
        !(t > 0 && self.absorbed > t)
    }

    /// Interval before probe number `k + 1` (k probes sent so far).
    fn probe_interval(&self, rto: SimTime, k: u32) -> SimTime {
        let iv = match self.p.probe_backoff {
            ProbeBackoff::Exponential => rto.times(1u64 << k.min(20)),
            ProbeBackoff::Linear => rto.times(k as u64 + 1),
        };
        iv.min(PROBE_MAX.max(rto))
    }

    fn enter_loss(&mut self, cx: &Ctx) -> Response {
        self.state = AtcpState::Loss;
        self.recover = cx.snd_max;
        self.timer = Some(cx.now + cx.rto);
        Response::Persist(self.loss_resend())
    }
}

impl Extension for Atcp {
    fn name(&self) -> &'static str {
        "atcp"
    }

    fn on_event(&mut self, ev: SenderEvent, cx: &Ctx) -> Response {
        use AtcpState::*;
        match (self.state, ev) {
            // ICMP destination unreachable in Normal, Loss or Congested: persist, cwnd = 1.
            (Normal | Loss | Congested, SenderEvent::Notice(n))
                if n == Notice::IcmpUnreachable
                    || (n == Notice::RouteFailure && self.p.route_failure_disconnects) =>
            {
                self.state = Disconnected;
                self.probes = 0;
                self.timer = Some(cx.now + self.probe_interval(cx.rto, 0));
                Response::Disconnect
            }
            // Any ACK or data from the receiver answers a probe: leave persist, slow start from
            // cwnd = 1 on the new route, from the first unacknowledged segment (what was in
            // flight when the route broke is lost).
            (Disconnected, SenderEvent::Ack { .. }) => {
                self.state = Normal;
                self.timer = None;
                Response::Flush
            }
            (Disconnected, SenderEvent::Timer) => {
                self.probes += 1;
                self.timer = Some(cx.now + self.probe_interval(cx.rto, self.probes));
                Response::Resend(Resend::Byte)
            }
            // The third duplicate ACK is not forwarded: persist and resend.
            (Normal, SenderEvent::DupAck(n))
                if n == cx.dupthresh && !cx.in_recovery && !self.handed_back =>
            {
                self.enter_loss(cx)
            }
            // The RTO: persist and resend instead of TCP's timeout reaction.
            (Normal, SenderEvent::Timeout) if !self.handed_back => {
                if self.absorb_timeout() {
                    self.enter_loss(cx)
                } else {
                    self.handed_back = true;
                    Response::Ignore
                }
            }
            (Loss, SenderEvent::DupAck(_)) => Response::Persist(Resend::Nothing),
            // ATCP's retransmission timer, at TCP's RTO value.
            (Loss, SenderEvent::Timer) => {
                if self.absorb_timeout() {
                    self.timer = Some(cx.now + cx.rto);
                    Response::Resend(self.loss_resend())
                } else {
                    // Seed 003 §7: after the threshold TCP handles the timeout itself.
                    self.state = Normal;
                    self.timer = None;
                    self.handed_back = true;
                    Response::Release
                }
            }
            // Only the lost segments, one per partial ACK, until the data outstanding at entry is
            // acknowledged (the original resends everything anyway).
            (Loss, SenderEvent::Ack { advanced: true })
                if self.p.loss_retransmit == LossRetransmit::LostSegment
                    && cx.snd_una < self.recover =>
            {
                self.absorbed = 0;
                self.timer = Some(cx.now + cx.rto);
                Response::Resend(Resend::Head)
            }
            (Loss, SenderEvent::Ack { advanced: true }) => {
                self.state = Normal;
                self.timer = None;
                self.absorbed = 0;
                Response::Unfreeze
            }
            // ECN-Echo: congestion is TCP's business.
            (Normal, SenderEvent::Ece) => {
                self.state = Congested;
                Response::Ignore
            }
            (Loss, SenderEvent::Ece) => {
                self.state = Congested;
                self.timer = None;
                Response::Unfreeze
            }
            (Congested, SenderEvent::NewData) => {
                self.state = Normal;
                Response::Ignore
            }
            (Normal | Congested, SenderEvent::Ack { advanced: true }) => {
                self.absorbed = 0;
                self.handed_back = false;
                Response::Ignore
            }
            _ => Response::Ignore,
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.timer
    }

    fn state(&self) -> Option<&'static str> {
        Some(self.state.name())
    }
}
