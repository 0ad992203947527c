//! The length of each TCP flow's shortest path over time, as an observer who sees every radio
//! link would measure it (routing does not see it). The log is a step function, written when a
//! flow is added and after each mobility refresh that changes it; summaries integrate it over the
//! flow's life. It is what Holland & Vaidya's "expected throughput" (MobiCom 1999 §3) needs:
//! the time the path has each length, and the time the endpoints are partitioned.

use super::World;
use crate::ids::FlowId;
use crate::time::SimTime;

/// One flow's path lengths: the station pairs it can use (server's, client's station in each
/// ad hoc WLAN both belong to), and each change as (time, hops; None = partitioned).
#[derive(Debug, Default)]
pub struct PathLog {
    pairs: Vec<(u32, u32)>,
    changes: Vec<(SimTime, Option<u32>)>,
}

/// Seconds a flow's shortest path had each length, and seconds its endpoints were partitioned.
#[derive(Clone, Debug, PartialEq)]
pub struct PathTimes {
    /// (hops, seconds), by increasing hops, lengths never seen left out.
    pub hops: Vec<(u32, f64)>,
    pub partitioned_s: f64,
}

impl World {
    /// Starts the path log of the flow just added (its endpoints' stations in shared ad hoc
    /// WLANs; a flow with none is not logged).
    pub(super) fn track_path(&mut self, flow: FlowId) {
        let f = &self.flows[flow.idx()];
        let (s, c) = (f.server_node, f.client_node);
        let pairs: Vec<(u32, u32)> = self
            .wlan_sta
            .iter()
            .filter_map(|m| Some((m.get(s.idx()).copied()??, m.get(c.idx()).copied()??)))
            .filter(|&(a, _)| self.wifi.in_adhoc(a))
            .collect();
        let mut log = PathLog {
            pairs,
            changes: Vec::new(),
        };
        if !log.pairs.is_empty() {
            log.changes.push((self.now, self.shortest(&log.pairs)));
        }
        self.paths.push(log);
    }

    /// Logs each uncompleted flow's path length after the stations moved, where it changed
    /// (a completed flow's log is read only up to its completion). About 2 % of a 50-node mobile run.
    pub(super) fn update_paths(&mut self) {
        for i in 0..self.paths.len() {
            if self.paths[i].pairs.is_empty() || self.flows[i].completed_at.is_some() {
                continue;
            }
            let hops = self.shortest(&self.paths[i].pairs);
            let log = &mut self.paths[i];
            if log.changes.last().map(|c| c.1) != Some(hops) {
                log.changes.push((self.now, hops));
            }
        }
    }

    fn shortest(&self, pairs: &[(u32, u32)]) -> Option<u32> {
        pairs
            .iter()
            .filter_map(|&(a, b)| self.wifi.hops_now(a, b))
            .min()
    }

    /// The flow's path lengths integrated from its start to `until` (None if not logged).
    pub fn path_times(&self, flow: FlowId, until: SimTime) -> Option<PathTimes> {
        let log = self.paths.get(flow.idx()).filter(|l| !l.pairs.is_empty())?;
        let from = self.flows[flow.idx()].start;
        let mut hops: Vec<(u32, f64)> = Vec::new();
        let mut partitioned_s = 0.0;
        for (i, &(t, h)) in log.changes.iter().enumerate() {
            let next = log.changes.get(i + 1).map_or(until, |c| c.0);
            let (a, b) = (t.max(from), next.min(until));
            if b <= a {
                continue;
            }
            let s = (b - a).as_secs_f64();
            match h {
                None => partitioned_s += s,
                Some(h) => match hops.binary_search_by_key(&h, |e| e.0) {
                    Ok(k) => hops[k].1 += s,
                    Err(k) => hops.insert(k, (h, s)),
                },
            }
        }
        Some(PathTimes {
            hops,
            partitioned_s,
        })
    }
}
