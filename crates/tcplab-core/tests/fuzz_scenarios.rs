//! Fuzzing the scenario front door: parse → validate → build → a bounded run, on structured and
//! mutated inputs. Every input must end in a result or a clear error: no panic, no hang.
//!
//! Why a harness of our own and not cargo-fuzz, AFL or honggfuzz: those need a nightly toolchain
//! (cargo-fuzz's sanitizer flags) or an external fuzzer built beside the crate, and the project
//! builds and tests on stable Rust alone. This harness is a plain integration test: deterministic
//! (one seed gives one input stream, so a failure reproduces from its number), structure-aware
//! (it mutates the parsed scenario tree with values at the edges of every unit and type, which
//! a byte-level fuzzer without a grammar rarely reaches), and byte-level too (bit flips,
//! deletions, splices of the TOML text). What it lacks is coverage feedback.
//!
//! `cargo test --release -p tcplab-core --test integration fuzz_scenarios::` runs 20 000 inputs (part of
//! `make test`); `TCPLAB_FUZZ_INPUTS=1000000` runs more, `TCPLAB_FUZZ_SEED` picks another
//! stream, `TCPLAB_FUZZ_FIRST` starts at another index (input i depends only on the seed and i, so
//! a campaign can be split into ranges), `make fuzz` runs a million, `TCPLAB_FUZZ_DEBUG=1` prints why each refused input was
//! refused. Each run is bounded by `max_events` (the bound a hang could otherwise escape), and
//! every run that completes is checked to have stayed within it; the bound is a count, so the
//! check does not depend on this machine's speed. A loop outside the event loop would keep the
//! test from finishing at all. The slowest input's wall time is printed, for information only.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use serde_json::{json, Map, Value};
use tcplab_core::api::{self, Error};
use tcplab_core::scenario::{parse_tree, Format};

const CORPUS: &[&str] = &[
    include_str!("../../../examples/wired_bottleneck.toml"),
    include_str!("../../../examples/wired_lossy.toml"),
    include_str!("../../../examples/wired_outage.toml"),
    include_str!("../../../examples/wlan_download.toml"),
    include_str!("../../../examples/wlan_saturation.toml"),
    include_str!("../../../examples/adhoc_string.toml"),
    include_str!("../../../examples/ack_holding.toml"),
];

/// The bound of every fuzzed run: enough events to open connections, send data, fire timers.
const MAX_EVENTS: u64 = 5000;

/// splitmix64: a tiny deterministic generator for the input stream.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Values at the edges of the scenario's types and units.
fn interesting(g: &mut Gen) -> Value {
    let strings = [
        "",
        "0",
        "0s",
        "1ns",
        "-1ms",
        "1e400s",
        "9223372036s",
        "9223372037s",
        "584years",
        "1h",
        "0bps",
        "1bps",
        "0.4bps",
        "1e30Gbps",
        "18446744073709551615bps",
        "10Mbps",
        "11 Mb/s",
        "0B",
        "1B",
        "9223372036854775807B",
        "9223372036854775808B",
        "2e19B",
        "1e30MB",
        "64KiB",
        "-1B",
        "nan",
        "inf",
        "-inf",
        "NaN B",
        "1e-300s",
        "250m",
        "-1e9m",
        "1e400m",
        "0m",
        "x",
        "reno",
        "newreno",
        "sack",
        "droptail",
        "red",
        "bernoulli",
        "gilbert_elliott",
        "infrastructure",
        "adhoc",
        "unit_disk",
        "two_ray_ground",
        "free_space",
        "bulk",
        "bulk_download",
        "cbr",
        "mtcp",
        "mtcp_plus",
        "ack_holder",
        "*",
        "cwnd",
        "srtt",
        "rfc3390",
        "server",
        "client",
        "router",
        "ap",
        "sta",
        "bss",
        "a_to_b",
        "b_to_a",
    ];
    match g.below(10) {
        0..=3 => json!(g.pick(&strings)),
        4 => json!(g.pick(&[
            0i64,
            -1,
            1,
            2,
            3,
            255,
            65_535,
            65_536,
            i32::MAX as i64,
            u32::MAX as i64,
            i64::MAX,
            i64::MIN
        ])),
        5 => json!(g.pick(&[u64::MAX, 1 << 63, 1 << 32])),
        6 => json!(g.pick(&[0.0, -0.0, 0.5, 1.0, 1.0000001, -1e-9, 1e308, -1e308, 1e-320])),
        7 => json!(g.below(2) == 0),
        8 => json!([g.pick(&strings), g.pick(&strings)]),
        _ => g
            .pick(&[json!([]), json!({}), json!([{}]), Value::Null])
            .clone(),
    }
}

/// A value of the same shape: the number of a quantity scaled or pushed to an edge (its unit
/// kept), a number nudged, a boolean flipped. Most inputs then stay valid and reach the run.
fn tweak(g: &mut Gen, v: &Value) -> Value {
    let scale = *g.pick(&[0.0, 0.5, 2.0, 10.0, 1e-3, 1e3, 1e6, -1.0, 1e12, 1e-9]);
    match v {
        Value::String(s) => {
            let split = s
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
                .unwrap_or(s.len());
            match s[..split].parse::<f64>() {
                Ok(x) if split > 0 => json!(format!("{}{}", x * scale, &s[split..])),
                _ => v.clone(),
            }
        }
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => json!(g.pick(&[
                0,
                1,
                u.saturating_add(1),
                u.saturating_mul(2),
                u / 2,
                u.saturating_mul(1000)
            ])),
            (None, Some(f)) => json!(f * scale),
            _ => v.clone(),
        },
        Value::Bool(b) => json!(!b),
        Value::Array(a) if !a.is_empty() => {
            let mut a = a.clone();
            let i = g.below(a.len());
            a[i] = tweak(g, &a[i]);
            Value::Array(a)
        }
        _ => v.clone(),
    }
}

/// Field names of the schema, to add where they may or may not belong.
const FIELDS: &[&str] = &[
    "name",
    "rate",
    "delay",
    "size",
    "p",
    "start",
    "stop",
    "mss",
    "rcv_buf",
    "queue",
    "loss",
    "outage",
    "kind",
    "packets",
    "model",
    "position",
    "stations",
    "ap",
    "mode",
    "phy",
    "variant",
    "sack",
    "timestamps",
    "initial_window",
    "rto_min",
    "rto_max",
    "duration",
    "max_events",
    "src",
    "dst",
    "packet_size",
    "client",
    "server",
    "request",
    "node",
    "mobile",
    "series",
    "interval",
    "pcap",
    "frames",
    "view",
    "propagation",
    "rx_range",
    "cs_range",
    "rts_threshold",
    "cw_min",
    "cw_max",
    "slot",
    "period",
    "down",
    "first",
    "p_gb",
    "p_bg",
    "mean",
    "burst",
    "ack_every",
    "delayed_ack",
    "window_scaling",
    "tcp",
    "flows",
    "links",
    "nodes",
    "wlans",
];

/// Every path to a value in the tree.
fn paths(v: &Value, here: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                here.push(PathStep::Key(k.clone()));
                paths(c, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                here.push(PathStep::Index(i));
                paths(c, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at<'a>(v: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

/// One structured mutation of the scenario tree.
fn mutate_tree(g: &mut Gen, tree: &mut Value) {
    let mut all = Vec::new();
    paths(tree, &mut Vec::new(), &mut all);
    let path = g.pick(&all).clone();
    let donor = {
        let p = g.pick(&all).clone();
        at(tree, &p).clone()
    };
    let node = at(tree, &path);
    match g.below(9) {
        0..=3 => *node = tweak(g, node),
        4 => *node = interesting(g),
        5 => match node {
            Value::Object(m) if !m.is_empty() => {
                let k = m.keys().nth(g.below(m.len())).cloned().expect("non-empty");
                m.remove(&k);
            }
            Value::Array(a) if !a.is_empty() => {
                let i = g.below(a.len());
                a.remove(i);
            }
            _ => *node = interesting(g),
        },
        6 => match node {
            Value::Object(m) => {
                m.insert(g.pick(FIELDS).to_string(), interesting(g));
            }
            Value::Array(a) if !a.is_empty() => {
                let i = g.below(a.len());
                a.push(a[i].clone()); // a duplicate: same name twice
            }
            _ => *node = interesting(g),
        },
        7 => *node = donor, // a subtree from elsewhere: a link where a flow was, …
        _ => {
            if let Value::Object(m) = node {
                let mut fresh = Map::new();
                fresh.insert(g.pick(FIELDS).to_string(), interesting(g));
                m.insert(g.pick(FIELDS).to_string(), Value::Object(fresh));
            } else {
                *node = interesting(g);
            }
        }
    }
}

/// One byte-level mutation of the text.
fn mutate_bytes(g: &mut Gen, text: &mut Vec<u8>, other: &str) {
    if text.is_empty() {
        text.extend_from_slice(b"x");
    }
    let i = g.below(text.len());
    match g.below(6) {
        0 => text[i] ^= 1 << g.below(8),
        1 => {
            let n = 1 + g.below(16.min(text.len() - i));
            text.drain(i..i + n);
        }
        2 => {
            let token = g.pick(&[
                "=",
                "[",
                "]",
                "{",
                "}",
                "\"",
                "\n",
                "[[flows]]\n",
                "[[links]]\n",
                "e400",
                "-",
                "0",
                ".",
                "#",
                "\\u0000",
                "name = \"server\"\n",
            ]);
            text.splice(i..i, token.bytes());
        }
        3 => {
            let lines: Vec<&str> = other.lines().collect();
            let line = g.pick(&lines);
            text.splice(i..i, format!("{line}\n").into_bytes());
        }
        4 => {
            let j = g.below(text.len());
            let (a, b) = (i.min(j), i.max(j));
            let chunk = text[a..b].to_vec();
            text.splice(b..b, chunk);
        }
        _ => text[i] = (g.next() & 0xff) as u8,
    }
}

/// One input: (text, format), drawn from `g`.
fn input(g: &mut Gen) -> (String, Format) {
    let base = *g.pick(CORPUS);
    let class = g.below(20);
    if class < 8 {
        // Type-preserving tweaks only: mostly valid scenarios with values at their edges.
        let mut tree = parse_tree(base, Format::Toml).expect("corpus parses");
        let mut all = Vec::new();
        paths(&tree, &mut Vec::new(), &mut all);
        for _ in 0..1 + g.below(2) {
            let p = g.pick(&all).clone();
            let node = at(&mut tree, &p);
            *node = tweak(g, node);
        }
        (tree.to_string(), Format::Json)
    } else if class < 15 {
        let mut tree = parse_tree(base, Format::Toml).expect("corpus parses");
        for _ in 0..1 + g.below(3) {
            mutate_tree(g, &mut tree);
        }
        (tree.to_string(), Format::Json)
    } else {
        let mut bytes = base.as_bytes().to_vec();
        let other = *g.pick(CORPUS);
        for _ in 0..1 + g.below(8) {
            mutate_bytes(g, &mut bytes, other);
        }
        (String::from_utf8_lossy(&bytes).into_owned(), Format::Toml)
    }
}

#[derive(Default, Debug)]
struct Tally {
    ran: u64,
    refused: u64,
    stopped: u64,
    panics: Vec<(u64, String)>,
    slowest_ms: f64,
}

thread_local! {
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// parse → validate → build → bounded run; Ok(kind) or the panic's message.
fn front_door(text: &str, format: Format) -> Result<&'static str, String> {
    let ov = vec![("max_events".to_string(), MAX_EVENTS.to_string())];
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        match api::run(text, format, Some(1), &ov, None) {
            Ok(out) => {
                // The summary serialises (NaN would not): what the CLI and Python receive.
                serde_json::to_string(&out.summary).expect("summary serialises");
                // No run escapes the event bound (an endless run would be a hang).
                assert!(
                    out.summary.events <= MAX_EVENTS,
                    "{} events",
                    out.summary.events
                );
                "ran"
            }
            Err(Error::Scenario(errs)) => {
                if std::env::var("TCPLAB_FUZZ_DEBUG").is_ok() {
                    eprintln!("REFUSED {}", errs[0].msg);
                }
                assert!(!errs.is_empty() && errs.iter().all(|e| !e.msg.is_empty()));
                "refused"
            }
            Err(Error::Simulation(e)) => {
                assert!(!e.to_string().is_empty());
                "stopped"
            }
        }
    }));
    r.map_err(|_| LAST_PANIC.with(|p| p.borrow().clone()))
}

#[test]
fn the_front_door_never_panics_or_hangs() {
    let n: u64 = std::env::var("TCPLAB_FUZZ_INPUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let seed: u64 = std::env::var("TCPLAB_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(19);
    // Input i depends only on (seed, i): a range of a long campaign can run on its own.
    let first: u64 = std::env::var("TCPLAB_FUZZ_FIRST")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let prev = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = info.to_string());
    }));
    let mut t = Tally::default();
    let started = Instant::now();
    for i in first..first + n {
        let mut g = Gen(seed ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let (text, format) = input(&mut g);
        let t0 = Instant::now();
        let r = front_door(&text, format);
        t.slowest_ms = t.slowest_ms.max(t0.elapsed().as_secs_f64() * 1e3);
        match r {
            Ok("ran") => t.ran += 1,
            Ok("refused") => t.refused += 1,
            Ok(_) => t.stopped += 1,
            Err(msg) => {
                if t.panics.is_empty() {
                    eprintln!("first panic at input {i}");
                }
                if t.panics.len() < 20 {
                    eprintln!("--- input {i} (seed {seed}) panicked: {msg}\n{text}\n---");
                }
                t.panics.push((i, msg));
            }
        }
        if (i + 1 - first).is_multiple_of(50_000) {
            eprintln!(
                "fuzz progress: inputs {first}..{}: {} ran, {} refused, {} stopped, {} panics",
                i + 1,
                t.ran,
                t.refused,
                t.stopped,
                t.panics.len()
            );
        }
    }
    panic::set_hook(prev);
    eprintln!(
        "fuzz (seed {seed}, inputs {first}..{}): {n} inputs in {:.1} s: {} ran, {} refused as invalid, {} stopped \
         with a simulation error, {} panics; slowest input {:.1} ms",
        first + n,
        started.elapsed().as_secs_f64(),
        t.ran,
        t.refused,
        t.stopped,
        t.panics.len(),
        t.slowest_ms
    );
    assert!(
        t.panics.is_empty(),
        "panics: {:?}",
        &t.panics[..t.panics.len().min(5)]
    );
    // The stream must reach every stage, or it tests nothing.
    assert!(t.ran > 0 && t.refused > 0, "{t:?}");
}
