//! Speed of the ad hoc network layer (`cargo bench -p tcplab-core --bench adhoc`): the 7-hop
//! string (examples/adhoc_string.toml, 600 s) and the 50-node random-waypoint network
//! (examples/adhoc_mobile.toml, 600 s, 3 flows), with AODV as the examples have it, with DSR and with DSDV.
//! One line per scenario: simulated time, events, wall time (best of 3, building included),
//! events/s, peak memory of the process.

use std::time::Instant;

mod peak_rss;

use peak_rss::peak_rss_kib;
use tcplab_core::api;
use tcplab_core::scenario::Format;

const STRING: &str = include_str!("../examples/adhoc_string.toml");
const MOBILE: &str = include_str!("../examples/adhoc_mobile.toml");

fn bench(label: &str, scenario: &str) {
    let mut best = f64::INFINITY;
    let (mut events, mut sim) = (0, 0.0);
    for _ in 0..3 {
        let t0 = Instant::now();
        let mut p = api::prepare(scenario, Format::Toml, Some(1), &[], None).expect("valid");
        while !p.step(u64::MAX).expect("runs") {}
        best = best.min(t0.elapsed().as_secs_f64());
        events = p.world.events;
        sim = p.world.now.as_secs_f64();
    }
    println!(
        "{label:>14}  sim {sim:7.1} s  events {events:>10}  wall {best:7.3} s (best of 3)  {:6.2} M events/s  peak RSS {:6.1} MiB",
        events as f64 / best / 1e6,
        peak_rss_kib() as f64 / 1024.0
    );
}

/// The scenario with the examples' AODV replaced by `routing`.
fn with_routing(text: &str, routing: &str) -> String {
    let old = r#"routing = { protocol = "aodv", preset = "ns2" }"#;
    assert!(text.contains(old));
    text.replace(old, &format!("routing = {routing}"))
}

fn main() {
    bench("adhoc_string", STRING);
    bench("adhoc_mobile", MOBILE);
    let dsr = r#"{ protocol = "dsr", preset = "ns2" }"#;
    bench("dsr_string", &with_routing(STRING, dsr));
    bench("dsr_mobile", &with_routing(MOBILE, dsr));
    let dsdv = r#"{ protocol = "dsdv", preset = "ns2" }"#;
    bench("dsdv_string", &with_routing(STRING, dsdv));
    bench("dsdv_mobile", &with_routing(MOBILE, dsdv));
}
