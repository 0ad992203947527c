//! Running a scenario from text: what the Python binding, the CLI and the benches call.

use std::path::Path;

use serde::Serialize;

use crate::app::{AppKind, TcpFlow};
use crate::ids::FlowId;
use crate::scenario::{self, FieldError, Format, Scenario};
use crate::tcp::Socket;
use crate::time::SimTime;
use crate::world::{SimError, World};

/// The package version and a hash of the simulator's sources (build.rs): part of every
/// result's key, so that changed code never reuses stored runs.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("TCPLAB_SOURCE_HASH"));

/// Why a run could not produce results.
#[derive(Debug)]
pub enum Error {
    /// The scenario is invalid; every problem is listed. Nothing ran.
    Scenario(Vec<FieldError>),
    /// The simulation stopped with an error.
    Simulation(SimError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Scenario(errs) => {
                writeln!(
                    f,
                    "invalid scenario ({} problem{}):",
                    errs.len(),
                    if errs.len() == 1 { "" } else { "s" }
                )?;
                for e in errs {
                    writeln!(f, "  {e}")?;
                }
                Ok(())
            }
            Error::Simulation(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

/// Per-flow results, with the names of the CLI's `--json` output.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    pub name: String,
    pub variant: String,
    pub completed: bool,
    pub aborted: bool,
    pub bytes_delivered: u64,
    /// Seconds from the client's SYN to the last byte delivered in order (None if not completed).
    pub response_time_s: Option<f64>,
    pub goodput_bps: f64,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeout_retransmissions: u64,
    pub fast_retransmissions: u64,
    pub timeouts: u64,
    pub spurious_retransmissions: u64,
    /// Omueti & Trajković (M-TCP+ paper) eq. (7): retransmissions / (segments sent − retransmissions) · 100.
    pub retransmission_ratio_pct: f64,
    pub fast_recoveries: u64,
    pub window_probes: u64,
    /// This flow's segments lost in the network: data segments and pure ACKs (seed 002 Fig. 1).
    pub data_lost: u64,
    pub acks_lost: u64,
    /// ACK numbers the sender learned from routing that advanced it (TCP-pgy S1).
    pub acks_learned: u64,
    /// When each of them came (s) and the byte of the stream it acknowledged up to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub acks_learned_at: Vec<(f64, u64)>,
    /// Fast retransmits a receiver's `dup_count` started before DupThresh duplicate ACKs had
    /// arrived (TCP-pgy S2): how many, and (time s, duplicates received) of each.
    pub early_fast_retransmits: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub early_fast_retransmits_at: Vec<(f64, u32)>,
    /// Tail loss probes sent (RFC 8985 §7), and those that repaired a loss (§7.4).
    pub tail_loss_probes: u64,
    pub tlp_recoveries: u64,
    /// Reductions undone because every retransmission of the episode was DSACKed (RFC 3708).
    pub undos: u64,
    /// Seconds the flow's shortest path had each length, as an observer of every radio link
    /// measures it (not what routing found), from the flow's start to its end, and the seconds
    /// its endpoints were partitioned. Ad hoc flows only (Holland & Vaidya's expected throughput
    /// weighs a static string's throughput by these times).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path_lengths: Vec<PathLength>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitioned_s: Option<f64>,
    /// Each end of slow start by CUBIC's HyStart (the kernel's TcpExtTCPHystart* counters).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hystart_exits: Vec<HyStartExit>,
    /// Why a flow that should have finished did not (None when it completed, or when it is an
    /// unlimited transfer that ran until the end).
    pub reason: Option<String>,
    /// Adaptive TCP's loss events (seed 004, Figs 4–7): α, W_LA, K and ssthresh at each loss.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub adaptive_losses: Vec<AdaptiveLoss>,
    /// Flow statistics of the data direction (server to client), at the IP layer.
    #[serde(flatten)]
    pub stats: FlowStats,
    /// The ACK direction (client to server): packets sent, received, lost.
    pub reverse_packets_sent: u64,
    pub reverse_packets_received: u64,
    pub reverse_packets_lost: u64,
    /// The sender's RTT samples (RFC 6298 measurements): how many, mean, min, max (s).
    pub rtt_samples: u64,
    pub rtt_mean_s: Option<f64>,
    pub rtt_min_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
}

/// Flow statistics of one direction of a flow (ns-3 FlowMonitor's), measured at the IP layer of
/// its ends: packets and IP bytes the source sent, the destination's transport received and the
/// network discarded; the one-way delays of the received packets; RFC 3550 jitter.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowStats {
    pub packets_sent: u64,
    pub packets_received: u64,
    pub packets_lost: u64,
    /// Sent, neither received nor lost when the run ended.
    pub packets_in_flight: u64,
    pub ip_bytes_sent: u64,
    pub ip_bytes_received: u64,
    pub ip_bytes_lost: u64,
    /// packets_received / packets_sent (None when nothing was sent).
    pub delivery_ratio: Option<f64>,
    /// One-way delay from the source's IP to the destination's transport (s): mean, median and
    /// 95th percentile (histogram with 1/32-octave buckets, within 1.6 %), maximum.
    pub delay_mean_s: Option<f64>,
    pub delay_median_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_max_s: Option<f64>,
    /// RFC 3550 §6.4.1 interarrival jitter at the last arrival (s).
    pub jitter_s: Option<f64>,
    /// IP bits received per second from the first packet sent to the last received.
    pub ip_throughput_bps: f64,
}

impl FlowStats {
    fn of(d: &crate::trace::flowstats::DirStats) -> FlowStats {
        let got = d.delay.n > 0;
        FlowStats {
            packets_sent: d.sent,
            packets_received: d.received,
            packets_lost: d.lost,
            packets_in_flight: d.sent.saturating_sub(d.received + d.lost),
            ip_bytes_sent: d.sent_bytes,
            ip_bytes_received: d.received_bytes,
            ip_bytes_lost: d.lost_bytes,
            delivery_ratio: (d.sent > 0).then(|| d.received as f64 / d.sent as f64),
            delay_mean_s: d.delay.mean_s(),
            delay_median_s: d.delay.quantile_s(0.5),
            delay_p95_s: d.delay.quantile_s(0.95),
            delay_max_s: got.then(|| d.delay.max_ns as f64 / 1e9),
            jitter_s: got.then(|| d.delay.jitter_ns / 1e9),
            ip_throughput_bps: d.throughput_bps(),
        }
    }
}

/// The time a flow's shortest path had one length.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct PathLength {
    pub hops: u32,
    pub seconds: f64,
}

/// One end of slow start by HyStart.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HyStartExit {
    pub t_s: f64,
    /// "ack_train" or "delay" (the test that fired).
    pub test: &'static str,
    pub cwnd_segments: f64,
}

/// One loss event of an Adaptive TCP sender (windows in segments).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AdaptiveLoss {
    pub t_s: f64,
    /// "rto" after a retransmission timeout, "frr" after three duplicate ACKs.
    pub kind: &'static str,
    pub alpha: f64,
    pub loss_window: f64,
    /// K(n), segments per second (None on the first loss).
    pub k: Option<f64>,
    /// ssthresh(adv), when the slot was favourable and α > 0.
    pub advanced_ssthresh: Option<f64>,
    pub ssthresh: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkSummary {
    pub name: String,
    /// "a->b" as node names.
    pub direction: String,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_outage: u64,
    pub ecn_marks: u64,
}

/// Counters of one wireless interface (a station of a WLAN).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WifiSummary {
    pub wlan: String,
    pub node: String,
    /// Data frames put on the air, retransmissions included.
    pub frames_sent: u64,
    pub bytes_sent: u64,
    pub control_frames_sent: u64,
    /// Data/RTS retransmissions.
    pub retries: u64,
    /// Of those, data frames sent again: the frames with the Retry bit (RTS frames sent again
    /// carry none, being control frames).
    pub data_retries: u64,
    /// MSDUs acknowledged after at least one retransmission (dot11RetryCount).
    pub retried_msdus: u64,
    /// Exchanges that got no ACK or CTS.
    pub tx_failures: u64,
    /// Of those, the ones lost to an overlapping frame: collisions as this station experienced
    /// them as a transmitter.
    pub tx_collisions: u64,
    /// Receptions at this station destroyed by an overlapping frame.
    pub collisions: u64,
    /// Frames for this station lost to the error model (data frames; every kind with
    /// `loss_at = "phy"`).
    pub frame_errors: u64,
    /// Packets the MAC received that an error model acting above the MAC dropped here
    /// (`loss_at = "packets"`).
    pub packet_errors: u64,
    pub frames_received: u64,
    pub duplicates: u64,
    pub delivered: u64,
    pub drops_retry_limit: u64,
    pub drops_queue: u64,
    pub drops_outage: u64,
    /// Packets RED marked CE at this station's interface queue (`red` on the WLAN).
    pub ecn_marks: u64,
    /// Packets RED dropped there (counted in `drops_queue` too).
    pub drops_red: u64,
    /// With ARP on (`wlans.*.arp`, docs/models/arp.md): held packets a newer one for the same
    /// neighbour replaced, and the requests and replies this station sent. Absent without ARP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drops_arp: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arp_requests: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arp_replies: Option<u64>,
}

/// One published cross-layer link signal.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkSignalSummary {
    pub t_s: f64,
    pub node: String,
    pub peer: Option<String>,
    /// signal_level | going_down | gone | up | failure
    pub kind: String,
    /// dBm for signal_level; predicted outage seconds for going_down.
    pub value: Option<f64>,
}

/// A UDP/CBR flow: datagrams and payload bytes sent and delivered to the destination node.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CbrSummary {
    pub name: String,
    pub src: String,
    pub dst: String,
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams delivered to `dst`.
    pub received: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// (sent − received) / sent · 100 (0 when nothing was sent).
    pub loss_pct: f64,
    /// Payload bits delivered per second of the flow's active span (start to min(stop, end)).
    pub throughput_bps: f64,
    /// Flow statistics at the IP layer (delays, jitter, delivery ratio).
    #[serde(flatten)]
    pub stats: FlowStats,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub wall_time_s: f64,
    pub events: u64,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wifi: Vec<WifiSummary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub link_signals: Vec<LinkSignalSummary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<AgentSummary>,
    pub cbr: Vec<CbrSummary>,
    /// Network-layer counters of nodes that dropped, routed or signalled anything.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeSummary>,
    /// Warnings of the scenario ("loc: msg"), e.g. a station beyond its AP's reception range.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The byte-conservation check (app/conservation.rs) ran over every TCP stream and UDP
    /// flow and found nothing (a violation fails the run instead).
    pub byte_conservation_checked: bool,
}

/// A node's network layer: packets dropped per cause, ICMP, and its routing agent's counters.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NodeSummary {
    pub node: String,
    /// The routing agent ("static", "aodv", ...).
    pub routing: String,
    pub drops_ttl: u64,
    pub drops_no_route: u64,
    pub drops_discovery_failed: u64,
    pub drops_buffer_full: u64,
    pub drops_buffer_timeout: u64,
    pub drops_link_broken: u64,
    pub icmp_sent: u64,
    pub icmp_received: u64,
    /// Routes to destinations this node sends to that its routing agent reported lost or
    /// restored (the cross-layer route signals TCP variants such as ELFN hear).
    pub route_changes: u64,
    /// The routing agent's counters (control packets and bytes, discoveries, RREQ/RREP/RERR
    /// sent, link breaks), as fields of this table.
    #[serde(flatten)]
    pub stats: crate::net::RoutingStats,
}

/// An in-network agent's counters.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AgentSummary {
    pub kind: String,
    pub node: String,
    pub mobile: String,
    /// Feedback datagrams the mobile sent to this agent (M-TCP, M-TCP+).
    pub feedback_sent: u64,
    pub stats: serde_json::Value,
}

/// Time series in long columnar form: TCP series name their flow; series beyond TCP name the
/// interface (`LINK:A->B`, `WLAN:NODE`) or node they describe in `at`, and each value is that of
/// the interval ending at `t_s` (trace/netseries.rs).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SeriesColumns {
    pub flow: Vec<Option<String>>,
    pub at: Vec<Option<String>>,
    pub series: Vec<String>,
    pub t_s: Vec<f64>,
    pub value: Vec<f64>,
}

/// The per-frame 802.11 trace in columnar form (empty unless `trace.frames` is set).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FrameColumns {
    pub t_s: Vec<f64>,
    /// Node of the station where the event happened.
    pub node: Vec<String>,
    pub event: Vec<&'static str>,
    pub kind: Vec<&'static str>,
    pub src: Vec<String>,
    /// Addressee node, or "broadcast".
    pub dst: Vec<String>,
    pub seq: Vec<u16>,
    pub retry: Vec<bool>,
    pub bytes: Vec<u32>,
    pub rate_bps: Vec<u64>,
}

pub struct RunOutput {
    pub summary: Summary,
    pub series: SeriesColumns,
    pub frames: FrameColumns,
    /// What `tcplab view` draws (`trace.view = true`), None otherwise.
    pub view: Option<ViewOutput>,
    /// The event trace (`trace.events`), None otherwise.
    pub events: Option<EventOutput>,
}

/// The event trace's rows and the names its codes stand for.
pub struct EventOutput {
    pub trace: crate::trace::events::EventTrace,
    /// Node names by node index.
    pub nodes: Vec<String>,
    /// Flow names by the trace's flow index (TCP flows, then CBR flows).
    pub flows: Vec<String>,
}

/// The file formats of the event trace (`trace.events.format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventFileFormat {
    Parquet,
    /// ns-2.35's wireless trace format (text).
    Ns2,
}

/// The viewer's data: the network's shape (`World::view_meta`) and the recorded rows.
pub struct ViewOutput {
    pub meta: serde_json::Value,
    pub trace: crate::trace::view::ViewTrace,
}

/// A built world, ready to run in slices (so a caller can honour interrupts between them).
pub struct Prepared {
    pub world: World,
    pub scenario: Scenario,
    /// The scenario's warnings, copied into the summary.
    pub warnings: Vec<FieldError>,
}

/// Validates without running; returns the resolved scenario.
pub fn resolve(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
) -> Result<serde_json::Value, Error> {
    let s = scenario::load(text, format, overrides).map_err(Error::Scenario)?;
    Ok(scenario::resolve(&s))
}

/// Validates without running; returns the scenario's warnings (see `scenario::warnings`).
pub fn warnings(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
) -> Result<Vec<FieldError>, Error> {
    let s = scenario::load(text, format, overrides).map_err(Error::Scenario)?;
    Ok(scenario::warnings(&s))
}

/// What a reader of a run's captures must know, without running it (scenario::pcap_names).
pub struct Captures {
    /// The file names of the captures the run writes when given a capture folder (`trace.pcap`,
    /// then `trace.pcap_80211`).
    pub files: Vec<String>,
    /// (flow, shift, how it opens) of each TCP flow whose windows are scaled with no option on
    /// the wire.
    pub unsignalled_window_shifts: Vec<(String, u8, crate::tcp::config::OpenMode)>,
}

pub fn captures(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
) -> Result<Captures, Error> {
    let s = scenario::load(text, format, overrides).map_err(Error::Scenario)?;
    Ok(Captures {
        files: scenario::pcap_names::capture_files(&s).map_err(|e| Error::Scenario(vec![e]))?,
        unsignalled_window_shifts: scenario::pcap_names::unsignalled_window_shifts(&s),
    })
}

pub fn prepare(
    text: &str,
    format: Format,
    seed: Option<u64>,
    overrides: &[(String, String)],
    pcap_dir: Option<&Path>,
) -> Result<Prepared, Error> {
    let s = scenario::load(text, format, overrides).map_err(Error::Scenario)?;
    let seed = seed.or(s.seed).unwrap_or(1);
    let world = scenario::build(&s, seed, pcap_dir).map_err(Error::Scenario)?;
    Ok(Prepared {
        world,
        warnings: scenario::warnings(&s),
        scenario: s,
    })
}

impl Prepared {
    /// Writes the event trace to `path` while the run goes, in batches (trace/parquet.rs, or
    /// ns-2's text): memory holds one batch, and `RunOutput::events` has no rows then, only
    /// their count. Call before the first step; an error if the scenario records no event
    /// trace or the file cannot be created. The file is written under a temporary name beside
    /// `path` (created exclusively: a name planted there is not followed) and renamed over `path`
    /// when the run finishes; a run that fails or is dropped leaves no file
    /// (trace/owned_file.rs).
    pub fn stream_events(&mut self, path: &Path, format: EventFileFormat) -> std::io::Result<()> {
        if self.world.events().is_none() {
            return Err(std::io::Error::other(
                "the scenario records no event trace (trace.events)",
            ));
        }
        let sink: Box<dyn crate::trace::events::RowSink> = match format {
            EventFileFormat::Parquet => {
                Box::new(crate::trace::events_parquet::ParquetSink::create(
                    path,
                    &self.event_node_names(),
                    &self.event_flow_names(),
                )?)
            }
            EventFileFormat::Ns2 => Box::new(crate::trace::events::Ns2Sink::create(path)?),
        };
        self.world.stream_events(sink);
        Ok(())
    }

    fn event_node_names(&self) -> Vec<String> {
        self.world.nodes().iter().map(|n| n.name.clone()).collect()
    }

    /// Flow names by the trace's flow index (TCP flows, then CBR flows).
    fn event_flow_names(&self) -> Vec<String> {
        self.world
            .flows()
            .iter()
            .map(|f| f.name.clone())
            .chain(self.world.cbr().iter().map(|c| c.name.clone()))
            .collect()
    }

    /// Sizes of the containers that could grow with the run (issue 35's memory test).
    pub fn memory_census(&self) -> crate::world::MemoryCensus {
        self.world.memory_census()
    }

    /// Runs up to `budget` events; `Ok(true)` when the run is over.
    pub fn step(&mut self, budget: u64) -> Result<bool, Error> {
        self.world.run_for(budget).map_err(Error::Simulation)
    }

    pub fn finish(mut self) -> Result<RunOutput, Error> {
        self.world.finish_pcaps().map_err(Error::Simulation)?;
        // Every run ends with the byte-conservation check; a violation is an error, not a number.
        let violations = self.world.conservation_violations();
        if !violations.is_empty() {
            return Err(Error::Simulation(SimError::Conservation(violations)));
        }
        let view = self.world.take_view().map(|trace| ViewOutput {
            meta: self.world.view_meta(),
            trace,
        });
        let mut events = self.world.take_events().map(|trace| EventOutput {
            trace,
            nodes: self.event_node_names(),
            flows: self.event_flow_names(),
        });
        if let Some(ev) = events.as_mut() {
            // A streamed trace: its last rows, and the file's end.
            ev.trace
                .finish_stream()
                .map_err(|e| Error::Simulation(SimError::Io(format!("trace.events: {e}"))))?;
        }
        let mut out = summarize(&self.world);
        out.view = view;
        out.events = events;
        out.summary.byte_conservation_checked = true;
        out.summary.warnings = self.warnings.iter().map(|w| w.to_string()).collect();
        Ok(out)
    }
}

/// Runs a scenario to the end.
pub fn run(
    text: &str,
    format: Format,
    seed: Option<u64>,
    overrides: &[(String, String)],
    pcap_dir: Option<&Path>,
) -> Result<RunOutput, Error> {
    let mut p = prepare(text, format, seed, overrides, pcap_dir)?;
    while !p.step(u64::MAX)? {}
    p.finish()
}

/// Seconds as reported: ns / 1e9 is the double nearest the exact decimal (60 s prints as 60.0),
/// where `as_secs_f64`'s ns · 1e-9 adds float noise (60.00000000000001).
fn secs(t: SimTime) -> f64 {
    t.0 as f64 / 1e9
}

/// Why a flow did not finish, in the user's terms; None if it completed or is unlimited and
/// still running at the end.
fn unfinished_reason(f: &TcpFlow, snd: &Socket, rcv: &Socket, end: SimTime) -> Option<String> {
    if f.completed_at.is_some() {
        return None;
    }
    let limit = rcv.config().max_retransmissions;
    match (rcv.connected_at(), snd.aborted() || rcv.aborted()) {
        // RFC 9293 §3.8.3: the client gives up after R2 retransmissions of its SYN.
        (None, true) => Some(format!(
            "never connected: the client's SYN was retransmitted {limit} times (tcp.max_retransmissions) \
             without an answer; the server is unreachable"
        )),
        (None, false) => Some(format!(
            "never connected: the handshake had not completed when the run ended at {} s",
            secs(end)
        )),
        (Some(_), true) => Some(format!(
            "aborted after {} bytes: a segment was retransmitted {} times \
             (tcp.max_retransmissions) without an answer, or a RST arrived",
            rcv.delivered(),
            snd.config().max_retransmissions
        )),
        (Some(_), false) => match f.kind {
            AppKind::Bulk => None,
            AppKind::BulkDownload { size } => Some(format!(
                "not finished: {} of {size} bytes delivered when the run ended at {} s",
                rcv.delivered(),
                secs(end)
            )),
        },
    }
}

/// Collects the summary and the time series of a finished world.
pub fn summarize(w: &World) -> RunOutput {
    let end = w.now;
    let mut flows = Vec::new();
    let mut series = SeriesColumns::default();
    for (fi, f) in w.flows().iter().enumerate() {
        let snd = &w.sockets()[f.server.idx()];
        let rcv = &w.sockets()[f.client.idx()];
        let st = snd.stats;
        let delivered = rcv.delivered();
        let response = f.completed_at.map(|t| secs(t - f.start));
        let span = f
            .completed_at
            .unwrap_or(end)
            .saturating_sub(f.start)
            .as_secs_f64();
        let goodput = if span > 0.0 {
            delivered as f64 * 8.0 / span
        } else {
            0.0
        };
        let orig = st.segments_sent.saturating_sub(st.retransmissions);
        let paths = w.path_times(FlowId(fi as u32), f.completed_at.unwrap_or(end));
        flows.push(FlowSummary {
            name: f.name.clone(),
            variant: snd.config().name(),
            completed: f.completed_at.is_some(),
            aborted: snd.aborted() || rcv.aborted(),
            bytes_delivered: delivered,
            response_time_s: response,
            goodput_bps: goodput,
            segments_sent: st.segments_sent,
            retransmissions: st.retransmissions,
            timeout_retransmissions: st.timeout_retransmissions,
            fast_retransmissions: st.fast_retransmissions,
            timeouts: st.timeouts,
            spurious_retransmissions: rcv.stats.duplicate_segments_received,
            retransmission_ratio_pct: if orig > 0 {
                st.retransmissions as f64 / orig as f64 * 100.0
            } else {
                0.0
            },
            fast_recoveries: st.fast_recoveries,
            window_probes: st.window_probes,
            data_lost: f.data_lost,
            acks_lost: f.acks_lost,
            acks_learned: st.acks_learned,
            acks_learned_at: snd
                .learned_acks()
                .iter()
                .map(|&(t, b)| (t.as_secs_f64(), b))
                .collect(),
            early_fast_retransmits: snd.early_fast_retransmits().len() as u64,
            early_fast_retransmits_at: snd
                .early_fast_retransmits()
                .iter()
                .map(|&(t, n)| (t.as_secs_f64(), n))
                .collect(),
            tail_loss_probes: st.tail_loss_probes,
            tlp_recoveries: st.tlp_recoveries,
            undos: st.undos,
            partitioned_s: paths.as_ref().map(|p| p.partitioned_s),
            path_lengths: paths
                .map(|p| {
                    p.hops
                        .into_iter()
                        .map(|(hops, seconds)| PathLength { hops, seconds })
                        .collect()
                })
                .unwrap_or_default(),
            hystart_exits: snd
                .hystart_exits()
                .iter()
                .map(|&(t, e, cwnd)| HyStartExit {
                    t_s: t.as_secs_f64(),
                    test: e.name(),
                    cwnd_segments: cwnd as f64 / snd.mss() as f64,
                })
                .collect(),
            reason: unfinished_reason(f, snd, rcv, end),
            stats: FlowStats::of(&w.tcp_flow_stats(fi)[0]),
            reverse_packets_sent: w.tcp_flow_stats(fi)[1].sent,
            reverse_packets_received: w.tcp_flow_stats(fi)[1].received,
            reverse_packets_lost: w.tcp_flow_stats(fi)[1].lost,
            rtt_samples: snd.rtt_samples().n,
            rtt_mean_s: (snd.rtt_samples().n > 0)
                .then(|| snd.rtt_samples().sum_ns as f64 / snd.rtt_samples().n as f64 / 1e9),
            rtt_min_s: (snd.rtt_samples().n > 0).then(|| snd.rtt_samples().min_ns as f64 / 1e9),
            rtt_max_s: (snd.rtt_samples().n > 0).then(|| snd.rtt_samples().max_ns as f64 / 1e9),
            adaptive_losses: snd
                .adaptive_history()
                .iter()
                .map(|e| AdaptiveLoss {
                    t_s: e.t,
                    kind: if e.timeout { "rto" } else { "frr" },
                    alpha: e.alpha,
                    loss_window: e.w_la,
                    k: e.k,
                    advanced_ssthresh: e.advanced,
                    ssthresh: e.ssthresh,
                })
                .collect(),
        });
        for s in &w.series()[fi].series {
            for (t, v) in s.t.iter().zip(&s.v) {
                series.flow.push(Some(f.name.clone()));
                series.at.push(None);
                series.series.push(s.kind.name().to_string());
                series.t_s.push(secs(*t));
                series.value.push(*v);
            }
        }
    }
    if let Some(ns) = w.net_series() {
        let names: Vec<String> = (0..ns.element.iter().max().map_or(0, |m| m + 1))
            .map(|e| w.net_element_name(e))
            .collect();
        for i in 0..ns.t.len() {
            series.flow.push(None);
            series.at.push(Some(names[ns.element[i] as usize].clone()));
            series.series.push(ns.kind[i].name().to_string());
            series.t_s.push(secs(ns.t[i]));
            series.value.push(ns.value[i]);
        }
    }
    let mut links = Vec::new();
    for l in w.links() {
        for &i in &l.ifaces {
            let ifc = &w.ifaces()[i.idx()];
            let peer = &w.ifaces()[ifc.peer.idx()];
            links.push(LinkSummary {
                name: l.name.clone(),
                direction: format!(
                    "{}->{}",
                    w.nodes()[ifc.node.idx()].name,
                    w.nodes()[peer.node.idx()].name
                ),
                packets_sent: ifc.stats.packets_sent,
                bytes_sent: ifc.stats.bytes_sent,
                drops_queue: ifc.stats.drops_queue,
                drops_loss: ifc.stats.drops_loss,
                drops_outage: ifc.stats.drops_outage,
                ecn_marks: ifc.stats.ecn_marks,
            });
        }
    }
    let cbr = w
        .cbr()
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let span = c.stop.min(end).saturating_sub(c.start).as_secs_f64();
            CbrSummary {
                name: c.name.clone(),
                src: w.nodes()[c.src.idx()].name.clone(),
                dst: w.nodes()[c.dst.idx()].name.clone(),
                sent: c.sent,
                received: c.received,
                bytes_sent: c.sent * u64::from(c.packet_size),
                bytes_received: c.bytes_received,
                loss_pct: if c.sent > 0 {
                    c.sent.saturating_sub(c.received) as f64 / c.sent as f64 * 100.0
                } else {
                    0.0
                },
                throughput_bps: if span > 0.0 {
                    c.bytes_received as f64 * 8.0 / span
                } else {
                    0.0
                },
                stats: FlowStats::of(w.cbr_flow_stats(k)),
            }
        })
        .collect();
    let wifi = w
        .wifi()
        .stations
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let m = st.mac.stats;
            let red = w.wifi_red(i as u32);
            let arp = w.arp(i as u32).map(|t| t.stats);
            WifiSummary {
                wlan: w.wifi().wlans[st.wlan as usize].cfg.name.clone(),
                node: w.nodes()[st.node.idx()].name.clone(),
                frames_sent: m.data_frames_sent,
                bytes_sent: m.data_bytes_sent,
                control_frames_sent: m.control_frames_sent,
                retries: m.retries,
                data_retries: m.data_retries,
                retried_msdus: m.retried_msdus,
                tx_failures: m.tx_failures,
                tx_collisions: m.tx_collisions,
                collisions: m.rx_collisions,
                frame_errors: m.rx_errors,
                packet_errors: st.packet_losses,
                frames_received: m.data_frames_received,
                duplicates: m.duplicates,
                delivered: m.delivered,
                drops_retry_limit: m.drops_retry,
                drops_queue: m.drops_queue + red.map_or(0, |r| r.drops),
                drops_outage: m.drops_outage,
                ecn_marks: red.map_or(0, |r| r.ecn_marks),
                drops_red: red.map_or(0, |r| r.drops),
                drops_arp: arp.map(|a| a.drops),
                arp_requests: arp.map(|a| a.requests_sent),
                arp_replies: arp.map(|a| a.replies_sent),
            }
        })
        .collect();
    let link_signals = w
        .wifi()
        .log
        .iter()
        .filter(|e| !matches!(e.kind, crate::wifi::LinkSignalKind::SignalLevel { .. }))
        .map(|e| {
            use crate::wifi::LinkSignalKind as K;
            let (kind, value) = match e.kind {
                K::SignalLevel { dbm } => ("signal_level", Some(dbm)),
                K::GoingDown { expected } => ("going_down", Some(secs(expected))),
                K::Gone => ("gone", None),
                K::Up => ("up", None),
                K::Failure => ("failure", None),
            };
            LinkSignalSummary {
                t_s: secs(e.t),
                node: w.nodes()[e.node.idx()].name.clone(),
                peer: e.peer.map(|p| w.nodes()[p.idx()].name.clone()),
                kind: kind.to_string(),
                value,
            }
        })
        .collect();
    let agents = w
        .agents()
        .iter()
        .map(|a| {
            let node = w.nodes()[a.node.idx()].name.clone();
            let mobile = w
                .nodes()
                .iter()
                .find(|n| n.addr == a.mobile)
                .map_or(String::new(), |n| n.name.clone());
            let feedback_sent = w
                .feedback()
                .iter()
                .filter(|f| f.to == a.node && w.nodes()[f.mobile.idx()].addr == a.mobile)
                .map(|f| f.sent)
                .sum();
            AgentSummary {
                kind: a.agent.kind().to_string(),
                node,
                mobile,
                feedback_sent,
                stats: a.agent.stats_json(),
            }
        })
        .collect();
    let mut frames = FrameColumns::default();
    if let Some(tr) = &w.wifi().frames {
        let node_of = |sta: u32| -> String {
            if sta == crate::wifi::BROADCAST {
                "broadcast".to_string()
            } else {
                w.nodes()[w.wifi().stations[sta as usize].node.idx()]
                    .name
                    .clone()
            }
        };
        for r in tr {
            frames.t_s.push(secs(r.t));
            frames.node.push(node_of(r.sta));
            frames.event.push(r.event.name());
            frames.kind.push(match r.kind {
                crate::wifi::FrameKind::Data => "data",
                crate::wifi::FrameKind::Ack => "ack",
                crate::wifi::FrameKind::Rts => "rts",
                crate::wifi::FrameKind::Cts => "cts",
            });
            frames.src.push(node_of(r.src));
            frames.dst.push(node_of(r.dst));
            frames.seq.push(r.seq);
            frames.retry.push(r.retry);
            frames.bytes.push(r.bytes);
            frames.rate_bps.push(r.rate);
        }
    }
    let nodes = w
        .nodes()
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            use crate::net::{DropReason as R, RoutingAgent};
            let agent = w.routing(crate::ids::NodeId(i as u32));
            let r = agent.stats();
            let d = &n.drops;
            let s = NodeSummary {
                node: n.name.clone(),
                routing: agent.kind().to_string(),
                drops_ttl: d.ttl,
                drops_no_route: d.routing[R::NoRoute as usize],
                drops_discovery_failed: d.routing[R::DiscoveryFailed as usize],
                drops_buffer_full: d.routing[R::BufferFull as usize],
                drops_buffer_timeout: d.routing[R::BufferTimeout as usize],
                drops_link_broken: d.routing[R::LinkBroken as usize],
                icmp_sent: d.icmp_sent,
                icmp_received: d.icmp_received,
                route_changes: d.route_changes,
                stats: r,
            };
            let quiet =
                d == &crate::net::NodeDrops::default() && r == crate::net::RoutingStats::default();
            (!quiet).then_some(s)
        })
        .collect();
    RunOutput {
        view: None,
        events: None,
        frames,
        summary: Summary {
            scenario: w.name.clone(),
            seed: w.seed,
            sim_time_s: secs(end),
            wall_time_s: w.wall_time,
            events: w.events,
            flows,
            links,
            wifi,
            link_signals,
            agents,
            cbr,
            nodes,
            warnings: Vec::new(),
            byte_conservation_checked: false,
        },
        series,
    }
}

/// The JSON Schema of the scenario format.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).unwrap_or_default()
}
