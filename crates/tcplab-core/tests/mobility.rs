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

/// a, b, c on a line 200 m apart (ns-2's 250 m range): c walks away from b at 10 s (30 m/s),
/// out of b's reach at 11.67 s, and from 15 s walks back west at 40 m/s, into b's reach at 17.5 s
/// and a's at 22.5 s. The flow from a to c runs from 1 s to 30 s.
const WALK: &str = "\
$node_(0) set X_ 0.0\n$node_(0) set Y_ 0.0\n\
$node_(1) set X_ 200.0\n$node_(1) set Y_ 0.0\n\
$node_(2) set X_ 400.0\n$node_(2) set Y_ 0.0\n\
$ns_ at 10.0 \"$node_(2) setdest 700.0 0.0 30.0\"\n\
$ns_ at 15.0 \"$node_(2) setdest 100.0 0.0 40.0\"\n";

#[test]
fn a_flows_shortest_path_length_is_logged_as_the_stations_move() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("walk_away_and_back.ns");
    std::fs::write(&file, WALK).unwrap();
    let text = format!(
        r#"
name = "walk"
duration = "30s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[wlans]]
name = "manet"
mode = "adhoc"
phy = "ns2_dsss"
rate = "2Mbps"
propagation = {{ model = "two_ray_ground" }}
routing = {{ protocol = "aodv", preset = "ns2" }}
mobility_file = "{}"
[[wlans.stations]]
node = "a"
position = ["0m", "0m"]
[[wlans.stations]]
node = "b"
position = ["0m", "0m"]
[[wlans.stations]]
node = "c"
position = ["0m", "0m"]
[[flows]]
name = "f"
app = "bulk"
server = "a"
client = "c"
start = "1s"
"#,
        file.display()
    );
    let out = tcplab_core::api::run(&text, Format::Toml, Some(1), &[], None).unwrap();
    let f = &out.summary.flows[0];
    // Each change is seen at the first position refresh after it (every 100 ms), so each of the
    // two or three boundaries in a sum moves it by less than 0.1 s.
    let expect = |got: f64, want: f64, what: &str| {
        assert!(
            (got - want).abs() < 0.2,
            "{what}: {got} s, want {want} s ({f:?})"
        )
    };
    let hops: std::collections::HashMap<u32, f64> =
        f.path_lengths.iter().map(|p| (p.hops, p.seconds)).collect();
    assert_eq!(
        f.path_lengths.iter().map(|p| p.hops).collect::<Vec<_>>(),
        [1, 2]
    );
    expect(hops[&2], (11.0 + 2.0 / 3.0 - 1.0) + (22.5 - 17.5), "2 hops");
    expect(
        f.partitioned_s.unwrap(),
        17.5 - (11.0 + 2.0 / 3.0),
        "partitioned",
    );
    expect(hops[&1], 30.0 - 22.5, "1 hop");
    let total: f64 = hops.values().sum::<f64>() + f.partitioned_s.unwrap();
    assert!(
        (total - 29.0).abs() < 1e-9,
        "the flow's whole life is accounted: {total}"
    );
}

/// Wired flows, and flows between two stations of an infrastructure BSS (the AP and a station:
/// one radio hop, but no ad hoc path), have no path log.
#[test]
fn flows_off_an_ad_hoc_wlan_have_no_path_log() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
    for (file, over) in [
        ("wired_bottleneck.toml", None),
        ("wlan_download.toml", None),
        ("wlan_download.toml", Some(("flows.download.server", "ap"))),
    ] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        let mut ov = vec![("duration".to_string(), "2s".to_string())];
        ov.extend(over.map(|(k, v)| (k.to_string(), v.to_string())));
        let out = tcplab_core::api::run(&text, Format::Toml, Some(1), &ov, None).unwrap();
        let f = &out.summary.flows[0];
        assert!(f.bytes_delivered > 0, "{file} {over:?}: the flow ran");
        assert!(
            f.path_lengths.is_empty() && f.partitioned_s.is_none(),
            "{file} {over:?}: {f:?}"
        );
    }
}
