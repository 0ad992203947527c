//! AODV (RFC 3561) as a sans-IO routing agent, with the RFC's and ns-2.35's behaviour selected by
//! [`AodvParams`]. One wireless port per node. docs/models/aodv.md lists the rules and choices.
//!
//! Contract with the world: `on_control` receives a control packet as it arrived (IP TTL as the
//! neighbour sent it); `route` receives data with the TTL already decremented by this hop;
//! sources send data with TTL [`ORIGIN_TTL`], so the hops a packet has made are
//! `ORIGIN_TTL − ttl` (ns-2's `num_forwards`).

pub mod discovery;
pub mod params;
pub mod table;

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
use crate::packet::{Addr, AodvMsg, Ecn, Ipv4Header, Packet, Rerr, Rrep, Rreq, Transport};
use crate::rng::Rng;
use crate::time::SimTime;
use discovery::Discovery;
pub use params::{AodvParams, Hello, LocalRepair, RreqTimeout, SeqnoRule};
use table::{seq_newer, RouteState, RouteTable};

/// The IP TTL sources give data packets (ns-2 and Linux default 64).
pub const ORIGIN_TTL: u8 = 64;

#[derive(Clone, Debug)]
pub struct Aodv {
    addr: Addr,
    port: Port,
    p: AodvParams,
    rng: Rng,
    /// This node's own sequence number (RFC §6.1).
    seqno: u32,
    rreq_id: u32,
    ip_ident: u16,
    table: RouteTable,
    /// (originator, RREQ ID) pairs heard, until when they are remembered (RFC §6.5).
    seen: HashMap<(Addr, u32), SimTime>,
    /// The same pairs in the order they were remembered, which is the order they expire in (the
    /// save time is one constant): `remember_rreq` forgets the expired ones as time passes, so
    /// the map holds the RREQs of the last PATH_DISCOVERY_TIME however long the run (issue 35:
    /// memory flat in the simulated duration).
    seen_order: VecDeque<(SimTime, (Addr, u32))>,
    buffer: SendBuffer,
    discoveries: BTreeMap<Addr, Discovery>,
    /// Jittered broadcasts waiting to go: (due, order, packet).
    pending: Vec<(SimTime, u64, Packet)>,
    pending_order: u64,
    /// ns-2 local-repair timers: (when, destination).
    repairs: Vec<(SimTime, Addr)>,
    /// Destinations this node sends data to, and those whose route it announced lost.
    sourced: BTreeSet<Addr>,
    lost: BTreeSet<Addr>,
    /// HELLO state: neighbours heard and until when they count as alive; the next HELLO.
    neighbours: BTreeMap<Addr, SimTime>,
    next_hello: Option<SimTime>,
    /// TCP-pgy S1: the latest cumulative ACK this node's TCP sent toward each destination; an
    /// RREQ for that destination carries it.
    acks: LatestAcks,
    /// Time of the last call (poll_timeout has no clock).
    now: SimTime,
    stats: RoutingStats,
}

impl Aodv {
    pub fn new(addr: Addr, port: Port, params: AodvParams, rng: Rng) -> Aodv {
        Aodv {
            addr,
            port,
            p: params,
            rng,
            seqno: match params.seqno {
                SeqnoRule::Rfc => 0,
                SeqnoRule::Ns2 => 2, // ns-2 AODV::AODV: seqno = 2
            },
            rreq_id: 0,
            ip_ident: 0,
            table: RouteTable::default(),
            seen: HashMap::new(),
            seen_order: VecDeque::new(),
            buffer: SendBuffer::new(params.buffer_capacity, params.buffer_timeout),
            discoveries: BTreeMap::new(),
            pending: Vec::new(),
            pending_order: 0,
            repairs: Vec::new(),
            sourced: BTreeSet::new(),
            lost: BTreeSet::new(),
            neighbours: BTreeMap::new(),
            next_hello: params.hello.map(|h| h.interval),
            acks: LatestAcks::default(),
            now: SimTime::ZERO,
            stats: RoutingStats::default(),
        }
    }

    pub fn addr(&self) -> Addr {
        self.addr
    }

    pub fn params(&self) -> &AodvParams {
        &self.p
    }

    pub fn seqno(&self) -> u32 {
        self.seqno
    }

    pub fn table(&self) -> &RouteTable {
        &self.table
    }

    /// Packets waiting for a route.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    fn bump_on_expiry(&self) -> bool {
        self.p.seqno == SeqnoRule::Ns2
    }

    fn hop(&self, next: Addr) -> Hop {
        Hop {
            port: self.port,
            next,
        }
    }

    // ------------------------------------------------------------------ sending control

    fn control(&mut self, dst: Addr, ttl: u8, msg: AodvMsg) -> Packet {
        self.ip_ident = self.ip_ident.wrapping_add(1);
        Packet {
            ip: Ipv4Header {
                src: self.addr,
                dst,
                ttl,
                ecn: Ecn::NotEct,
                ident: self.ip_ident,
            },
            l4: Transport::Aodv(msg),
            payload: 0,
            flow: u32::MAX,
        }
    }

    /// Hands a control packet to the link layer, after a uniform jitter when `jitter` (ns-2
    /// `forward(..., DELAY)`: forwarded AODV broadcasts wait 0–10 ms).
    fn transmit(&mut self, now: SimTime, pkt: Packet, jitter: bool, io: &mut RoutingIo) {
        let max = self.p.jitter_max.0;
        if jitter && max > 0 {
            let due = now + SimTime(self.rng.below(max));
            self.pending_order += 1;
            self.pending.push((due, self.pending_order, pkt));
        } else {
            self.emit(pkt, BROADCAST_ADDR, io);
        }
    }

    /// Hands `pkt` to the link layer for neighbour `next` now, and counts it.
    fn emit(&mut self, pkt: Packet, next: Addr, io: &mut RoutingIo) {
        let s = &mut self.stats;
        s.control_packets += 1;
        s.control_bytes += pkt.ip_len() as u64;
        match pkt.aodv() {
            Some(AodvMsg::Rreq(_)) => s.route_requests += 1,
            Some(AodvMsg::Rrep(_)) => s.route_replies += 1,
            Some(AodvMsg::Rerr(_)) => s.route_errors += 1,
            _ => {}
        }
        io.send.push((self.hop(next), pkt));
    }

    /// Sends an RERR for `unreachable` to `precursors` (RFC §6.11: unicast when there is one,
    /// broadcast when several, nothing when none) or, as ns-2 always does, as a TTL-1
    /// broadcast.
    fn send_rerr(
        &mut self,
        now: SimTime,
        unreachable: Vec<(Addr, u32)>,
        precursors: &BTreeSet<Addr>,
        jitter: bool,
        io: &mut RoutingIo,
    ) {
        let to = if !self.p.rerr_unicast_single {
            BROADCAST_ADDR
        } else {
            match precursors.len() {
                0 => return,
                1 => *precursors.iter().next().unwrap(),
                _ => BROADCAST_ADDR,
            }
        };
        self.rerr_to(now, to, unreachable, jitter, io);
    }

    /// An RERR (TTL 1) to neighbour `to` or to every neighbour.
    fn rerr_to(
        &mut self,
        now: SimTime,
        to: Addr,
        unreachable: Vec<(Addr, u32)>,
        jitter: bool,
        io: &mut RoutingIo,
    ) {
        if unreachable.is_empty() {
            return;
        }
        let msg = AodvMsg::Rerr(Rerr {
            no_delete: false,
            unreachable,
        });
        let pkt = self.control(to, 1, msg);
        if to == BROADCAST_ADDR {
            self.transmit(now, pkt, jitter, io);
        } else {
            self.emit(pkt, to, io);
        }
    }

    // ------------------------------------------------------------------ discovery

    /// Starts or retries a route discovery for `dst` (RFC §6.3–6.4; ns-2 `sendRequest`), or
    /// gives up after RREQ_RETRIES network-wide attempts.
    fn send_rreq(&mut self, now: SimTime, dst: Addr, io: &mut RoutingIo) {
        if self.table.active(dst, now, self.bump_on_expiry()).is_some() {
            // Learned meanwhile (e.g. a route to a neighbour heard directly): nothing to find.
            self.route_up(now, dst, io);
            return;
        }
        let d = self.discoveries.entry(dst).or_default();
        // ns-2 rate limit: no new RREQ while one is outstanding or during the hold-down.
        if d.deadline > now {
            return;
        }
        if d.net_wide > self.p.rreq_retries {
            self.give_up(now, dst, io);
            return;
        }
        let route = self.table.entry(dst);
        let ttl = d.next_attempt(&self.p, route, now);
        if d.attempts == 1 {
            self.stats.discoveries += 1;
        }
        let (dst_seq, unknown) = (route.seq, !route.valid_seq);
        // RFC §6.1: the originator increments its own sequence number before an RREQ.
        self.seqno = match self.p.seqno {
            SeqnoRule::Rfc => self.seqno.wrapping_add(1),
            SeqnoRule::Ns2 => self.seqno.wrapping_add(2),
        };
        self.rreq_id = self.rreq_id.wrapping_add(1);
        self.remember_rreq(now, (self.addr, self.rreq_id));
        let msg = AodvMsg::Rreq(Rreq {
            join: false,
            repair: false,
            gratuitous: self.p.gratuitous_rrep,
            dest_only: self.p.dest_only,
            unknown_seq: unknown,
            hop_count: 0,
            id: self.rreq_id,
            dst,
            dst_seq,
            orig: self.addr,
            orig_seq: self.seqno,
            // Seed 002 §III-B.1 (3): the receiver's ACK sequence rides on the RREQ it floods.
            ack_seq: self.acks.get(dst),
        });
        let pkt = self.control(BROADCAST_ADDR, ttl, msg);
        self.transmit(now, pkt, false, io);
    }

    /// Discovery failed: every buffered packet for `dst` is dropped (RFC §6.3); ns-2 then holds
    /// the destination down for MAX_RREQ_TIMEOUT.
    fn give_up(&mut self, now: SimTime, dst: Addr, io: &mut RoutingIo) {
        self.stats.discoveries_failed += 1;
        for id in self.buffer.take(dst) {
            io.drop.push((id, DropReason::DiscoveryFailed));
        }
        match self.p.hold_down {
            Some(h) => {
                let d = self.discoveries.entry(dst).or_default();
                d.deadline = now + h;
                d.net_wide = 0;
                d.attempts = 0;
            }
            None => {
                self.discoveries.remove(&dst);
            }
        }
    }

    /// Queues a packet until a route to `dst` exists.
    fn hold(&mut self, now: SimTime, id: PktId, dst: Addr, io: &mut RoutingIo) {
        self.buffer.hold(id, dst, now, &mut io.drop);
    }

    /// A route to `dst` became valid: end its discovery, release its buffered packets, and
    /// tell the transport if it sources traffic there.
    fn route_up(&mut self, now: SimTime, dst: Addr, io: &mut RoutingIo) {
        let discovery = self.discoveries.remove(&dst);
        let discovering = discovery.is_some();
        let Some(next) = self.table.get(dst).map(|r| r.next) else {
            return;
        };
        // A discovery that sent requests (not one held down after giving up) found its route.
        if let Some(d) = discovery.filter(|d| d.attempts > 0) {
            self.stats.discovery_done(d.started, now);
        }
        for id in self.buffer.take(dst) {
            io.release.push((id, self.hop(next)));
        }
        if self.sourced.contains(&dst) && (self.lost.remove(&dst) || discovering) {
            io.signals.push(RouteSignal::Restored { dst });
        }
    }

    fn route_lost(&mut self, dst: Addr, io: &mut RoutingIo) {
        if self.sourced.contains(&dst) && self.lost.insert(dst) {
            io.signals.push(RouteSignal::Lost { dst });
        }
    }

    // ------------------------------------------------------------------ link breaks

    /// The link to neighbour `nbr` broke: every route through it is invalidated with its
    /// sequence number incremented and an RERR goes to their precursors (RFC §6.11 case i;
    /// ns-2 `handle_link_failure`).
    fn link_broken(&mut self, now: SimTime, nbr: Addr, io: &mut RoutingIo) {
        let mut unreachable = Vec::new();
        let mut precursors = BTreeSet::new();
        for dst in self.table.via(nbr) {
            let r = self.table.get_mut(dst).unwrap();
            r.seq = r.seq.wrapping_add(1);
            r.down();
            unreachable.push((dst, r.seq));
            precursors.extend(r.precursors.iter().copied());
            self.route_lost(dst, io);
        }
        self.table.forget_precursor(nbr);
        precursors.remove(&nbr);
        self.send_rerr(now, unreachable, &precursors, false, io);
    }

    /// ns-2 `local_rt_repair`: buffer the packet, mark the route in repair, send an RREQ.
    fn local_repair(&mut self, now: SimTime, id: PktId, dst: Addr, io: &mut RoutingIo) {
        self.hold(now, id, dst, io);
        self.table.entry(dst).state = RouteState::Repairing;
        self.send_rreq(now, dst, io);
        // ns-2 schedules the repair timer with rt_req_timeout, an absolute time, as a delay.
        let deadline = self.discoveries.get(&dst).map_or(now, |d| d.deadline);
        self.repairs.push((now + deadline, dst));
    }

    /// Remembers RREQ `key` for PATH_DISCOVERY_TIME (RFC §6.5), first forgetting the pairs whose
    /// time is over (a forgotten pair and an expired one are alike to the duplicate check).
    fn remember_rreq(&mut self, now: SimTime, key: (Addr, u32)) {
        while let Some(&(until, old)) = self.seen_order.front() {
            if until > now {
                break;
            }
            self.seen_order.pop_front();
            // The pair may have been heard again since: only its last time counts.
            if self.seen.get(&old).is_some_and(|&t| t <= now) {
                self.seen.remove(&old);
            }
        }
        let until = now + self.p.bcast_id_save;
        self.seen.insert(key, until);
        self.seen_order.push_back((until, key));
    }

    /// RREQ pairs remembered now (for the memory test).
    #[cfg(test)]
    pub(crate) fn rreqs_remembered(&self) -> usize {
        self.seen.len()
    }

    // ------------------------------------------------------------------ control reception

    fn on_rreq(&mut self, now: SimTime, from: Addr, ip_ttl: u8, q: &Rreq, io: &mut RoutingIo) {
        if q.orig == self.addr {
            return;
        }
        // RFC §6.5: an (originator, RREQ ID) heard within PATH_DISCOVERY_TIME is dropped.
        if self.seen.get(&(q.orig, q.id)).is_some_and(|&t| t > now) {
            return;
        }
        self.remember_rreq(now, (q.orig, q.id));
        self.neighbour_route(now, from);
        // RFC §6.5: reverse route to the originator.
        let hops = q.hop_count.saturating_add(1);
        let life = now + self.p.reverse_route_life(hops);
        let rev = self.table.entry(q.orig);
        if rev.should_update(q.orig_seq, hops, self.p.repair_keeps_hops) {
            let expire = if rev.is_active(now) {
                rev.expire.max(life)
            } else {
                life
            };
            rev.set(q.orig_seq, hops, from, expire);
            self.route_up(now, q.orig, io);
        } else if rev.is_active(now) && rev.expire < life {
            rev.expire = life;
        }

        // Replies go back along the reverse route (the RREQ's sender unless a better one
        // was already known).
        let back = self
            .table
            .get(q.orig)
            .filter(|r| r.is_active(now))
            .map_or(from, |r| r.next);
        if q.dst == self.addr {
            // Seed 002 §III-B.1.b: a flooded RREQ tells the TCP sender the receiver's ACK.
            hand_over(q.orig, q.ack_seq, io);
            self.reply_as_destination(q, back, io);
            return;
        }
        let fresh = self
            .table
            .active(q.dst, now, self.bump_on_expiry())
            .is_some_and(|r| r.valid_seq && (q.unknown_seq || !seq_newer(q.dst_seq, r.seq)));
        if fresh && !q.dest_only {
            self.reply_as_intermediate(now, from, back, q, io);
            return;
        }
        // RFC §6.5: forward with the hop count incremented and the largest destination
        // sequence number known; the IP TTL limits the ring.
        if ip_ttl > 1 {
            let mut fwd = *q;
            fwd.hop_count = hops;
            if let Some(r) = self.table.get(q.dst).filter(|r| r.valid_seq) {
                if seq_newer(r.seq, fwd.dst_seq) || fwd.unknown_seq {
                    fwd.dst_seq = r.seq;
                    fwd.unknown_seq = false;
                }
            }
            let pkt = self.control(BROADCAST_ADDR, ip_ttl - 1, AodvMsg::Rreq(fwd));
            self.transmit(now, pkt, true, io);
        }
    }

    /// RFC §6.6.1: the destination answers with its own sequence number and MY_ROUTE_TIMEOUT.
    fn reply_as_destination(&mut self, q: &Rreq, back: Addr, io: &mut RoutingIo) {
        self.seqno = match self.p.seqno {
            SeqnoRule::Rfc if !q.unknown_seq && q.dst_seq == self.seqno.wrapping_add(1) => {
                self.seqno.wrapping_add(1)
            }
            SeqnoRule::Rfc => self.seqno,
            // ns-2 recvRequest: max(seqno, rq_dst_seqno) + 1, kept even.
            SeqnoRule::Ns2 => {
                let s = self.seqno.max(q.dst_seq) + 1;
                s + (s % 2)
            }
        };
        let msg = rrep(0, self.addr, self.seqno, q.orig, self.p.my_route_timeout);
        let pkt = self.control(q.orig, self.p.net_diameter, msg);
        self.emit(pkt, back, io);
    }

    /// RFC §6.6.2: an intermediate node with a fresh enough route answers for the destination,
    /// records precursors both ways, and (§6.6.3) tells the destination with a gratuitous RREP
    /// when the RREQ's G flag asks for it.
    fn reply_as_intermediate(
        &mut self,
        now: SimTime,
        from: Addr,
        back: Addr,
        q: &Rreq,
        io: &mut RoutingIo,
    ) {
        let fwd = self.table.get_mut(q.dst).unwrap();
        fwd.add_precursor(from);
        let (f_hops, f_seq, f_next, f_left) = (fwd.hops, fwd.seq, fwd.next, fwd.expire - now);
        let rev = self.table.get_mut(q.orig).unwrap();
        rev.add_precursor(f_next);
        let (r_hops, r_left) = (rev.hops, rev.expire.saturating_sub(now));
        let msg = rrep(f_hops, q.dst, f_seq, q.orig, f_left);
        let pkt = self.control(q.orig, self.p.net_diameter, msg);
        self.emit(pkt, back, io);
        if q.gratuitous {
            let mut msg = rrep(r_hops, q.orig, q.orig_seq, q.dst, r_left);
            if let AodvMsg::Rrep(g) = &mut msg {
                // Seed 002 §III-B.1 (5): the GRAT_RREP carries the RREQ's ack_seq to the sender.
                g.ack_seq = q.ack_seq;
            }
            let pkt = self.control(q.dst, self.p.net_diameter, msg);
            self.emit(pkt, f_next, io);
        }
    }

    /// RFC §6.5/§6.7: a route to the neighbour a control packet came from (no valid sequence
    /// number); ns-2 does not create it.
    fn neighbour_route(&mut self, now: SimTime, from: Addr) {
        if !self.p.prev_hop_route {
            return;
        }
        let until = now + self.p.active_route_timeout;
        let r = self.table.entry(from);
        if r.is_active(now) && r.hops == 1 {
            r.expire = r.expire.max(until);
        } else {
            let seq = r.seq;
            let valid_seq = r.valid_seq;
            r.set(seq, 1, from, until);
            r.valid_seq = valid_seq;
        }
    }

    fn on_rrep(&mut self, now: SimTime, from: Addr, pkt: &Packet, a: &Rrep, io: &mut RoutingIo) {
        let hello = pkt.ip.dst == BROADCAST_ADDR && a.dst == pkt.ip.src && a.hop_count == 0;
        if hello {
            if let Some(h) = self.p.hello {
                let alive = now + h.interval.times(h.allowed_loss as u64);
                self.neighbours.insert(from, alive);
            }
        }
        if a.ack_required {
            // RFC §6.7: the neighbour asked for an RREP-ACK.
            let ack = self.control(from, 1, AodvMsg::RrepAck);
            self.emit(ack, from, io);
        }
        self.neighbour_route(now, from);
        if a.dst == self.addr {
            return;
        }
        if a.orig == self.addr {
            // Seed 002 §III-B.1 (6): a GRAT_RREP's ack_seq goes to the TCP sender here.
            hand_over(a.dst, a.ack_seq, io);
        }
        // RFC §6.7: forward route to the RREP's destination when fresher or shorter.
        let hops = a.hop_count.saturating_add(1);
        let expire = now + SimTime::from_millis(a.lifetime_ms as u64);
        let r = self.table.entry(a.dst);
        let same = r.is_active(now) && r.seq == a.dst_seq && r.hops == hops && r.next == from;
        if same && self.p.forward_equal_rrep {
            // An RREP for the route already held (the destination kept its number): still
            // forwarded, as ns-3 and AODV-UU do.
            r.expire = r.expire.max(expire);
        } else if r.should_update(a.dst_seq, hops, self.p.repair_keeps_hops) {
            r.set(a.dst_seq, hops, from, expire);
        } else {
            return; // RFC §6.7 / ns-2 suppress_reply: nothing learned, nothing forwarded
        }
        if a.orig == self.addr {
            if let Some(d) = self.discoveries.get(&a.dst) {
                // ns-2 recvReply: the per-hop discovery latency feeds PerHopTime.
                let per_hop = SimTime((now - d.sent_at).0 / hops as u64);
                self.table.entry(a.dst).record_latency(per_hop);
            }
        }
        self.route_up(now, a.dst, io);
        if a.orig == self.addr || hello || pkt.ip.ttl <= 1 {
            return;
        }
        // RFC §6.7: forward towards the originator; precursors on both routes.
        let Some(rev) = self.table.active(a.orig, now, self.bump_on_expiry()) else {
            return;
        };
        let rev_next = rev.next;
        rev.add_precursor(from);
        self.table.entry(a.dst).add_precursor(rev_next);
        let mut fwd = pkt.clone();
        fwd.ip.ttl -= 1;
        if let Transport::Aodv(AodvMsg::Rrep(m)) = &mut fwd.l4 {
            m.hop_count = hops;
        }
        self.emit(fwd, rev_next, io);
    }

    /// RFC §6.11 case iii: routes through the RERR's sender to the listed destinations are
    /// invalidated; the RERR is propagated to their precursors (ns-2 `recvError`).
    fn on_rerr(&mut self, now: SimTime, from: Addr, e: &Rerr, io: &mut RoutingIo) {
        let mut unreachable = Vec::new();
        let mut precursors = BTreeSet::new();
        let mut invalidated = false;
        for &(dst, seq) in &e.unreachable {
            let Some(r) = self.table.get_mut(dst) else {
                continue;
            };
            // ns-2: only a route through the sender, not fresher than the RERR's number.
            if r.state != RouteState::Valid || r.next != from || seq_newer(r.seq, seq) {
                continue;
            }
            if e.no_delete {
                continue; // RFC §6.12: the upstream node repaired locally; keep the route
            }
            r.seq = seq;
            r.down();
            invalidated = true;
            if !r.precursors.is_empty() {
                unreachable.push((dst, seq));
                precursors.extend(r.precursors.drain(..));
            }
            self.route_lost(dst, io);
        }
        if invalidated && self.p.purge_queue_on_rerr {
            // ns-2 recvError: packets queued for the RERR's sender are dropped.
            io.purge.push(self.hop(from));
        }
        self.send_rerr(now, unreachable, &precursors, true, io);
    }

    // ------------------------------------------------------------------ timers

    fn next_tick(&self, now: SimTime) -> Option<SimTime> {
        let iv = self.p.purge_interval?.0.max(1);
        Some(SimTime((now.0 / iv + 1) * iv))
    }

    /// Whether a discovery deadline matters now: ns-2 retries on its purge ticks instead.
    fn retries_on_deadline(&self) -> bool {
        self.p.purge_interval.is_none()
    }

    fn retry_discoveries(&mut self, now: SimTime, io: &mut RoutingIo) {
        for dst in self.buffer.destinations() {
            let due = self.discoveries.get(&dst).is_none_or(|d| d.deadline <= now);
            if due {
                self.send_rreq(now, dst, io);
            }
        }
        // RFC: a discovery whose packets all left (timed out) stops.
        let buffer = &self.buffer;
        if self.p.hold_down.is_none() {
            self.discoveries
                .retain(|&dst, d| d.deadline > now || buffer.has(dst));
        }
    }

    fn send_hello(&mut self, now: SimTime, h: Hello, io: &mut RoutingIo) {
        // RFC §6.9: only a node that is part of an active route sends HELLOs.
        if self.table.any_active(now) {
            let msg = rrep(
                0,
                self.addr,
                self.seqno,
                self.addr,
                h.interval.times(h.allowed_loss as u64),
            );
            let pkt = self.control(BROADCAST_ADDR, 1, msg);
            self.emit(pkt, BROADCAST_ADDR, io);
        }
        self.next_hello = Some(now + h.interval);
    }
}

/// An RREP (RFC 3561 §5.2) for a host route, no acknowledgement asked.
fn rrep(hop_count: u8, dst: Addr, dst_seq: u32, orig: Addr, lifetime: SimTime) -> AodvMsg {
    AodvMsg::Rrep(Rrep {
        repair: false,
        ack_required: false,
        prefix: 0,
        hop_count,
        dst,
        dst_seq,
        orig,
        lifetime_ms: lifetime.as_millis() as u32,
        ack_seq: None,
    })
}

impl RoutingAgent for Aodv {
    fn route(
        &mut self,
        now: SimTime,
        id: PktId,
        pkt: &mut Packet,
        from: Option<Addr>,
        io: &mut RoutingIo,
    ) -> Decision {
        self.now = now;
        let dst = pkt.ip.dst;
        if from.is_none() {
            self.sourced.insert(dst);
            if self.p.ack_piggyback {
                self.acks.note(pkt);
            }
        }
        let bump = self.bump_on_expiry();
        if let Some(r) = self.table.active(dst, now, bump) {
            let next = r.next;
            // RFC §6.2: a route used for data lives ACTIVE_ROUTE_TIMEOUT more, and so do the
            // routes to its next hop, to the source and to the previous hop (ns-2 `forward`:
            // only the route used).
            let until = now + self.p.active_route_timeout;
            r.expire = r.expire.max(until);
            if !self.p.refresh_reverse_routes {
                return Decision::Forward(self.hop(next));
            }
            self.table.refresh(next, now, until);
            if let Some(prev) = from {
                self.table.refresh(pkt.ip.src, now, until);
                self.table.refresh(prev, now, until);
            }
            return Decision::Forward(self.hop(next));
        }
        let repairing = self
            .table
            .get(dst)
            .is_some_and(|r| r.state == RouteState::Repairing);
        if from.is_none() || repairing {
            // RFC §6.3: the source buffers and discovers; ns-2 also buffers during a repair.
            self.hold(now, id, dst, io);
            if from.is_none() {
                self.send_rreq(now, dst, io);
            }
            if let Some(i) = io.drop.iter().position(|&(d, _)| d == id) {
                // Discovery gave up at once (ns-2 hold-down over, retries spent).
                let (_, why) = io.drop.remove(i);
                return Decision::Drop(why);
            }
            return Decision::Hold;
        }
        // RFC §6.11 case ii (ns-2 rt_resolve): a forwarder without a route drops the packet
        // and broadcasts an RERR for its destination.
        let seq = self.table.entry(dst).seq;
        self.rerr_to(now, BROADCAST_ADDR, vec![(dst, seq)], false, io);
        Decision::Drop(DropReason::NoRoute)
    }

    fn on_control(
        &mut self,
        now: SimTime,
        _port: Port,
        from: Addr,
        pkt: &Packet,
        io: &mut RoutingIo,
    ) {
        self.now = now;
        match pkt.aodv() {
            Some(AodvMsg::Rreq(q)) => self.on_rreq(now, from, pkt.ip.ttl, q, io),
            Some(AodvMsg::Rrep(a)) => self.on_rrep(now, from, pkt, a, io),
            Some(AodvMsg::Rerr(e)) => self.on_rerr(now, from, e, io),
            Some(AodvMsg::RrepAck) | None => {}
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
        self.now = now;
        // ns-2 rt_ll_failed: control and broadcast packets are simply dropped.
        if self.is_control(pkt) || pkt.ip.dst == BROADCAST_ADDR {
            return Decision::Drop(DropReason::LinkBroken);
        }
        self.stats.link_breaks += 1;
        let dst = pkt.ip.dst;
        // ns-2: a route already down has hop count INFINITY2, so it is never repaired; one in
        // repair keeps its hops (`repair_keeps_hops`), so its next failed packet is repaired too.
        let keeps = self.p.repair_keeps_hops;
        let valid_hops = |r: &table::Route| match r.state {
            RouteState::Valid => r.hops,
            RouteState::Repairing if keeps => r.hops,
            _ => u8::MAX,
        };
        let Some(hops) = self.table.get(dst).map(valid_hops) else {
            return Decision::Drop(DropReason::LinkBroken);
        };
        let forwards = ORIGIN_TTL.saturating_sub(pkt.ip.ttl);
        if self.p.local_repair == LocalRepair::Ns2 && forwards > hops {
            // ns-2 AODV_LOCAL_REPAIR: the break is nearer the destination than the source.
            self.local_repair(now, id, dst, io);
            return Decision::Hold;
        }
        if self.p.purge_queue_on_break {
            // ns-2: every packet queued for the broken next hop goes too.
            io.purge.push(hop);
        }
        self.neighbours.remove(&hop.next);
        self.link_broken(now, hop.next, io);
        Decision::Drop(DropReason::LinkBroken)
    }

    fn on_timeout(&mut self, now: SimTime, io: &mut RoutingIo) {
        self.now = now;
        // Jittered broadcasts in the order they fall due.
        self.pending.sort_by_key(|&(t, o, _)| (t, o));
        let due = self.pending.iter().take_while(|e| e.0 <= now).count();
        for (_, _, pkt) in self.pending.drain(..due).collect::<Vec<_>>() {
            self.emit(pkt, BROADCAST_ADDR, io);
        }
        self.buffer.expire(now, &mut io.drop);
        // ns-2 LocalRepairTimer: a route still not repaired goes down.
        let (fired, waiting): (Vec<_>, Vec<_>) = self.repairs.iter().partition(|r| r.0 <= now);
        self.repairs = waiting;
        for (_, dst) in fired {
            if let Some(r) = self.table.get_mut(dst) {
                if r.state == RouteState::Repairing {
                    r.down();
                }
            }
        }
        let retry = if self.retries_on_deadline() {
            self.discoveries.values().any(|d| d.deadline <= now)
        } else {
            true
        };
        if retry {
            self.retry_discoveries(now, io);
        }
        if let Some(h) = self.p.hello {
            let lost: Vec<Addr> = self
                .neighbours
                .iter()
                .filter(|e| *e.1 <= now)
                .map(|e| *e.0)
                .collect();
            for n in lost {
                // RFC §6.11: a neighbour not heard for ALLOWED_HELLO_LOSS intervals is gone.
                self.neighbours.remove(&n);
                self.stats.link_breaks += 1;
                self.link_broken(now, n, io);
            }
            if self.next_hello.is_some_and(|t| t <= now) {
                self.send_hello(now, h, io);
            }
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let mut t: Option<SimTime> = None;
        let mut at = |x: Option<SimTime>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        };
        at(self.pending.iter().map(|e| e.0).min());
        at(self.buffer.next_expiry());
        at(self.repairs.iter().map(|e| e.0).min());
        if self.retries_on_deadline() {
            at(self.discoveries.values().map(|d| d.deadline).min());
        } else if !self.buffer.is_empty() {
            at(self.next_tick(self.now));
        }
        at(self.next_hello);
        at(self.neighbours.values().copied().min());
        t
    }

    fn sends_icmp_unreachable(&self) -> bool {
        self.p.icmp_unreachable
    }

    fn is_control(&self, pkt: &Packet) -> bool {
        matches!(pkt.l4, Transport::Aodv(_))
    }

    fn stats(&self) -> RoutingStats {
        self.stats
    }
}
