//! Series beyond TCP (`trace.series`: queues, stations, routing; trace/netseries.rs) against
//! hand-counted cases, and their totals against the summary's counters.

use std::collections::{BTreeMap, BTreeSet};

use tcplab_core::api::{self, RunOutput, SeriesColumns};
use tcplab_core::scenario::Format;
use tcplab_core::trace::NetSeriesKind;

fn run(text: &str, overrides: &[(&str, &str)]) -> RunOutput {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::run(text, Format::Toml, Some(1), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

/// (t_s, value) of series `name` at `at`.
fn points(s: &SeriesColumns, name: &str, at: &str) -> Vec<(f64, f64)> {
    (0..s.t_s.len())
        .filter(|&i| s.series[i] == name && s.at[i].as_deref() == Some(at))
        .map(|i| (s.t_s[i], s.value[i]))
        .collect()
}

/// The total a series stands for: its counts added up, or for a bit rate the bytes (value ·
/// interval / 8).
fn total(s: &SeriesColumns, name: &str, at: &str) -> f64 {
    let mut prev = 0.0;
    let mut sum = 0.0;
    for (t, v) in points(s, name, at) {
        sum += if name == "throughput_bps" {
            v * (t - prev) / 8.0
        } else {
            v
        };
        prev = t;
    }
    sum
}

/// Every series asked for is recorded for every element it applies to, at the same instants,
/// and each counter's series adds up to the summary's counter; returns how many (series,
/// element) pairs were checked.
fn check_against_summary(out: &RunOutput, kinds: &[NetSeriesKind]) -> usize {
    let s = &out.series;
    let sum = &out.summary;
    let mut expected: BTreeMap<(String, String), f64> = BTreeMap::new();
    for k in kinds {
        let name = k.name().to_string();
        for l in &sum.links {
            let at = format!("{}:{}", l.name, l.direction);
            match k {
                NetSeriesKind::QueueDrops => {
                    expected.insert((name.clone(), at), l.drops_queue as f64)
                }
                NetSeriesKind::Throughput => {
                    expected.insert((name.clone(), at), l.bytes_sent as f64)
                }
                NetSeriesKind::QueueLen => expected.insert((name.clone(), at), f64::NAN),
                _ => None,
            };
        }
        for w in &sum.wifi {
            let at = format!("{}:{}", w.wlan, w.node);
            let v = match k {
                NetSeriesKind::QueueLen => Some(f64::NAN),
                NetSeriesKind::QueueDrops => Some(w.drops_queue as f64),
                NetSeriesKind::Throughput => Some(w.bytes_sent as f64),
                NetSeriesKind::MacRetries => Some(w.retries as f64),
                NetSeriesKind::MacDrops => Some(w.drops_retry_limit as f64),
                _ => None,
            };
            if let Some(v) = v {
                expected.insert((name.clone(), at), v);
            }
        }
    }
    // Nodes with nothing to report are left out of the summary: their counters are zero.
    let node_names: BTreeSet<String> = s.at.iter().flatten().cloned().collect();
    for k in kinds {
        for node in &node_names {
            if node.contains(':') {
                continue;
            }
            let n = sum.nodes.iter().find(|n| &n.node == node);
            let v = match k {
                NetSeriesKind::RoutingPackets => n.map_or(0, |n| n.stats.control_packets),
                NetSeriesKind::Rreq => n.map_or(0, |n| n.stats.route_requests),
                NetSeriesKind::Rrep => n.map_or(0, |n| n.stats.route_replies),
                NetSeriesKind::Rerr => n.map_or(0, |n| n.stats.route_errors),
                NetSeriesKind::RouteChanges => n.map_or(0, |n| n.route_changes),
                _ => continue,
            };
            expected.insert((k.name().to_string(), node.clone()), v as f64);
        }
    }
    let recorded: BTreeSet<(String, String)> = (0..s.t_s.len())
        .filter_map(|i| s.at[i].clone().map(|a| (s.series[i].clone(), a)))
        .collect();
    let wanted: BTreeSet<(String, String)> = expected.keys().cloned().collect();
    assert_eq!(recorded, wanted, "series recorded vs series asked for");
    let mut instants: Option<Vec<f64>> = None;
    for ((name, at), want) in &expected {
        let t: Vec<f64> = points(s, name, at).iter().map(|p| p.0).collect();
        assert_eq!(
            *t.last().unwrap(),
            sum.sim_time_s,
            "{name} {at} ends with the run"
        );
        match &instants {
            None => instants = Some(t),
            Some(i) => assert_eq!(i, &t, "{name} {at}: sampled at the same instants"),
        }
        if want.is_nan() {
            continue;
        }
        let got = total(s, name, at);
        assert!(
            (got - want).abs() <= 1e-6 * want.max(1.0),
            "{name} at {at}: series total {got}, summary {want}"
        );
    }
    expected.len()
}

/// A 1028-B packet every 5 ms (CBR, 1000 B of payload, from 1 ms) into a link that sends one
/// every 10 ms (822.4 kb/s): the queue grows by 100 packets a second until its 250 packets are
/// full, then drops 100 a second.
const QUEUE_FILL: &str = include_str!("../../../tests/fixtures/queue_fill.toml");

#[test]
fn a_queue_filled_at_a_known_rate() {
    let out = run(QUEUE_FILL, &[]);
    let s = &out.series;
    // Arrivals at 1 + 5j ms, transmissions start at 1 + 10k ms: at k seconds 200k packets have
    // arrived and 100k started, so 100k wait; the queue holds 250 at most.
    let len: Vec<(f64, f64)> = points(s, "queue_len", "l:a->b");
    assert_eq!(
        len,
        vec![
            (1.0, 100.0),
            (2.0, 200.0),
            (3.0, 250.0),
            (4.0, 250.0),
            (5.0, 250.0)
        ]
    );
    // Full after the 250th waiting packet (2.5 s): 50 drops in the third second, 100 after.
    let drops = points(s, "queue_drops", "l:a->b");
    assert_eq!(
        drops,
        vec![
            (1.0, 0.0),
            (2.0, 0.0),
            (3.0, 50.0),
            (4.0, 100.0),
            (5.0, 100.0)
        ]
    );
    // 100 transmissions of 1028 B a second: the link's rate.
    for (t, v) in points(s, "throughput_bps", "l:a->b") {
        assert_eq!(v, 822_400.0, "at {t} s");
    }
    // The reverse direction carries nothing.
    assert!(points(s, "queue_len", "l:b->a").iter().all(|p| p.1 == 0.0));
    let checked = check_against_summary(
        &out,
        &[
            NetSeriesKind::QueueLen,
            NetSeriesKind::QueueDrops,
            NetSeriesKind::Throughput,
        ],
    );
    assert_eq!(checked, 6);
    // Not asked for: no TCP, station or routing series.
    assert!(s.flow.iter().all(Option::is_none));
    assert!(s
        .series
        .iter()
        .all(|n| n.starts_with("queue") || n == "throughput_bps"));
}

#[test]
fn the_sampling_interval_is_trace_interval_and_the_last_one_ends_with_the_run() {
    let out = run(
        QUEUE_FILL,
        &[("trace.interval", "400ms"), ("duration", "1.1s")],
    );
    let len = points(&out.series, "queue_len", "l:a->b");
    let t: Vec<f64> = len.iter().map(|p| p.0).collect();
    assert_eq!(t, vec![0.4, 0.8, 1.1]);
    // At 400 ms: 80 arrivals (1, 6, …, 396 ms), 40 started (1, 11, …, 391 ms).
    assert_eq!(len[0].1, 40.0);
    let kinds = [
        NetSeriesKind::QueueLen,
        NetSeriesKind::QueueDrops,
        NetSeriesKind::Throughput,
    ];
    check_against_summary(&out, &kinds);
}

/// One CBR datagram a second (100 B + 28 B of headers at 1024 b/s, from 0.5 s) from station a to
/// b 100 m away, every data frame a sends lost (FER 1), short retry limit 4: each MSDU is sent 4
/// times (3 retries) and dropped.
const LOST_FRAMES: &str = include_str!("../../../tests/fixtures/lost_frames.toml");

#[test]
fn mac_retries_and_drops_of_frames_that_never_arrive() {
    let out = run(LOST_FRAMES, &[]);
    let s = &out.series;
    let retries = points(s, "mac_retries", "w:a");
    let drops = points(s, "mac_drops", "w:a");
    assert_eq!(retries.len(), 10);
    for k in 0..10 {
        assert_eq!(retries[k], ((k + 1) as f64, 3.0), "retries");
        assert_eq!(drops[k], ((k + 1) as f64, 1.0), "drops");
    }
    // Each second four attempts of one frame of the same size.
    let tput = points(s, "throughput_bps", "w:a");
    let w = out.summary.wifi.iter().find(|w| w.node == "a").unwrap();
    assert_eq!(w.frames_sent, 40);
    let per_frame = w.bytes_sent / w.frames_sent;
    for (t, v) in tput {
        assert_eq!(v, (4 * per_frame * 8) as f64, "at {t} s");
    }
    assert!(points(s, "mac_retries", "w:b").iter().all(|p| p.1 == 0.0));
    let checked = check_against_summary(
        &out,
        &[
            NetSeriesKind::Throughput,
            NetSeriesKind::MacRetries,
            NetSeriesKind::MacDrops,
        ],
    );
    assert_eq!(checked, 6);
}

/// A 2-hop AODV string (ns-2.35 constants) n0 – n1 – n2, 200 m apart, CBR n0 → n2 at 4 packets
/// a second; the relay walks north at 20 m/s from 20 s, is out of range of both from 27.5 s
/// (150 m north: 250 m from each end) and back at 52.5 s; the run ends at 70 s.
const TWO_HOP_BREAK: &str = r#"
    name = "two_hop_break"
    duration = "70s"
    nodes = [{ name = "n0" }, { name = "n1" }, { name = "n2" }]
    [[wlans]]
    name = "manet"
    mode = "adhoc"
    phy = "ns2_dsss"
    rate = "2Mbps"
    propagation = { model = "two_ray_ground" }
    routing = { protocol = "aodv", preset = "ns2" }
    [[wlans.stations]]
    node = "n0"
    position = ["0m", "0m"]
    [[wlans.stations]]
    node = "n1"
    position = ["200m", "0m"]
    mobility = { model = "waypoints", points = [["20s", "200m", "0m"], ["40s", "200m", "400m"], ["60s", "200m", "0m"]] }
    [[wlans.stations]]
    node = "n2"
    position = ["400m", "0m"]
    [[flows]]
    name = "u"
    app = "cbr"
    src = "n0"
    dst = "n2"
    rate = "2048bps"
    packet_size = "36B"
    start = "500ms"
    [trace]
    series = ["routing"]
"#;

#[test]
fn route_requests_errors_and_changes_of_a_2_hop_string_with_a_break() {
    let out = run(TWO_HOP_BREAK, &[]);
    let s = &out.series;
    let at = |name: &str, node: &str, t: f64| -> f64 {
        points(s, name, node)
            .iter()
            .find(|p| p.0 == t)
            .map_or(f64::NAN, |p| p.1)
    };
    // The first packet (0.5 s) starts a discovery: n0's RREQ, rebroadcast once by n1; n2
    // answers with an RREP that n1 forwards. The route comes up: one route change at n0.
    assert_eq!(at("rreq", "n0", 1.0), 1.0);
    assert_eq!(at("rreq", "n1", 1.0), 1.0);
    assert_eq!(at("rrep", "n2", 1.0), 1.0);
    assert_eq!(at("rrep", "n1", 1.0), 1.0);
    assert_eq!(at("route_changes", "n0", 1.0), 1.0);
    // The route is lost once and restored once after the break, at the source only.
    let changes = points(s, "route_changes", "n0");
    let when: Vec<f64> = changes.iter().filter(|p| p.1 > 0.0).map(|p| p.0).collect();
    assert_eq!(changes.iter().map(|p| p.1).sum::<f64>(), 3.0, "{changes:?}");
    assert_eq!(when.len(), 3, "{when:?}");
    assert!(when[1] > 27.5 && when[1] < 35.0, "lost at {}", when[1]);
    // Restored by the first discovery after the relay is back (52.5 s): when that is follows
    // AODV's retry backoff from the failed discoveries (57 s with ARP off, 61 s with ns2_dsss's
    // ARP on, whose frames shift the MAC's draws), so the bound is the relay's return and the end.
    assert!(when[2] > 52.5 && when[2] < 70.0, "restored at {}", when[2]);
    assert_eq!(total(s, "route_changes", "n1"), 0.0);
    assert_eq!(total(s, "route_changes", "n2"), 0.0);
    // While the relay is away n0 looks for a route: more requests, and a route error.
    let rreq_away: f64 = points(s, "rreq", "n0")
        .iter()
        .filter(|p| p.0 > 28.0 && p.0 <= 53.0)
        .map(|p| p.1)
        .sum();
    assert!(
        rreq_away >= 2.0,
        "{rreq_away} requests while the relay was away"
    );
    let rerr: f64 = ["n0", "n1", "n2"].iter().map(|n| total(s, "rerr", n)).sum();
    assert!(rerr >= 1.0, "no route error");
    let checked = check_against_summary(
        &out,
        &[
            NetSeriesKind::RoutingPackets,
            NetSeriesKind::Rreq,
            NetSeriesKind::Rrep,
            NetSeriesKind::Rerr,
            NetSeriesKind::RouteChanges,
        ],
    );
    assert_eq!(checked, 15);
}

/// `all` records every family: on a wired link and on an ad hoc WLAN with routing, every series
/// for every element it applies to, each adding up to its counter. Fails when one family is not
/// recorded.
#[test]
fn all_records_every_family() {
    let all = [("trace.series", r#"["all"]"#)];
    let wired = run(QUEUE_FILL, &all);
    let manet = run(TWO_HOP_BREAK, &[all[0], ("duration", "30s")]);
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for out in [&wired, &manet] {
        names.extend(out.series.series.iter().map(String::as_str));
    }
    for k in NetSeriesKind::ALL {
        assert!(names.contains(k.name()), "{} not recorded", k.name());
    }
    // Two link directions × 3 interface series, two nodes × 5 routing series.
    assert_eq!(
        check_against_summary(&wired, &NetSeriesKind::ALL),
        2 * 3 + 2 * 5
    );
    // Three stations × 5 series, three nodes × 5.
    assert_eq!(
        check_against_summary(&manet, &NetSeriesKind::ALL),
        3 * 5 + 3 * 5
    );
    // And the TCP series are asked for too (none here: no TCP flow).
    assert!(wired.series.flow.iter().all(Option::is_none));
}

#[test]
fn without_series_nothing_is_sampled_and_the_summary_is_the_same() {
    let plain = run(QUEUE_FILL, &[("trace.series", "[]")]);
    let traced = run(QUEUE_FILL, &[]);
    assert!(plain.series.t_s.is_empty());
    let mut a = plain.summary.clone();
    let mut b = traced.summary.clone();
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    assert_eq!(a, b, "sampling changed the run");
}
