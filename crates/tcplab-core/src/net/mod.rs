//! Nodes, addresses and static routing.

use std::collections::VecDeque;

use crate::ids::{IfaceId, NodeId};
use crate::packet::Addr;

/// First host address: node i is 10.0.0.(i+1) (continuing into the next octets).
pub const ADDR_BASE: Addr = 0x0a00_0001;

pub fn node_addr(n: NodeId) -> Addr {
    ADDR_BASE + n.0
}

pub fn addr_node(a: Addr, n_nodes: usize) -> Option<NodeId> {
    let i = a.checked_sub(ADDR_BASE)?;
    ((i as usize) < n_nodes).then_some(NodeId(i))
}

#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub addr: Addr,
    /// Outgoing interfaces.
    pub ifaces: Vec<IfaceId>,
    /// Next interface towards each destination node (None: unreachable or self).
    pub routes: Vec<Option<IfaceId>>,
    pub ip_ident: u16,
    pub drops_no_route: u64,
    pub drops_ttl: u64,
}

/// Static shortest-path routes by hop count over a graph whose edges carry any first-hop label (a
/// wired interface, or a wireless station and its neighbour): BFS from every source; ties break
/// towards the edge listed first, so routes depend only on the scenario's order of links.
/// `adj[n]` lists (first-hop label, neighbour) of node n; returns `routes[src][dst]`.
pub fn shortest_paths<H: Copy>(adj: &[Vec<(H, NodeId)>]) -> Vec<Vec<Option<H>>> {
    let n = adj.len();
    let mut routes = Vec::with_capacity(n);
    for src in 0..n {
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
        routes.push(first);
    }
    routes
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
}
