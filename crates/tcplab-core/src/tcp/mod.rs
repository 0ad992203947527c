//! TCP, as the RFCs say.
//!
//! Read before editing: RFC 9293 (the protocol), RFC 5681 (congestion control), RFC 6582
//! (NewReno), RFC 6675 and RFC 2018 (SACK), RFC 6298 (RTO), RFC 7323 (timestamps, window
//! scale), RFC 1122 §4.2 (persist, delayed ACK, retries), RFC 3168 (ECN). Every rule applied in
//! the code names its clause in a one-line comment.
//!
//! The socket is a sans-IO state machine: it takes `(now, segment)` or `(now, timeout)` and pushes
//! the segments it wants sent into an output vector; `poll_timeout()` says when it next needs to
//! be woken. It never sees the network or the clock otherwise, so every rule is unit-testable with
//! a hand-written trace (see `tests.rs`).
//!
//! Sequence numbers are unwrapped u64 (see `packet`), so comparisons are plain integer ones.

pub mod config;
pub mod reassembly;
pub mod rtt;
pub mod scoreboard;
pub mod socket;
#[cfg(test)]
mod tests;

pub use config::{CaMode, FullAckCwnd, InitialWindow, TcpConfig, Variant, WindowUnit};
pub use socket::{Segment, Socket, State, TcpStats};
