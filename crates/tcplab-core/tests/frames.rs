//! The optional per-frame 802.11 trace agrees with the MAC's counters.

use tcplab_core::api;
use tcplab_core::scenario::Format;

const WLAN: &str = include_str!("../../../examples/wlan_download.toml");

#[test]
fn frame_trace_matches_the_counters() {
    let ov: Vec<(String, String)> = [
        ("flows.download.size", "2MB"),
        ("trace.frames", "true"),
        (
            "wlans.bss.stations.1.loss",
            "{ model = \"bernoulli\", p = 0.05 }",
        ),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let out = api::run(WLAN, Format::Toml, Some(3), &ov, None).unwrap_or_else(|e| panic!("{e}"));
    let f = &out.frames;
    let count = |node: &str, ev: &str| {
        f.node
            .iter()
            .zip(&f.event)
            .filter(|(n, e)| n.as_str() == node && **e == ev)
            .count() as u64
    };
    assert!(!f.t_s.is_empty());
    assert!(
        f.t_s.windows(2).all(|w| w[0] <= w[1]),
        "records in time order"
    );
    for w in &out.summary.wifi {
        assert_eq!(
            count(&w.node, "tx"),
            w.frames_sent + w.control_frames_sent,
            "{}: transmissions",
            w.node
        );
        assert_eq!(
            count(&w.node, "rx_error"),
            w.frame_errors,
            "{}: frame errors",
            w.node
        );
    }
    assert!(
        count("sta", "rx_error") > 0,
        "the error model shows in the trace"
    );
    let retries = f
        .retry
        .iter()
        .zip(&f.event)
        .filter(|(r, e)| **r && **e == "tx")
        .count() as u64;
    assert_eq!(
        retries,
        out.summary.wifi.iter().map(|w| w.retries).sum::<u64>(),
        "retransmitted frames"
    );
}
