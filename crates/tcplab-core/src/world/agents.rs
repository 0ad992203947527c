//! In-network agents at nodes (M-TCP, M-TCP+, ACK holder) and the disconnection-feedback
//! protocol from mobiles to their intermediate hosts (seed 000).

use super::World;
use crate::agents::{
    AgentEvent, AnyAgent, Dir, Verdict, FEEDBACK_GOING_DOWN, FEEDBACK_PAYLOAD, FEEDBACK_PORT,
    FEEDBACK_UP,
};
use crate::ids::{NodeId, PktId};
use crate::packet::{Addr, Ecn, Ipv4Header, Packet, Transport, UdpHeader};
use crate::sim::Event;
use crate::tcp::ext::Notice;
use crate::time::SimTime;
use crate::wifi::LinkSignalKind;

impl World {
    // ------------------------------------------------------------------ agents

    /// Adds an agent at `node` serving the connections of `mobile`. For agents driven by feedback
    /// (M-TCP, M-TCP+), a feedback sender is placed at the mobile.
    pub fn add_agent(&mut self, node: NodeId, mobile: NodeId, agent: AnyAgent) {
        if self.node_has_agent.len() < self.nodes.len() {
            self.node_has_agent.resize(self.nodes.len(), false);
        }
        self.node_has_agent[node.idx()] = true;
        if agent.uses_feedback() {
            self.feedback.push(FeedbackSender {
                mobile,
                to: node,
                sent: 0,
            });
        }
        let mobile = self.nodes[mobile.idx()].addr;
        self.agents.push(AgentSlot {
            node,
            mobile,
            agent,
            wake: (None, 0),
        });
    }

    /// Hands a packet crossing `node` to its agents; false if one absorbed it.
    pub(super) fn agent_filter(&mut self, node: NodeId, id: PktId) -> bool {
        let now = self.now;
        for a in 0..self.agents.len() {
            if self.agents[a].node != node {
                continue;
            }
            let mobile = self.agents[a].mobile;
            let p = &mut self.packets[id.idx()];
            if p.tcp().is_none() {
                continue;
            }
            let dir = if p.ip.dst == mobile {
                Dir::ToMobile
            } else if p.ip.src == mobile {
                Dir::FromMobile
            } else {
                continue;
            };
            let v = self.agents[a]
                .agent
                .on_packet(now, dir, p, &mut self.agent_out);
            self.after_agent(a);
            if v == Verdict::Absorb {
                self.free(id);
                return false;
            }
        }
        true
    }

    /// Sends what an agent produced and re-arms its wake-up.
    fn after_agent(&mut self, a: usize) {
        let node = self.agents[a].node;
        let mut out = std::mem::take(&mut self.agent_out);
        for p in out.drain(..) {
            // Agent packets are routed from the agent's node without passing its own filter.
            self.originate(node, p);
        }
        self.agent_out = out;
        let slot = &mut self.agents[a];
        if let Some(t) = slot.agent.poll_timeout() {
            if slot.wake.0.is_none_or(|cur| t < cur) {
                let superseded = slot.wake.0.is_some();
                slot.wake.1 = slot.wake.1.wrapping_add(1);
                slot.wake.0 = Some(t);
                self.queue
                    .schedule(t.max(self.now), Event::AgentTimer(a as u32, slot.wake.1));
                if superseded {
                    self.note_superseded();
                }
            }
        }
    }

    pub(super) fn on_agent_timer(&mut self, a: usize, gen: u32) {
        let slot = &mut self.agents[a];
        if slot.wake.1 != gen {
            return;
        }
        slot.wake.0 = None;
        let now = self.now;
        slot.agent.handle_timeout(now, &mut self.agent_out);
        self.after_agent(a);
    }

    /// A feedback datagram from mobile `src` reached `node`: its feedback-driven agents there
    /// hear the event.
    pub(super) fn feedback_received(&mut self, node: NodeId, src: Addr, ev: AgentEvent) {
        let now = self.now;
        for a in 0..self.agents.len() {
            let slot = &mut self.agents[a];
            if slot.node == node && slot.mobile == src && slot.agent.uses_feedback() {
                slot.agent.on_event(now, ev, &mut self.agent_out);
                self.after_agent(a);
            }
        }
    }

    /// Passes new link signals to their consumers: an ACK holder hears its mobile's link
    /// indications directly (it is that link's base station); a feedback sender at a mobile
    /// turns its own node's going-down and up into datagrams to its intermediate host.
    pub(super) fn deliver_link_signals(&mut self) {
        let now = self.now;
        while self.signal_cursor < self.wifi.log.len() {
            let sig = self.wifi.log[self.signal_cursor];
            self.signal_cursor += 1;
            match sig.kind {
                LinkSignalKind::GoingDown { .. } => self.link_notice(sig.node, Notice::LinkDown),
                LinkSignalKind::Up => self.link_notice(sig.node, Notice::LinkUp),
                _ => {}
            }
            let ev = match sig.kind {
                LinkSignalKind::GoingDown { expected } => AgentEvent::LinkGoingDown {
                    est_down: expected,
                    rtt_to_mobile: None,
                },
                LinkSignalKind::Gone => AgentEvent::LinkGone,
                LinkSignalKind::Up => AgentEvent::LinkUp,
                _ => continue,
            };
            let addr = self.nodes[sig.node.idx()].addr;
            for a in 0..self.agents.len() {
                if self.agents[a].mobile == addr && !self.agents[a].agent.uses_feedback() {
                    self.agents[a].agent.on_event(now, ev, &mut self.agent_out);
                    self.after_agent(a);
                }
            }
            for k in 0..self.feedback.len() {
                let f = self.feedback[k];
                let sport = match ev {
                    AgentEvent::LinkGoingDown { .. } if f.mobile == sig.node => FEEDBACK_GOING_DOWN,
                    AgentEvent::LinkUp if f.mobile == sig.node => FEEDBACK_UP,
                    _ => continue,
                };
                self.feedback[k].sent += 1;
                let src = self.nodes[f.mobile.idx()].addr;
                let dst = self.nodes[f.to.idx()].addr;
                let pkt = Packet {
                    ip: Ipv4Header {
                        src,
                        dst,
                        ttl: 64,
                        ecn: Ecn::NotEct,
                        ident: 0,
                    },
                    l4: Transport::Udp(UdpHeader {
                        sport,
                        dport: FEEDBACK_PORT,
                    }),
                    payload: FEEDBACK_PAYLOAD,
                    flow: u32::MAX,
                };
                self.originate(f.mobile, pkt);
            }
        }
    }
}

/// An in-network agent placed at a node.
#[derive(Debug)]
pub struct AgentSlot {
    pub node: NodeId,
    /// Address of the mobile whose connections the agent handles.
    pub mobile: Addr,
    pub agent: AnyAgent,
    pub(super) wake: (Option<SimTime>, u32),
}

/// At a mobile: sends disconnection feedback (seed 000) to its intermediate host when its own
/// link layer predicts an outage, and a reconnection notice when the link is back. The datagram
/// crosses the wireless link like any packet, so it can be lost or delayed.
#[derive(Clone, Copy, Debug)]
pub struct FeedbackSender {
    pub mobile: NodeId,
    pub to: NodeId,
    pub sent: u64,
}
