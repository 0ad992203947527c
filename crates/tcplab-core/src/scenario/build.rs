//! A validated scenario → a [`World`]: nodes, links, WLANs, agents, flows and traces.

use std::collections::BTreeMap;
use std::path::Path;

use super::schema::{
    AgentKindName, AgentSpec, AppName, Direction, EstimatorName, LinkSpec, LossAt, LossModelName,
    LossSpec, OutageSpec, PreambleDetectionName, PropagationModelName, QueueSpec,
    ReceptionModelName, Scenario, WlanMode, WlanRedSpec, WlanSpec,
};
use super::{
    err, link_name, merged_tcp, tcp_config, FieldError, DEFAULT_DURATION, DEFAULT_MAX_EVENTS,
};
use crate::agents::AnyAgent;
use crate::app::{AppKind, CbrFlow, TcpFlow};
use crate::ids::NodeId;
use crate::link::{LossModel, Outage, Queue, QueueConfig, RedParams};
use crate::net::node_addr;
use crate::rng::{Rng, StreamId};
use crate::tcp::config::OpenMode;
use crate::tcp::Socket;
use crate::time::SimTime;
use crate::trace::{PcapWriter, SeriesSet};
use crate::wifi::{
    MacParams, Mode, Modulation, PhyParams, PreambleDetection, Propagation, RadioParams,
    RateSelection, Reception, SignalConfig, SinrParams, WlanConfig,
};
use crate::world::{LinkDir, World};

/// The agent a validated spec describes.
fn build_agent(a: &AgentSpec, tcp: &crate::tcp::TcpConfig) -> AnyAgent {
    use crate::agents::{ack_holder, ack_schedule::Estimator, itcp, mtcp, snoop};
    match a.kind {
        AgentKindName::Mtcp => AnyAgent::Mtcp(mtcp::MtcpSh::default()),
        AgentKindName::MtcpPlus => {
            let d = mtcp::MtcpPlusConfig::default();
            AnyAgent::MtcpPlus(mtcp::MtcpPlusIh::new(mtcp::MtcpPlusConfig {
                buffer: a.buffer.map_or(d.buffer, |b| b.0),
                rto: a.rto.map_or(d.rto, |x| x.0),
                max_rto: a.max_rto.map_or(d.max_rto, |x| x.0),
            }))
        }
        AgentKindName::AckHolder => {
            let d = ack_holder::AckHolderConfig::default();
            let estimator = match (a.estimator, d.estimator) {
                (Some(EstimatorName::Pure), _) => Estimator::Pure,
                (
                    _,
                    Estimator::Clamped {
                        min,
                        max,
                        granularity,
                    },
                ) => Estimator::Clamped {
                    min: a.fh_rto_min.map_or(min, |x| x.0.as_secs_f64()),
                    max: a.fh_rto_max.map_or(max, |x| x.0.as_secs_f64()),
                    granularity: a.fh_granularity.map_or(granularity, |x| x.0.as_secs_f64()),
                },
                (_, e) => e,
            };
            AnyAgent::AckHolder(Box::new(ack_holder::AckHolder::new(
                ack_holder::AckHolderConfig {
                    estimator,
                    guard: a.guard.unwrap_or(d.guard),
                    max_dups: a.max_dups.unwrap_or(d.max_dups),
                    rewrite_tsecr: a.rewrite_tsecr.unwrap_or(d.rewrite_tsecr),
                },
            )))
        }
        AgentKindName::Snoop => AnyAgent::Snoop(snoop::Snoop::new(a.snoop.unwrap_or_default())),
        AgentKindName::Itcp => AnyAgent::Itcp(Box::new(itcp::Itcp::new(
            a.itcp.unwrap_or_default(),
            tcp.clone(),
        ))),
    }
}

/// The preset a WLAN names, before the WLAN's overrides.
pub(super) fn wlan_phy_base(w: &WlanSpec) -> Option<PhyParams> {
    PhyParams::by_name(w.phy.as_deref().unwrap_or("hr_dsss"))
}

/// The PHY, MAC and propagation of a validated WLAN, with every override applied.
pub fn wlan_config(w: &WlanSpec) -> WlanConfig {
    let mut phy = wlan_phy_base(w).unwrap_or_else(|| PhyParams::hr_dsss(false));
    let ns2 = phy.preset == "ns2_dsss";
    if let Some(sp) = w.short_preamble {
        phy.short_preamble = sp;
        if phy.modulation == Modulation::Dsss {
            // aRxPHYStartDelay follows the preamble (802.11-2020 Table 16-4).
            let rx = if sp { phy.plcp_short } else { phy.plcp_long };
            phy.rx_start_delay = rx;
            phy.response_timeout = phy.sifs + phy.slot + rx;
        }
    }
    let slot_changed = w.slot.is_some() || w.sifs.is_some();
    if let Some(d) = w.slot {
        phy.slot = d.0;
    }
    if let Some(d) = w.sifs {
        phy.sifs = d.0;
    }
    if slot_changed && w.difs.is_none() {
        phy.difs = phy.sifs + phy.slot.times(2); // 10.3.2.3.5
    }
    if let Some(d) = w.difs {
        phy.difs = d.0;
    }
    if let Some(d) = w.eifs {
        phy.eifs = d.0;
    }
    if let Some(c) = w.cw_min {
        phy.cw_min = c;
    }
    if let Some(c) = w.cw_max {
        phy.cw_max = c;
    }
    if let Some(d) = w.response_timeout {
        phy.response_timeout = d.0;
    }
    if let Some(d) = w.prop_delay {
        phy.prop_delay = d.0;
    }
    if let Some(r) = w.basic_rate {
        phy.basic_rates = vec![r.0];
    }
    if let Some(r) = w.rts_cts_rate {
        phy.rts_cts_rate = Some(r.0);
    }
    let d = MacParams::default();
    let mac = MacParams {
        // ns-2 RTSThreshold_ 0: RTS/CTS before every unicast frame (ALGORITHMS.md §6.1).
        rts_threshold: w
            .rts_threshold
            .map_or(if ns2 { 0 } else { d.rts_threshold }, |x| {
                x.0.min(u32::MAX as u64) as u32
            }),
        short_retry_limit: w.short_retry_limit.unwrap_or(d.short_retry_limit),
        long_retry_limit: w.long_retry_limit.unwrap_or(d.long_retry_limit),
        queue_limit: w.queue.map_or(d.queue_limit, |q| q as usize),
        nav_reset: w.nav_reset.unwrap_or(d.nav_reset),
    };
    let propagation = match &w.propagation {
        None => Propagation::ns2_default(),
        Some(p) => match p.model {
            PropagationModelName::UnitDisk => Propagation::UnitDisk {
                rx_range: p.rx_range.map_or(250.0, |d| d.metres()),
                cs_range: p.cs_range.map_or(550.0, |d| d.metres()),
            },
            m => {
                let def = RadioParams::default();
                let h = p.antenna_height.map_or(def.ht, |d| d.metres());
                let r = RadioParams {
                    pt: p.tx_power_w.unwrap_or(def.pt),
                    freq: p.frequency_hz.unwrap_or(def.freq),
                    ht: h,
                    hr: h,
                    rx_thresh: p.rx_thresh_w.unwrap_or(def.rx_thresh),
                    cs_thresh: p.cs_thresh_w.unwrap_or(def.cs_thresh),
                    cp_thresh: p.capture_ratio.unwrap_or(def.cp_thresh),
                    ..def
                };
                match m {
                    PropagationModelName::FreeSpace => Propagation::FreeSpace(r),
                    PropagationModelName::LogDistance => Propagation::LogDistance {
                        radio: r,
                        exponent: p.exponent.unwrap_or(3.0),
                        ref_distance: p.reference_distance.map_or(1.0, |d| d.metres()),
                        ref_loss_db: p.reference_loss_db,
                        shadowing_db: p.shadowing_db.unwrap_or(0.0),
                    },
                    _ => Propagation::TwoRayGround(r),
                }
            }
        },
    };
    let default_rate = if ns2 {
        2_000_000 // the ns-2 papers' "802.11 at 2 Mb/s" (scripts set dataRate_ 2Mb)
    } else {
        phy.rates.iter().copied().max().unwrap_or(1_000_000)
    };
    let rate = if w.rate_steps.is_empty() {
        RateSelection::Fixed(w.rate.map_or(default_rate, |r| r.0))
    } else {
        RateSelection::Distance(
            w.rate_steps
                .iter()
                .map(|s| (s.max_distance.metres(), s.rate.0))
                .collect(),
        )
    };
    let sg = w.signals.clone().unwrap_or_default();
    let modulation = phy.modulation;
    WlanConfig {
        name: w.name.clone(),
        mode: match w.mode {
            WlanMode::Infrastructure => Mode::Infrastructure,
            WlanMode::Adhoc => Mode::AdHoc,
        },
        phy,
        mac,
        propagation,
        rate,
        signals: SignalConfig {
            lead: sg.lead.map_or(SimTime::ZERO, |d| d.0),
            duration_factor: sg.duration_factor.unwrap_or(1.0),
            miss_probability: sg.miss_probability.unwrap_or(0.0),
            sample_interval: sg.sample_interval.map(|d| d.0),
        },
        delay_from_distance: w.prop_delay_from_distance.unwrap_or(false),
        reception: match &w.reception {
            Some(r) if r.model == ReceptionModelName::Sinr => {
                // DSSS/CCK occupy 22 MHz (802.11-2020 16.3.7.4), OFDM and ERP 20 MHz (17.3.8.3),
                // the widths ns-3 takes for the noise floor.
                let bw = match modulation {
                    Modulation::Ofdm | Modulation::ErpOfdm => 20e6,
                    Modulation::Dsss | Modulation::Ns2Dsss => 22e6,
                };
                let mut sinr = SinrParams::thermal(bw, r.noise_figure_db.unwrap_or(7.0));
                if r.preamble_detection == Some(PreambleDetectionName::Threshold) {
                    let db = r.preamble_threshold_db.unwrap_or(4.0);
                    sinr.preamble = PreambleDetection::Threshold {
                        min_sinr: 10f64.powf(db / 10.0),
                    };
                }
                Reception::Sinr(sinr)
            }
            _ => Reception::Threshold,
        },
    }
}

fn loss_model(l: &LossSpec) -> LossModel {
    match l.model {
        LossModelName::Bernoulli => LossModel::Bernoulli {
            p: l.p.unwrap_or(0.0),
        },
        LossModelName::GilbertElliott => match (l.mean, l.burst) {
            (Some(m), Some(b)) => LossModel::gilbert_from_mean(m, b),
            _ => LossModel::GilbertElliott {
                p_gb: l.p_gb.unwrap_or(0.0),
                p_bg: l.p_bg.unwrap_or(1.0),
                loss_good: l.loss_good.unwrap_or(0.0),
                loss_bad: l.loss_bad.unwrap_or(1.0),
                bad: false,
            },
        },
    }
}

fn outage(o: &Option<OutageSpec>) -> Outage {
    let Some(o) = o else { return Outage::none() };
    let mut intervals: Vec<(SimTime, SimTime)> =
        o.intervals.iter().map(|(s, e)| (s.0, e.0)).collect();
    intervals.sort();
    Outage {
        intervals,
        periodic: match (o.every, o.down) {
            (Some(p), Some(d)) => Some((o.start.map_or(SimTime::ZERO, |s| s.0), p.0, d.0)),
            _ => None,
        },
    }
}

/// RED on a WLAN's interface queues, bounded by the WLAN's queue limit.
fn wlan_red(r: &WlanRedSpec, limit: u32) -> RedParams {
    RedParams {
        limit,
        min_th: r.min_th,
        max_th: r.max_th,
        max_p: r.max_p,
        w_q: r.w_q,
        gentle: r.gentle,
        ecn: r.ecn,
        mark_at_max_th: r.mark_at_max_th,
    }
}

/// The models of one direction of a wired link (`k` = 0: a→b, 1: b→a): its queue, loss model
/// and outage schedule. The simulator's links and the Linux validation's emulator
/// (crates/tcplab-emu) both take them from here, so the two read the scenario alike.
pub fn link_direction(l: &LinkSpec, k: u8) -> (QueueConfig, LossModel, Outage) {
    let qcfg = match &l.queue {
        None => QueueConfig::DropTail {
            packets: Some(50),
            bytes: None,
        },
        Some(QueueSpec::Droptail { packets, bytes }) => QueueConfig::DropTail {
            packets: if packets.is_none() && bytes.is_none() {
                Some(50)
            } else {
                *packets
            },
            bytes: bytes.map(|b| b.0),
        },
        Some(QueueSpec::Red {
            limit,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            ecn,
            mark_at_max_th,
        }) => QueueConfig::Red(RedParams {
            limit: *limit,
            min_th: *min_th,
            max_th: *max_th,
            max_p: *max_p,
            w_q: *w_q,
            gentle: *gentle,
            ecn: *ecn,
            mark_at_max_th: *mark_at_max_th,
        }),
    };
    let loss = match &l.loss {
        Some(ls)
            if ls.direction == Direction::Both
                || (ls.direction == Direction::AToB && k == 0)
                || (ls.direction == Direction::BToA && k == 1) =>
        {
            loss_model(ls)
        }
        _ => LossModel::None,
    };
    (qcfg, loss, outage(&l.outage))
}

/// Builds the world of a validated scenario. `pcap_dir` enables the captures the scenario's
/// `trace.pcap` names.
pub fn build(s: &Scenario, seed: u64, pcap_dir: Option<&Path>) -> Result<World, Vec<FieldError>> {
    // Before any allocation that grows with the scenario: a run that cannot fit is refused.
    super::memory::check(s).map_err(|e| vec![e])?;
    let stop = s.duration.map_or(DEFAULT_DURATION, |d| d.0);
    let mut w = World::new(
        s.name.clone(),
        seed,
        stop,
        s.max_events.unwrap_or(DEFAULT_MAX_EVENTS),
    );
    if s.trace.view == Some(true) {
        w.enable_view();
    }
    let mut ids: BTreeMap<&str, NodeId> = BTreeMap::new();
    for n in &s.nodes {
        ids.insert(n.name.as_str(), w.add_node(&n.name));
    }
    if let Some(ev) = &s.trace.events {
        w.enable_events(event_filter(ev, &ids), s.trace.frames == Some(true));
    }
    let snaplen = s.trace.pcap_snaplen.unwrap_or(65_535);
    if pcap_dir.is_some() {
        // Every capture's file name is checked before the first file is created.
        super::pcap_names::check_capture_files(s).map_err(|e| vec![e])?;
    }
    let mut errs = Vec::new();
    for (li, l) in s.links.iter().enumerate() {
        let name = link_name(l);
        let capture = pcap_dir.is_some() && s.trace.pcap.iter().any(|p| p == "*" || *p == name);
        let mut dirs = Vec::new();
        for (k, node) in [(0u8, &l.a), (1u8, &l.b)] {
            let (qcfg, loss, outage) = link_direction(l, k);
            let pcap = capture
                .then(|| open_pcap(pcap_dir, &name, node, snaplen, &mut errs))
                .flatten();
            dirs.push(LinkDir {
                rate_bps: l.rate.0,
                delay: l.delay.0,
                queue: Queue::new(qcfg, SimTime::tx_time(1000, l.rate.0)),
                loss,
                outage,
                rng: Rng::derive(
                    seed,
                    StreamId::Link {
                        link: li as u32,
                        dir: k,
                        purpose: 0,
                    },
                ),
                pcap,
            });
        }
        let b = dirs.pop().expect("two directions");
        let a = dirs.pop().expect("two directions");
        w.add_link(&name, ids[l.a.as_str()], ids[l.b.as_str()], [a, b]);
    }
    // The station ids of each WLAN, in scenario order.
    let mut wlan_stas: Vec<Vec<u32>> = Vec::with_capacity(s.wlans.len());
    for (wi, ws) in s.wlans.iter().enumerate() {
        wlan_stas.push(Vec::with_capacity(ws.stations.len()));
        let capture = pcap_dir.is_some() && s.trace.pcap.iter().any(|p| p == "*" || *p == ws.name);
        let capture_80211 =
            pcap_dir.is_some() && s.trace.pcap_80211.iter().any(|p| p == "*" || *p == ws.name);
        w.wifi_mut().seed = seed;
        let cfg = wlan_config(ws);
        // ns-2.35's wireless node always has an ARP table (ns-mobilenode.tcl); tcplab's other
        // PHYs resolve next hops for free, as ns-3's and tcplab's earlier runs did.
        let arp_default_phy = cfg.phy.preset == "ns2_dsss";
        let arp = ws.arp.unwrap_or(arp_default_phy);
        let wl = w.wifi_mut().add_wlan(cfg);
        for (k, st) in ws.stations.iter().enumerate() {
            let stream = |purpose: u64| {
                // Wireless streams: Custom keys tagged 0x57 ("W") with (wlan, station, purpose).
                Rng::derive(
                    seed,
                    StreamId::Custom(
                        (0x57u64 << 48) | ((wi as u64) << 32) | ((k as u64) << 8) | purpose,
                    ),
                )
            };
            let loss_of = |dir: Direction| match &st.loss {
                Some(ls) if ls.direction == Direction::Both || ls.direction == dir => {
                    loss_model(ls)
                }
                _ => LossModel::None,
            };
            let pcap = capture
                .then(|| open_pcap(pcap_dir, &ws.name, &st.node, snaplen, &mut errs))
                .flatten();
            let sta = w.add_station(
                wl,
                ids[st.node.as_str()],
                (st.position.0.metres(), st.position.1.metres()),
                ws.ap.as_deref() == Some(st.node.as_str()),
                outage(&st.outage),
                [stream(0), stream(1), stream(2), stream(3)],
                pcap,
            );
            wlan_stas[wi].push(sta);
            if arp {
                w.set_arp(sta);
            }
            if capture_80211 {
                let file = super::pcap_names::capture_file_80211(&ws.name, &st.node);
                if let Some(pw) = open_capture(pcap_dir, &file, snaplen, 127, &mut errs) {
                    w.set_station_capture_80211(sta, pw);
                }
            }
            let s_ = &mut w.wifi_mut().stations[sta as usize];
            // a_to_b: frames the station sends; b_to_a: frames it receives.
            s_.loss_tx = loss_of(Direction::AToB);
            s_.loss_rx = loss_of(Direction::BToA);
            // ns-2.35's wireless error hook sits between PHY and MAC (every frame): the ns-2
            // PHY's default placement.
            let at = st.loss_at.unwrap_or(if arp_default_phy {
                LossAt::Phy
            } else {
                LossAt::Frames
            });
            s_.loss_above_mac = at == LossAt::Packets;
            s_.loss_phy = at == LossAt::Phy;
            if let Some(r) = &ws.red {
                let limit = ws.queue.unwrap_or(MacParams::default().queue_limit as u32);
                w.set_wifi_red(sta, wlan_red(r, limit), stream(4));
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    // Movement files are read relative to the working directory (the core gets the scenario's
    // text, not its path).
    let motion = super::mobility::build_mobility(s, seed, Path::new("."))?;
    for (wm, stas) in motion.into_iter().zip(&wlan_stas) {
        for (m, &sta) in wm.stations.into_iter().zip(stas) {
            w.add_mobility(sta, m, wm.position_update);
        }
    }
    // Stations start where their models put them at t = 0 (a movement file's or the stationary
    // distribution's positions), before static routes are computed.
    w.start_mobility();
    // The ad hoc protocols' agents first: static tables (a BFS from each node over the whole
    // network) are then computed only for the nodes that keep static routing.
    install_routing(&mut w, s, seed, &wlan_stas);
    w.install_static_routes();
    w.start_routing();
    if s.trace.frames == Some(true) {
        w.wifi_mut().frames = Some(Vec::new());
    }
    w.start_wifi();
    if !s.agents.is_empty() {
        let tcp = tcp_config(&s.tcp, "tcp")?;
        for a in &s.agents {
            w.add_agent(
                ids[a.node.as_str()],
                ids[a.mobile.as_str()],
                build_agent(a, &tcp),
            );
        }
    }

    // Validated: every name is known.
    let (kinds, net_kinds) = crate::trace::netseries::select(&s.trace.series).unwrap_or_default();
    let interval = s.trace.interval.map_or(SimTime::ZERO, |d| d.0);
    let mut tcp_index = 0u32;
    for (fi, f) in s.flows.iter().enumerate() {
        match f.app {
            AppName::BulkDownload | AppName::Bulk => {
                let (Some(c), Some(sv)) = (&f.client, &f.server) else {
                    continue;
                };
                let (cn, sn) = (ids[c.as_str()], ids[sv.as_str()]);
                let cfg = tcp_config(
                    &merged_tcp(&s.tcp, f.tcp.as_ref()),
                    &format!("flows[{fi}].tcp"),
                )?;
                // ns-2's one-way starts send no request: the server sends as soon as it can.
                let request = match cfg.open {
                    OpenMode::Handshake => f.request.map_or(100, |x| x.0),
                    OpenMode::SenderSyn | OpenMode::None => 0,
                };
                let flow = w.next_flow_id();
                let (cport, sport) = (49_152 + tcp_index as u16, 5_001 + tcp_index as u16);
                tcp_index += 1;
                let mut rc = Rng::derive(
                    seed,
                    StreamId::Tcp {
                        flow: fi as u32,
                        end: 0,
                    },
                );
                let mut rs = Rng::derive(
                    seed,
                    StreamId::Tcp {
                        flow: fi as u32,
                        end: 1,
                    },
                );
                // Random ISNs (RFC 9293 §3.4.1), drawn from each end's own stream.
                let client = Socket::new(cfg.clone(), cport, sport, rc.next_u64() & 0xffff_ffff);
                let server = Socket::new(cfg, sport, cport, rs.next_u64() & 0xffff_ffff);
                let cs = w.add_socket(cn, client, node_addr(sn), flow);
                let ss = w.add_socket(sn, server, node_addr(cn), flow);
                w.add_flow(
                    TcpFlow {
                        name: f.name.clone(),
                        kind: match f.app {
                            AppName::BulkDownload => AppKind::BulkDownload {
                                size: f.size.map_or(0, |x| x.0),
                            },
                            _ => AppKind::Bulk,
                        },
                        client: cs,
                        server: ss,
                        client_node: cn,
                        server_node: sn,
                        start: f.start.map_or(SimTime::ZERO, |d| d.0),
                        request,
                        request_sent: false,
                        response_started: false,
                        completed_at: None,
                        client_closed: false,
                        finished: false,
                        data_lost: 0,
                        acks_lost: 0,
                    },
                    SeriesSet::new(&kinds, interval),
                );
            }
            AppName::Cbr => {
                let (Some(src), Some(dst), Some(rate), Some(ps)) =
                    (&f.src, &f.dst, f.rate, f.packet_size)
                else {
                    continue;
                };
                let ip_bytes = ps.0 + 28;
                w.add_cbr(CbrFlow {
                    name: f.name.clone(),
                    src: ids[src.as_str()],
                    dst: ids[dst.as_str()],
                    port: 9_000 + fi as u16,
                    packet_size: ps.0 as u32,
                    interval: SimTime::tx_time(ip_bytes, rate.0),
                    start: f.start.map_or(SimTime::ZERO, |d| d.0),
                    stop: f.stop.map_or(SimTime::MAX, |d| d.0),
                    sent: 0,
                    received: 0,
                    bytes_received: 0,
                });
            }
        }
    }
    // Series beyond TCP: sampled every `trace.interval`, 1 s unless given.
    w.set_net_series(
        net_kinds,
        s.trace.interval.map_or(SimTime::from_secs(1), |d| d.0),
    );
    Ok(w)
}

/// Gives the nodes of WLANs with an ad hoc routing protocol their agent (the rest keep static
/// routing); their timers start with `start_routing`.
fn install_routing(w: &mut World, s: &Scenario, seed: u64, wlan_stas: &[Vec<u32>]) {
    use super::routing::{aodv_params, dsdv_params, dsr_params, RoutingProtocolName};
    use crate::net::{AnyRouting, Aodv, Dsdv, Dsr};
    for (ws, stas) in s.wlans.iter().zip(wlan_stas) {
        let Some(r) = ws.routing.as_ref() else {
            continue;
        };
        if r.protocol == RoutingProtocolName::Static {
            continue;
        }
        for &sta in stas {
            let node = w.wifi().stations[sta as usize].node;
            let (addr, port) = (w.nodes()[node.idx()].addr, w.station_port(sta));
            // Routing streams: Custom keys tagged 0x52 ("R") with the node.
            let rng = Rng::derive(seed, StreamId::Custom((0x52u64 << 48) | node.0 as u64));
            let agent = match r.protocol {
                RoutingProtocolName::Aodv => {
                    AnyRouting::Aodv(Box::new(Aodv::new(addr, port, aodv_params(r), rng)))
                }
                RoutingProtocolName::Dsr => {
                    AnyRouting::Dsr(Box::new(Dsr::new(addr, port, dsr_params(r), rng)))
                }
                RoutingProtocolName::Dsdv => {
                    AnyRouting::Dsdv(Box::new(Dsdv::new(addr, port, dsdv_params(r), rng)))
                }
                RoutingProtocolName::Static => unreachable!("skipped above"),
            };
            w.set_routing(node, agent);
        }
    }
}

/// Opens `<dir>/<iface>-<node>.pcap` (names made safe by [`capture_file`]) for an interface the
/// trace asks to capture; a file that cannot be created is an error of `trace.pcap`.
fn open_pcap(
    dir: Option<&Path>,
    iface: &str,
    node: &str,
    snaplen: u32,
    errs: &mut Vec<FieldError>,
) -> Option<PcapWriter> {
    let file = super::pcap_names::capture_file(iface, node);
    open_capture(dir, &file, snaplen, crate::trace::pcap::LINKTYPE_RAW, errs)
}

/// Opens `<dir>/<file>` with link type `linktype` (101 IP, 127 radiotap + 802.11); `file` is
/// already a safe name (scenario::pcap_names).
fn open_capture(
    dir: Option<&Path>,
    file: &str,
    snaplen: u32,
    linktype: u32,
    errs: &mut Vec<FieldError>,
) -> Option<PcapWriter> {
    let path = dir.expect("capture implies a directory").join(file);
    match PcapWriter::create_linktype(&path, snaplen, linktype) {
        Ok(p) => Some(p),
        Err(e) => {
            let field = if linktype == crate::trace::pcap::LINKTYPE_RAW {
                "trace.pcap"
            } else {
                "trace.pcap_80211"
            };
            errs.push(err(field, format!("cannot create {}: {e}", path.display())));
            None
        }
    }
}

/// The event trace's layers and nodes (every one when the scenario lists none).
fn event_filter(
    ev: &super::schema::EventsSpec,
    ids: &BTreeMap<&str, NodeId>,
) -> crate::trace::events::EventFilter {
    use super::schema::EventLayer as L;
    use crate::trace::events as e;
    let mut f = e::EventFilter::all();
    if !ev.layers.is_empty() {
        f.layers = ev.layers.iter().fold(0, |m, l| {
            m | 1
                << match l {
                    L::Agt => e::AGT,
                    L::Rtr => e::RTR,
                    L::Ifq => e::IFQ,
                    L::Mac => e::MAC,
                    L::Link => e::LINK,
                }
        });
    }
    if !ev.nodes.is_empty() {
        f.nodes = vec![false; ids.len()];
        for n in &ev.nodes {
            if let Some(id) = ids.get(n.as_str()) {
                f.nodes[id.idx()] = true;
            }
        }
    }
    f
}
