//! The optional per-frame 802.11 trace agrees with the MAC's counters.

use tcplab_core::api;
use tcplab_core::scenario::Format;

const WLAN: &str = include_str!("../../../examples/wlan_download.toml");

#[test]
fn frame_trace_matches_the_counters() {
    let ov: Vec<(String, String)> = [
        ("flows.download.size", "2MB"),
        ("trace.frames", "true"),
        (
            "wlans.bss.stations.1.loss",
            "{ model = \"bernoulli\", p = 0.05 }",
        ),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let out = api::run(WLAN, Format::Toml, Some(3), &ov, None).unwrap_or_else(|e| panic!("{e}"));
    let f = &out.frames;
    let count = |node: &str, ev: &str| {
        f.node
            .iter()
            .zip(&f.event)
            .filter(|(n, e)| n.as_str() == node && **e == ev)
            .count() as u64
    };
    assert!(!f.t_s.is_empty());
    assert!(
        f.t_s.windows(2).all(|w| w[0] <= w[1]),
        "records in time order"
    );
    for w in &out.summary.wifi {
        assert_eq!(
            count(&w.node, "tx"),
            w.frames_sent + w.control_frames_sent,
            "{}: transmissions",
            w.node
        );
        assert_eq!(
            count(&w.node, "rx_error"),
            w.frame_errors,
            "{}: frame errors",
            w.node
        );
    }
    assert!(
        count("sta", "rx_error") > 0,
        "the error model shows in the trace"
    );
    let retries = f
        .retry
        .iter()
        .zip(&f.event)
        .filter(|(r, e)| **r && **e == "tx")
        .count() as u64;
    assert_eq!(
        retries,
        out.summary.wifi.iter().map(|w| w.retries).sum::<u64>(),
        "retransmitted frames"
    );
}

// ---------------------------------------------------------------------- frame-level traces

use tcplab_core::ids::{NodeId, PktId};
use tcplab_core::link::{LossModel, Outage};
use tcplab_core::rng::{Rng, StreamId};
use tcplab_core::sim::{Event, EventQueue};
use tcplab_core::wifi::{
    FrameEvent, FrameKind, FrameRecord, MacParams, Mode, PhyParams, Propagation, RateSelection,
    Reception, SignalConfig, Wifi, WlanConfig,
};
use tcplab_core::SimTime;

/// A WLAN driven alone: the channel and its MACs with a bare event loop, no IP above.
struct Air {
    wifi: Wifi,
    q: EventQueue,
    now: SimTime,
    next_pkt: u32,
}

impl Air {
    /// Stations at `positions` (m) on a unit-disk channel (250 m decode, 550 m sense).
    fn new(phy: PhyParams, mac: MacParams, positions: &[(f64, f64)]) -> Air {
        let mut wifi = Wifi::new();
        wifi.frames = Some(Vec::new());
        let w = wifi.add_wlan(WlanConfig {
            name: "w".into(),
            mode: Mode::AdHoc,
            phy,
            mac,
            propagation: Propagation::UnitDisk {
                rx_range: 250.0,
                cs_range: 550.0,
            },
            rate: RateSelection::Fixed(11_000_000),
            signals: SignalConfig::default(),
            delay_from_distance: false,
            reception: Reception::Threshold,
        });
        for (i, &pos) in positions.iter().enumerate() {
            let rng = |k: u64| Rng::derive(7, StreamId::Custom(10 * i as u64 + k));
            wifi.add_station(
                w,
                NodeId(i as u32),
                pos,
                false,
                LossModel::None,
                Outage::none(),
                [rng(0), rng(1), rng(2), rng(3)],
            );
        }
        Air {
            wifi,
            q: EventQueue::new(),
            now: SimTime::ZERO,
            next_pkt: 0,
        }
    }

    fn flush(&mut self) {
        for (t, ev) in self.wifi.io.sched.drain(..) {
            self.q.schedule(t, ev);
        }
        self.wifi.io.up.clear();
        self.wifi.io.freed.clear();
    }

    /// Runs events up to `t`.
    fn run_until(&mut self, t: SimTime) {
        while self.q.peek_time().is_some_and(|x| x <= t) {
            let (at, ev) = self.q.pop().unwrap();
            self.now = at;
            match ev {
                Event::WifiTimer(s, g) => self.wifi.on_timer(at, s, g),
                Event::WifiRxEnd(id) => self.wifi.on_rx_end(at, id),
                Event::WifiLink(s, k) => self.wifi.on_link_event(at, s, k),
                other => panic!("not a wireless event: {other:?}"),
            }
            self.flush();
        }
        self.now = t;
    }

    /// Station `s` gets a 1500-B IP packet for station `dst` at `t`.
    fn send_at(&mut self, t: SimTime, s: u32, dst: u32) {
        self.run_until(t);
        let p = PktId(self.next_pkt);
        self.next_pkt += 1;
        assert!(self.wifi.enqueue(t, s, p, dst, 1500, false));
        self.flush();
    }

    fn trace(&self) -> &[FrameRecord] {
        self.wifi.frames.as_deref().unwrap()
    }
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

#[test]
fn stations_drawing_the_same_backoff_slot_collide() {
    // CW = 0: every backoff draw is 0 slots, so both stations pick the same slot.
    let mut phy = PhyParams::hr_dsss(false);
    phy.cw_min = 0;
    phy.cw_max = 0;
    let mut air = Air::new(phy, MacParams::default(), &[(0.0, 0.0), (10.0, 0.0)]);
    // A sends to B; while A's frame is on the air both get a packet for the other. After B's
    // MAC ACK, B (the last transmitter) and A (which hears the ACK end 1 µs later) both count 0
    // slots after DIFS: their slot boundaries differ by the propagation delay only.
    air.send_at(SimTime::ZERO, 0, 1);
    air.send_at(us(500), 0, 1);
    air.send_at(us(500), 1, 0);
    air.run_until(SimTime::from_millis(20));
    let data: Vec<&FrameRecord> = air
        .trace()
        .iter()
        .filter(|r| r.event == FrameEvent::Tx && r.kind == FrameKind::Data)
        .collect();
    // data[0] is A's first frame; the next two are A's and B's contending frames.
    let (a, b) = (data[1], data[2]);
    assert_ne!(a.src, b.src);
    let gap = b.t - a.t;
    assert!(
        gap <= us(1),
        "same-slot frames start within δ of each other, not {gap:?} apart: {:?}",
        &data[..3]
    );
    // Both are lost (each addressee was sending) and both are retransmitted.
    for f in [a, b] {
        assert!(
            !air.trace().iter().any(|r| r.event == FrameEvent::RxOk
                && r.kind == FrameKind::Data
                && r.src == f.src
                && r.seq == f.seq
                && !r.retry),
            "{f:?} was received"
        );
        assert!(
            data.iter()
                .any(|r| r.src == f.src && r.seq == f.seq && r.retry),
            "{f:?} is retransmitted"
        );
    }
}
