//! The state of one route discovery (RFC 3561 §6.3–6.4; ns-2 keeps it in the route entry as
//! `rt_req_cnt`, `rt_req_timeout`, `rt_req_last_ttl`): which ring comes next and when to retry.

use super::params::{AodvParams, RreqTimeout};
use super::table::Route;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// TTL of the last RREQ (0: none yet).
    pub ttl_last: u8,
    /// Network-wide RREQs sent (ns-2 `rt_req_cnt`).
    pub net_wide: u32,
    /// RREQs sent in this discovery.
    pub attempts: u32,
    /// No RREQ before this: the wait for an RREP, or ns-2's hold-down after giving up.
    pub deadline: SimTime,
    /// When the last RREQ left (for ns-2's per-hop latency).
    pub sent_at: SimTime,
    /// When the first RREQ of this discovery left (its latency runs from here).
    pub started: SimTime,
}

impl Discovery {
    /// Chooses the next RREQ's TTL and sets the wait for its RREP; returns the TTL.
    ///
    /// Expanding ring (RFC §6.4, same rule as ns-2 `sendRequest`): start from the larger of the
    /// last TTL and the route's last known hop count; none → TTL_START; below TTL_THRESHOLD →
    /// + TTL_INCREMENT; otherwise NET_DIAMETER, which counts as a network-wide attempt.
    pub fn next_attempt(&mut self, p: &AodvParams, route: &Route, now: SimTime) -> u8 {
        let last = self.ttl_last.max(route.last_hops);
        let ttl = if last == 0 {
            p.ttl_start
        } else if last < p.ttl_threshold {
            last.saturating_add(p.ttl_increment).min(p.net_diameter)
        } else {
            self.net_wide += 1;
            p.net_diameter
        };
        self.ttl_last = ttl;
        self.attempts += 1;
        if self.attempts == 1 {
            self.started = now;
        }
        self.sent_at = now;
        let wait = match p.rreq_timeout {
            RreqTimeout::RingTraversal if ttl < p.net_diameter => {
                // RING_TRAVERSAL_TIME = 2·NODE_TRAVERSAL_TIME·(TTL + TIMEOUT_BUFFER)
                p.node_traversal_time
                    .times(2 * (ttl as u64 + p.timeout_buffer as u64))
            }
            // §6.3 binary exponential backoff: NET_TRAVERSAL_TIME·2^(retries so far).
            RreqTimeout::RingTraversal => p
                .net_traversal_time()
                .times(1u64 << (self.net_wide - 1).min(16)),
            // ns-2: 2·TTL·PerHopTime, times the network-wide count once there is one.
            RreqTimeout::Ns2PerHop => {
                let base = route
                    .per_hop_time(p.node_traversal_time)
                    .times(2 * ttl as u64);
                base.times(self.net_wide.max(1) as u64)
            }
        };
        let wait = match p.max_rreq_timeout {
            Some(cap) => wait.min(cap),
            None => wait,
        };
        self.deadline = now + wait;
        ttl
    }
}
