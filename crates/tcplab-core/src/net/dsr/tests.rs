//! DSR packet-level trace tests, one per rule (RFC 4728 sections and ns-2.35 behaviours), on
//! the generic test network.

use super::{Dsr, DsrParams, DISCOVERY_HOP_LIMIT};
use crate::net::routing::{DropReason, Port, RouteSignal, RoutingAgent};
use crate::net::testnet::{addr, Net};
use crate::packet::{DsrOption, Packet};
use crate::rng::{Rng, StreamId};
use crate::time::SimTime;

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn net(n: usize, links: &[(usize, usize)], p: DsrParams) -> Net<Dsr> {
    let nodes = (0..n)
        .map(|i| {
            Dsr::new(
                addr(i),
                Port(0),
                p,
                Rng::derive(1, StreamId::Custom(i as u64)),
            )
        })
        .collect();
    Net::new(nodes, links)
}

fn string(n: usize, p: DsrParams) -> Net<Dsr> {
    let links: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    net(n, &links, p)
}

fn option(p: &Packet, code: u8) -> Option<&DsrOption> {
    p.dsr()?.hdr.options.iter().find(|o| o.type_code() == code)
}

const RREQ: u8 = 1;
const RREP: u8 = 2;
const RERR: u8 = 3;

fn is(code: u8) -> impl Fn(&Packet) -> bool {
    move |p| option(p, code).is_some()
}

fn addrs(ids: &[usize]) -> Vec<u32> {
    ids.iter().map(|&i| addr(i)).collect()
}

/// RFC §8.2.1–8.2.5: a source on a 5-node string sends a non-propagating request (TTL 1),
/// then after NonpropRequestTimeout a propagating one that records each hop; the target
/// answers with the recorded route back along it reversed; the held packet then leaves with a
/// source route (§8.1.3) whose Segments Left counts down hop by hop, and the IP length counts
/// the DSR header.
#[test]
fn discovery_records_the_route_and_data_follows_it() {
    let mut n = string(5, DsrParams::rfc4728());
    let id = n.send_data(0, 4);
    assert_eq!(n.nodes[0].buffered(), 1);
    n.run_until(SimTime::from_secs(1));
    let reqs = n.sent_by(0, is(RREQ));
    let ttls: Vec<u8> = reqs.iter().map(|s| s.pkt.ip.ttl).collect();
    assert_eq!(ttls, vec![1, DISCOVERY_HOP_LIMIT]);
    assert_eq!(reqs[1].at - reqs[0].at, ms(30), "NonpropRequestTimeout");
    // Node 3 rebroadcast the request with 1, 2, 3 recorded.
    let fwd = n.sent_by(3, is(RREQ));
    assert!(matches!(option(&fwd[0].pkt, RREQ),
        Some(DsrOption::RouteRequest { addrs: a, .. }) if *a == addrs(&[1, 2, 3])));
    // The target's reply: the route 1, 2, 3, 4, source-routed back through 3, 2, 1.
    let rep = n.sent_by(4, is(RREP));
    assert_eq!(rep.len(), 1);
    assert_eq!(rep[0].pkt.ip.dst, addr(0));
    assert!(matches!(option(&rep[0].pkt, RREP),
        Some(DsrOption::RouteReply { addrs: a, .. }) if *a == addrs(&[1, 2, 3, 4])));
    assert_eq!(rep[0].next, addr(3));
    // The data went 0 → 1 → 2 → 3 → 4 with Segments Left 3, 2, 1, 0 on leaving each node.
    let hops: Vec<(u32, u8)> = n
        .data_hops
        .iter()
        .map(|(_, _, next, p)| (*next, p.dsr().unwrap().source_route().unwrap().1))
        .collect();
    assert_eq!(
        hops,
        vec![(addr(1), 3), (addr(2), 2), (addr(3), 1), (addr(4), 0)]
    );
    let (_, at, p) = &n.delivered[0];
    assert_eq!(*at, 4);
    assert_eq!(
        p.ip_len(),
        20 + 8 + 500 + 4 + 2 + 2 + 4 * 3,
        "DSR header counted"
    );
    // The destination removed the header before delivery (RFC §8.1.4).
    assert!(n.data[&id].dsr().is_none());
    // The discovery's latency: from the first request to the route installed (the data left).
    let s = n.nodes[0].stats();
    assert_eq!((s.discoveries, s.discoveries_completed), (1, 1));
    assert_eq!(
        SimTime(s.discovery_latency_ns),
        n.data_hops[0].0 - reqs[0].at
    );
    assert!(
        s.discovery_latency_ns > ms(30).0,
        "after the propagating request"
    );
}

/// RFC §8.2.3: a node with a cached route to the target answers a request itself (here node 1,
/// which forwarded node 0's earlier reply and so knows 1 → 2 → 3 → 4) and does not propagate
/// it; the reply joins the recorded route and the cached one. Without cache replies the
/// request travels to the target, which answers.
#[test]
fn an_intermediate_node_replies_from_its_cache() {
    for from_cache in [true, false] {
        let mut p = DsrParams::rfc4728();
        p.reply_from_cache = from_cache;
        // 0 – 1 – 2 – 3 – 4 and 5 – 1.
        let mut n = net(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (5, 1)], p);
        n.send_data(0, 4);
        n.run_until(SimTime::from_secs(1));
        let replies_by_4 = n.sent_by(4, is(RREP)).len();
        n.send_data(5, 4);
        n.run_until(SimTime::from_secs(2));
        assert_eq!(n.delivered.len(), 2, "both packets arrived");
        let by_1: Vec<_> = n
            .sent_by(1, is(RREP))
            .into_iter()
            .filter(|s| s.pkt.ip.dst == addr(5))
            .collect();
        if from_cache {
            assert_eq!(by_1.len(), 1);
            assert_eq!(by_1[0].pkt.ip.src, addr(1), "node 1 answered");
            assert!(matches!(option(&by_1[0].pkt, RREP),
                Some(DsrOption::RouteReply { addrs: a, .. }) if *a == addrs(&[1, 2, 3, 4])));
            assert_eq!(
                n.sent_by(4, is(RREP)).len(),
                replies_by_4,
                "the target did not"
            );
            // The non-propagating request was enough: node 5 never sent a propagating one.
            let own = n.sent_by(5, |p| option(p, RREQ).is_some() && p.ip.src == addr(5));
            assert!(own.iter().all(|s| s.pkt.ip.ttl == 1));
        } else {
            assert!(
                by_1.iter().all(|s| s.pkt.ip.src == addr(4)),
                "only forwarded"
            );
            assert_eq!(n.sent_by(4, is(RREP)).len(), replies_by_4 + 1);
        }
    }
}

/// RFC §8.3.4: node 1's link to 2 breaks under a packet; node 1 has another route to the
/// destination (through 4, learned from the second reply it forwarded), so it salvages the
/// packet with it — Salvage 1, the new route starting at node 1 — and the packet arrives;
/// node 1 also sends a Route Error to the source. With salvaging off the packet is dropped.
#[test]
fn a_forwarder_salvages_a_packet_with_another_cached_route() {
    for salvage in [true, false] {
        let mut p = DsrParams::rfc4728();
        p.salvage = salvage;
        p.reply_from_cache = false;
        // 0 – 1 – 2 – 3 and 1 – 4 – 3.
        let mut n = net(5, &[(0, 1), (1, 2), (2, 3), (1, 4), (4, 3)], p);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        let first = n.data_hops[1].2;
        let (other, broken) = if first == addr(2) { (4, 2) } else { (2, 4) };
        n.fail_link(1, broken);
        let id = n.send_data(0, 3);
        n.run_until(SimTime::from_secs(2));
        let errs = n.sent_by(1, is(RERR));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].pkt.ip.dst, addr(0));
        assert!(matches!(option(&errs[0].pkt, RERR),
            Some(DsrOption::RouteError { err_src, unreachable, .. })
                if *err_src == addr(1) && *unreachable == addr(broken)));
        if salvage {
            let (_, at, p) = n.delivered.last().unwrap();
            assert_eq!((*at, n.delivered.len()), (3, 2));
            let (s, _, a) = p.dsr().unwrap().source_route().unwrap();
            assert_eq!((s, a.to_vec()), (1, addrs(&[1, other])));
        } else {
            assert_eq!(n.delivered.len(), 1);
            assert!(n
                .dropped
                .contains(&(n.dropped[0].0, 1, id, DropReason::LinkBroken)));
        }
    }
}

/// ns-2 `xmitFailed`: when the MAC gives up on one packet for a neighbour, the packets still
/// queued for that neighbour are taken back and salvaged at once (one Route Error for the
/// break), rather than each being sent into the dead link and failing in turn.
#[test]
fn a_break_salvages_what_waits_in_the_queue_for_the_dead_neighbour() {
    let mut p = DsrParams::ns2();
    p.reply_from_cache = false;
    // Node 1 learns its second way to 3 from the replies it forwards (ns-2 would not:
    // `snoop_forward_only`), so that it has one to salvage with.
    p.snoop_forward_only = false;
    // 0 – 1 – 2 – 3 and 1 – 4 – 3.
    let mut n = net(5, &[(0, 1), (1, 2), (2, 3), (1, 4), (4, 3)], p);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(1));
    let broken = if n.data_hops[1].2 == addr(2) { 2 } else { 4 };
    n.fail_link(1, broken);
    let ids: Vec<_> = (0..3).map(|_| n.send_data(0, 3)).collect();
    n.run_until(SimTime::from_secs(2));
    assert_eq!(n.sent_by(1, is(RERR)).len(), 1, "one error for the break");
    let back: Vec<_> = n.recycled.iter().map(|r| (r.1, r.2)).collect();
    assert_eq!(back, vec![(1, ids[1]), (1, ids[2])]);
    for id in ids {
        assert!(n.delivered.iter().any(|d| d.2.ip.ident == id.0 as u16));
    }
}

/// RFC §8.3.4–8.3.5: a break two hops downstream sends a Route Error back the way the packet
/// came; every node it crosses cuts the link from its cache, the source tells its transport
/// the route is lost and its next packet starts a new discovery.
#[test]
fn a_route_error_cuts_the_link_along_the_way_back() {
    let mut p = DsrParams::rfc4728();
    p.salvage = false;
    let mut n = string(4, p);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(1));
    n.fail_link(2, 3);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(2));
    let errs = n.sent_by(2, is(RERR));
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].next, addr(1), "back the way it came");
    assert_eq!(n.sent_by(1, is(RERR)).len(), 1, "node 1 forwarded it");
    assert!(!n.nodes[1].cache.has(addr(3), n.now));
    assert!(!n.nodes[0].cache.has(addr(3), n.now));
    assert!(n
        .signals
        .iter()
        .any(|&(_, node, s)| node == 0 && s == RouteSignal::Lost { dst: addr(3) }));
    let before = n.sent_by(0, is(RREQ)).len();
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(3));
    assert!(n.sent_by(0, is(RREQ)).len() > before, "a new discovery");
    // The propagating request carries the error it received (RFC §8.2.1), so no node can
    // answer from a cache that still holds the link.
    let carried = n.sent_by(0, is(RREQ)).into_iter().skip(before).any(|s| {
        matches!(option(&s.pkt, RERR),
            Some(DsrOption::RouteError { unreachable, .. }) if *unreachable == addr(3))
    });
    assert!(carried, "{:#?}", n.sent_by(0, is(RREQ)));
}

/// RFC §8.2.1 with MaxRequestRexmt: a target nobody can reach makes the source retransmit its
/// request with exponential backoff and give up after the retransmissions, dropping what
/// waited; ns-2 never gives up (its packets leave by the send-buffer timeout).
#[test]
fn an_unreachable_target_ends_the_discovery_after_the_retransmissions() {
    let mut p = DsrParams::rfc4728();
    p.max_request_rexmt = Some(3);
    let mut n = string(3, p);
    n.fail_link(1, 2);
    let id = n.send_data(0, 2);
    n.run_until(SimTime::from_secs(10));
    let times: Vec<u64> = n
        .sent_by(0, is(RREQ))
        .iter()
        .filter(|s| s.pkt.ip.ttl == 1)
        .map(|s| s.at.as_millis())
        .collect();
    assert_eq!(times, vec![0, 500, 1500, 3500], "waits 0.5, 1, 2 s");
    assert_eq!(
        n.dropped,
        vec![(ms(7500), 0, id, DropReason::DiscoveryFailed)]
    );
    assert_eq!(n.nodes[0].stats.discoveries_failed, 1);
}

/// TCP-pgy S1 over DSR (seed 002 §III-B.1): the TCP receiver (node 4) originates an ACK toward
/// the sender (node 0) and has no route, so its route request carries the ACK (option type 31,
/// 10 bytes); the sender, discovering a route to 4 at the same time, gets the receiver's reply
/// with it too. The sender's agent hands each to its TCP as `AckLearned`. With the option off
/// neither request nor reply carries it and nothing is learned.
#[test]
fn ack_piggyback_rides_the_request_and_the_reply() {
    use crate::packet::dsr::DSR_ACK_SEQ;
    for on in [true, false] {
        let mut p = DsrParams::rfc4728();
        p.ack_piggyback = on;
        // Only targets answer, so that node 0's request reaches node 4.
        p.reply_from_cache = false;
        let mut n = string(5, p);
        n.send_tcp_ack(4, 0, (80, 5001), 7_000);
        n.send_data(0, 4);
        n.run_until(SimTime::from_secs(1));
        let carried = |s: &&crate::net::testnet::Sent| option(&s.pkt, DSR_ACK_SEQ).is_some();
        let reqs = n.sent_by(4, is(RREQ));
        let reps = n.sent_by(4, is(RREP));
        assert!(
            !reqs.is_empty() && !reps.is_empty(),
            "{} {}",
            reqs.len(),
            reps.len()
        );
        let learned: Vec<RouteSignal> = n
            .signals
            .iter()
            .filter(|(_, node, s)| *node == 0 && matches!(s, RouteSignal::AckLearned { .. }))
            .map(|x| x.2)
            .collect();
        if on {
            assert!(reqs.iter().all(carried) && reps.iter().all(carried));
            let e = crate::packet::AckSeq {
                sport: 80,
                dport: 5001,
                ack: 7_000,
            };
            assert_eq!(
                option(&reqs[0].pkt, DSR_ACK_SEQ),
                Some(&DsrOption::AckSeq(e))
            );
            let plain = DsrOption::RouteRequest {
                id: 0,
                target: 0,
                addrs: vec![],
            };
            assert_eq!(reqs[0].pkt.dsr().unwrap().hdr.len(), 4 + plain.len() + 10);
            let want = RouteSignal::AckLearned {
                peer: addr(4),
                peer_port: 80,
                port: 5001,
                ack: 7_000,
            };
            // One from the flooded request, one from the reply to node 0's own request.
            assert_eq!(learned, vec![want, want]);
        } else {
            assert!(!reqs.iter().any(carried) && !reps.iter().any(carried));
            assert!(learned.is_empty());
        }
    }
}

/// Seed 002 §III-B.1.a over DSR: node 3 answers the TCP receiver's (node 5's) request from the
/// route to node 0 it cached while forwarding node 0's discovery, so the request stops there; node 3 sends the ACK it carried on to the TCP sender
/// (node 0) in an unsolicited Route Reply holding the route 0 → 1 → 2 → 3 → 5, and node 0's
/// agent hands it to TCP. Without the option no such reply goes and nothing is learned.
#[test]
fn a_cache_reply_sends_the_ack_on_to_the_sender() {
    for on in [true, false] {
        let mut p = DsrParams::rfc4728();
        p.ack_piggyback = on;
        // 0 – 1 – 2 – 3 – 4, and 5, which comes into node 3's range once 3 knows a route to 0.
        let mut n = net(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (5, 3)], p);
        n.fail_link(3, 5);
        n.send_data(0, 4);
        n.run_until(SimTime::from_secs(1));
        n.restore_link(3, 5);
        n.send_tcp_ack(5, 0, (80, 5001), 9_000);
        n.run_until(SimTime::from_secs(2));
        let to_0: Vec<_> = n
            .sent_by(3, is(RREP))
            .into_iter()
            .filter(|s| (s.pkt.ip.src, s.pkt.ip.dst) == (addr(3), addr(0)))
            .collect();
        let learned: Vec<_> = n
            .signals
            .iter()
            .filter(|(_, node, s)| *node == 0 && matches!(s, RouteSignal::AckLearned { .. }))
            .collect();
        if on {
            assert_eq!(to_0.len(), 1);
            assert!(matches!(option(&to_0[0].pkt, RREP),
                Some(DsrOption::RouteReply { addrs: a, .. }) if *a == addrs(&[1, 2, 3, 5])));
            assert_eq!(
                learned[0].2,
                RouteSignal::AckLearned {
                    peer: addr(5),
                    peer_port: 80,
                    port: 5001,
                    ack: 9_000
                }
            );
            assert_eq!(learned.len(), 1);
            // Node 0 now also has the route to the receiver.
            assert_eq!(
                n.nodes[0].cache().peek(addr(5), n.now),
                Some(addrs(&[0, 1, 2, 3, 5]))
            );
        } else {
            assert!(to_0.is_empty() && learned.is_empty());
        }
        assert_eq!(n.delivered.len(), 2, "the ACK reached node 0");
    }
}

/// The source's view after discovery on two disjoint routes 0–1–3 and 0–2–3 (one reply per
/// request copy, RFC §8.2.2), so a break on one leaves the other cached.
fn two_routes(notify_every_error: bool) -> Net<Dsr> {
    let mut p = DsrParams::rfc4728();
    p.salvage = false;
    p.notify_every_error = notify_every_error;
    let mut n = net(4, &[(0, 1), (1, 3), (0, 2), (2, 3)], p);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(1));
    let via = |n: &Net<Dsr>, k| {
        n.nodes[0]
            .cache
            .peek(addr(3), n.now)
            .map(|r| r[1] == addr(k))
    };
    assert!(
        via(&n, 1).is_some(),
        "a route to 3 after the discovery: {:?}",
        n.nodes[0].cache
    );
    n
}

fn lost_at(n: &Net<Dsr>, node: usize) -> usize {
    n.signals
        .iter()
        .filter(|&&(_, k, s)| k == node && s == RouteSignal::Lost { dst: addr(3) })
        .count()
}

/// ELFN as Holland & Vaidya built it (`notify_every_error`): the Route Error DSR returns to the
/// source tells its transport, although another cached route remains; without it the source
/// only hears of a loss when no route is left.
#[test]
fn every_route_error_to_the_source_is_a_notice_when_asked() {
    for on in [false, true] {
        let mut n = two_routes(on);
        let first = n.nodes[0].cache.peek(addr(3), n.now).unwrap()[1];
        let (relay, other) = if first == addr(1) { (1, 2) } else { (2, 1) };
        n.fail_link(relay, 3);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(2));
        assert_eq!(
            n.sent_by(relay, is(RERR)).len(),
            1,
            "the relay reports the break"
        );
        let now = n.now;
        let left = n.nodes[0]
            .cache
            .peek(addr(3), now)
            .expect("the other route stays");
        assert_eq!(left[1], addr(other));
        assert_eq!(lost_at(&n, 0), usize::from(on), "notify_every_error = {on}");
    }
}

/// The same for a break of the source's own first hop, found by its MAC.
#[test]
fn a_break_of_the_sources_own_link_is_a_notice_when_asked() {
    for on in [false, true] {
        let mut n = two_routes(on);
        let first = n.nodes[0].cache.peek(addr(3), n.now).unwrap()[1];
        let relay = if first == addr(1) { 1 } else { 2 };
        n.fail_link(0, relay);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(2));
        assert!(
            n.nodes[0].cache.has(addr(3), n.now),
            "the other route stays"
        );
        assert_eq!(lost_at(&n, 0), usize::from(on), "notify_every_error = {on}");
    }
}

/// Only the destinations whose route ran over the broken link hear of it: a second flow from
/// the same source over another first hop is left alone.
#[test]
fn a_route_error_tells_only_the_flows_over_the_broken_link() {
    let mut p = DsrParams::rfc4728();
    p.salvage = false;
    p.notify_every_error = true;
    // 0–1–3 and 0–2–3 to node 3; 0–4 to node 4.
    let mut n = net(5, &[(0, 1), (1, 3), (0, 2), (2, 3), (0, 4)], p);
    n.send_data(0, 3);
    n.send_data(0, 4);
    n.run_until(SimTime::from_secs(1));
    let relay = if n.nodes[0].cache.peek(addr(3), n.now).unwrap()[1] == addr(1) {
        1
    } else {
        2
    };
    n.fail_link(relay, 3);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(2));
    assert_eq!(lost_at(&n, 0), 1);
    let to_4 = RouteSignal::Lost { dst: addr(4) };
    assert!(
        n.signals.iter().all(|&(_, _, s)| s != to_4),
        "{:?}",
        n.signals
    );
}

/// A Route Error crossing a node on its way to another source is not that node's notice, even
/// when its own route used the broken link and another remains: ELFN is what DSR returns to the
/// sender of the failed packet.
#[test]
fn a_route_error_passing_through_is_no_notice() {
    let mut p = DsrParams::rfc4728();
    p.salvage = false;
    p.notify_every_error = true;
    // Shortest routes 1–2–3 and 0–1–2–3; the longer 1–4–5–3 stays cached as the other.
    let mut n = net(6, &[(0, 1), (1, 2), (2, 3), (1, 4), (4, 5), (5, 3)], p);
    n.send_data(1, 3);
    n.run_until(SimTime::from_secs(1));
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(2));
    assert_eq!(
        n.nodes[0].cache.peek(addr(3), n.now).unwrap(),
        addrs(&[0, 1, 2, 3])
    );
    assert_eq!(
        n.nodes[1].cache.peek(addr(3), n.now).unwrap(),
        addrs(&[1, 2, 3])
    );
    n.fail_link(2, 3);
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(3));
    assert_eq!(
        n.sent_by(1, is(RERR)).len(),
        1,
        "node 1 forwarded the error"
    );
    assert_eq!(
        n.nodes[1].cache.peek(addr(3), n.now).unwrap(),
        addrs(&[1, 4, 5, 3])
    );
    assert_eq!(lost_at(&n, 1), 0, "the error passed node 1");
    assert_eq!(lost_at(&n, 0), 1, "it told its source");
}

/// The DSR agents the tap tests run: ns-2's preset (tap on), with `tweak` applied.
fn tapped(tweak: impl Fn(&mut DsrParams)) -> DsrParams {
    let mut p = DsrParams::ns2();
    tweak(&mut p);
    p
}

/// RFC §3.4.3 automatic route shortening: on 0–1–2–3 the route 0-1-2-3 was discovered while
/// 1–3 was out of range; once it is in range, 3 overhears 1 → 2, is listed after the next hop,
/// and sends 0 a gratuitous Route Reply with 0-1-3, back the way the packet came (3-1-0). The
/// Gratuitous Route Reply Table (§4.4) holds back a second one for the same (source,
/// transmitter) within GratReplyHoldoff; the overheard copy is not delivered, and the next
/// packet takes the short route.
#[test]
fn an_overhearing_node_later_on_the_route_sends_a_gratuitous_reply() {
    let run = |p: DsrParams| {
        let mut n = net(4, &[(0, 1), (1, 2), (2, 3), (1, 3)], p);
        n.fail_link(1, 3);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        assert_eq!(
            n.nodes[0].cache().peek(addr(3), n.now),
            Some(addrs(&[0, 1, 2, 3]))
        );
        n.restore_link(1, 3);
        let t0 = n.now;
        let (a, b) = (n.send_data(0, 3), n.send_data(0, 3));
        n.run_until(t0 + ms(100));
        let grat: Vec<(usize, u32, Option<DsrOption>)> = n
            .sent
            .iter()
            .filter(|s| s.at >= t0 && is(RREP)(&s.pkt))
            .map(|s| (s.node, s.pkt.ip.dst, option(&s.pkt, RREP).cloned()))
            .collect();
        let c = n.send_data(0, 3);
        n.run_until(t0 + ms(200));
        let delivered = |id: crate::ids::PktId| {
            let id = id.0 as u16;
            n.delivered.iter().filter(|d| d.2.ip.ident == id).count()
        };
        assert_eq!(
            (delivered(a), delivered(b), delivered(c)),
            (1, 1, 1),
            "each once"
        );
        let via: Vec<u32> = n
            .data_hops
            .iter()
            .filter(|h| h.3.ip.ident == c.0 as u16)
            .map(|h| h.2)
            .collect();
        (grat, via, n.nodes[3].grat_replies_sent())
    };
    let (grat, via, sent) = run(tapped(|_| {}));
    let reply = DsrOption::RouteReply {
        last_hop_external: false,
        addrs: addrs(&[1, 3]),
    };
    // 3 originates one reply (the second packet is held back), 1 forwards it to 0.
    assert_eq!(
        grat,
        [(3, addr(0), Some(reply.clone())), (1, addr(0), Some(reply))]
    );
    assert_eq!(sent, 1);
    assert_eq!(via, addrs(&[1, 3]), "the next packet goes 0 → 1 → 3");
    let (grat, via, _) = run(tapped(|p| p.grat_replies = false));
    assert!(grat.is_empty());
    assert_eq!(via, addrs(&[1, 2, 3]));
    let (grat, _, _) = run(tapped(|p| p.grat_hold = SimTime::ZERO));
    assert_eq!(
        grat.len(),
        4,
        "without the table each packet overheard gets its reply"
    );
}

/// ns-2's tap: a Route Error overheard on its way (unicast 2 → 1 toward 0) cuts the broken
/// link from the cache of a bystander (4, next to 1 and 2) that used it, before any request
/// carries the error around.
#[test]
fn an_overheard_route_error_cuts_the_link_from_the_cache() {
    let run = |p: DsrParams| {
        let mut n = net(5, &[(0, 1), (1, 2), (2, 3), (4, 1), (4, 2)], p);
        n.send_data(4, 3);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        let before = n.nodes[4].cache().has(addr(3), n.now);
        n.fail_link(2, 3);
        let t0 = n.now;
        n.send_data(0, 3);
        n.run_until(t0 + ms(10));
        let heard = n.overheard.iter().any(|o| (o.1, o.2, o.3) == (4, 2, 1));
        let erred = n.sent_by(2, is(RERR)).len();
        (before, erred, heard, n.nodes[4].cache().has(addr(3), n.now))
    };
    assert_eq!(run(tapped(|_| {})), (true, 1, true, false));
    assert_eq!(run(tapped(|p| p.tap = false)), (true, 1, false, true));
}

/// ns-2's tap snoops the source routes it overhears (`noticeRouteUsed`,
/// `cache_use_overheard_routes`): 4, next to 1 only, hears 1 → 2 of 0's packet to 3 and
/// caches 4-1-2-3 (the link to the transmitter assumed), as an overheard route.
#[test]
fn an_overheard_source_route_enters_the_cache_through_the_transmitter() {
    let run = |p: DsrParams| {
        let mut n = net(5, &[(0, 1), (1, 2), (2, 3), (4, 1)], p);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        n.nodes[4].cache().peek(addr(3), n.now)
    };
    assert_eq!(run(tapped(|_| {})), Some(addrs(&[4, 1, 2, 3])));
    assert_eq!(run(tapped(|p| p.snoop = false)), None);
    assert_eq!(run(tapped(|p| p.tap = false)), None);
}

/// ns-2 `noticeRouteUsed` (`snoop_forward_only`): a node takes from a packet it handles only
/// the rest of the packet's own source route. On a 5-node string (tap off), 0 discovers 4:
/// node 2 forwards the request (learning nothing from it) and the reply (learning 2-1-0, the
/// way the reply goes, but not the route to 4 it carries), and first holds a route to 4 when
/// the data passes, after node 0 had the reply. With the rule off node 2 caches the replied
/// route as the reply goes by, before node 0 has it, and the way back from the request.
#[test]
fn a_forwarded_reply_teaches_the_way_it_goes_not_the_route_it_carries() {
    for rule in [true, false] {
        let mut p = DsrParams::ns2();
        p.tap = false;
        p.snoop_forward_only = rule;
        let mut n = string(5, p);
        n.send_data(0, 4);
        let (mut at0, mut at2, mut back2) = (None, None, None);
        let step = SimTime::from_micros(100);
        while n.now < SimTime::from_secs(1) {
            n.run_until(n.now + step);
            let now = n.now;
            let has = |n: &Net<Dsr>, i: usize, d: usize| n.nodes[i].cache().peek(addr(d), now);
            if at0.is_none() && has(&n, 0, 4).is_some() {
                at0 = Some(now);
            }
            if at2.is_none() && has(&n, 2, 4).is_some() {
                at2 = Some(now);
            }
            if back2.is_none() && has(&n, 2, 0).is_some() {
                back2 = Some(now);
            }
        }
        let (at0, at2, back2) = (at0.unwrap(), at2.unwrap(), back2.unwrap());
        assert_eq!(n.delivered.len(), 1);
        let back_by_reply = n.sent_by(4, is(RREP))[0].at + ms(2);
        if rule {
            assert!(at2 > at0, "node 2 learns 4 from the data: {at2} vs {at0}");
            assert!(back2 >= back_by_reply, "0 learnt from the reply: {back2}");
            assert_eq!(
                n.nodes[2].cache().peek(addr(4), n.now),
                Some(addrs(&[2, 3, 4]))
            );
        } else {
            assert!(at2 < at0, "node 2 learns 4 from the reply: {at2} vs {at0}");
            assert!(back2 < back_by_reply, "0 learnt from the request: {back2}");
        }
    }
}

/// ns-2 `xmitFailed` on a Route Reply (`control_failures`): node 1 cannot hand the target's
/// reply on to the initiator 0, so it sends the reply's originator (3) a Route Error for the
/// link 1 → 0, and drops the reply, whose route uses that link (ns-2
/// `dsragent_dont_salvage_bad_replies`). Off, the reply is lost and nobody hears of it.
#[test]
fn a_reply_the_mac_gives_up_on_brings_its_originator_a_route_error() {
    for on in [true, false] {
        let mut p = DsrParams::ns2();
        p.control_failures = on;
        let mut n = string(4, p);
        n.control_fails = true;
        n.send_data(0, 3);
        // The propagating request reaches 3 at 33 ms, its reply node 1 at 35 ms.
        n.run_until(ms(34));
        n.fail_link(0, 1);
        n.run_until(SimTime::from_secs(1));
        assert_eq!(n.sent_by(3, is(RREP)).len(), 1);
        let errs = n.sent_by(1, is(RERR));
        if on {
            assert_eq!(errs.len(), 1, "{errs:#?}");
            assert_eq!((errs[0].pkt.ip.dst, errs[0].next), (addr(3), addr(2)));
            assert!(matches!(option(&errs[0].pkt, RERR),
                Some(DsrOption::RouteError { err_src, unreachable, .. })
                    if (*err_src, *unreachable) == (addr(1), addr(0))));
            assert!(!n.nodes[3].cache.has(addr(0), n.now), "3 cut 1 → 0");
        } else {
            assert!(errs.is_empty());
        }
        assert!(
            n.data_hops.iter().all(|h| h.1 != 1),
            "the reply is not salvaged"
        );
    }
}

/// ns-2 `xmitFailed` on a Route Error (`control_failures`): node 2's error for 2 → 3 cannot
/// go on from node 1 to the source 0, so node 1 salvages it by its cached route through 4
/// (the source still learns of the break) and sends the error's originator 2 a nested error:
/// the error it could not deliver first, its own (1 → 0) outermost. Off, the error is lost.
#[test]
fn a_route_error_the_mac_gives_up_on_is_salvaged_and_nested() {
    for on in [true, false] {
        let mut p = DsrParams::ns2();
        p.control_failures = on;
        p.relay_discovery = false;
        // 0 – 1 – 2 – 3 and 1 – 4 – 0.
        let mut n = net(5, &[(0, 1), (1, 2), (2, 3), (1, 4), (4, 0)], p);
        n.control_fails = true;
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        assert_eq!(n.delivered.len(), 1);
        n.nodes[1].cache.add(&addrs(&[1, 4, 0]), n.now, true);
        n.fail_link(2, 3);
        let t = n.now;
        n.send_data(0, 3);
        // The data is on its way from 1 to 2 when 0 – 1 breaks.
        n.run_until(t + ms(1));
        n.fail_link(0, 1);
        n.run_until(SimTime::from_secs(2));
        // Node 1's own errors (it also forwarded node 2's toward 0, into the dead link).
        let nested = n.sent_by(1, |p| is(RERR)(p) && p.ip.src == addr(1));
        let salvaged: Vec<_> = n
            .data_hops
            .iter()
            .filter(|h| h.1 == 1 && is(RERR)(&h.3))
            .collect();
        if on {
            assert_eq!(nested.len(), 1, "{nested:#?}");
            assert_eq!(nested[0].pkt.ip.dst, addr(2));
            let errs = Dsr::errors_in(&nested[0].pkt);
            assert_eq!(
                errs,
                vec![(addr(2), addr(0), addr(3)), (addr(1), addr(2), addr(0))]
            );
            assert_eq!(salvaged.len(), 1);
            assert_eq!(salvaged[0].2, addr(4), "salvaged through 4");
            assert!(!n.nodes[0].cache.has(addr(3), n.now), "the source heard");
        } else {
            assert!(nested.is_empty() && salvaged.is_empty());
            assert!(
                n.nodes[0].cache.has(addr(3), n.now),
                "the source never heard"
            );
        }
    }
}

/// ns-2 NEW_SALVAGE_LOGIC (`relay_discovery`): node 2 cannot salvage a packet whose link
/// 2 → 3 broke; it holds it and sends a non-propagating request, which neighbour 4 answers
/// from its cache, and the packet arrives through 4. Off, node 2 drops it.
#[test]
fn a_forwarder_without_a_route_asks_its_neighbours_and_sends_the_packet_on() {
    for on in [true, false] {
        let mut p = DsrParams::ns2();
        p.relay_discovery = on;
        // 0 – 1 – 2 – 3, and 2 – 4 – 3 once the first packet went.
        let mut n = net(5, &[(0, 1), (1, 2), (2, 3), (2, 4), (4, 3)], p);
        n.fail_link(2, 4);
        n.fail_link(4, 3);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        let hops: Vec<usize> = n.data_hops.iter().map(|h| h.1).collect();
        assert_eq!(hops, vec![0, 1, 2], "0 – 1 – 2 – 3 first");
        n.restore_link(2, 4);
        n.restore_link(4, 3);
        n.nodes[4].cache.add(&addrs(&[4, 3]), n.now, true);
        n.fail_link(2, 3);
        let before = n.sent_by(2, is(RREQ)).len();
        let id = n.send_data(0, 3);
        n.run_until(SimTime::from_secs(3));
        let reqs: Vec<u8> = n.sent_by(2, is(RREQ))[before..]
            .iter()
            .map(|s| s.pkt.ip.ttl)
            .collect();
        let arrived = n.delivered.iter().any(|d| d.2.ip.ident == id.0 as u16);
        if on {
            assert_eq!(reqs, vec![1], "one non-propagating request");
            assert!(arrived);
            assert!(n.data_hops.iter().any(|h| (h.1, h.2) == (2, addr(4))));
        } else {
            assert!(reqs.is_empty() && !arrived);
            assert!(n.dropped.iter().any(|d| d.2 == id));
        }
    }
}

/// ns-2 NEW_SALVAGE_LOGIC: a forwarder's request that nobody answers is not followed by a
/// propagating one; when the backoff would allow the next request (2 s), the held packet is
/// dropped instead.
#[test]
fn a_forwarders_unanswered_request_ends_in_a_drop_at_the_next_cycle() {
    let mut n = string(4, DsrParams::ns2());
    n.send_data(0, 3);
    n.run_until(SimTime::from_secs(1));
    n.fail_link(2, 3);
    let before = n.sent_by(2, is(RREQ)).len();
    let t = n.now;
    let id = n.send_data(0, 3);
    n.run_until(SimTime::from_secs(5));
    let reqs: Vec<u8> = n.sent_by(2, is(RREQ))[before..]
        .iter()
        .map(|s| s.pkt.ip.ttl)
        .collect();
    assert_eq!(reqs, vec![1]);
    let drop = n.dropped.iter().find(|d| d.2 == id).expect("dropped");
    assert_eq!((drop.1, drop.3), (2, DropReason::LinkBroken));
    // Held from the MAC's report at 2 (three hop times after t) until the cycle 2 s on.
    assert_eq!(drop.0, t + ms(3) + SimTime::from_secs(2));
}

/// ns-2's request table (`keep_request_backoff`): a forwarder whose request for node 3 went
/// unanswered, and whose held packet was dropped at the next cycle (2 s on), keeps that
/// backoff after the discovery ended (the next cycle, 8 s later, found nothing waiting). The
/// next packet it cannot salvage for 3 is dropped at once, with no request (ns-2
/// `BackOffTest` passes, `rt_reqs_outstanding` then exceeds `dsr_salvage_max_requests`). Off,
/// a new discovery asks again and drops the packet 2 s on.
#[test]
fn a_destinations_request_backoff_outlives_the_discovery() {
    for keep in [true, false] {
        let mut p = DsrParams::ns2();
        p.keep_request_backoff = keep;
        let mut n = string(4, p);
        n.send_data(0, 3);
        n.run_until(SimTime::from_secs(1));
        n.fail_link(2, 3);
        let t1 = n.now;
        let first = n.send_data(0, 3);
        n.run_until(SimTime::from_secs(12));
        let drop1 = n.dropped.iter().find(|d| d.2 == first).expect("dropped").0;
        assert_eq!(drop1, t1 + ms(3) + SimTime::from_secs(2));
        assert!(n.nodes[2].discoveries.is_empty(), "the discovery ended");
        // The source learns the way through 2 again (as from a snooped packet), not by a reply.
        n.nodes[0].cache.add(&addrs(&[0, 1, 2, 3]), n.now, true);
        let before = n.sent_by(2, is(RREQ)).len();
        let t2 = n.now;
        let second = n.send_data(0, 3);
        n.run_until(SimTime::from_secs(20));
        let reqs = n.sent_by(2, is(RREQ)).len() - before;
        let drop2 = n.dropped.iter().find(|d| d.2 == second).expect("dropped");
        assert_eq!((drop2.1, drop2.3), (2, DropReason::LinkBroken));
        if keep {
            assert_eq!(reqs, 0, "the kept backoff allows no request for it");
            assert_eq!(drop2.0, t2 + ms(3), "dropped at once");
        } else {
            assert_eq!(reqs, 1, "a fresh discovery asks");
            assert_eq!(drop2.0, t2 + ms(3) + SimTime::from_secs(2));
        }
    }
}
