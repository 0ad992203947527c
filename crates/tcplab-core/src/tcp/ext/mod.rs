//! TCP extensions: behaviour layered on a composition without reaching into the socket's fields.
//! The socket calls each hook at one defined point and applies what the hook answers:
//! - receiver side: `on_data` for every data segment (in order or not), `stamp` on every ACK;
//! - sender side: `dupacks_seen` when a duplicate ACK arrives, `on_notice` for cross-layer
//!   notices (ICMP unreachable, route failure and re-establishment, link down and up, an ACK
//!   number learned from routing), answered with a [`Response`] the socket carries out.
//!
//! - sender side, for the ad hoc schemes (ATCP, ELFN, TCP-F): `on_event` for each event TCP
//!   would react to (duplicate ACK, timeout, ECN-Echo, any ACK, new data) and for the
//!   extension's own timer (`poll_timeout`), answered with a [`Response`] that may absorb the
//!   event so that TCP never sees it.
//!
//! A new extension is one file here, one arm of [`AnyExtension`] and its name in
//! `config::ExtensionKind`.

mod ack_piggyback;
mod atcp;
mod dup_count;
mod elfn;
mod freeze;
mod params;
mod tcp_f;

pub use ack_piggyback::AckPiggyback;
pub use atcp::{Atcp, AtcpState};
pub use dup_count::DupCount;
pub use elfn::Elfn;
pub use freeze::Freeze;
pub use params::{AtcpParams, ElfnParams, FreezeParams, LossRetransmit, ProbeBackoff, TcpFParams};
pub use tcp_f::TcpF;

use super::config::{ExtensionKind, TcpConfig};
use crate::packet::TcpHeader;
use crate::time::SimTime;

/// A cross-layer notice for a connection (published by routing, ICMP or the link layer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// ICMP destination unreachable for the peer (RFC 792 type 3).
    IcmpUnreachable,
    /// Routing lost the route to the peer (ELFN's explicit link-failure notice, TCP-F's RFN).
    RouteFailure,
    /// Routing found a route again (TCP-F's RRN).
    RouteReestablished,
    /// The first-hop link is going down or is down.
    LinkDown,
    LinkUp,
    /// Routing carried the receiver's cumulative ACK (TCP-pgy S1's `ack_seq`).
    AckLearned(u64),
}

/// What an extension asks the socket to do about a notice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Response {
    /// Nothing: standard TCP.
    #[default]
    Ignore,
    /// Stop sending and stop the retransmission timer until `Resume` (ELFN stand-by, ATCP's
    /// persist, TCP-F's snooze).
    Freeze,
    /// Leave the frozen state: restart the timer and retransmit the first unacknowledged
    /// segment.
    Resume,
    /// Treat everything below this sequence number as acknowledged (TCP-pgy S1): go-back-N and
    /// recovery no longer resend it; cwnd is unchanged, and no new data is sent until an ACK
    /// above it arrives (retransmissions still go).
    AdvanceAck(u64),
    /// Absorb the event (TCP does not see it: no fast retransmit, no cwnd cut, no back-off),
    /// freeze the sender and resend (ATCP's Loss state).
    Persist(Resend),
    /// Freeze the sender with cwnd = 1 segment (ATCP's Disconnected state).
    Disconnect,
    /// Resend while frozen (ATCP's retransmissions in Loss, probes); absorbs the event.
    Resend(Resend),
    /// Leave the frozen state without resending: the retransmission timer restarts and TCP
    /// sends what its windows allow.
    Unfreeze,
    /// Leave the frozen state and hand TCP the timeout the extension was absorbing: TCP runs
    /// its own RTO reaction now (ATCP's threshold of absorbed timeouts).
    Release,
    /// Leave the frozen state and send every unacknowledged segment again, as far as the
    /// (unchanged) cwnd allows (TCP-F's flush on entering Active).
    Flush,
    /// Send this many pure ACKs now (Freeze-TCP's zero-window advertisement and its
    /// reconnection ACKs).
    SendAcks(u8),
}

/// What a frozen sender resends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resend {
    Nothing,
    /// The first unacknowledged segment (new data if nothing is outstanding).
    Head,
    /// Every unacknowledged segment.
    Window,
    /// One byte at the first unacknowledged sequence number: a header-sized probe.
    Byte,
}

/// A sender event offered to the extensions before (dupack, timeout, ECN-Echo) or after (ACK,
/// new data) TCP's own processing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderEvent {
    Notice(Notice),
    /// A duplicate ACK arrived; the socket's DupAcks count including it.
    DupAck(u32),
    /// The retransmission timer expired.
    Timeout,
    /// An ACK carried ECN-Echo (RFC 3168).
    Ece,
    /// Any ACK from the peer, after TCP processed it; `advanced` if it moved snd_una.
    Ack {
        advanced: bool,
    },
    /// TCP sent a segment of new data.
    NewData,
    /// The extension's own timer ([`Extension::poll_timeout`]) expired.
    Timer,
}

/// What the socket tells an extension with each event.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub now: SimTime,
    /// The current retransmission timeout (backed off if TCP backed it off).
    pub rto: SimTime,
    /// TCP is in fast recovery.
    pub in_recovery: bool,
    /// The duplicate-ACK threshold (RFC 5681 DupThresh).
    pub dupthresh: u32,
    /// SND.UNA and the highest sequence number sent + 1.
    pub snd_una: u64,
    pub snd_max: u64,
}

pub trait Extension {
    fn name(&self) -> &'static str;

    /// Receiver: a data segment arrived, `in_order` if it started at RCV.NXT.
    fn on_data(&mut self, _in_order: bool) {}

    /// Receiver: every outgoing ACK passes here before it is sent.
    fn stamp(&self, _h: &mut TcpHeader) {}

    /// Receiver: the window to advertise, given what the buffer allows (Freeze-TCP advertises
    /// zero before a predicted disconnection).
    fn window(&self, rcv_wnd: u64) -> u64 {
        rcv_wnd
    }

    /// Sender: a duplicate ACK arrived; `dupacks` is the socket's count. Returns how many
    /// duplicates the extension has evidence of; the socket uses the larger of the two, so the
    /// default (no evidence) is 0.
    fn dupacks_seen(&mut self, _h: &TcpHeader, _dupacks: u32) -> u32 {
        0
    }

    /// Sender: a cross-layer notice.
    fn on_notice(&mut self, _n: Notice) -> Response {
        Response::Ignore
    }

    /// Any sender event; by default notices go to `on_notice` and the rest are ignored.
    fn on_event(&mut self, ev: SenderEvent, _cx: &Ctx) -> Response {
        match ev {
            SenderEvent::Notice(n) => self.on_notice(n),
            _ => Response::Ignore,
        }
    }

    /// The extension's own timer (ATCP's retransmissions and probes, ELFN's probes, TCP-F's
    /// route-failure timer); the socket sends it a `Timer` event when it expires.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    /// The extension's state for traces and tests.
    fn state(&self) -> Option<&'static str> {
        None
    }
}

#[derive(Clone, Debug)]
pub enum AnyExtension {
    DupCount(DupCount),
    AckPiggyback(AckPiggyback),
    Atcp(Atcp),
    Elfn(Elfn),
    TcpF(TcpF),
    Freeze(Freeze),
    /// A scripted extension for the socket's trace tests of the notice hook.
    #[cfg(test)]
    Scripted(Scripted),
}

/// Answers each notice from a fixed table (tests only).
#[cfg(test)]
#[derive(Clone, Debug, Default)]
pub struct Scripted {
    pub answers: Vec<(Notice, Response)>,
    /// Advertise a zero window.
    pub zero_window: bool,
}

#[cfg(test)]
impl Extension for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn window(&self, rcv_wnd: u64) -> u64 {
        if self.zero_window {
            0
        } else {
            rcv_wnd
        }
    }
    fn on_notice(&mut self, n: Notice) -> Response {
        self.answers
            .iter()
            .find(|a| a.0 == n)
            .map_or(Response::Ignore, |a| a.1)
    }
}

impl AnyExtension {
    pub fn new(kind: ExtensionKind) -> AnyExtension {
        match kind {
            ExtensionKind::DupCount => AnyExtension::DupCount(DupCount::default()),
            ExtensionKind::AckPiggyback => AnyExtension::AckPiggyback(AckPiggyback),
            ExtensionKind::Atcp => AnyExtension::Atcp(Atcp::new(AtcpParams::default())),
            ExtensionKind::Elfn => AnyExtension::Elfn(Elfn::new(ElfnParams::default())),
            ExtensionKind::TcpF => AnyExtension::TcpF(TcpF::new(TcpFParams::default())),
            ExtensionKind::Freeze => AnyExtension::Freeze(Freeze::new(FreezeParams::default())),
        }
    }

    /// The extension with the parameters the configuration gives it.
    pub fn configured(kind: ExtensionKind, cfg: &TcpConfig) -> AnyExtension {
        match kind {
            ExtensionKind::Atcp => AnyExtension::Atcp(Atcp::new(cfg.atcp)),
            ExtensionKind::Elfn => AnyExtension::Elfn(Elfn::new(cfg.elfn)),
            ExtensionKind::TcpF => AnyExtension::TcpF(TcpF::new(cfg.tcp_f)),
            ExtensionKind::Freeze => AnyExtension::Freeze(Freeze::new(cfg.freeze)),
            k => AnyExtension::new(k),
        }
    }

    pub fn get(&self) -> &dyn Extension {
        match self {
            AnyExtension::DupCount(e) => e,
            AnyExtension::AckPiggyback(e) => e,
            AnyExtension::Atcp(e) => e,
            AnyExtension::Elfn(e) => e,
            AnyExtension::TcpF(e) => e,
            AnyExtension::Freeze(e) => e,
            #[cfg(test)]
            AnyExtension::Scripted(e) => e,
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn Extension {
        match self {
            AnyExtension::DupCount(e) => e,
            AnyExtension::AckPiggyback(e) => e,
            AnyExtension::Atcp(e) => e,
            AnyExtension::Elfn(e) => e,
            AnyExtension::TcpF(e) => e,
            AnyExtension::Freeze(e) => e,
            #[cfg(test)]
            AnyExtension::Scripted(e) => e,
        }
    }
}

/// What the socket tells an extension at `now_ms`, with an RTO of `rto_ms`, DupThresh 3, out of
/// recovery, SND.UNA 0 and SND.MAX 10 000 (tests of the extensions).
#[cfg(test)]
pub(crate) fn ctx(now_ms: u64, rto_ms: u64) -> Ctx {
    Ctx {
        now: SimTime::from_millis(now_ms),
        rto: SimTime::from_millis(rto_ms),
        in_recovery: false,
        dupthresh: 3,
        snd_una: 0,
        snd_max: 10_000,
    }
}

/// Feeds `ev` at `now_ms` (RTO 1 s) and returns the response, the state's name and the
/// extension's timer in ms (tests of the extensions).
#[cfg(test)]
pub(crate) fn step(
    e: &mut dyn Extension,
    now_ms: u64,
    ev: SenderEvent,
) -> (Response, &'static str, Option<u64>) {
    let r = e.on_event(ev, &ctx(now_ms, 1000));
    let timer = e.poll_timeout().map(|t| t.as_millis());
    (r, e.state().unwrap_or("none"), timer)
}

/// One line of an extension's script: at `now` ms this event, then this `step` result.
#[cfg(test)]
pub(crate) type Line = (u64, SenderEvent, (Response, &'static str, Option<u64>));

/// Runs a script through `step`, naming the line that differs.
#[cfg(test)]
pub(crate) fn run(e: &mut dyn Extension, script: &[Line]) {
    for (i, &(now, ev, want)) in script.iter().enumerate() {
        assert_eq!(step(e, now, ev), want, "line {i}: {ev:?} at {now} ms");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::TcpFlags;

    /// The defaults are standard TCP: the buffer's window, no duplicate-ACK evidence, no timer,
    /// no state, and notices reach `on_notice` through `on_event` (here TCP-pgy S1's learned ACK,
    /// which the socket takes as its highest ACK).
    #[test]
    fn the_defaults_are_standard_tcp_and_notices_reach_on_notice() {
        let mut e = AckPiggyback;
        let h = TcpHeader::new(1, 2, 0, 0, TcpFlags::ACK, 1000);
        assert_eq!(e.window(4096), 4096);
        assert_eq!(e.dupacks_seen(&h, 2), 0);
        assert_eq!((e.poll_timeout(), e.state()), (None, None));
        let cx = ctx(0, 1000);
        let learned = SenderEvent::Notice(Notice::AckLearned(5000));
        assert_eq!(e.on_event(learned, &cx), Response::AdvanceAck(5000));
        let other = SenderEvent::Notice(Notice::RouteFailure);
        assert_eq!(e.on_event(other, &cx), Response::Ignore);
        assert_eq!(e.on_event(SenderEvent::Timeout, &cx), Response::Ignore);
        assert_eq!(e.name(), "ack_piggyback");
    }

    /// TCP-pgy S2: the receiver stamps the out-of-order arrivals since the last in-order one;
    /// the sender takes the larger of its own duplicate count and the stamp.
    #[test]
    fn dup_count_stamps_out_of_order_arrivals_and_the_sender_takes_the_larger() {
        let mut e = DupCount::default();
        let mut h = TcpHeader::new(1, 2, 0, 0, TcpFlags::ACK, 1000);
        for in_order in [true, false, false, false] {
            e.on_data(in_order);
        }
        e.stamp(&mut h);
        assert_eq!(h.dup_count, Some(3));
        assert_eq!(e.dupacks_seen(&h, 1), 3);
        assert_eq!(e.dupacks_seen(&h, 4), 4);
        e.on_data(true);
        e.stamp(&mut h);
        assert_eq!(h.dup_count, Some(0));
        h.dup_count = None;
        assert_eq!(e.dupacks_seen(&h, 2), 2);
        assert_eq!(e.name(), "dup_count");
    }
}
