//! Series beyond TCP (`trace.series`): interface queues, stations and routing agents, sampled
//! every `trace.interval` (default 100 ms) by one periodic event that exists only when one of
//! them is asked for.

use super::World;
use crate::net::{PortKind, RoutingAgent};
use crate::sim::Event;
use crate::time::SimTime;
use crate::trace::series::NetSeriesKind;

/// One sampled series of one subject (an interface, a station or a node).
#[derive(Clone, Debug)]
pub struct NetSeries {
    /// "link:a->b" for a wired interface, "wlan:node" for a station, the node's name for a
    /// routing agent.
    pub subject: String,
    pub kind: NetSeriesKind,
    pub t: Vec<SimTime>,
    pub v: Vec<f64>,
    /// The previous sample of a counter turned into a rate (station throughput).
    last: f64,
}

impl World {
    /// Records `kinds` every `interval` from the start (build time; nothing when empty).
    pub fn set_net_series(&mut self, kinds: &[NetSeriesKind], interval: SimTime) {
        if kinds.is_empty() {
            return;
        }
        let mut out = Vec::new();
        for &kind in kinds {
            match kind {
                NetSeriesKind::QueueLen | NetSeriesKind::QueueDrops => {
                    for (i, ifc) in self.ifaces.iter().enumerate() {
                        let peer = self.ifaces[ifc.peer.idx()].node;
                        let name = format!(
                            "{}:{}->{}",
                            self.links[ifc.link.idx()].name,
                            self.nodes[ifc.node.idx()].name,
                            self.nodes[peer.idx()].name
                        );
                        out.push((name, kind, Subject::Iface(i)));
                    }
                    for s in 0..self.wifi.stations.len() {
                        out.push((self.sta_name(s), kind, Subject::Station(s)));
                    }
                }
                NetSeriesKind::StaThroughput | NetSeriesKind::StaRetries | NetSeriesKind::StaDrops => {
                    for s in 0..self.wifi.stations.len() {
                        out.push((self.sta_name(s), kind, Subject::Station(s)));
                    }
                }
                NetSeriesKind::RoutingControl
                | NetSeriesKind::RouteDiscoveries
                | NetSeriesKind::LinkBreaks => {
                    for (n, node) in self.nodes.iter().enumerate() {
                        let routed = node.ports.iter().any(|p| matches!(p, PortKind::Wifi(_)))
                            || !self.routing[n].kind().eq("static");
                        if routed {
                            out.push((node.name.clone(), kind, Subject::Node(n)));
                        }
                    }
                }
            }
        }
        self.net_subjects = out.iter().map(|(_, _, s)| *s).collect();
        self.net_series = out
            .into_iter()
            .map(|(subject, kind, _)| NetSeries {
                subject,
                kind,
                t: Vec::new(),
                v: Vec::new(),
                last: 0.0,
            })
            .collect();
        self.net_interval = interval;
        self.queue.schedule(SimTime::ZERO, Event::Sample);
    }

    fn sta_name(&self, s: usize) -> String {
        let st = &self.wifi.stations[s];
        format!(
            "{}:{}",
            self.wifi.wlans[st.wlan as usize].cfg.name,
            self.nodes[st.node.idx()].name
        )
    }

    /// The series beyond TCP, by subject and kind.
    pub fn net_series(&self) -> &[NetSeries] {
        &self.net_series
    }

    /// Handles `Event::Sample`: one sample of every series, and the next in `interval`.
    pub(super) fn on_sample(&mut self) {
        let now = self.now;
        let secs = self.net_interval.as_secs_f64();
        for (k, subj) in self.net_subjects.iter().enumerate() {
            let kind = self.net_series[k].kind;
            let v = match (*subj, kind) {
                (Subject::Iface(i), NetSeriesKind::QueueLen) => self.ifaces[i].queue.len() as f64,
                (Subject::Iface(i), NetSeriesKind::QueueDrops) => {
                    self.ifaces[i].stats.drops_queue as f64
                }
                (Subject::Station(s), kind) => {
                    let st = &self.wifi.stations[s];
                    let m = &st.mac.stats;
                    let red = self.wifi_red.get(s).and_then(|r| r.as_ref());
                    match kind {
                        NetSeriesKind::QueueLen => st.mac.queue_len() as f64,
                        NetSeriesKind::QueueDrops => {
                            (m.drops_queue + red.map_or(0, |r| r.drops)) as f64
                        }
                        NetSeriesKind::StaRetries => m.retries as f64,
                        NetSeriesKind::StaDrops => (m.drops_retry + m.drops_outage) as f64,
                        // Data bits put on the air per second over the last interval.
                        NetSeriesKind::StaThroughput => m.data_bytes_sent as f64,
                        _ => continue,
                    }
                }
                (Subject::Node(n), kind) => {
                    let r = self.routing[n].stats();
                    match kind {
                        NetSeriesKind::RoutingControl => r.control_packets as f64,
                        NetSeriesKind::RouteDiscoveries => r.discoveries as f64,
                        NetSeriesKind::LinkBreaks => r.link_breaks as f64,
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let s = &mut self.net_series[k];
            let v = if kind == NetSeriesKind::StaThroughput {
                let rate = if s.t.is_empty() || secs == 0.0 {
                    0.0
                } else {
                    (v - s.last) * 8.0 / secs
                };
                s.last = v;
                rate
            } else {
                v
            };
            s.t.push(now);
            s.v.push(v);
        }
        let next = now + self.net_interval;
        if next <= self.stop_at {
            self.queue.schedule(next, Event::Sample);
        }
    }
}

/// What one net series samples.
#[derive(Clone, Copy, Debug)]
pub(super) enum Subject {
    Iface(usize),
    Station(usize),
    Node(usize),
}
