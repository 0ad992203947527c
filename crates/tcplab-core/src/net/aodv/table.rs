//! AODV's route table (RFC 3561 §2, §6.1–6.2): one entry per destination with its sequence
//! number, hop count, next hop, lifetime, precursors and state.

use std::collections::BTreeMap;

use crate::packet::Addr;
use crate::time::SimTime;

/// RFC 3561 §6.1: sequence numbers compare as signed 32-bit differences (rollover safe).
pub fn seq_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteState {
    Valid,
    /// Broken, expired or never found: kept for its sequence number.
    Invalid,
    /// Being repaired locally (ns-2 `RTF_IN_REPAIR`): packets for it are buffered.
    Repairing,
}

/// How many discovery latencies ns-2 averages into its per-hop time (`MAX_HISTORY`).
pub const LATENCY_HISTORY: usize = 3;

#[derive(Clone, Debug)]
pub struct Route {
    pub dst: Addr,
    pub seq: u32,
    /// Whether `seq` was learned from the destination (RFC §6.2 "valid sequence number").
    pub valid_seq: bool,
    pub hops: u8,
    pub next: Addr,
    pub expire: SimTime,
    pub state: RouteState,
    /// Neighbours that route through this node to `dst` (RFC §6.2), sorted.
    pub precursors: Vec<Addr>,
    /// Hop count when the route was last valid (starts the next expanding ring, RFC §6.4).
    pub last_hops: u8,
    /// ns-2 per-hop discovery latencies (zero: no sample).
    pub latency: [SimTime; LATENCY_HISTORY],
    pub latency_next: usize,
}

impl Route {
    fn new(dst: Addr) -> Route {
        Route {
            dst,
            seq: 0,
            valid_seq: false,
            hops: 0,
            next: 0,
            expire: SimTime::ZERO,
            state: RouteState::Invalid,
            precursors: Vec::new(),
            last_hops: 0,
            latency: [SimTime::ZERO; LATENCY_HISTORY],
            latency_next: 0,
        }
    }

    /// Valid and not expired: usable for data.
    pub fn is_active(&self, now: SimTime) -> bool {
        self.state == RouteState::Valid && self.expire > now
    }

    pub fn add_precursor(&mut self, n: Addr) {
        if let Err(i) = self.precursors.binary_search(&n) {
            self.precursors.insert(i, n);
        }
    }

    /// Marks the route broken (ns-2 `rt_down`), remembering its hop count.
    pub fn down(&mut self) {
        if self.state != RouteState::Invalid {
            self.last_hops = self.hops;
        }
        self.state = RouteState::Invalid;
    }

    /// RFC §6.2 (and §6.7): an offered (seq, hops) replaces the entry when its sequence number
    /// is unknown, the offer is fresher, or equal and the entry is invalid or longer.
    /// With `repair_keeps_hops` (ns-2) a route in local repair compares like a valid one.
    pub fn should_update(&self, seq: u32, hops: u8, repair_keeps_hops: bool) -> bool {
        let known = match self.state {
            RouteState::Valid => true,
            // ns-2.35 recvReply/recvRequest compare rt_hops, which local_rt_repair leaves set.
            RouteState::Repairing => repair_keeps_hops,
            RouteState::Invalid => false,
        };
        !self.valid_seq
            || seq_newer(seq, self.seq)
            || (seq == self.seq && (!known || hops < self.hops))
    }

    /// Installs a valid route.
    pub fn set(&mut self, seq: u32, hops: u8, next: Addr, expire: SimTime) {
        self.seq = seq;
        self.valid_seq = true;
        self.hops = hops;
        self.last_hops = hops;
        self.next = next;
        self.expire = expire;
        self.state = RouteState::Valid;
    }

    /// ns-2 `PerHopTime`: mean of the recorded per-hop latencies, else `default`.
    pub fn per_hop_time(&self, default: SimTime) -> SimTime {
        let samples: Vec<u64> = self
            .latency
            .iter()
            .map(|t| t.0)
            .filter(|&t| t > 0)
            .collect();
        if samples.is_empty() {
            default
        } else {
            SimTime(samples.iter().sum::<u64>() / samples.len() as u64)
        }
    }

    pub fn record_latency(&mut self, per_hop: SimTime) {
        self.latency[self.latency_next] = per_hop;
        self.latency_next = (self.latency_next + 1) % LATENCY_HISTORY;
    }
}

/// Entries by destination, iterated in address order (deterministic RERR lists).
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    routes: BTreeMap<Addr, Route>,
}

impl RouteTable {
    /// Entries held (destinations heard of).
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    pub fn get(&self, dst: Addr) -> Option<&Route> {
        self.routes.get(&dst)
    }

    pub fn get_mut(&mut self, dst: Addr) -> Option<&mut Route> {
        self.routes.get_mut(&dst)
    }

    /// The entry for `dst`, created invalid with an unknown sequence number if absent.
    pub fn entry(&mut self, dst: Addr) -> &mut Route {
        self.routes.entry(dst).or_insert_with(|| Route::new(dst))
    }

    /// The active route to `dst`; an expired one is marked invalid on the way (RFC §6.11 via
    /// lifetime; ns-2 `rt_purge` also increments its sequence number when `bump_on_expiry`).
    pub fn active(&mut self, dst: Addr, now: SimTime, bump_on_expiry: bool) -> Option<&mut Route> {
        let r = self.routes.get_mut(&dst)?;
        if r.state == RouteState::Valid && r.expire <= now {
            if bump_on_expiry {
                r.seq = r.seq.wrapping_add(1);
            }
            r.down();
        }
        r.is_active(now).then_some(r)
    }

    /// Extends an active route's lifetime to at least `until` (RFC §6.2).
    pub fn refresh(&mut self, dst: Addr, now: SimTime, until: SimTime) {
        if let Some(r) = self.routes.get_mut(&dst) {
            if r.is_active(now) && r.expire < until {
                r.expire = until;
            }
        }
    }

    /// Valid routes whose next hop is `next`.
    pub fn via(&self, next: Addr) -> Vec<Addr> {
        self.routes
            .values()
            .filter(|r| r.state == RouteState::Valid && r.next == next)
            .map(|r| r.dst)
            .collect()
    }

    /// Removes a lost neighbour from every precursor list (ns-2 `pc_delete`).
    pub fn forget_precursor(&mut self, n: Addr) {
        for r in self.routes.values_mut() {
            r.precursors.retain(|&p| p != n);
        }
    }

    /// Entries in the valid state (RFC 3561 §6.1's "valid" flag; an expired one stays listed
    /// until the agent marks it invalid), by destination.
    pub fn valid_routes(&self, out: &mut Vec<crate::net::RouteEntry>) {
        out.extend(
            self.routes
                .values()
                .filter(|r| r.state == RouteState::Valid)
                .map(|r| crate::net::RouteEntry {
                    dst: r.dst,
                    next: r.next,
                    hops: r.hops,
                }),
        );
    }

    pub fn any_active(&self, now: SimTime) -> bool {
        self.routes.values().any(|r| r.is_active(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_compare_across_rollover() {
        assert!(seq_newer(5, 4));
        assert!(!seq_newer(4, 4));
        assert!(seq_newer(1, u32::MAX));
        assert!(!seq_newer(u32::MAX, 1));
    }

    #[test]
    fn update_rule_prefers_fresher_then_shorter() {
        let mut r = Route::new(7);
        assert!(r.should_update(1, 9, false), "unknown sequence number");
        r.set(10, 4, 2, SimTime::from_secs(1));
        assert!(
            r.should_update(11, 9, false),
            "fresher wins even when longer"
        );
        assert!(
            !r.should_update(9, 1, false),
            "staler loses even when shorter"
        );
        assert!(r.should_update(10, 3, false), "equal and shorter");
        assert!(!r.should_update(10, 4, false), "equal and as long");
        r.state = RouteState::Repairing;
        assert!(r.should_update(10, 4, false), "in repair counts as invalid");
        assert!(
            !r.should_update(10, 4, true),
            "ns-2: in repair keeps its hops"
        );
        assert!(
            r.should_update(10, 3, true),
            "ns-2: in repair, a shorter offer wins"
        );
        assert!(
            r.should_update(11, 9, true),
            "ns-2: in repair, a fresher offer wins"
        );
        r.down();
        assert!(
            r.should_update(10, 4, true),
            "equal and the entry is invalid"
        );
        assert_eq!(r.last_hops, 4);
    }
}
