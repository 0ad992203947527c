//! DSR (RFC 4728) as a sans-IO routing agent, with the RFC's and ns-2.35's constants selected
//! by [`DsrParams`]. One wireless port per node. docs/models/dsr.md lists the rules and choices.
//!
//! Data leaves its source with a DSR Options header holding a Source Route option (§6.7) and
//! is forwarded by the route in it, not by per-node state; the destination's agent removes the
//! header before delivery ([`RoutingAgent::on_local_delivery`]). A packet's full path is its
//! IP source, the option's addresses and its IP destination; a salvaged packet's addresses
//! start at the salvaging node instead (see [`Dsr::path_of`]).

pub mod cache;
pub mod params;
mod tap;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use super::ack_seq::{hand_over, LatestAcks};
use super::routing::{
    Decision, DropReason, Hop, Port, RouteSignal, RoutingAgent, RoutingIo, RoutingStats,
    BROADCAST_ADDR,
};
use super::send_buffer::SendBuffer;
use crate::ids::PktId;
use crate::packet::{
    AckSeq, Addr, DsrHeader, DsrOption, DsrPacket, Ecn, Ipv4Header, Packet, Transport,
};
use crate::rng::Rng;
use crate::time::SimTime;
pub use cache::PathCache;
pub use params::DsrParams;

/// IP TTL of a propagating request and of replies and errors (RFC 4728 DiscoveryHopLimit).
pub const DISCOVERY_HOP_LIMIT: u8 = 255;

/// Route Errors one packet can nest (ns-2 `hdr_sr.h` MAX_ROUTE_ERRORS).
const MAX_ROUTE_ERRORS: usize = 3;

/// One route discovery in progress (RFC §8.2.1).
#[derive(Clone, Copy, Debug)]
struct Discovery {
    /// When its first request went (its latency runs from here).
    started: SimTime,
    /// Request cycles sent (a cycle: a non-propagating request, then a propagating one).
    cycles: u32,
    cycle_at: SimTime,
    /// Whether this cycle's propagating request went.
    propagated: bool,
    /// Whether a packet of this node's own waits for it; a discovery only for packets a
    /// forwarder could not salvage (`relay_discovery`) sends no propagating request.
    own: bool,
}

#[derive(Clone, Debug)]
pub struct Dsr {
    addr: Addr,
    port: Port,
    p: DsrParams,
    rng: Rng,
    request_id: u16,
    ip_ident: u16,
    cache: PathCache,
    /// Route Request Table (RFC §4.3): the last request ids heard from each initiator.
    seen: HashMap<Addr, VecDeque<u16>>,
    buffer: SendBuffer,
    discoveries: BTreeMap<Addr, Discovery>,
    /// Request backoffs of ended discoveries that no Route Reply cleared
    /// (`keep_request_backoff`): the next discovery for the destination continues them.
    backoffs: BTreeMap<Addr, Discovery>,
    /// Jittered rebroadcasts waiting to go: (due, order, packet).
    pending: super::pending::Pending,
    /// Packets handed back by the MAC that `route` is to salvage.
    salvage: BTreeSet<PktId>,
    /// Forwarded packets this node holds in its send buffer (`relay_discovery`).
    relay_held: BTreeSet<PktId>,
    /// Destinations this node sends data to, and those whose route it announced lost.
    sourced: BTreeSet<Addr>,
    lost: BTreeSet<Addr>,
    /// The last Route Error addressed to this node (the broken link from → to, when it came),
    /// to go on its next Route Request.
    last_error: Option<(Addr, Addr, SimTime)>,
    /// TCP-pgy S1: the latest cumulative ACK this node's TCP sent toward each destination.
    acks: LatestAcks,
    stats: RoutingStats,
    /// Gratuitous Route Reply Table (RFC §4.4) and the replies sent (automatic route
    /// shortening, `tap.rs`).
    grat: tap::GratTable,
    grat_sent: u64,
    /// Reused for the routes overheard packets show (no allocation per frame heard).
    scratch: Vec<Addr>,
}

impl Dsr {
    pub fn new(addr: Addr, port: Port, params: DsrParams, rng: Rng) -> Dsr {
        Dsr {
            addr,
            port,
            p: params,
            rng,
            request_id: 0,
            ip_ident: 0,
            cache: PathCache::new(
                params.cache_primary,
                params.cache_secondary,
                params.cache_timeout,
            ),
            seen: HashMap::new(),
            buffer: SendBuffer::new(params.buffer_capacity, params.buffer_timeout),
            discoveries: BTreeMap::new(),
            backoffs: BTreeMap::new(),
            pending: Default::default(),
            salvage: BTreeSet::new(),
            relay_held: BTreeSet::new(),
            sourced: BTreeSet::new(),
            lost: BTreeSet::new(),
            last_error: None,
            acks: LatestAcks::default(),
            stats: RoutingStats::default(),
            grat: Default::default(),
            grat_sent: 0,
            scratch: Vec::new(),
        }
    }

    pub fn addr(&self) -> Addr {
        self.addr
    }

    pub fn params(&self) -> &DsrParams {
        &self.p
    }

    pub fn cache(&self) -> &PathCache {
        &self.cache
    }

    /// Gratuitous Route Replies sent (automatic route shortening, RFC §3.4.3).
    pub fn grat_replies_sent(&self) -> u64 {
        self.grat_sent
    }

    /// Packets waiting for a route.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    fn hop(&self, next: Addr) -> Hop {
        Hop {
            port: self.port,
            next,
        }
    }

    // ------------------------------------------------------------------ packets

    /// Every node `pkt` visits, in order, by its DSR source route (None: it has none). A
    /// salvaged packet's route starts at the node that salvaged it (RFC §8.3.4: the new route
    /// is from that node's cache; the IP source stays the originator's).
    pub fn path_of(pkt: &Packet) -> Option<Vec<Addr>> {
        let (salvage, _, addrs) = pkt.dsr()?.source_route()?;
        let mut path = Vec::with_capacity(addrs.len() + 2);
        if salvage == 0 {
            path.push(pkt.ip.src);
        }
        path.extend_from_slice(addrs);
        path.push(pkt.ip.dst);
        Some(path)
    }

    /// RFC §8.1.5: the next hop of a source-routed packet at this node; Segments Left drops by
    /// one (it counts the listed nodes still to be visited).
    fn advance(pkt: &mut Packet) -> Option<Addr> {
        let dst = pkt.ip.dst;
        let Transport::Dsr(d) = &mut pkt.l4 else {
            return None;
        };
        let (_, segs_left, addrs) = d.source_route_mut()?;
        if *segs_left == 0 || *segs_left as usize > addrs.len() {
            return None;
        }
        *segs_left -= 1;
        let i = addrs.len() - *segs_left as usize;
        Some(if i < addrs.len() { addrs[i] } else { dst })
    }

    fn control(&mut self, dst: Addr, ttl: u8, options: Vec<DsrOption>) -> Packet {
        self.ip_ident = self.ip_ident.wrapping_add(1);
        Packet {
            ip: Ipv4Header {
                src: self.addr,
                dst,
                ttl,
                ecn: Ecn::NotEct,
                ident: self.ip_ident,
            },
            l4: Transport::Dsr(Box::new(DsrPacket {
                hdr: DsrHeader { options },
                inner: None,
            })),
            payload: 0,
            flow: u32::MAX,
        }
    }

    /// Hands `pkt` to the link layer for neighbour `next` now, and counts it.
    fn emit(&mut self, pkt: Packet, next: Addr, io: &mut RoutingIo) {
        self.count_control(&pkt);
        io.send.push((self.hop(next), pkt));
    }

    /// Counts a control packet this node sends (originated, forwarded or salvaged).
    fn count_control(&mut self, pkt: &Packet) {
        let s = &mut self.stats;
        s.control_packets += 1;
        s.control_bytes += pkt.ip_len() as u64;
        for o in pkt.dsr().map_or(&[][..], |d| &d.hdr.options[..]) {
            match o {
                DsrOption::RouteRequest { .. } => s.route_requests += 1,
                DsrOption::RouteReply { .. } => s.route_replies += 1,
                DsrOption::RouteError { .. } => s.route_errors += 1,
                DsrOption::SourceRoute { .. } | DsrOption::AckSeq(_) => {}
            }
        }
    }

    /// Sends a control packet along `route` (this node first, its destination last) with a
    /// source route for the hops between (RFC §8.1.3).
    fn send_routed(&mut self, route: &[Addr], mut options: Vec<DsrOption>, io: &mut RoutingIo) {
        let dst = *route.last().expect("a route");
        let mids = route[1..route.len() - 1].to_vec();
        if !mids.is_empty() {
            options.push(DsrOption::SourceRoute {
                salvage: 0,
                segs_left: mids.len() as u8,
                addrs: mids,
            });
        }
        // TCP-pgy S1's option last (docs/models/dsr.md: tshark decodes what precedes it).
        options.sort_by_key(|o| matches!(o, DsrOption::AckSeq(_)));
        let pkt = self.control(dst, DISCOVERY_HOP_LIMIT, options);
        self.emit(pkt, route[1], io);
    }

    /// Puts a source route on a packet this node originates along `route` (this node first);
    /// a packet for a neighbour goes without one (RFC §8.1.3: no hops to list).
    fn stamp(pkt: &mut Packet, route: &[Addr]) {
        if route.len() <= 2 {
            return;
        }
        let mids = route[1..route.len() - 1].to_vec();
        let inner = std::mem::replace(
            &mut pkt.l4,
            Transport::Udp(crate::packet::UdpHeader { sport: 0, dport: 0 }),
        );
        pkt.l4 = Transport::Dsr(Box::new(DsrPacket {
            hdr: DsrHeader {
                options: vec![DsrOption::SourceRoute {
                    salvage: 0,
                    segs_left: mids.len() as u8,
                    addrs: mids,
                }],
            },
            inner: Some(inner),
        }));
    }

    /// Removes a DSR header, keeping the transport it carries.
    fn unwrap(pkt: &mut Packet) {
        if let Transport::Dsr(d) = &mut pkt.l4 {
            if let Some(inner) = d.inner.take() {
                pkt.l4 = inner;
            }
        }
    }

    // ------------------------------------------------------------------ route cache

    /// RFC §8.1.4 / ns-2 `dsragent_snoop_source_routes`: the routes a path through this node
    /// gives it, forwards to its end and backwards to its start (802.11 links are used both
    /// ways; ns-2 `dsragent_require_bi_routes`).
    fn learn(&mut self, now: SimTime, path: &[Addr], used: bool, io: &mut RoutingIo) {
        let Some(i) = path.iter().position(|&a| a == self.addr) else {
            return;
        };
        self.cache.add(&path[i..], now, used);
        if !self.p.snoop_forward_only {
            let back: Vec<Addr> = path[..=i].iter().rev().copied().collect();
            self.cache.add(&back, now, used);
        }
        self.release_ready(now, io);
    }

    /// Buffered packets whose destination now has a route go (back through `route`).
    fn release_ready(&mut self, now: SimTime, io: &mut RoutingIo) {
        if self.buffer.is_empty() {
            return;
        }
        for dst in self.buffer.destinations() {
            if self.cache.has(dst, now) {
                for id in self.buffer.take(dst) {
                    // ns-2 `handlePktWithoutSR`: a forwarder's held packet leaves with the
                    // route from this node, as a salvaged one does.
                    if self.relay_held.remove(&id) {
                        self.salvage.insert(id);
                    }
                    io.reroute.push(id);
                }
                let discovery = self.end_discovery(dst);
                if let Some(d) = discovery {
                    self.stats.discovery_done(d.started, now);
                }
                let discovering = discovery.is_some();
                if self.sourced.contains(&dst) && (self.lost.remove(&dst) || discovering) {
                    io.signals.push(RouteSignal::Restored { dst });
                }
            }
        }
    }

    /// The link a → b broke (this node's own, or one a Route Error reports): cut it from the
    /// cache and tell the transport of each destination this node sends to that it leaves
    /// without a route. With `notify_every_error`, when the break is reported to this node
    /// (`to_me`: a Route Error addressed to it, or its own MAC's failure), also of each whose
    /// route ran over a → b although another remains: ELFN as Holland & Vaidya built it, on
    /// the route failure DSR returns to the sender.
    fn cut_link(&mut self, now: SimTime, a: Addr, b: Addr, to_me: bool, io: &mut RoutingIo) {
        // Read before the cut, in the reported direction (the way the failed packet went).
        let through: Vec<Addr> = if self.p.notify_every_error && to_me {
            let uses = |r: &[Addr]| r.windows(2).any(|w| w == [a, b]);
            self.sourced
                .iter()
                .copied()
                .filter(|&d| self.cache.peek(d, now).is_some_and(|r| uses(&r)))
                .collect()
        } else {
            Vec::new()
        };
        if !self.cache.remove_link(a, b) {
            return;
        }
        let gone: Vec<Addr> = self
            .sourced
            .iter()
            .copied()
            .filter(|&d| !self.lost.contains(&d) && !self.cache.has(d, now))
            .collect();
        for dst in gone {
            self.lost.insert(dst);
            io.signals.push(RouteSignal::Lost { dst });
        }
        for dst in through.into_iter().filter(|d| !self.lost.contains(d)) {
            io.signals.push(RouteSignal::Lost { dst });
        }
    }

    // ------------------------------------------------------------------ discovery

    fn hold(&mut self, now: SimTime, id: PktId, dst: Addr, own: bool, io: &mut RoutingIo) {
        self.buffer.hold(id, dst, now, &mut io.drop);
        self.forget_dropped(io);
        if !own {
            self.relay_held.insert(id);
        }
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.own |= own;
            return;
        }
        self.stats.discoveries += 1;
        let kept = self.backoffs.remove(&dst);
        let mut d = kept.unwrap_or(Discovery {
            started: now,
            cycles: 0,
            cycle_at: now,
            propagated: false,
            own,
        });
        (d.started, d.own) = (now, own);
        self.discoveries.insert(dst, d);
        // ns-2 `getRouteForPacket` → `BackOffTest`: a new request cycle only once the
        // destination's backoff allows it (at once for a destination never asked for).
        if kept.is_none() || now >= d.cycle_at + self.p.request_wait(d.cycles) {
            self.request_cycle(now, dst, io);
        } else if !d.propagated && now >= d.cycle_at + self.p.nonprop_timeout {
            // ns-2: the last request was a non-propagating one that went unanswered; an own
            // packet sends the propagating one now (a forwarder's never does).
            self.discoveries.get_mut(&dst).unwrap().propagated = true;
            if own {
                self.send_request(now, dst, DISCOVERY_HOP_LIMIT, io);
            }
        }
    }

    /// Ends the discovery for `dst`; with `keep_request_backoff` its backoff is kept for the
    /// next one (ns-2's request table entry outlives the packets it was made for).
    fn end_discovery(&mut self, dst: Addr) -> Option<Discovery> {
        let d = self.discoveries.remove(&dst)?;
        if self.p.keep_request_backoff {
            self.backoffs.insert(dst, d);
        }
        Some(d)
    }

    /// Held forwarded packets the buffer dropped are no longer held.
    fn forget_dropped(&mut self, io: &RoutingIo) {
        if !self.relay_held.is_empty() {
            for (id, _) in &io.drop {
                self.relay_held.remove(id);
            }
        }
    }

    /// RFC §8.2.1: a new request cycle for `dst` — a non-propagating request first when
    /// configured, else a propagating one — or the end of the discovery after
    /// MaxRequestRexmt retransmissions.
    fn request_cycle(&mut self, now: SimTime, dst: Addr, io: &mut RoutingIo) {
        let d = self.discoveries.get_mut(&dst).expect("a discovery");
        d.cycles += 1;
        d.cycle_at = now;
        if self
            .p
            .max_request_rexmt
            .is_some_and(|m| d.cycles > m.saturating_add(1))
        {
            self.discoveries.remove(&dst);
            self.stats.discoveries_failed += 1;
            for id in self.buffer.take(dst) {
                io.drop.push((id, DropReason::DiscoveryFailed));
            }
            self.forget_dropped(io);
            return;
        }
        if !d.own && d.cycles > 1 {
            // ns-2 NEW_SALVAGE_LOGIC (`getRouteForPacket`): once the backoff allows another
            // request, a forwarder's packet is dropped instead (`dsr_salvage_max_requests` 1).
            d.propagated = true;
            if let Some(id) = self.buffer.take_oldest(dst) {
                self.relay_held.remove(&id);
                io.drop.push((id, DropReason::LinkBroken));
            }
            return;
        }
        d.propagated = !self.p.nonprop_first;
        let ttl = if self.p.nonprop_first {
            1
        } else {
            DISCOVERY_HOP_LIMIT
        };
        self.send_request(now, dst, ttl, io);
    }

    fn deadline(&self, d: &Discovery) -> SimTime {
        if d.propagated {
            d.cycle_at + self.p.request_wait(d.cycles)
        } else {
            d.cycle_at + self.p.nonprop_timeout
        }
    }

    fn send_request(&mut self, now: SimTime, target: Addr, ttl: u8, io: &mut RoutingIo) {
        self.request_id = self.request_id.wrapping_add(1);
        let mut options = Vec::with_capacity(2);
        // RFC §8.2.1 / ns-2 `dsragent_propagate_last_error`: the last Route Error received
        // rides on the next requests (before the request, so every node that hears them cuts
        // the link before it could answer from its cache with it), until a propagating one
        // carried it; ns-2 only within `max_err_hold` of its arrival.
        if let Some((from, to, at)) = self.last_error {
            if self.p.error_hold.is_none_or(|h| now < at + h) {
                options.push(DsrOption::RouteError {
                    salvage: 0,
                    err_src: from,
                    err_dst: self.addr,
                    unreachable: to,
                });
            }
            if ttl > 1 {
                self.last_error = None;
            }
        }
        options.push(DsrOption::RouteRequest {
            id: self.request_id,
            target,
            addrs: Vec::new(),
        });
        self.push_ack(target, &mut options);
        let pkt = self.control(BROADCAST_ADDR, ttl, options);
        self.emit(pkt, BROADCAST_ADDR, io);
    }

    /// TCP-pgy S1 (seed 002 §III-B.1, for DSR-like protocols): a request or reply this node
    /// originates toward `peer` carries its TCP's latest ACK toward it.
    fn push_ack(&self, peer: Addr, options: &mut Vec<DsrOption>) {
        if let Some(e) = self.acks.get(peer).filter(|_| self.p.ack_piggyback) {
            options.push(DsrOption::AckSeq(e));
        }
    }

    /// Whether (initiator, id) was heard already; records it (RFC §4.3, RequestTableIds per
    /// initiator, oldest forgotten first).
    fn seen_before(&mut self, init: Addr, id: u16) -> bool {
        let ids = self.seen.entry(init).or_default();
        if ids.contains(&id) {
            return true;
        }
        if ids.len() >= self.p.request_table_ids {
            ids.pop_front();
        }
        ids.push_back(id);
        false
    }

    // ------------------------------------------------------------------ control reception

    fn on_request(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        id: u16,
        target: Addr,
        addrs: &[Addr],
        io: &mut RoutingIo,
    ) {
        let init = pkt.ip.src;
        if init == self.addr {
            return;
        }
        // The way back: this node, the recorded hops reversed, the initiator.
        let mut back = Vec::with_capacity(addrs.len() + 2);
        back.push(self.addr);
        back.extend(addrs.iter().rev());
        back.push(init);
        if target == self.addr {
            // Seed 002 §III-B.1: a request from the TCP receiver tells this sender its ACK.
            hand_over(init, pkt.dsr().and_then(|d| d.ack_seq()), io);
            // RFC §8.2.2: the target answers every copy with the route it recorded, sent back
            // by that route reversed, and caches that reverse route.
            let mut route = addrs.to_vec();
            route.push(self.addr);
            self.cache.add(&back, now, true);
            let mut options = vec![DsrOption::RouteReply {
                last_hop_external: false,
                addrs: route,
            }];
            self.push_ack(init, &mut options);
            self.send_routed(&back, options, io);
            self.release_ready(now, io);
            return;
        }
        if addrs.contains(&self.addr) || self.seen_before(init, id) {
            return; // RFC §8.2.2: already on the route, or a copy already processed
        }
        // ns-2 (`handleRouteRequest`, `tap`) takes no route from the requests it forwards.
        if self.p.snoop && !self.p.snoop_forward_only {
            self.cache.add(&back, now, false);
            self.release_ready(now, io);
        }
        if self.p.reply_from_cache {
            if let Some(rest) = self.cache.peek(target, now) {
                // RFC §8.2.3: the recorded route plus this node's cached route, if it visits no
                // node twice; the request is not propagated then.
                let mut full = Vec::with_capacity(addrs.len() + rest.len() + 1);
                full.push(init);
                full.extend_from_slice(addrs);
                full.extend_from_slice(&rest);
                let distinct: BTreeSet<Addr> = full.iter().copied().collect();
                if distinct.len() == full.len() {
                    let opt = DsrOption::RouteReply {
                        last_hop_external: false,
                        addrs: full[1..].to_vec(),
                    };
                    self.send_routed(&back, vec![opt], io);
                    if self.p.snoop_forward_only {
                        // ns-2 `replyFromRouteCache`: the replier caches the way back.
                        self.cache.add(&back, now, true);
                        self.release_ready(now, io);
                    }
                    let carried = pkt.dsr().and_then(|d| d.ack_seq());
                    if let Some(e) = carried.filter(|_| self.p.ack_piggyback) {
                        self.ack_to_target(&full, rest.len(), e, io);
                    }
                    return;
                }
            }
        }
        // RFC §8.2.2: propagate with this node appended, within the IP TTL (a non-propagating
        // request has TTL 1) and the longest recordable route.
        if pkt.ip.ttl <= 1 || addrs.len() >= self.p.max_route_len {
            return;
        }
        let mut fwd = pkt.clone();
        fwd.ip.ttl -= 1;
        if let Transport::Dsr(d) = &mut fwd.l4 {
            for o in &mut d.hdr.options {
                if let DsrOption::RouteRequest { addrs, .. } = o {
                    addrs.push(self.addr);
                }
            }
        }
        let due = now + SimTime(self.rng.below(self.p.jitter_max.0.max(1)));
        self.pending.push(due, fwd);
    }

    /// Seed 002 §III-B.1.a: when an intermediate node answers the TCP receiver's request from
    /// its cache, the request stops there, so the ACK it carries goes on to the target (the TCP
    /// sender) in "a new routing control packet" — here an unsolicited Route Reply from this node
    /// to the target with the route back to the initiator and the ACK, the role AODV's
    /// gratuitous RREP plays. `full` is initiator … this node … target; its last `tail` nodes
    /// are this node's cached route to the target.
    fn ack_to_target(&mut self, full: &[Addr], tail: usize, e: AckSeq, io: &mut RoutingIo) {
        let to_target = &full[full.len() - tail..];
        let back: Vec<Addr> = full[..full.len() - 1].iter().rev().copied().collect();
        let opt = DsrOption::RouteReply {
            last_hop_external: false,
            addrs: back,
        };
        self.send_routed(to_target, vec![opt, DsrOption::AckSeq(e)], io);
    }

    /// Forwards a source-routed control packet one hop (its IP TTL decremented here: control
    /// packets reach the agent before IP forwarding).
    fn forward_control(&mut self, pkt: &Packet, io: &mut RoutingIo) {
        if pkt.ip.ttl <= 1 {
            return;
        }
        let mut fwd = pkt.clone();
        fwd.ip.ttl -= 1;
        if let Some(next) = Self::advance(&mut fwd) {
            self.emit(fwd, next, io);
        }
    }

    fn on_reply(&mut self, now: SimTime, pkt: &Packet, addrs: &[Addr], io: &mut RoutingIo) {
        let mut path = Vec::with_capacity(addrs.len() + 1);
        path.push(pkt.ip.dst);
        path.extend_from_slice(addrs);
        if pkt.ip.dst == self.addr {
            // Seed 002 §III-B.1: the TCP receiver's reply, or one an intermediate node sent on
            // its behalf, tells this sender the receiver's ACK; the receiver ends the route.
            let peer = *addrs.last().unwrap_or(&pkt.ip.src);
            hand_over(peer, pkt.dsr().and_then(|d| d.ack_seq()), io);
            // RFC §8.2.5: the initiator caches the route and sends what waited for it.
            self.cache.add(&path, now, true);
            self.release_ready(now, io);
            // ns-2 `acceptRouteReply`: a reply clears the backoff of the node its route ends at.
            self.backoffs.remove(&peer);
            return;
        }
        if self.p.snoop {
            if !self.p.snoop_forward_only {
                self.learn(now, &path, false, io);
            } else if let Some(travel) = Self::path_of(pkt) {
                // ns-2 `handleForwarding`: the reply's own source route, not what it carries.
                self.learn(now, &travel, false, io);
            }
        }
        self.forward_control(pkt, io);
    }

    /// RFC §8.3.5: every node an RERR crosses (or hears on a Route Request) cuts the broken
    /// link from its cache; the node it is for keeps it for its next request.
    /// A packet's Route Errors, innermost first, as (from, told, unreachable): ns-2 nests
    /// the error about a failed error packet after the ones it carried (`control_failures`).
    fn errors_in(pkt: &Packet) -> Vec<(Addr, Addr, Addr)> {
        pkt.dsr().map_or_else(Vec::new, |d| {
            d.hdr
                .options
                .iter()
                .filter_map(|o| match o {
                    DsrOption::RouteError {
                        err_src,
                        err_dst,
                        unreachable,
                        ..
                    } => Some((*err_src, *err_dst, *unreachable)),
                    _ => None,
                })
                .collect()
        })
    }

    /// RFC §8.3.5: every node an RERR crosses (or hears on a Route Request) cuts the broken
    /// links from its cache (ns-2 `processBrokenRouteError`: all of a nested error's); the
    /// node it is for keeps the outermost for its next request and passes the rest on.
    fn on_errors(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        errors: &[(Addr, Addr, Addr)],
        io: &mut RoutingIo,
    ) {
        let to_me = pkt.ip.dst == self.addr;
        for &(src, _, unreachable) in errors {
            self.cut_link(now, src, unreachable, to_me, io);
        }
        if to_me {
            let (src, _, unreachable) = errors[errors.len() - 1];
            self.last_error = Some((src, unreachable, now));
            if errors.len() > 1 {
                self.pass_on_errors(now, &errors[..errors.len() - 1], io);
            }
        } else if pkt.ip.dst != BROADCAST_ADDR {
            self.forward_control(pkt, io);
        }
    }

    /// ns-2 `processBrokenRouteError`: what is left of a nested error goes on to the node its
    /// new outermost error is for, by this node's cached route. (ns-2 would hold it and look
    /// for a route; without one it is dropped here.)
    fn pass_on_errors(&mut self, now: SimTime, rest: &[(Addr, Addr, Addr)], io: &mut RoutingIo) {
        let tell = rest[rest.len() - 1].1;
        if tell == self.addr {
            return;
        }
        let Some(route) = self.cache.find(tell, now) else {
            return;
        };
        let options = rest
            .iter()
            .map(|&(src, told, unreachable)| DsrOption::RouteError {
                salvage: 0,
                err_src: src,
                err_dst: told,
                unreachable,
            })
            .collect();
        self.send_routed(&route, options, io);
    }

    /// RFC §8.3.4: a Route Error for the link this node → `next` to the packet's originator,
    /// back the way the packet came (ns-2 reverses the packet's route too).
    fn send_error(&mut self, now: SimTime, pkt: &Packet, next: Addr, io: &mut RoutingIo) {
        let path = Self::path_of(pkt).unwrap_or_else(|| vec![pkt.ip.src, self.addr]);
        let Some(i) = path.iter().position(|&a| a == self.addr) else {
            return;
        };
        let salvage = pkt.dsr().and_then(|d| d.source_route()).map_or(0, |s| s.0);
        // The way the packet came is known to work; a salvaged packet's way starts at the
        // node that salvaged it, so the originator is then reached by a cached route.
        let reversed: Vec<Addr> = path[..=i].iter().rev().copied().collect();
        let back = match salvage {
            0 => reversed,
            _ => self.cache.peek(pkt.ip.src, now).unwrap_or(reversed),
        };
        if back.len() < 2 {
            return;
        }
        // ns-2 `xmitFailed`: a failed error packet's errors stay, the new one outermost; one
        // that already holds MAX_ROUTE_ERRORS (3) is dropped instead.
        let carried = Self::errors_in(pkt);
        if carried.len() >= MAX_ROUTE_ERRORS {
            return;
        }
        let mut options: Vec<DsrOption> = carried
            .iter()
            .map(|&(src, told, unreachable)| DsrOption::RouteError {
                salvage,
                err_src: src,
                err_dst: told,
                unreachable,
            })
            .collect();
        options.push(DsrOption::RouteError {
            salvage,
            err_src: self.addr,
            err_dst: *back.last().unwrap(),
            unreachable: next,
        });
        self.send_routed(&back, options, io);
    }
}

impl Dsr {
    /// ns-2 `undeliverablePkt`: a data packet that cannot go to its next hop. This node's own
    /// goes back through `route` (another cached route, or the send buffer and a discovery;
    /// ns-2 `handlePktWithoutSR`); a forwarded one is salvaged with a cached route (RFC
    /// §8.3.4) or dropped.
    fn undeliverable(
        &mut self,
        now: SimTime,
        id: PktId,
        pkt: &Packet,
        next: Addr,
        io: &mut RoutingIo,
    ) -> Decision {
        if pkt.ip.src == self.addr {
            io.reroute.push(id);
            return Decision::Hold;
        }
        // ns-2 `dsragent_dont_salvage_bad_replies`: a reply whose route uses the broken link
        // (either way: `dsragent_require_bi_routes`) has no reason to live.
        if self.is_control(pkt) && Self::reply_uses(pkt, self.addr, next) {
            return Decision::Drop(DropReason::LinkBroken);
        }
        let salvaged = pkt.dsr().and_then(|d| d.source_route()).map_or(0, |s| s.0);
        if !self.p.salvage || salvaged >= self.p.max_salvage {
            return Decision::Drop(DropReason::LinkBroken);
        }
        if self.cache.has(pkt.ip.dst, now) {
            self.salvage.insert(id);
            io.reroute.push(id);
            return Decision::Hold;
        }
        if self.p.relay_discovery {
            // ns-2 NEW_SALVAGE_LOGIC (`undeliverablePkt`): into the send buffer, to wait for
            // a route this node looks for itself.
            return self.hold_or_drop(now, id, pkt.ip.dst, false, io);
        }
        Decision::Drop(DropReason::LinkBroken)
    }

    /// Holds `id` for a route to `dst`; Drop if the buffer refused it.
    fn hold_or_drop(
        &mut self,
        now: SimTime,
        id: PktId,
        dst: Addr,
        own: bool,
        io: &mut RoutingIo,
    ) -> Decision {
        self.hold(now, id, dst, own, io);
        if let Some(i) = io.drop.iter().position(|&(d, _)| d == id) {
            let (_, why) = io.drop.remove(i);
            self.relay_held.remove(&id);
            return Decision::Drop(why);
        }
        Decision::Hold
    }

    /// Whether `pkt` carries a Route Reply whose route has the link a – b, either way.
    fn reply_uses(pkt: &Packet, a: Addr, b: Addr) -> bool {
        pkt.dsr().is_some_and(|d| {
            d.hdr.options.iter().any(|o| match o {
                DsrOption::RouteReply { addrs, .. } => std::iter::once(&pkt.ip.dst)
                    .chain(addrs.iter())
                    .zip(addrs.iter())
                    .any(|(&x, &y)| (x, y) == (a, b) || (x, y) == (b, a)),
                _ => false,
            })
        })
    }

    /// Puts `route` (this node first) on a DSR packet as its source route: counted as a
    /// salvage (RFC §8.3.4: the addresses then start at this node) or, for this node's own
    /// packet, the hops between. A control packet that had none gets the option.
    fn restamp(pkt: &mut Packet, route: &[Addr], salvaged: bool) {
        let Transport::Dsr(d) = &mut pkt.l4 else {
            return;
        };
        let n = route.len();
        let new = if salvaged {
            route[..n - 1].to_vec()
        } else {
            route[1..n - 1].to_vec()
        };
        if let Some((salvage, segs_left, addrs)) = d.source_route_mut() {
            if salvaged {
                *salvage = salvage.saturating_add(1);
            }
            *addrs = new;
            *segs_left = (n - 2) as u8;
        } else if salvaged || n > 2 {
            let at = d
                .hdr
                .options
                .iter()
                .position(|o| matches!(o, DsrOption::AckSeq(_)))
                .unwrap_or(d.hdr.options.len());
            let opt = DsrOption::SourceRoute {
                salvage: salvaged as u8,
                segs_left: (n - 2) as u8,
                addrs: new,
            };
            d.hdr.options.insert(at, opt);
        }
    }
}

impl RoutingAgent for Dsr {
    fn route(
        &mut self,
        now: SimTime,
        id: PktId,
        pkt: &mut Packet,
        from: Option<Addr>,
        io: &mut RoutingIo,
    ) -> Decision {
        let dst = pkt.ip.dst;
        if dst == BROADCAST_ADDR {
            return Decision::Forward(self.hop(BROADCAST_ADDR));
        }
        if from.is_some() {
            // RFC §8.1.5: forward by the source route; ns-2 snoops it.
            if self.p.snoop {
                if let Some(path) = Self::path_of(pkt) {
                    self.learn(now, &path, false, io);
                }
            }
            return match Self::advance(pkt) {
                Some(next) => Decision::Forward(self.hop(next)),
                None => Decision::Drop(DropReason::NoRoute),
            };
        }
        if self.salvage.remove(&id) {
            // RFC §8.3.4: salvage with a cached route from this node; Salvage counts it.
            let Some(route) = self.cache.find(dst, now) else {
                return Decision::Drop(DropReason::LinkBroken);
            };
            Self::restamp(pkt, &route, true);
            if self.is_control(pkt) {
                self.count_control(pkt);
            }
            return Decision::Forward(self.hop(route[1]));
        }
        if self.is_control(pkt) {
            // ns-2 `undeliverablePkt` → `handlePktWithoutSR` (`control_failures`): this node's
            // own reply or error the MAC handed back goes by another cached route, or waits for
            // one.
            if let Some(route) = self.cache.find(dst, now) {
                Self::restamp(pkt, &route, false);
                self.count_control(pkt);
                return Decision::Forward(self.hop(route[1]));
            }
            return self.hold_or_drop(now, id, dst, true, io);
        }
        // A packet of this node's own (new, or handed back by the MAC to be sent again).
        Self::unwrap(pkt);
        self.sourced.insert(dst);
        if self.p.ack_piggyback {
            self.acks.note(pkt);
        }
        if let Some(route) = self.cache.find(dst, now) {
            Self::stamp(pkt, &route);
            return Decision::Forward(self.hop(route[1]));
        }
        self.hold_or_drop(now, id, dst, true, io)
    }

    fn on_control(
        &mut self,
        now: SimTime,
        _port: Port,
        _from: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        let Some(d) = pkt.dsr() else { return };
        let errors = Self::errors_in(pkt);
        if !errors.is_empty() {
            self.on_errors(now, pkt, &errors, io);
        }
        for o in &d.hdr.options {
            match o {
                DsrOption::RouteRequest { id, target, addrs } => {
                    self.on_request(now, pkt, *id, *target, addrs, io)
                }
                DsrOption::RouteReply { addrs, .. } => self.on_reply(now, pkt, addrs, io),
                DsrOption::RouteError { .. }
                | DsrOption::SourceRoute { .. }
                | DsrOption::AckSeq(_) => {}
            }
        }
    }

    fn on_local_delivery(
        &mut self,
        now: SimTime,
        pkt: &mut Packet,
        _from: Addr,
        io: &mut RoutingIo,
    ) {
        if self.p.snoop {
            if let Some(path) = Self::path_of(pkt) {
                self.learn(now, &path, false, io);
            }
        }
        // RFC §8.1.4: the destination removes the DSR Options header.
        Self::unwrap(pkt);
    }

    fn wants_overheard(&self) -> bool {
        self.p.tap
    }

    fn on_overheard(
        &mut self,
        now: SimTime,
        _port: Port,
        from: Addr,
        to: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        if self.p.tap {
            self.overheard(now, from, to, pkt, io);
        }
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        hop: Hop,
        id: PktId,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) -> Decision {
        if pkt.ip.dst == BROADCAST_ADDR {
            return Decision::Drop(DropReason::LinkBroken);
        }
        // RFC §8.3: the MAC's retries are DSR's hop-by-hop acknowledgement (§8.3.1).
        self.stats.link_breaks += 1;
        self.cut_link(now, self.addr, hop.next, true, io);
        // ns-2 `xmitFailed`: what else waits in the queue for that neighbour would only
        // fail in turn; it is taken back and salvaged now.
        io.recycle.push(hop);
        if self.is_control(pkt) && !self.p.control_failures {
            return Decision::Drop(DropReason::LinkBroken);
        }
        // ns-2 `xmitFailed` (for a reply or error too, `control_failures`): a Route Error to
        // the node the packet's route starts at, unless that is this node.
        if pkt.ip.src != self.addr {
            self.send_error(now, pkt, hop.next, io);
        }
        self.undeliverable(now, id, pkt, hop.next, io)
    }

    fn on_recycled(
        &mut self,
        now: SimTime,
        hop: Hop,
        id: PktId,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) -> Decision {
        if self.is_control(pkt) && !self.p.control_failures {
            return Decision::Drop(DropReason::LinkBroken);
        }
        self.undeliverable(now, id, pkt, hop.next, io)
    }

    fn on_timeout(&mut self, now: SimTime, io: &mut RoutingIo) {
        for pkt in self.pending.take_due(now) {
            self.emit(pkt, BROADCAST_ADDR, io);
        }
        self.buffer.expire(now, &mut io.drop);
        self.forget_dropped(io);
        let due: Vec<(Addr, bool, bool)> = self
            .discoveries
            .iter()
            .filter(|(_, d)| self.deadline(d) <= now)
            .map(|(&dst, d)| (dst, d.propagated, d.own))
            .collect();
        for (dst, propagated, own) in due {
            if !self.buffer.has(dst) {
                self.end_discovery(dst); // nothing waits for it any more
            } else if !propagated {
                // RFC §8.2.1: no reply within NonpropRequestTimeout, so a propagating request;
                // not for a forwarder's packets (ns-2 `dsr_salvage_allow_propagating` 0).
                self.discoveries.get_mut(&dst).unwrap().propagated = true;
                if own {
                    self.send_request(now, dst, DISCOVERY_HOP_LIMIT, io);
                }
            } else {
                self.request_cycle(now, dst, io);
            }
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let a = self.pending.next_due();
        let b = self.buffer.next_expiry();
        let c = self.discoveries.values().map(|d| self.deadline(d)).min();
        [a, b, c].into_iter().flatten().min()
    }

    fn is_control(&self, pkt: &Packet) -> bool {
        matches!(&pkt.l4, Transport::Dsr(d) if d.inner.is_none())
    }

    fn stats(&self) -> RoutingStats {
        self.stats
    }
}
