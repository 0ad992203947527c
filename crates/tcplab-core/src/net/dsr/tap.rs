//! What DSR makes of the unicast frames it overhears (ns-2.35's tap, `dsragent_use_tap`,
//! `DSRAgent::tap`): a Route Error cuts its link here too, the routes seen go to the cache,
//! and a data packet heard before its source route says it should arrive here is the cue for
//! automatic route shortening (RFC 4728 §3.4.3) with a gratuitous Route Reply, rate-limited by
//! the Gratuitous Route Reply Table (§4.4). The packet is lent: nothing here keeps, forwards
//! or delivers it.

use std::collections::VecDeque;

use super::Dsr;
use crate::net::routing::RoutingIo;
use crate::packet::{Addr, DsrOption, DsrPacket, Packet};
use crate::time::SimTime;

/// RFC §4.4: the gratuitous replies this node sent, by (source of the packet, node it was
/// overheard from), each holding back another for the same pair until it expires.
#[derive(Clone, Debug, Default)]
pub(super) struct GratTable {
    /// (source, transmitter, expiry), oldest first (every entry lives `grat_hold`).
    entries: VecDeque<(Addr, Addr, SimTime)>,
}

impl GratTable {
    /// Whether a gratuitous reply to `src` for a packet overheard from `from` may go now;
    /// if so it is recorded until `now + hold`, the oldest entry giving way beyond `cap`.
    fn admit(&mut self, src: Addr, from: Addr, now: SimTime, hold: SimTime, cap: usize) -> bool {
        while self.entries.front().is_some_and(|e| e.2 <= now) {
            self.entries.pop_front();
        }
        if self.entries.iter().any(|e| (e.0, e.1) == (src, from)) {
            return false;
        }
        if self.entries.len() >= cap {
            self.entries.pop_front();
        }
        self.entries.push_back((src, from, now + hold));
        true
    }
}

/// A source-routed packet's full path (as [`Dsr::path_of`]) read in place: `head` (the IP
/// source, absent once salvaged), the option's addresses, the IP destination.
struct Route<'a> {
    head: Option<Addr>,
    mids: &'a [Addr],
    dst: Addr,
}

impl Route<'_> {
    fn len(&self) -> usize {
        self.head.is_some() as usize + self.mids.len() + 1
    }

    fn get(&self, k: usize) -> Addr {
        match (self.head, k) {
            (Some(h), 0) => h,
            _ => {
                let i = k - self.head.is_some() as usize;
                self.mids.get(i).copied().unwrap_or(self.dst)
            }
        }
    }

    fn position(&self, a: Addr) -> Option<usize> {
        (0..self.len()).find(|&k| self.get(k) == a)
    }
}

impl Dsr {
    /// Neighbour `from` sent `pkt` to neighbour `to`, and this node overheard it; what waits
    /// for a route it taught this node leaves.
    pub(super) fn overheard(
        &mut self,
        now: SimTime,
        from: Addr,
        to: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        let Some(d) = pkt.dsr() else {
            return; // a packet for a neighbour carries no route to learn from
        };
        if pkt.ip.src == self.addr {
            return; // ns-2: not its own packets
        }
        self.learn_overheard(now, from, to, pkt, d, io);
        self.release_ready(now, io);
    }

    /// What `overheard` learns from `pkt`, whose DSR part is `d`.
    fn learn_overheard(
        &mut self,
        now: SimTime,
        from: Addr,
        to: Addr,
        pkt: &Packet,
        d: &DsrPacket,
        io: &mut RoutingIo,
    ) {
        for o in &d.hdr.options {
            match o {
                // ns-2 `tap` → `processBrokenRouteError`: the link a Route Error reports is
                // cut by every node that hears it, not only by those it crosses (§8.3.5).
                DsrOption::RouteError {
                    err_src,
                    unreachable,
                    ..
                } => self.cut_link(now, *err_src, *unreachable, false, io),
                // ns-2 `noticeRouteUsed` on a reply heard: its route from this node on.
                DsrOption::RouteReply { addrs, .. } if self.p.snoop => {
                    if let Some(i) = addrs.iter().position(|&a| a == self.addr) {
                        self.cache.add(&addrs[i..], now, false);
                    }
                }
                _ => {}
            }
        }
        let Some((salvage, _, mids)) = d.source_route() else {
            return;
        };
        let route = Route {
            head: (salvage == 0).then_some(pkt.ip.src),
            mids,
            dst: pkt.ip.dst,
        };
        let (Some(t), Some(n)) = (route.position(from), route.position(to)) else {
            return;
        };
        let me = route.position(self.addr);
        if self.p.snoop {
            self.snoop_overheard(now, &route, me, t);
        }
        // RFC §3.4.3: listed after the next hop, this node makes the hops between the
        // transmitter and itself unneeded. ns-2 shortens data only (not DSR control packets).
        if let Some(j) = me.filter(|&j| self.p.grat_replies && d.inner.is_some() && j > n) {
            if t < n {
                self.shorten(now, &route, t, j, io);
            }
        }
    }

    /// ns-2 `noticeRouteUsed` (`cache_use_overheard_routes`): the route from this node to the
    /// packet's destination — its part of the path when on it, else through the transmitter
    /// (the link to it assumed usable) — goes to the cache as overheard.
    fn snoop_overheard(&mut self, now: SimTime, route: &Route, me: Option<usize>, t: usize) {
        let mut stub = std::mem::take(&mut self.scratch);
        stub.clear();
        let from = match me {
            Some(j) => j,
            None => {
                stub.push(self.addr);
                t
            }
        };
        stub.extend((from..route.len()).map(|k| route.get(k)));
        self.cache.add(&stub, now, false);
        self.scratch = stub;
    }

    /// RFC §3.4.3 and §4.4: the packet was heard from hop `t` of `route` while this node is
    /// hop `j`; unless the Gratuitous Route Reply Table holds it back, the route's first node
    /// gets a Route Reply listing the route without hops t+1 … j−1, sent back the way the
    /// packet came (RFC: reversed, so every hop of it is tested; ns-2 the same).
    fn shorten(&mut self, now: SimTime, route: &Route, t: usize, j: usize, io: &mut RoutingIo) {
        let (src, from) = (route.get(0), route.get(t));
        let (hold, cap) = (self.p.grat_hold, self.p.grat_table);
        if !self.grat.admit(src, from, now, hold, cap) {
            return;
        }
        let mut back = Vec::with_capacity(t + 2);
        back.push(self.addr);
        back.extend((0..=t).rev().map(|k| route.get(k)));
        // ns-2 `sendRouteShortening` caches the way back it learnt from the packet.
        self.cache.add(&back, now, true);
        self.grat_sent += 1;
        let opt = DsrOption::RouteReply {
            last_hop_external: false,
            // The route without hops t+1 … j−1, after its first node.
            addrs: (1..=t)
                .chain(j..route.len())
                .map(|k| route.get(k))
                .collect(),
        };
        self.send_routed(&back, vec![opt], io);
    }
}
