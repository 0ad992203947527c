//! Shortest paths over the radio graph as it is now: the "oracle" hop count between two stations
//! of an ad hoc WLAN, which routing does not see. Holland & Vaidya's expected throughput (MobiCom
//! 1999 §3) weighs a static string's throughput by the time the shortest path has each length.

use std::collections::VecDeque;

use super::{Mode, Wifi};

impl Wifi {
    /// Whether station `sta` belongs to an ad hoc WLAN.
    pub fn in_adhoc(&self, sta: u32) -> bool {
        self.wlans[self.stations[sta as usize].wlan as usize]
            .cfg
            .mode
            == Mode::AdHoc
    }

    /// Hops of the shortest path from station `from` to station `to` of the same ad hoc WLAN
    /// now, over links on which frames are both sensed and decodable (the links `adjacency` gives
    /// routing); None when the two are partitioned.
    pub(crate) fn hops_now(&self, from: u32, to: u32) -> Option<u32> {
        debug_assert!(
            self.stations[to as usize].wlan == self.stations[from as usize].wlan
                && self.in_adhoc(from)
        );
        if from == to {
            return Some(0);
        }
        let mut dist = vec![u32::MAX; self.stations.len()];
        let mut queue = VecDeque::from([from]);
        dist[from as usize] = 0;
        while let Some(a) = queue.pop_front() {
            for n in &self.stations[a as usize].nbrs {
                if n.reach.decodable && n.reach.sensed && dist[n.sta as usize] == u32::MAX {
                    dist[n.sta as usize] = dist[a as usize] + 1;
                    if n.sta == to {
                        return Some(dist[n.sta as usize]);
                    }
                    queue.push_back(n.sta);
                }
            }
        }
        None
    }
}
