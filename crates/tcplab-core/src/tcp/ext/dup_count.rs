//! TCP-pgy S2 (seed 002 §3.2; ALGORITHMS.md §5.1): the receiver counts out-of-order arrivals since
//! the last in-order or gap-filling segment and stamps the count on every ACK (`dup_count`); the
//! sender fast-retransmits as soon as a duplicate ACK reports DupThresh duplicates, even if some
//! of them were lost. The recovery scheme's `recover` guard keeps it to once per episode.

use super::Extension;
use crate::packet::TcpHeader;

#[derive(Clone, Debug, Default)]
pub struct DupCount {
    /// Receiver: out-of-order segments since the last in-order one.
    out_of_order: u16,
}

impl Extension for DupCount {
    fn name(&self) -> &'static str {
        "dup_count"
    }

    fn on_data(&mut self, in_order: bool) {
        // S2 receiver: reset on an in-order or gap-filling segment, +1 on an out-of-order one.
        self.out_of_order = if in_order {
            0
        } else {
            self.out_of_order.saturating_add(1)
        };
    }

    fn stamp(&self, h: &mut TcpHeader) {
        h.dup_count = Some(self.out_of_order);
    }

    fn dupacks_seen(&mut self, h: &TcpHeader, dupacks: u32) -> u32 {
        // S2 sender: the receiver's count stands for the duplicates the network lost.
        dupacks.max(h.dup_count.unwrap_or(0) as u32)
    }
}
