//! # tcplab-core
//!
//! A deterministic packet-level discrete-event simulator for TCP over wired, WLAN and ad hoc
//! networks. Layers, bottom up:
//!
//! - [`time`], [`rng`], [`ids`]: integer-nanosecond time, per-component random streams, typed
//!   arena indices — shared by every layer.
//! - [`sim`]: the event queue (time, then insertion order).
//! - [`packet`]: header structs with byte-exact sizes; payloads are lengths only.
//! - [`link`]: queues (DropTail, RED/ECN), loss models (Bernoulli, Gilbert–Elliott), outages.
//! - [`wifi`]: IEEE 802.11 PHY timing, DCF MAC, shared wireless channel, link signals.
//! - [`mobility`]: static, waypoint, random waypoint and ns-2 setdest motion of stations.
//! - [`net`]: nodes, addresses, static routes.
//! - [`tcp`]: sans-IO TCP sockets (Reno, NewReno, SACK; RFC 6298 timers; persist; delayed ACK).
//! - [`app`]: bulk download, unlimited bulk, CBR/UDP.
//! - [`trace`]: per-flow metrics, time series, pcap.
//! - [`world`]: the arenas and the event loop that connects them.
//! - [`scenario`]: the TOML/JSON scenario schema, validation with field paths, and the builder.
//! - [`api`]: run a scenario and get a summary (what the Python binding and the benches call).
//!
//! Same scenario + seed + version → identical results.

pub mod agents;
pub mod api;
pub mod app;
pub mod ids;
pub mod link;
pub mod mobility;
pub mod net;
pub mod packet;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod wifi;
pub mod world;

pub use time::SimTime;
