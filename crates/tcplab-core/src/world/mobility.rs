//! Moving stations: each mobile station's position is refreshed from its mobility model at a
//! fixed interval (the WLAN's `position_update`) and at every velocity change of any model, and
//! the wireless neighbour tables are recomputed once per refresh. Between refreshes a station
//! keeps its last position; frames on the air keep the reach they started with.

use super::World;
use crate::mobility::Mobility;
use crate::sim::Event;
use crate::time::SimTime;

pub use crate::scenario::mobility::DEFAULT_POSITION_UPDATE;

impl World {
    /// Gives station `sta` a mobility model; `update` is the refresh interval for it (the world
    /// uses the smallest of them). A model that never moves only places the station (a movement
    /// file's node without `setdest` lines still has the file's position).
    pub fn add_mobility(&mut self, sta: u32, mut m: Mobility, update: SimTime) {
        if m.is_static() {
            let p = m.position(SimTime::ZERO);
            self.wifi.set_position(sta, p);
            self.view_position(sta, p, (0.0, 0.0));
            return;
        }
        self.position_update = match self.position_update {
            Some(u) => Some(u.min(update)),
            None => Some(update),
        };
        self.mobile.push((sta, m));
    }

    /// Places every mobile station where its model says at t = now and schedules the refreshes;
    /// call once after building.
    pub fn start_mobility(&mut self) {
        if !self.mobile.is_empty() {
            self.on_mobility();
        }
    }

    pub(super) fn on_mobility(&mut self) {
        let now = self.now;
        let step = self.position_update.unwrap_or(DEFAULT_POSITION_UPDATE);
        let mut next = now + step.max(SimTime(1));
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        for (sta, m) in &mut self.mobile {
            let p = m.position(now);
            if let Some(v) = self.view.as_mut() {
                let node = self.wifi.stations[*sta as usize].node.0;
                v.position(*sta, node, now, p, m.velocity(now));
            }
            if self.wifi.stations[*sta as usize].pos != p {
                moves.push((*sta, p));
            }
            if let Some(c) = m.next_change(now) {
                next = next.min(c.max(now + SimTime(1)));
            }
        }
        let moved = !moves.is_empty();
        if moved {
            self.wifi.move_stations(&moves);
        }
        self.moves = moves;
        if moved {
            self.update_paths();
        }
        if next <= self.stop_at {
            self.queue.schedule(next, Event::Mobility);
        }
    }
}
