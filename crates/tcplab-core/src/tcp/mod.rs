//! TCP, as the RFCs say.
//!
//! Read before editing: RFC 9293 (the protocol), RFC 5681 (congestion control), RFC 6582
//! (NewReno), RFC 6675 and RFC 2018 (SACK), RFC 6298 (RTO), RFC 7323 (timestamps, window
//! scale), RFC 1122 §4.2 (persist, delayed ACK, retries), RFC 3168 (ECN), RFC 9438 (CUBIC).
//! Every rule applied in the code names its clause in a one-line comment.
//!
//! A connection is a composition (DESIGN.md principle 5): the socket (`socket/`: RFC 9293 states,
//! segment arrival, timers, output) + a congestion controller (`cc/`: how cwnd grows, what
//! ssthresh a congestion event calls for) + a loss-recovery scheme (`recovery/`: what counts as
//! a duplicate ACK, when an episode starts and ends, cwnd inside it) + extensions (`ext/`: hooks
//! for receiver stamps, duplicate-ACK evidence and cross-layer notices). Each seam is a trait
//! dispatched through an enum of the built-in implementations.
//!
//! The socket is a sans-IO state machine: it takes `(now, segment)` or `(now, timeout)` and pushes
//! the segments it wants sent into an output vector; `poll_timeout()` says when it next needs to
//! be woken. It never sees the network or the clock otherwise, so every rule is unit-testable with
//! a hand-written trace (see `tests.rs`).
//!
//! Sequence numbers are unwrapped u64 (see `packet`), so comparisons are plain integer ones.

pub mod cc;
pub mod config;
pub mod ext;
pub mod reassembly;
pub mod recovery;
pub mod rtt;
pub mod rtt_ns2;
pub mod scoreboard;
pub mod socket;
#[cfg(test)]
mod tests;

pub use config::{
    CaMode, CcKind, ExtensionKind, FullAckCwnd, HyStartDetect, InitialWindow, PartialAckTimer,
    RecoverBoundary, RtoSsthresh, TcpConfig, Variant, WindowUnit,
};
pub use socket::{Segment, Socket, State, TcpStats};
