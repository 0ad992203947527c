//! TCP extensions: behaviour layered on a composition without reaching into the socket's fields.
//! The socket calls each hook at one defined point and applies what the hook answers:
//! - receiver side: `on_data` for every data segment (in order or not), `stamp` on every ACK;
//! - sender side: `dupacks_seen` when a duplicate ACK arrives, `on_notice` for cross-layer
//!   notices (ICMP unreachable, route failure and re-establishment, link down and up, an ACK
//!   number learned from routing), answered with a [`Response`] the socket carries out.
//!
//! A new extension is one file here, one arm of [`AnyExtension`] and its name in
//! `config::ExtensionKind`.

mod ack_piggyback;
mod dup_count;

pub use ack_piggyback::AckPiggyback;
pub use dup_count::DupCount;

use super::config::ExtensionKind;
use crate::packet::TcpHeader;

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
}

#[derive(Clone, Debug)]
pub enum AnyExtension {
    DupCount(DupCount),
    AckPiggyback(AckPiggyback),
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
            ExtensionKind::AckPiggyback => AnyExtension::AckPiggyback(AckPiggyback::default()),
        }
    }

    pub fn get(&self) -> &dyn Extension {
        match self {
            AnyExtension::DupCount(e) => e,
            AnyExtension::AckPiggyback(e) => e,
            #[cfg(test)]
            AnyExtension::Scripted(e) => e,
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn Extension {
        match self {
            AnyExtension::DupCount(e) => e,
            AnyExtension::AckPiggyback(e) => e,
            #[cfg(test)]
            AnyExtension::Scripted(e) => e,
        }
    }
}
