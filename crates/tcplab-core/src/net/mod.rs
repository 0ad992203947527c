//! The network layer: nodes and addresses, the routing seam ([`routing`]) and its agents
//! ([`static_routes`], [`aodv`], [`dsr`], [`dsdv`]).

pub mod ack_seq;
pub mod aodv;
pub mod arp;
pub mod dsdv;
pub mod dsr;
pub mod pending;
pub mod routing;
pub mod send_buffer;
pub mod static_routes;
#[cfg(test)]
pub mod testnet;

use std::collections::VecDeque;

use crate::ids::{IfaceId, NodeId, PktId};
use crate::packet::{Addr, Packet};
use crate::time::SimTime;

pub use aodv::{Aodv, AodvParams};
pub use dsdv::{Dsdv, DsdvParams};
pub use dsr::{Dsr, DsrParams};
pub use routing::{
    Decision, DropReason, Hop, Port, RouteEntry, RouteSignal, RoutingAgent, RoutingIo,
    RoutingStats, BROADCAST_ADDR,
};
pub use static_routes::StaticRoutes;

/// Every routing agent, dispatched without a vtable (the forwarding path calls it per packet).
#[derive(Clone, Debug)]
pub enum AnyRouting {
    Static(StaticRoutes),
    Aodv(Box<Aodv>),
    Dsr(Box<Dsr>),
    Dsdv(Box<Dsdv>),
}

macro_rules! each_agent {
    ($self:ident, $a:ident => $e:expr) => {
        match $self {
            AnyRouting::Static($a) => $e,
            AnyRouting::Aodv($a) => $e,
            AnyRouting::Dsr($a) => $e,
            AnyRouting::Dsdv($a) => $e,
        }
    };
}

impl AnyRouting {
    pub fn as_static(&self) -> Option<&StaticRoutes> {
        match self {
            AnyRouting::Static(s) => Some(s),
            _ => None,
        }
    }

    /// The protocol's name as a scenario writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            AnyRouting::Static(_) => "static",
            AnyRouting::Aodv(_) => "aodv",
            AnyRouting::Dsr(_) => "dsr",
            AnyRouting::Dsdv(_) => "dsdv",
        }
    }

    /// The routes this agent would use now, by destination (into `out`, cleared first): AODV's
    /// valid entries, DSDV's finite ones, the first hop of DSR's shortest cached path to each
    /// node it holds. Static routes never change and are not listed. Expiry by time is left to
    /// the agent (an AODV route is listed until the agent itself marks it invalid), so the
    /// list changes only inside the agent's own calls.
    pub fn routes(&self, out: &mut Vec<RouteEntry>) {
        out.clear();
        match self {
            AnyRouting::Static(_) => {}
            AnyRouting::Aodv(a) => a.table().valid_routes(out),
            AnyRouting::Dsr(d) => d.cache().first_hops(d.addr(), out),
            AnyRouting::Dsdv(d) => d.finite_routes(out),
        }
    }
}

impl RoutingAgent for AnyRouting {
    #[inline]
    fn route(
        &mut self,
        now: SimTime,
        id: PktId,
        pkt: &mut Packet,
        from: Option<Addr>,
        io: &mut RoutingIo,
    ) -> Decision {
        each_agent!(self, a => a.route(now, id, pkt, from, io))
    }
    fn on_control(
        &mut self,
        now: SimTime,
        port: Port,
        from: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        each_agent!(self, a => a.on_control(now, port, from, pkt, io))
    }
    fn on_link_failure(
        &mut self,
        now: SimTime,
        hop: Hop,
        id: PktId,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) -> Decision {
        each_agent!(self, a => a.on_link_failure(now, hop, id, pkt, io))
    }
    fn on_recycled(
        &mut self,
        now: SimTime,
        hop: Hop,
        id: PktId,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) -> Decision {
        each_agent!(self, a => a.on_recycled(now, hop, id, pkt, io))
    }
    fn on_local_delivery(
        &mut self,
        now: SimTime,
        pkt: &mut Packet,
        from: Addr,
        io: &mut RoutingIo,
    ) {
        each_agent!(self, a => a.on_local_delivery(now, pkt, from, io))
    }
    fn wants_overheard(&self) -> bool {
        each_agent!(self, a => a.wants_overheard())
    }
    fn on_overheard(
        &mut self,
        now: SimTime,
        port: Port,
        from: Addr,
        to: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        each_agent!(self, a => a.on_overheard(now, port, from, to, pkt, io))
    }
    fn on_timeout(&mut self, now: SimTime, io: &mut RoutingIo) {
        each_agent!(self, a => a.on_timeout(now, io))
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        each_agent!(self, a => a.poll_timeout())
    }
    #[inline]
    fn is_control(&self, pkt: &Packet) -> bool {
        each_agent!(self, a => a.is_control(pkt))
    }
    fn sends_icmp_unreachable(&self) -> bool {
        each_agent!(self, a => a.sends_icmp_unreachable())
    }
    fn stats(&self) -> RoutingStats {
        each_agent!(self, a => a.stats())
    }
}

/// First host address: node i is 10.0.0.(i+1) (continuing into the next octets).
pub const ADDR_BASE: Addr = 0x0a00_0001;

pub fn node_addr(n: NodeId) -> Addr {
    ADDR_BASE + n.0
}

pub fn addr_node(a: Addr, n_nodes: usize) -> Option<NodeId> {
    let i = a.checked_sub(ADDR_BASE)?;
    ((i as usize) < n_nodes).then_some(NodeId(i))
}

/// What a node's [`Port`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    /// The sending side of a wired link.
    Wired(IfaceId),
    /// A wireless station (an index into the world's stations).
    Wifi(u32),
}

#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub addr: Addr,
    /// Wired interfaces (the sending side of each of its links).
    pub ifaces: Vec<IfaceId>,
    /// Every interface by [`Port`]: wired ones in link order, then wireless stations.
    pub ports: Vec<PortKind>,
    pub ip_ident: u16,
    pub drops: NodeDrops,
}

impl Node {
    pub fn new(name: &str, addr: Addr) -> Node {
        Node {
            name: name.to_string(),
            addr,
            ifaces: Vec::new(),
            ports: Vec::new(),
            ip_ident: 0,
            drops: NodeDrops::default(),
        }
    }

    /// The next IP identification (RFC 791), per node.
    pub fn next_ident(&mut self) -> u16 {
        self.ip_ident = self.ip_ident.wrapping_add(1);
        self.ip_ident
    }
}

/// Packets a node's network layer discarded, by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeDrops {
    /// TTL reached zero (RFC 791).
    pub ttl: u64,
    /// Routing gave up on them, per [`DropReason`] (indexed by `DropReason as usize`).
    pub routing: [u64; DropReason::ALL.len()],
    /// ICMP destination-unreachable messages this node originated, and those it received
    /// (as a packet, or reported by its own forwarding path about a packet it originated).
    pub icmp_sent: u64,
    pub icmp_received: u64,
    /// Routes to destinations this node sends to that its routing agent reported lost or
    /// restored (`RouteSignal::Lost`, `RouteSignal::Restored`).
    pub route_changes: u64,
}

impl NodeDrops {
    pub fn count(&mut self, r: DropReason) {
        self.routing[r as usize] += 1;
    }
}

/// Static shortest-path routes by hop count over a graph whose edges carry any first-hop label (a
/// wired interface, or a wireless station and its neighbour): BFS from every source; ties break
/// towards the edge listed first, so routes depend only on the scenario's order of links.
/// `adj[n]` lists (first-hop label, neighbour) of node n; returns `routes[src][dst]`.
pub fn shortest_paths<H: Copy>(adj: &[Vec<(H, NodeId)>]) -> Vec<Vec<Option<H>>> {
    (0..adj.len())
        .map(|src| shortest_paths_from(adj, src))
        .collect()
}

/// The routes of [`shortest_paths`] from the sources `wanted` marks only (None for the others):
/// a node that runs a routing protocol needs no static table, and a network of n such nodes
/// should not cost n² entries (issue 35: memory linear in the node count).
pub fn shortest_paths_for<H: Copy>(
    adj: &[Vec<(H, NodeId)>],
    wanted: &[bool],
) -> Vec<Option<Vec<Option<H>>>> {
    (0..adj.len())
        .map(|src| {
            wanted
                .get(src)
                .copied()
                .unwrap_or(false)
                .then(|| shortest_paths_from(adj, src))
        })
        .collect()
}

/// First hop from `src` towards every node (BFS; ties towards the edge listed first).
fn shortest_paths_from<H: Copy>(adj: &[Vec<(H, NodeId)>], src: usize) -> Vec<Option<H>> {
    let n = adj.len();
    let mut first: Vec<Option<H>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[src] = true;
    let mut q = VecDeque::new();
    for &(h, nb) in &adj[src] {
        if !seen[nb.idx()] {
            seen[nb.idx()] = true;
            first[nb.idx()] = Some(h);
            q.push_back(nb);
        }
    }
    while let Some(u) = q.pop_front() {
        for &(_, nb) in &adj[u.idx()] {
            if !seen[nb.idx()] {
                seen[nb.idx()] = true;
                first[nb.idx()] = first[u.idx()];
                q.push_back(nb);
            }
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_routes() {
        // 0 -a- 1 -b- 2
        let adj = vec![
            vec![(IfaceId(0), NodeId(1))],
            vec![(IfaceId(1), NodeId(0)), (IfaceId(2), NodeId(2))],
            vec![(IfaceId(3), NodeId(1))],
        ];
        let r = shortest_paths(&adj);
        assert_eq!(r[0][2], Some(IfaceId(0)));
        assert_eq!(r[2][0], Some(IfaceId(3)));
        assert_eq!(r[1][0], Some(IfaceId(1)));
        assert_eq!(r[0][0], None);
    }

    /// Tables are computed for the wanted sources only, and are the full computation's rows.
    #[test]
    fn routes_for_wanted_sources_only() {
        let adj = vec![
            vec![(IfaceId(0), NodeId(1))],
            vec![(IfaceId(1), NodeId(0)), (IfaceId(2), NodeId(2))],
            vec![(IfaceId(3), NodeId(1))],
        ];
        let all = shortest_paths(&adj);
        let some = shortest_paths_for(&adj, &[true, false, true]);
        assert_eq!(some[0].as_ref(), Some(&all[0]));
        assert_eq!(some[1], None, "no table for a node that does not want one");
        assert_eq!(some[2].as_ref(), Some(&all[2]));
        assert!(shortest_paths_for(&adj, &[]).iter().all(Option::is_none));
    }
}
