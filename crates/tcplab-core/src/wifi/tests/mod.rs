//! The shared medium of `wifi/mod.rs` driven alone: a WLAN, its MACs and a bare event loop, no IP
//! above. Each file holds the tests of one part of the medium.

mod hops;
mod links;
mod medium;

use super::*;
use crate::rng::StreamId;
use crate::sim::EventQueue;

/// A unit-disk WLAN (250 m decode, 550 m sense) with the ns-2 DSSS PHY at 2 Mb/s, ad hoc.
fn cfg() -> WlanConfig {
    WlanConfig {
        name: "w".into(),
        mode: Mode::AdHoc,
        phy: PhyParams::ns2_dsss(),
        mac: MacParams::default(),
        propagation: Propagation::UnitDisk {
            rx_range: 250.0,
            cs_range: 550.0,
        },
        rate: RateSelection::Fixed(2_000_000),
        signals: SignalConfig::default(),
        delay_from_distance: false,
        reception: Reception::Threshold,
    }
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

/// What the medium handed the world, kept across events.
#[derive(Default)]
struct Out {
    up: Vec<(u32, PktId, u32)>,
    freed: Vec<PktId>,
    failed: Vec<(u32, PktId, u32)>,
    pcap_tx: Vec<(u32, PktId)>,
}

/// The event loop is that of `tests/frames.rs`'s `Air`, which as an integration test cannot use
/// this module (nor this one the integration tests' code).
struct Air {
    wifi: Wifi,
    q: EventQueue,
    now: SimTime,
    next_pkt: u32,
    out: Out,
}

impl Air {
    /// One WLAN with `cfg` and a station at each of `positions` (m), with no error model and no
    /// outage; the per-frame trace on.
    fn new(cfg: WlanConfig, positions: &[(f64, f64)]) -> Air {
        Air::with(cfg, positions, |_| (LossModel::None, Outage::none()))
    }

    /// As `new`, with each station's error model and outage schedule from `per`.
    fn with(
        cfg: WlanConfig,
        positions: &[(f64, f64)],
        per: impl Fn(u32) -> (LossModel, Outage),
    ) -> Air {
        let mut wifi = Wifi::new();
        wifi.seed = 7;
        wifi.frames = Some(Vec::new());
        let w = wifi.add_wlan(cfg);
        for (i, &pos) in positions.iter().enumerate() {
            let rng = |k: u64| Rng::derive(7, StreamId::Custom(10 * i as u64 + k));
            let (loss, outage) = per(i as u32);
            let id = wifi.add_station(
                w,
                NodeId(100 + i as u32),
                pos,
                false,
                loss,
                outage,
                [rng(0), rng(1), rng(2), rng(3)],
            );
            assert_eq!(id, i as u32);
        }
        let mut air = Air {
            wifi,
            q: EventQueue::new(),
            now: SimTime::ZERO,
            next_pkt: 0,
            out: Out::default(),
        };
        air.wifi.start(SimTime::ZERO);
        air.flush();
        air
    }

    fn flush(&mut self) {
        for (t, ev) in self.wifi.io.sched.drain(..) {
            self.q.schedule(t, ev);
        }
        let io = &mut self.wifi.io;
        self.out.up.append(&mut io.up);
        self.out.freed.append(&mut io.freed);
        self.out.freed.extend(io.lost.drain(..).map(|(_, p)| p));
        io.air.clear();
        self.out.failed.append(&mut io.failed);
        self.out.pcap_tx.append(&mut io.pcap_tx);
        io.overheard.clear();
    }

    /// Runs the events up to `t`.
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

    /// Station `s` gets an IP packet of `len` bytes for station `dst` at `t`; returns it.
    fn send_at(&mut self, t: SimTime, s: u32, dst: u32, len: u32) -> PktId {
        self.run_until(t);
        let p = PktId(self.next_pkt);
        self.next_pkt += 1;
        assert!(self.wifi.enqueue(t, s, p, dst, len, false));
        self.flush();
        p
    }

    fn trace(&self) -> &[FrameRecord] {
        self.wifi.frames.as_deref().unwrap()
    }

    /// The trace's records of `event` for frames of `kind`.
    fn records(&self, event: FrameEvent, kind: FrameKind) -> Vec<FrameRecord> {
        self.trace()
            .iter()
            .filter(|r| r.event == event && r.kind == kind)
            .copied()
            .collect()
    }

    fn stats(&self, s: u32) -> &MacStats {
        &self.wifi.stations[s as usize].mac.stats
    }
}
