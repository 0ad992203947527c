//! Wired links: full-duplex point-to-point channels, each direction with its own output queue,
//! loss model and outage schedule, and the loss/outage models shared with the wireless layer.

pub mod error_model;
pub mod outage;
pub mod queue;
pub mod red;

pub use error_model::LossModel;
pub use outage::Outage;
pub use queue::{Enqueue, Queue, QueueConfig};
pub use red::{Red, RedParams};
