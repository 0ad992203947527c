//! IEEE 802.11 wireless LANs: PHY timing presets ([`phy`]), the DCF MAC of each station
//! ([`mac`]), the interface queue ([`queue`]), propagation and rate selection ([`channel`]), and
//! here the shared medium that connects them, error and outage models, and cross-layer link
//! signals.
//!
//! **The medium.** Every frame is one [`TxRec`]. When a station starts sending, every station in
//! carrier-sense range counts one more sensed signal (its MAC freezes its backoff on the first),
//! and a receiver that is idle locks onto the frame; a frame arriving during a reception collides
//! with it unless the one being received is `cp_thresh` times stronger (ns-2 capture). One event,
//! `WifiRxEnd`, at the frame's end plus the propagation delay resolves every receiver at once: the
//! transmitter's MAC learns its frame ended, each hearer counts one signal less, and the locked
//! receivers get the frame, or an error (collision, too weak, error model). Per frame the medium
//! costs one event however many stations hear it; the MAC timers add about one event per station
//! per busy period, never one per backoff slot.
//!
//! **Propagation delay** is one constant per WLAN (Bianchi's δ): every hearer takes a frame's end
//! δ after the transmitter does, and the start of a frame reaches it δ after it starts. The MAC
//! freezes its backoff only if the frame's arrival + aCCATime precedes its slot boundary, so the
//! 1 µs lead of the last transmitter's slot boundaries over its hearers' does not break same-slot
//! ties: stations that drew the same slot collide.
//!
//! **Outages** make a station deaf and mute: it senses and receives nothing and what it sends
//! reaches no one, while its MAC keeps trying, so frames queued at the outage start are retried
//! and dropped by the retry limit (counted as outage drops). Link signals (going down with a
//! predicted duration and a lead time, gone, up, signal level samples, link failure at the retry
//! limit) are appended to [`Wifi::log`], which consumers read with their own cursor.

pub mod channel;
pub mod dcf;
pub mod error_rate;
mod grid;
mod hops;
mod neighbours;
mod pair_model;
pub mod phy;
pub mod queue;
pub mod reception;

use crate::ids::{NodeId, PktId};
use crate::link::{LossModel, Outage};
use crate::rng::Rng;
use crate::sim::Event;
use crate::time::SimTime;

pub use channel::{Propagation, RadioParams, RateSelection, Reach};
pub use dcf::{Dcf, DropCause, Frame, FrameKind, Input, MacAction, MacParams, MacStats, BROADCAST};
pub use phy::{Modulation, PhyParams};
pub use queue::{PriQueue, QueuedPkt};
pub use reception::{PreambleDetection, Reception, SinrParams};

/// Infrastructure (stations talk only to the AP, which bridges to its wired links) or ad hoc
/// (every node forwards; static shortest-path routes over the connectivity graph at t = 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Infrastructure,
    AdHoc,
}

/// Predictor of outages for the cross-layer signals.
#[derive(Clone, Debug, PartialEq)]
pub struct SignalConfig {
    /// LINK_GOING_DOWN is published this long before an outage starts.
    pub lead: SimTime,
    /// The predicted outage duration is the true one times this factor (1 = exact predictor).
    pub duration_factor: f64,
    /// Probability that an outage comes without any LINK_GOING_DOWN (a missed prediction).
    pub miss_probability: f64,
    /// Period of signal-level samples (None: no samples).
    pub sample_interval: Option<SimTime>,
}

impl Default for SignalConfig {
    fn default() -> Self {
        SignalConfig {
            lead: SimTime::ZERO,
            duration_factor: 1.0,
            miss_probability: 0.0,
            sample_interval: None,
        }
    }
}

/// One wireless LAN (a BSS or an ad hoc network) sharing a channel.
#[derive(Clone, Debug)]
pub struct WlanConfig {
    pub name: String,
    pub mode: Mode,
    pub phy: PhyParams,
    pub mac: MacParams,
    pub propagation: Propagation,
    pub rate: RateSelection,
    pub signals: SignalConfig,
    /// Each pair's propagation delay is its distance / c (ns-3's constant-speed model) instead of
    /// the PHY's constant `prop_delay`.
    pub delay_from_distance: bool,
    /// Threshold (ns-2) or SINR reception.
    pub reception: Reception,
}

impl WlanConfig {
    /// Propagation delay between two stations `d` metres apart.
    pub fn prop_delay(&self, d: f64) -> SimTime {
        if self.delay_from_distance {
            SimTime::from_secs_f64(d / channel::SPEED_OF_LIGHT)
        } else {
            self.phy.prop_delay
        }
    }
}

pub struct Wlan {
    pub cfg: WlanConfig,
    /// Global indices of the member stations, in scenario order.
    pub stations: Vec<u32>,
    /// The AP's station index (infrastructure mode).
    pub ap: Option<u32>,
}

/// What a station's PHY is locked on.
#[derive(Clone, Copy, Debug)]
struct RxLock {
    tx: u32,
    power: f64,
    end: SimTime,
    /// Threshold model: destroyed by an overlapping frame. SINR model: overlapped by another.
    collided: bool,
}

#[derive(Clone, Copy, Debug)]
struct Nbr {
    sta: u32,
    reach: Reach,
    /// Propagation delay from this station to `sta`.
    delay: SimTime,
}

/// A node's wireless interface.
pub struct Station {
    pub node: NodeId,
    pub wlan: u32,
    pub pos: (f64, f64),
    pub mac: Dcf,
    /// Frame error models of data frames this station receives / sends (Bernoulli or
    /// Gilbert–Elliott), each with its own random stream.
    pub loss_rx: LossModel,
    pub loss_tx: LossModel,
    /// The models act on packets the MAC received and acknowledged, between the MAC and IP (an
    /// ns-2 error model above the MAC), instead of on each frame transmission attempt: MAC
    /// retries cannot recover these losses.
    pub loss_above_mac: bool,
    /// The models act on every frame below the MAC (`loss_at = "phy"`, ns-2's node-config
    /// error hooks): the sending chain once per transmission (all its hearers see the frame in
    /// error), the receiving chain once per frame decoded, whatever its kind or addressee.
    pub loss_phy: bool,
    /// Packets dropped above the MAC by those models (at their receiver).
    pub packet_losses: u64,
    rng_rx: Rng,
    rng_tx: Rng,
    /// The outage predictor's own stream (missed predictions).
    rng_sig: Rng,
    pub outage: Outage,
    /// Who hears whom, in member order (see `neighbours.rs`).
    nbrs: Vec<Nbr>,
    /// The cell of its WLAN's grid it stands in.
    cell: grid::Cell,
    timer: Option<SimTime>,
    gen: u32,
    /// Whether this interface is captured to pcap (the world holds the writer).
    pub pcap: bool,
    /// Whether its 802.11 frames are captured (`trace.pcap_80211`; the world holds the writer).
    pub pcap_80211: bool,
}

/// What the channel knows of one station's PHY.
#[derive(Clone, Copy, Debug)]
struct Radio {
    /// In a scheduled outage: deaf and mute.
    down: bool,
    /// Signals sensed now (frames on the air above the CS threshold).
    sensed: u32,
    /// The frame the PHY is locked on.
    rx: Option<RxLock>,
    /// The SINR model's account of that frame (the threshold model keeps none: kept beside the
    /// lock so that the threshold model's per-hearer work copies only the small lock).
    sinr: reception::SinrLock,
    /// SINR model: frames arriving now, and their summed power (W).
    arriving: u32,
    arriving_w: f64,
}

/// A frame on the air.
struct TxRec {
    sta: u32,
    frame: Frame,
    end: SimTime,
    /// Stations that sensed it at its start: (station, reach, propagation delay).
    hearers: Vec<(u32, Reach, SimTime)>,
    /// Its sender's error model (`loss_phy`) marked it in error for every hearer.
    err: bool,
}

/// Cross-layer link signals (DESIGN.md principle 6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkSignalKind {
    /// Received power (dBm) from `peer` (the AP, for a station of a BSS).
    SignalLevel {
        dbm: f64,
    },
    /// An outage is predicted to start `lead` from now and to last `expected`.
    GoingDown {
        expected: SimTime,
    },
    Gone,
    Up,
    /// The MAC gave up on a frame to `peer` (retry limit): the network layer's link-failure
    /// notification.
    Failure,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSignal {
    pub t: SimTime,
    pub node: NodeId,
    /// The other end of the link when there is one (the AP in a BSS; the next hop of a failure).
    pub peer: Option<NodeId>,
    pub sta: u32,
    pub kind: LinkSignalKind,
}

/// What the world must do after a call into the wireless system.
#[derive(Default)]
pub struct WifiIo {
    pub sched: Vec<(SimTime, Event)>,
    /// (receiving station, packet as sent — the world copies it, transmitting station)
    pub up: Vec<(u32, PktId, u32)>,
    /// Sender copies no longer needed (acknowledged or dropped).
    pub freed: Vec<PktId>,
    /// Queued packets the MAC discarded (pushed out by a routing packet): the world counts them
    /// lost.
    pub lost: Vec<(u32, PktId)>,
    /// Data packets whose first transmission started (for pcap).
    pub pcap_tx: Vec<(u32, PktId)>,
    /// Frames for the 802.11 captures: each frame a captured station sends (at its start) and
    /// each it decodes (at its end there).
    pub air: Vec<AirFrame>,
    /// Unicast packets the MAC gave up on after its retries: (sending station, packet, station
    /// it was for). The network layer owns them again (its link-failure callback).
    pub failed: Vec<(u32, PktId, u32)>,
    /// Unicast data frames promiscuous stations decoded for others: (overhearing station,
    /// the sender's packet, sending station, addressed station). The packet stays the
    /// sender's; the world only shows it to the overhearer's routing agent.
    pub overheard: Vec<(u32, PktId, u32, u32)>,
}

impl WifiIo {
    /// Nothing but events to schedule: no packet handed up, freed, lost, failed, overheard or
    /// captured.
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.up.is_empty()
            && self.freed.is_empty()
            && self.lost.is_empty()
            && self.pcap_tx.is_empty()
            && self.air.is_empty()
            && self.failed.is_empty()
            && self.overheard.is_empty()
    }
}

/// A frame as one station's 802.11 capture records it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AirFrame {
    pub t: SimTime,
    /// The capturing station.
    pub sta: u32,
    pub frame: Frame,
    /// Received power (W) for a frame the station decoded; None for one it sent.
    pub power_w: Option<f64>,
}

/// Signal kinds carried by `Event::WifiLink`.
pub const LINK_GOING_DOWN: u32 = 0;
pub const LINK_GONE: u32 = 1;
pub const LINK_UP: u32 = 2;
pub const LINK_SAMPLE: u32 = 3;

/// Every WLAN of a world.
#[derive(Default)]
pub struct Wifi {
    /// The per-frame trace, when the scenario asks for one.
    pub frames: Option<Vec<FrameRecord>>,
    /// Every reception destroyed by an overlapping frame, at every hearer (the addressee or
    /// not: the receptions `rx_collisions` counts), when the event trace asks for them.
    pub collision_trace: Option<Vec<FrameRecord>>,
    /// Packets the MAC gave up on after its retries, when the event trace asks for them:
    /// (time, station, packet, whether the station was in an outage).
    pub mac_drop_trace: Option<Vec<(SimTime, u32, PktId, bool)>>,
    /// Packets the MACs took from their interface queues, when the event trace asks for
    /// them: (time, station, packet, destination station or `BROADCAST`).
    pub dequeue_trace: Option<Vec<(SimTime, u32, PktId, u32)>>,
    pub wlans: Vec<Wlan>,
    /// Each WLAN's pair geometry: its grid of anchors, ranges and propagation constants
    /// (`neighbours.rs`).
    fields: Vec<neighbours::Field>,
    /// Scratch of the position refresh.
    refresh: neighbours::Refresh,
    pub stations: Vec<Station>,
    /// The channel's view of each station's PHY, apart from the rest so that a frame's pass
    /// over its hearers touches little memory.
    radios: Vec<Radio>,
    txs: Vec<TxRec>,
    free_txs: Vec<u32>,
    /// The actions of the MAC input in progress (its allocation kept between inputs). Carrying
    /// them out gives other MACs only inputs that ask for none (`Dcf::sense`), so one list
    /// serves.
    acts: Vec<MacAction>,
    pub io: WifiIo,
    /// Published link signals, in time order.
    pub log: Vec<LinkSignal>,
    /// The run's seed (per-pair shadowing draws).
    pub seed: u64,
}

impl Wifi {
    pub fn new() -> Wifi {
        Wifi::default()
    }

    pub fn is_empty(&self) -> bool {
        self.stations.is_empty()
    }

    pub fn add_wlan(&mut self, cfg: WlanConfig) -> u32 {
        let w = Wlan {
            cfg,
            stations: Vec::new(),
            ap: None,
        };
        let field = self.new_field(&w);
        self.fields.push(field);
        self.wlans.push(w);
        self.wlans.len() as u32 - 1
    }

    /// Adds a station (a node's interface) to a WLAN; `rngs` are its MAC, rx-error and tx-error
    /// streams.
    #[allow(clippy::too_many_arguments)]
    pub fn add_station(
        &mut self,
        wlan: u32,
        node: NodeId,
        pos: (f64, f64),
        is_ap: bool,
        loss: LossModel,
        outage: Outage,
        rngs: [Rng; 4],
    ) -> u32 {
        let id = self.stations.len() as u32;
        let w = &mut self.wlans[wlan as usize];
        let [r_mac, r_rx, r_tx, r_sig] = rngs;
        let mac = Dcf::new(id, &w.cfg.mac, &w.cfg.phy, r_mac);
        w.stations.push(id);
        if is_ap {
            w.ap = Some(id);
        }
        self.radios.push(Radio {
            down: false,
            sensed: 0,
            rx: None,
            sinr: reception::SinrLock::UNUSED,
            arriving: 0,
            arriving_w: 0.0,
        });
        self.stations.push(Station {
            node,
            wlan,
            pos,
            mac,
            loss_rx: loss.clone(),
            loss_tx: loss,
            loss_above_mac: false,
            loss_phy: false,
            packet_losses: 0,
            rng_rx: r_rx,
            rng_tx: r_tx,
            rng_sig: r_sig,
            outage,
            nbrs: Vec::new(),
            cell: (0, 0),
            timer: None,
            gen: 0,
            pcap: false,
            pcap_80211: false,
        });
        self.add_neighbours(wlan, id);
        id
    }

    fn distance(&self, a: u32, b: u32) -> f64 {
        let (pa, pb) = (self.stations[a as usize].pos, self.stations[b as usize].pos);
        ((pa.0 - pb.0).powi(2) + (pa.1 - pb.1).powi(2)).sqrt()
    }

    /// Takes every packet queued at station `sta` for station `dst` out of its interface queue
    /// (ns-2 AODV's `ifqueue->filter`; the packet in transmission stays).
    pub fn drain_queue_for(&mut self, sta: u32, dst: u32) -> Vec<PktId> {
        self.stations[sta as usize].mac.drain_for(dst)
    }

    /// Link-layer adjacency for routing: (station, neighbour station) pairs. Infrastructure:
    /// every station with the AP; ad hoc: every pair within reception range now.
    pub fn adjacency(&self) -> Vec<(u32, u32)> {
        let mut e = Vec::new();
        for w in &self.wlans {
            match w.cfg.mode {
                Mode::Infrastructure => {
                    if let Some(ap) = w.ap {
                        for &s in &w.stations {
                            if s != ap {
                                e.push((ap, s));
                                e.push((s, ap));
                            }
                        }
                    }
                }
                Mode::AdHoc => {
                    for &a in &w.stations {
                        for n in &self.stations[a as usize].nbrs {
                            if n.reach.decodable && n.reach.sensed {
                                e.push((a, n.sta));
                            }
                        }
                    }
                }
            }
        }
        e
    }

    /// Schedules the first outage and sample events of every station (call once at t = 0).
    pub fn start(&mut self, now: SimTime) {
        for s in 0..self.stations.len() as u32 {
            self.schedule_outage(s, now);
            let w = self.stations[s as usize].wlan as usize;
            if let Some(iv) = self.wlans[w].cfg.signals.sample_interval {
                if iv.0 > 0 {
                    self.io.sched.push((now, Event::WifiLink(s, LINK_SAMPLE)));
                }
            }
        }
    }

    fn schedule_outage(&mut self, s: u32, now: SimTime) {
        let st = &self.stations[s as usize];
        let Some((start, end)) = st.outage.next_interval(now) else {
            return;
        };
        let lead = self.wlans[st.wlan as usize].cfg.signals.lead;
        let start = start.max(now);
        if lead.0 > 0 {
            self.io.sched.push((
                start.saturating_sub(lead).max(now),
                Event::WifiLink(s, LINK_GOING_DOWN),
            ));
        }
        self.io.sched.push((start, Event::WifiLink(s, LINK_GONE)));
        // Touching or overlapping intervals are one outage: up when the last of them ends.
        let up = st.outage.up_at(end);
        self.io.sched.push((up, Event::WifiLink(s, LINK_UP)));
    }

    fn peer_of(&self, s: u32) -> Option<NodeId> {
        let w = &self.wlans[self.stations[s as usize].wlan as usize];
        match w.ap {
            Some(ap) if ap != s => Some(self.stations[ap as usize].node),
            _ => None,
        }
    }

    /// Handles `Event::WifiLink`.
    pub fn on_link_event(&mut self, now: SimTime, s: u32, kind: u32) {
        let node = self.stations[s as usize].node;
        let peer = self.peer_of(s);
        let publish = |log: &mut Vec<LinkSignal>, k| {
            log.push(LinkSignal {
                t: now,
                node,
                peer,
                sta: s,
                kind: k,
            })
        };
        match kind {
            LINK_GOING_DOWN => {
                let miss = self.wlans[self.stations[s as usize].wlan as usize]
                    .cfg
                    .signals
                    .miss_probability;
                if miss > 0.0 && self.stations[s as usize].rng_sig.bernoulli(miss) {
                    return; // this outage will come unannounced
                }
                let st = &self.stations[s as usize];
                let f = self.wlans[st.wlan as usize].cfg.signals.duration_factor;
                if let Some((a, b)) = st.outage.next_interval(now) {
                    // The outage lasts until the run of touching intervals ends, as LINK_UP does.
                    let down = st.outage.up_at(b) - a;
                    let expected = SimTime::from_secs_f64(down.as_secs_f64() * f);
                    publish(&mut self.log, LinkSignalKind::GoingDown { expected });
                }
            }
            LINK_GONE => {
                let st = &mut self.radios[s as usize];
                if !st.down {
                    st.down = true;
                    // A reception in progress is lost; the PHY is off.
                    st.rx = None;
                    publish(&mut self.log, LinkSignalKind::Gone);
                    self.mac_input(now, s, Input::Down(true));
                }
            }
            LINK_UP => {
                if self.radios[s as usize].down && !self.stations[s as usize].outage.is_down(now) {
                    self.radios[s as usize].down = false;
                    publish(&mut self.log, LinkSignalKind::Up);
                    self.schedule_outage(s, now);
                    self.mac_input(now, s, Input::Down(false));
                }
            }
            _ => {
                let st = &self.stations[s as usize];
                let w = &self.wlans[st.wlan as usize];
                if let (Some(ap), false) = (w.ap, self.radios[s as usize].down) {
                    if ap != s {
                        let p = w.cfg.propagation.power(self.distance(s, ap));
                        publish(
                            &mut self.log,
                            LinkSignalKind::SignalLevel {
                                dbm: 10.0 * (p * 1e3).log10(),
                            },
                        );
                    }
                }
                if let Some(iv) = w.cfg.signals.sample_interval {
                    self.io
                        .sched
                        .push((now + iv, Event::WifiLink(s, LINK_SAMPLE)));
                }
            }
        }
    }

    /// Offers an IP packet of `ip_len` bytes to station `s` for next hop `dst` (a station index or
    /// BROADCAST). Returns false if the queue dropped it (the caller frees it).
    pub fn enqueue(
        &mut self,
        now: SimTime,
        s: u32,
        pkt: PktId,
        dst: u32,
        ip_len: u32,
        prio: bool,
    ) -> bool {
        let w = self.stations[s as usize].wlan as usize;
        let rate = if dst == BROADCAST {
            // Broadcasts go at the lowest basic rate so every neighbour can decode them.
            let cfg = &self.wlans[w].cfg;
            cfg.phy
                .basic_rates
                .iter()
                .copied()
                .min()
                .unwrap_or(1_000_000)
        } else {
            self.wlans[w].cfg.rate.rate(self.distance(s, dst))
        };
        let q = QueuedPkt {
            pkt,
            dst,
            ip_len,
            prio,
            rate,
        };
        let cfg = &self.wlans[w].cfg;
        let ok = self.stations[s as usize]
            .mac
            .enqueue(now, q, &cfg.phy, &cfg.mac, &mut self.acts);
        self.run_actions(now, s);
        self.rearm(now, s);
        ok
    }

    /// Handles `Event::WifiTimer`.
    pub fn on_timer(&mut self, now: SimTime, s: u32, gen: u32) {
        match self.timer_wakeup(now, s, gen) {
            Wakeup::Acts => self.on_timer_due(now, s),
            Wakeup::Idle(next) => self.io.sched.extend(next),
        }
    }

    /// Handles a wake-up of station `s` that [`Wifi::timer_wakeup`] has just found due
    /// (`Wakeup::Acts`, nothing changed since): the engine, which looks at every wake-up before
    /// popping it, calls this directly instead of `on_timer` asking again.
    pub fn on_timer_due(&mut self, now: SimTime, s: u32) {
        self.stations[s as usize].timer = None;
        self.mac_input(now, s, Input::Timer);
    }

    /// What station `s`'s wake-up `gen`, due `now`, does. `Acts` changes nothing yet (the
    /// caller hands the MAC `Input::Timer`); an idle wake-up has already been dealt with and
    /// returns the one that replaces it, if any, so that the engine can re-key it in its queue
    /// instead of popping one event and pushing another.
    #[inline]
    pub fn timer_wakeup(&mut self, now: SimTime, s: u32, gen: u32) -> Wakeup {
        let st = &mut self.stations[s as usize];
        if st.gen != gen {
            return Wakeup::Idle(None); // superseded
        }
        let next = st.mac.next_deadline();
        if next.is_some_and(|d| d <= now) {
            return Wakeup::Acts;
        }
        // The deadline this timer was armed for moved later or went away (the awaited response
        // came, the count froze): the MAC has nothing to do now, so it is only re-armed. Exact:
        // `Input::Timer` acts only on a deadline that has come.
        st.timer = next;
        Wakeup::Idle(next.map(|t| {
            st.gen = st.gen.wrapping_add(1);
            (t, Event::WifiTimer(s, st.gen))
        }))
    }

    /// Gives station `s`'s MAC one input at `at` and carries out what it asks for (at `now`,
    /// the engine's time, which is `at` or up to one propagation delay later).
    fn mac_input_at(&mut self, now: SimTime, at: SimTime, s: u32, input: Input<'_>) {
        let cfg = &self.wlans[self.stations[s as usize].wlan as usize].cfg;
        self.stations[s as usize]
            .mac
            .handle(at, input, &cfg.phy, &cfg.mac, &mut self.acts);
        if !self.acts.is_empty() {
            self.run_actions(now, s);
        }
        self.rearm(now, s);
    }

    fn mac_input(&mut self, now: SimTime, s: u32, input: Input<'_>) {
        self.mac_input_at(now, now, s, input);
    }

    fn rearm(&mut self, now: SimTime, s: u32) {
        let st = &mut self.stations[s as usize];
        if let Some(t) = st.mac.next_deadline() {
            if st.timer.is_none_or(|cur| t < cur) {
                st.gen = st.gen.wrapping_add(1);
                st.timer = Some(t);
                self.io
                    .sched
                    .push((t.max(now), Event::WifiTimer(s, st.gen)));
            }
        }
    }

    /// Carries out the actions station `s`'s MAC just asked for, in order. None of them gives a
    /// MAC an input that acts (a frame's start only [`Dcf::sense`]s its hearers), so the list
    /// is not added to while it is read.
    fn run_actions(&mut self, now: SimTime, s: u32) {
        let n = self.acts.len();
        for i in 0..n {
            let a = self.acts[i];
            match a {
                MacAction::Transmit(f, d) => self.start_tx(now, s, f, d),
                MacAction::Deliver { pkt, src } => self.deliver_up(s, pkt, src),
                MacAction::Overheard { pkt, src, dst } => {
                    self.io.overheard.push((s, pkt, src, dst))
                }
                MacAction::Sent(p) => self.io.freed.push(p),
                // Pushed out of the queue (never on the air): lost in the network.
                MacAction::Drop(p, DropCause::QueueOverflow) => self.io.lost.push((s, p)),
                // The LinkFailure that follows hands the packet to the network layer; the
                // event trace records the MAC's drop first (ns-2's `D MAC RET`).
                MacAction::Drop(p, cause) => {
                    if let Some(d) = self.mac_drop_trace.as_mut() {
                        d.push((now, s, p, cause == DropCause::Outage));
                    }
                }
                MacAction::Dequeued { pkt, dst } => {
                    if let Some(d) = self.dequeue_trace.as_mut() {
                        d.push((now, s, pkt, dst));
                    }
                }
                MacAction::LinkFailure { dst, pkt } => {
                    self.io.failed.push((s, pkt, dst));
                    let peer = (dst != BROADCAST).then(|| self.stations[dst as usize].node);
                    self.log.push(LinkSignal {
                        t: now,
                        node: self.stations[s as usize].node,
                        peer,
                        sta: s,
                        kind: LinkSignalKind::Failure,
                    });
                }
            }
        }
        debug_assert_eq!(self.acts.len(), n);
        self.acts.clear();
    }

    /// Hands a packet station `r`'s MAC received (from station `src`) to the network layer,
    /// unless an error model acting above the MAC drops it there: once per packet, after the
    /// MAC acknowledged it, so no MAC retry recovers it (ns-2's error model between LL and MAC).
    fn deliver_up(&mut self, r: u32, pkt: PktId, src: u32) {
        let lost_tx = {
            let st = &mut self.stations[src as usize];
            st.loss_above_mac && st.loss_tx.lose(&mut st.rng_tx)
        };
        let st = &mut self.stations[r as usize];
        let lost_rx = st.loss_above_mac && st.loss_rx.lose(&mut st.rng_rx);
        if lost_tx || lost_rx {
            st.packet_losses += 1;
        } else {
            self.io.up.push((r, pkt, src));
        }
    }

    fn start_tx(&mut self, now: SimTime, s: u32, f: Frame, d: SimTime) {
        if let Some(tr) = self.frames.as_mut() {
            let mut r = frame_record(now, s, FrameEvent::Tx, &f);
            r.dur = d;
            tr.push(r);
        }
        let end = now + d;
        let id = match self.free_txs.pop() {
            Some(i) => i,
            None => {
                self.txs.push(TxRec {
                    sta: s,
                    frame: f,
                    end,
                    hearers: Vec::new(),
                    err: false,
                });
                self.txs.len() as u32 - 1
            }
        };
        let mut hearers = std::mem::take(&mut self.txs[id as usize].hearers);
        hearers.clear();
        {
            self.radios[s as usize].rx = None;
            let st = &self.stations[s as usize];
            // Sending ends any reception in progress (half duplex; the MAC knows it sends).
            // The IP-level capture shows each packet once, at its first DATA frame (the
            // Retry bit is clear on it, whatever RTS attempts preceded it).
            if st.pcap && f.kind == FrameKind::Data && !f.retry {
                if let Some(p) = f.pkt {
                    self.io.pcap_tx.push((s, p));
                }
            }
            if st.pcap_80211 {
                self.io.air.push(AirFrame {
                    t: now,
                    sta: s,
                    frame: f,
                    power_w: None,
                });
            }
        }
        let w = self.stations[s as usize].wlan as usize;
        let capture = self.wlans[w].cfg.propagation.capture_ratio();
        let (noise, preamble) = match &self.wlans[w].cfg.reception {
            Reception::Threshold => (None, PreambleDetection::Sensed),
            Reception::Sinr(p) => (Some(p.noise_w), p.preamble),
        };
        // The SINR model's account of the frame (the threshold model keeps none).
        let spans = noise.map(|_| reception::FrameSpans::new(&self.wlans[w].cfg.phy, f.rate, d));
        let mut max_delay = SimTime::ZERO;
        if !self.radios[s as usize].down {
            // Reach and delay as the stations stand when the frame starts (the neighbour cache
            // follows `set_position`); the frame keeps them until it ends.
            // The list is lent out for the pass (nothing in it reads the sender's own list), so
            // the loop walks a slice instead of indexing the station table for each hearer.
            let nbrs = std::mem::take(&mut self.stations[s as usize].nbrs);
            let Wifi {
                radios,
                stations,
                wlans,
                ..
            } = self;
            // Every hearer is a member of the sender's WLAN.
            let phy = &wlans[w].cfg.phy;
            for &nb in &nbrs {
                let r = &mut radios[nb.sta as usize];
                if r.down {
                    continue;
                }
                hearers.push((nb.sta, nb.reach, nb.delay));
                max_delay = max_delay.max(nb.delay);
                if let Some(noise) = noise {
                    // SINR: the frame being received gets a new chunk of interference.
                    if let Some(lock) = r.rx.as_mut() {
                        let sinr = reception::sinr(lock.power, r.arriving_w, noise);
                        r.sinr.chunk(now, sinr);
                        lock.collided = true;
                    }
                    r.arriving += 1;
                    r.arriving_w += nb.reach.power;
                }
                if !nb.reach.sensed {
                    continue; // interference only
                }
                r.sensed += 1;
                let first = r.sensed == 1;
                let mac = &mut stations[nb.sta as usize].mac;
                let sending = mac.is_transmitting();
                let new = RxLock {
                    tx: id,
                    power: nb.reach.power,
                    end,
                    collided: false,
                };
                // Half duplex: a station that is sending does not receive the frame.
                let mut locked = false;
                let mut captured = false;
                let preamble_found = || {
                    let other = r.arriving_w - nb.reach.power;
                    let noise = noise.unwrap_or(0.0);
                    preamble.locks(nb.reach.power, nb.reach.decodable, other, noise)
                };
                if !sending {
                    match r.rx.as_mut() {
                        // No preamble detected: the frame stays interference and busy medium.
                        None if !preamble_found() => {}
                        None => {
                            r.rx = Some(new);
                            if let Some(sp) = spans {
                                r.sinr = reception::SinrLock::new(now + nb.delay, sp);
                            }
                            locked = true;
                        }
                        // SINR: the PHY stays on its frame; the newcomer is interference.
                        Some(_) if noise.is_some() => {}
                        Some(cur) => {
                            if capture.is_some_and(|cp| cur.power >= cp * new.power) {
                                // Captured: the frame being received survives; the new one is
                                // noise.
                                captured = true;
                            } else {
                                cur.collided = true;
                                // ns-2 keeps the frame that ends last as the one being
                                // "received".
                                if new.end > cur.end {
                                    *cur = RxLock {
                                        collided: true,
                                        ..new
                                    };
                                }
                            }
                        }
                    }
                }
                // These inputs ask for no action and bring no deadline forward (`Dcf::sense`):
                // the hearer's timer stays as it is.
                // `MediumBusy` if the medium was idle here, then `RxStart` or `Captured`, in one
                // call (`Dcf::sense_start`).
                let arrival = first.then(|| now + nb.delay);
                let air_time = captured.then_some(d);
                mac.sense_start(now, arrival, locked, air_time, phy);
            }
            // Back in place; what it replaces is the empty list `take` left (no allocation), so
            // it is forgotten rather than dropped.
            let lent = std::mem::replace(&mut self.stations[s as usize].nbrs, nbrs);
            debug_assert_eq!(lent.capacity(), 0);
            std::mem::forget(lent);
        }
        // ns-2's outgoing error hook marks the frame once, for every hearer.
        let err = {
            let st = &mut self.stations[s as usize];
            st.loss_phy && st.loss_tx.lose(&mut st.rng_tx)
        };
        let rec = &mut self.txs[id as usize];
        rec.sta = s;
        rec.frame = f;
        rec.end = end;
        rec.hearers = hearers;
        rec.err = err;
        // One event resolves the frame for everyone, when it has ended at its farthest hearer;
        // each hearer is handled at its own end instant (end + its delay).
        self.io.sched.push((end + max_delay, Event::WifiRxEnd(id)));
    }

    /// Handles `Event::WifiRxEnd`: the frame `id` has ended for everyone.
    pub fn on_rx_end(&mut self, now: SimTime, id: u32) {
        let (s, f, end, tx_err) = {
            let r = &self.txs[id as usize];
            (r.sta, r.frame, r.end, r.err)
        };
        let tx_phy = self.stations[s as usize].loss_phy;
        let hearers = std::mem::take(&mut self.txs[id as usize].hearers);
        self.mac_input_at(now, end, s, Input::TxEnd);
        let w = self.stations[s as usize].wlan as usize;
        let noise = match &self.wlans[w].cfg.reception {
            Reception::Threshold => None,
            Reception::Sinr(p) => Some(p.noise_w),
        };
        for &(r, reach, delay) in &hearers {
            let at = end + delay;
            if let Some(noise) = noise {
                let st = &mut self.radios[r as usize];
                if let Some(lock) = st.rx.as_ref() {
                    let sinr = reception::sinr(lock.power, st.arriving_w, noise);
                    st.sinr.chunk(at, sinr);
                }
                st.arriving -= 1;
                st.arriving_w = if st.arriving == 0 {
                    0.0
                } else {
                    st.arriving_w - reach.power
                };
            }
            if !reach.sensed {
                continue; // it was interference only
            }
            // The hearer's state is read and written through one borrow each of its radio and
            // its station (the trace lists and the WLAN's parameters are other fields).
            let Wifi {
                radios,
                stations,
                wlans,
                frames,
                collision_trace,
                io,
                acts,
                ..
            } = self;
            let ri = r as usize;
            let radio = &mut radios[ri];
            radio.sensed -= 1;
            // Reception inputs leave `sensed` alone (they start no frame).
            let idle = radio.sensed == 0;
            let mut outcome = {
                let st = &mut stations[ri];
                match radio.rx {
                    Some(lock) if lock.tx == id => {
                        radio.rx = None;
                        // SINR: the frame survives with the product of its chunks' success
                        // probabilities.
                        let sinr_ok = noise.is_none()
                            || (reach.decodable
                                && st.rng_rx.uniform() < radio.sinr.ln_success.exp());
                        if lock.collided && (noise.is_none() || !sinr_ok) {
                            st.mac.stats.rx_collisions += 1;
                            if let Some(tr) = collision_trace.as_mut() {
                                tr.push(frame_record(at, r, FrameEvent::RxCollision, &f));
                            }
                            Outcome::Collided
                        } else if !reach.decodable || !sinr_ok {
                            Outcome::TooWeak
                        } else {
                            Outcome::Ok
                        }
                    }
                    _ => Outcome::Missed,
                }
            };
            let addressee = f.dst == r || f.dst == BROADCAST;
            // The error model applies to data frames at their addressee (every receiver of a
            // broadcast); the sender's and the receiver's chains each advance once per frame
            // (unless they act above the MAC: `deliver_up`). A chain acting below the MAC
            // (`loss_phy`) hits every frame instead: the sender's marked the frame at its
            // start, the receiver's draws for each frame it decodes. (Each chain is a stream of
            // its own, so the sender's draw and the receiver's need no fixed order.)
            if outcome == Outcome::Ok {
                let data = f.kind == FrameKind::Data && addressee;
                let lost_tx = if tx_phy {
                    tx_err
                } else {
                    data && {
                        let st = &mut stations[s as usize];
                        !st.loss_above_mac && st.loss_tx.lose(&mut st.rng_tx)
                    }
                };
                let st = &mut stations[ri];
                let lost_rx = if st.loss_phy {
                    st.loss_rx.lose(&mut st.rng_rx)
                } else {
                    data && !st.loss_above_mac && st.loss_rx.lose(&mut st.rng_rx)
                };
                if lost_tx || lost_rx {
                    if addressee {
                        st.mac.stats.rx_errors += 1;
                    }
                    outcome = Outcome::Error;
                }
            }
            if f.dst == r && matches!(outcome, Outcome::Collided | Outcome::Missed) {
                // The exchange fails because of an overlapping frame: a collision as the station
                // that waits for the response experiences it (the sender of a DATA/RTS, the
                // addressee of an ACK/CTS).
                let waiter = match f.kind {
                    FrameKind::Data | FrameKind::Rts => s,
                    FrameKind::Ack | FrameKind::Cts => r,
                };
                stations[waiter as usize].mac.stats.tx_collisions += 1;
            }
            if addressee {
                if let Some(tr) = frames.as_mut() {
                    let ev = match outcome {
                        Outcome::Ok => FrameEvent::RxOk,
                        Outcome::Error => FrameEvent::RxError,
                        Outcome::Collided | Outcome::TooWeak => FrameEvent::RxCollision,
                        Outcome::Missed => FrameEvent::RxMissed,
                    };
                    tr.push(frame_record(at, r, ev, &f));
                }
            }
            let st = &mut stations[ri];
            if outcome == Outcome::Ok && st.pcap_80211 {
                io.air.push(AirFrame {
                    t: at,
                    sta: r,
                    frame: f,
                    power_w: Some(reach.power),
                });
            }
            let input = match outcome {
                Outcome::Ok => Some(Input::Frame(&f)),
                Outcome::Collided | Outcome::TooWeak | Outcome::Error => Some(Input::FrameError),
                Outcome::Missed => None,
            };
            if input.is_some() || idle {
                // The reception's end and the medium turning idle in one MAC call, their
                // actions carried out after both (`Dcf::rx_end` says why that is exact), and
                // one re-arm: MediumIdle removes no deadline, so the one after it is never
                // later than the one after the reception's end and would supersede it.
                // (Every hearer is a member of the sender's WLAN.)
                let cfg = &wlans[w].cfg;
                st.mac.rx_end(at, input, idle, &cfg.phy, &cfg.mac, acts);
                if !acts.is_empty() {
                    self.run_actions(now, r);
                }
                self.rearm(now, r);
            }
        }
        let rec = &mut self.txs[id as usize];
        rec.hearers = hearers;
        self.free_txs.push(id);
    }
}

/// What a MAC's due wake-up does ([`Wifi::timer_wakeup`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wakeup {
    /// The MAC has a deadline now: it is to be handed `Input::Timer`.
    Acts,
    /// Nothing to do (a superseded wake-up, or a deadline that moved later or went away); the
    /// wake-up that replaces it, if the MAC still has a deadline.
    Idle(Option<(SimTime, Event)>),
}

/// What became of a frame at one of its hearers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Ok,
    /// Destroyed by an overlapping frame.
    Collided,
    /// Sensed but below the reception threshold.
    TooWeak,
    /// Lost to the frame error model.
    Error,
    /// Not locked on at all: the hearer was transmitting or receiving another frame.
    Missed,
}

/// One line of the optional per-frame trace (`trace.frames = true`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameRecord {
    pub t: SimTime,
    /// The station the event happened at (the sender for `Tx` and drops, the receiver otherwise).
    pub sta: u32,
    pub event: FrameEvent,
    pub kind: FrameKind,
    pub src: u32,
    pub dst: u32,
    pub seq: u16,
    pub retry: bool,
    pub bytes: u32,
    pub rate: u64,
    /// The packet a data frame carries (valid while the world reads the trace right after the
    /// event, for the event trace; the arena reuses ids later).
    pub pkt: Option<PktId>,
    /// Time on the air (transmissions; zero for reception outcomes).
    pub dur: SimTime,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameEvent {
    /// Transmission starts.
    Tx,
    /// Decoded by its addressee (or a receiver of a broadcast).
    RxOk,
    /// Lost at its addressee to a collision or to being below the reception threshold.
    RxCollision,
    /// Lost at its addressee to the frame error model.
    RxError,
    /// Not received at all by its addressee (it was transmitting, or locked on another frame).
    RxMissed,
}

impl FrameEvent {
    pub fn name(self) -> &'static str {
        match self {
            FrameEvent::Tx => "tx",
            FrameEvent::RxOk => "rx_ok",
            FrameEvent::RxCollision => "rx_collision",
            FrameEvent::RxError => "rx_error",
            FrameEvent::RxMissed => "rx_missed",
        }
    }
}

fn frame_record(t: SimTime, sta: u32, event: FrameEvent, f: &Frame) -> FrameRecord {
    FrameRecord {
        t,
        sta,
        event,
        kind: f.kind,
        src: f.src,
        dst: f.dst,
        seq: f.seq,
        retry: f.retry,
        bytes: f.bytes,
        rate: f.rate,
        pkt: f.pkt,
        dur: SimTime::ZERO,
    }
}

/// A standard normal draw for the station pair (a, b), a < b: the same in every run with `seed`
/// and independent of the order stations are added (Box–Muller on the pair's own stream).
fn pair_normal(seed: u64, a: u32, b: u32) -> f64 {
    let key = 0x5EAD_0000_0000_0000 ^ ((a as u64) << 24) ^ b as u64;
    let mut rng = Rng::derive(seed, crate::rng::StreamId::Custom(key));
    let u1 = rng.uniform().max(1e-300);
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests;
