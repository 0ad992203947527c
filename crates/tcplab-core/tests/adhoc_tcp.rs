//! System tests of the ad hoc TCP extensions in the world: the cross-layer notices reach them
//! (AODV's route failure, ICMP unreachable, a WLAN's predicted outage) and RED marks on a WLAN.

use tcplab_core::api::{self, FlowSummary, RunOutput};
use tcplab_core::scenario::Format;

/// One 802.11b hop with AODV: the receiver `r` is 20 m from the sender `s` and its radio is off
/// from 10 s to 40 s, announced 1 s ahead (enough for the data in flight and the receiver's
/// delayed ACK: Freeze-TCP's warning period).
const HOP: &str = r#"
name = "hop"
duration = "200s"

[tcp]
mss = 1448
rcv_buf = "65160B"
ecn = true
rto_min = "200ms"

[[nodes]]
name = "s"
[[nodes]]
name = "r"

[[wlans]]
name = "manet"
mode = "adhoc"
phy = "hr_dsss"
propagation = { model = "two_ray_ground" }
routing = { protocol = "aodv", preset = "rfc3561", active_route_timeout = "15s" }
signals = { lead = "1s" }
red = { min_th = 44, max_th = 45, w_q = 1.0, mark_at_max_th = true }

[[wlans.stations]]
node = "s"
position = ["0m", "0m"]
[[wlans.stations]]
node = "r"
position = ["20m", "0m"]
outage = { intervals = [["10s", "40s"]] }

[[flows]]
name = "file"
app = "bulk_download"
size = "20MB"
client = "r"
server = "s"
"#;

fn run(exts: &str, extra: &[(&str, &str)]) -> RunOutput {
    let mut ov: Vec<(String, String)> = vec![("tcp.extensions".into(), exts.into())];
    ov.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    api::run(HOP, Format::Toml, Some(1), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

fn flow(o: &RunOutput) -> &FlowSummary {
    &o.summary.flows[0]
}

#[test]
fn freeze_tcp_hears_the_predicted_outage_and_keeps_the_sender_from_timing_out() {
    let plain = run("[]", &[]);
    let freeze = run(r#"["freeze"]"#, &[]);
    let (p, f) = (flow(&plain), flow(&freeze));
    eprintln!("outage 30 s: plain {p:?}\nfreeze {f:?}");
    assert!(p.completed && f.completed);
    assert_eq!(f.bytes_delivered, 20_000_000);
    // The zero window puts the sender in persist: probes instead of retransmission timeouts.
    assert!(p.timeouts > 0);
    assert!(f.window_probes > 0);
    assert!(f.timeouts < p.timeouts);
}

#[test]
fn elfn_and_tcp_f_hear_aodvs_route_failure() {
    let plain = run("[]", &[]);
    let p = flow(&plain);
    // ELFN: stand-by with probes while the route is down, instead of the backed-off timeouts.
    let o = run(r#"["elfn"]"#, &[]);
    let f = flow(&o);
    eprintln!("plain {p:?}\nelfn {f:?}");
    assert!(f.completed && f.bytes_delivered == 20_000_000);
    assert!(f.timeouts < p.timeouts);
    // TCP-F: snoozes on the route failure (10.1 s). Nothing it sends triggers a discovery, so no
    // RRN comes and only the route-failure timer (60 s here) wakes it: it cannot finish before
    // 70 s, while the plain sender finishes soon after the outage ends at 40 s.
    let o = run(
        r#"["tcp_f"]"#,
        &[("tcp.tcp_f", r#"{ failure_timer = "60s" }"#)],
    );
    let f = flow(&o);
    eprintln!("tcp_f {f:?}");
    assert!(f.completed && f.bytes_delivered == 20_000_000);
    assert!(p.response_time_s.unwrap() < 70.0);
    assert!(f.response_time_s.unwrap() > 70.0);
}

#[test]
fn atcp_disconnects_on_icmp_and_probes() {
    let o = run(r#"["atcp"]"#, &[]);
    let f = flow(&o);
    eprintln!("atcp: {f:?}");
    assert!(f.completed && f.bytes_delivered == 20_000_000);
    // The failed discovery's ICMP host unreachable reached the sender's socket: ATCP probes.
    let s = o
        .summary
        .nodes
        .iter()
        .find(|n| n.node == "s")
        .expect("sender");
    assert!(s.icmp_received > 0);
    assert!(f.window_probes > 0);
}

#[test]
fn red_marks_on_the_wlan_and_the_sender_reacts() {
    // max_th 5: a single flow's own queue at the sender reaches it.
    let o = run(
        "[]",
        &[
            (
                "wlans.manet.red",
                "{ min_th = 4, max_th = 5, w_q = 1.0, mark_at_max_th = true }",
            ),
            ("wlans.manet.stations.1.outage", "{}"),
        ],
    );
    let s = o
        .summary
        .wifi
        .iter()
        .find(|w| w.node == "s")
        .expect("sender station");
    eprintln!("{s:?}");
    assert!(s.ecn_marks > 0);
    assert_eq!(
        s.drops_red, 0,
        "ECN-capable packets are marked, not dropped"
    );
    assert!(flow(&o).completed);
}

#[test]
fn bad_red_and_extension_fields_are_named() {
    let err = api::run(
        HOP,
        Format::Toml,
        Some(1),
        &[
            (
                "wlans.manet.red".into(),
                "{ min_th = 9, max_th = 5 }".into(),
            ),
            ("tcp.elfn".into(), r#"{ probe_interval = "0s" }"#.into()),
        ],
        None,
    )
    .err()
    .expect("refused")
    .to_string();
    assert!(err.contains("wlans.manet.red.min_th"), "{err}");
    assert!(err.contains("tcp.elfn.probe_interval"), "{err}");
}
