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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ext::Notice::{IcmpUnreachable, RouteFailure};
    use crate::tcp::ext::{ctx, run, step};

    /// `step`'s RTO.
    const RTO: u64 = 1000;

    /// Liu & Singh's ATCP with its defaults (seed 003 §5): the 3rd duplicate ACK, not the 1st,
    /// and not in recovery, puts TCP in persist and resends the window (Loss); further
    /// duplicates are absorbed; ATCP's timer resends at TCP's RTO; a new ACK leaves Loss. ECN
    /// hands congestion to TCP until its next segment. ICMP unreachable (not a route failure by
    /// default) disconnects with probes at RTO, 2·RTO, 4·RTO; any ACK ends it.
    #[test]
    fn the_original_state_machine() {
        use SenderEvent::*;
        let mut a = Atcp::new(AtcpParams::default());
        let in_recovery = Ctx {
            in_recovery: true,
            ..ctx(0, RTO)
        };
        assert_eq!(a.on_event(DupAck(3), &in_recovery), Response::Ignore);
        let persist = Response::Persist(Resend::Window);
        let resend = Response::Resend(Resend::Window);
        let probe = Response::Resend(Resend::Byte);
        let ack = |advanced| Ack { advanced };
        run(
            &mut a,
            &[
                (0, DupAck(1), (Response::Ignore, "normal", None)),
                (10, DupAck(3), (persist, "loss", Some(1010))),
                (
                    20,
                    DupAck(4),
                    (Response::Persist(Resend::Nothing), "loss", Some(1010)),
                ),
                (1010, Timer, (resend, "loss", Some(2010))),
                // Never handed back (threshold 0).
                (1020, Timer, (resend, "loss", Some(2020))),
                (1030, ack(false), (Response::Ignore, "loss", Some(2020))),
                (1040, ack(true), (Response::Unfreeze, "normal", None)),
                (1050, Ece, (Response::Ignore, "congested", None)),
                (1060, ack(true), (Response::Ignore, "congested", None)),
                (1070, NewData, (Response::Ignore, "normal", None)),
                (1080, Timeout, (persist, "loss", Some(2080))),
                (1090, Ece, (Response::Unfreeze, "congested", None)),
                (
                    1100,
                    Notice(RouteFailure),
                    (Response::Ignore, "congested", None),
                ),
                (
                    1100,
                    Notice(IcmpUnreachable),
                    (Response::Disconnect, "disconnected", Some(2100)),
                ),
                (2100, Timer, (probe, "disconnected", Some(4100))),
                (4100, Timer, (probe, "disconnected", Some(8100))),
                (5000, ack(false), (Response::Flush, "normal", None)),
            ],
        );
        assert_eq!(a.atcp_state(), AtcpState::Normal);
        assert_eq!(a.name(), "atcp");
    }

    /// Sridhara & Subramanya §7's switches: only the lost segment, one per partial ACK until
    /// the data outstanding at entry is acknowledged; the timeouts past the threshold (here 2)
    /// go to TCP, which keeps them until snd_una advances; linear probe intervals; and a route
    /// failure taken as ICMP unreachable.
    #[test]
    fn the_modified_state_machine() {
        use SenderEvent::*;
        let mut a = Atcp::new(AtcpParams {
            loss_retransmit: LossRetransmit::LostSegment,
            timeout_threshold: 2,
            probe_backoff: ProbeBackoff::Linear,
            route_failure_disconnects: true,
        });
        let head = Response::Resend(Resend::Head);
        let partial = Ctx {
            snd_una: 4000,
            ..ctx(100, RTO)
        };
        let all = Ctx {
            snd_una: 10_000,
            ..ctx(200, RTO)
        };
        let advanced = Ack { advanced: true };
        assert_eq!(step(&mut a, 0, Timeout).0, Response::Persist(Resend::Head));
        // A partial ACK (below SND.MAX at entry, 10 000) resends the next lost segment.
        assert_eq!(a.on_event(advanced, &partial), head);
        assert_eq!(
            (a.state(), a.poll_timeout()),
            (Some("loss"), Some(SimTime::from_millis(1100)))
        );
        // It also restarted the count: two more timeouts are absorbed, the third is TCP's.
        assert_eq!(step(&mut a, 1100, Timer), (head, "loss", Some(2100)));
        assert_eq!(step(&mut a, 2100, Timer), (head, "loss", Some(3100)));
        assert_eq!(
            step(&mut a, 3100, Timer),
            (Response::Release, "normal", None)
        );
        assert_eq!(step(&mut a, 3200, DupAck(3)).0, Response::Ignore);
        assert_eq!(step(&mut a, 3300, Timeout).0, Response::Ignore);
        // snd_una advances: ATCP takes losses again.
        assert_eq!(a.on_event(advanced, &partial), Response::Ignore);
        assert_eq!(
            step(&mut a, 3400, DupAck(3)).0,
            Response::Persist(Resend::Head)
        );
        assert_eq!(a.on_event(advanced, &all), Response::Unfreeze);
        // In Normal too the threshold counts: two absorbed (via Loss and back), the third not.
        assert_eq!(
            step(&mut a, 4000, Timeout).0,
            Response::Persist(Resend::Head)
        );
        assert_eq!(step(&mut a, 4100, Ece).1, "congested");
        assert_eq!(step(&mut a, 4200, NewData).1, "normal");
        assert_eq!(
            step(&mut a, 4300, Timeout).0,
            Response::Persist(Resend::Head)
        );
        assert_eq!(step(&mut a, 4400, Ece).1, "congested");
        assert_eq!(step(&mut a, 4500, NewData).1, "normal");
        assert_eq!(
            step(&mut a, 4600, Timeout),
            (Response::Ignore, "normal", None)
        );
        let route = Notice(super::Notice::RouteFailure);
        let probe = Response::Resend(Resend::Byte);
        assert_eq!(
            step(&mut a, 5000, route),
            (Response::Disconnect, "disconnected", Some(6000))
        );
        assert_eq!(
            step(&mut a, 6000, Timer),
            (probe, "disconnected", Some(8000))
        );
        assert_eq!(
            step(&mut a, 8000, Timer),
            (probe, "disconnected", Some(11_000))
        );
    }

    /// The probe interval stops at 60 s, or at the RTO if that is longer.
    #[test]
    fn the_probe_interval_is_capped() {
        let a = Atcp::new(AtcpParams::default());
        let s = SimTime::from_secs;
        assert_eq!(a.probe_interval(s(40), 0), s(40));
        assert_eq!(a.probe_interval(s(40), 1), s(60));
        assert_eq!(a.probe_interval(s(100), 3), s(100));
        assert_eq!(a.probe_interval(s(1), 40), s(60));
        let names = [
            AtcpState::Normal,
            AtcpState::Loss,
            AtcpState::Congested,
            AtcpState::Disconnected,
        ]
        .map(AtcpState::name);
        assert_eq!(names, ["normal", "loss", "congested", "disconnected"]);
    }
}
