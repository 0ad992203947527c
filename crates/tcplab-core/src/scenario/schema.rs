//! The scenario format. Field doc comments become the JSON Schema's descriptions.
//!
//! Parsing checks form only (types, units, unknown fields); `validate` checks meaning (names that
//! refer to nodes, ranges, combinations) and reports every problem with its field path.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::tcp::TcpTable;
use super::units::{Distance, Duration, Rate, Size, Speed};

/// A complete scenario: topology, traffic, TCP parameters and what to record.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name used in reports and result keys.
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default seed (the run's `seed` argument overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Simulated time at which the run stops (default 3600 s); finite flows may end it earlier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// Event budget; reaching it is an error (default 2·10^9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
    /// TCP parameters for every flow (a flow's own `tcp` table overrides them).
    #[serde(default)]
    pub tcp: TcpTable,
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// IEEE 802.11 WLANs (infrastructure BSSs or ad hoc networks); see docs/models/wifi.md.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wlans: Vec<WlanSpec>,
    /// In-network agents: M-TCP supervisor host, M-TCP+ intermediate host, ACK holder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<AgentSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
}

fn default_name() -> String {
    "scenario".to_string()
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
}

/// A full-duplex point-to-point link; both directions get the same parameters and independent
/// random streams.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to "a-b".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub rate: Rate,
    pub delay: Duration,
    /// Output queue of each direction (default DropTail, 50 packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outage: Option<OutageSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// Tail drop when full, in packets and/or bytes.
    Droptail {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        packets: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes: Option<Size>,
    },
    /// Random Early Detection (Floyd & Jacobson 1993), thresholds in packets.
    Red {
        limit: u32,
        min_th: f64,
        max_th: f64,
        #[serde(default = "default_max_p")]
        max_p: f64,
        #[serde(default = "default_w_q")]
        w_q: f64,
        #[serde(default)]
        gentle: bool,
        /// Mark ECN-capable packets instead of dropping them (RFC 3168).
        #[serde(default)]
        ecn: bool,
        /// With `ecn`: mark ECN-capable packets at and above max_th too, instead of RFC 3168
        /// §7's forced drop (Sridhara & Subramanya's nodes mark when the queue reaches max_th).
        #[serde(default)]
        mark_at_max_th: bool,
    },
}

/// RED with ECN on a WLAN's interface queues (RFC 3168 §7); the queue limit is the WLAN's
/// `queue`, thresholds in packets.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WlanRedSpec {
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    #[serde(default)]
    pub gentle: bool,
    /// Mark ECN-capable packets instead of dropping them (default true).
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Mark ECN-capable packets at and above max_th instead of dropping them (default false).
    #[serde(default)]
    pub mark_at_max_th: bool,
}

fn default_true() -> bool {
    true
}

fn default_max_p() -> f64 {
    0.1
}
fn default_w_q() -> f64 {
    0.002
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossModelName {
    Bernoulli,
    GilbertElliott,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Both,
    AToB,
    BToA,
}

/// Where a station's error model acts (docs/models/wifi.md, "Where frame errors act").
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum LossAt {
    /// Every transmission attempt of a data frame, at its addressee.
    #[default]
    Frames,
    /// Packets the MAC received and acknowledged, before IP.
    Packets,
    /// Every frame the station sends or decodes — RTS, CTS, DATA, ACK, broadcasts and frames
    /// for others — between PHY and MAC (ns-2's node-config `-IncomingErrProc` /
    /// `-OutgoingErrProc`).
    Phy,
}

/// Packet loss on the link. Bernoulli takes `p`; Gilbert–Elliott takes either `p_gb`, `p_bg`
/// (with optional `loss_good`, `loss_bad`) or `mean` and `burst` (mean bad-burst length in
/// packets).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    pub model: LossModelName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_gb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_bg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_good: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_bad: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<f64>,
    #[serde(default)]
    pub direction: Direction,
}

/// Outages: explicit `[start, end]` intervals and/or a periodic schedule "down `down` every
/// `every`, the first starting at `start`". Packets on the wire or sent during an outage are lost.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<(Duration, Duration)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Duration>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppName {
    /// Client requests, server sends `size` bytes and closes.
    BulkDownload,
    /// Client requests, server sends without end.
    Bulk,
    /// Constant-bit-rate UDP from `src` to `dst`.
    Cbr,
}

/// A flow: a TCP application between `client` and `server`, or a CBR/UDP stream.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    pub app: AppName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// File size of a bulk download.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Request size the client sends first (default 100 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Duration>,
    /// CBR: source and destination nodes, rate, packet (UDP payload) size, stop time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpTable>,
}

/// What to record beyond the per-flow summary.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Time series. Per TCP flow, on change: cwnd, ssthresh, srtt, rto, rwnd, snd_una, snd_nxt,
    /// rcv_nxt ("tcp": all of them). Beyond TCP, sampled every `interval` (default 1 s): per
    /// interface (wired direction, station) queue_len, queue_drops, throughput_bps ("queue":
    /// the first two); per station mac_retries, mac_drops ("station": throughput_bps and these);
    /// per node routing_packets, rreq, rrep, rerr, route_changes ("routing"). "all": every series.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<String>,
    /// TCP series: minimum spacing between two samples (decimation; default 0 = every change).
    /// Series beyond TCP: the sampling period (default 1 s; must be above 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// Links and WLANs whose interfaces are captured to pcap when the run is given an output
    /// directory ("*" for all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<String>,
    /// WLANs whose stations' 802.11 frames are captured (radiotap + 802.11: RTS, CTS, DATA
    /// with its Retry bit and sequence number, ACK) beside the IP-level captures, to
    /// `<wlan>-<node>-80211.pcap`, when the run is given an output directory ("*" for all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap_80211: Vec<String>,
    /// Record every 802.11 frame: each transmission and each reception outcome at its addressee
    /// (returned as the run's `frames` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<bool>,
    /// Record what `tcplab view` needs besides the event trace: each station's track (exact
    /// positions between refreshes) and the network's shape (set by `tcplab view`, which also
    /// turns on `trace.events`; docs/viewer.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<bool>,
    /// Bytes captured per packet (default: the whole packet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap_snaplen: Option<u32>,
    /// The event trace: one row per packet event (send, receive, forward, drop with its
    /// reason, enqueue, dequeue) at the chosen layers and nodes, written as Parquet or in
    /// ns-2's wireless trace format (docs/trace.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<EventsSpec>,
}

/// The event trace's selection and output (`[trace] events = { ... }`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EventsSpec {
    /// Layers to record: agt (transport agents), rtr (IP: routing, forwarding, network-layer
    /// drops, routing-table changes), ifq (interface queues), mac (802.11 frames), link (wired links); default all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<EventLayer>,
    /// Nodes to record (names); default all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// File the run writes the trace to (relative to the working directory; `tcplab run
    /// --trace-events FILE` sets or replaces it). Without one the trace is only in the
    /// result (`result.events`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// parquet (default) or ns2 (text, ns-2.35's wireless trace format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<EventFormat>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EventLayer {
    Agt,
    Rtr,
    Ifq,
    Mac,
    Link,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EventFormat {
    Parquet,
    Ns2,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WlanMode {
    /// Stations talk only to the AP, which forwards to its wired links.
    Infrastructure,
    /// Every node forwards; static shortest-path routes over who hears whom at t = 0.
    Adhoc,
}

/// One rate step: `rate` up to `max_distance`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateStepSpec {
    pub max_distance: Distance,
    pub rate: Rate,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PropagationModelName {
    UnitDisk,
    TwoRayGround,
    FreeSpace,
    /// Log-distance path loss, optionally with log-normal shadowing per station pair.
    LogDistance,
}

/// Propagation: `unit_disk` (takes `rx_range`, `cs_range`; defaults 250 m / 550 m) or ns-2's
/// `two_ray_ground` / `free_space` with power thresholds (defaults give 250 m / 550 m under
/// two-ray ground, and a 10 dB capture ratio). Powers in W, frequency in Hz.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PropagationSpec {
    pub model: PropagationModelName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_range: Option<Distance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs_range: Option<Distance>,
    /// Transmit power in W (ns-2 Pt_ 0.28183815).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_power_w: Option<f64>,
    /// Carrier frequency in Hz (ns-2 freq_ 914e6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_hz: Option<f64>,
    /// Antenna height (ns-2 Z_ 1.5 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub antenna_height: Option<Distance>,
    /// Reception threshold in W (ns-2 RXThresh_ 3.652e-10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_thresh_w: Option<f64>,
    /// Carrier-sense threshold in W (ns-2 CSThresh_ 1.559e-11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs_thresh_w: Option<f64>,
    /// Capture ratio, linear (ns-2 CPThresh_ 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_ratio: Option<f64>,
    /// log_distance: path-loss exponent (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
    /// log_distance: reference distance (default 1 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_distance: Option<Distance>,
    /// log_distance: path loss at the reference distance in dB (default: free space there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_loss_db: Option<f64>,
    /// log_distance: standard deviation of log-normal shadowing in dB, one draw per station
    /// pair (default 0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowing_db: Option<f64>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReceptionModelName {
    /// ns-2: decodable above the reception threshold, capture by power ratio.
    Threshold,
    /// Signal to interference-plus-noise ratio with a BER model per rate.
    Sinr,
}

/// How a receiver decides whether a frame survives (see docs/models/wifi.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReceptionSpec {
    pub model: ReceptionModelName,
    /// sinr: noise figure of the receiver in dB (default 7, as ns-3); the noise floor is
    /// thermal noise over 22 MHz (DSSS presets) or 20 MHz (OFDM presets) plus this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_figure_db: Option<f64>,
    /// sinr: which arriving frames the PHY locks onto. `none` (default): every sensed frame, as
    /// ns-2 does; `threshold`: as ns-3's ThresholdPreambleDetectionModel, only frames at or above
    /// the reception threshold whose SINR on arrival is at least `preamble_threshold_db`; the
    /// others are interference (docs/models/wifi.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble_detection: Option<PreambleDetectionName>,
    /// sinr with preamble_detection = "threshold": the least SINR on arrival, in dB (default 4,
    /// as ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble_threshold_db: Option<f64>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PreambleDetectionName {
    /// The PHY locks onto every sensed frame (ns-2).
    None,
    /// ns-3's ThresholdPreambleDetectionModel.
    Threshold,
}

/// Cross-layer link signals of a WLAN.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SignalSpec {
    /// LINK_GOING_DOWN is published this long before each outage (default 0: not published).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead: Option<Duration>,
    /// Predicted outage duration = true duration × this factor (default 1: exact predictor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_factor: Option<f64>,
    /// Probability that an outage is not predicted at all (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub miss_probability: Option<f64>,
    /// Period of signal-level samples (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_interval: Option<Duration>,
}

/// A node's wireless interface in a WLAN.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    pub node: String,
    /// [x, y], e.g. ["10m", "0m"].
    pub position: (Distance, Distance),
    /// Frame error model of data frames to and from this station (Bernoulli FER or
    /// Gilbert–Elliott with `mean` FER and `burst` length); `direction` a_to_b = frames the
    /// station sends, b_to_a = frames it receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// Where `loss` acts: `frames` = every transmission attempt of a data frame, seen by the
    /// MAC, which retries it; `phy` = every frame the station sends or decodes (RTS, CTS, DATA,
    /// ACK, broadcasts, frames for others), between PHY and MAC as ns-2's wireless error hook;
    /// `packets` = packets the MAC received and acknowledged, dropped before IP (an ns-2 error
    /// model placed above the MAC): no MAC retry recovers them. Default `phy` with
    /// `phy = "ns2_dsss"`, `frames` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_at: Option<LossAt>,
    /// Scheduled outages: the station neither sends nor receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outage: Option<OutageSpec>,
    /// How the station moves (default static at `position`); see docs/models/mobility.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility: Option<MobilitySpec>,
}

/// A station's motion: `static` (default), `waypoints` ("be at [x, y] at t", straight lines at
/// constant speed in between) or `random_waypoint` (in the area [0, w] × [0, h]).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilitySpec {
    /// Stays at `position`.
    Static {},
    /// `points = [["0s", "0m", "0m"], ["10s", "100m", "0m"]]`: at each time, at that point.
    /// Before the first time the station is at the first point, after the last at the last.
    Waypoints {
        points: Vec<(Duration, Distance, Distance)>,
    },
    /// Random waypoint (Johnson & Maltz): pause, walk to a uniform point of the area at a speed
    /// uniform in [min_speed, max_speed], pause, … Starts pausing at `position` unless
    /// `steady_state`.
    RandomWaypoint {
        /// Must be positive: speeds down to 0 make the mean leg last forever.
        min_speed: Speed,
        max_speed: Speed,
        pause: Duration,
        /// [width, height] of the area, which starts at [0, 0].
        area: (Distance, Distance),
        /// Start in the stationary regime (Navidi & Camp 2004): without it the mean speed
        /// decays during the run (default false, as ns-2's setdest and ns-3).
        #[serde(default)]
        steady_state: bool,
    },
}

/// An IEEE 802.11 WLAN. The PHY preset fixes every timing constant; any of them may be
/// overridden here.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WlanSpec {
    pub name: String,
    pub mode: WlanMode,
    /// ns2_dsss | dsss | hr_dsss | hr_dsss_short | ofdm | erp_ofdm | erp_ofdm_long_slot
    /// (default hr_dsss: 802.11b, long preamble).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phy: Option<String>,
    /// Fixed data rate (default: the preset's highest rate; ns2_dsss: 2 Mb/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Distance-based rate steps instead of a fixed rate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_steps: Vec<RateStepSpec>,
    /// The AP's node (infrastructure mode; must be one of `stations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ap: Option<String>,
    /// Default: two-ray ground with ns-2's thresholds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propagation: Option<PropagationSpec>,
    /// MPDUs longer than this use RTS/CTS (default 2347 B; ns2_dsss: 0 B, i.e. always).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rts_threshold: Option<Size>,
    /// Interface queue limit in packets (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u32>,
    /// RED (with ECN marking) on every interface queue of the WLAN, e.g.
    /// `red = { min_th = 5, max_th = 15, w_q = 1.0 }` (default: DropTail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<WlanRedSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_retry_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_retry_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sifs: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difs: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eifs: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    /// ACK/CTS timeout after the end of a frame (default SIFS + slot + PHY RX start delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_timeout: Option<Duration>,
    /// Propagation delay inside the WLAN (default 1 µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prop_delay: Option<Duration>,
    /// Each station pair's propagation delay is its distance / c instead of `prop_delay`
    /// (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prop_delay_from_distance: Option<bool>,
    /// RTS and CTS at this rate instead of the control rate of the data rate (ns-3 sends them
    /// at the lowest basic rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rts_cts_rate: Option<Rate>,
    /// threshold (default, ns-2) or sinr.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reception: Option<ReceptionSpec>,
    /// Reset a NAV set by an RTS when no frame follows it (IEEE 802.11-2016 10.3.2.5; default
    /// false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nav_reset: Option<bool>,
    /// Rate of control frames (replaces the preset's basic rate set with this one rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_rate: Option<Rate>,
    /// HR/DSSS short PLCP preamble.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_preamble: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<SignalSpec>,
    /// ARP between routing and the interface queue, as ns-2.35 runs it (one packet held per
    /// unresolved neighbour, a broadcast request and a unicast reply over the MAC; entries never
    /// expire; docs/models/arp.md). Default on with `phy = "ns2_dsss"`, off otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arp: Option<bool>,
    /// The routing protocol of the WLAN's nodes (default static shortest paths at t = 0); e.g.
    /// `routing = { protocol = "aodv", preset = "ns2" }` (docs/models/aodv.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<super::routing::RoutingSpec>,
    /// An ns-2 movement file (`setdest` output: `$node_(i) set X_ …` and `$ns_ at t
    /// "$node_(i) setdest x y v"`); file node i moves the i-th station. The file's initial
    /// positions replace the stations' `position`. A relative path is relative to the
    /// scenario's directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility_file: Option<String>,
    /// How often positions and neighbour tables are refreshed while stations move, besides
    /// every change of heading (default 100 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_update: Option<Duration>,
    pub stations: Vec<StationSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AgentKindName {
    /// M-TCP supervisor host (Omueti & Trajković, M-TCP+ paper §2.5): withholds the last byte of each ACK.
    Mtcp,
    /// M-TCP+ intermediate host (Omueti & Trajković §3.2, Algorithm 2).
    MtcpPlus,
    /// Base-station ACK holding and pacing (Bhutani, ACK pacing paper).
    AckHolder,
    /// Snoop (Balakrishnan et al. 1995): local retransmission from a cache at the base station
    /// (docs/models/snoop.md).
    Snoop,
    /// I-TCP (Bakre & Badrinath 1995): the connection split at the base station, with a relay
    /// buffer (docs/models/itcp.md).
    Itcp,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EstimatorName {
    /// Eqs. (1)–(4) of Bhutani's ACK pacing paper as written: RTO = μ + 4σ.
    Pure,
    /// An RFC 6298 sender: RTO = clamp(μ + max(G, 4σ), rto_min, rto_max).
    Clamped,
}

/// An agent at `node` acting on the TCP connections of `mobile`. M-TCP and M-TCP+ learn of
/// outages from feedback datagrams the mobile sends when its WLAN predicts one
/// (`wlans.signals.lead`); the ACK holder hears the mobile's link indications directly.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    pub kind: AgentKindName,
    pub node: String,
    pub mobile: String,
    /// M-TCP+: buffer capacity (default 1 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Size>,
    /// M-TCP+: the IH's retransmission timeout for buffered data (default 500 ms) and its cap (8 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Duration>,
    /// ACK holder: the FH estimator the schedule replays (default clamped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimator: Option<EstimatorName>,
    /// ACK holder, clamped estimator: the FH's RTO bounds and clock granularity (ns-2 defaults
    /// 0.2 s, 60 s, 10 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fh_rto_min: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fh_rto_max: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fh_granularity: Option<Duration>,
    /// ACK holder: phase-1 ACKs leave this fraction of the RTO early (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<f64>,
    /// ACK holder: extra ACKs derived from one held ACK when too few are held (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_dups: Option<u32>,
    /// ACK holder: released ACKs echo the FH's latest timestamp (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite_tsecr: Option<bool>,
    /// Snoop: cache size, duplicate-ACK threshold and local timer (docs/models/snoop.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snoop: Option<crate::agents::snoop::SnoopConfig>,
    /// I-TCP: the relay buffer (docs/models/itcp.md); the BS's sockets use the scenario's `[tcp]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itcp: Option<crate::agents::itcp::ItcpConfig>,
}
