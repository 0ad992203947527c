//! TCP-pgy S1's routing half (seed 002 §III-B.1), shared by the agents that carry it (AODV on
//! its RREQs and gratuitous RREPs, DSR on its route requests and replies): the latest
//! cumulative ACK this node's TCP sent toward each destination, and the hand-over of a carried
//! ACK to the TCP sender as [`RouteSignal::AckLearned`].

use std::collections::BTreeMap;

use super::routing::{RouteSignal, RoutingIo};
use crate::packet::{AckSeq, Addr, Packet, TcpFlags};

#[derive(Clone, Debug, Default)]
pub struct LatestAcks(BTreeMap<Addr, AckSeq>);

impl LatestAcks {
    /// Seed 002 §III-B.1 (2): before sending a route request the receiver's routing reads the
    /// ACK sequence its TCP expects; every ACK this node originates carries it, so the latest
    /// one toward a destination is that value. `pkt` is a packet this node originates.
    pub fn note(&mut self, pkt: &Packet) {
        if let Some(h) = pkt.tcp().filter(|h| h.flags.has(TcpFlags::ACK)) {
            let e = AckSeq {
                sport: h.sport,
                dport: h.dport,
                ack: h.ack,
            };
            self.0
                .entry(pkt.ip.dst)
                .and_modify(|old| {
                    if old.ack < e.ack || (old.sport, old.dport) != (e.sport, e.dport) {
                        *old = e;
                    }
                })
                .or_insert(e);
        }
    }

    /// The latest ACK toward `dst`, if this node's TCP sent one.
    pub fn get(&self, dst: Addr) -> Option<AckSeq> {
        self.0.get(&dst).copied()
    }
}

/// Hands a piggybacked ACK from `peer` to the transport (seed 002 Algorithm 1 runs there).
pub fn hand_over(peer: Addr, e: Option<AckSeq>, io: &mut RoutingIo) {
    if let Some(e) = e {
        io.signals.push(RouteSignal::AckLearned {
            peer,
            peer_port: e.sport,
            port: e.dport,
            ack: e.ack,
        });
    }
}
