//! M-TCP+ end to end over the 802.11 model: the feedback datagram, the FH's persist state, and
//! what happens when the predictor misses an outage.

use tcplab_core::api::{self, RunOutput};
use tcplab_core::scenario::Format;

use crate::common::FhBsMh;

const SCENARIO: &str = r#"
name = "mtcp_plus_e2e"
duration = "300s"
[tcp]
variant = "newreno"
rcv_buf = "8760B"
initial_window = 1
rto_initial = "3s"
rto_min = "1s"
rto_max = "64s"
clock_granularity = "500ms"
timer_tick = "500ms"
persist_min = "1s"
persist_max = "1s"
max_retransmissions = 6
[[nodes]]
name = "fh"
[[nodes]]
name = "ih"
[[nodes]]
name = "wh"
[[links]]
name = "ethernet"
a = "fh"
b = "ih"
rate = "100Mbps"
delay = "1ms"
[[wlans]]
name = "bss"
mode = "infrastructure"
phy = "hr_dsss"
rate = "5.5Mbps"
ap = "ih"
signals = { lead = "500ms" }
[[wlans.stations]]
node = "ih"
position = ["0m", "0m"]
[[wlans.stations]]
node = "wh"
position = ["50m", "0m"]
outage = { intervals = [["10s", "25s"]] }
[[agents]]
kind = "mtcp_plus"
node = "ih"
mobile = "wh"
[[flows]]
name = "ftp"
app = "bulk_download"
client = "wh"
server = "fh"
size = "20MB"
"#;

fn run(overrides: &[(&str, &str)]) -> RunOutput {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::run(SCENARIO, Format::Toml, Some(1), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn feedback_keeps_the_fh_in_persist_through_the_outage() {
    let out = run(&[]);
    let f = &out.summary.flows[0];
    let a = &out.summary.agents[0];
    assert!(f.completed && f.bytes_delivered == 20_000_000);
    assert_eq!(a.feedback_sent, 2, "going down, then up");
    assert_eq!(a.stats["disconnections"], 1);
    assert_eq!(f.timeouts, 0, "the FH never times out");
    assert!(
        f.window_probes >= 10,
        "it probes the zero window every second instead"
    );
}

#[test]
fn a_missed_prediction_leaves_the_fh_to_time_out() {
    let out = run(&[("wlans.bss.signals.miss_probability", "1.0")]);
    let f = &out.summary.flows[0];
    let a = &out.summary.agents[0];
    assert!(f.completed && f.bytes_delivered == 20_000_000);
    assert_eq!(a.feedback_sent, 1, "only the reconnection is reported");
    assert_eq!(a.stats["disconnections"], 0);
    assert!(
        f.timeouts > 0 && f.window_probes == 0,
        "plain NewReno behaviour: {} timeouts",
        f.timeouts
    );
    assert!(
        out.summary
            .link_signals
            .iter()
            .all(|s| s.kind != "going_down"),
        "no LINK_GOING_DOWN was published"
    );
}

/// M-TCP's supervisor host under random losses towards the mobile: every ACK it forwards stops
/// one byte short. When a timeout finds only that byte outstanding and the window is one
/// segment, the retransmission must carry new data with it (socket/timers.rs
/// `repacketized_end`); resending the byte alone stalled the download for good (seed 1: 157 kB
/// of 2 MB delivered in 120 s, the RTO backing off to 60 s; seeds 2 and 3 finish either way).
#[test]
fn mtcp_under_random_losses_does_not_stall_on_the_withheld_byte() {
    let scenario = FhBsMh::new("mtcp_lossy", "120s", "ftp", "2000000B")
        .ns2_options()
        .without_tcp("variant")
        .tcp("cc", "\"reno\"")
        .tcp("recovery", "\"newreno\"")
        .wired("queue = { kind = \"droptail\", packets = 50 }")
        .mobile("loss_at = \"packets\"")
        .mobile("loss = { model = \"bernoulli\", p = 0.02, direction = \"b_to_a\" }")
        .agent("mtcp")
        .build();
    for seed in 1..=3 {
        let out = api::run(&scenario, Format::Toml, Some(seed), &[], None).expect("valid scenario");
        let f = &out.summary.flows[0];
        assert!(
            f.completed,
            "seed {seed}: {} of 2000000 B delivered, {} timeouts",
            f.bytes_delivered, f.timeouts
        );
    }
}
