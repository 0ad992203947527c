//! Speed and memory of the event loop on the wired bottleneck download
//! (`cargo bench -p tcplab-core --bench core`).
//!
//! Each size runs in a child process so that its peak resident memory (VmHWM) is its own; the
//! parent prints one line per run: file size, simulated time, events, wall time, events/s and
//! peak memory. Memory must not grow with the file size: nothing per byte or per packet is kept
//! unless a trace asks for it.

use std::process::Command;
use std::time::Instant;

mod peak_rss;

use peak_rss::peak_rss_kib;
use tcplab_core::api;
use tcplab_core::scenario::Format;

const SCENARIO: &str = include_str!("../examples/wired_bottleneck.toml");
/// SACK recovery with hundreds to thousands of holes per window (scoreboard, pipe, NextSeg).
const HOLES: &str = include_str!("scenarios/sack_holes.toml");

fn child(scenario: &str, label: &str, ov: Vec<(String, String)>, reps: usize) {
    let mut best = f64::INFINITY;
    let mut events = 0;
    let mut sim = 0.0;
    for _ in 0..reps {
        let t0 = Instant::now();
        let mut p =
            api::prepare(scenario, Format::Toml, Some(1), &ov, None).expect("valid scenario");
        while !p.step(u64::MAX).expect("runs") {}
        let wall = t0.elapsed().as_secs_f64();
        events = p.world.events;
        sim = p.world.now.as_secs_f64();
        best = best.min(wall);
    }
    println!(
        "{label:>10}  sim {sim:8.2} s  events {events:>10}  wall {best:7.4} s (best of {reps})  {:6.2} M events/s  peak RSS {:6.1} MiB",
        events as f64 / best / 1e6,
        peak_rss_kib() as f64 / 1024.0
    );
}

fn main() {
    if let Ok(size) = std::env::var("TCPLAB_BENCH_CHILD") {
        let ov = vec![
            ("flows.download.size".to_string(), size.clone()),
            ("trace.pcap".to_string(), "[]".to_string()),
        ];
        child(SCENARIO, &size, ov, 5);
        return;
    }
    if let Ok(p) = std::env::var("TCPLAB_BENCH_HOLES") {
        let ov = vec![("links.path.loss.p".to_string(), p.clone())];
        child(HOLES, &format!("loss {p}"), ov, 3);
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    println!("wired bottleneck download (server –100 Mb/s– router –10 Mb/s, 50 pkt– client, NewReno, 64 KiB window)");
    for size in ["1MB", "10MB", "100MB", "1GB"] {
        let st = Command::new(&exe)
            .env("TCPLAB_BENCH_CHILD", size)
            .status()
            .expect("spawn");
        assert!(st.success());
    }
    println!("SACK with many holes (1 Gb/s, 100 ms RTT, 64 MB window, IW 40000 segments, 200 MB)");
    for p in ["0.01", "0.05"] {
        let st = Command::new(&exe)
            .env("TCPLAB_BENCH_HOLES", p)
            .status()
            .expect("spawn");
        assert!(st.success());
    }
}
