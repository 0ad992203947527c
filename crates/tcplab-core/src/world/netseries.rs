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

#[cfg(test)]
mod tests {
    use crate::api::prepare;
    use crate::net::aodv::table::RouteState;
    use crate::net::AnyRouting;
    use crate::scenario::Format;

    /// What `route_changes` counts at a TCP receiver whose MAC keeps giving up
    /// (`examples/adhoc_break.toml`, 90 s, seed 1: the client n3 sends its ACKs to n0 through
    /// n2): stepping one event at a time, each increment of n3's counter is a flip of its AODV
    /// entry for n0 between valid and invalid, and each flip is counted once — no double
    /// counting, no next-hop or hop-count change while valid. Every loss is a give-up of n3's
    /// own MAC (a link break for AODV), and the next ACK's discovery restores the route, so the
    /// count is about twice the give-ups that found the route up.
    #[test]
    fn route_changes_count_each_flip_of_the_route_entry_once() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/adhoc_break.toml"
        ))
        .unwrap();
        let set = [("duration".to_string(), "\"90s\"".to_string())];
        let mut p = prepare(&text, Format::Toml, Some(1), &set, None).unwrap();
        let w = &mut p.world;
        let (rx, server) = (3usize, 0usize);
        let dst = w.nodes[server].addr;
        let entry = |w: &crate::world::World| {
            let AnyRouting::Aodv(a) = &w.routing[rx] else {
                panic!("AODV expected")
            };
            a.table()
                .get(dst)
                .map(|r| (r.state == RouteState::Valid, r.next, r.hops))
        };
        let giveups = |w: &crate::world::World| w.wifi.stations[rx].mac.stats.drops_retry;
        let (mut last, mut counted, mut g) = (entry(w), 0, giveups(w));
        let (mut downs, mut ups, mut downs_at_giveup) = (0u64, 0u64, 0u64);
        loop {
            let done = w.run_for(1).unwrap();
            let now = entry(w);
            let valid = |e: Option<(bool, u32, u8)>| e.is_some_and(|e| e.0);
            let flip = valid(now) != valid(last);
            let c = w.nodes[rx].drops.route_changes;
            assert_eq!(
                c - counted,
                u64::from(flip),
                "t = {:?}: {last:?} -> {now:?}",
                w.now
            );
            if valid(now) && valid(last) {
                assert_eq!(now, last, "t = {:?}: the route changed while valid", w.now);
            }
            let g_now = giveups(w);
            if flip && valid(now) {
                ups += 1;
            } else if flip {
                downs += 1;
                downs_at_giveup += u64::from(g_now > g);
            }
            (last, counted, g) = (now, c, g_now);
            if done {
                break;
            }
        }
        assert_eq!(counted, downs + ups);
        assert!(
            downs > 50 && ups >= downs,
            "{downs} losses, {ups} restorations"
        );
        assert_eq!(downs_at_giveup, downs);
        assert!(g > downs, "{g} give-ups, {downs} losses");
    }
}
