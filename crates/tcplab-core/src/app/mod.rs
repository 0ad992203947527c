//! Applications: bulk (FTP-like) download of a file, unlimited bulk transfer, and a CBR/UDP
//! source for background load.
//!
//! A bulk download: the client opens the connection at `start` and sends a request of
//! `request` bytes; when the whole request has arrived, the server writes the file and closes.
//! The response time runs from `start` (the SYN) to the moment the file's last byte is delivered
//! in order to the client, so the handshake and slow start are included.

pub mod conservation;

use crate::ids::{NodeId, SockId};
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum AppKind {
    /// Download `size` bytes.
    BulkDownload { size: u64 },
    /// Unlimited transfer until the run ends.
    Bulk,
}

/// A TCP flow between a client and a server.
#[derive(Debug)]
pub struct TcpFlow {
    pub name: String,
    pub kind: AppKind,
    pub client: SockId,
    pub server: SockId,
    pub client_node: NodeId,
    pub server_node: NodeId,
    pub start: SimTime,
    pub request: u64,
    pub request_sent: bool,
    pub response_started: bool,
    pub completed_at: Option<SimTime>,
    pub client_closed: bool,
    /// The flow needs nothing more (completed, or aborted).
    pub finished: bool,
    /// This flow's segments lost in the network (queue overflow, MAC retry limit, routing drops,
    /// TTL, link loss): those carrying data, and pure ACKs (seed 002 Fig. 1).
    pub data_lost: u64,
    pub acks_lost: u64,
}

/// A constant-bit-rate UDP source.
#[derive(Debug)]
pub struct CbrFlow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub port: u16,
    pub packet_size: u32,
    pub interval: SimTime,
    pub start: SimTime,
    pub stop: SimTime,
    pub sent: u64,
    pub received: u64,
    pub bytes_received: u64,
}
