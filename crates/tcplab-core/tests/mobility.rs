//! Import and replay of an ns-2 movement file (`tests/data/setdest_3nodes.ns`, setdest's
//! format): each file node moves the station of the same index with setdest's semantics (a new
//! `setdest` replaces the leg in progress from where the node is), its initial positions replace
//! the stations' own.

use std::path::Path;

use tcplab_core::mobility::Mobility;
use tcplab_core::scenario::{build_mobility, load, Format};
use tcplab_core::time::SimTime;

const SCENARIO: &str = r#"
name = "replay"
duration = "60s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[wlans]]
name = "manet"
mode = "adhoc"
mobility_file = "setdest_3nodes.ns"
[[wlans.stations]]
node = "a"
position = ["0m", "0m"]
[[wlans.stations]]
node = "b"
position = ["0m", "0m"]
[[wlans.stations]]
node = "c"
position = ["0m", "0m"]
"#;

fn at(m: &mut Mobility, secs: f64) -> (f64, f64) {
    m.position(SimTime::from_secs_f64(secs))
}

#[track_caller]
fn near(p: (f64, f64), want: (f64, f64)) {
    assert!(
        (p.0 - want.0).abs() < 1e-6 && (p.1 - want.1).abs() < 1e-6,
        "{p:?} != {want:?}"
    );
}

#[test]
fn a_setdest_file_replays_with_ns2_semantics() {
    let s = load(SCENARIO, Format::Toml, &[]).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut w = build_mobility(&s, 1, &data).unwrap().remove(0);
    let [a, b, c] = &mut w.stations[..] else {
        panic!("three stations")
    };
    // Node 0 never moves: the file's position, not the station's.
    near(at(a, 0.0), (100.0, 50.0));
    near(at(a, 59.0), (100.0, 50.0));
    // Node 1: still until 2 s, then east at 10 m/s; at 30 s (at x = 580) turned back west at
    // 40 m/s, arriving at x = 300 at 37 s.
    near(at(b, 1.0), (300.0, 50.0));
    near(at(b, 12.0), (400.0, 50.0));
    near(at(b, 30.0), (580.0, 50.0));
    near(at(b, 33.5), (440.0, 50.0));
    near(at(b, 50.0), (300.0, 50.0));
    // Node 2: south at 20 m/s from 10 s, arriving at 20 s.
    near(at(c, 15.0), (500.0, 150.0));
    near(at(c, 25.0), (500.0, 50.0));
}
