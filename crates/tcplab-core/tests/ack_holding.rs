//! Integration tests of seed 001's base-station ACK holder on shortened versions of the
//! experiment's scenario (examples/ack_holding.toml): FH –10 Mb/s, 50 ms– BS –ns-2 802.11
//! 2 Mb/s– MH, TCP Reno with timestamps and ns-2-like parameters, a 1 MB download during which
//! the mobile is unreachable from 3 s to 9 s.

use tcplab_core::api::{self, RunOutput};
use tcplab_core::scenario::Format;

use crate::common::FhBsMh;

const SIZE: u64 = 1_000_000;
const DOWN: (f64, f64) = (3.0, 9.0);
const LEAD: f64 = 0.25;

fn scenario(holder: bool, duration_factor: f64, outages: &[(f64, f64)]) -> String {
    let iv: Vec<String> = outages
        .iter()
        .map(|(a, b)| format!("[\"{a}s\", \"{b}s\"]"))
        .collect();
    let s = FhBsMh::new("ack_holding_short", "60s", "dl", &format!("{SIZE}B"))
        .ns2_options()
        .cell(&format!(
            "signals = {{ lead = \"{LEAD}s\", duration_factor = {duration_factor} }}"
        ))
        .mobile(&format!("outage = {{ intervals = [{}] }}", iv.join(", ")))
        .flow("request = \"1B\"")
        .tables("[trace]\nseries = [\"cwnd\", \"ssthresh\", \"rto\"]\n");
    if holder { s.agent("ack_holder") } else { s }.build()
}

fn run(toml: &str, seed: u64) -> RunOutput {
    match api::run(toml, Format::Toml, Some(seed), &[], None) {
        Ok(o) => o,
        Err(e) => panic!("{e}\n{toml}"),
    }
}

/// The (t, value) points of one series.
fn series(o: &RunOutput, name: &str) -> Vec<(f64, f64)> {
    let s = &o.series;
    (0..s.t_s.len())
        .filter(|&i| s.series[i] == name)
        .map(|i| (s.t_s[i], s.value[i]))
        .collect()
}

/// The value of a series in force at time t (the last sample at or before t).
fn at(points: &[(f64, f64)], t: f64) -> f64 {
    points
        .iter()
        .take_while(|p| p.0 <= t)
        .last()
        .map(|p| p.1)
        .expect("a sample before t")
}

fn holder_stats(o: &RunOutput) -> serde_json::Value {
    o.summary.agents[0].stats.clone()
}

#[test]
fn exact_predictor_keeps_the_fh_from_timing_out_and_from_slow_start() {
    for seed in 1..=3 {
        let o = run(&scenario(true, 1.0, &[DOWN]), seed);
        let f = &o.summary.flows[0];
        let st = holder_stats(&o);
        assert_eq!(f.timeouts, 0, "seed {seed}: FH timed out; holder {st}");
        assert_eq!(f.retransmissions, 0, "seed {seed}: {f:?}");
        assert!(st["acks_released"].as_u64().unwrap() >= 10, "{st}");
        assert_eq!(st["infeasible_schedules"], 0, "{st}");
        let cwnd = series(&o, "cwnd");
        let ssthresh = series(&o, "ssthresh");
        let before = at(&cwnd, DOWN.0 - LEAD);
        // cwnd never falls during or after the outage (no slow start), and neither does ssthresh.
        let min_after = cwnd
            .iter()
            .filter(|p| p.0 >= DOWN.0 - LEAD)
            .map(|p| p.1)
            .fold(f64::INFINITY, f64::min);
        assert!(
            min_after >= before,
            "seed {seed}: cwnd fell to {min_after} from {before}"
        );
        assert!(at(&cwnd, DOWN.1 + 1.0) >= before);
        assert_eq!(at(&ssthresh, DOWN.1 + 1.0), at(&ssthresh, DOWN.0 - LEAD));
    }
}

#[test]
fn plain_reno_times_out_and_restarts_from_one_segment() {
    let o = run(&scenario(false, 1.0, &[DOWN]), 1);
    let f = &o.summary.flows[0];
    assert!(f.timeouts >= 1, "{f:?}");
    let cwnd = series(&o, "cwnd");
    let before = at(&cwnd, DOWN.0 - LEAD);
    assert!(before > 5_000.0);
    // During the outage cwnd is one segment.
    assert_eq!(at(&cwnd, (DOWN.0 + DOWN.1) / 2.0), 1000.0);
    // And right after the first successful retransmission after the outage it starts from one.
    let first_after = cwnd
        .iter()
        .find(|p| p.0 > DOWN.1)
        .expect("cwnd moves after the outage");
    assert!(first_after.1 <= 2000.0, "{first_after:?}");
}

#[test]
fn no_application_byte_lost_or_duplicated_at_the_mobile() {
    for (holder, factor, outages) in [
        (true, 1.0, vec![DOWN]),
        (true, 0.5, vec![DOWN]),
        (true, 2.0, vec![DOWN]),
        (true, 1.0, vec![(2.0, 5.0), (6.0, 9.0)]),
        (false, 1.0, vec![DOWN]),
    ] {
        let o = run(&scenario(holder, factor, &outages), 2);
        let f = &o.summary.flows[0];
        assert!(f.completed && !f.aborted, "{holder} {factor}: {f:?}");
        assert_eq!(
            f.bytes_delivered, SIZE,
            "holder {holder}, factor {factor}: bytes delivered in order"
        );
        if holder && factor >= 1.0 {
            // With an exact or high estimate nothing reaches the mobile twice.
            assert_eq!(f.spurious_retransmissions, 0, "{factor}: {f:?}");
        }
    }
}

#[test]
fn holding_finishes_the_download_sooner_than_plain_reno() {
    let h = run(&scenario(true, 1.0, &[DOWN]), 1);
    let r = run(&scenario(false, 1.0, &[DOWN]), 1);
    let th = h.summary.flows[0].response_time_s.unwrap();
    let tr = r.summary.flows[0].response_time_s.unwrap();
    assert!(th < tr, "holding {th} s vs Reno {tr} s");
}

#[test]
fn fh_rto_recovers_after_the_outage() {
    // The mobile's ACKs for data delivered from the cache echo old TSvals; the holder advances
    // them by the cache dwell time so that the FH's RTO returns to the path's value. Read the
    // RTO from LINK_UP on, while those ACKs arrive: with the dwell time not added it peaks at
    // 13.5 s there (seed 1, checked by removing the fix) before falling back.
    for seed in 1..=3 {
        let o = run(&scenario(true, 1.0, &[DOWN]), seed);
        let peak = series(&o, "rto")
            .iter()
            .filter(|p| p.0 >= DOWN.1 && p.0 <= DOWN.1 + 1.5)
            .map(|p| p.1)
            .fold(0.0, f64::max);
        eprintln!("seed {seed}: FH RTO peak {peak:.3} s in the 1.5 s after the outage");
        // Measured 0.40-0.46 s (seeds 1-3); the bound leaves 0.14 s above that, and stays far
        // below the 13.5 s the echo of the outage gives.
        assert!(
            peak < 0.6,
            "seed {seed}: FH RTO peaks at {peak} s after the outage"
        );
    }
}
