//! Wireless benchmarks: the 802.11b 100 MB download of `examples/wlan_download.toml` (goal
//! < 0.5 s wall), 20 saturated 802.11b stations for 60 s (goal < 2 s), and a 50-node ad hoc
//! network under the threshold and the SINR reception models (goal: SINR ≤ 2× threshold).
//! Prints simulated time, events, events/s and wall time;
//! `cargo bench -p tcplab-core --bench wifi`.

use std::time::Instant;

use tcplab_core::api;
use tcplab_core::scenario::Format;

fn saturation(n: u32) -> String {
    let mut s = String::from("name = \"sat20\"\nduration = \"60s\"\n[[nodes]]\nname = \"ap\"\n");
    for i in 0..n {
        s += &format!("[[nodes]]\nname = \"s{i}\"\n");
    }
    s += "[[wlans]]\nname = \"bss\"\nmode = \"infrastructure\"\nphy = \"hr_dsss\"\nrate = \"11Mbps\"\nap = \"ap\"\n\
          propagation = { model = \"unit_disk\" }\n[[wlans.stations]]\nnode = \"ap\"\nposition = [\"0m\", \"0m\"]\n";
    for i in 0..n {
        let a = i as f64 / n as f64 * std::f64::consts::TAU;
        s += &format!(
            "[[wlans.stations]]\nnode = \"s{i}\"\nposition = [\"{:.3}m\", \"{:.3}m\"]\n",
            10.0 * a.cos(),
            10.0 * a.sin()
        );
    }
    for i in 0..n {
        s += &format!("[[flows]]\nname = \"u{i}\"\napp = \"cbr\"\nsrc = \"s{i}\"\ndst = \"ap\"\nrate = \"1Mbps\"\npacket_size = \"1472B\"\n");
    }
    s
}

/// 50 ad hoc nodes on a 10 × 5 grid, 150 m apart (two-ray ground: 250 m reception, 550 m
/// carrier sense), 2 Mb/s; 25 one-hop CBR flows of 100 kb/s between horizontal neighbours.
fn adhoc50(reception: &str) -> String {
    let mut s = format!(
        "name = \"adhoc50\"\nduration = \"30s\"\n[[wlans]]\nname = \"net\"\nmode = \"adhoc\"\n\
         phy = \"hr_dsss\"\nrate = \"2Mbps\"\nreception = {{ model = \"{reception}\" }}\n"
    );
    for i in 0..50 {
        s += &format!(
            "[[wlans.stations]]\nnode = \"n{i}\"\nposition = [\"{}m\", \"{}m\"]\n",
            150 * (i % 10),
            150 * (i / 10)
        );
    }
    for i in 0..50 {
        s += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for i in (0..50).step_by(2) {
        s += &format!(
            "[[flows]]\nname = \"f{i}\"\napp = \"cbr\"\nsrc = \"n{i}\"\ndst = \"n{}\"\nrate = \"100kbps\"\npacket_size = \"512B\"\n",
            i + 1
        );
    }
    s
}

fn bench(name: &str, text: &str, overrides: &[(String, String)], reps: usize) {
    let mut walls = Vec::new();
    let mut last = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        let o = api::run(text, Format::Toml, Some(1), overrides, None).expect("scenario runs");
        walls.push(t0.elapsed().as_secs_f64());
        last = Some(o);
    }
    walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let wall = walls[walls.len() / 2];
    let o = last.unwrap().summary;
    let goodput = o.flows.first().map(|f| (f.response_time_s, f.goodput_bps));
    let cbr: f64 = o
        .cbr
        .iter()
        .map(|c| c.bytes_received as f64 * 8.0)
        .sum::<f64>()
        / o.sim_time_s;
    println!(
        "{name}: sim {:.3} s, {} events, median wall {:.3} s (run loop {:.3} s), {:.2} M events/s{}{}",
        o.sim_time_s,
        o.events,
        wall,
        o.wall_time_s,
        o.events as f64 / o.wall_time_s / 1e6,
        goodput.map_or(String::new(), |(r, g)| format!(
            ", download time {:.3} s, goodput {:.3} Mb/s",
            r.unwrap_or(f64::NAN),
            g / 1e6
        )),
        if cbr > 0.0 { format!(", UDP goodput {:.3} Mb/s", cbr / 1e6) } else { String::new() },
    );
}

fn main() {
    let dl = include_str!("../examples/wlan_download.toml");
    bench(
        "wlan_download 100 MB",
        dl,
        &[("flows.download.size".into(), "100MB".into())],
        5,
    );
    bench("wlan_download 10 MB", dl, &[], 5);
    bench("20 saturated stations, 60 s", &saturation(20), &[], 3);
    bench(
        "50-node ad hoc, threshold, 30 s",
        &adhoc50("threshold"),
        &[],
        3,
    );
    bench("50-node ad hoc, SINR, 30 s", &adhoc50("sinr"), &[], 3);
}
