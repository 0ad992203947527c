//! System tests of the ad hoc routing protocols side by side: on the examples' 7-hop string
//! TCP delivers every byte with each protocol; under mobility each one repairs routes.

use tcplab_core::api::{self, NodeSummary, RunOutput};
use tcplab_core::scenario::Format;

const STRING: &str = include_str!("../../../examples/adhoc_string.toml");
const MOBILE: &str = include_str!("../../../examples/adhoc_mobile.toml");

/// The scenario with its routing table replaced.
fn with_routing(text: &str, routing: &str) -> String {
    let old = r#"routing = { protocol = "aodv", preset = "ns2" }"#;
    assert!(text.contains(old));
    text.replace(old, &format!("routing = {routing}"))
}

fn run(text: &str, seed: u64, overrides: &[(&str, &str)]) -> RunOutput {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::run(text, Format::Toml, Some(seed), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

fn total(out: &RunOutput, f: impl Fn(&NodeSummary) -> u64) -> u64 {
    out.summary.nodes.iter().map(f).sum()
}

fn report(label: &str, out: &RunOutput) {
    let f = &out.summary.flows;
    eprintln!(
        "{label}: {:?} B delivered, {:?} retransmissions, {} control packets ({} B), {} RREQ, {} RREP, {} RERR, {} link breaks",
        f.iter().map(|f| f.bytes_delivered).collect::<Vec<_>>(),
        f.iter().map(|f| f.retransmissions).collect::<Vec<_>>(),
        total(out, |n| n.stats.control_packets),
        total(out, |n| n.stats.control_bytes),
        total(out, |n| n.stats.route_requests),
        total(out, |n| n.stats.route_replies),
        total(out, |n| n.stats.route_errors),
        total(out, |n| n.stats.link_breaks),
    );
    eprintln!(
        "  drops: ttl {} no_route {} discovery_failed {} buffer_full {} buffer_timeout {} link_broken {}; discoveries {} ({} failed)",
        total(out, |n| n.drops_ttl),
        total(out, |n| n.drops_no_route),
        total(out, |n| n.drops_discovery_failed),
        total(out, |n| n.drops_buffer_full),
        total(out, |n| n.drops_buffer_timeout),
        total(out, |n| n.drops_link_broken),
        total(out, |n| n.stats.discoveries),
        total(out, |n| n.stats.discoveries_failed),
    );
}

/// A 1 MB download over the static 7-hop string completes, every byte once and in order (the
/// run's conservation oracle checks that), with each protocol and preset.
#[test]
fn every_protocol_delivers_every_byte_over_the_seven_hop_string() {
    for routing in [
        r#"{ protocol = "aodv", preset = "ns2" }"#,
        r#"{ protocol = "dsr", preset = "rfc4728" }"#,
        r#"{ protocol = "dsr", preset = "ns2" }"#,
        r#"{ protocol = "dsdv", preset = "ns2" }"#,
    ] {
        let text = with_routing(STRING, routing);
        let out = run(
            &text,
            1,
            &[
                ("duration", "300s"),
                ("flows.bulk.app", "bulk_download"),
                ("flows.bulk.size", "1MB"),
            ],
        );
        report(routing, &out);
        let f = &out.summary.flows[0];
        assert!(f.completed && !f.aborted, "{routing}: {f:?}");
        assert_eq!(f.bytes_delivered, 1_000_000, "{routing}");
        assert!(total(&out, |n| n.stats.control_packets) >= 1);
    }
}

/// Under random-waypoint mobility routes break (the MAC reports it, route errors go out) and
/// each on-demand protocol finds new ones: more discoveries than flows, and data keeps flowing. DSR
/// replying from its caches hands out stale routes here (docs/models/dsr.md): it still
/// repairs, but moves far less than without cache replies, where it matches AODV's volume.
#[test]
fn every_protocol_repairs_routes_under_mobility() {
    for (routing, at_least) in [
        (r#"{ protocol = "aodv", preset = "ns2" }"#, 500_000),
        (r#"{ protocol = "dsr", preset = "ns2" }"#, 1),
        (r#"{ protocol = "dsr", preset = "rfc4728" }"#, 1),
        (
            r#"{ protocol = "dsr", preset = "ns2", reply_from_cache = false }"#,
            500_000,
        ),
    ] {
        let text = with_routing(MOBILE, routing);
        let out = run(&text, 2, &[("duration", "120s")]);
        report(routing, &out);
        assert!(total(&out, |n| n.stats.link_breaks) >= 1, "{routing}");
        // The on-demand protocols report breaks and find routes again.
        assert!(total(&out, |n| n.stats.route_errors) >= 1, "{routing}");
        let flows = out.summary.flows.len() as u64;
        assert!(total(&out, |n| n.stats.discoveries) > flows, "{routing}");
        let moved: u64 = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
        assert!(moved >= at_least, "{routing}: {moved} B");
    }
}

/// DSDV with ns-2's constants under the same mobility, with 32 kb/s CBR in place of TCP:
/// TCP needs a working route both ways at once and over DSDV here it rarely connects (ns-2
/// notices a silent neighbour only after 45 s; ns-3's DSDV delivers 15 % of such CBR,
/// docs/validation/routing.md), so the repair is checked on datagrams: after its tables
/// converge, each flow gets packets through links that break.
#[test]
fn dsdv_repairs_routes_for_cbr_under_mobility() {
    let mut text = with_routing(MOBILE, r#"{ protocol = "dsdv", preset = "ns2" }"#);
    for i in 0..3 {
        let bulk = format!("app = \"bulk\"\nclient = \"r{i}\"\nserver = \"s{i}\"");
        let cbr = format!(
            "app = \"cbr\"\nsrc = \"s{i}\"\ndst = \"r{i}\"\nrate = \"32kbps\"\n\
             packet_size = \"512B\"\nstart = \"120s\""
        );
        assert!(text.contains(&bulk));
        text = text.replace(&bulk, &cbr);
    }
    let out = run(&text, 2, &[("duration", "420s")]);
    report("dsdv cbr", &out);
    assert!(total(&out, |n| n.stats.link_breaks) >= 100);
    for f in &out.summary.cbr {
        eprintln!("{}: {} of {} delivered", f.name, f.received, f.sent);
        assert!(
            f.received >= 100,
            "{}: {} of {}",
            f.name,
            f.received,
            f.sent
        );
    }
}

/// Bad routing tables are refused before the run, naming the field and what is allowed.
#[test]
fn routing_tables_are_checked_per_protocol() {
    let cases = [
        (
            r#"{ protocol = "dsr", preset = "rfc3561" }"#,
            [
                "wlans.manet.routing.preset",
                r#""rfc3561" is not a preset of protocol = "dsr"; allowed: "rfc4728", "ns2""#,
            ],
        ),
        (
            r#"{ protocol = "aodv", salvage = false }"#,
            [
                "wlans.manet.routing.salvage",
                r#"only used by protocol = "dsr""#,
            ],
        ),
        (
            r#"{ protocol = "dsr", update_interval = "10s" }"#,
            [
                "wlans.manet.routing.update_interval",
                r#"only used by protocol = "dsdv""#,
            ],
        ),
        (
            r#"{ protocol = "dsdv", update_interval = "0s" }"#,
            [
                "wlans.manet.routing.update_interval",
                "must be longer than 0 s",
            ],
        ),
        (
            r#"{ protocol = "olsr" }"#,
            [
                "wlans.manet.routing.protocol",
                "allowed: static, aodv, dsr, dsdv",
            ],
        ),
    ];
    for (routing, needles) in cases {
        let text = with_routing(STRING, routing);
        let e = api::run(&text, Format::Toml, Some(1), &[], None)
            .err()
            .unwrap_or_else(|| panic!("{routing} accepted"))
            .to_string();
        for n in needles {
            assert!(e.contains(n), "{routing}: {n:?} not in {e}");
        }
    }
}

/// TCP-pgy S1 over DSR: with both halves on, the sender's TCP learns the receiver's ACKs from
/// its route requests and replies; the sender's half alone is refused, and so is the routing
/// half on DSDV (no requests or replies to carry it).
#[test]
fn ack_piggyback_over_dsr_and_where_it_is_refused() {
    let dsr = with_routing(
        STRING,
        r#"{ protocol = "dsr", preset = "ns2", ack_piggyback = true }"#,
    );
    let s1 = [("tcp.extensions", r#"["ack_piggyback"]"#)];
    let out = run(&dsr, 1, &s1);
    report("DSR, S1", &out);
    let f = &out.summary.flows[0];
    assert!(f.acks_learned > 0, "{} ACKs learned", f.acks_learned);
    let refused = |text: &str, needles: [&str; 2]| {
        let ov = [(s1[0].0.to_string(), s1[0].1.to_string())];
        let e = api::run(text, Format::Toml, Some(1), &ov, None)
            .err()
            .expect("refused")
            .to_string();
        for n in needles {
            assert!(e.contains(n), "{n:?} not in {e}");
        }
    };
    refused(
        &with_routing(STRING, r#"{ protocol = "dsr" }"#),
        ["tcp.extensions", r#"(protocol = "aodv" or "dsr")"#],
    );
    refused(
        &with_routing(STRING, r#"{ protocol = "dsdv", ack_piggyback = true }"#),
        [
            "wlans.manet.routing.ack_piggyback",
            r#"only used by protocol = "aodv" or protocol = "dsr""#,
        ],
    );
}
