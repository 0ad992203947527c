//! TCP-pgy S1 at the sender (seed 002 §III-B.1, Algorithm 1; ALGORITHMS.md §5.1): when routing
//! hands over the receiver's cumulative ACK piggybacked on an RREQ or a gratuitous RREP, and it
//! is above the highest ACK, the sender takes it as its highest ACK, so a timeout's go-back-N no
//! longer resends what the receiver already holds. The socket's `AdvanceAck` keeps cwnd and
//! sends nothing new until a real ACK above it arrives (the paper's "avoids bursts").
//! The receiver's side is the routing agent's (`routing.ack_piggyback`): it reads the ACK from
//! the TCP ACKs it originates.

use super::{Extension, Notice, Response};

/// Stateless: the socket keeps the learned ACK and its counters.
#[derive(Clone, Debug, Default)]
pub struct AckPiggyback;

impl Extension for AckPiggyback {
    fn name(&self) -> &'static str {
        "ack_piggyback"
    }

    fn on_notice(&mut self, n: Notice) -> Response {
        match n {
            // Algorithm 1: if ack_seq > highest_ack then highest_ack = ack_seq (the socket
            // ignores a value at or below snd_una, or above what was sent).
            Notice::AckLearned(ack) => Response::AdvanceAck(ack),
            _ => Response::Ignore,
        }
    }
}
