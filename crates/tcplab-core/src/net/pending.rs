//! Broadcasts an agent holds back for a random jitter, released in the order they fall due
//! (then in the order they were queued).

use crate::packet::Packet;
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Pending {
    items: Vec<(SimTime, u64, Packet)>,
    order: u64,
}

impl Pending {
    pub fn push(&mut self, due: SimTime, pkt: Packet) {
        self.order += 1;
        self.items.push((due, self.order, pkt));
    }

    /// The packets due by `now`, in order.
    pub fn take_due(&mut self, now: SimTime) -> Vec<Packet> {
        self.items.sort_by_key(|&(t, o, _)| (t, o));
        let n = self.items.iter().take_while(|e| e.0 <= now).count();
        self.items.drain(..n).map(|e| e.2).collect()
    }

    pub fn next_due(&self) -> Option<SimTime> {
        self.items.iter().map(|e| e.0).min()
    }
}
