//! Integration tests of the 802.11 model: saturation throughput against Bianchi's analytical
//! model, TCP over a WLAN against the frame-timing bound, hidden terminals, error models, outages
//! and link signals.

use tcplab_core::api::{self, RunOutput};
use tcplab_core::scenario::Format;
use tcplab_core::wifi::PhyParams;

fn run(toml: &str) -> RunOutput {
    match api::run(toml, Format::Toml, Some(1), &[], None) {
        Ok(o) => o,
        Err(e) => panic!("{e}\n{toml}"),
    }
}

// ---------------------------------------------------------------------- Bianchi's model

/// Bianchi (IEEE JSAC 18(3), 2000), eqs. (7) and (9): the probability τ that a saturated station
/// transmits in a slot, for `n` stations, `w` = CWmin + 1 and `m` backoff stages.
fn bianchi_tau(n: u32, w: f64, m: i32) -> f64 {
    let tau_of = |p: f64| {
        2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
    };
    // Solve p = 1 − (1 − τ(p))^(n−1) by bisection.
    let (mut lo, mut hi) = (1e-9, 0.999_999);
    for _ in 0..200 {
        let p = 0.5 * (lo + hi);
        let f = 1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1) - p;
        if f > 0.0 {
            lo = p;
        } else {
            hi = p;
        }
    }
    tau_of(0.5 * (lo + hi))
}

/// Bianchi's saturation throughput in b/s for `n` stations: `payload_bits` per success; times in
/// µs; `ts`, `tc`: busy time of a success and of a collision (ALGORITHMS.md §7).
fn bianchi(n: u32, w: f64, m: i32, slot: f64, ts: f64, tc: f64, payload_bits: f64) -> f64 {
    let tau = bianchi_tau(n, w, m);
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    let e_slot = (1.0 - ptr) * slot + ptr * ps * ts + ptr * (1.0 - ps) * tc;
    ps * ptr * payload_bits / e_slot * 1e6
}

/// Bianchi's W (backoff uniform on [0, W − 1]) and m (CWmax + 1 = 2^m (CWmin + 1)) of a PHY.
fn stages(phy: &PhyParams) -> (f64, i32) {
    // The standard draws from [0, CW]; ns-2 from [0, CW − 1].
    let w = phy.cw_min as f64 + if phy.ns2_backoff { 0.0 } else { 1.0 };
    (
        w,
        ((phy.cw_max + 1) / (phy.cw_min + 1)).trailing_zeros() as i32,
    )
}

#[test]
fn bianchi_model_matches_published_numbers() {
    // ALGORITHMS.md §7: Bianchi's FHSS parameters, W = 32, m = 3, basic access: normalised S
    // 0.810 / 0.753 / 0.679 at n = 5 / 10 / 20.
    let (h, p, ack) = (128.0 + 272.0, 8184.0, 112.0 + 128.0);
    let (sifs, difs, d, slot) = (28.0, 128.0, 1.0, 50.0);
    let ts = h + p + sifs + d + ack + difs + d;
    let tc = h + p + difs + d;
    for (n, want) in [(5, 0.810), (10, 0.753), (20, 0.679)] {
        let s = bianchi(n, 32.0, 3, slot, ts, tc, p) / 1e6;
        assert!((s - want).abs() < 0.002, "n={n}: {s} vs {want}");
    }
}

/// A saturated BSS: `n` stations 10 m from the AP on a circle, each sending 1472-B UDP payloads
/// (1500-B IP datagrams) to the AP faster than the channel can carry. ARP is off: Bianchi's model
/// is the DCF's alone, and with ns2_dsss's ARP on, 20 stations sending a datagram a millisecond to
/// an unresolved AP fill their queues with requests (one per datagram, docs/models/arp.md) before
/// the first reply arrives.
fn saturation_scenario(n: u32, phy: &str, rate: &str, rts: bool, secs: u32) -> String {
    let mut s = format!("name = \"sat\"\nduration = \"{secs}s\"\n[[nodes]]\nname = \"ap\"\n");
    for i in 0..n {
        s += &format!("[[nodes]]\nname = \"s{i}\"\n");
    }
    s += &format!(
        "[[wlans]]\nname = \"bss\"\nmode = \"infrastructure\"\nphy = \"{phy}\"\nrate = \"{rate}\"\nap = \"ap\"\narp = false\n\
         rts_threshold = \"{}\"\nshort_retry_limit = 1000\nlong_retry_limit = 1000\n\
         propagation = {{ model = \"unit_disk\" }}\n\
         [[wlans.stations]]\nnode = \"ap\"\nposition = [\"0m\", \"0m\"]\n",
        if rts { "0B" } else { "3000B" }
    );
    for i in 0..n {
        let a = i as f64 / n as f64 * std::f64::consts::TAU;
        s += &format!(
            "[[wlans.stations]]\nnode = \"s{i}\"\nposition = [\"{:.3}m\", \"{:.3}m\"]\n",
            10.0 * a.cos(),
            10.0 * a.sin()
        );
    }
    for i in 0..n {
        s += &format!(
            "[[flows]]\nname = \"u{i}\"\napp = \"cbr\"\nsrc = \"s{i}\"\ndst = \"ap\"\nrate = \"12Mbps\"\npacket_size = \"1472B\"\n"
        );
    }
    s
}

fn measured_throughput(o: &RunOutput) -> f64 {
    let bytes: u64 = o.summary.cbr.iter().map(|c| c.received * 1500).sum();
    bytes as f64 * 8.0 / o.summary.sim_time_s
}

fn bianchi_for(phy: &PhyParams, rate: u64, n: u32, rts: bool) -> f64 {
    let us = |t: tcplab_core::SimTime| t.0 as f64 / 1e3;
    let d = us(phy.prop_delay);
    let data = us(phy.duration(phy.data_mpdu(1500), rate));
    let ack = us(phy.ack_duration(rate));
    let (sifs, difs, eifs) = (us(phy.sifs), us(phy.difs), us(phy.eifs));
    // A collision keeps the others waiting EIFS after the corrupted frame (10.3.2.3.7).
    let (ts, tc) = if rts {
        let (r, c) = (us(phy.rts_duration(rate)), us(phy.cts_duration(rate)));
        (
            r + d + sifs + c + d + sifs + data + d + sifs + ack + d + difs,
            r + d + eifs,
        )
    } else {
        (data + d + sifs + ack + d + difs, data + d + eifs)
    };
    let (w, m) = stages(phy);
    bianchi(n, w, m, us(phy.slot), ts, tc, 1500.0 * 8.0)
}

fn check_saturation(phy_name: &str, rate: u64, rts: bool) {
    let phy = PhyParams::by_name(phy_name).unwrap();
    for n in [5, 10, 20] {
        let o = run(&saturation_scenario(
            n,
            phy_name,
            &format!("{}bps", rate),
            rts,
            30,
        ));
        let got = measured_throughput(&o);
        let want = bianchi_for(&phy, rate, n, rts);
        let err = (got - want) / want;
        println!(
            "{phy_name} {} Mb/s rts={rts} n={n}: simulated {:.3} Mb/s, Bianchi {:.3} Mb/s, {:+.2} %",
            rate as f64 / 1e6,
            got / 1e6,
            want / 1e6,
            err * 100.0
        );
        // Measured over seeds 1–3: |error| ≤ 1.41 % (docs/validation/wifi.md); 2 % leaves 0.6
        // point for other seeds and still fails without EIFS (+2.5 % at n = 10, +4.3 % at n = 20).
        assert!(err.abs() < 0.02, "n={n}: {got} vs {want}");
    }
}

#[test]
fn saturation_11b_basic_access_matches_bianchi() {
    check_saturation("hr_dsss", 11_000_000, false);
}

#[test]
fn saturation_11b_rts_cts_matches_bianchi() {
    check_saturation("hr_dsss", 11_000_000, true);
}

#[test]
fn saturation_ns2_2mbps_basic_access_matches_bianchi() {
    check_saturation("ns2_dsss", 2_000_000, false);
}

#[test]
fn saturation_ns2_2mbps_rts_cts_matches_bianchi() {
    check_saturation("ns2_dsss", 2_000_000, true);
}

// ---------------------------------------------------------------------- TCP over a WLAN

/// server --100 Mb/s, 1 ms-- ap --802.11b-- sta (10 m).
fn download_scenario(size: &str, extra_tcp: &str, extra_sta: &str, extra_wlan: &str) -> String {
    format!(
        r#"name = "wlan"
[tcp]
variant = "newreno"
mss = 1460
rcv_buf = "64KiB"
{extra_tcp}
[[nodes]]
name = "server"
[[nodes]]
name = "ap"
[[nodes]]
name = "sta"
[[links]]
name = "wired"
a = "server"
b = "ap"
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", packets = 1000 }}
[[wlans]]
name = "bss"
mode = "infrastructure"
phy = "hr_dsss"
rate = "11Mbps"
ap = "ap"
propagation = {{ model = "unit_disk" }}
{extra_wlan}
[[wlans.stations]]
node = "ap"
position = ["0m", "0m"]
[[wlans.stations]]
node = "sta"
position = ["10m", "0m"]
{extra_sta}
[[flows]]
name = "dl"
app = "bulk_download"
client = "sta"
server = "server"
size = "{size}"
"#
    )
}

#[test]
fn tcp_download_matches_the_two_station_contention_bound() {
    let o = run(&download_scenario("20MB", "delayed_ack = false", "", ""));
    let f = &o.summary.flows[0];
    assert!(f.completed, "{f:?}");
    // Two stations contend for the medium: the AP, which always has a segment queued (64 KiB
    // window), and the station, which has a TCP ACK queued after every segment, so the two
    // succeed equally often. Bianchi's model with n = 2 gives the share of idle slots,
    // successes and collisions; a success is a data or a TCP-ACK exchange, half each (frame + δ +
    // SIFS + MAC ACK + δ + DIFS); a collision overlaps a segment with a TCP ACK, and both
    // senders are transmitters (no EIFS): the medium is lost for the segment + δ + the AP's ACK
    // timeout + DIFS. Each success carries half a segment of goodput.
    let phy = PhyParams::hr_dsss(false);
    let us = |t: tcplab_core::SimTime| t.0 as f64 / 1e3;
    let d = us(phy.prop_delay);
    let frame = |ip: u32| us(phy.duration(phy.data_mpdu(ip), 11_000_000));
    let exch = |ip: u32| {
        frame(ip) + d + us(phy.sifs) + us(phy.ack_duration(11_000_000)) + d + us(phy.difs)
    };
    let ts = (exch(1500) + exch(40)) / 2.0;
    let tc = frame(1500) + d + us(phy.response_timeout) + us(phy.difs);
    let (w, m) = stages(&phy);
    let bound = bianchi(2, w, m, us(phy.slot), ts, tc, 1460.0 * 8.0 / 2.0);
    // Bianchi's conditional collision probability for n = 2 is τ itself.
    let p = bianchi_tau(2, w, m);
    let err = (f.goodput_bps - bound) / bound;
    let coll: Vec<f64> = o
        .summary
        .wifi
        .iter()
        .map(|w| w.tx_collisions as f64 / w.frames_sent as f64)
        .collect();
    println!(
        "TCP over 11b: goodput {:.3} Mb/s, two-station bound {:.3} Mb/s ({:+.2} %); \
         collision probability per attempt {coll:.4?} vs Bianchi {p:.4}; {:?}",
        f.goodput_bps / 1e6,
        bound / 1e6,
        err * 100.0,
        o.summary.wifi,
    );
    // Measured −0.7 %: the tolerance is that plus 1.3 points for what the model leaves out (the
    // set-up and slow start, and the station's head start after a collision: it resumes counting
    // at the segment's end while the AP waits its ACK timeout).
    assert!(err.abs() < 0.02, "{} vs {bound}", f.goodput_bps);
    // Every collision is one the two stations experience: the AP's segment against the
    // station's TCP ACK. Both see the same number, at the rate Bianchi's model predicts.
    let (ap, sta) = (&o.summary.wifi[0], &o.summary.wifi[1]);
    assert_eq!(ap.tx_collisions, sta.tx_collisions);
    assert_eq!(ap.tx_collisions, ap.tx_failures);
    for c in &coll {
        assert!((c - p).abs() / p < 0.1, "collision probability {c} vs {p}");
    }
    // The AP queue never overflows with a 64 KiB window.
    assert!(o.summary.wifi.iter().all(|w| w.drops_queue == 0));
    assert_eq!(f.retransmissions, 0);
}

// ---------------------------------------------------------------------- hidden terminals

/// An AP at 0 and stations a and b at x = `ax`, `bx` m, each sending 1.5 Mb/s of 1500-B
/// datagrams to the AP at 2 Mb/s for 20 s; `wlan` adds the WLAN's propagation (and reception).
fn hidden_toml(ax: f64, bx: f64, rts: bool, wlan: &str) -> String {
    format!(
        r#"name = "hidden"
duration = "20s"
[[nodes]]
name = "ap"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[wlans]]
name = "bss"
mode = "infrastructure"
phy = "hr_dsss"
rate = "2Mbps"
ap = "ap"
rts_threshold = "{}"
{wlan}
[[wlans.stations]]
node = "ap"
position = ["0m", "0m"]
[[wlans.stations]]
node = "a"
position = ["{ax}m", "0m"]
[[wlans.stations]]
node = "b"
position = ["{bx}m", "0m"]
[[flows]]
name = "ua"
app = "cbr"
src = "a"
dst = "ap"
rate = "1.5Mbps"
packet_size = "1472B"
[[flows]]
name = "ub"
app = "cbr"
src = "b"
dst = "ap"
rate = "1.5Mbps"
packet_size = "1472B"
"#,
        if rts { "0B" } else { "3000B" }
    )
}

fn hidden_scenario(rts: bool) -> String {
    // a and b are 400 m apart, each 200 m from the AP; with a 250 m carrier-sense range they
    // cannot hear each other.
    hidden_toml(
        -200.0,
        200.0,
        rts,
        r#"propagation = { model = "unit_disk", rx_range = "250m", cs_range = "250m" }"#,
    )
}

#[test]
fn hidden_terminals_collide_without_rts_and_recover_with_it() {
    let basic = run(&hidden_scenario(false));
    let rts = run(&hidden_scenario(true));
    let stats = |o: &RunOutput| {
        let ap = o.summary.wifi.iter().find(|w| w.node == "ap").unwrap();
        let sent: u64 = o
            .summary
            .wifi
            .iter()
            .filter(|w| w.node != "ap")
            .map(|w| w.frames_sent)
            .sum();
        let got: u64 = o.summary.cbr.iter().map(|c| c.received).sum();
        let lost = sent - ap.frames_received;
        (
            sent,
            lost as f64 / sent as f64,
            got as f64 * 1500.0 * 8.0 / o.summary.sim_time_s,
            ap.collisions,
        )
    };
    let (sb, lb, tb, cb) = stats(&basic);
    let (sr, lr, tr, cr) = stats(&rts);
    println!(
        "basic: {sb} data frames, {:.1} % lost, {:.3} Mb/s, {cb} collisions at the AP",
        lb * 100.0,
        tb / 1e6
    );
    println!(
        "rts:   {sr} data frames, {:.1} % lost, {:.3} Mb/s, {cr} collisions at the AP",
        lr * 100.0,
        tr / 1e6
    );
    assert!(lb > 0.5, "basic access should lose most data frames: {lb}");
    assert!(lr < 0.05, "RTS/CTS should protect the data frames: {lr}");
    assert!(
        tr > 2.0 * tb,
        "RTS/CTS should recover throughput: {tr} vs {tb}"
    );
}

// ---------------------------------------------------------------------- error models

#[test]
fn gilbert_elliott_fer_and_burstiness() {
    // 400-B datagrams from the station to the AP; GE on the frames the station sends, mean FER
    // 5 %, mean burst 4 frames; retries never give up, so every burst hits one MSDU.
    let toml = r#"name = "ge"
duration = "1000s"
[[nodes]]
name = "ap"
[[nodes]]
name = "sta"
[[wlans]]
name = "bss"
mode = "infrastructure"
rate = "11Mbps"
ap = "ap"
short_retry_limit = 1000
propagation = { model = "unit_disk" }
[[wlans.stations]]
node = "ap"
position = ["0m", "0m"]
[[wlans.stations]]
node = "sta"
position = ["10m", "0m"]
loss = { model = "gilbert_elliott", mean = 0.05, burst = 4.0, direction = "a_to_b" }
[[flows]]
name = "u"
app = "cbr"
src = "sta"
dst = "ap"
rate = "4Mbps"
packet_size = "400B"
"#
    .to_string();
    let o = run(&toml);
    let ap = o.summary.wifi.iter().find(|w| w.node == "ap").unwrap();
    let sta = o.summary.wifi.iter().find(|w| w.node == "sta").unwrap();
    let frames = ap.frame_errors + ap.frames_received;
    let fer = ap.frame_errors as f64 / frames as f64;
    let burst = ap.frame_errors as f64 / sta.retried_msdus as f64;
    println!("GE: {frames} frames, FER {fer:.4}, mean burst {burst:.2}");
    assert!(frames > 700_000);
    assert!((fer - 0.05).abs() / 0.05 < 0.05, "FER {fer}");
    assert!((burst - 4.0).abs() / 4.0 < 0.05, "burst {burst}");
    assert_eq!(sta.drops_retry_limit, 0);
}

/// A 5 MB download whose station has 5 % Bernoulli errors acting at `loss_at`.
fn five_percent_errors(loss_at: &str) -> RunOutput {
    run(&download_scenario(
        "5MB",
        "delayed_ack = false",
        &format!("loss = {{ model = \"bernoulli\", p = 0.05 }}\nloss_at = \"{loss_at}\""),
        "",
    ))
}

#[test]
fn mac_retries_hide_isolated_errors_from_tcp() {
    let o = five_percent_errors("frames");
    let f = &o.summary.flows[0];
    let retries: u64 = o.summary.wifi.iter().map(|w| w.retries).sum();
    let errors: u64 = o.summary.wifi.iter().map(|w| w.frame_errors).sum();
    println!(
        "FER 5 %: {errors} frame errors, {retries} MAC retries, {} TCP retransmissions",
        f.retransmissions
    );
    assert!(f.completed);
    assert!(errors > 300 && retries >= errors);
    assert_eq!(
        f.retransmissions, 0,
        "7 MAC attempts make a TCP-visible loss ~1e-9"
    );
}

#[test]
fn errors_above_the_mac_reach_tcp() {
    // The same 5 % errors acting on packets above the MAC (loss_at = "packets", as an ns-2 error
    // model between the MAC and IP): the MAC acknowledged these packets, so nothing retries them
    // below TCP.
    let o = five_percent_errors("packets");
    let f = &o.summary.flows[0];
    let frame_errors: u64 = o.summary.wifi.iter().map(|w| w.frame_errors).sum();
    let packet_errors: u64 = o.summary.wifi.iter().map(|w| w.packet_errors).sum();
    let delivered: u64 = o.summary.wifi.iter().map(|w| w.delivered).sum();
    let rate = packet_errors as f64 / delivered as f64;
    println!(
        "5 % above the MAC: {packet_errors} packet losses of {delivered} delivered, {frame_errors} \
         frame errors, {} TCP retransmissions",
        f.retransmissions
    );
    assert!(f.completed);
    assert_eq!(frame_errors, 0, "no error acts on frames");
    assert!((rate - 0.05).abs() < 0.01, "loss rate {rate}");
    assert!(
        f.retransmissions as f64 >= 0.5 * packet_errors as f64,
        "losses above the MAC are TCP's to repair: {} retransmissions for {packet_errors}",
        f.retransmissions
    );
}

#[test]
fn loss_at_names_its_allowed_values() {
    let toml = download_scenario("1MB", "", "loss_at = \"ip\"", "");
    let e = api::run(&toml, Format::Toml, Some(1), &[], None)
        .err()
        .expect("an unknown loss_at must be refused")
        .to_string();
    assert!(
        e.contains("loss_at") && e.contains("frames") && e.contains("packets"),
        "{e}"
    );
}

// ---------------------------------------------------------------------- outages and signals

#[test]
fn outage_blocks_frames_and_signals_arrive_on_time() {
    let toml = download_scenario(
        "4MB",
        "delayed_ack = false",
        "outage = { intervals = [[\"3s\", \"5s\"]] }",
        "signals = { lead = \"200ms\", duration_factor = 1.5 }",
    ) + "[trace]\nseries = [\"rcv_nxt\"]\n";
    let o = run(&toml);
    let f = &o.summary.flows[0];
    assert!(f.completed, "{f:?}");
    // No byte reaches the receiver during the outage (the last frame before it may end a few
    // hundred µs after 3 s only if it started before).
    let s = &o.series;
    let mut before = None;
    for i in 0..s.t_s.len() {
        if s.t_s[i] < 3.0 {
            before = Some(s.value[i]);
        } else if s.t_s[i] < 5.0 {
            assert_eq!(Some(s.value[i]), before, "rcv_nxt moved at {} s", s.t_s[i]);
        }
    }
    assert!(s.t_s.iter().any(|&t| t > 5.0));
    let sig: Vec<(f64, &str, Option<f64>)> = o
        .summary
        .link_signals
        .iter()
        .filter(|e| e.node == "sta")
        .map(|e| (e.t_s, e.kind.as_str(), e.value))
        .collect();
    println!("signals: {sig:?}");
    let at = |k: &str| sig.iter().find(|e| e.1 == k).map(|e| (e.0, e.2)).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    // Going down 200 ms ahead, predicting 1.5 × the true 2 s; gone and up exactly on time.
    let (t, v) = at("going_down");
    assert!(close(t, 2.8) && close(v.unwrap(), 3.0), "{t} {v:?}");
    assert!(close(at("gone").0, 3.0));
    assert!(close(at("up").0, 5.0));
    let up = sig.iter().position(|e| e.1 == "up").unwrap();
    assert!(sig[..up].windows(2).all(|w| w[0].0 <= w[1].0));
    let ap = o.summary.wifi.iter().find(|w| w.node == "ap").unwrap();
    println!("ap: {ap:?}");
    assert!(
        ap.drops_retry_limit >= 1,
        "queued frames are retried and dropped"
    );
    assert!(o
        .summary
        .link_signals
        .iter()
        .any(|e| e.node == "ap" && e.kind == "failure" && e.peer.as_deref() == Some("sta")));
}

// ---------------------------------------------------------------------- examples

#[test]
fn wireless_examples_run() {
    let ex = |name: &str| {
        std::fs::read_to_string(format!(
            "{}/../../examples/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let dl = run(&ex("wlan_download.toml"));
    let f = &dl.summary.flows[0];
    println!(
        "wlan_download: {:?} s, {:.3} Mb/s",
        f.response_time_s,
        f.goodput_bps / 1e6
    );
    assert!(f.completed && f.goodput_bps > 4.5e6);
    let sat = api::run(
        &ex("wlan_saturation.toml"),
        Format::Toml,
        Some(1),
        &[("duration".into(), "10s".into())],
        None,
    )
    .unwrap();
    let thr = sat
        .summary
        .cbr
        .iter()
        .map(|c| c.received * 1500 * 8)
        .sum::<u64>() as f64
        / 10.0;
    println!("wlan_saturation: {:.3} Mb/s", thr / 1e6);
    assert!((thr - 6.0e6).abs() < 0.3e6);
    let ah = api::run(
        &ex("adhoc_string.toml"),
        Format::Toml,
        Some(1),
        &[("duration".into(), "30s".into())],
        None,
    )
    .unwrap();
    let f = &ah.summary.flows[0];
    println!(
        "adhoc_string: {} B in 30 s, {:.3} Mb/s, {} retransmissions",
        f.bytes_delivered,
        f.goodput_bps / 1e6,
        f.retransmissions
    );
    assert!(f.bytes_delivered > 100_000);
}

// ---------------------------------------------------------------------- SINR vs threshold

/// Hidden pair: the AP at 0, `a` 100 m to its left, `b` `db` m to its right; two-ray ground with
/// ns-2's powers, carrier sense at the reception threshold (250 m), so a and b (≥ 250 m apart)
/// cannot hear each other.
fn hidden_pair(db: f64, rts: bool, sinr: bool) -> String {
    let mut wlan =
        String::from(r#"propagation = { model = "two_ray_ground", cs_thresh_w = 3.652e-10 }"#);
    if sinr {
        wlan += "\nreception = { model = \"sinr\" }";
    }
    hidden_toml(-100.0, db, rts, &wlan)
}

#[test]
fn hidden_pair_threshold_vs_sinr() {
    // Throughput (Mb/s) of a and b at the AP.
    let thr = |db: f64, rts: bool, sinr: bool| {
        let o = run(&hidden_pair(db, rts, sinr));
        let get = |n: &str| {
            let c = o.summary.cbr.iter().find(|c| c.name == n).unwrap();
            c.bytes_received as f64 * 8.0 / o.summary.sim_time_s / 1e6
        };
        (get("ua"), get("ub"))
    };
    println!("| b (m) | access | threshold a, b (Mb/s) | SINR a, b (Mb/s) |");
    let mut rows = Vec::new();
    for db in [160.0, 200.0, 240.0] {
        for rts in [false, true] {
            let (t, s) = (thr(db, rts, false), thr(db, rts, true));
            println!(
                "| {db} | {} | {:.3}, {:.3} | {:.3}, {:.3} |",
                if rts { "RTS/CTS" } else { "basic" },
                t.0,
                t.1,
                s.0,
                s.1
            );
            rows.push((db, rts, t, s));
        }
    }
    for &(db, rts, t, s) in &rows {
        if !rts {
            // b's frames arrive 10·log10((db/100)^4) = 8.2 / 12.0 / 15.2 dB weaker than a's.
            // Threshold: a's frame survives b's only at ≥ 10 dB (capture, b ≥ 178 m); SINR:
            // DQPSK at 2 Mb/s needs only a few dB, so a's frames survive at every distance here.
            assert!(s.0 > 1.3, "SINR, b at {db} m: a gets {}", s.0);
            if db < 178.0 {
                assert!(
                    t.0 < 0.5 * s.0,
                    "threshold, b at {db} m: {t:?} vs SINR {s:?}"
                );
            }
            // b loses most of its frames under both models (a is far stronger at the AP).
            assert!(t.1 < 0.5 && s.1 < 0.5, "b at {db} m: {t:?} {s:?}");
        } else {
            // RTS/CTS gives the hidden station b a share under both models, and the channel
            // stays busy. b gets less under SINR: there the AP, receiving a's frame when b's
            // RTS arrives, simply keeps it; under ns-2's capture it also sets its NAV to EIFS +
            // the RTS's air time and so cannot answer a's next RTS, which leaves b more turns.
            let basic = rows.iter().find(|r| r.0 == db && !r.1).unwrap();
            assert!(
                t.1 > 0.5 && t.1 > 2.0 * basic.2 .1,
                "threshold, b at {db} m: {t:?}"
            );
            assert!(
                s.1 > 0.1 && s.1 > 2.0 * basic.3 .1,
                "SINR, b at {db} m: {s:?}"
            );
            assert!(
                t.0 + t.1 > 1.4 && s.0 + s.1 > 1.4,
                "b at {db} m: {t:?} {s:?}"
            );
        }
    }
}

#[test]
fn sinr_reception_rejects_what_it_cannot_model() {
    let err_with = |wlan: &str, ov: &[(&str, &str)]| {
        let toml = hidden_toml(-100.0, 100.0, false, wlan);
        let ov: Vec<(String, String)> = ov
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        match api::run(&toml, Format::Toml, Some(1), &ov, None) {
            Ok(_) => panic!("accepted: {wlan}"),
            Err(e) => e.to_string(),
        }
    };
    let err = |wlan: &str| err_with(wlan, &[]);
    let e = err("propagation = { model = \"unit_disk\" }\nreception = { model = \"sinr\" }");
    assert!(
        e.contains("wlans.bss.reception.model") && e.contains("log_distance"),
        "{e}"
    );
    // OFDM rates are modelled now; a rate of neither PHY is not.
    let e = err_with(
        "reception = { model = \"sinr\" }",
        &[
            ("wlans.bss.phy", "erp_ofdm"),
            ("wlans.bss.basic_rate", "3Mbps"),
        ],
    );
    assert!(
        e.contains("wlans.bss") && e.contains("allowed (Mb/s): 1, 2, 5.5, 11"),
        "{e}"
    );
    let e = err("propagation = { model = \"two_ray_ground\", shadowing_db = 4.0 }");
    assert!(
        e.contains("propagation.shadowing_db") && e.contains("log_distance"),
        "{e}"
    );
    let e = err("prop_delay = \"2us\"\nprop_delay_from_distance = true");
    assert!(e.contains("wlans.bss.prop_delay"), "{e}");
}

// ---------------------------------------------------------------------- ns-3

#[test]
fn wlan_download_matches_ns3() {
    // ns-3 3.44 (PyPI ns3 3.44.post0) running ../shared/peers/ns3/wlan_download.py on the same
    // setup, `--bytes B --delack 2|1`: its download times (s) and, for the 10 MB run without
    // delayed ACK (`--log-modes`), its 11 Mb/s DATA transmissions. See docs/validation/wifi.md.
    let ns3 = [
        ("10MB", true, 15.464661),
        ("10MB", false, 18.02849),
        ("100MB", true, 154.836276),
        ("100MB", false, 180.095627),
    ];
    let dl = include_str!("../../../examples/wlan_download.toml");
    for (size, delack, want) in ns3 {
        let ov: Vec<(String, String)> = [
            ("flows.download.size", size.to_string()),
            ("tcp.delayed_ack", delack.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let o = api::run(dl, Format::Toml, Some(1), &ov, None).unwrap();
        let got = o.summary.flows[0].response_time_s.unwrap();
        let err = (got - want) / want;
        let data: u64 = o.summary.wifi.iter().map(|w| w.frames_sent).sum();
        let retries: u64 = o.summary.wifi.iter().map(|w| w.retries).sum();
        println!(
            "{size} delayed_ack={delack}: {got:.3} s vs ns-3 {want:.3} s ({:+.2} %), {data} data frames, {retries} MAC retries",
            err * 100.0
        );
        // Measured within 0.25 %; the issue's bound is 3 %.
        assert!(err.abs() < 0.03, "{size} {delack}: {got} vs {want}");
        if size == "10MB" && !delack {
            // ns-3: 14,375 DATA frames for 13,704 acknowledged MSDUs, i.e. 671 retries.
            let ns3_retries = 14_375.0 - 13_704.0;
            assert!(retries > 0);
            assert!(
                (retries as f64 / ns3_retries - 1.0).abs() < 0.15,
                "{retries} MAC retries vs ns-3's {ns3_retries}"
            );
        }
    }
}

// ---------------------------------------------------------------------- seed 004's PHY

/// ALGORITHMS.md §6.3: one station's TCP goodput bound with `payload`-byte segments and one TCP
/// ACK (40 B) per segment, no RTS: payload·8 / (T_exch(data) + T_exch(ACK)), where T_exch =
/// DIFS + E[backoff]·slot + frame + SIFS + MAC ACK (collisions and propagation ignored); Mb/s.
fn one_station_bound(phy: &PhyParams, rate: u64, payload: u32) -> f64 {
    let us = |t: tcplab_core::SimTime| t.0 as f64 / 1e3;
    // Backoff uniform on [0, CW] (the standard) or [0, CW − 1] (ns-2).
    let backoff = if phy.ns2_backoff {
        (phy.cw_min as f64 - 1.0) / 2.0
    } else {
        phy.cw_min as f64 / 2.0
    };
    let exch = |ip: u32| {
        us(phy.difs)
            + backoff * us(phy.slot)
            + us(phy.duration(phy.data_mpdu(ip), rate))
            + us(phy.sifs)
            + us(phy.ack_duration(rate))
    };
    payload as f64 * 8.0 / (exch(payload + 40) + exch(40))
}

#[test]
fn seed004_preset_is_the_closest_to_the_papers_5_99_mbps() {
    // Dalal et al. report 5.99 Mb/s for one flow at 0 % FER over "802.11g at 11 Mb/s" with
    // 1000-B packets and an ACK per packet; the bound of each preset and rate decides which
    // preset the adaptive-tcp experiment uses (docs/validation/adaptive_tcp.md).
    const PAPER: f64 = 5.99; // Mb/s
    let mut bounds = Vec::new();
    for name in PhyParams::PRESETS {
        let phy = PhyParams::by_name(name).unwrap();
        for &rate in &phy.rates {
            if rate >= 2_000_000 {
                bounds.push((name.to_string(), rate, one_station_bound(&phy, rate, 1000)));
            }
        }
    }
    for (n, r, b) in &bounds {
        println!("{n:20} {:5.1} Mb/s: {b:.2} Mb/s", *r as f64 / 1e6);
    }
    let best = bounds
        .iter()
        .min_by(|a, b| (a.2 - PAPER).abs().total_cmp(&(b.2 - PAPER).abs()))
        .unwrap();
    assert_eq!(
        (best.0.as_str(), best.1),
        ("erp_ofdm_long_slot", 12_000_000),
        "{best:?}"
    );
}

// ---------------------------------------------------------------------- OFDM under SINR

/// `hidden_toml`'s WLAN with a 1 m from the AP and b out of everyone's reach, under the SINR
/// model at `phy` and `mbps`, for `secs`, with the path loss set so that the SNR at the AP is
/// `snr_db` (0 dBm sent; noise floor −174 dBm/Hz over 22 MHz (DSSS) or 20 MHz (OFDM) + 7 dB, as
/// the scenario builds it: −93.58 / −93.99 dBm).
fn sinr_link(phy: &str, mbps: f64, snr_db: f64, secs: f64) -> RunOutput {
    let bw: f64 = if phy == "erp_ofdm" { 20e6 } else { 22e6 };
    let noise_dbm = -174.0 + 10.0 * bw.log10() + 7.0;
    let wlan = format!(
        "reception = {{ model = \"sinr\" }}\n\
         propagation = {{ model = \"log_distance\", tx_power_w = 0.001, reference_loss_db = {}, \
         rx_thresh_w = 1e-15, cs_thresh_w = 1e-15 }}",
        -noise_dbm - snr_db
    );
    let toml = hidden_toml(1.0, -10_000.0, false, &wlan)
        .replace("duration = \"20s\"", &format!("duration = \"{secs}s\""))
        .replace("rate = \"2Mbps\"", &format!("rate = \"{mbps}Mbps\""))
        .replace("phy = \"hr_dsss\"", &format!("phy = \"{phy}\""));
    run(&toml)
}

/// Throughput (Mb/s) of a's 1.5 Mb/s CBR stream at the AP 1 m away, 802.11g at `mbps`, SNR
/// `snr_db`, 20 s.
fn ofdm_link_mbps(mbps: f64, snr_db: f64) -> f64 {
    let o = sinr_link("erp_ofdm", mbps, snr_db, 20.0).summary;
    o.cbr.iter().map(|c| c.bytes_received).max().unwrap() as f64 * 8.0 / o.sim_time_s / 1e6
}

#[test]
fn ofdm_frames_survive_above_their_rates_threshold_only() {
    // NIST model, 1536-B MPDUs: 10 % PER at 22.6 dB for 54 Mb/s and 3.9 dB for 6 Mb/s
    // (error_rate tests); seven retries lift the delivery well below that, so test either side
    // of each curve by a few dB.
    for (rate, low, high) in [(54.0, 18.0, 25.0), (6.0, -1.0, 6.0)] {
        let (lo, hi) = (ofdm_link_mbps(rate, low), ofdm_link_mbps(rate, high));
        eprintln!("{rate} Mb/s: {lo:.3} Mb/s at {low} dB, {hi:.3} Mb/s at {high} dB");
        assert!(lo < 0.05, "{rate} at {low} dB: {lo} Mb/s");
        assert!(hi > 1.4, "{rate} at {high} dB: {hi} Mb/s");
    }
}

/// Ad hoc: a (−200 m) sends to r (0 m) while b (400 m) sends to c (600 m); a and b, 600 m
/// apart, cannot hear each other, and b's frames reach r sensed but undecodable, 12 dB below
/// a's. Without preamble detection r locks onto b's frame whenever it arrives first, and a's
/// frame is then only interference; with ns-3's threshold detection r ignores b's frames and
/// decodes a's through them.
#[test]
fn preamble_detection_frees_the_phy_from_undecodable_frames() {
    let a_fails = |detection: &str| {
        let mut toml = String::from("name = \"preamble\"\nduration = \"20s\"\n");
        let nodes = [("a", -200), ("r", 0), ("b", 400), ("c", 600)];
        for (n, _) in nodes {
            toml += &format!("[[nodes]]\nname = \"{n}\"\n");
        }
        toml += &format!(
            "[[wlans]]\nname = \"w\"\nmode = \"adhoc\"\nphy = \"ns2_dsss\"\nrate = \"2Mbps\"\n\
             rts_threshold = \"3000B\"\npropagation = {{ model = \"two_ray_ground\" }}\n\
             reception = {{ model = \"sinr\"{detection} }}\n"
        );
        for (n, x) in nodes {
            toml += &format!("[[wlans.stations]]\nnode = \"{n}\"\nposition = [\"{x}m\", \"0m\"]\n");
        }
        for (f, src, dst) in [("ua", "a", "r"), ("ub", "b", "c")] {
            toml += &format!(
                "[[flows]]\nname = \"{f}\"\napp = \"cbr\"\nsrc = \"{src}\"\ndst = \"{dst}\"\n\
                 rate = \"1.5Mbps\"\npacket_size = \"1000B\"\n"
            );
        }
        let o = run(&toml);
        let a = o.summary.wifi.iter().find(|w| w.node == "a").unwrap();
        let c = o.summary.cbr.iter().find(|c| c.name == "ua").unwrap();
        // a's frames that failed at r, per frame a delivered.
        a.tx_failures as f64 / c.received as f64
    };
    let sensed = a_fails("");
    let threshold = a_fails(", preamble_detection = \"threshold\"");
    println!(
        "a's failed transmissions per delivered frame: lock on every sensed frame {sensed:.3}, \
         threshold preamble detection {threshold:.3}"
    );
    assert!(
        sensed > 0.05 && threshold < 0.2 * sensed,
        "{sensed} vs {threshold}"
    );
    // A threshold above the SINR a's frames keep with b's on the air (12 dB) makes r miss
    // those preambles again.
    let strict = a_fails(", preamble_detection = \"threshold\", preamble_threshold_db = 13.0");
    println!("with a 13 dB preamble threshold: {strict:.3}");
    assert!(strict > 5.0 * threshold, "{strict} vs {threshold}");
}

#[test]
fn preamble_detection_is_named_when_misused() {
    let err = |wlan: &str| {
        let toml = hidden_toml(-100.0, 100.0, false, wlan);
        match api::run(&toml, Format::Toml, Some(1), &[], None) {
            Ok(_) => panic!("accepted: {wlan}"),
            Err(e) => e.to_string(),
        }
    };
    let e = err("reception = { model = \"threshold\", preamble_detection = \"threshold\" }");
    assert!(
        e.contains("wlans.bss.reception.preamble_detection")
            && e.contains("only used by model = \"sinr\""),
        "{e}"
    );
    let e = err("propagation = { model = \"two_ray_ground\" }\nreception = { model = \"sinr\", preamble_threshold_db = 4.0 }");
    assert!(
        e.contains("wlans.bss.reception.preamble_threshold_db")
            && e.contains("preamble_detection = \"threshold\""),
        "{e}"
    );
    let e = err("propagation = { model = \"two_ray_ground\" }\nreception = { model = \"sinr\", preamble_detection = \"always\" }");
    assert!(
        e.contains("preamble_detection") && e.contains("threshold"),
        "{e}"
    );
}

// ---------------------------------------------------------------------- link level vs ns-3

/// ns-3 3.44's frame error rate on a 2-node link (validation/ns3/link_per.py: YansWifiPhy with
/// NistErrorRateModel selected, preamble detection disabled, 1536-B MPDUs, 2000 frames per SNR
/// point in 0.25 dB steps, seed 1; results/link_per.json): per rate (Mb/s), the SNR (dB) where its
/// measured PER falls through 90 % and through 10 %.
const NS3_LINK_PER: [(&str, f64, f64, f64); 12] = [
    ("hr_dsss", 1.0, -4.898, -3.402),
    ("hr_dsss", 2.0, -0.424, 1.260),
    ("hr_dsss", 5.5, 2.258, 3.807),
    ("hr_dsss", 11.0, 5.273, 6.775),
    ("erp_ofdm", 6.0, 3.062, 3.934),
    ("erp_ofdm", 9.0, 5.897, 6.893),
    ("erp_ofdm", 12.0, 6.065, 6.957),
    ("erp_ofdm", 18.0, 8.922, 9.899),
    ("erp_ofdm", 24.0, 12.522, 13.474),
    ("erp_ofdm", 36.0, 15.611, 16.631),
    ("erp_ofdm", 48.0, 20.355, 21.394),
    ("erp_ofdm", 54.0, 21.562, 22.656),
];

/// ns-3 3.44 measures a DSSS frame's SNR over 20 MHz instead of its 22-MHz channel
/// (`DsssPhy::GetRxChannelWidth` returns 20 MHz whenever the PHY's channel is wider than 20 MHz, a
/// workaround for HE PHYs), so at the same received power its DSSS error model sees 10·log10(22/20)
/// dB more SNR than tcplab's, which takes the noise over the 22-MHz channel as the DSSS error
/// model assumes (Eb/N0 = SNR · 22 MHz / bit rate). Its DSSS curves sit that far to the left.
const NS3_DSSS_NOISE_SHIFT_DB: f64 = 0.414;

/// Measured: tcplab within 0.07 dB of ns-3 (after the DSSS shift) at every crossing; the margin
/// of 0.08 dB is about three standard errors of a crossing estimated from 1000 frames per point
/// (PER 10 % ± 0.95 % on a curve falling about 0.3 per dB there).
const LINK_PER_TOLERANCE_DB: f64 = 0.15;

/// tcplab's frame error rate (data frames the AP decoded / data frames `a` sent, retries
/// included) of 1472-B datagrams (1536-B MPDUs) from `a` to the AP over `sinr_link` at `snr_db`,
/// over at least `frames` data frames.
fn link_per(phy: &str, mbps: f64, snr_db: f64, frames: u64) -> f64 {
    let p = PhyParams::by_name(phy).unwrap();
    // 1.5 Mb/s of 1472-B datagrams is 127 frames a second when they all pass; an attempt lasts at
    // most DIFS + CWmax slots + the frame + an ACK timeout (the CW is reset after seven attempts,
    // so the mean is far below that).
    let worst = p.difs
        + p.slot.times(1023)
        + p.duration(p.data_mpdu(1500), (mbps * 1e6) as u64)
        + p.response_timeout;
    let secs = (frames as f64 / 100.0).max(worst.0 as f64 / 1e9 * frames as f64);
    let o = sinr_link(phy, mbps, snr_db, secs.ceil()).summary;
    let node = |n: &str| o.wifi.iter().find(|w| w.node == n).unwrap();
    let (sent, decoded) = (node("a").frames_sent, node("ap").frames_received);
    assert!(
        sent >= frames,
        "{phy} {mbps} Mb/s at {snr_db} dB: {sent} frames"
    );
    1.0 - decoded as f64 / sent as f64
}

/// The first SNR where `per` (on the ascending grid `snr`) falls through `level`, linear between
/// grid points (as link_per.py computes ns-3's).
fn per_crossing(snr: &[f64], per: &[f64], level: f64) -> Option<f64> {
    (1..snr.len()).find_map(|i| {
        let (p0, p1) = (per[i - 1], per[i]);
        (p0 >= level && level > p1)
            .then(|| snr[i - 1] + (p0 - level) / (p0 - p1) * (snr[i] - snr[i - 1]))
    })
}

#[test]
fn link_frame_error_rate_matches_ns3() {
    // Each rate swept over the same 0.25 dB grid as ns-3, from 1 dB below its 90 % point to 1 dB
    // above its 10 % point, 2000 frames per point; PER printed at every point.
    for (phy, mbps, ns3_90, ns3_10) in NS3_LINK_PER {
        let shift = if phy == "hr_dsss" {
            NS3_DSSS_NOISE_SHIFT_DB
        } else {
            0.0
        };
        let (ns3_90, ns3_10) = (ns3_90 + shift, ns3_10 + shift);
        let lo = ((ns3_90 - 1.0) * 4.0).floor() as i32;
        let hi = ((ns3_10 + 1.0) * 4.0).ceil() as i32;
        let snr: Vec<f64> = (lo..=hi).map(|k| k as f64 / 4.0).collect();
        let per: Vec<f64> = snr.iter().map(|&s| link_per(phy, mbps, s, 2000)).collect();
        let at90 = per_crossing(&snr, &per, 0.9).unwrap();
        let at10 = per_crossing(&snr, &per, 0.1).unwrap();
        let cells: Vec<String> = snr
            .iter()
            .zip(&per)
            .map(|(s, p)| format!("{s}:{p:.3}"))
            .collect();
        println!(
            "{phy} {mbps} Mb/s: PER 90 % at {at90:.2} dB (ns-3 {ns3_90:.2}, {:+.2}), 10 % at {at10:.2} dB (ns-3 {ns3_10:.2}, {:+.2}); {}",
            at90 - ns3_90,
            at10 - ns3_10,
            cells.join(" ")
        );
        assert!(
            (at90 - ns3_90).abs() < LINK_PER_TOLERANCE_DB,
            "{phy} {mbps}: PER 90 % at {at90} dB vs ns-3 {ns3_90}"
        );
        assert!(
            (at10 - ns3_10).abs() < LINK_PER_TOLERANCE_DB,
            "{phy} {mbps}: PER 10 % at {at10} dB vs ns-3 {ns3_10}"
        );
    }
}

/// Runs `text` with MAC wake-ups that find nothing to do handled in the event queue (`lazy`) or
/// popped and dispatched as events; returns the summary as JSON without its wall time and event
/// count, the event count, and the number of wake-ups handled in the queue.
fn run_wakeups(text: &str, seed: u64, duration: &str, lazy: bool) -> (String, u64, u64) {
    let ov = [("duration".to_string(), duration.to_string())];
    let mut p = api::prepare(text, Format::Toml, Some(seed), &ov, None).unwrap();
    p.world.lazy_wakeups = lazy;
    while !p.step(u64::MAX).unwrap() {}
    let (events, idle) = (p.world.events, p.world.idle_wakeups);
    let mut out = p.finish().unwrap();
    out.summary.wall_time_s = 0.0;
    out.summary.events = 0;
    (serde_json::to_string(&out.summary).unwrap(), events, idle)
}

#[test]
fn idle_mac_wakeups_leave_the_queue_without_being_events_and_change_nothing() {
    // On the 7-hop string and the saturated WLAN most MAC wake-ups find their deadline moved
    // later (the awaited ACK or CTS came, the count froze): re-keyed in the queue, they are no
    // events, and since they keep the key a pop and a re-schedule would give them, every result
    // stays the same.
    for (text, duration) in [
        (include_str!("../../../examples/adhoc_string.toml"), "20s"),
        (include_str!("../../../examples/wlan_saturation.toml"), "5s"),
    ] {
        let (lazy, lazy_events, idle) = run_wakeups(text, 2, duration, true);
        let (eager, eager_events, none) = run_wakeups(text, 2, duration, false);
        assert_eq!(lazy, eager, "identical summaries");
        assert_eq!(none, 0);
        assert!(
            idle > eager_events / 10,
            "{idle} idle wake-ups of {eager_events}"
        );
        assert_eq!(lazy_events + idle, eager_events);
    }
}
