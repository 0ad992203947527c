//! Static shortest-path routes over a graph whose edges carry any first-hop label (a wired
//! interface, or a wireless station and its neighbour): BFS from every source, ties towards the
//! edge listed first, so routes depend only on the scenario's order.

use std::collections::VecDeque;

use crate::ids::NodeId;

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
    fn chain_of_labels() {
        // 0 -a- 1 -b- 2, labels are chars.
        let adj = vec![
            vec![('a', NodeId(1))],
            vec![('x', NodeId(0)), ('b', NodeId(2))],
            vec![('y', NodeId(1))],
        ];
        let r = shortest_paths(&adj);
        assert_eq!(r[0][2], Some('a'));
        assert_eq!(r[2][0], Some('y'));
        assert_eq!(r[1][2], Some('b'));
        assert_eq!(r[1][1], None);
    }
}
