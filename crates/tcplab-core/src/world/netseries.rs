//! Sampling the series beyond TCP (`trace/netseries.rs`) from the counters the world keeps:
//! interfaces' queues and bytes, stations' MAC counters, nodes' routing counters.
//!
//! Elements are numbered wired interfaces first (the world's interface order), then stations,
//! then nodes. The event loop stops to sample only when a sample is due (`World::run_for`), so a
//! run without these series does no work for them.

use super::World;
use crate::ids::NodeId;
use crate::net::RoutingAgent;
use crate::time::SimTime;
use crate::trace::netseries::Scope;
use crate::trace::{NetSeries, NetSeriesKind};

impl World {
    /// Records `kinds` every `interval` (above zero). Call once every interface, station and node
    /// exists.
    pub fn set_net_series(&mut self, kinds: Vec<NetSeriesKind>, interval: SimTime) {
        if kinds.is_empty() {
            return;
        }
        let elements = self.ifaces.len() + self.wifi.stations.len() + self.nodes.len();
        self.net_series = Some(Box::new(NetSeries::new(kinds, interval, elements)));
    }

    /// The recorded series beyond TCP, if asked for.
    pub fn net_series(&self) -> Option<&NetSeries> {
        self.net_series.as_deref()
    }

    /// When the event loop must stop next: the stop time, or an earlier sample.
    pub(super) fn pause_at(&self) -> SimTime {
        match &self.net_series {
            Some(ns) => ns.next_due().min(self.stop_at),
            None => self.stop_at,
        }
    }

    /// Takes the samples due before the next event at `t`: the state then is that after every
    /// event up to the sample's instant.
    pub(super) fn sample_before(&mut self, t: SimTime) {
        while let Some(due) = self.net_series.as_ref().map(|ns| ns.next_due()) {
            if due >= t || due > self.stop_at {
                break;
            }
            self.net_sample(due);
        }
    }

    /// The run is over at `self.now`: the samples due until then, and a last (shorter) interval
    /// ending at `now`, so that each counter's series adds up to the summary's counter.
    pub(super) fn sample_end(&mut self) {
        let now = self.now;
        while let Some(ns) = self.net_series.as_ref() {
            let due = ns.next_due();
            if due <= now {
                self.net_sample(due);
            } else {
                if ns.last < now {
                    self.net_sample(now);
                }
                break;
            }
        }
    }

    /// Reads every wanted series at `at`.
    fn net_sample(&mut self, at: SimTime) {
        let Some(mut ns) = self.net_series.take() else {
            return;
        };
        let n_if = self.ifaces.len() as u32;
        let n_sta = self.wifi.stations.len() as u32;
        for ki in 0..ns.kinds.len() {
            let k = ns.kinds[ki];
            let scope = k.scope();
            if scope == Scope::Iface {
                for (i, ifc) in self.ifaces.iter().enumerate() {
                    let raw = match k {
                        NetSeriesKind::QueueLen => ifc.queue.len() as u64,
                        NetSeriesKind::QueueDrops => ifc.stats.drops_queue,
                        _ => ifc.stats.bytes_sent,
                    };
                    ns.record(at, i as u32, k, raw);
                }
            }
            if matches!(scope, Scope::Iface | Scope::Station) {
                for (s, st) in self.wifi.stations.iter().enumerate() {
                    let m = &st.mac.stats;
                    let raw = match k {
                        NetSeriesKind::QueueLen => st.mac.ifq_len() as u64,
                        // As the summary counts them: the MAC's overflows and RED's drops.
                        NetSeriesKind::QueueDrops => {
                            m.drops_queue + self.wifi_red(s as u32).map_or(0, |r| r.drops)
                        }
                        NetSeriesKind::Throughput => m.data_bytes_sent,
                        NetSeriesKind::MacRetries => m.retries,
                        _ => m.drops_retry,
                    };
                    ns.record(at, n_if + s as u32, k, raw);
                }
            }
            if scope == Scope::Node {
                for n in 0..self.nodes.len() {
                    let r = self.routing(NodeId(n as u32)).stats();
                    let raw = match k {
                        NetSeriesKind::RoutingPackets => r.control_packets,
                        NetSeriesKind::Rreq => r.route_requests,
                        NetSeriesKind::Rrep => r.route_replies,
                        NetSeriesKind::Rerr => r.route_errors,
                        _ => self.nodes[n].drops.route_changes,
                    };
                    ns.record(at, n_if + n_sta + n as u32, k, raw);
                }
            }
        }
        ns.sampled(at);
        self.net_series = Some(ns);
    }

    /// The name of element `e` as the series table gives it: `LINK:A->B` for a wired direction,
    /// `WLAN:NODE` for a station, the node's name for a node.
    pub fn net_element_name(&self, e: u32) -> String {
        let (n_if, n_sta) = (self.ifaces.len(), self.wifi.stations.len());
        let e = e as usize;
        if e < n_if {
            let ifc = &self.ifaces[e];
            let peer = &self.ifaces[ifc.peer.idx()];
            format!(
                "{}:{}->{}",
                self.links[ifc.link.idx()].name,
                self.nodes[ifc.node.idx()].name,
                self.nodes[peer.node.idx()].name
            )
        } else if e < n_if + n_sta {
            let st = &self.wifi.stations[e - n_if];
            format!(
                "{}:{}",
                self.wifi.wlans[st.wlan as usize].cfg.name,
                self.nodes[st.node.idx()].name
            )
        } else {
            self.nodes[e - n_if - n_sta].name.clone()
        }
    }
}
