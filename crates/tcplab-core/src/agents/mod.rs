//! In-network agents that act on the TCP connections crossing a node: the M-TCP supervisor host,
//! the M-TCP+ intermediate host (seed 000), the base-station ACK holder (seed 001), Snoop
//! (Balakrishnan et al. 1995, the link-layer baseline) and I-TCP (Bakre & Badrinath 1995, the
//! split-connection baseline).
//!
//! An agent sits at a router between a fixed host (FH) and a mobile/wireless host (MH/WH). It is
//! sans-IO like the TCP socket: the world hands it every TCP packet the node forwards (`on_packet`,
//! which may rewrite the packet or absorb it), the cross-layer events it subscribed to
//! (`on_event`), and its timer wake-ups; it pushes the packets it originates into `out` (routed
//! from the agent's node by destination address).

pub mod ack_holder;
pub mod ack_schedule;
pub mod itcp;
pub mod mtcp;
pub mod snoop;

use crate::packet::{Addr, Ecn, Ipv4Header, Packet, TcpFlags, TcpHeader, Transport};
use crate::time::SimTime;

/// Which way a packet crosses the agent's node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// From the fixed host towards the mobile (data, in a download).
    ToMobile,
    /// From the mobile towards the fixed host (ACKs).
    FromMobile,
}

/// What to do with a packet handed to an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Forward it (possibly rewritten).
    Forward,
    /// Drop it silently; the agent has answered or stored it.
    Absorb,
}

/// Cross-layer events an agent can subscribe to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentEvent {
    /// The mobile predicts an outage (its disconnection feedback, or the BS's link layer), with the
    /// estimated outage duration and the current RTT to the mobile if known.
    LinkGoingDown {
        est_down: SimTime,
        rtt_to_mobile: Option<SimTime>,
    },
    /// The link is gone: no more ACKs will come from the mobile.
    LinkGone,
    /// The link is back.
    LinkUp,
}

/// Identifies one TCP connection through the agent, oriented FH → mobile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnKey {
    pub fh: Addr,
    pub fh_port: u16,
    pub mh: Addr,
    pub mh_port: u16,
}

impl ConnKey {
    pub fn of(p: &Packet, dir: Dir) -> Option<ConnKey> {
        let h = p.tcp()?;
        Some(match dir {
            Dir::ToMobile => ConnKey {
                fh: p.ip.src,
                fh_port: h.sport,
                mh: p.ip.dst,
                mh_port: h.dport,
            },
            Dir::FromMobile => ConnKey {
                fh: p.ip.dst,
                fh_port: h.dport,
                mh: p.ip.src,
                mh_port: h.sport,
            },
        })
    }
}

/// Sequence space a data segment occupies (payload plus one for a FIN).
pub fn seg_end(h: &TcpHeader, payload: u32) -> u64 {
    h.seq + payload as u64 + h.flags.has(TcpFlags::FIN) as u64
}

/// An ACK from the mobile to the FH built on a template (the mobile's last ACK), with the given
/// acknowledgement number and window.
pub fn ack_from_template(tpl: &Packet, ack: u64, window: u32) -> Packet {
    let mut p = Packet {
        ip: tpl.ip,
        l4: tpl.l4.clone(),
        payload: 0,
        flow: tpl.flow,
    };
    if let Transport::Tcp(h) = &mut p.l4 {
        h.ack = ack;
        h.window = window;
        h.flags = TcpFlags::ACK;
        h.sack = Default::default();
        h.dup_count = None;
    }
    p.ip.ecn = Ecn::NotEct;
    p
}

/// A bare TCP packet (tests and agents that have no template yet).
pub fn tcp_packet(src: Addr, dst: Addr, h: TcpHeader, payload: u32, flow: u32) -> Packet {
    Packet {
        ip: Ipv4Header {
            src,
            dst,
            ttl: 64,
            ecn: Ecn::NotEct,
            ident: 0,
        },
        l4: Transport::Tcp(h),
        payload,
        flow,
    }
}

/// Earliest of optional deadlines.
pub fn earliest(ts: impl IntoIterator<Item = Option<SimTime>>) -> Option<SimTime> {
    ts.into_iter().flatten().min()
}

// ---------------------------------------------------------------------------------- wiring

/// UDP port of the disconnection feedback service at an intermediate host.
pub const FEEDBACK_PORT: u16 = 7000;
/// Source ports that say what the feedback reports.
pub const FEEDBACK_GOING_DOWN: u16 = 7001;
pub const FEEDBACK_UP: u16 = 7002;
/// Payload of a feedback datagram (a kind and a predicted duration, as a real agent would send).
pub const FEEDBACK_PAYLOAD: u32 = 8;

/// Any agent, dispatched by `match` (no boxing in the packet path).
#[derive(Debug)]
pub enum AnyAgent {
    Mtcp(mtcp::MtcpSh),
    MtcpPlus(mtcp::MtcpPlusIh),
    // Boxed: the holder's caches make it several times larger than the other agents.
    AckHolder(Box<ack_holder::AckHolder>),
    Snoop(snoop::Snoop),
    // Boxed: it holds two sockets per connection.
    Itcp(Box<itcp::Itcp>),
}

impl AnyAgent {
    pub fn kind(&self) -> &'static str {
        match self {
            AnyAgent::Mtcp(_) => "mtcp",
            AnyAgent::MtcpPlus(_) => "mtcp_plus",
            AnyAgent::AckHolder(_) => "ack_holder",
            AnyAgent::Snoop(_) => "snoop",
            AnyAgent::Itcp(_) => "itcp",
        }
    }

    pub fn on_packet(
        &mut self,
        now: SimTime,
        dir: Dir,
        p: &mut Packet,
        out: &mut Vec<Packet>,
    ) -> Verdict {
        match self {
            AnyAgent::Mtcp(a) => a.on_packet(now, dir, p, out),
            AnyAgent::MtcpPlus(a) => a.on_packet(now, dir, p, out),
            AnyAgent::AckHolder(a) => a.on_packet(now, dir, p, out),
            AnyAgent::Snoop(a) => a.on_packet(now, dir, p, out),
            AnyAgent::Itcp(a) => a.on_packet(now, dir, p, out),
        }
    }

    pub fn on_event(&mut self, now: SimTime, ev: AgentEvent, out: &mut Vec<Packet>) {
        match self {
            AnyAgent::Mtcp(a) => a.on_event(now, ev, out),
            AnyAgent::MtcpPlus(a) => a.on_event(now, ev, out),
            AnyAgent::AckHolder(a) => a.on_event(now, ev, out),
            // Snoop reacts to TCP packets only.
            AnyAgent::Snoop(_) | AnyAgent::Itcp(_) => {}
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self {
            AnyAgent::Mtcp(_) => {}
            AnyAgent::MtcpPlus(a) => a.handle_timeout(now, out),
            AnyAgent::AckHolder(a) => a.handle_timeout(now, out),
            AnyAgent::Snoop(a) => a.handle_timeout(now, out),
            AnyAgent::Itcp(a) => a.handle_timeout(now, out),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyAgent::Mtcp(_) => None,
            AnyAgent::MtcpPlus(a) => a.poll_timeout(),
            AnyAgent::AckHolder(a) => a.poll_timeout(),
            AnyAgent::Snoop(a) => a.poll_timeout(),
            AnyAgent::Itcp(a) => a.poll_timeout(),
        }
    }

    /// Whether the agent learns of outages from a feedback datagram sent by the mobile (M-TCP,
    /// M-TCP+), rather than from its own node's link layer (the ACK holder).
    pub fn uses_feedback(&self) -> bool {
        matches!(self, AnyAgent::Mtcp(_) | AnyAgent::MtcpPlus(_))
    }

    /// Counters for the run summary.
    pub fn stats_json(&self) -> serde_json::Value {
        match self {
            AnyAgent::Mtcp(a) => mtcp_stats_json(&a.stats),
            AnyAgent::MtcpPlus(a) => mtcp_stats_json(&a.stats),
            AnyAgent::AckHolder(a) => {
                let s = &a.stats;
                serde_json::json!({
                    "outages": s.outages, "acks_held": s.acks_held, "acks_released": s.acks_released,
                    "acks_released_holding": s.acks_released_holding,
                    "acks_divided": s.acks_divided, "acks_flushed": s.acks_flushed,
                    "packets_cached": s.packets_cached, "packets_flushed": s.packets_flushed, "cache_over_reservation": s.cache_over_reservation,
                    "last_n": s.last_n, "last_n_acks": s.last_n_acks, "last_final_rto_s": s.last_final_rto,
                    "infeasible_schedules": s.infeasible_schedules,
                })
            }
            AnyAgent::Snoop(a) => {
                let s = &a.stats;
                serde_json::json!({
                    "packets_cached": s.packets_cached, "cache_full": s.cache_full,
                    "packets_cleaned": s.packets_cleaned,
                    "local_retransmits_dupack": s.local_retransmits_dupack,
                    "local_retransmits_timeout": s.local_retransmits_timeout,
                    "dupacks_suppressed": s.dupacks_suppressed,
                    "sender_retransmits": s.sender_retransmits,
                })
            }
            AnyAgent::Itcp(a) => {
                let s = &a.stats;
                serde_json::json!({
                    "connections_split": s.connections_split,
                    "relayed_to_mobile": s.relayed_to_mobile, "relayed_to_fh": s.relayed_to_fh,
                    "acked_not_delivered": s.acked_not_delivered,
                    "acked_not_delivered_max": s.acked_not_delivered_max,
                })
            }
        }
    }
}

fn mtcp_stats_json(s: &mtcp::MtcpStats) -> serde_json::Value {
    serde_json::json!({
        "disconnections": s.disconnections, "reconnections": s.reconnections,
        "zero_window_acks": s.zero_window_acks, "probes_answered": s.probes_answered,
        "window_updates": s.window_updates, "ih_retransmissions": s.ih_retransmissions,
        "acks_absorbed": s.acks_absorbed, "buffer_overflows": s.buffer_overflows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::AgentKindName;

    /// The run summary reports each agent under the `kind` name its scenario's `[[agents]]` entry
    /// uses (the scenario schema), so a summary can be read back against its configuration.
    #[test]
    fn kind_is_the_name_the_scenario_gives_the_agent() {
        let agents = [
            (AnyAgent::Mtcp(mtcp::MtcpSh::default()), AgentKindName::Mtcp),
            (
                AnyAgent::MtcpPlus(mtcp::MtcpPlusIh::new(Default::default())),
                AgentKindName::MtcpPlus,
            ),
            (
                AnyAgent::AckHolder(Box::new(ack_holder::AckHolder::new(Default::default()))),
                AgentKindName::AckHolder,
            ),
            (
                AnyAgent::Snoop(snoop::Snoop::new(Default::default())),
                AgentKindName::Snoop,
            ),
            (
                AnyAgent::Itcp(Box::new(itcp::Itcp::new(
                    Default::default(),
                    Default::default(),
                ))),
                AgentKindName::Itcp,
            ),
        ];
        for (agent, want) in agents {
            let named: AgentKindName = serde_json::from_value(serde_json::json!(agent.kind()))
                .unwrap_or_else(|e| panic!("{:?} reports kind {:?}: {e}", want, agent.kind()));
            assert_eq!(named, want);
        }
    }
}
