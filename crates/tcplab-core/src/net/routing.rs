//! The seam between IP forwarding and routing protocols.
//!
//! A node's forwarding path asks its [`RoutingAgent`] where each data packet goes next. Agents
//! are sans-IO state machines: they never touch the event queue, the packet arena or another
//! node. They answer a call with a [`Decision`] and leave what else they want done (control
//! packets to send, held packets to release or drop, interface queues to purge, route signals
//! for TCP) in a [`RoutingIo`] that the world carries out. Time comes in as `now`; an agent asks
//! to be woken through [`RoutingAgent::poll_timeout`].
//!
//! Implementations: [`StaticRoutes`](super::static_routes::StaticRoutes) (shortest paths
//! computed once from the topology), the on-demand protocols AODV and DSR, and the proactive
//! DSDV.

use crate::ids::PktId;
use crate::packet::{Addr, Packet};
use crate::time::SimTime;

/// One of a node's interfaces, by position: its wired interfaces in the order their links were
/// added, then its wireless stations in the order they were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Port(pub u16);

/// The link-layer broadcast neighbour (IPv4 limited broadcast, RFC 919).
pub const BROADCAST_ADDR: Addr = 0xffff_ffff;

/// A next hop: leave through `port` to the neighbour whose address is `next`
/// (`BROADCAST_ADDR`: every neighbour on that port).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub port: Port,
    pub next: Addr,
}

/// Why a routing agent gave up on a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// No route, and this node does not look for one (a forwarder without a route, RFC 3561
    /// §6.11 case ii; or a static table without an entry).
    NoRoute,
    /// Route discovery gave up after its retries (RFC 3561 §6.3).
    DiscoveryFailed,
    /// The send buffer of packets awaiting a route was full.
    BufferFull,
    /// The packet waited in the send buffer longer than allowed.
    BufferTimeout,
    /// The link layer could not deliver it to its next hop, or it was queued for a next hop
    /// that broke (ns-2's `DROP_RTR_MAC_CALLBACK`).
    LinkBroken,
}

impl DropReason {
    pub const ALL: [DropReason; 5] = [
        DropReason::NoRoute,
        DropReason::DiscoveryFailed,
        DropReason::BufferFull,
        DropReason::BufferTimeout,
        DropReason::LinkBroken,
    ];

    /// Whether the source is told with an ICMP destination unreachable (RFC 1812 §4.3.3.1):
    /// when no route exists or none could be found; not for losses a retransmission may repair.
    pub fn sends_icmp(self) -> bool {
        matches!(self, DropReason::NoRoute | DropReason::DiscoveryFailed)
    }

    pub fn name(self) -> &'static str {
        match self {
            DropReason::NoRoute => "no_route",
            DropReason::DiscoveryFailed => "discovery_failed",
            DropReason::BufferFull => "buffer_full",
            DropReason::BufferTimeout => "buffer_timeout",
            DropReason::LinkBroken => "link_broken",
        }
    }
}

/// What to do with a packet now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Forward(Hop),
    /// The agent keeps the packet's id (it waits for a route) and later releases or drops it
    /// through [`RoutingIo`].
    Hold,
    Drop(DropReason),
}

/// Cross-layer route events an agent publishes for the transport layer at its node (ELFN,
/// TCP-F, ATCP subscribe to them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteSignal {
    /// A route to `dst` in use broke (link failure here, or an RERR received).
    Lost { dst: Addr },
    /// A route to `dst` is available again after a loss or a discovery.
    Restored { dst: Addr },
    /// A routing message from `peer` carried its TCP receiver's cumulative ACK for the
    /// connection between `port` here and `peer_port` there (TCP-pgy S1's `ack_seq`).
    AckLearned {
        peer: Addr,
        peer_port: u16,
        port: u16,
        ack: u64,
    },
}

/// What an agent asks the world to do, accumulated over one call.
#[derive(Debug, Default)]
pub struct RoutingIo {
    /// Control packets to send now, each to a neighbour or as a link-layer broadcast.
    pub send: Vec<(Hop, Packet)>,
    /// Held packets that now have a route.
    pub release: Vec<(PktId, Hop)>,
    /// Held packets given up.
    pub drop: Vec<(PktId, DropReason)>,
    /// Drop every packet waiting in `hop.port`'s queue for neighbour `hop.next` (ns-2's
    /// `ifqueue->filter`).
    pub purge: Vec<Hop>,
    /// Take every packet waiting in `hop.port`'s queue for neighbour `hop.next` back from the
    /// link layer and hand each to [`RoutingAgent::on_recycled`] (ns-2 DSR's `ifq->filter`
    /// in `xmitFailed`: the link is known dead, so they are salvaged, not sent into it).
    pub recycle: Vec<Hop>,
    pub signals: Vec<RouteSignal>,
    /// Held packets to pass through [`RoutingAgent::route`] again as if they originated at
    /// this node (a source-routing agent writes their route into them then).
    pub reroute: Vec<PktId>,
}

impl RoutingIo {
    pub fn is_empty(&self) -> bool {
        self.send.is_empty()
            && self.release.is_empty()
            && self.drop.is_empty()
            && self.purge.is_empty()
            && self.recycle.is_empty()
            && self.signals.is_empty()
            && self.reroute.is_empty()
    }
}

/// One usable route of a node's table, as the viewer's node panel and the event trace's
/// `route` rows show it: the destination, the neighbour packets for it go to, and the hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteEntry {
    pub dst: Addr,
    pub next: Addr,
    pub hops: u8,
}

/// Counters every agent keeps (zero where a protocol has no such thing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RoutingStats {
    /// Control packets this node sent (originated or forwarded) and their IP bytes.
    pub control_packets: u64,
    pub control_bytes: u64,
    /// Route discoveries started here, and how many gave up.
    pub discoveries: u64,
    pub discoveries_failed: u64,
    pub route_requests: u64,
    pub route_replies: u64,
    pub route_errors: u64,
    /// Link breaks this node detected (MAC feedback or lost HELLOs).
    pub link_breaks: u64,
    /// Route discoveries that ended with a route installed, and their summed latency: from the
    /// first route request for the destination to the route's installation (DSDV has no
    /// requests: from the first packet queued for a broken route to a new route).
    pub discoveries_completed: u64,
    /// Kept in ns; reported in seconds like every other duration of the summary.
    #[serde(rename = "discovery_latency_s", serialize_with = "ns_as_seconds")]
    pub discovery_latency_ns: u64,
}

fn ns_as_seconds<S: serde::Serializer>(ns: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(*ns as f64 / 1e9)
}

impl RoutingStats {
    /// A discovery begun at `started` installed its route at `now`.
    pub fn discovery_done(&mut self, started: SimTime, now: SimTime) {
        self.discoveries_completed += 1;
        self.discovery_latency_ns += now.saturating_sub(started).0;
    }
}

/// A node's routing protocol.
pub trait RoutingAgent {
    /// Where data packet `id` goes next. `pkt` originated at this node when `from` is None,
    /// else it arrived from neighbour `from` (its TTL already decremented). The agent may update
    /// headers it owns (a source route) but not the packet's addresses.
    fn route(
        &mut self,
        now: SimTime,
        id: PktId,
        pkt: &mut Packet,
        from: Option<Addr>,
        io: &mut RoutingIo,
    ) -> Decision;

    /// A control packet of this protocol arrived on `port` from neighbour `from`.
    fn on_control(
        &mut self,
        now: SimTime,
        port: Port,
        from: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    );

    /// The link layer gave up delivering packet `id` (data or control) to `hop.next` after its
    /// retries (RFC 3561 §6.11 link-layer feedback). The decision applies to that packet.
    fn on_link_failure(
        &mut self,
        now: SimTime,
        hop: Hop,
        id: PktId,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) -> Decision;

    /// Packet `id` was waiting for `hop.next` when this agent asked for that queue to be
    /// recycled ([`RoutingIo::recycle`]); by default it is dropped as if its link broke.
    fn on_recycled(
        &mut self,
        _now: SimTime,
        _hop: Hop,
        _id: PktId,
        _pkt: &Packet,
        _io: &mut RoutingIo,
    ) -> Decision {
        Decision::Drop(DropReason::LinkBroken)
    }

    /// A data packet addressed to this node arrived from neighbour `from`, before it is
    /// delivered: a source-routing agent learns from its route and removes its header.
    fn on_local_delivery(
        &mut self,
        _now: SimTime,
        _pkt: &mut Packet,
        _from: Addr,
        _io: &mut RoutingIo,
    ) {
    }

    /// Whether this agent listens promiscuously (ns-2's `dsragent_use_tap`): the world then
    /// turns on its node's 802.11 stations' promiscuous reception and lends it, through
    /// [`RoutingAgent::on_overheard`], every unicast data frame they decode for other stations.
    fn wants_overheard(&self) -> bool {
        false
    }

    /// Neighbour `from` sent `pkt` to neighbour `to` and this node overheard it on `port`
    /// (promiscuous reception). The packet is lent, not given: it belongs to `to`, so the
    /// agent may learn from it and send control packets, but it is neither delivered,
    /// forwarded nor freed here. By default it is ignored.
    fn on_overheard(
        &mut self,
        _now: SimTime,
        _port: Port,
        _from: Addr,
        _to: Addr,
        _pkt: &Packet,
        _io: &mut RoutingIo,
    ) {
    }

    /// Wakes the agent for its timers.
    fn on_timeout(&mut self, now: SimTime, io: &mut RoutingIo);

    /// When the agent next wants [`RoutingAgent::on_timeout`] (None: nothing pending).
    fn poll_timeout(&self) -> Option<SimTime>;

    /// Whether `pkt` is one of this protocol's control packets.
    fn is_control(&self, pkt: &Packet) -> bool;

    /// Whether a relay that drops a packet for want of a route sends its source an ICMP
    /// destination unreachable (RFC 1812 §4.3.3.1; default yes). ns-2.35's wireless node has
    /// no ICMP: its agents' `ns2` presets say no.
    fn sends_icmp_unreachable(&self) -> bool {
        true
    }

    fn stats(&self) -> RoutingStats;
}
