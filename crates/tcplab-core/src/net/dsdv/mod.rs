//! DSDV (Perkins & Bhagwat 1994) as a sans-IO routing agent, with ns-2.35's constants and rules
//! (`dsdv/dsdv.cc`, `dsdv.h`, `rtable.h`, `tcl/lib/ns-default.tcl`). One wireless port per
//! node. docs/models/dsdv.md lists the rules and choices.
//!
//! Every node advertises its table: a full dump every `periodic` (jittered) with its own
//! sequence number raised by 2 (even numbers come from the destination), and incremental
//! updates of what changed, at least `min_trigger_gap` apart. A broken link makes every route
//! through it infinite with its sequence number raised by 1 (odd numbers come from the node
//! that saw the break), advertised at once. A route with a new sequence number waits out its
//! weighted settling time (twice the running mean of how long better routes kept arriving)
//! before it is advertised.

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::routing::{
    Decision, DropReason, Hop, Port, RouteSignal, RoutingAgent, RoutingIo, RoutingStats,
    BROADCAST_ADDR,
};
use crate::ids::PktId;
use crate::packet::dsdv::INFINITE_METRIC;
use crate::packet::{Addr, Advert, DsdvUpdate, Ecn, Ipv4Header, Packet, Transport};
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsdvParams {
    /// Full dumps every `periodic`·U(0.75, 1) (ns-2 `perup_` 15 s).
    pub periodic: SimTime,
    /// Least time between incremental updates (ns-2 DSDV_MIN_TUP_PERIOD 1 s).
    pub min_trigger_gap: SimTime,
    /// Largest random delay of each broadcast (ns-2 DSDV_BROADCAST_JITTER 10 ms).
    pub jitter_max: SimTime,
    /// The first full dump comes within this (ns-2 DSDV_STARTUP_JITTER 2 s).
    pub startup_jitter: SimTime,
    /// Initial weighted settling time (ns-2 `wst0_` 6 s) and the weight of the old mean in
    /// each new estimate (`alpha_` 0.875).
    pub wst0: SimTime,
    pub alpha: f64,
    /// A neighbour unheard for this many periods is gone (ns-2 `min_update_periods_` 3).
    pub missed_periods: u32,
    /// Link breaks from the MAC's failure notice too (ns-2 `use_mac_`, off by default).
    pub mac_breaks: bool,
    /// Packets queued per destination whose route is broken (ns-2 MAX_QUEUE_LENGTH 5).
    pub queue: usize,
    /// ns-2 `needTriggeredUpdate` / `DSDVTriggerHandler`: only a route that asks for a
    /// triggered update (a new destination, a shorter route, a break, an older infinite
    /// report) schedules one, at its own time; one due within `min_trigger_gap` of the last
    /// update is moved to the end of the gap and cancels the others due before then. A route
    /// that only waited out its settling time (a fresher sequence number) goes with the next
    /// update, triggered or full. Off: one pending trigger, and every changed route triggers
    /// another update when its settling time ends.
    pub per_route_triggers: bool,
    /// ns-2 `helper_callback` / `DSDVTriggerHandler`: a full dump counts as the last
    /// triggered update (`lasttup_`), so triggers wait `min_trigger_gap` after it, and a
    /// triggered update that turned into a full dump (over a third of the table changed)
    /// restarts the periodic timer. Off: the two timers are independent.
    pub full_dump_resets_timers: bool,
    /// ns-2 `makeUpdate`: a changed metric (`advert_metric`) rides on every triggered update
    /// until the next full dump, a new sequence number (`advert_seqnum`) on one only; a
    /// new finite route, or one changed back to the metric last advertised, as ns-2's
    /// `processUpdate` flags them. Off: one flag, cleared by any advertisement.
    pub metric_until_full_dump: bool,
}

impl DsdvParams {
    pub fn ns2() -> DsdvParams {
        DsdvParams {
            periodic: SimTime::from_secs(15),
            min_trigger_gap: SimTime::from_secs(1),
            jitter_max: SimTime::from_millis(10),
            startup_jitter: SimTime::from_secs(2),
            wst0: SimTime::from_secs(6),
            alpha: 0.875,
            missed_periods: 3,
            mac_breaks: false,
            queue: 5,
            per_route_triggers: true,
            full_dump_resets_timers: true,
            metric_until_full_dump: true,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Route {
    pub next: Addr,
    pub metric: u8,
    pub seq: u32,
    /// Weighted settling time (seconds), when the current sequence number first arrived and
    /// when the route last changed.
    wst: f64,
    new_seq_at: SimTime,
    changed_at: SimTime,
    /// Not advertised before this (settling).
    advertise_ok_at: SimTime,
    /// To be advertised: a new sequence number (ns-2 `advert_seqnum`), a changed metric
    /// (`advert_metric`). Without `metric_until_full_dump` both are set and cleared together.
    advert_seq: bool,
    advert_metric: bool,
    last_advertised_metric: u8,
}

/// Never advertised: a week ahead (ns-2's "check back next week").
const NEVER: SimTime = SimTime::from_secs(604_800);

impl Route {
    /// The entry ns-2 makes for a destination it has not heard of: infinite, sequence number
    /// 0, not advertised.
    fn placeholder(dst: Addr, now: SimTime, wst0: SimTime) -> Route {
        Route {
            next: dst,
            metric: INFINITE_METRIC,
            seq: 0,
            wst: wst0.as_secs_f64(),
            new_seq_at: now,
            changed_at: now,
            advertise_ok_at: now + NEVER,
            advert_seq: false,
            advert_metric: false,
            last_advertised_metric: INFINITE_METRIC,
        }
    }

    /// Changed since last advertised.
    fn changed(&self) -> bool {
        self.advert_seq || self.advert_metric
    }

    /// Flags the route for advertising (both flags: a break, an older infinite report, and
    /// every change without `metric_until_full_dump`).
    fn flag(&mut self) {
        self.advert_seq = true;
        self.advert_metric = true;
    }

    /// The route as advertised now (and remembered as advertised). ns-2 `makeUpdate`: a
    /// triggered update keeps a changed metric flagged when `keep_metric`.
    fn advertised(&mut self, dst: Addr, keep_metric: bool) -> Advert {
        self.advert_seq = false;
        self.advert_metric &= keep_metric;
        self.last_advertised_metric = self.metric;
        Advert {
            dst,
            metric: self.metric,
            seq: self.seq,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Dsdv {
    addr: Addr,
    port: Port,
    p: DsdvParams,
    rng: Rng,
    ip_ident: u16,
    /// This node's own sequence number (even).
    seq: u32,
    table: BTreeMap<Addr, Route>,
    /// Neighbours and when they count as gone.
    heard: BTreeMap<Addr, SimTime>,
    next_full: SimTime,
    trigger_at: Option<SimTime>,
    /// With `per_route_triggers`: each route's pending trigger (ns-2's per-entry
    /// `trigger_event`): when, and an order among those due at the same instant.
    triggers: BTreeMap<Addr, (SimTime, u64)>,
    trigger_order: u64,
    last_trigger: Option<SimTime>,
    /// Broadcasts waiting out their jitter: (due, order, packet).
    pending: super::pending::Pending,
    /// Packets for destinations whose route is broken, and when the first of them came.
    queued: BTreeMap<Addr, (SimTime, VecDeque<PktId>)>,
    sourced: BTreeSet<Addr>,
    lost: BTreeSet<Addr>,
    /// Full dumps and incremental updates sent.
    pub full_dumps: u64,
    pub incremental_updates: u64,
    stats: RoutingStats,
}

impl Dsdv {
    pub fn new(addr: Addr, port: Port, params: DsdvParams, mut rng: Rng) -> Dsdv {
        let first = SimTime(rng.below(params.startup_jitter.0.max(1)));
        Dsdv {
            addr,
            port,
            p: params,
            rng,
            ip_ident: 0,
            seq: 0,
            table: BTreeMap::new(),
            heard: BTreeMap::new(),
            next_full: first,
            trigger_at: None,
            triggers: BTreeMap::new(),
            trigger_order: 0,
            last_trigger: None,
            pending: Default::default(),
            queued: BTreeMap::new(),
            sourced: BTreeSet::new(),
            lost: BTreeSet::new(),
            full_dumps: 0,
            incremental_updates: 0,
            stats: RoutingStats::default(),
        }
    }

    /// Routes with a finite metric to other nodes, by destination (the metric is the hops).
    pub fn finite_routes(&self, out: &mut Vec<crate::net::RouteEntry>) {
        out.extend(
            self.table
                .iter()
                .filter(|(&d, r)| d != self.addr && r.metric < INFINITE_METRIC)
                .map(|(&dst, r)| crate::net::RouteEntry {
                    dst,
                    next: r.next,
                    hops: r.metric,
                }),
        );
    }

    pub fn route_to(&self, dst: Addr) -> Option<&Route> {
        self.table.get(&dst)
    }

    pub fn seqno(&self) -> u32 {
        self.seq
    }

    fn hop(&self, next: Addr) -> Hop {
        Hop {
            port: self.port,
            next,
        }
    }

    /// An incremental update is wanted at `at` (no sooner than `min_trigger_gap` after the
    /// last one).
    fn trigger(&mut self, at: SimTime) {
        let at = match self.last_trigger {
            Some(t) => at.max(t + self.p.min_trigger_gap),
            None => at,
        };
        self.trigger_at = Some(self.trigger_at.map_or(at, |t| t.min(at)));
    }

    /// The route to `dst` wants a triggered update at `at` (ns-2 `needTriggeredUpdate`: its
    /// pending one, if any, is moved there); without `per_route_triggers`, `trigger`.
    fn need_trigger(&mut self, dst: Addr, at: SimTime) {
        if self.p.per_route_triggers {
            self.trigger_order += 1;
            self.triggers.insert(dst, (at, self.trigger_order));
        } else {
            self.trigger(at);
        }
    }

    /// ns-2 `DSDVTriggerHandler`: each route's trigger, due in order. One due within
    /// `min_trigger_gap` of the last update moves to the end of the gap and cancels every
    /// other trigger due before then; otherwise an update goes (if anything is to be said).
    fn run_route_triggers(&mut self, now: SimTime) {
        while let Some((&dst, _)) = self
            .triggers
            .iter()
            .filter(|e| e.1 .0 <= now)
            .min_by_key(|e| *e.1)
        {
            let next_possible = self.last_trigger.map(|t| t + self.p.min_trigger_gap);
            if let Some(np) = next_possible.filter(|&np| now < np) {
                // ns-2 `cancelTriggersBefore(next_possible)`, after rescheduling this one.
                self.triggers.retain(|_, e| e.0 >= np);
                self.need_trigger(dst, np);
                break;
            }
            self.triggers.remove(&dst);
            if self.incremental(now) {
                // ns-2: `lasttup_` only when a packet went (a full one included).
                self.last_trigger = Some(now);
            }
        }
    }

    fn broadcast(&mut self, now: SimTime, routes: Vec<Advert>) {
        self.ip_ident = self.ip_ident.wrapping_add(1);
        let pkt = Packet {
            ip: Ipv4Header {
                src: self.addr,
                dst: BROADCAST_ADDR,
                ttl: 1,
                ecn: Ecn::NotEct,
                ident: self.ip_ident,
            },
            l4: Transport::Dsdv(DsdvUpdate { routes }),
            payload: 0,
            flow: u32::MAX,
        };
        let due = now + SimTime(self.rng.below(self.p.jitter_max.0.max(1)));
        self.pending.push(due, pkt);
    }

    /// A full dump: own sequence number + 2, every route past its settling time (ns-2
    /// `makeUpdate` periodic).
    fn full_dump(&mut self, now: SimTime) {
        self.seq = self.seq.wrapping_add(2);
        let mut routes = vec![Advert {
            dst: self.addr,
            metric: 0,
            seq: self.seq,
        }];
        for (&dst, r) in self.table.iter_mut() {
            if r.advertise_ok_at <= now {
                routes.push(r.advertised(dst, false));
            }
        }
        self.full_dumps += 1;
        if self.p.full_dump_resets_timers {
            // ns-2 `helper_callback`: a periodic update also counts as the last triggered one
            // (`lasttup_ = now`).
            self.last_trigger = Some(now);
        }
        self.broadcast(now, routes);
    }

    /// An incremental update of the routes changed and settled; a full dump instead when more
    /// than a third of the table changed (ns-2 `makeUpdate`, whose table holds the node's own
    /// entry too). Returns whether a packet went.
    fn incremental(&mut self, now: SimTime) -> bool {
        let changed: Vec<Addr> = self
            .table
            .iter()
            .filter(|(_, r)| r.changed() && r.advertise_ok_at <= now)
            .map(|(&d, _)| d)
            .collect();
        if changed.len() * 3 > self.table.len() + 1 && changed.len() > 3 {
            self.full_dump(now);
            if self.p.full_dump_resets_timers {
                // ns-2 `DSDVTriggerHandler`: a triggered update that came out full restarts the
                // periodic timer.
                let f = 0.75 + 0.25 * self.rng.uniform();
                self.next_full = now + SimTime::from_secs_f64(self.p.periodic.as_secs_f64() * f);
            }
            return true;
        }
        if changed.is_empty() {
            return false;
        }
        let keep = self.p.metric_until_full_dump;
        let mut routes = Vec::with_capacity(changed.len());
        for dst in changed {
            routes.push(self.table.get_mut(&dst).unwrap().advertised(dst, keep));
        }
        self.incremental_updates += 1;
        self.broadcast(now, routes);
        true
    }

    /// Perkins & Bhagwat §3: a broken link makes each route through it infinite with its
    /// sequence number + 1 (odd), advertised at once.
    fn link_broken(&mut self, now: SimTime, nbr: Addr, io: &mut RoutingIo) {
        self.stats.link_breaks += 1;
        self.heard.remove(&nbr);
        let mut broken = Vec::new();
        for (&dst, r) in self.table.iter_mut() {
            if r.next == nbr && r.metric != INFINITE_METRIC {
                r.metric = INFINITE_METRIC;
                r.seq = r.seq.wrapping_add(1);
                r.flag();
                r.advertise_ok_at = now;
                r.changed_at = now;
                broken.push(dst);
                if self.sourced.contains(&dst) && self.lost.insert(dst) {
                    io.signals.push(RouteSignal::Lost { dst });
                }
            }
        }
        // ns-2 `helper_callback` (timeout): `needTriggeredUpdate(now)` for each broken route.
        for dst in broken {
            self.need_trigger(dst, now);
        }
    }

    fn on_update(&mut self, now: SimTime, from: Addr, u: &DsdvUpdate, io: &mut RoutingIo) {
        for a in &u.routes {
            if a.dst == self.addr {
                // ns-2 `processUpdate` (CMU Monarch): a node advertised as unreachable has the
                // last word on itself: a full dump now, its new even number beating the odd one.
                if a.metric >= INFINITE_METRIC {
                    self.next_full = now;
                }
                continue; // ns-2: never take a route to oneself
            }
            let metric = if a.metric >= INFINITE_METRIC {
                INFINITE_METRIC
            } else {
                a.metric + 1
            };
            let old = self.table.get(&a.dst).copied();
            // ns-2 weighted settling time: the mean time from a new sequence number to its
            // best route, updated when the next number arrives.
            let (wst, new_seq_at) = match old {
                Some(o) if o.seq == a.seq => (o.wst, o.new_seq_at),
                Some(o) => {
                    let span = (o.changed_at.saturating_sub(o.new_seq_at)).as_secs_f64();
                    (self.p.alpha * o.wst + (1.0 - self.p.alpha) * span, now)
                }
                None => (self.p.wst0.as_secs_f64(), now),
            };
            let finite = metric != INFINITE_METRIC;
            let advertise_ok_at = if finite && old.is_none_or(|o| o.metric != INFINITE_METRIC) {
                now + SimTime::from_secs_f64(2.0 * wst)
            } else {
                now
            };
            let last_advertised_metric = old.map_or(INFINITE_METRIC, |o| o.last_advertised_metric);
            // ns-2 `processUpdate`'s flags: a new destination's metric if finite; a shorter
            // route's metric unless back to the last advertised (its number's flag kept); a
            // fresher number, and its metric unless back to the last advertised.
            let (advert_seq, advert_metric) = if !self.p.metric_until_full_dump {
                (true, true)
            } else {
                match old {
                    None => (false, finite),
                    Some(o) if o.seq == a.seq => (o.advert_seq, metric != last_advertised_metric),
                    Some(_) => (true, metric != last_advertised_metric),
                }
            };
            let fresh = Route {
                next: from,
                metric,
                seq: a.seq,
                wst,
                new_seq_at,
                changed_at: now,
                advertise_ok_at,
                advert_seq,
                advert_metric,
                last_advertised_metric,
            };
            let take = match old {
                None => true,
                Some(o) if a.seq == o.seq => metric < o.metric,
                Some(o) if a.seq > o.seq => true,
                Some(o) => {
                    // An older number: a neighbour still advertising a broken route hears ours.
                    if !finite && o.metric != INFINITE_METRIC {
                        let r = self.table.get_mut(&a.dst).unwrap();
                        if self.p.metric_until_full_dump {
                            r.advert_metric = true;
                        } else {
                            r.flag();
                        }
                        r.advertise_ok_at = now;
                        self.need_trigger(a.dst, now);
                    }
                    false
                }
            };
            if !take {
                continue;
            }
            // ns-2 `processUpdate`: an update is triggered for a new destination, or a shorter
            // route with the same number whose metric was not the last advertised; a fresher
            // number alone goes on the next update (TRIGGER_UPDATE_ON_FRESH_SEQNUM is off).
            let r = fresh;
            self.table.insert(a.dst, r);
            let shorter = old.is_some_and(|o| o.seq == a.seq) && metric != r.last_advertised_metric;
            if old.is_none() && finite || shorter {
                self.need_trigger(a.dst, r.advertise_ok_at);
            }
            if finite {
                self.route_up(now, a.dst, io);
            } else if self.sourced.contains(&a.dst) && self.lost.insert(a.dst) {
                io.signals.push(RouteSignal::Lost { dst: a.dst });
            }
        }
        // The sender is a neighbour, heard now.
        let gone_at = now + self.p.periodic.times(self.p.missed_periods as u64);
        self.heard.insert(from, gone_at);
        if !self.table.contains_key(&from) {
            // ns-2: a neighbour first heard through a triggered update gets a 1-hop route,
            // not advertised until its own dump says more.
            self.table.insert(
                from,
                Route {
                    next: from,
                    metric: 1,
                    seq: 0,
                    wst: self.p.wst0.as_secs_f64(),
                    new_seq_at: now,
                    changed_at: now,
                    advertise_ok_at: now + NEVER,
                    advert_seq: false,
                    advert_metric: false,
                    last_advertised_metric: INFINITE_METRIC,
                },
            );
            self.route_up(now, from, io);
        }
    }

    /// A route to `dst` is usable: queued packets go, the transport hears of it.
    fn route_up(&mut self, now: SimTime, dst: Addr, io: &mut RoutingIo) {
        let next = self.table[&dst].next;
        if let Some((since, q)) = self.queued.remove(&dst) {
            // DSDV sends no request: its "discovery" is the wait of queued packets for a route.
            self.stats.discovery_done(since, now);
            io.release
                .extend(q.into_iter().map(|id| (id, self.hop(next))));
        }
        if self.lost.remove(&dst) {
            io.signals.push(RouteSignal::Restored { dst });
        }
    }
}

impl RoutingAgent for Dsdv {
    fn route(
        &mut self,
        now: SimTime,
        id: PktId,
        pkt: &mut Packet,
        from: Option<Addr>,
        io: &mut RoutingIo,
    ) -> Decision {
        let dst = pkt.ip.dst;
        if from.is_none() {
            self.sourced.insert(dst);
        }
        match self.table.get(&dst) {
            Some(r) if r.metric != INFINITE_METRIC => Decision::Forward(self.hop(r.next)),
            // ns-2 `forwardPacket`: a known destination with a broken route queues the packet
            // (MAX_QUEUE_LENGTH, the oldest dropped); an unknown one drops it.
            Some(_) => {
                let (_, q) = self.queued.entry(dst).or_insert((now, VecDeque::new()));
                q.push_back(id);
                if q.len() > self.p.queue {
                    let old = q.pop_front().unwrap();
                    if old == id {
                        return Decision::Drop(DropReason::BufferFull);
                    }
                    io.drop.push((old, DropReason::BufferFull));
                }
                Decision::Hold
            }
            // ns-2 `forwardPacket`: a brand-new destination gets an entry (infinite, number 0,
            // never advertised) whose queue holds the packet until a route comes.
            None => {
                self.table
                    .insert(dst, Route::placeholder(dst, now, self.p.wst0));
                self.queued.insert(dst, (now, VecDeque::from([id])));
                Decision::Hold
            }
        }
    }

    fn on_control(
        &mut self,
        now: SimTime,
        _port: Port,
        from: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        if let Transport::Dsdv(u) = &pkt.l4 {
            self.on_update(now, from, u, io);
        }
    }

    fn on_link_failure(
        &mut self,
        now: SimTime,
        hop: Hop,
        _id: PktId,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) -> Decision {
        if self.p.mac_breaks && pkt.ip.dst != BROADCAST_ADDR {
            self.link_broken(now, hop.next, io);
        }
        Decision::Drop(DropReason::LinkBroken)
    }

    fn on_timeout(&mut self, now: SimTime, io: &mut RoutingIo) {
        let gone: Vec<Addr> = self
            .heard
            .iter()
            .filter(|e| *e.1 <= now)
            .map(|e| *e.0)
            .collect();
        for n in gone {
            self.link_broken(now, n, io); // ns-2: missed `min_update_periods_` dumps
        }
        if self.next_full <= now {
            self.full_dump(now);
            let f = 0.75 + 0.25 * self.rng.uniform();
            self.next_full = now + SimTime::from_secs_f64(self.p.periodic.as_secs_f64() * f);
        }
        if self.p.per_route_triggers {
            self.run_route_triggers(now);
        } else if self.trigger_at.is_some_and(|t| t <= now) {
            self.trigger_at = None;
            self.last_trigger = Some(now);
            self.incremental(now);
            // Routes still settling come back when they may be advertised.
            let later = self
                .table
                .values()
                .filter(|r| r.changed() && r.advertise_ok_at > now)
                .map(|r| r.advertise_ok_at)
                .min();
            if let Some(t) = later {
                self.trigger(t);
            }
        }
        for pkt in self.pending.take_due(now) {
            self.stats.control_packets += 1;
            self.stats.control_bytes += pkt.ip_len() as u64;
            io.send.push((self.hop(BROADCAST_ADDR), pkt));
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let a = self.pending.next_due();
        let b = self.heard.values().copied().min();
        let c = self.triggers.values().map(|e| e.0).min();
        [Some(self.next_full), self.trigger_at, a, b, c]
            .into_iter()
            .flatten()
            .min()
    }

    fn is_control(&self, pkt: &Packet) -> bool {
        matches!(pkt.l4, Transport::Dsdv(_))
    }

    fn stats(&self) -> RoutingStats {
        self.stats
    }
}
