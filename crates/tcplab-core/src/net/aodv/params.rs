//! AODV's constants and behaviour switches, with the two presets: RFC 3561 §10 and ns-2.35
//! (`aodv/aodv.h`, `aodv/aodv.cc`, `aodv/aodv_rqueue.h`). Sources and every difference are in
//! docs/models/aodv.md.

use crate::time::SimTime;

/// How long an originator waits for an RREP before it tries again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RreqTimeout {
    /// RFC 3561 §6.4: RING_TRAVERSAL_TIME = 2·NODE_TRAVERSAL_TIME·(TTL + TIMEOUT_BUFFER) for a
    /// ring; NET_TRAVERSAL_TIME for a network-wide RREQ, doubled on each retry (§6.3 binary
    /// exponential backoff).
    RingTraversal,
    /// ns-2 `sendRequest`: 2·TTL·PerHopTime, multiplied by the number of network-wide attempts
    /// so far, capped at `max_rreq_timeout`. PerHopTime is the mean of the last three measured
    /// discovery latencies per hop to that destination, else NODE_TRAVERSAL_TIME.
    Ns2PerHop,
}

/// How the node's own sequence number moves (RFC 3561 §6.1 vs ns-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqnoRule {
    /// +1 before each RREQ (§6.1); the destination increments only when the RREQ asks for
    /// exactly its next number (§6.6.1).
    Rfc,
    /// ns-2: starts at 2 and stays even: +2 before each RREQ; the destination replies with
    /// max(own, requested) + 1 rounded up to even; an expired route's number is incremented.
    Ns2,
}

/// Local repair of a broken link at an intermediate node (RFC 3561 §6.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalRepair {
    Off,
    /// ns-2 `rt_ll_failed` with `AODV_LOCAL_REPAIR`: repair when the packet has been forwarded
    /// more times than the route's hop count (the break is nearer the destination); the packet
    /// is buffered and an ordinary RREQ is sent; the repair timer is scheduled with the RREQ's
    /// absolute timeout used as a delay (as ns-2 does); no RERR is sent for the break.
    Ns2,
}

/// HELLO messages (RFC 3561 §6.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hello {
    pub interval: SimTime,
    /// A neighbour is lost after `allowed_loss · interval` without hearing from it.
    pub allowed_loss: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AodvParams {
    /// ACTIVE_ROUTE_TIMEOUT: lifetime given to a route each time it carries data (§6.2).
    pub active_route_timeout: SimTime,
    /// MY_ROUTE_TIMEOUT: the lifetime a destination puts in its own RREP (§6.6.1).
    pub my_route_timeout: SimTime,
    /// Reverse-route lifetime on RREQ reception: ns-2's fixed REV_ROUTE_LIFE, or None for
    /// RFC §6.5's 2·NET_TRAVERSAL_TIME − 2·HopCount·NODE_TRAVERSAL_TIME.
    pub rev_route_life: Option<SimTime>,
    /// How long an (originator, RREQ ID) pair is remembered to drop duplicates:
    /// PATH_DISCOVERY_TIME (RFC §6.3) or ns-2's BCAST_ID_SAVE.
    pub bcast_id_save: SimTime,
    /// RREQ_RETRIES: network-wide RREQs after the first before giving up (§6.3).
    pub rreq_retries: u32,
    /// Expanding ring search (§6.4).
    pub ttl_start: u8,
    pub ttl_increment: u8,
    pub ttl_threshold: u8,
    /// NET_DIAMETER: TTL of a network-wide RREQ and of RREPs.
    pub net_diameter: u8,
    /// NODE_TRAVERSAL_TIME: conservative one-hop traversal estimate.
    pub node_traversal_time: SimTime,
    /// TIMEOUT_BUFFER of RING_TRAVERSAL_TIME (§6.4).
    pub timeout_buffer: u8,
    pub rreq_timeout: RreqTimeout,
    /// ns-2's MAX_RREQ_TIMEOUT: cap on one RREQ's wait (None: no cap).
    pub max_rreq_timeout: Option<SimTime>,
    /// ns-2: after RREQ_RETRIES fail, drop every buffered packet for the destination and send no
    /// RREQ for it during this time (MAX_RREQ_TIMEOUT). None: RFC, the next packet starts a new
    /// discovery.
    pub hold_down: Option<SimTime>,
    /// ns-2's route-cache timer (`rt_purge` every 0.5 s): RREQ retries happen on its ticks or
    /// when a new packet arrives. None: RFC, a retry happens when its timeout expires.
    pub purge_interval: Option<SimTime>,
    pub seqno: SeqnoRule,
    pub local_repair: LocalRepair,
    /// ns-2 (`local_rt_repair` sets `RTF_IN_REPAIR` but leaves `rt_hops`): a route under local
    /// repair keeps its hop count. An RREP or RREQ replaces it only when fresher or, at an
    /// equal sequence number, shorter (`recvReply`/`recvRequest` compare `rt_hops`), so the
    /// neighbours' intermediate replies, which offer the same number and no fewer hops, do not
    /// end the repair; and a further packet toward it that the MAC fails to deliver is repaired
    /// again (`num_forwards > rt_hops`) instead of reported. false: a route in repair counts
    /// as invalid (RFC §6.7: an equal number replaces an invalid route).
    pub repair_keeps_hops: bool,
    /// RFC §6.2: a data packet forwarded also refreshes the routes to its next hop, its source
    /// and its previous hop. false: ns-2's `forward` refreshes only the route it used, so at a
    /// relay the route back to a TCP sender lives on its ACKs alone and expires
    /// ACTIVE_ROUTE_TIMEOUT after the last one even while data still flows the other way.
    pub refresh_reverse_routes: bool,
    /// Set G in originated RREQs so intermediate repliers send a gratuitous RREP (§6.6.3);
    /// compiled out in ns-2.35 (`RREQ_GRAT_RREP`).
    pub gratuitous_rrep: bool,
    /// Set D in originated RREQs: only the destination answers (§5.1).
    pub dest_only: bool,
    /// TCP-pgy S1 (seed 002 §III-B.1): originated RREQs carry this node's TCP receiver's
    /// cumulative ACK toward the destination, gratuitous RREPs copy it, and the TCP sender's
    /// agent hands it to its transport. Off in both presets.
    pub ack_piggyback: bool,
    /// HELLO messages; None when link breaks come only from the MAC (ns-2's
    /// `AODV_LINK_LAYER_DETECTION`).
    pub hello: Option<Hello>,
    /// ns-2: on a link failure, drop every packet queued for the broken next hop
    /// (`ifqueue->filter`).
    pub purge_queue_on_break: bool,
    /// ns-2: on an RERR invalidating routes through its sender, drop every packet queued for
    /// that sender.
    pub purge_queue_on_rerr: bool,
    /// RFC §6.11: an RERR with a single precursor to tell is unicast to it, with none it is not
    /// sent. false: ns-2, always a broadcast (TTL 1).
    pub rerr_unicast_single: bool,
    /// RFC 1812 §4.3.3.1: a relay that drops a packet for want of a route sends its source an
    /// ICMP destination unreachable. false: ns-2.35, whose wireless node has no ICMP (a drop
    /// is traced `NRTE` and nothing is sent).
    pub icmp_unreachable: bool,
    /// RFC §6.5/§6.7: a received RREQ or RREP creates a route to the neighbour that sent it.
    /// ns-2 does not.
    pub prev_hop_route: bool,
    /// Forward an RREP that offers exactly the route already held (same number, hops and next
    /// hop). RFC §6.7 read literally forwards only an RREP that created or updated a route,
    /// which loses the reply of a destination that kept its number (§6.6.1); ns-3 and AODV-UU
    /// forward it. ns-2 does not, but its destinations always raise their number.
    pub forward_equal_rrep: bool,
    /// Uniform jitter before AODV broadcasts that are forwarded (RREQ, RERR), 0 to this.
    pub jitter_max: SimTime,
    /// Send buffer of packets awaiting a route: capacity (the oldest is dropped when full, as
    /// ns-2's `aodv_rqueue`) and the longest wait.
    pub buffer_capacity: usize,
    pub buffer_timeout: SimTime,
}

impl AodvParams {
    /// RFC 3561 §10 defaults.
    pub fn rfc3561() -> AodvParams {
        AodvParams {
            active_route_timeout: SimTime::from_millis(3000),
            my_route_timeout: SimTime::from_millis(6000), // 2·ACTIVE_ROUTE_TIMEOUT
            rev_route_life: None,
            bcast_id_save: SimTime::from_millis(5600), // PATH_DISCOVERY_TIME = 2·NET_TRAVERSAL_TIME
            rreq_retries: 2,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            net_diameter: 35,
            node_traversal_time: SimTime::from_millis(40),
            timeout_buffer: 2,
            rreq_timeout: RreqTimeout::RingTraversal,
            max_rreq_timeout: None,
            hold_down: None,
            purge_interval: None,
            seqno: SeqnoRule::Rfc,
            local_repair: LocalRepair::Off,
            repair_keeps_hops: false,
            refresh_reverse_routes: true,
            gratuitous_rrep: false,
            dest_only: false,
            ack_piggyback: false,
            hello: None,
            purge_queue_on_break: false,
            purge_queue_on_rerr: false,
            rerr_unicast_single: true,
            icmp_unreachable: true,
            prev_hop_route: true,
            forward_equal_rrep: true,
            jitter_max: SimTime::from_millis(10),
            buffer_capacity: 64,
            buffer_timeout: SimTime::from_secs(30),
        }
    }

    /// ns-2.35's compiled-in values (ALGORITHMS.md §6.4).
    pub fn ns2() -> AodvParams {
        AodvParams {
            active_route_timeout: SimTime::from_secs(10),
            my_route_timeout: SimTime::from_secs(10),
            rev_route_life: Some(SimTime::from_secs(6)),
            bcast_id_save: SimTime::from_secs(6),
            rreq_retries: 3,
            ttl_start: 5,
            ttl_increment: 2,
            ttl_threshold: 7,
            net_diameter: 30,
            node_traversal_time: SimTime::from_millis(30),
            timeout_buffer: 2,
            rreq_timeout: RreqTimeout::Ns2PerHop,
            max_rreq_timeout: Some(SimTime::from_secs(10)),
            hold_down: Some(SimTime::from_secs(10)),
            purge_interval: Some(SimTime::from_millis(500)),
            seqno: SeqnoRule::Ns2,
            local_repair: LocalRepair::Ns2,
            repair_keeps_hops: true,
            refresh_reverse_routes: false,
            gratuitous_rrep: false,
            dest_only: false,
            ack_piggyback: false,
            hello: None,
            purge_queue_on_break: true,
            purge_queue_on_rerr: true,
            rerr_unicast_single: false,
            icmp_unreachable: false,
            prev_hop_route: false,
            forward_equal_rrep: false,
            jitter_max: SimTime::from_millis(10),
            buffer_capacity: 64,
            buffer_timeout: SimTime::from_secs(30),
        }
    }

    /// NET_TRAVERSAL_TIME = 2·NODE_TRAVERSAL_TIME·NET_DIAMETER (§10).
    pub fn net_traversal_time(&self) -> SimTime {
        self.node_traversal_time.times(2 * self.net_diameter as u64)
    }

    /// Reverse-route lifetime for an RREQ that travelled `hops` (§6.5 or ns-2 REV_ROUTE_LIFE).
    pub fn reverse_route_life(&self, hops: u8) -> SimTime {
        self.rev_route_life.unwrap_or_else(|| {
            self.net_traversal_time()
                .times(2)
                .saturating_sub(self.node_traversal_time.times(2 * hops as u64))
        })
    }
}
