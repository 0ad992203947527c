//! Per-flow statistics (trace/flowstats.rs) at the IP layer of each flow's ends: a packet is
//! counted sent when its source originates it, received when its destination's transport gets
//! it (its one-way delay from the instant it was sent), lost when the network discards it.
//! A packet's send instant is kept beside the packet arena (`born`), written when a packet that
//! counts for a flow is sent (other packets leave it stale: nothing reads it for them), and
//! follows the packet when the wireless system copies it for its receiver.

use super::World;
use crate::ids::PktId;
use crate::trace::flowstats::DirStats;

/// `Packet::flow` of a CBR flow's datagrams: this bit and the CBR flow's index (TCP flows use
/// their index, below it).
pub const CBR_FLOW: u32 = 1 << 31;

/// The flow a packet's `flow` tag names.
pub(super) enum Tagged {
    Tcp(usize),
    Cbr(usize),
}

/// Which flow direction a packet counts for.
enum Dir {
    Tcp(usize, usize),
    Cbr(usize),
}

impl World {
    /// The statistics of TCP flow `f`: [data direction (server to client), reverse].
    pub fn tcp_flow_stats(&self, f: usize) -> &[DirStats; 2] {
        &self.tcp_stats[f]
    }

    /// The statistics of CBR flow `k`.
    pub fn cbr_flow_stats(&self, k: usize) -> &DirStats {
        &self.cbr_stats[k]
    }

    /// The flow `tag` (a packet's `flow`) names, if any: the one decoding of the tag, for the
    /// statistics and the view trace alike.
    pub(super) fn tagged(&self, tag: u32) -> Option<Tagged> {
        if tag == u32::MAX {
            return None;
        }
        if tag & CBR_FLOW != 0 {
            let k = (tag & !CBR_FLOW) as usize;
            return (k < self.cbr_stats.len()).then_some(Tagged::Cbr(k));
        }
        let f = tag as usize;
        (f < self.flows.len()).then_some(Tagged::Tcp(f))
    }

    fn flow_dir(&self, id: PktId) -> Option<Dir> {
        let p = &self.packets[id.idx()];
        Some(match self.tagged(p.flow)? {
            Tagged::Cbr(k) => Dir::Cbr(k),
            Tagged::Tcp(f) => {
                let forward = p.ip.src == self.nodes[self.flows[f].server_node.idx()].addr;
                Dir::Tcp(f, if forward { 0 } else { 1 })
            }
        })
    }

    fn dir_stats(&mut self, d: Dir) -> &mut DirStats {
        match d {
            Dir::Tcp(f, k) => &mut self.tcp_stats[f][k],
            Dir::Cbr(k) => &mut self.cbr_stats[k],
        }
    }

    /// Packet `id` was just originated (allocated now).
    pub(super) fn flow_sent(&mut self, id: PktId) {
        if let Some(d) = self.flow_dir(id) {
            let (now, len) = (self.now, self.packets[id.idx()].ip_len());
            self.born[id.idx()] = now;
            self.dir_stats(d).on_sent(now, len);
        }
    }

    /// Packet `id` reached its destination's transport.
    pub(super) fn flow_received(&mut self, id: PktId) {
        if let Some(d) = self.flow_dir(id) {
            let (now, born, len) = (
                self.now,
                self.born[id.idx()],
                self.packets[id.idx()].ip_len(),
            );
            self.dir_stats(d).on_received(now, born, len);
        }
    }

    /// Packet `id` was discarded by the network.
    pub(super) fn flow_lost(&mut self, id: PktId) {
        if let Some(d) = self.flow_dir(id) {
            let len = self.packets[id.idx()].ip_len();
            self.dir_stats(d).on_lost(len);
        }
    }
}
