//! DSDV packet-level trace tests (Perkins & Bhagwat 1994 rules as ns-2.35 applies them).

use super::{Dsdv, DsdvParams};
use crate::net::routing::{Port, RouteSignal, RoutingAgent, RoutingIo};
use crate::net::testnet::{addr, Net};
use crate::packet::dsdv::INFINITE_METRIC;
use crate::packet::{Addr, Advert, DsdvUpdate, Packet, Transport};
use crate::rng::{Rng, StreamId};
use crate::time::SimTime;

fn net(n: usize, links: &[(usize, usize)], p: DsdvParams) -> Net<Dsdv> {
    let nodes = (0..n)
        .map(|i| {
            Dsdv::new(
                addr(i),
                Port(0),
                p,
                Rng::derive(1, StreamId::Custom(i as u64)),
            )
        })
        .collect();
    Net::new(nodes, links)
}

fn string(n: usize, p: DsdvParams) -> Net<Dsdv> {
    let links: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    net(n, &links, p)
}

fn adverts(p: &Packet) -> &[Advert] {
    match &p.l4 {
        Transport::Dsdv(u) => &u.routes,
        _ => &[],
    }
}

fn secs(s: u64) -> SimTime {
    SimTime::from_secs(s)
}

/// Full dumps come every 11.25–15 s, each with the node's own entry at metric 0 and a sequence
/// number 2 higher (even: only the destination issues them); routes spread hop by hop once
/// settled, so a 4-node string converges to hop-count metrics.
#[test]
fn full_dumps_carry_even_own_numbers_and_the_table_converges() {
    let mut n = string(4, DsdvParams::ns2());
    n.run_until(secs(80));
    let own: Vec<(u64, u32)> = n
        .sent
        .iter()
        .filter(|s| s.node == 0)
        .filter_map(|s| {
            let a = adverts(&s.pkt).iter().find(|a| a.dst == addr(0))?;
            assert_eq!(a.metric, 0);
            Some((s.at.as_millis(), a.seq))
        })
        .collect();
    assert!(own.len() >= 5, "{own:?}");
    for w in own.windows(2) {
        assert_eq!(w[1].1, w[0].1 + 2);
        assert_eq!(w[1].1 % 2, 0);
        let gap = w[1].0 - w[0].0;
        assert!((11_250..=15_010).contains(&gap), "{gap} ms between dumps");
    }
    assert_eq!(n.nodes[0].full_dumps as usize, own.len());
    for (i, m) in [(1, 1), (2, 2), (3, 3)] {
        let r = n.nodes[0].route_to(addr(i)).expect("a route");
        assert_eq!((r.next, r.metric), (addr(1), m));
        assert_eq!(r.seq % 2, 0);
    }
}

/// A broken link (the MAC's notice) makes each route through it infinite with an odd
/// sequence number, sent at once in an incremental update that the upstream node adopts;
/// without the MAC's notice (ns-2's default) nothing is sent until the neighbour has been
/// silent for three periods.
#[test]
fn a_break_goes_out_at_once_as_an_odd_infinite_route() {
    for mac in [true, false] {
        let mut p = DsdvParams::ns2();
        p.mac_breaks = mac;
        let mut n = string(3, p);
        n.run_until(secs(60));
        // Away from node 1's full dumps (ns-2 waits 1 s after one: `full_dump_resets_timers`).
        let dumped = run_to_next_dump(&mut n, 1);
        n.run_until(dumped + secs(3));
        let t0 = n.now;
        let before = n.nodes[1].incremental_updates;
        let even = n.nodes[1].route_to(addr(2)).unwrap().seq;
        assert_eq!(even % 2, 0);
        n.fail_link(1, 2);
        n.send_data(0, 2);
        n.run_until(t0 + secs(1));
        let r = n.nodes[0].route_to(addr(2)).unwrap();
        if mac {
            assert_eq!(n.nodes[1].incremental_updates, before + 1);
            let upd = n.sent.iter().rev().find(|s| s.node == 1).unwrap();
            assert!(upd.at < t0 + SimTime::from_millis(20), "at once");
            // Besides what else changed since its last dump.
            assert!(adverts(&upd.pkt).contains(&Advert {
                dst: addr(2),
                metric: INFINITE_METRIC,
                seq: even + 1,
            }));
            assert_eq!((r.metric, r.seq), (INFINITE_METRIC, even + 1));
            assert!(n
                .signals
                .contains(&(n.signals[0].0, 0, RouteSignal::Lost { dst: addr(2) })));
        } else {
            assert_eq!(n.nodes[1].incremental_updates, before);
            assert_eq!(r.metric, 2, "node 0 still believes in the route");
            n.run_until(t0 + secs(60));
            let r = n.nodes[0].route_to(addr(2)).unwrap();
            assert_eq!(r.metric, INFINITE_METRIC, "after 3 silent periods");
            assert_eq!(r.seq % 2, 1);
        }
    }
}

/// DSDV has no route request: a packet for a destination whose route broke waits in the
/// per-destination queue (ns-2 MAX_QUEUE_LENGTH) until a route comes back; that wait is counted
/// as the discovery's latency, and the packet then leaves.
#[test]
fn a_queued_packet_waits_for_the_next_route_and_its_wait_is_counted() {
    let mut p = DsdvParams::ns2();
    p.mac_breaks = true;
    // 0 – 1 – 2, and 0 – 3 – 4 – 2 (a longer way round).
    let mut n = net(5, &[(0, 1), (1, 2), (0, 3), (3, 4), (4, 2)], p);
    n.run_until(secs(60));
    assert_eq!(n.nodes[0].route_to(addr(2)).unwrap().next, addr(1));
    n.fail_link(1, 2);
    n.send_data(0, 2); // fails at 1: the break goes out, node 0's route becomes infinite
    n.run_until(secs(61));
    assert_eq!(
        n.nodes[0].route_to(addr(2)).unwrap().metric,
        INFINITE_METRIC
    );
    let queued_at = n.now;
    let id = n.send_data(0, 2);
    assert!(n.delivered.is_empty());
    n.run_until(secs(120));
    let (at, _, _) = n
        .delivered
        .iter()
        .find(|d| d.2.ip.ident == id.0 as u16)
        .expect("delivered");
    let left = n.data_hops.iter().rev().find(|h| h.1 == 0).unwrap().0;
    let s = n.nodes[0].stats();
    assert_eq!(s.discoveries_completed, 1);
    assert_eq!(SimTime(s.discovery_latency_ns), left - queued_at);
    assert!(*at > left);
}

/// ns-2 `processUpdate` (CMU Monarch's fix of the problem the paper describes): a node that
/// hears itself advertised as unreachable (an odd number from the node that saw a break) sends
/// a full dump at once, with a new even number that supersedes the odd one, instead of waiting
/// for its next periodic dump.
#[test]
fn a_node_advertised_unreachable_answers_at_once_with_a_new_number() {
    let mut n = string(2, DsdvParams::ns2());
    n.run_until(secs(30));
    let own = n.nodes[1].seqno();
    let next_dump = n.nodes[1].poll_timeout().unwrap();
    let rumour = Packet {
        l4: Transport::Dsdv(DsdvUpdate {
            routes: vec![Advert {
                dst: addr(1),
                metric: INFINITE_METRIC,
                seq: own + 1,
            }],
        }),
        ..n.sent_by(0, |_| true)[0].pkt.clone()
    };
    let mut io = RoutingIo::default();
    n.nodes[1].on_control(n.now, Port(0), addr(0), &rumour, &mut io);
    assert_eq!(n.nodes[1].poll_timeout(), Some(n.now), "was {next_dump}");
    n.nodes[1].on_timeout(n.now, &mut io);
    n.run_until(n.now + SimTime::from_millis(20));
    let answer = n.nodes[0].route_to(addr(1)).unwrap();
    assert_eq!((answer.metric, answer.seq), (1, own + 2));
}

/// ns-2 `forwardPacket`: a packet for a destination the table has never heard of is queued in
/// a new entry (infinite metric, sequence number 0, never advertised), not dropped, and leaves
/// when the destination's first advertisement arrives.
#[test]
fn a_packet_for_an_unknown_destination_waits_for_its_first_route() {
    let mut n = string(3, DsdvParams::ns2());
    let id = n.send_data(0, 2); // at t = 0: no dump has gone yet
    assert!(n.dropped.is_empty(), "{:?}", n.dropped);
    let r = *n.nodes[0].route_to(addr(2)).expect("a placeholder entry");
    assert_eq!((r.metric, r.seq), (INFINITE_METRIC, 0));
    n.run_until(secs(60));
    assert!(n.delivered.iter().any(|d| d.2.ip.ident == id.0 as u16));
    // The placeholder itself was never advertised.
    assert!(n.sent_by(0, |_| true).iter().all(|s| !adverts(&s.pkt)
        .iter()
        .any(|a| a.dst == addr(2) && a.seq == 0)));
}

/// ns-2 `processUpdate` (TRIGGER_UPDATE_ON_FRESH_SEQNUM undefined): a fresher sequence number
/// is taken and used at once but triggers no update of its own, even with a new metric; it goes
/// out with the node's next dump. Here node 1's break reaches node 0, which stays quiet.
#[test]
fn a_fresher_number_alone_triggers_no_update() {
    let mut p = DsdvParams::ns2();
    p.mac_breaks = true;
    let mut n = string(4, p);
    n.run_until(secs(60));
    let before = (
        n.nodes[0].incremental_updates,
        n.nodes[1].incremental_updates,
    );
    n.fail_link(2, 3);
    n.send_data(1, 3); // fails at 2: node 2 sends (3, ∞, odd) at once
    n.run_until(secs(61));
    let r = *n.nodes[1].route_to(addr(3)).unwrap();
    assert_eq!((r.metric, r.seq % 2), (INFINITE_METRIC, 1), "taken at once");
    let after = (
        n.nodes[0].incremental_updates,
        n.nodes[1].incremental_updates,
    );
    assert_eq!(after, before, "nodes 0 and 1 stay quiet");
    n.run_until(secs(80));
    let dump = n
        .sent_by(1, |p| adverts(p).iter().any(|a| a.dst == addr(3)))
        .into_iter()
        .next_back()
        .unwrap();
    assert!(adverts(&dump.pkt).contains(&Advert {
        dst: addr(3),
        metric: INFINITE_METRIC,
        seq: r.seq
    }));
}

/// The time node `i`'s next full dump goes (run in 50 ms steps until it has gone), and the
/// network left just after it.
fn run_to_next_dump(n: &mut Net<Dsdv>, i: usize) -> SimTime {
    let dumps = n.nodes[i].full_dumps;
    while n.nodes[i].full_dumps == dumps {
        let t = n.now + SimTime::from_millis(50);
        n.run_until(t);
    }
    n.now
}

/// ns-2 `needTriggeredUpdate` (`per_route_triggers`): a fresher sequence number that settles
/// asks for no update of its own. On a converged 5-node string (wst kept at 2 s, so a fresh
/// number settles in 4 s), node 2 hears node 1's dump and a moment later loses node 3: the break
/// goes at once (and again 1 s later: ns-2's second trigger event, for the other broken route,
/// moved past the 1 s gap), and node 1's fresh numbers wait for node 2's next dump: nothing
/// from 2 s to 6 s after. With the rule off the break's update re-arms the trigger for the
/// routes still settling, and an update carrying the fresh numbers goes about 4 s later (here
/// a full one: with the broken routes' metrics still flagged, over a third of the table).
#[test]
fn settled_fresh_numbers_wait_for_the_next_dump_and_trigger_nothing() {
    for rule in [true, false] {
        let mut p = DsdvParams::ns2();
        p.per_route_triggers = rule;
        p.mac_breaks = true;
        p.wst0 = secs(2);
        p.alpha = 1.0;
        let mut n = string(5, p);
        n.run_until(secs(120));
        for i in 1..5 {
            assert_eq!(n.nodes[0].route_to(addr(i)).unwrap().metric as usize, i);
        }
        // Node 1's dump 1–5 s after node 2's own (none of node 2's dumps in the next 6 s).
        let t1 = loop {
            let t2 = run_to_next_dump(&mut n, 2);
            let t1 = run_to_next_dump(&mut n, 1);
            let gap = t1.saturating_sub(t2);
            if gap >= secs(1) && gap <= secs(5) {
                break t1;
            }
        };
        // The dump (sent after its jitter) has reached node 2.
        n.run_until(t1 + SimTime::from_millis(20));
        n.fail_link(2, 3);
        n.send_data(2, 3);
        n.run_until(t1 + secs(6));
        let late: Vec<SimTime> = n
            .sent_by(2, |_| true)
            .into_iter()
            .map(|s| s.at)
            .filter(|&at| at > t1 + secs(2))
            .collect();
        assert_eq!(
            late.len(),
            if rule { 0 } else { 1 },
            "rule {rule}: {late:?}"
        );
    }
}

/// ns-2 `helper_callback` (`full_dump_resets_timers`): a full dump counts as the last update,
/// so a break right after it is advertised `min_trigger_gap` (1 s) after the dump, not at
/// once. With the rule off the break goes within the broadcast jitter.
#[test]
fn a_break_just_after_a_full_dump_waits_out_the_trigger_gap() {
    for rule in [true, false] {
        let mut p = DsdvParams::ns2();
        p.mac_breaks = true;
        p.full_dump_resets_timers = rule;
        let mut n = string(3, p);
        n.run_until(secs(60));
        let dumped = run_to_next_dump(&mut n, 1);
        let incr = n.nodes[1].incremental_updates;
        n.fail_link(1, 2);
        n.send_data(1, 2);
        n.run_until(dumped + secs(3));
        assert_eq!(n.nodes[1].incremental_updates, incr + 1, "rule {rule}");
        let upd = n
            .sent_by(1, |p| {
                adverts(p)
                    .iter()
                    .any(|a| a.dst == addr(2) && a.metric == INFINITE_METRIC)
            })
            .into_iter()
            .next()
            .expect("the break advertised")
            .at;
        let after = upd.saturating_sub(dumped).as_millis();
        if rule {
            assert!((950..=1_020).contains(&after), "{after} ms after the dump");
        } else {
            assert!(after <= 20, "{after} ms after the dump");
        }
    }
}

/// ns-2 `makeUpdate` (`metric_until_full_dump`): a changed metric goes in every triggered
/// update until the next full dump. Node 1 of a star loses node 2, then (2 s later) node 3:
/// its second triggered update carries node 2's infinite route again beside node 3's. With
/// the rule off the first update cleared it.
#[test]
fn a_changed_metric_rides_on_each_triggered_update_until_the_next_dump() {
    for rule in [true, false] {
        let mut p = DsdvParams::ns2();
        p.mac_breaks = true;
        p.metric_until_full_dump = rule;
        let mut n = net(4, &[(0, 1), (1, 2), (1, 3)], p);
        n.run_until(secs(60));
        let dumped = run_to_next_dump(&mut n, 1);
        n.fail_link(1, 2);
        n.send_data(1, 2);
        n.run_until(dumped + secs(2));
        n.fail_link(1, 3);
        n.send_data(1, 3);
        n.run_until(dumped + secs(4));
        let ups: Vec<Vec<(Addr, u8)>> = n
            .sent_by(1, |_| true)
            .into_iter()
            .filter(|s| s.at > dumped + SimTime::from_millis(20))
            .map(|s| adverts(&s.pkt).iter().map(|a| (a.dst, a.metric)).collect())
            .collect();
        assert_eq!(ups.len(), 2, "rule {rule}: {ups:?}");
        let lost = |u: &[(Addr, u8)], i| u.contains(&(addr(i), INFINITE_METRIC));
        assert!(lost(&ups[0], 2) && !lost(&ups[0], 3), "{ups:?}");
        assert!(lost(&ups[1], 3), "{ups:?}");
        assert_eq!(lost(&ups[1], 2), rule, "rule {rule}: {ups:?}");
    }
}
