//! What `tcplab view` draws (docs/viewer.md): each station's track and one row per packet
//! event the viewer shows — a transmission on the air or on a wire, a reception outcome at the
//! addressee, a drop with its reason, a link the MAC gave up on. Recorded only when the scenario
//! sets `trace.view = true`, so an ordinary run pays one `Option` test per event.
//!
//! The rows are columns of small integers (codes into the name tables below) so that a 600 s
//! run stays a few megabytes once the Python side packs them.

use crate::mobility::Point;
use crate::packet::{Packet, Transport};
use crate::time::SimTime;

/// Event codes (`ViewTrace::event`), in the order of [`EVENT_NAMES`].
pub const TX: u8 = 0;
pub const RX_OK: u8 = 1;
pub const RX_COLLISION: u8 = 2;
pub const RX_ERROR: u8 = 3;
pub const RX_MISSED: u8 = 4;
pub const DROP: u8 = 5;
/// The MAC gave up on a unicast frame after its retries (the packet goes back to routing).
pub const LINK_FAIL: u8 = 6;
pub const EVENT_NAMES: [&str; 7] = [
    "tx",
    "rx_ok",
    "rx_collision",
    "rx_error",
    "rx_missed",
    "drop",
    "link_fail",
];

/// Packet classes (`ViewTrace::class`), in the order of [`CLASS_NAMES`].
pub const TCP_DATA: u8 = 0;
pub const TCP_ACK: u8 = 1;
pub const ROUTING: u8 = 2;
pub const UDP: u8 = 3;
pub const ICMP: u8 = 4;
pub const MAC_RTS: u8 = 5;
pub const MAC_CTS: u8 = 6;
pub const MAC_ACK: u8 = 7;
pub const CLASS_NAMES: [&str; 8] = [
    "tcp_data", "tcp_ack", "routing", "udp", "icmp", "mac_rts", "mac_cts", "mac_ack",
];

/// Drop reasons (`ViewTrace::reason` of `DROP` rows): the event trace's codes and names
/// (`trace::events`), all of them, so every code a drop row carries has its name (ARP's is
/// past the MAC's; the view's MAC losses are `rx_*` and `link_fail` events, not drops).
pub const REASON_NAMES: &[&str] = &super::events::REASON_NAMES;
pub use super::events::{routing_reason, R_LOSS, R_OUTAGE, R_QUEUE, R_TTL};

/// Why the network discarded a packet. Its code is worked out only when a row is written (a
/// routing reason's is a search by name), so a run without the trace pays nothing for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    Queue,
    Loss,
    Outage,
    Ttl,
    Routing(crate::net::DropReason),
    /// Replaced in the ARP hold by a newer packet for the same neighbour.
    Arp,
}

impl Discard {
    /// The [`REASON_NAMES`] code.
    pub fn code(self) -> u8 {
        match self {
            Discard::Queue => R_QUEUE,
            Discard::Loss => R_LOSS,
            Discard::Outage => R_OUTAGE,
            Discard::Ttl => R_TTL,
            Discard::Routing(r) => routing_reason(r),
            Discard::Arp => super::events::R_ARP,
        }
    }
}

/// No flow / no peer (a broadcast).
pub const NONE16: u16 = u16::MAX;

/// One point of a station's track: from `t` on it is at `pos` moving at `vel` (m/s) until the
/// next point of the same node. Mobility models are piecewise linear and the world refreshes
/// at every velocity change, so these points reproduce the model's position exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackPoint {
    pub node: u32,
    pub t: SimTime,
    pub pos: Point,
    pub vel: Point,
}

/// The recorded rows, one column per field.
#[derive(Clone, Debug, Default)]
pub struct ViewTrace {
    pub t: Vec<SimTime>,
    /// Node where the event happened (the sender of a transmission).
    pub node: Vec<u16>,
    /// The other end: the addressee of a transmission (`NONE16` for a broadcast), the sender of
    /// a reception, the next hop of a link failure.
    pub peer: Vec<u16>,
    pub event: Vec<u8>,
    pub class: Vec<u8>,
    /// TCP flow index, or (number of TCP flows + CBR index) for a CBR datagram; `NONE16`.
    pub flow: Vec<u16>,
    /// Frame (MPDU) or IP datagram bytes.
    pub bytes: Vec<u32>,
    /// Time on the air or the wire, µs (transmissions only; 0 otherwise).
    pub dur_us: Vec<f32>,
    /// Packets in the sender's interface queue when a transmission starts.
    pub qlen: Vec<u16>,
    pub retry: Vec<bool>,
    pub reason: Vec<u8>,
    pub tracks: Vec<TrackPoint>,
    /// The last velocity recorded per station (NaN before the first point).
    last_vel: Vec<Point>,
}

/// One row before it is split into the columns.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub t: SimTime,
    pub node: u32,
    pub peer: Option<u32>,
    pub event: u8,
    pub class: u8,
    pub flow: Option<u32>,
    pub bytes: u32,
    pub dur: SimTime,
    pub qlen: usize,
    pub retry: bool,
    pub reason: u8,
}

fn small(x: Option<u32>) -> u16 {
    x.map_or(NONE16, |v| v.min(NONE16 as u32 - 1) as u16)
}

impl ViewTrace {
    pub fn push(&mut self, r: Row) {
        self.t.push(r.t);
        self.node.push(small(Some(r.node)));
        self.peer.push(small(r.peer));
        self.event.push(r.event);
        self.class.push(r.class);
        self.flow.push(small(r.flow));
        self.bytes.push(r.bytes);
        self.dur_us.push((r.dur.0 as f64 / 1e3) as f32);
        self.qlen.push(r.qlen.min(u16::MAX as usize) as u16);
        self.retry.push(r.retry);
        self.reason.push(r.reason);
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Station `sta` of node `node` is at `pos` moving at `vel` from `t`: a track point when the
    /// velocity changed (or at its first report).
    pub fn position(&mut self, sta: u32, node: u32, t: SimTime, pos: Point, vel: Point) {
        let i = sta as usize;
        if self.last_vel.len() <= i {
            self.last_vel.resize(i + 1, (f64::NAN, f64::NAN));
        }
        if self.last_vel[i] == vel {
            return;
        }
        self.last_vel[i] = vel;
        self.tracks.push(TrackPoint { node, t, pos, vel });
    }
}

/// The class of a packet; `is_control` is the routing agent's verdict.
pub fn classify(p: &Packet, is_control: bool) -> u8 {
    if is_control {
        return ROUTING;
    }
    if let Some(h) = p.tcp() {
        // A segment with payload (or a SYN/FIN, which occupies sequence space) is data.
        let data = p.payload > 0
            || h.flags.has(crate::packet::TcpFlags::SYN)
            || h.flags.has(crate::packet::TcpFlags::FIN);
        return if data { TCP_DATA } else { TCP_ACK };
    }
    match p.l4.innermost() {
        Some(Transport::Udp(_)) => UDP,
        Some(Transport::Icmp(_)) => ICMP,
        // AODV, DSDV, a bare DSR header: routing messages whatever the agent says.
        _ => ROUTING,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_track_point_only_when_the_velocity_changes() {
        let mut v = ViewTrace::default();
        v.position(2, 7, SimTime::ZERO, (0.0, 0.0), (1.0, 0.0));
        v.position(2, 7, SimTime::from_secs(1), (1.0, 0.0), (1.0, 0.0));
        v.position(2, 7, SimTime::from_secs(2), (2.0, 0.0), (0.0, 0.0));
        assert_eq!(v.tracks.len(), 2);
        assert_eq!(v.tracks[1].t, SimTime::from_secs(2));
        assert_eq!(v.tracks[1].pos, (2.0, 0.0));
    }

    #[test]
    fn routing_reasons_map_to_their_names() {
        use crate::net::DropReason as R;
        for r in [
            R::NoRoute,
            R::DiscoveryFailed,
            R::BufferFull,
            R::BufferTimeout,
            R::LinkBroken,
        ] {
            assert_eq!(REASON_NAMES[routing_reason(r) as usize], r.name());
        }
    }
}
