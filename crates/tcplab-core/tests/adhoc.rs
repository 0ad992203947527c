//! System tests of the ad hoc network layer: AODV on the examples' strings, a relay that walks
//! away and back, and ICMP destination unreachable.

use tcplab_core::api::{self, NodeSummary, RunOutput};
use tcplab_core::scenario::Format;

const STRING: &str = include_str!("../../../examples/adhoc_string.toml");
const BREAK: &str = include_str!("../../../examples/adhoc_break.toml");

fn run(text: &str, seed: u64, overrides: &[(&str, &str)]) -> RunOutput {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::run(text, Format::Toml, Some(seed), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

fn node<'a>(out: &'a RunOutput, name: &str) -> Option<&'a NodeSummary> {
    out.summary.nodes.iter().find(|n| n.node == name)
}

fn total(out: &RunOutput, f: impl Fn(&NodeSummary) -> u64) -> u64 {
    out.summary.nodes.iter().map(f).sum()
}

#[test]
fn aodv_finds_the_seven_hop_route_and_carries_tcp() {
    let out = run(STRING, 1, &[("duration", "30s")]);
    let f = &out.summary.flows[0];
    eprintln!(
        "7-hop AODV string, 30 s: {:.1} kb/s, {} retransmissions, {} RREQ, {} RREP, {} RERR",
        f.goodput_bps / 1e3,
        f.retransmissions,
        total(&out, |n| n.stats.route_requests),
        total(&out, |n| n.stats.route_replies),
        total(&out, |n| n.stats.route_errors),
    );
    assert!(f.bytes_delivered > 100_000, "TCP moved data over 7 hops");
    let src = node(&out, "n0").expect("the source ran a discovery");
    assert_eq!(src.routing, "aodv");
    assert!(src.stats.discoveries >= 1);
    assert!(total(&out, |n| n.stats.route_replies) >= 1);
}

#[test]
fn aodv_string_is_deterministic() {
    let a = run(STRING, 7, &[("duration", "10s")]);
    let b = run(STRING, 7, &[("duration", "10s")]);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s.wall_time_s = 0.0;
        format!("{s:?}")
    };
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn an_unreachable_destination_fails_discovery_and_the_source_socket_hears_icmp() {
    // n7 (the client) is moved 5 km away: its SYNs wait for a route that is never found.
    let out = run(
        STRING,
        1,
        &[
            ("duration", "60s"),
            ("wlans.manet.stations.7.position", r#"["5000m", "0m"]"#),
        ],
    );
    let f = &out.summary.flows[0];
    assert!(!f.completed && f.bytes_delivered == 0);
    let c = node(&out, "n7").expect("the client reports its discoveries");
    eprintln!("{c:?}");
    assert!(c.stats.discoveries >= 1 && c.stats.discoveries_failed >= 1);
    assert!(
        c.drops_discovery_failed >= 1,
        "its buffered SYNs were dropped"
    );
    // Each SYN given up is reported to the client's own socket (RFC 1812 §4.3.3.1).
    assert_eq!(c.icmp_received, c.drops_discovery_failed);
}

/// ns-2.35's wireless node has no ICMP: a relay with no route for a packet traces its drop
/// (`NRTE`) and sends nothing. AODV's ns2 preset (the string's) does the same; with
/// `icmp_unreachable = true` (RFC 1812 §4.3.3.1, the rfc3561 preset's value) each such drop of a
/// packet from another node sends that node a destination unreachable.
#[test]
fn aodv_ns2_relays_drop_without_sending_icmp_unreachable() {
    let over = |icmp: &'static str| {
        [
            ("duration", "60s"),
            ("wlans.manet.routing.icmp_unreachable", icmp),
        ]
    };
    let ns2 = run(STRING, 1, &[("duration", "60s")]);
    let off = run(STRING, 1, &over("false"));
    let on = run(STRING, 1, &over("true"));
    let relays = |o: &RunOutput| {
        o.summary
            .nodes
            .iter()
            .filter(|n| n.node != "n0" && n.node != "n7")
            .map(|n| n.drops_no_route + n.drops_discovery_failed)
            .sum::<u64>()
    };
    let sent = |o: &RunOutput| total(o, |n| n.icmp_sent);
    eprintln!(
        "relays' no-route drops: preset {} / off {} / on {}; ICMP sent {} / {} / {}",
        relays(&ns2),
        relays(&off),
        relays(&on),
        sent(&ns2),
        sent(&off),
        sent(&on)
    );
    assert!(
        relays(&ns2) > 0,
        "the run has relays dropping for want of a route"
    );
    assert_eq!(sent(&ns2), 0, "the ns2 preset sends no ICMP");
    assert_eq!(sent(&off), 0);
    assert!(sent(&on) > 0, "switched on, the relays' drops are reported");
}

#[test]
fn route_breaks_while_the_relay_is_away_and_tcp_resumes_with_every_byte_once() {
    let out = run(BREAK, 1, &[]);
    let f = &out.summary.flows[0];
    eprintln!(
        "break example: completed {} at {:?} s, {} timeouts, {} retransmissions; nodes: {:#?}",
        f.completed, f.response_time_s, f.timeouts, f.retransmissions, out.summary.nodes
    );
    // Exactly once and in order: the run's conservation oracle would have failed the run
    // otherwise; the download's size is what arrived.
    assert!(f.completed && !f.aborted);
    assert_eq!(f.bytes_delivered, 3_000_000);
    assert!(f.timeouts >= 1, "the outage costs at least one RTO");
    let breaks = total(&out, |n| n.stats.link_breaks);
    assert!(breaks >= 1, "the MAC reported the broken link");
    assert!(
        total(&out, |n| n.stats.route_errors) >= 1,
        "an RERR reported it"
    );
    // The relay is out of range from 27.5 s to 52.5 s: the download cannot end before it is back.
    assert!(f.response_time_s.unwrap() > 52.5);
}

#[test]
fn the_break_costs_the_time_the_relay_is_away() {
    let walk = run(BREAK, 1, &[]);
    let still = run(
        BREAK,
        1,
        &[("wlans.manet.stations.2.mobility", r#"{ model = "static" }"#)],
    );
    let (w, s) = (&walk.summary.flows[0], &still.summary.flows[0]);
    let (tw, ts) = (w.response_time_s.unwrap(), s.response_time_s.unwrap());
    eprintln!("3 MB: {ts:.1} s with the relay still, {tw:.1} s with its walk");
    // The relay is out of range for 25 s; the download is delayed by at least most of that.
    assert!(tw > ts + 20.0);
}

/// TCP-pgy S1 end to end on the 7-hop string (seed 002 §III-B.1): with the ACK carried by AODV
/// and the sender's extension, the sender learns ACKs during route repairs and resends fewer
/// segments the receiver already holds; with either half off it learns nothing. Every run ends
/// with the byte-conservation check (a violation is an error).
#[test]
fn ack_piggyback_learns_acks_and_cuts_spurious_retransmissions() {
    let both = [
        ("duration", "200s"),
        ("wlans.manet.routing.gratuitous_rrep", "true"),
        ("wlans.manet.routing.ack_piggyback", "true"),
    ];
    let (mut spurious_nr, mut spurious_s1, mut learned) = (0, 0, 0);
    for seed in 1..=3 {
        let nr = run(STRING, seed, &both);
        let mut s1_set = both.to_vec();
        s1_set.push(("tcp.extensions", "[\"ack_piggyback\"]"));
        let s1 = run(STRING, seed, &s1_set);
        assert_eq!(
            nr.summary.flows[0].acks_learned, 0,
            "routing alone moves no sender"
        );
        spurious_nr += nr.summary.flows[0].spurious_retransmissions;
        spurious_s1 += s1.summary.flows[0].spurious_retransmissions;
        learned += s1.summary.flows[0].acks_learned;
    }
    eprintln!(
        "3 × 200 s: spurious NewReno {spurious_nr}, S1 {spurious_s1}; {learned} ACKs learned"
    );
    assert!(learned > 0);
    assert!(spurious_s1 < spurious_nr);
}

/// The sender's half alone is refused before anything runs: it would learn nothing.
#[test]
fn ack_piggyback_without_the_routing_half_is_refused() {
    let ov = [(
        "tcp.extensions".to_string(),
        "[\"ack_piggyback\"]".to_string(),
    )];
    let Err(e) = api::run(STRING, Format::Toml, Some(1), &ov, None) else {
        panic!("accepted");
    };
    let msg = e.to_string();
    assert!(
        msg.contains("tcp.extensions") && msg.contains("ack_piggyback = true"),
        "{msg}"
    );
}
