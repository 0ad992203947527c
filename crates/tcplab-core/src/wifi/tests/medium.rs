//! Who hears whom, when, at which rate, and what becomes of each frame at each hearer.

use super::*;

/// ns-2's two-ray ground radio with the carrier-sense threshold raised to the reception
/// threshold: 250 m both, so stations 260 m apart are hidden from each other.
fn two_ray_no_cs_margin() -> Propagation {
    let r = RadioParams {
        cs_thresh: RadioParams::default().rx_thresh,
        ..RadioParams::default()
    };
    Propagation::TwoRayGround(r)
}

#[test]
fn the_propagation_delay_is_the_phys_constant_or_the_distance_over_c() {
    // 10 µs of light travel; the unit disk reaches that far.
    let d = channel::SPEED_OF_LIGHT * 10e-6;
    let run = |from_distance: bool| {
        let mut c = cfg();
        c.propagation = Propagation::UnitDisk {
            rx_range: 5000.0,
            cs_range: 5000.0,
        };
        c.delay_from_distance = from_distance;
        assert_eq!(c.prop_delay(d), if from_distance { us(10) } else { us(1) });
        let mut air = Air::new(c, &[(0.0, 0.0), (d, 0.0)]);
        let delay = air.wifi.stations[1].nbrs[0].delay;
        air.send_at(SimTime::ZERO, 0, 1, 1000);
        air.run_until(ms(20));
        let tx = air.records(FrameEvent::Tx, FrameKind::Data)[0];
        let rx = air.records(FrameEvent::RxOk, FrameKind::Data)[0];
        (delay, rx.t - tx.t)
    };
    let (d_const, flight_const) = run(false);
    let (d_dist, flight_dist) = run(true);
    assert_eq!((d_const, d_dist), (us(1), us(10)));
    // The frame's end reaches the receiver one propagation delay after it ends at the sender.
    assert_eq!(flight_dist - flight_const, us(9));
}

#[test]
fn the_neighbour_lists_hold_the_sensed_stations_and_under_sinr_the_interferers() {
    // Two-ray ground: decodable to 250 m, sensed to 550 m. Station 3 at 1.5 km is 21 dB above
    // a 22 MHz noise floor (Pr = 1.43/d⁴ W = 2.8e-13 W against 4.4e-13 W of noise, i.e. above
    // noise/100); station 4 at 5 km is below noise/100 (2.3e-15 W).
    // On a diagonal away from the origin, so that both coordinates count.
    let at = [0.0, 200.0, 500.0, 1500.0, 5000.0].map(|x| (1000.0 + 0.6 * x, 1000.0 + 0.8 * x));
    let run = |reception: Reception| {
        let mut c = cfg();
        c.propagation = Propagation::ns2_default();
        c.reception = reception;
        let air = Air::new(c, &at);
        air.wifi.stations[0]
            .nbrs
            .iter()
            .map(|n| (n.sta, n.reach.sensed, n.reach.decodable))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        run(Reception::Threshold),
        vec![(1, true, true), (2, true, false)]
    );
    assert_eq!(
        run(Reception::Sinr(SinrParams::thermal(22e6, 7.0))),
        vec![(1, true, true), (2, true, false), (3, false, false)]
    );
    // Each list in member order, and the relation symmetric.
    let mut c = cfg();
    c.propagation = Propagation::ns2_default();
    let air = Air::new(c, &at);
    let list = |s: usize| -> Vec<u32> { air.wifi.stations[s].nbrs.iter().map(|n| n.sta).collect() };
    assert_eq!(list(1), vec![0, 2]);
    assert_eq!(list(2), vec![0, 1]);
    assert!(list(3).is_empty() && list(4).is_empty());
}

#[test]
fn shadowing_draws_one_normal_per_pair_whatever_the_order() {
    let sigma = 6.0;
    let mut c = cfg();
    c.propagation = Propagation::LogDistance {
        radio: RadioParams::default(),
        exponent: 3.0,
        ref_distance: 1.0,
        ref_loss_db: None,
        shadowing_db: sigma,
    };
    let plain = c.propagation.reach(100.0).power;
    let at = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)];
    let air = Air::new(c, &at);
    for (a, b) in [(0u32, 1u32), (1, 2)] {
        let z = pair_normal(7, a, b);
        let want = plain * 10f64.powf(sigma * z / 10.0);
        for (me, other) in [(a, b), (b, a)] {
            let n = air.wifi.stations[me as usize]
                .nbrs
                .iter()
                .find(|n| n.sta == other)
                .unwrap();
            assert!(
                (n.reach.power / want - 1.0).abs() < 1e-12,
                "{me}→{other}: {} W, not {want} W",
                n.reach.power
            );
        }
    }
    // The draw is the pair's: each station of a pair gets its own, and over many pairs they are
    // standard normal.
    assert_ne!(pair_normal(7, 0, 5), pair_normal(7, 1, 5));
    assert_ne!(pair_normal(7, 1, 5), pair_normal(8, 1, 5));
    let z: Vec<f64> = (0..60)
        .flat_map(|a| (a + 1..60).map(move |b| pair_normal(3, a, b)))
        .collect();
    let n = z.len() as f64;
    let mean = z.iter().sum::<f64>() / n;
    let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    // 1,770 draws: the mean's standard error is 0.024, the variance's 0.034.
    assert!(mean.abs() < 0.1, "mean {mean}");
    assert!((var - 1.0).abs() < 0.15, "variance {var}");
    assert!(z.iter().any(|&x| x < -2.0) && z.iter().any(|&x| x > 2.0));
}

#[test]
fn stations_added_one_by_one_get_the_lists_a_full_recompute_gives() {
    // add_station appends only the new station's pairs; the lists must equal update_neighbours'
    // (same members, order, reach and delay), with shadowing and the SINR model's faint
    // neighbours, on a scatter where some pairs are in range and some are not.
    let mut c = cfg();
    c.propagation = Propagation::LogDistance {
        radio: RadioParams::default(),
        exponent: 3.0,
        ref_distance: 1.0,
        ref_loss_db: None,
        shadowing_db: 4.0,
    };
    c.reception = Reception::Sinr(SinrParams::thermal(22e6, 7.0));
    let at: Vec<(f64, f64)> = (0..40)
        .map(|i| ((i * 37 % 23) as f64 * 150.0, (i * 11 % 17) as f64 * 250.0))
        .collect();
    let mut air = Air::new(c, &at);
    // Per station: (neighbour, power bits, sensed, decodable, delay) in list order.
    type Entry = (u32, u64, bool, bool, SimTime);
    let lists = |w: &Wifi| -> Vec<Vec<Entry>> {
        w.stations
            .iter()
            .map(|s| {
                s.nbrs
                    .iter()
                    .map(|n| {
                        (
                            n.sta,
                            n.reach.power.to_bits(),
                            n.reach.sensed,
                            n.reach.decodable,
                            n.delay,
                        )
                    })
                    .collect()
            })
            .collect()
    };
    let added = lists(&air.wifi);
    air.wifi.update_neighbours(0);
    let recomputed = lists(&air.wifi);
    assert_eq!(added, recomputed);
    let linked = added.iter().filter(|l| !l.is_empty()).count();
    let total: usize = added.iter().map(Vec::len).sum();
    assert!(
        linked > 20 && total < 40 * 39,
        "{linked} stations linked, {total} entries"
    );
}

#[test]
fn over_a_hundred_thousand_pairs_the_shadowing_draws_have_the_normal_quartiles() {
    // Box–Muller's angle must be uniform: a skewed one (2π/u instead of 2π·u) moves the mean
    // and the quartiles by about 0.05, which 99,681 draws resolve (standard errors: 0.003 for
    // the mean, 0.004 for a quartile; bounds at 4-5 of them).
    let mut z: Vec<f64> = (0..447u32)
        .flat_map(|a| (a + 1..447).map(move |b| pair_normal(11, a, b)))
        .collect();
    z.sort_by(f64::total_cmp);
    let n = z.len();
    let mean = z.iter().sum::<f64>() / n as f64;
    let q = |p: f64| z[(p * n as f64) as usize];
    assert!(mean.abs() < 0.015, "mean {mean}");
    assert!(q(0.5).abs() < 0.02, "median {}", q(0.5));
    // The standard normal's quartiles are ±0.6745.
    assert!(
        (q(0.25) + 0.6745).abs() < 0.02,
        "first quartile {}",
        q(0.25)
    );
    assert!(
        (q(0.75) - 0.6745).abs() < 0.02,
        "third quartile {}",
        q(0.75)
    );
}

#[test]
fn adjacency_is_the_ap_in_a_bss_and_the_decodable_pairs_ad_hoc() {
    // 0 – 1 – 2 at 200 m: 0 and 2 sense each other (400 m) but cannot decode.
    let at = [(0.0, 0.0), (200.0, 0.0), (400.0, 0.0)];
    let mut air = Air::new(cfg(), &at);
    assert!(!air.wifi.is_empty());
    assert_eq!(air.wifi.adjacency(), vec![(0, 1), (1, 0), (1, 2), (2, 1)]);
    // Infrastructure: the AP with every other station, whatever the distance.
    air.wifi.wlans[0].cfg.mode = Mode::Infrastructure;
    assert!(air.wifi.adjacency().is_empty(), "no AP, no link");
    air.wifi.wlans[0].ap = Some(2);
    assert_eq!(air.wifi.adjacency(), vec![(2, 0), (0, 2), (2, 1), (1, 2)]);
    assert!(Wifi::new().is_empty());
}

#[test]
fn moving_stations_recomputes_who_hears_whom() {
    let mut c = cfg();
    let mut air_cfg = cfg();
    air_cfg.name = "other".into();
    c.name = "first".into();
    let mut air = Air::new(c, &[(0.0, 0.0), (100.0, 0.0), (200.0, 0.0)]);
    // A second WLAN with two stations, 100 m apart.
    let w2 = air.wifi.add_wlan(air_cfg);
    assert_eq!(w2, 1);
    for (i, x) in [(3u64, 0.0), (4, 100.0)] {
        let rng = |k: u64| Rng::derive(7, StreamId::Custom(10 * i + k));
        air.wifi.add_station(
            w2,
            NodeId(100 + i as u32),
            (x, 0.0),
            i == 3,
            LossModel::None,
            Outage::none(),
            [rng(0), rng(1), rng(2), rng(3)],
        );
    }
    assert_eq!(air.wifi.wlans[1].ap, Some(3));
    assert_eq!(air.wifi.wlans[1].stations, vec![3, 4]);
    let pairs = |air: &Air| air.wifi.adjacency().len();
    assert_eq!(pairs(&air), 6 + 2);
    // Station 2 leaves 0's decoding range (300 m) and stays in 1's; then it goes far away.
    air.wifi.set_position(2, (300.0, 0.0));
    assert_eq!(air.wifi.adjacency()[..2], [(0, 1), (1, 0)]);
    assert_eq!(pairs(&air), 4 + 2);
    air.wifi.set_position(2, (1000.0, 0.0));
    assert!(air.wifi.stations[0].nbrs.iter().all(|n| n.sta != 2));
    // Two stations of different WLANs move at once: both WLANs are recomputed.
    air.wifi
        .move_stations(&[(0, (350.0, 0.0)), (4, (300.0, 0.0))]);
    assert_eq!(air.wifi.stations[0].pos, (350.0, 0.0));
    assert_eq!(
        air.wifi.stations[1].nbrs.len(),
        1,
        "0 is 250 m from 1: {:?}",
        air.wifi.stations[1].nbrs
    );
    assert!(air.wifi.stations[3].nbrs.is_empty() || !air.wifi.stations[3].nbrs[0].reach.decodable);
    assert_eq!(air.wifi.adjacency(), vec![(0, 1), (1, 0)]);
}

#[test]
fn broadcasts_go_at_the_lowest_basic_rate_and_unicasts_at_the_distances_rate() {
    let mut c = cfg();
    c.phy = PhyParams::hr_dsss(false);
    c.phy.basic_rates = vec![2_000_000, 1_000_000];
    c.rate = RateSelection::Distance(vec![
        (50.0, 11_000_000),
        (150.0, 5_500_000),
        (400.0, 2_000_000),
    ]);
    // 40 m and 160 m from station 0, neither along an axis nor from the origin.
    let mut air = Air::new(c, &[(10.0, 10.0), (34.0, 42.0), (106.0, 138.0)]);
    air.send_at(SimTime::ZERO, 0, BROADCAST, 500);
    air.send_at(SimTime::ZERO, 0, 1, 500);
    air.send_at(SimTime::ZERO, 0, 2, 500);
    air.run_until(ms(50));
    let rates: Vec<(u32, u64)> = air
        .records(FrameEvent::Tx, FrameKind::Data)
        .iter()
        .map(|r| (r.dst, r.rate))
        .collect();
    assert_eq!(
        rates,
        vec![(BROADCAST, 1_000_000), (1, 11_000_000), (2, 2_000_000)]
    );
    // The broadcast is decoded by both, and nobody acknowledges it.
    let ok = air.records(FrameEvent::RxOk, FrameKind::Data);
    assert_eq!(ok.len(), 4, "{ok:?}");
    assert_eq!(air.out.up.len(), 4);
    assert_eq!(air.records(FrameEvent::Tx, FrameKind::Ack).len(), 2);
}

#[test]
fn a_full_queue_refuses_a_packet_and_a_drain_takes_what_waits_for_one_station() {
    let mut c = cfg();
    c.mac.queue_limit = 3;
    let mut air = Air::new(c, &[(0.0, 0.0), (100.0, 0.0), (0.0, 100.0)]);
    air.send_at(SimTime::ZERO, 0, 1, 1000); // on the air at once
    for dst in [1, 2, 1] {
        air.send_at(us(10), 0, dst, 1000);
    }
    assert!(!air.wifi.enqueue(us(10), 0, PktId(99), 2, 1000, false));
    assert_eq!(air.wifi.drain_queue_for(0, 1), vec![PktId(1), PktId(3)]);
    air.run_until(ms(100));
    let sent: Vec<u32> = air
        .records(FrameEvent::RxOk, FrameKind::Data)
        .iter()
        .map(|r| r.dst)
        .collect();
    assert_eq!(sent, vec![1, 2], "the frame in progress and the one for 2");
    // The acknowledged copies are freed.
    assert_eq!(air.out.freed, vec![PktId(0), PktId(2)]);
}

#[test]
fn a_frame_given_up_is_handed_back_with_a_link_failure_naming_the_next_hop() {
    // Station 1 is out of range: every attempt goes unanswered.
    let mut air = Air::new(cfg(), &[(0.0, 0.0), (1000.0, 0.0)]);
    let p = air.send_at(SimTime::ZERO, 0, 1, 500);
    air.run_until(SimTime::from_secs(1));
    assert_eq!(air.out.failed, vec![(0, p, 1)]);
    assert!(air.out.freed.is_empty(), "the network layer owns it again");
    let f: Vec<&LinkSignal> = air.wifi.log.iter().collect();
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].node, f[0].peer, f[0].sta, f[0].kind),
        (NodeId(100), Some(NodeId(101)), 0, LinkSignalKind::Failure)
    );
    assert_eq!(air.stats(0).tx_failures, 7, "dot11ShortRetryLimit");
    assert_eq!(air.records(FrameEvent::Tx, FrameKind::Data).len(), 7);
    assert!(f[0].t > air.records(FrameEvent::Tx, FrameKind::Data)[6].t);
}

/// Station 0 sends `n` packets to station 1 (and station 1 `n` to station 0), with the loss
/// model `loss` on station 0 only, acting per attempt or above the MAC; returns the air.
fn lossy(loss: LossModel, above_mac: bool, n: u32) -> Air {
    let mut air = Air::with(cfg(), &[(0.0, 0.0), (100.0, 0.0)], |s| {
        let l = if s == 0 {
            loss.clone()
        } else {
            LossModel::None
        };
        (l, Outage::none())
    });
    for st in &mut air.wifi.stations {
        st.loss_above_mac = above_mac;
    }
    air.wifi.stations[0].pcap = true;
    for k in 0..n {
        air.send_at(ms(20 * k as u64), 0, 1, 500);
        air.send_at(ms(20 * k as u64 + 10), 1, 0, 500);
    }
    air.run_until(ms(20 * n as u64 + 500));
    air
}

#[test]
fn the_error_model_acts_per_attempt_below_the_mac_and_per_packet_above_it() {
    // Below the MAC: station 0's sending and receiving chains lose every attempt, so each frame
    // is retried to the limit and none is delivered; every loss is an rx_error at the receiver.
    let air = lossy(LossModel::Bernoulli { p: 1.0 }, false, 2);
    assert!(air.out.up.is_empty());
    assert_eq!(air.records(FrameEvent::Tx, FrameKind::Data).len(), 4 * 7);
    assert_eq!((air.stats(1).rx_errors, air.stats(0).rx_errors), (14, 14));
    assert_eq!(air.records(FrameEvent::RxError, FrameKind::Data).len(), 28);
    assert_eq!(air.records(FrameEvent::Tx, FrameKind::Ack).len(), 0);
    // pcap shows each of station 0's packets once, at its first attempt.
    assert_eq!(air.out.pcap_tx, vec![(0, PktId(0)), (0, PktId(2))]);
    assert_eq!(air.wifi.stations[0].packet_losses, 0);

    // Above the MAC: every frame is acknowledged at once, then the packet is lost between the
    // MAC and IP, at its receiver.
    let air = lossy(LossModel::Bernoulli { p: 1.0 }, true, 2);
    assert!(air.out.up.is_empty());
    assert_eq!(air.records(FrameEvent::Tx, FrameKind::Data).len(), 4);
    assert_eq!(air.records(FrameEvent::Tx, FrameKind::Ack).len(), 4);
    assert_eq!(
        (air.stats(0).rx_errors, air.stats(1).rx_errors),
        (0, 0),
        "no frame error"
    );
    let losses = |air: &Air| {
        (
            air.wifi.stations[0].packet_losses,
            air.wifi.stations[1].packet_losses,
        )
    };
    // Station 0's chain: its sending side loses what it sends (counted at station 1), its
    // receiving side what it receives.
    assert_eq!(losses(&air), (2, 2));

    // Without loss, everything goes up once, and pcap sees only station 0's packets.
    let air = lossy(LossModel::None, true, 2);
    assert_eq!(air.out.up.len(), 4);
    assert_eq!(losses(&air), (0, 0));
    assert_eq!(air.out.pcap_tx.len(), 2);
    let air = lossy(LossModel::None, false, 2);
    assert_eq!(air.out.up.len(), 4);
}

#[test]
fn the_error_model_draws_once_per_attempt_on_each_chain() {
    // A loss of one attempt in two on station 0's chains: about half its attempts are lost and
    // retried, and every packet still gets through.
    let air = lossy(LossModel::Bernoulli { p: 0.5 }, false, 40);
    let drops = air.stats(0).drops_retry + air.stats(1).drops_retry;
    // A packet is dropped after 7 lost attempts (1 in 128).
    assert!(drops <= 2, "{drops}");
    assert_eq!(air.out.up.len() as u64, 80 - drops);
    let sent = |s: u32| air.stats(s).data_frames_sent;
    let (a, b) = (sent(0), sent(1));
    // Each packet takes 2 attempts on average (1/(1 − 0.5)); 40 packets each way.
    for n in [a, b] {
        assert!((60..=110).contains(&n), "{n} attempts for 40 packets");
    }
    let both = |f: fn(&MacStats) -> u64| f(air.stats(0)) + f(air.stats(1));
    assert_eq!(both(|s| s.tx_failures), a + b - (80 - drops));
    assert_eq!(
        both(|s| s.rx_errors) + both(|s| s.tx_collisions),
        both(|s| s.tx_failures),
        "every failed attempt is a frame error or a collision"
    );
    assert!(both(|s| s.rx_errors) > both(|s| s.tx_collisions));
    assert_eq!(air.out.pcap_tx.len(), 40);
}

/// The sources of the data frames with `event` at their addressee, in trace order.
/// How many data frames station `s` recorded as `event`.
fn data_records_at(air: &Air, s: u32, event: FrameEvent) -> usize {
    air.records(event, FrameKind::Data)
        .iter()
        .filter(|r| r.sta == s)
        .count()
}

/// (sender, time) of each data frame sent, in order.
fn data_sent(air: &Air) -> Vec<(u32, SimTime)> {
    air.records(FrameEvent::Tx, FrameKind::Data)
        .iter()
        .map(|r| (r.sta, r.t))
        .collect()
}

/// Station `s`'s neighbours as (station, sensed).
fn neighbours(air: &Air, s: u32) -> Vec<(u32, bool)> {
    air.wifi.stations[s as usize]
        .nbrs
        .iter()
        .map(|n| (n.sta, n.reach.sensed))
        .collect()
}

fn data_srcs(air: &Air, event: FrameEvent) -> Vec<u32> {
    air.records(event, FrameKind::Data)
        .iter()
        .map(|r| r.src)
        .collect()
}

#[test]
fn hidden_stations_collide_at_the_receiver_and_both_count_a_collision() {
    // 0 and 2 are 400 m apart, each 200 m from 1: hidden from each other (unit disk, no
    // carrier-sense margin). 2's frame starts while 1 receives 0's: both are destroyed; ns-2
    // keeps the one ending last as the reception, so 0's is missed and 2's collided. One
    // attempt each, so that 0's retry does not overlap 2's frame in turn.
    let mut c = cfg();
    c.mac.short_retry_limit = 1;
    c.propagation = Propagation::UnitDisk {
        rx_range: 250.0,
        cs_range: 250.0,
    };
    let mut air = Air::new(c, &[(-200.0, 0.0), (0.0, 0.0), (200.0, 0.0)]);
    air.send_at(SimTime::ZERO, 0, 1, 1000);
    air.send_at(ms(1), 2, 1, 1000);
    air.run_until(ms(20));
    assert_eq!(air.stats(1).rx_collisions, 1, "the frame it was locked on");
    assert_eq!(data_srcs(&air, FrameEvent::RxMissed), vec![0]);
    assert_eq!(data_srcs(&air, FrameEvent::RxCollision), vec![2]);
    assert!(data_srcs(&air, FrameEvent::RxOk).is_empty());
    // Each sender lost its exchange to the overlap (the waiter of a DATA is its sender).
    assert_eq!(
        (air.stats(0).tx_collisions, air.stats(2).tx_collisions),
        (1, 1)
    );
    assert_eq!(air.stats(1).tx_collisions, 0);
    assert_eq!(air.out.failed.len(), 2);
}

#[test]
fn a_frame_ten_times_stronger_than_a_newcomer_captures_the_receiver() {
    // 0 is 20 m from 1, 2 is 240 m from it and 260 m from 0 (hidden): 0's frame arrives at 1
    // hundreds of times stronger than 2's. First 0, then 2: 0's frame is captured and received,
    // 2's is noise and sets an EIFS-long NAV at 1. First 2, then 0: ns-2 has no capture of a
    // stronger newcomer, both are lost.
    let run = |first: u32, second: u32| {
        let mut c = cfg();
        c.propagation = two_ray_no_cs_margin();
        let mut air = Air::new(c, &[(-20.0, 0.0), (0.0, 0.0), (240.0, 0.0)]);
        assert!(air.wifi.stations[0].nbrs.iter().all(|n| n.sta != 2));
        air.send_at(SimTime::ZERO, first, 1, 1000);
        air.send_at(ms(1), second, 1, 1000);
        air.run_until(ms(7));
        air
    };
    let air = run(0, 2);
    assert_eq!(data_srcs(&air, FrameEvent::RxOk), vec![0], "captured");
    assert_eq!(data_srcs(&air, FrameEvent::RxMissed), vec![2], "noise");
    assert_eq!(air.stats(1).rx_collisions, 0);
    let air = run(2, 0);
    assert!(data_srcs(&air, FrameEvent::RxOk).is_empty());
    assert_eq!(data_srcs(&air, FrameEvent::RxMissed), vec![2]);
    assert_eq!(data_srcs(&air, FrameEvent::RxCollision), vec![0]);
    assert_eq!(air.stats(1).rx_collisions, 1);
}

#[test]
fn frame_event_names_are_the_traces_words() {
    let names: Vec<&str> = [
        FrameEvent::Tx,
        FrameEvent::RxOk,
        FrameEvent::RxCollision,
        FrameEvent::RxError,
        FrameEvent::RxMissed,
    ]
    .iter()
    .map(|e| e.name())
    .collect();
    assert_eq!(
        names,
        ["tx", "rx_ok", "rx_collision", "rx_error", "rx_missed"]
    );
}

/// Two-ray ground with both thresholds at 1e-8 W (decoded and sensed to 109 m), the SINR
/// model with `noise_w`; stations at `at`.
fn sinr_air(noise_w: f64, at: &[(f64, f64)]) -> Air {
    sinr_air_with(1e-8, PreambleDetection::Sensed, noise_w, at)
}

/// Two-ray ground decoding to 109 m (1e-8 W) and sensing down to `cs_thresh`, the SINR model
/// with `preamble` detection and `noise_w`; stations at `at`.
fn sinr_air_with(
    cs_thresh: f64,
    preamble: PreambleDetection,
    noise_w: f64,
    at: &[(f64, f64)],
) -> Air {
    let mut c = cfg();
    c.propagation = Propagation::TwoRayGround(RadioParams {
        rx_thresh: 1e-8,
        cs_thresh,
        ..RadioParams::default()
    });
    c.reception = Reception::Sinr(SinrParams { noise_w, preamble });
    Air::new(c, at)
}

/// The probability that a broadcast of `ip_len` bytes (1 Mb/s, the lowest basic rate) is lost at
/// a constant `sinr`, from the reception model's own account of its bits.
fn broadcast_per(ip_len: u32, sinr: f64) -> f64 {
    let phy = cfg().phy;
    let air = phy.duration(phy.data_mpdu(ip_len), 1_000_000);
    let mut lock = reception::SinrLock::new(
        SimTime::ZERO,
        reception::FrameSpans::new(&phy, 1_000_000, air),
    );
    lock.chunk(air, sinr);
    1.0 - lock.ln_success.exp()
}

#[test]
fn under_sinr_a_lone_frame_survives_with_the_probability_of_its_bits() {
    // The SNR at which a 500-B broadcast is lost about half the time; 400 broadcasts, 100 m.
    let snr = (0..600)
        .map(|k| 10f64.powf(k as f64 / 200.0))
        .find(|&s| broadcast_per(500, s) < 0.5)
        .unwrap();
    let per = broadcast_per(500, snr);
    let p = Propagation::ns2_default().power(100.0);
    let mut air = sinr_air(p / snr, &[(0.0, 0.0), (100.0, 0.0)]);
    let n = 400;
    for k in 0..n {
        air.send_at(ms(10 * k), 0, BROADCAST, 500);
        if k == 0 {
            // The receiver's account of the frame starts when the frame reaches it, δ after
            // it left.
            air.run_until(ms(1));
            let tx = air.records(FrameEvent::Tx, FrameKind::Data)[0];
            let lock = air.wifi.radios[1].rx.unwrap();
            let sinr = air.wifi.radios[1].sinr;
            assert_eq!((sinr.start, lock.power), (tx.t + us(1), p));
        }
    }
    air.run_until(ms(10 * n + 10));
    let ok = air.records(FrameEvent::RxOk, FrameKind::Data).len() as f64;
    let lost = air.records(FrameEvent::RxCollision, FrameKind::Data).len() as f64;
    assert_eq!(ok + lost, n as f64, "each broadcast decoded or too weak");
    let (mean, sd) = (
        n as f64 * (1.0 - per),
        (n as f64 * per * (1.0 - per)).sqrt(),
    );
    assert!(
        (ok - mean).abs() < 4.0 * sd,
        "{ok} received, {mean:.1} ± {sd:.1} expected (PER {per:.3} at {:.2} dB)",
        10.0 * snr.log10()
    );
    assert_eq!(air.stats(1).rx_collisions, 0, "no overlap, no collision");
    // Every frame has ended: nothing arrives any more.
    let r = air.wifi.radios[1];
    assert_eq!((r.arriving, r.arriving_w, r.sensed), (0, 0.0, 0));
}

#[test]
fn under_sinr_an_overlapping_frame_is_interference_that_destroys_the_reception() {
    // 0 and 2 are 160 m apart (hidden), 1 between them, 100 m from 0 and 60 m from 2: 2's
    // broadcasts overlap 0's at 1 8 times (9 dB) stronger; at −9 dB of SINR even 1 Mb/s DBPSK
    // (Eb/N0 = 22·SINR = 2.8, BER 3 %) loses its frame. At 20 dB of SNR a lone frame always
    // survives (checked first).
    let p = Propagation::ns2_default().power(100.0);
    let noise = p / 100.0;
    assert!(broadcast_per(500, 100.0) < 1e-6);
    let mut air = sinr_air(noise, &[(-100.0, 0.0), (0.0, 0.0), (60.0, 0.0)]);
    // The hidden one is listed as an interferer at the other, not sensed.
    let n0 = neighbours(&air, 0);
    assert_eq!(n0, vec![(1, true), (2, false)]);
    air.send_at(SimTime::ZERO, 0, BROADCAST, 500);
    air.run_until(ms(20));
    assert_eq!(
        data_srcs(&air, FrameEvent::RxOk),
        vec![0],
        "alone: at 1 (2 does not sense it)"
    );
    for k in 1..=20u64 {
        air.send_at(ms(20 * k), 0, BROADCAST, 500);
        air.send_at(ms(20 * k) + us(300), 2, BROADCAST, 500);
        if k == 1 {
            // Between the end of 0's frame at 1 and the end of 2's, only 2's power arrives.
            let t = ms(20) + us(4700);
            air.run_until(t);
            let tx = air.records(FrameEvent::Tx, FrameKind::Data);
            let ends: Vec<SimTime> = tx[1..]
                .iter()
                .map(|r| r.t + us(1) + air_time(r.bytes, r.rate))
                .collect();
            assert!(ends[0] < t && t < ends[1], "{ends:?}");
            let r = air.wifi.radios[1];
            let p2 = Propagation::ns2_default().power(60.0);
            assert_eq!(r.arriving, 1);
            assert!((r.arriving_w / p2 - 1.0).abs() < 1e-9, "{} W", r.arriving_w);
        }
    }
    air.run_until(ms(500));
    // At 1, each of 0's frames was locked on and destroyed; 2's arrived during it (missed).
    let at1 = |ev: FrameEvent| data_records_at(&air, 1, ev);
    assert_eq!(at1(FrameEvent::RxOk), 1, "only the lone frame");
    assert_eq!(at1(FrameEvent::RxCollision), 20);
    assert_eq!(at1(FrameEvent::RxMissed), 20);
    assert_eq!(air.stats(1).rx_collisions, 20);
    for s in 0..3 {
        let r = air.wifi.radios[s];
        assert_eq!((r.arriving, r.arriving_w, r.sensed), (0, 0.0, 0), "{s}");
    }
}

#[test]
fn a_captured_frame_sets_an_eifs_long_nav_at_the_receiver() {
    // ns-2.35 Mac802_11::capture(): the captured-away frame's air time plus EIFS of NAV. Station
    // 1 receives 0's frame and captures 2's (as in the test above), then has a frame of its own
    // for 0: with no backoff (CW 0) it waits for the NAV to end, then DIFS — well after 2's frame
    // has ended, which alone would let it send DIFS after that end.
    let mut c = cfg();
    c.propagation = two_ray_no_cs_margin();
    c.phy.cw_min = 0;
    c.phy.cw_max = 0;
    // One attempt: 2, which hears no ACK, would otherwise retry at once and hold the medium.
    c.mac.short_retry_limit = 1;
    let phy = c.phy.clone();
    let mut air = Air::new(c, &[(-20.0, 0.0), (0.0, 0.0), (240.0, 0.0)]);
    air.send_at(SimTime::ZERO, 0, 1, 1000);
    air.send_at(ms(1), 2, 1, 1000);
    air.send_at(ms(2), 1, 0, 1000);
    air.run_until(ms(20));
    let tx = air.records(FrameEvent::Tx, FrameKind::Data);
    let from = |s: u32| *tx.iter().find(|r| r.src == s).unwrap();
    let (t2, f2) = (from(2).t, from(2));
    let air2 = phy.duration(f2.bytes, f2.rate);
    // The medium hands the capture to the MAC when the frame starts (not δ later).
    let nav_end = t2 + phy.eifs + air2;
    assert_eq!(from(1).t, nav_end + phy.difs, "{tx:?}");
    // 2's frame ended at 1 well before.
    assert!(t2 + us(1) + air2 + phy.difs < nav_end);
}

#[test]
fn with_preamble_detection_an_undecodable_frame_leaves_the_phy_free_for_a_later_one() {
    // 1 at the origin; 2 150 m away is sensed (down to 1e-9 W, 194 m) but not decodable; 0 is
    // 60 m away on the other side, hidden from 2 (210 m). 2's broadcast starts first, 0's frame
    // to 1 300 µs later, 35 times stronger. Sensed detection locks the PHY on 2's frame, so
    // 0's is lost; ns-3's threshold detection (4 dB) skips 2's and locks on 0's, whose SINR
    // against 2's frame and the noise is 15 dB.
    let noise = 1e-10;
    let run = |preamble: PreambleDetection| {
        let at = [(-60.0, 0.0), (0.0, 0.0), (150.0, 0.0)];
        let mut air = sinr_air_with(1e-9, preamble, noise, &at);
        air.send_at(SimTime::ZERO, 2, BROADCAST, 1000);
        air.send_at(us(300), 0, 1, 200);
        air.run_until(ms(6));
        let at1 = |ev: FrameEvent| -> Vec<u32> {
            air.records(ev, FrameKind::Data)
                .iter()
                .filter(|r| r.sta == 1)
                .map(|r| r.src)
                .collect()
        };
        (at1(FrameEvent::RxOk), at1(FrameEvent::RxMissed))
    };
    // (0 retries while 2's 8.5-ms frame lasts: each attempt is missed.)
    let (ok, missed) = run(PreambleDetection::Sensed);
    assert!(ok.is_empty() && !missed.is_empty() && missed.iter().all(|&s| s == 0));
    let threshold = PreambleDetection::Threshold {
        min_sinr: 10f64.powf(0.4),
    };
    assert_eq!(run(threshold), (vec![0], vec![]));
}

#[test]
fn rearming_an_unchanged_deadline_schedules_no_second_timer() {
    // Each MAC has one pending timer event; a MAC input that leaves its deadline where it was
    // must not queue another (the stale one would be skipped, but the queue would grow by one
    // event per input).
    let mut air = Air::new(cfg(), &[(0.0, 0.0), (100.0, 0.0)]);
    air.send_at(SimTime::ZERO, 0, 1, 1000);
    let armed = air.wifi.stations[0].timer;
    assert!(armed.is_some(), "the sender waits for its DIFS");
    assert!(air.wifi.io.sched.is_empty());
    air.wifi.rearm(SimTime::ZERO, 0);
    assert!(air.wifi.io.sched.is_empty(), "{:?}", air.wifi.io.sched);
    assert_eq!(air.wifi.stations[0].timer, armed);
}

#[test]
fn under_sinr_a_weak_overlapping_frame_leaves_the_reception_intact() {
    // As above, but 2 is 300 m from 1: its frames arrive 81 times (19 dB) weaker than 0's, so 0's
    // frames keep an SINR of 18.7 dB through the overlap (30 dB of SNR) and all get through.
    let p = Propagation::ns2_default().power(100.0);
    let mut air = sinr_air(p / 1000.0, &[(-100.0, 0.0), (0.0, 0.0), (300.0, 0.0)]);
    let n1 = neighbours(&air, 1);
    assert_eq!(n1, vec![(0, true), (2, false)], "2 only interferes at 1");
    for k in 0..20u64 {
        air.send_at(ms(20 * k), 0, BROADCAST, 500);
        air.send_at(ms(20 * k) + us(300), 2, BROADCAST, 500);
        if k == 0 {
            // While both arrive, 1 stays locked on 0's frame and counts 2's as interference.
            air.run_until(ms(1));
            let r = air.wifi.radios[1];
            let p2 = Propagation::ns2_default().power(300.0);
            assert_eq!(r.arriving, 2);
            assert!(((r.arriving_w - p) / p2 - 1.0).abs() < 1e-6);
            assert!(r.rx.is_some_and(|l| l.power == p && l.collided));
        }
    }
    air.run_until(ms(500));
    let at1 = |ev: FrameEvent| data_records_at(&air, 1, ev);
    assert_eq!(at1(FrameEvent::RxOk), 20);
    assert_eq!(at1(FrameEvent::RxCollision), 0);
}

#[test]
fn a_frame_turns_the_medium_busy_one_propagation_delay_and_a_cca_time_after_it_leaves() {
    // 0 and 1 are 480 m apart (1.6 µs of flight; sensed to 550 m), 2 halfway. 2's broadcast
    // ends at the same instant at 0 and 1; 1, given a packet meanwhile, then backs off to `due`.
    // 0, idle, sends at once a packet it gets at `due - CCA time`: that frame reaches 1 1.6 µs
    // later and 1's CCA reports it 1.6 µs after `due`, too late, so both transmit in the same
    // slot (10.3.4.3). Were the flight not counted (or counted backwards), 1 would defer.
    let mut c = cfg();
    c.delay_from_distance = true;
    let (cca, slot, difs) = (c.phy.cca_time, c.phy.slot, c.phy.difs);
    let mut air = Air::new(c, &[(0.0, 0.0), (480.0, 0.0), (240.0, 0.0)]);
    assert_eq!(
        air.wifi.stations[0].nbrs[0].delay,
        SimTime::from_nanos(1_601)
    );
    air.send_at(ms(1), 2, BROADCAST, 500);
    air.send_at(ms(2), 1, BROADCAST, 500);
    let tx2 = air.records(FrameEvent::Tx, FrameKind::Data)[0];
    let idle = tx2.t + air_time(tx2.bytes, tx2.rate) + us(1);
    air.run_until(idle);
    let due = air.wifi.stations[1].mac.next_deadline().unwrap();
    assert!(due >= idle + difs + slot, "1 backs off at least one slot");
    air.send_at(due - cca, 0, BROADCAST, 500);
    air.run_until(ms(50));
    let tx = data_sent(&air);
    assert_eq!(tx, vec![(2, tx2.t), (0, due - cca), (1, due)]);
}

/// The air time of a frame of `bytes` at `rate` under `cfg()`'s PHY.
fn air_time(bytes: u32, rate: u64) -> SimTime {
    cfg().phy.duration(bytes, rate)
}

#[test]
fn of_two_frames_ending_together_the_receiver_keeps_the_first() {
    // As above, both hidden senders broadcasting frames of one length at the same instant: at 1
    // they end together. ns-2's Mac802_11::collision() switches to the newcomer only if it ends
    // strictly later, so 0's frame (started first in the event order) stays the reception.
    let mut c = cfg();
    c.propagation = Propagation::UnitDisk {
        rx_range: 250.0,
        cs_range: 250.0,
    };
    let mut air = Air::new(c, &[(-200.0, 0.0), (0.0, 0.0), (200.0, 0.0)]);
    air.send_at(ms(1), 0, BROADCAST, 500);
    air.send_at(ms(1), 2, BROADCAST, 500);
    air.run_until(ms(20));
    let tx = data_sent(&air);
    assert_eq!(tx, vec![(0, ms(1)), (2, ms(1))]);
    assert_eq!(data_srcs(&air, FrameEvent::RxCollision), vec![0]);
    assert_eq!(data_srcs(&air, FrameEvent::RxMissed), vec![2]);
}

#[test]
fn a_frame_is_resolved_when_it_has_ended_at_its_farthest_hearer() {
    // 1 is 100 m from 0, 2 is 480 m (1.6 µs of flight, sensed only): both sense 0's broadcast
    // until it has ended where they are; the one event that resolves it comes then.
    let mut c = cfg();
    c.delay_from_distance = true;
    let mut air = Air::new(c, &[(0.0, 0.0), (100.0, 0.0), (480.0, 0.0)]);
    air.send_at(ms(1), 0, BROADCAST, 500);
    let tx = air.records(FrameEvent::Tx, FrameKind::Data)[0];
    let end = tx.t + air_time(tx.bytes, tx.rate);
    air.run_until(end + us(1));
    assert_eq!(
        (air.wifi.radios[1].sensed, air.wifi.radios[2].sensed),
        (1, 1)
    );
    air.run_until(end + us(2));
    assert_eq!(
        (air.wifi.radios[1].sensed, air.wifi.radios[2].sensed),
        (0, 0)
    );
    assert_eq!(data_srcs(&air, FrameEvent::RxOk), vec![0]);
}

#[test]
fn stations_moving_at_random_keep_the_lists_a_full_recompute_gives() {
    // The position refresh recomputes only the moved stations' pairs, with their candidates
    // (the stations anchored within range + skin); after every refresh the lists must equal
    // update_neighbours' (members, order, reach, delay). Two WLANs with interleaved members,
    // random subsets moving by small steps and by jumps across the field, for three radios:
    // two-ray ground with thresholds (~600 m cells over a 4 km × 2 km field), log-distance
    // under SINR (its listing range is the 20 dB floor's), and log-distance with shadowing
    // (unbounded draws: one cell, every member a candidate). Each with the default skin and
    // with a skin (3 % of the range) smaller than the steps, so that re-anchoring is frequent:
    // a skin or re-anchoring trigger too small for the candidate radius misses pairs.
    let two_ray = || {
        let mut c = cfg();
        c.propagation = Propagation::ns2_default();
        c
    };
    let sinr = |shadowing_db: f64| {
        let mut c = cfg();
        c.propagation = Propagation::LogDistance {
            radio: RadioParams::default(),
            exponent: 3.5,
            ref_distance: 1.0,
            ref_loss_db: None,
            shadowing_db,
        };
        c.reception = Reception::Sinr(SinrParams::thermal(22e6, 7.0));
        c.delay_from_distance = true;
        c
    };
    let radios = [
        (
            "two-ray",
            &two_ray as &dyn Fn() -> WlanConfig,
            (4000.0, 2000.0),
        ),
        ("sinr", &|| sinr(0.0), (8000.0, 3000.0)),
        ("shadowed", &|| sinr(4.0), (3000.0, 1500.0)),
    ];
    for ((case, make, field), skin) in radios
        .into_iter()
        .flat_map(|r| [(r, None), (r, Some(0.03))])
    {
        let mut wifi = Wifi::new();
        wifi.seed = 5;
        if let Some(share) = skin {
            wifi.set_skin_share(share);
        }
        let wl = [wifi.add_wlan(make()), wifi.add_wlan(make())];
        let mut rng = Rng::derive(9, StreamId::Custom(1));
        let n = 90u32;
        for i in 0..n {
            let r = |k: u64| Rng::derive(7, StreamId::Custom(10 * i as u64 + k));
            let pos = (rng.uniform() * field.0, rng.uniform() * field.1);
            let w = wl[(i % 3 == 0) as usize];
            wifi.add_station(
                w,
                NodeId(i),
                pos,
                false,
                LossModel::None,
                Outage::none(),
                [r(0), r(1), r(2), r(3)],
            );
        }
        type Entry = (u32, u64, bool, bool, SimTime);
        let lists = |w: &Wifi| -> Vec<Vec<Entry>> {
            w.stations
                .iter()
                .map(|s| {
                    s.nbrs
                        .iter()
                        .map(|n| {
                            let r = n.reach;
                            (n.sta, r.power.to_bits(), r.sensed, r.decodable, n.delay)
                        })
                        .collect()
                })
                .collect()
        };
        let (mut entries, mut cross_cell, mut moved) = (0usize, 0usize, 0u64);
        for refresh in 0..60 {
            // Everyone, or a random subset; small steps, or now and then a jump anywhere.
            let share = if refresh % 5 == 0 { 1.0 } else { 0.3 };
            let mut moves = Vec::new();
            for s in 0..n {
                if rng.uniform() >= share {
                    continue;
                }
                let p = wifi.stations[s as usize].pos;
                let to = if rng.uniform() < 0.1 {
                    (rng.uniform() * field.0, rng.uniform() * field.1)
                } else {
                    let step = 40.0;
                    (
                        (p.0 + step * (rng.uniform() - 0.5)).clamp(0.0, field.0),
                        (p.1 + step * (rng.uniform() - 0.5)).clamp(0.0, field.1),
                    )
                };
                moves.push((s, to));
            }
            moved += moves.len() as u64;
            wifi.move_stations(&moves);
            wifi.check_candidates();
            let kept = lists(&wifi);
            for w in wl {
                wifi.update_neighbours(w);
            }
            assert_eq!(
                kept,
                lists(&wifi),
                "{case}, skin {skin:?}, refresh {refresh}"
            );
            entries += kept.iter().map(Vec::len).sum::<usize>();
            for s in &wifi.stations {
                cross_cell += s
                    .nbrs
                    .iter()
                    .filter(|nb| wifi.stations[nb.sta as usize].cell != s.cell)
                    .count();
            }
        }
        // The check has teeth: many pairs, many of them across cell borders where cells exist,
        // and not everyone hears everyone.
        let all = 60 * (60 * 59 + 30 * 29);
        assert!(
            entries > all / 50 && entries < all,
            "{case}: {entries} entries"
        );
        if case != "shadowed" {
            assert!(
                cross_cell > entries / 5,
                "{case}: {cross_cell} of {entries} across cells"
            );
            // Re-anchoring happens, and (with the default skin) the candidates mostly outlive
            // a refresh.
            let re = wifi.refresh.reanchored;
            assert!(re > 0, "{case}: never re-anchored");
            if skin.is_none() {
                assert!(re < moved / 2, "{case}: {re} re-anchored of {moved} moves");
            }
        }
    }
}
