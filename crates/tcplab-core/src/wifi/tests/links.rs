//! Outages and the cross-layer link signals (DESIGN.md principle 6): when each is published, with
//! which peer and what it predicts.

use super::*;

/// The log's signals of station `s`, as (time, kind).
fn signals_of(air: &Air, s: u32) -> Vec<(SimTime, LinkSignalKind)> {
    air.wifi
        .log
        .iter()
        .filter(|l| l.sta == s)
        .map(|l| (l.t, l.kind))
        .collect()
}

/// Station 0 is down 20 ms of every 50 ms from 10 ms on, station 2 once from 2 ms to 5 ms; the
/// predictor announces each outage 4 ms ahead with 1.5 times its true duration.
fn periodic_outages(lead: SimTime, miss: f64) -> Air {
    let mut c = cfg();
    c.signals = SignalConfig {
        lead,
        duration_factor: 1.5,
        miss_probability: miss,
        sample_interval: None,
    };
    let mut air = Air::with(c, &[(0.0, 0.0), (100.0, 0.0), (0.0, 100.0)], |s| {
        let outage = match s {
            0 => Outage {
                intervals: vec![],
                periodic: Some((ms(10), ms(50), ms(20))),
            },
            2 => Outage {
                intervals: vec![(ms(2), ms(5))],
                periodic: None,
            },
            _ => Outage::none(),
        };
        (LossModel::None, outage)
    });
    // Station 1 is the AP: the peer of the others' signals.
    air.wifi.wlans[0].ap = Some(1);
    air
}

#[test]
fn an_outage_is_announced_lead_ahead_then_gone_and_up_again_each_cycle() {
    let mut air = periodic_outages(ms(4), 0.0);
    air.run_until(ms(120));
    let expected = LinkSignalKind::GoingDown { expected: ms(30) };
    assert_eq!(
        signals_of(&air, 0),
        vec![
            (ms(6), expected),
            (ms(10), LinkSignalKind::Gone),
            (ms(30), LinkSignalKind::Up),
            (ms(56), expected),
            (ms(60), LinkSignalKind::Gone),
            (ms(80), LinkSignalKind::Up),
            (ms(106), expected),
            (ms(110), LinkSignalKind::Gone),
        ]
    );
    // An outage closer than the lead is announced at once, never before the start of the run.
    assert_eq!(
        signals_of(&air, 2),
        vec![
            (
                SimTime::ZERO,
                LinkSignalKind::GoingDown {
                    expected: SimTime::from_micros(4_500)
                }
            ),
            (ms(2), LinkSignalKind::Gone),
            (ms(5), LinkSignalKind::Up),
        ]
    );
    let l = air.wifi.log.iter().find(|l| l.sta == 0).unwrap();
    assert_eq!((l.node, l.peer), (NodeId(100), Some(NodeId(101))));
    // The AP has no peer of its own.
    assert!(air.wifi.peer_of(1).is_none());
}

#[test]
fn without_a_lead_or_with_a_missed_prediction_an_outage_comes_unannounced() {
    let mut air = periodic_outages(SimTime::ZERO, 0.0);
    air.run_until(ms(120));
    let going_down = |air: &Air| {
        air.wifi
            .log
            .iter()
            .filter(|l| matches!(l.kind, LinkSignalKind::GoingDown { .. }))
            .count()
    };
    assert_eq!(going_down(&air), 0);
    assert_eq!(signals_of(&air, 0).len(), 5, "gone and up still published");

    let mut air = periodic_outages(ms(4), 1.0);
    air.run_until(ms(120));
    assert_eq!(going_down(&air), 0, "every prediction missed");
    assert_eq!(signals_of(&air, 0).len(), 5);

    // Half the predictions missed, each drawn on the station's own stream.
    let mut air = periodic_outages(ms(4), 0.5);
    air.run_until(SimTime::from_secs(4));
    let n = going_down(&air);
    assert!((20..=60).contains(&n), "{n} of 81 announced");
}

/// Stations at `at`, station 0 down during each of `down`.
fn station_0_down(c: WlanConfig, at: &[(f64, f64)], down: &[(SimTime, SimTime)]) -> Air {
    Air::with(c, at, |s| {
        let outage = Outage {
            intervals: if s == 0 { down.to_vec() } else { vec![] },
            periodic: None,
        };
        (LossModel::None, outage)
    })
}

#[test]
fn a_station_in_an_outage_neither_hears_nor_reaches_anyone() {
    // Station 0 is down from 10 to 30 ms. A frame it sends then reaches no one; one sent to it is
    // not heard (no ACK), and its own reception in progress at 10 ms is lost.
    let mut air = station_0_down(cfg(), &[(0.0, 0.0), (100.0, 0.0)], &[(ms(10), ms(30))]);
    // 1500 B at 2 Mb/s is about 6.3 ms on the air: station 1's frame from 5 ms is being received
    // by station 0 when the outage starts.
    air.send_at(ms(5), 1, 0, 1500);
    air.run_until(ms(10) - us(1));
    assert!(air.wifi.radios[0].rx.is_some(), "locked on at the start");
    air.run_until(ms(10));
    assert!(air.wifi.radios[0].rx.is_none(), "the PHY is off");
    air.send_at(ms(12), 0, 1, 1500);
    air.run_until(ms(29));
    let ok = air.records(FrameEvent::RxOk, FrameKind::Data);
    assert!(ok.is_empty(), "nothing received during the outage: {ok:?}");
    assert_eq!(
        air.stats(1).control_frames_sent,
        0,
        "no ACK for an unheard frame"
    );
    assert!(
        air.stats(1).tx_failures >= 1,
        "station 1 retries its lost frame"
    );
    // Station 1 senses nothing of station 0's transmissions while it is down.
    assert_eq!(air.wifi.radios[1].sensed, 0);
    // After the outage both frames get through.
    air.run_until(ms(200));
    let ok = air.records(FrameEvent::RxOk, FrameKind::Data);
    assert_eq!(ok.len(), 2, "{ok:?}");
    assert!(ok.iter().all(|r| r.t > ms(30)));
}

#[test]
fn signal_level_samples_report_the_power_from_the_ap_while_up() {
    let mut c = cfg();
    c.propagation = Propagation::ns2_default();
    c.signals.sample_interval = Some(ms(10));
    let mut air = station_0_down(c, &[(0.0, 0.0), (200.0, 0.0)], &[(ms(15), ms(35))]);
    air.wifi.wlans[0].ap = Some(1);
    air.run_until(ms(50));
    // Two-ray ground at 200 m (beyond the 86 m crossover): Pt·ht²·hr²/d⁴ = 0.2818·1.5⁴/200⁴ W.
    let p: f64 = 0.281_838_15 * 1.5f64.powi(4) / 200f64.powi(4);
    let dbm = 10.0 * (p * 1e3).log10();
    let levels: Vec<(SimTime, f64)> = signals_of(&air, 0)
        .into_iter()
        .filter_map(|(t, k)| match k {
            LinkSignalKind::SignalLevel { dbm } => Some((t, dbm)),
            _ => None,
        })
        .collect();
    let times: Vec<SimTime> = levels.iter().map(|l| l.0).collect();
    // Every 10 ms, except while down (20 and 30 ms).
    assert_eq!(times, vec![SimTime::ZERO, ms(10), ms(40), ms(50)]);
    for (_, v) in levels {
        assert!((v - dbm).abs() < 1e-9, "{v} dBm, not {dbm}");
    }
    assert!(signals_of(&air, 1).is_empty(), "the AP samples no peer");

    // A zero interval schedules no sample at all.
    let mut c = cfg();
    c.signals.sample_interval = Some(SimTime::ZERO);
    let mut air = Air::new(c, &[(0.0, 0.0), (100.0, 0.0)]);
    air.wifi.wlans[0].ap = Some(1);
    assert!(air.q.is_empty(), "nothing scheduled");
    air.run_until(ms(10));
    assert!(air.wifi.log.is_empty());
}

/// Touching or overlapping outage intervals (the scenario's validation accepts both): the
/// station comes back when the last one ends, not at the first interval's end, and not never.
#[test]
fn touching_outage_intervals_end_when_the_last_one_does() {
    let mut air = station_0_down(
        cfg(),
        &[(0.0, 0.0), (100.0, 0.0)],
        &[(ms(10), ms(20)), (ms(20), ms(30))],
    );
    air.run_until(ms(100));
    assert!(!air.wifi.radios[0].down, "up again after 30 ms");
    assert_eq!(
        signals_of(&air, 0),
        vec![(ms(10), LinkSignalKind::Gone), (ms(30), LinkSignalKind::Up)]
    );
}

#[test]
fn touching_outage_intervals_are_announced_as_one_outage() {
    // Announced 4 ms ahead with the true duration: 10-20 ms and 20-30 ms are one 20 ms outage.
    let mut c = cfg();
    c.signals = SignalConfig {
        lead: ms(4),
        duration_factor: 1.0,
        miss_probability: 0.0,
        sample_interval: None,
    };
    let mut air = station_0_down(
        c,
        &[(0.0, 0.0), (100.0, 0.0)],
        &[(ms(10), ms(20)), (ms(20), ms(30))],
    );
    air.run_until(ms(100));
    assert_eq!(
        signals_of(&air, 0),
        vec![
            (ms(6), LinkSignalKind::GoingDown { expected: ms(20) }),
            (ms(10), LinkSignalKind::Gone),
            (ms(30), LinkSignalKind::Up)
        ]
    );
}
