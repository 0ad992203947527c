//! Flow statistics (docs/trace.md) against hand-computed cases.

use tcplab_core::api::{self, RunOutput};
use tcplab_core::scenario::Format;

/// A CBR source a → b over one 10 Mb/s, 10 ms link that loses each packet a→b with p = 0.1:
/// 1000-B datagrams (1028 B with their UDP and IP headers) at 100 kb/s, one every
/// 1028 · 8 / 100 kb/s = 82.24 ms, so no packet ever waits in the queue.
const LOSSY_CBR: &str = r#"
    name = "lossy_cbr"
    duration = "40s"
    nodes = [{ name = "a" }, { name = "b" }]
    [[links]]
    name = "l"
    a = "a"
    b = "b"
    rate = "10Mbps"
    delay = "10ms"
    loss = { model = "bernoulli", p = 0.1, direction = "a_to_b" }
    [[flows]]
    name = "u"
    app = "cbr"
    src = "a"
    dst = "b"
    rate = "100kbps"
    packet_size = "1000B"
"#;

fn run(text: &str, seed: u64, overrides: &[(&str, &str)]) -> RunOutput {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::run(text, Format::Toml, Some(seed), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_cbr_flow_over_a_lossy_link_has_the_hand_computed_delay_and_delivery() {
    let out = run(LOSSY_CBR, 3, &[]);
    let c = &out.summary.cbr[0];
    let s = &c.stats;
    let link = &out.summary.links[0];
    assert_eq!(link.direction, "a->b");
    // Sent at 0, 82.24 ms, … up to 486 · 82.24 ms = 39.97 s: 487 datagrams of 1028 B.
    assert_eq!(s.packets_sent, c.sent);
    assert_eq!(s.packets_sent, 487);
    assert_eq!(s.ip_bytes_sent, 1028 * s.packets_sent);
    // Every lost packet is one the link's loss model took; the rest arrived (none in flight:
    // the last was sent more than 10.8 ms before the end).
    assert_eq!(s.packets_lost, link.drops_loss);
    assert_eq!(s.packets_received, c.received);
    assert_eq!(s.packets_in_flight, 0);
    assert_eq!(s.packets_received + s.packets_lost, s.packets_sent);
    let ratio = s.delivery_ratio.unwrap();
    assert_eq!(ratio, c.received as f64 / c.sent as f64);
    // Binomial(487, 0.9): sd = sqrt(487 · 0.09) ≈ 6.6 packets; 4 sd.
    assert!(
        (ratio * s.packets_sent as f64 - 0.9 * s.packets_sent as f64).abs() < 4.0 * 6.62,
        "delivery ratio {ratio}"
    );
    // Each one-way delay is 1028 · 8 / 10 Mb/s = 822.4 µs of serialisation + 10 ms of
    // propagation = 10.8224 ms; so are the mean, median, 95th percentile and maximum, and the
    // RFC 3550 jitter of equal transit times is 0.
    let d = 0.010_822_4;
    for (name, v) in [
        ("mean", s.delay_mean_s),
        ("median", s.delay_median_s),
        ("p95", s.delay_p95_s),
        ("max", s.delay_max_s),
    ] {
        let v = v.unwrap_or_else(|| panic!("{name}"));
        assert!((v - d).abs() < 1e-12, "{name} delay {v} s, expected {d} s");
    }
    assert_eq!(s.jitter_s, Some(0.0));
}

#[test]
fn queueing_spreads_the_delays_and_jitter_follows() {
    // 2 Mb/s of payload into a 1 Mb/s link: the queue (DropTail, 20 packets) fills, every
    // packet after the first waits, and the delays grow from 18.2 ms (8224 µs + 10 ms) to the
    // full queue's 20 × 8224 µs more.
    let out = run(
        LOSSY_CBR,
        3,
        &[
            ("links.l.rate", "1Mbps"),
            ("links.l.queue", "{ kind = \"droptail\", packets = 20 }"),
            ("links.l.loss.p", "0.0"),
            ("flows.u.rate", "2Mbps"),
            ("duration", "5s"),
        ],
    );
    let s = &out.summary.cbr[0].stats;
    let link = &out.summary.links[0];
    assert!(link.drops_queue > 0);
    assert_eq!(s.packets_lost, link.drops_queue);
    let tx = 1028.0 * 8.0 / 1e6;
    let min = 0.010 + tx;
    let (mean, med, p95, max) = (
        s.delay_mean_s.unwrap(),
        s.delay_median_s.unwrap(),
        s.delay_p95_s.unwrap(),
        s.delay_max_s.unwrap(),
    );
    assert!(min <= mean && mean <= med * 1.05 && med <= p95 && p95 <= max);
    // The longest wait: a full queue of 20 packets ahead, plus its own serialisation.
    assert!(max <= 0.010 + 21.0 * tx + 1e-9, "max {max}");
    assert!(max >= 0.010 + 19.0 * tx, "max {max}");
    // Once the queue is full every other datagram is dropped: those accepted were sent 2 × 4.112
    // ms apart and leave one serialisation (8.224 ms) apart, so their transit times are equal and
    // the RFC 3550 estimate, which grew while the queue filled, has decayed (by 15/16 per
    // arrival) to nothing.
    let j = s.jitter_s.unwrap();
    assert!(j < 1e-9, "steady-state jitter {j}");
}

#[test]
fn a_tcp_flow_reports_its_data_direction_and_its_rtt_samples() {
    let lossy = include_str!("../../../examples/wired_lossy.toml");
    let out = run(lossy, 1, &[("duration", "20s")]);
    let f = &out.summary.flows[0];
    let s = &f.stats;
    // Data segments lost in the network are packets of the data direction lost.
    assert!(s.packets_lost >= f.data_lost && f.data_lost > 0);
    let l = &out.summary.links;
    assert_eq!(l[2].direction, "router->client");
    assert_eq!(
        s.packets_lost,
        l[0].drops_queue + l[2].drops_loss + l[2].drops_queue
    );
    assert!(s.packets_sent >= f.segments_sent);
    assert!(f.reverse_packets_sent > 0 && f.reverse_packets_lost == 0);
    // Propagation alone is 1 + 20 ms each way.
    assert!(s.delay_mean_s.unwrap() > 0.021 && s.delay_max_s.unwrap() >= s.delay_p95_s.unwrap());
    assert!(f.rtt_samples > 100);
    assert!(f.rtt_min_s.unwrap() > 0.042 && f.rtt_mean_s.unwrap() < f.rtt_max_s.unwrap());
}

/// A CBR source a → b over a two-station WLAN where only b's reception of a's data frames
/// fails: ns-2's DSSS preset at a fixed 2 Mb/s, no RTS/CTS, no ARP, static routes, each data
/// frame a sends lost with p = 0.4 (`loss_at = "frames"`: every attempt, which the MAC
/// retries), short retry limit 3, and a contention window pinned to 1 (`cw_min = cw_max = 1`:
/// ns-2's backoff `Random::random() % cw` is then always 0 slots). 1000-B datagrams (1028 B
/// with their UDP and IP headers) at 100 kb/s from 1 s, one every 82.24 ms, so each finds the
/// medium idle for more than DIFS and the MAC done with the one before.
const LOSSY_WLAN_CBR: &str = r#"
    name = "lossy_wlan_cbr"
    duration = "40s"
    nodes = [{ name = "a" }, { name = "b" }]
    [[wlans]]
    name = "w"
    mode = "adhoc"
    phy = "ns2_dsss"
    rate = "2Mbps"
    arp = false
    rts_threshold = "2347B"
    cw_min = 1
    cw_max = 1
    short_retry_limit = 3
    stations = [
        { node = "a", position = ["0m", "0m"], loss_at = "frames", loss = { model = "bernoulli", p = 0.4, direction = "a_to_b" } },
        { node = "b", position = ["100m", "0m"] },
    ]
    [[flows]]
    name = "u"
    app = "cbr"
    src = "a"
    dst = "b"
    rate = "100kbps"
    packet_size = "1000B"
    start = "1s"
"#;

/// The hand computation (ns2_dsss constants, wifi/phy.rs):
/// - a data frame: PLCP 192 µs + (1028 + 34 B of ns-2's MAC header and FCS) · 8 / 2 Mb/s
///   = 192 + 4248 = 4440 µs; with the 1 µs propagation delay a datagram delivered at the
///   first attempt has a one-way delay of 4441 µs (sent at once: the medium is idle);
/// - a failed attempt costs that frame, the ACK timeout (SIFS 10 + PLCP 192 + a 14-B ACK at
///   1 Mb/s 112 + 4 µs = 318 µs) and DIFS (50 µs) before the next (backoff 0): 4808 µs;
/// - a datagram is lost when all 3 attempts fail: p³ = 0.064; one delivered after k failed
///   attempts has delay 4441 + 4808·k µs, k ∈ {0, 1, 2} with probabilities 0.6, 0.24, 0.096
///   (/ 0.936 among those delivered): mean 4441 + 4808 · 0.432/0.936 µs = 6.660 ms.
#[test]
fn a_cbr_flow_over_a_lossy_wlan_has_the_hand_computed_delay_and_delivery() {
    let out = run(LOSSY_WLAN_CBR, 1, &[]);
    let c = &out.summary.cbr[0];
    let s = &c.stats;
    let a = out.summary.wifi.iter().find(|w| w.node == "a").unwrap();
    // From 1 s, one every 82.24 ms: 1 + 474 · 0.08224 = 39.98 s is the last, 475 datagrams.
    assert_eq!(s.packets_sent, 475);
    assert_eq!(s.packets_sent, c.sent);
    assert_eq!(s.ip_bytes_sent, 1028 * 475);
    // Every datagram lost is one a's MAC gave up on after its 3 attempts, and nothing else:
    // the last one, even after two failures, arrives by 39.98 s + 14.06 ms.
    assert!(a.drops_retry_limit > 0);
    assert_eq!(s.packets_lost, a.drops_retry_limit);
    assert_eq!(s.ip_bytes_lost, 1028 * a.drops_retry_limit);
    assert_eq!(s.packets_in_flight, 0);
    assert_eq!(s.packets_received + s.packets_lost, s.packets_sent);
    assert_eq!(s.packets_received, c.received);
    // Each attempt is one data frame: 3 for a datagram lost, k + 1 for one delivered.
    assert_eq!(a.data_retries, a.frames_sent - s.packets_sent);
    // Delivery ratio 1 − 0.4³ = 0.936: Binomial(475, 0.064), sd = sqrt(475 · 0.064 · 0.936)
    // ≈ 5.33 datagrams; 4 sd.
    let ratio = s.delivery_ratio.unwrap();
    assert_eq!(ratio, s.packets_received as f64 / 475.0);
    assert!(
        (s.packets_lost as f64 - 0.064 * 475.0).abs() < 4.0 * 5.33,
        "{} lost",
        s.packets_lost
    );
    // The mean delay, exactly: every delivered datagram's 4441 µs, plus 4808 µs for each of its
    // failed attempts; those are the MAC's retransmissions less the two of each datagram lost.
    let (first, again) = (4_441e-6, 4_808e-6);
    let failed = a.data_retries - 2 * s.packets_lost;
    let mean = first + again * failed as f64 / s.packets_received as f64;
    let got = s.delay_mean_s.unwrap();
    assert!(
        (got - mean).abs() < 1e-12,
        "mean delay {got} s, expected {mean} s"
    );
    // … and near its expectation, 6.660 ms: k has sd ≈ 0.63 among those delivered, so the
    // mean's sd is 4808 µs · 0.63 / sqrt(445) ≈ 0.14 ms; 4 sd.
    let expected = first + again * 0.432 / 0.936;
    assert!(
        (got - expected).abs() < 4.0 * 0.000_144,
        "mean {got}, expected {expected}"
    );
    // Most arrive at the first attempt: the median is 4441 µs; the 95th percentile (above the
    // 0.897 of k ≤ 1) and the maximum are those of two failed attempts, 14.057 ms (the
    // histogram's median and 95th percentile are within 1.6 %).
    let (med, p95, max) = (
        s.delay_median_s.unwrap(),
        s.delay_p95_s.unwrap(),
        s.delay_max_s.unwrap(),
    );
    let two = first + 2.0 * again;
    assert!((med - first).abs() <= 0.016 * first, "median {med}");
    assert!((p95 - two).abs() <= 0.016 * two, "p95 {p95}");
    assert!((max - two).abs() < 1e-12, "max {max}");
    assert!(s.jitter_s.unwrap() > 0.0);
}
