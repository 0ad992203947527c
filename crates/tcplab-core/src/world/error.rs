//! Why a run can stop with an error.

use crate::time::SimTime;

/// Why a run stopped early with an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// The scenario's event limit was reached before the run ended.
    EventLimit { limit: u64, at: SimTime },
    /// A pcap file could not be written.
    Io(String),
    /// Byte conservation failed (app/conservation.rs): the results cannot be trusted.
    Conservation(Vec<String>),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::EventLimit { limit, at } => {
                write!(f, "event limit of {limit} events reached at t = {at} (raise the scenario's top-level `max_events` or shorten its `duration`)")
            }
            SimError::Io(e) => write!(f, "I/O error: {e}"),
            SimError::Conservation(v) => {
                write!(
                    f,
                    "byte conservation violated (a simulator bug): {}",
                    v.join("; ")
                )
            }
        }
    }
}

impl std::error::Error for SimError {}
