//! AODV packet-level trace tests, one per rule (RFC 3561 sections and ns-2.35 behaviours).

use super::params::AodvParams;
use super::table::RouteState;
use super::Aodv;
use super::RoutingAgent;
use crate::ids::PktId;
use crate::net::routing::{DropReason, Port, RouteSignal, RoutingIo, BROADCAST_ADDR};
use crate::net::testnet::{self, addr, Sent};
use crate::packet::{AckSeq, AodvMsg, Ecn, Ipv4Header, Packet, Rrep, Rreq, Transport};
use crate::rng::{Rng, StreamId};
use crate::time::SimTime;

const RREQ: u8 = 1;
const RREP: u8 = 2;
const RERR: u8 = 3;

type Net = testnet::Net<Aodv>;

/// `n` AODV agents with `params` over bidirectional `links` (the shared test network).
fn aodv_net(n: usize, links: &[(usize, usize)], params: AodvParams) -> Net {
    let nodes = (0..n)
        .map(|i| {
            Aodv::new(
                addr(i),
                Port(0),
                params,
                Rng::derive(1, StreamId::Custom(i as u64)),
            )
        })
        .collect();
    testnet::Net::new(nodes, links)
}

/// A string 0 – 1 – … – (n−1).
fn string(n: usize, params: AodvParams) -> Net {
    let links: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    aodv_net(n, &links, params)
}

/// AODV messages of one type.
fn is(kind: u8) -> impl Fn(&Packet) -> bool {
    move |p| p.aodv().is_some_and(|m| m.type_code() == kind)
}

fn msg(s: &Sent) -> &AodvMsg {
    s.pkt.aodv().expect("an AODV message")
}

/// The data packets node `node` received, by id (the test network's sources number them in
/// the IP identification).
fn delivered_ids(net: &Net, node: usize) -> Vec<PktId> {
    net.delivered
        .iter()
        .filter(|d| d.1 == node)
        .map(|d| PktId(d.2.ip.ident as u32))
        .collect()
}

fn node_of(a: crate::packet::Addr) -> usize {
    (a - addr(0)) as usize
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn rfc() -> AodvParams {
    AodvParams::rfc3561()
}

fn no_jitter(mut p: AodvParams) -> AodvParams {
    p.jitter_max = SimTime::ZERO;
    p
}

fn ttls(net: &Net, node: usize) -> Vec<u8> {
    net.sent_by(node, is(RREQ))
        .iter()
        .filter(|s| matches!(msg(s), AodvMsg::Rreq(q) if q.orig == addr(node)))
        .map(|s| s.pkt.ip.ttl)
        .collect()
}

/// RFC §6.3–6.7: a source on a 5-node string finds the 4-hop route by expanding ring, the
/// destination answers, the RREP sets up the forward route hop by hop, and the packets held
/// during discovery are released in order.
#[test]
fn discovery_on_a_string_releases_held_packets_in_order() {
    let mut net = string(5, rfc());
    let ids: Vec<PktId> = (0..3).map(|_| net.send_data(0, 4)).collect();
    assert_eq!(net.nodes[0].buffered(), 3);
    net.run_until(SimTime::from_secs(5));
    // TTL 1 and 3 do not reach 4 hops; TTL 5 does.
    assert_eq!(ttls(&net, 0), vec![1, 3, 5]);
    // Only the destination answered, with hop count 0 (RFC §6.6.1).
    let replies = net.sent_by(4, is(RREP));
    assert_eq!(replies.len(), 1);
    let AodvMsg::Rrep(a) = msg(replies[0]) else {
        unreachable!()
    };
    assert_eq!((a.hop_count, a.dst, a.orig), (0, addr(4), addr(0)));
    assert_eq!(a.lifetime_ms, 6000, "MY_ROUTE_TIMEOUT");
    for n in 1..4 {
        assert_eq!(
            net.sent_by(n, is(RREP)).len(),
            1,
            "node {n} forwards the RREP"
        );
    }
    let r = net.nodes[0].table().get(addr(4)).unwrap();
    assert_eq!((r.hops, r.next, r.state), (4, addr(1), RouteState::Valid));
    assert_eq!(delivered_ids(&net, 4), ids);
    assert_eq!(net.nodes[0].buffered(), 0);
    let s = net.nodes[0].stats();
    assert_eq!((s.discoveries, s.discoveries_completed), (1, 1));
    // Its latency: from the first RREQ to the RREP node 1 forwarded arriving here.
    let first = net.sent_by(0, is(RREQ))[0].at;
    let installed = net.sent_by(1, is(RREP))[0].at + net.hop_delay;
    assert_eq!(SimTime(s.discovery_latency_ns), installed - first);
}

/// RFC §6.4: TTL_START, +TTL_INCREMENT up to TTL_THRESHOLD, then NET_DIAMETER; each ring waits
/// RING_TRAVERSAL_TIME; RFC §6.3: network-wide retries back off binary-exponentially, then the
/// buffered packet is dropped.
#[test]
fn expanding_ring_then_retries_with_backoff_then_give_up() {
    let mut net = aodv_net(2, &[], no_jitter(rfc()));
    let id = net.send_data(0, 1);
    net.run_until(SimTime::from_secs(60));
    assert_eq!(ttls(&net, 0), vec![1, 3, 5, 7, 35, 35, 35]);
    let times: Vec<u64> = net
        .sent_by(0, is(RREQ))
        .iter()
        .map(|s| s.at.as_millis())
        .collect();
    // Waits: 2·40·(TTL+2) ms = 240, 400, 560, 720; then 2800, 5600, 11200.
    assert_eq!(times, vec![0, 240, 640, 1200, 1920, 4720, 10320]);
    assert_eq!(
        net.dropped,
        vec![(ms(21520), 0, id, DropReason::DiscoveryFailed)]
    );
    assert_eq!(net.nodes[0].stats().discoveries_failed, 1);
    // RREQ IDs differ on every attempt (RFC §6.3).
    let ids: Vec<u32> = net
        .sent_by(0, is(RREQ))
        .iter()
        .map(|s| match msg(s) {
            AodvMsg::Rreq(q) => q.id,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(ids, (1..=7).collect::<Vec<u32>>());
}

/// RFC §6.5: a node forwards a given (originator, RREQ ID) once.
#[test]
fn duplicate_rreqs_are_suppressed() {
    // A square 0-1-3, 0-2-3: node 3 hears the flood from 1 and 2 but forwards it once.
    let mut net = aodv_net(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], rfc());
    net.send_data(0, 4);
    net.run_until(SimTime::from_secs(5));
    let fwd_by_3: Vec<u32> = net
        .sent_by(3, is(RREQ))
        .iter()
        .filter_map(|s| match msg(s) {
            AodvMsg::Rreq(q) => Some(q.id),
            _ => None,
        })
        .collect();
    assert_eq!(fwd_by_3, vec![2], "the TTL-3 flood, forwarded once");
    assert_eq!(delivered_ids(&net, 4).len(), 1);
}

/// Topology for intermediate replies: a string 0-1-2-3 with node 4 hanging off node 1.
fn branch(params: AodvParams) -> Net {
    aodv_net(5, &[(0, 1), (1, 2), (2, 3), (1, 4)], params)
}

/// Node 0 finds node 3, then node 4 looks for node 3 too.
fn branch_then_4_to_3(params: AodvParams) -> Net {
    let mut net = branch(params);
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(2));
    net.send_data(4, 3);
    net.run_until(SimTime::from_secs(4));
    net
}

/// RFC §6.6.2: an intermediate node with a fresh route answers for the destination; the
/// destination never hears the RREQ.
#[test]
fn intermediate_node_replies_from_its_route() {
    let mut net = branch(rfc());
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(2));
    let heard_by_3 = net.sent_by(3, is(RREP)).len();
    net.send_data(4, 3);
    net.run_until(SimTime::from_secs(4));
    let replies = net.sent_by(1, is(RREP));
    let own: Vec<&Rrep> = replies
        .iter()
        .filter_map(|s| match msg(s) {
            AodvMsg::Rrep(a) if a.orig == addr(4) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(own.len(), 1, "node 1 answers node 4");
    assert_eq!((own[0].dst, own[0].hop_count), (addr(3), 2));
    assert_eq!(
        net.sent_by(3, is(RREP)).len(),
        heard_by_3,
        "3 not asked again"
    );
    let r = net.nodes[4].table().get(addr(3)).unwrap();
    assert_eq!((r.hops, r.next), (3, addr(1)));
    assert_eq!(delivered_ids(&net, 3).len(), 2);
    // Precursors (RFC §6.6.2): node 1's route to 3 now lists 4, its route to 4 lists 2.
    assert!(net.nodes[1]
        .table()
        .get(addr(3))
        .unwrap()
        .precursors
        .contains(&addr(4)));
    assert!(net.nodes[1]
        .table()
        .get(addr(4))
        .unwrap()
        .precursors
        .contains(&addr(2)));
}

/// RFC §5.1 D flag: with destination-only RREQs, intermediate nodes forward instead.
#[test]
fn destination_only_flag_stops_intermediate_replies() {
    let mut p = rfc();
    p.dest_only = true;
    let net = branch_then_4_to_3(p);
    assert!(
        net.sent_by(1, is(RREP))
            .iter()
            .all(|s| s.pkt.ip.src != addr(1)),
        "node 1 only forwards RREPs"
    );
    let from_3: Vec<_> = net
        .sent_by(3, is(RREP))
        .into_iter()
        .filter(|s| s.pkt.ip.dst == addr(4))
        .collect();
    assert_eq!(from_3.len(), 1, "the destination answers node 4 itself");
}

/// RFC §6.6.3: with G set, the intermediate replier also sends the destination a gratuitous
/// RREP describing the route back to the originator.
#[test]
fn gratuitous_rrep_content() {
    let mut p = rfc();
    p.gratuitous_rrep = true;
    let net = branch_then_4_to_3(p);
    let grat: Vec<_> = net
        .sent_by(1, is(RREP))
        .into_iter()
        .filter(|s| s.pkt.ip.dst == addr(3))
        .collect();
    assert_eq!(grat.len(), 1);
    let AodvMsg::Rrep(g) = msg(grat[0]) else {
        unreachable!()
    };
    let seq4 = net.nodes[4].seqno();
    assert_eq!(
        (g.hop_count, g.dst, g.dst_seq, g.orig),
        (1, addr(4), seq4, addr(3))
    );
    assert_eq!(grat[0].next, addr(2), "along the route to the destination");
    // The destination now has a route to node 4 without ever discovering it.
    let r = net.nodes[3].table().get(addr(4)).unwrap();
    assert_eq!((r.hops, r.next, r.state), (3, addr(2), RouteState::Valid));
    assert_eq!(net.sent_by(3, is(RREQ)).len(), 0);
}

/// Seed 002 §III-B.1 (S1): the TCP receiver's RREQ carries the cumulative ACK of the latest ACK
/// it originated toward the sender (10 more bytes), the intermediate replier's gratuitous RREP
/// copies it, and the sender's agent hands it to its transport for that connection.
#[test]
fn ack_seq_rides_the_rreq_and_the_gratuitous_rrep() {
    let mut p = rfc();
    p.gratuitous_rrep = true;
    p.ack_piggyback = true;
    let mut net = branch(p);
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(2));
    // Node 4 is the TCP receiver (port 5001), node 3 the sender (port 40000).
    net.send_tcp_ack(4, 3, (5001, 40000), 9000);
    net.send_tcp_ack(4, 3, (5001, 40000), 10_040);
    net.run_until(SimTime::from_secs(4));
    let want = AckSeq {
        sport: 5001,
        dport: 40000,
        ack: 9000,
    };
    let q: Vec<_> = net
        .sent_by(4, is(RREQ))
        .into_iter()
        .filter(|s| matches!(msg(s), AodvMsg::Rreq(r) if r.orig == addr(4)))
        .collect();
    let AodvMsg::Rreq(r) = msg(q[0]) else {
        unreachable!()
    };
    assert_eq!(r.ack_seq, Some(want), "read before the first RREQ went out");
    assert_eq!(msg(q[0]).len(), 34);
    let grat: Vec<_> = net
        .sent_by(1, is(RREP))
        .into_iter()
        .filter(|s| s.pkt.ip.dst == addr(3))
        .collect();
    let AodvMsg::Rrep(g) = msg(grat[0]) else {
        unreachable!()
    };
    assert_eq!(g.ack_seq, Some(want));
    assert_eq!(msg(grat[0]).len(), 30);
    let learned: Vec<_> = net
        .signals
        .iter()
        .filter(|s| matches!(s.2, RouteSignal::AckLearned { .. }))
        .collect();
    assert_eq!(learned.len(), 1);
    assert_eq!(
        (learned[0].1, learned[0].2),
        (
            3,
            RouteSignal::AckLearned {
                peer: addr(4),
                peer_port: 5001,
                port: 40000,
                ack: 9000
            }
        )
    );
}

/// S1 without an intermediate replier (seed 002 §III-B.1.b): the flooded RREQ reaches the TCP
/// sender, which learns the ACK from it. Off, nothing is carried and nothing learned.
#[test]
fn ack_seq_reaches_the_sender_on_the_flooded_rreq() {
    for on in [true, false] {
        let mut p = rfc();
        p.ack_piggyback = on;
        let mut net = string(5, p);
        net.send_tcp_ack(4, 0, (80, 1025), 77_000);
        net.run_until(SimTime::from_secs(5));
        let learned: Vec<_> = net
            .signals
            .iter()
            .filter(|s| matches!(s.2, RouteSignal::AckLearned { .. }))
            .map(|s| (s.1, s.2))
            .collect();
        let rreq_len = msg(net.sent_by(4, is(RREQ))[0]).len();
        if on {
            assert_eq!(rreq_len, 34);
            assert_eq!(
                learned,
                [(
                    0,
                    RouteSignal::AckLearned {
                        peer: addr(4),
                        peer_port: 80,
                        port: 1025,
                        ack: 77_000
                    }
                )]
            );
        } else {
            assert_eq!(rreq_len, 24);
            assert!(learned.is_empty());
        }
    }
}

/// Without G, node 3 learns nothing about node 4 (ns-2.35: RREQ_GRAT_RREP compiled out).
#[test]
fn no_gratuitous_rrep_when_off() {
    for p in [rfc(), AodvParams::ns2()] {
        let net = branch_then_4_to_3(p);
        assert!(net
            .sent_by(1, is(RREP))
            .iter()
            .all(|s| s.pkt.ip.dst != addr(3)));
        assert!(net.nodes[3].table().get(addr(4)).is_none());
    }
}

fn ctrl(src: u32, ttl: u8, msg: AodvMsg) -> Packet {
    Packet {
        ip: Ipv4Header {
            src,
            dst: BROADCAST_ADDR,
            ttl,
            ecn: Ecn::NotEct,
            ident: 0,
        },
        l4: Transport::Aodv(msg),
        payload: 0,
        flow: u32::MAX,
    }
}

fn rrep(dst: u32, seq: u32, hops: u8) -> AodvMsg {
    AodvMsg::Rrep(Rrep {
        repair: false,
        ack_required: false,
        prefix: 0,
        hop_count: hops,
        dst,
        dst_seq: seq,
        orig: 0x0a00_0001,
        lifetime_ms: 10_000,
        ack_seq: None,
    })
}

fn rreq(dst: u32, dst_seq: u32, id: u32) -> AodvMsg {
    AodvMsg::Rreq(Rreq {
        join: false,
        repair: false,
        gratuitous: false,
        dest_only: false,
        unknown_seq: false,
        hop_count: 0,
        id,
        dst,
        dst_seq,
        orig: 0x0a00_0063,
        orig_seq: 1,
        ack_seq: None,
    })
}

/// RFC §6.2/§6.7 and §6.6.2: routes follow the freshest sequence number, then the fewest
/// hops; an intermediate node answers only when its number is at least the requested one.
#[test]
fn sequence_number_freshness() {
    let me = 0x0a00_0001;
    let (a, b, x) = (0x0a00_0002, 0x0a00_0003, 0x0a00_0009);
    let mut n = super::Aodv::new(
        me,
        Port(0),
        no_jitter(rfc()),
        Rng::derive(1, StreamId::Custom(0)),
    );
    let mut io = RoutingIo::default();
    let t = SimTime::from_secs(1);
    let route = |n: &super::Aodv| {
        let r = n.table().get(x).unwrap();
        (r.seq, r.hops, r.next)
    };
    // RREPs carry hop counts as sent; this node adds one.
    n.on_control(t, Port(0), a, &ctrl(a, 5, rrep(x, 10, 3)), &mut io);
    assert_eq!(route(&n), (10, 4, a));
    n.on_control(t, Port(0), b, &ctrl(b, 5, rrep(x, 9, 0)), &mut io);
    assert_eq!(
        route(&n),
        (10, 4, a),
        "a staler route loses even when shorter"
    );
    n.on_control(t, Port(0), b, &ctrl(b, 5, rrep(x, 10, 3)), &mut io);
    assert_eq!(route(&n), (10, 4, a), "as fresh and as long: kept");
    n.on_control(t, Port(0), b, &ctrl(b, 5, rrep(x, 10, 1)), &mut io);
    assert_eq!(route(&n), (10, 2, b), "as fresh and shorter: replaced");
    n.on_control(t, Port(0), a, &ctrl(a, 5, rrep(x, 11, 6)), &mut io);
    assert_eq!(route(&n), (11, 7, a), "fresher wins even when longer");

    // An RREQ asking for number 12 is not answered from a route at 11: it is forwarded.
    let mut io = RoutingIo::default();
    n.on_control(t, Port(0), b, &ctrl(b, 5, rreq(x, 12, 1)), &mut io);
    assert_eq!(io.send.len(), 1);
    assert_eq!(io.send[0].0.next, BROADCAST_ADDR);
    assert!(matches!(&io.send[0].1.l4, Transport::Aodv(AodvMsg::Rreq(q)) if q.dst_seq == 12));
    // One asking for 11 is answered with 11.
    let mut io = RoutingIo::default();
    n.on_control(t, Port(0), b, &ctrl(b, 5, rreq(x, 11, 2)), &mut io);
    assert_eq!(io.send.len(), 1);
    let (hop, pkt) = &io.send[0];
    assert_eq!(hop.next, b);
    assert!(matches!(pkt.aodv(), Some(AodvMsg::Rrep(r)) if r.dst_seq == 11 && r.hop_count == 7));
}

/// RFC §6.11 case i: a link break invalidates the routes through it with incremented sequence
/// numbers and sends an RERR to the precursors, which invalidate and propagate it to theirs;
/// the source hears that its route is lost. RFC preset: unicast to a single precursor.
#[test]
fn link_break_sends_rerr_to_precursors() {
    let mut net = string(4, rfc());
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(1));
    let seq = net.nodes[2].table().get(addr(3)).unwrap().seq;
    net.fail_link(2, 3);
    let id = net.send_data(0, 3);
    net.run_until(SimTime::from_millis(1100));
    assert!(net
        .dropped
        .contains(&(net.dropped[0].0, 2, id, DropReason::LinkBroken)));
    let e2 = net.sent_by(2, is(RERR));
    assert_eq!(e2.len(), 1);
    assert_eq!(e2[0].next, addr(1), "unicast to the only precursor");
    assert!(matches!(msg(e2[0]), AodvMsg::Rerr(e) if e.unreachable == vec![(addr(3), seq + 1)]));
    let e1 = net.sent_by(1, is(RERR));
    assert_eq!(e1.len(), 1);
    assert_eq!(e1[0].next, addr(0));
    assert!(matches!(msg(e1[0]), AodvMsg::Rerr(e) if e.unreachable == vec![(addr(3), seq + 1)]));
    assert_eq!(
        net.sent_by(0, is(RERR)).len(),
        0,
        "the source has no precursors"
    );
    let r = net.nodes[0].table().get(addr(3)).unwrap();
    assert_eq!((r.state, r.seq), (RouteState::Invalid, seq + 1));
    assert!(net
        .signals
        .iter()
        .any(|s| s.1 == 0 && s.2 == RouteSignal::Lost { dst: addr(3) }));
    assert!(net.purged.is_empty(), "RFC preset keeps queued packets");
}

/// RFC §6.11 case ii: a forwarder without a route drops the packet and sends an RERR.
#[test]
fn forwarder_without_route_drops_and_sends_rerr() {
    let mut net = string(3, rfc());
    net.send_data(0, 2);
    net.run_until(SimTime::from_secs(1));
    // Node 1 forgets its route (it expires), node 0's is refreshed by nothing yet still valid.
    let mut io = RoutingIo::default();
    let mut pkt = Packet {
        ip: Ipv4Header {
            src: addr(0),
            dst: addr(2),
            ttl: 63,
            ecn: Ecn::NotEct,
            ident: 0,
        },
        l4: Transport::Udp(crate::packet::UdpHeader { sport: 9, dport: 9 }),
        payload: 10,
        flow: 0,
    };
    let late = SimTime::from_secs(100);
    let d = net.nodes[1].route(late, PktId(99), &mut pkt, Some(addr(0)), &mut io);
    assert_eq!(d, super::Decision::Drop(DropReason::NoRoute));
    assert_eq!(io.send.len(), 1);
    assert_eq!(io.send[0].0.next, BROADCAST_ADDR);
    assert!(matches!(io.send[0].1.aodv(), Some(AodvMsg::Rerr(e)) if e.unreachable[0].0 == addr(2)));
}

/// Packets waiting for a route are bounded: the oldest is dropped when the buffer is full.
#[test]
fn send_buffer_overflow_drops_oldest() {
    let mut p = rfc();
    p.buffer_capacity = 2;
    let mut net = aodv_net(2, &[], p);
    let a = net.send_data(0, 1);
    net.send_data(0, 1);
    net.send_data(0, 1);
    assert_eq!(
        net.dropped,
        vec![(SimTime::ZERO, 0, a, DropReason::BufferFull)]
    );
}

/// Packets wait at most the buffer timeout.
#[test]
fn send_buffer_timeout() {
    let mut p = rfc();
    p.buffer_timeout = SimTime::from_secs(2);
    let mut net = aodv_net(2, &[], p);
    let a = net.send_data(0, 1);
    net.run_until(SimTime::from_secs(3));
    assert_eq!(
        net.dropped,
        vec![(SimTime::from_secs(2), 0, a, DropReason::BufferTimeout)]
    );
}

// ---------------------------------------------------------------------- ns-2.35 preset

/// ns-2: TTL_START 5, then 7, then NETWORK_DIAMETER 30; waits 2·TTL·30 ms, times the
/// network-wide count, retried on the 0.5 s purge ticks; after RREQ_RETRIES (3) network-wide
/// attempts beyond the first it drops every buffered packet and holds the destination down
/// for 10 s, buffering new packets without an RREQ.
#[test]
fn ns2_ring_timeouts_give_up_and_hold_down() {
    let mut net = aodv_net(2, &[], no_jitter(AodvParams::ns2()));
    let a = net.send_data(0, 1);
    net.run_until(SimTime::from_millis(20_500));
    assert_eq!(ttls(&net, 0), vec![5, 7, 30, 30, 30, 30]);
    let times: Vec<u64> = net
        .sent_by(0, is(RREQ))
        .iter()
        .map(|s| s.at.as_millis())
        .collect();
    // Deadlines 300 ms, +420 ms, +1.8 s, +3.6 s, +5.4 s, +7.2 s, each rounded up to a tick.
    assert_eq!(times, vec![0, 500, 1000, 3000, 7000, 12500]);
    assert_eq!(
        net.dropped,
        vec![(ms(20000), 0, a, DropReason::DiscoveryFailed)]
    );
    // During the hold-down a new packet waits and no RREQ goes out.
    net.run_until(SimTime::from_secs(21));
    let b = net.send_data(0, 1);
    net.run_until(SimTime::from_millis(29_900));
    assert_eq!(net.sent_by(0, is(RREQ)).len(), 6);
    assert_eq!(net.nodes[0].buffered(), 1);
    // After it, the next tick starts a network-wide discovery.
    net.run_until(SimTime::from_millis(30_100));
    assert_eq!(ttls(&net, 0), vec![5, 7, 30, 30, 30, 30, 30]);
    assert!(!net.dropped.iter().any(|d| d.2 == b));
}

/// ns-2: sequence numbers start at 2 and stay even; the destination answers with
/// max(own, requested) + 1 rounded up to even.
#[test]
fn ns2_sequence_numbers_are_even() {
    let mut net = string(3, AodvParams::ns2());
    net.send_data(0, 2);
    net.run_until(SimTime::from_secs(2));
    assert_eq!(net.nodes[0].seqno(), 4, "2 + 2 for one RREQ");
    assert_eq!(net.nodes[2].seqno(), 4, "max(2, 0) + 1 → 4");
    let mut rfc_net = string(3, rfc());
    rfc_net.send_data(0, 2);
    rfc_net.run_until(SimTime::from_secs(2));
    assert_eq!(rfc_net.nodes[0].seqno(), 2, "RREQs at TTL 1 and 3");
    assert_eq!(
        rfc_net.nodes[2].seqno(),
        0,
        "RFC §6.6.1: unchanged unless asked"
    );
}

/// ns-2: on a link break the broken next hop's queue is purged and the RERR is broadcast; a
/// node receiving the RERR purges its queue to the RERR's sender. Local repair is off here to
/// see the plain rule.
#[test]
fn ns2_break_purges_queues_and_broadcasts_rerr() {
    let mut p = AodvParams::ns2();
    p.local_repair = super::LocalRepair::Off;
    let mut net = string(4, p);
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(1));
    net.fail_link(2, 3);
    net.send_data(0, 3);
    net.run_until(SimTime::from_millis(1100));
    assert!(
        net.purged.contains(&(net.purged[0].0, 2, addr(3))),
        "{:?}",
        net.purged
    );
    assert!(net.purged.iter().any(|p| p.1 == 1 && p.2 == addr(2)));
    let e2 = net.sent_by(2, is(RERR));
    assert_eq!(e2.len(), 1);
    assert_eq!(e2[0].next, BROADCAST_ADDR);
    assert_eq!(net.sent_by(1, is(RERR))[0].next, BROADCAST_ADDR);
}

/// ns-2 local repair: a node nearer the destination than the source buffers the packet and
/// looks for a new route itself instead of reporting the break.
#[test]
fn ns2_local_repair_when_break_is_near_the_destination() {
    // 0-1-2-3 with a detour 2-4-3 that the first discovery does not use.
    let mut net = aodv_net(
        5,
        &[(0, 1), (1, 2), (2, 3), (2, 4), (4, 3)],
        AodvParams::ns2(),
    );
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(1));
    assert_eq!(net.nodes[2].table().get(addr(3)).unwrap().next, addr(3));
    net.fail_link(2, 3);
    let id = net.send_data(0, 3);
    net.run_until(SimTime::from_secs(3));
    assert!(
        net.sent_by(2, is(RERR)).is_empty(),
        "no RERR while repairing"
    );
    assert!(net
        .sent_by(2, is(RREQ))
        .iter()
        .any(|s| matches!(msg(s), AodvMsg::Rreq(q) if q.orig == addr(2) && q.dst == addr(3))));
    assert_eq!(net.nodes[2].table().get(addr(3)).unwrap().next, addr(4));
    assert!(
        delivered_ids(&net, 3).contains(&id),
        "the held packet took the repaired route"
    );
    // At the source the break is nearer the source: no repair, a plain RERR.
    let mut net = two_paths_first_link_broken(AodvParams::ns2());
    net.run_until(SimTime::from_secs(2));
    assert_eq!(net.sent_by(0, is(RERR)).len(), 1);
}

/// Two 3-hop paths from 0 to 3 (via 1 or via 4, joining at 2): node 0 finds one, its first
/// link breaks, node 0 sends again (the MAC reports the failure).
fn two_paths_first_link_broken(params: AodvParams) -> Net {
    let mut net = aodv_net(5, &[(0, 1), (1, 2), (2, 3), (0, 4), (4, 2)], params);
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(1));
    let first = net.nodes[0].table().get(addr(3)).unwrap().next;
    net.fail_link(0, node_of(first));
    net.send_data(0, 3);
    net
}

/// Same scenario and seed, same trace (jitter is drawn from the node's own stream).
#[test]
fn deterministic_trace() {
    let run = || {
        let mut net = aodv_net(
            5,
            &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)],
            AodvParams::ns2(),
        );
        net.send_data(0, 4);
        net.run_until(SimTime::from_secs(5));
        net.sent
            .iter()
            .map(|s| (s.at, s.node, s.next))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

/// RFC §6.2: a route carrying data stays active past ACTIVE_ROUTE_TIMEOUT; an idle one expires
/// and the next packet starts a new discovery.
#[test]
fn active_route_lifetime_is_refreshed_by_use() {
    let mut net = string(3, no_jitter(rfc()));
    for s in 0..10 {
        net.run_until(SimTime::from_secs(s));
        net.send_data(0, 2);
    }
    net.run_until(SimTime::from_millis(9500));
    assert_eq!(
        net.nodes[0].stats().discoveries,
        1,
        "one discovery for 10 s of use"
    );
    assert_eq!(delivered_ids(&net, 2).len(), 10);
    // Idle for more than ACTIVE_ROUTE_TIMEOUT (3 s): the route has expired.
    net.run_until(SimTime::from_secs(13));
    net.send_data(0, 2);
    net.run_until(SimTime::from_secs(14));
    assert_eq!(net.nodes[0].stats().discoveries, 2);
    assert_eq!(delivered_ids(&net, 2).len(), 11);
}

/// Cross-layer signals: the source hears that its route broke, and that a new one was found.
#[test]
fn route_lost_and_restored_signals() {
    let mut net = two_paths_first_link_broken(rfc());
    net.run_until(SimTime::from_secs(2));
    net.send_data(0, 3);
    net.run_until(SimTime::from_secs(3));
    let at_0: Vec<RouteSignal> = net
        .signals
        .iter()
        .filter(|s| s.1 == 0)
        .map(|s| s.2)
        .collect();
    let dst = addr(3);
    assert_eq!(
        at_0,
        vec![
            RouteSignal::Restored { dst },
            RouteSignal::Lost { dst },
            RouteSignal::Restored { dst }
        ]
    );
    assert_eq!(delivered_ids(&net, 3).len(), 2, "first and third packets");
}

/// RFC §6.9/§6.11: with HELLOs on, a neighbour that falls silent is detected without any data
/// failing, and the routes through it are reported broken.
#[test]
fn hello_loss_detects_a_silent_break() {
    let run = |hello: bool| {
        let mut p = no_jitter(rfc());
        p.active_route_timeout = SimTime::from_secs(30);
        if hello {
            p.hello = Some(super::Hello {
                interval: SimTime::from_secs(1),
                allowed_loss: 2,
            });
        }
        let mut net = string(3, p);
        net.send_data(0, 2);
        net.run_until(SimTime::from_millis(2500));
        net.fail_link(1, 2);
        net.run_until(SimTime::from_secs(6));
        net
    };
    let net = run(true);
    assert!(
        net.sent_by(2, is(RREP))
            .iter()
            .any(|s| s.pkt.ip.dst == BROADCAST_ADDR),
        "HELLOs sent"
    );
    let e = net.sent_by(1, is(RERR));
    assert_eq!(e.len(), 1);
    // Last HELLO heard at 2 s: lost after 2 more intervals, checked on the next wake-up.
    assert!(e[0].at <= SimTime::from_millis(5500), "{:?}", e[0].at);
    assert_eq!(
        net.nodes[1].table().get(addr(2)).unwrap().state,
        RouteState::Invalid
    );
    let net = run(false);
    assert!(net.sent_by(1, is(RERR)).is_empty());
}

/// ns-2 `forward(.., DELAY)`: a forwarded RREQ waits a uniform 0–10 ms jitter; none without it.
#[test]
fn forwarded_broadcasts_are_jittered() {
    let gaps = |p: AodvParams| {
        let mut net = string(6, p);
        net.send_data(0, 5);
        net.run_until(SimTime::from_secs(1));
        // The first RREQ (TTL 5) leaves node k at t_k; node k+1 hears it one hop_delay later.
        let t: Vec<SimTime> = (0..5).map(|k| net.sent_by(k, is(RREQ))[0].at).collect();
        (1..5)
            .map(|k| (t[k] - t[k - 1] - net.hop_delay).0)
            .collect::<Vec<u64>>()
    };
    let jittered = gaps(AodvParams::ns2());
    assert!(jittered.iter().all(|&g| g < 10_000_000), "{jittered:?}");
    assert!(jittered.iter().any(|&g| g > 0), "{jittered:?}");
    assert_eq!(gaps(no_jitter(AodvParams::ns2())), vec![0, 0, 0, 0]);
}

/// A route learned while a discovery waits (RFC §6.5: the route to the neighbour an RREQ came
/// from) ends the discovery and releases the waiting packets at its next timeout.
#[test]
fn route_to_neighbour_learned_during_discovery_releases_packets() {
    let mut p = no_jitter(rfc());
    p.ttl_start = 3; // node 0 waits 400 ms for its first ring
    let mut net = string(3, p);
    net.fail_link(0, 1);
    let id = net.send_data(0, 1);
    net.run_until(ms(100));
    net.restore_link(0, 1);
    // Node 2's flood reaches node 0 through node 1 (originator 2, sender 1) at 102 ms.
    net.send_data(2, 0);
    net.run_until(SimTime::from_secs(2));
    assert_eq!(
        net.sent_by(0, is(RREQ)).len(),
        1,
        "no second RREQ for node 1"
    );
    let at = net
        .delivered
        .iter()
        .find(|d| d.2.ip.ident == id.0 as u16)
        .map(|d| d.0);
    assert_eq!(
        at,
        Some(ms(401)),
        "released when the first ring's wait ends"
    );
    assert_eq!(net.nodes[0].buffered(), 0);
}

/// RFC §6.5's duplicate cache holds the RREQs of the last PATH_DISCOVERY_TIME only: a long run
/// with a steady trickle of RREQs keeps it at that size instead of letting it grow (issue 35).
#[test]
fn rreq_cache_forgets_expired_pairs() {
    let me = 0x0a00_0001;
    let a = 0x0a00_0002;
    let p = no_jitter(rfc());
    let mut n = super::Aodv::new(me, Port(0), p, Rng::derive(1, StreamId::Custom(0)));
    let mut io = RoutingIo::default();
    let step = SimTime::from_millis(100);
    let window = (p.bcast_id_save.0 / step.0) as usize;
    let mut t = SimTime::from_secs(1);
    for id in 0..3000u32 {
        n.on_control(
            t,
            Port(0),
            a,
            &ctrl(a, 5, rreq(0x0a00_0009, 1, id)),
            &mut io,
        );
        t += step;
    }
    let held = n.rreqs_remembered();
    assert!(
        (window..=window + 1).contains(&held),
        "{held} pairs remembered, expected the {window} of the last PATH_DISCOVERY_TIME"
    );
    // The cache still does its work: a new RREQ is forwarded, its copy right after is not.
    let q = ctrl(a, 5, rreq(0x0a00_0009, 1, 3000));
    let before = io.send.len();
    n.on_control(t, Port(0), a, &q, &mut io);
    let forwarded = io.send.len();
    assert!(forwarded > before, "a new RREQ is forwarded");
    n.on_control(t + step, Port(0), a, &q, &mut io);
    assert_eq!(
        io.send.len(),
        forwarded,
        "its duplicate within the window is dropped"
    );
}

/// A 6-node string 0…5 carrying data 0 → 5 each second for 10 s; then node 3, nearer the
/// destination than the source (3 forwards > 2 hops), has its next packet to 4 fail at the MAC
/// while the link 3–4 stays up (a false break) and repairs locally.
fn string_with_false_break(repair_keeps_hops: bool) -> (Net, PktId) {
    let mut p = AodvParams::ns2();
    p.repair_keeps_hops = repair_keeps_hops;
    let mut net = string(6, p);
    for s in 0..10 {
        net.run_until(SimTime::from_secs(s));
        net.send_data(0, 5);
    }
    net.run_until(SimTime::from_secs(10));
    net.fail_next(3, 4);
    let id = net.send_data(0, 5);
    net.run_until(SimTime::from_secs(15));
    (net, id)
}

/// ns-2 `local_rt_repair` leaves `rt_hops`, and `recvReply` takes an equal sequence number
/// only with fewer hops: the repairing node's neighbours answer its RREQ from their own routes
/// (same number, no fewer hops) and do not forward it, so the repair does not complete; the
/// held packet waits until the repair timer, scheduled with the RREQ's absolute timeout as a
/// delay (≈ 10 s + 10.24 s), brings the route down, after which the same reply is taken.
/// Without the rule the first intermediate reply ends the repair at once.
#[test]
fn ns2_repair_is_not_ended_by_replies_offering_the_same_route() {
    let (mut net, id) = string_with_false_break(true);
    let repairs = net
        .sent_by(3, is(RREQ))
        .iter()
        .filter(|s| matches!(msg(s), AodvMsg::Rreq(q) if q.orig == addr(3)))
        .count();
    assert!(
        repairs >= 2,
        "node 3 repairs locally and retries: {repairs}"
    );
    let replies = net
        .sent_by(4, is(RREP))
        .iter()
        .filter(|s| s.at >= SimTime::from_secs(10) && s.next == addr(3))
        .count();
    assert!(replies >= 2, "node 4 answers each try from its route");
    let r = net.nodes[3].table().get(addr(5)).unwrap();
    assert_eq!(r.state, RouteState::Repairing, "at 15 s");
    assert!(!delivered_ids(&net, 5).contains(&id));
    assert_eq!(net.nodes[3].buffered(), 1);
    net.run_until(SimTime::from_secs(30));
    let at = net
        .delivered
        .iter()
        .find(|d| PktId(d.2.ip.ident as u32) == id)
        .map(|d| d.0);
    assert!(
        at.is_some_and(|t| t > SimTime::from_secs(20)),
        "delivered after the late repair timer: {at:?}"
    );

    let (net, id) = string_with_false_break(false);
    let at = net
        .delivered
        .iter()
        .find(|d| PktId(d.2.ip.ident as u32) == id)
        .map(|d| d.0);
    assert!(
        at.is_some_and(|t| t < SimTime::from_millis(10_100)),
        "repaired by a neighbour's reply at once: {at:?}"
    );
}

/// ns-2 `rt_ll_failed` on a route in repair: its hop count is kept, so the next packet the MAC
/// fails to deliver toward it is buffered for the repair too (no drop, no RERR); without the
/// rule it counts as a route already down: dropped, and the queue to the neighbour purged.
#[test]
fn ns2_second_failure_during_a_repair_is_repaired_too() {
    for keeps in [true, false] {
        let mut p = AodvParams::ns2();
        p.repair_keeps_hops = keeps;
        let mut net = string(6, p);
        net.send_data(0, 5);
        net.run_until(SimTime::from_secs(1));
        net.fail_link(3, 4);
        let a = net.send_data(0, 5);
        let b = net.send_data(0, 5);
        net.run_until(SimTime::from_millis(1010));
        let broken: Vec<_> = net
            .dropped
            .iter()
            .filter(|d| d.1 == 3 && d.3 == DropReason::LinkBroken)
            .map(|d| d.2)
            .collect();
        let info = format!("{:?}", net.dropped);
        if keeps {
            assert!(broken.is_empty(), "{broken:?}");
            assert_eq!(net.nodes[3].buffered(), 2, "{a:?} and {b:?} held: {info}");
            assert!(net.purged.iter().all(|p| p.1 != 3));
        } else {
            assert_eq!(broken, vec![b], "{info}");
        }
    }
}

/// ns-2 `forward` refreshes only the route it used: on a string carrying data 0 → 3 and nothing
/// back, relay 1's route to the source (learned from the RREQ, REV_ROUTE_LIFE 6 s) expires
/// although data from 0 crosses it every second; with the RFC §6.2 rule the data keeps it.
#[test]
fn ns2_data_refreshes_only_the_route_it_uses() {
    for refresh in [false, true] {
        let mut p = no_jitter(AodvParams::ns2());
        p.refresh_reverse_routes = refresh;
        let mut net = string(4, p);
        for s in 0..20 {
            net.run_until(SimTime::from_secs(s));
            net.send_data(0, 3);
        }
        net.run_until(SimTime::from_millis(19500));
        assert_eq!(delivered_ids(&net, 3).len(), 20);
        let now = net.now;
        let to_dst = net.nodes[1].table().get(addr(3)).unwrap().is_active(now);
        let to_src = net.nodes[1].table().get(addr(0)).unwrap().is_active(now);
        assert!(to_dst, "the route used stays");
        assert_eq!(to_src, refresh, "the route back to the source");
    }
}
