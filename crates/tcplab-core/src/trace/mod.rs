//! Observability: per-flow summaries, time series and pcap capture.

pub mod arrow_schema;
pub mod events;
pub mod events_parquet;
pub mod flowstats;
pub mod netseries;
pub mod owned_file;
pub mod parquet_chunk;
pub mod pcap;
pub mod radiotap;
pub mod series;
pub mod view;

pub use netseries::{NetSeries, NetSeriesKind};
pub use pcap::PcapWriter;
pub use series::{Series, SeriesKind, SeriesSet};
