//! Wired interfaces: a drop-tail or RED queue, serialisation at the link rate, propagation
//! delay, and the link's loss model and outage schedule.

use super::World;
use crate::ids::{IfaceId, LinkId, NodeId, PktId};
use crate::link::{Enqueue, LossModel, Outage, Queue};
use crate::net::Port;
use crate::packet::Ecn;
use crate::rng::Rng;
use crate::sim::Event;
use crate::time::SimTime;
use crate::trace::events as ev;
use crate::trace::view::Discard;
use crate::trace::PcapWriter;

/// Counters of one interface (one direction of a link).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IfaceStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_outage: u64,
    pub ecn_marks: u64,
}

/// The sending side of one direction of a full-duplex point-to-point link.
pub struct Iface {
    pub node: NodeId,
    /// This interface's port at its node.
    pub port: Port,
    pub peer: IfaceId,
    pub link: LinkId,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: Queue,
    pub busy: bool,
    pub loss: LossModel,
    pub outage: Outage,
    pub rng: Rng,
    pub stats: IfaceStats,
    pub pcap: Option<PcapWriter>,
}

pub struct Link {
    pub name: String,
    pub ifaces: [IfaceId; 2],
}

/// Parameters of one direction of a link.
pub struct LinkDir {
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: Queue,
    pub loss: LossModel,
    pub outage: Outage,
    pub rng: Rng,
    pub pcap: Option<PcapWriter>,
}

impl World {
    pub(super) fn enqueue(&mut self, i: IfaceId, id: PktId) {
        let now = self.now;
        let (size, ect) = {
            let p = &self.packets[id.idx()];
            (p.ip_len(), p.ip.ecn != Ecn::NotEct)
        };
        let ifc = &mut self.ifaces[i.idx()];
        match ifc.queue.enqueue(now, id, size, ect, &mut ifc.rng) {
            Enqueue::Dropped => {
                ifc.stats.drops_queue += 1;
                let node = ifc.node;
                self.lose_at(node, id, Discard::Queue, None);
                return;
            }
            Enqueue::QueuedMarked => {
                ifc.stats.ecn_marks += 1;
                self.packets[id.idx()].ip.ecn = Ecn::Ce;
            }
            Enqueue::Queued => {}
        }
        if self.event_trace.is_some() {
            let ifc = &self.ifaces[i.idx()];
            let (node, peer) = (ifc.node, self.ifaces[ifc.peer.idx()].node.0);
            self.ev(node, ev::IFQ, ev::ENQUEUE, id, peer, ev::R_NONE);
        }
        if !self.ifaces[i.idx()].busy {
            self.start_tx(i);
        }
    }

    /// Starts serialising the next queued packet, if any (also the handler of TxDone).
    pub(super) fn start_tx(&mut self, i: IfaceId) {
        let now = self.now;
        let ifc = &mut self.ifaces[i.idx()];
        let Some((id, size)) = ifc.queue.dequeue(now) else {
            ifc.busy = false;
            return;
        };
        ifc.busy = true;
        let tx = SimTime::tx_time(size as u64, ifc.rate_bps);
        let arrive = now + tx + ifc.delay;
        ifc.stats.packets_sent += 1;
        ifc.stats.bytes_sent += size as u64;
        if let Some(w) = ifc.pcap.as_mut() {
            w.record(now, &self.packets[id.idx()]);
        }
        // An outage at either end of the packet's time on the wire loses it; otherwise the loss
        // model decides.
        let lost = if ifc.outage.is_down(now) || ifc.outage.is_down(arrive) {
            ifc.stats.drops_outage += 1;
            Some(Discard::Outage)
        } else if ifc.loss.lose(&mut ifc.rng) {
            ifc.stats.drops_loss += 1;
            Some(Discard::Loss)
        } else {
            None
        };
        let (peer, node) = (ifc.peer, ifc.node);
        self.queue.schedule(now + tx, Event::TxDone(i));
        if self.event_trace.is_some() {
            let to = self.ifaces[peer.idx()].node.0;
            self.ev(node, ev::IFQ, ev::DEQUEUE, id, to, ev::R_NONE);
            self.ev_wire_send(node, id, to, tx);
        }
        if let Some(why) = lost {
            let to = self.ifaces[peer.idx()].node;
            self.lose_at(node, id, why, Some(to));
        } else {
            self.queue.schedule(arrive, Event::Arrive(peer, id));
        }
    }

    pub(super) fn on_arrive(&mut self, i: IfaceId, id: PktId) {
        let now = self.now;
        let ifc = &mut self.ifaces[i.idx()];
        let (node, port, peer) = (ifc.node, ifc.port, ifc.peer);
        if let Some(w) = ifc.pcap.as_mut() {
            w.record(now, &self.packets[id.idx()]);
        }
        let from_node = self.ifaces[peer.idx()].node;
        self.ev(node, ev::LINK, ev::RECEIVE, id, from_node.0, ev::R_NONE);
        let from = self.nodes[from_node.idx()].addr;
        self.receive_ip(node, id, port, from);
    }
}
