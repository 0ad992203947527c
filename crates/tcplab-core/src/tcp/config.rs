//! TCP parameters: one type for the scenario file and the socket. Every constant of the RFCs is a
//! field here with the RFC default in `Default`; a scenario's `[tcp]` table (and a flow's `tcp`
//! table over it) deserialises straight into [`TcpConfig`], so the schema and the core cannot
//! drift apart. Units are written in the values (`"200ms"`, `"64KiB"`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cc::{VegasParams, VenoParams};
use super::ext::{AtcpParams, ElfnParams, FreezeParams, TcpFParams};
use crate::scenario::units::{Duration, Size};
use crate::time::SimTime;

/// Loss recovery (RFC 5681, RFC 6582, RFC 6675); `variant` in a scenario is its shorthand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// RFC 5681 fast retransmit / fast recovery (exits on the first new ACK).
    Reno,
    /// RFC 6582 NewReno (partial ACKs keep recovery going).
    NewReno,
    /// RFC 6675 SACK-based recovery with RFC 2018 SACK blocks.
    Sack,
    /// RFC 8985 RACK: time-based loss detection on the SACK scoreboard (Linux's default).
    Rack,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
            Variant::Rack => "rack",
        }
    }
}

/// Congestion controller (see `tcp/cc/`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// Reno-style AIMD of RFC 5681 §3.1.
    #[default]
    Reno,
    /// CUBIC, RFC 9438.
    Cubic,
    /// TCP Westwood+ (Mascolo et al. 2004): ssthresh from the bandwidth estimate after a loss.
    Westwood,
    /// Adaptive TCP (Dalal et al., IJCNS 2015): loss window and ssthresh scaled by the
    /// congestion estimator α, ssthresh advanced by the utilisation factor K.
    Adaptive,
    /// TCP Vegas (Brakmo & Peterson 1995): Diff = (Expected − Actual)·BaseRTT held in [α, β];
    /// parameters in `vegas`.
    Vegas,
    /// TCP Veno (Fu & Liew 2003): backlog N tells random from congestive loss; parameters in
    /// `veno`.
    Veno,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::Reno => "reno",
            CcKind::Cubic => "cubic",
            CcKind::Westwood => "westwood",
            CcKind::Adaptive => "adaptive",
            CcKind::Vegas => "vegas",
            CcKind::Veno => "veno",
        }
    }

    /// Whether the controller reads the per-ACK RTT of the newest segment acknowledged
    /// (`Ack::ca_rtt`): HyStart in CUBIC, and Vegas and Veno, which time every segment.
    pub fn per_ack_rtt(self, hystart: bool) -> bool {
        match self {
            CcKind::Cubic => hystart,
            CcKind::Vegas | CcKind::Veno => true,
            _ => false,
        }
    }
}

/// The low-pass filter of Westwood+'s bandwidth estimate (cc = "westwood"); one sample per RTT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WestwoodFilter {
    /// BWE = γ·BWE + (1 − γ)·b, γ = 0.9 (Mascolo et al. 2004, the source the Adaptive TCP paper cites).
    #[default]
    Mascolo,
    /// ns-3's default Tustin form: BWE = 0.9·BWE + 0.1·(b + b_prev)/2.
    Tustin,
    /// Linux tcp_westwood.c: two cascaded 7/8 filters, at least 50 ms per sample.
    Linux,
}

/// Adaptive TCP (cc = "adaptive"): which RTT is the paper's "estimated RTT" (ALGORITHMS.md §1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveRtt {
    /// The smoothed RTT (RFC 6298 SRTT); RTT_min/RTT_max track its values.
    #[default]
    Srtt,
    /// The raw RTT samples.
    Sample,
}

/// Adaptive TCP: the reconstructed form of Eq. (2), the loss window W_LA (ALGORITHMS.md §1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveLossWindow {
    /// W_LA = W_LN + α·(cwnd(n) − W_LN).
    #[default]
    Linear,
    /// W_LA = max(W_LN, α·cwnd(n)).
    Max,
}

/// Adaptive TCP: the reconstructed forms of Eqs. (5)–(6), K(n) and ssthresh(adv).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveAdvance {
    /// K(n) = (cwnd(n) − W_LA(n−1))/(T(n) − T(n−1)) segments per second;
    /// ssthresh(adv) = ⌊ssthresh(n−1) + K(n−1)·(T(n) − T(n−1))⌋.
    #[default]
    Slope,
    /// K(n) = cwnd(n)/W_LA(n−1) (dimensionless); ssthresh(adv) = ⌊K(n−1)·ssthresh(n−1)⌋.
    Ratio,
}

/// Adaptive TCP: where slot n (between losses n−1 and n) starts, T(n−1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveSlotStart {
    /// The (n−1)-th loss detection.
    #[default]
    Detection,
    /// The end of the (n−1)-th recovery (the timeout itself for a timeout).
    RecoveryEnd,
}

/// Adaptive TCP: which timeouts are "serial" and get the native reaction (loss window 1, NewReno's
/// ssthresh) instead of Eqs. (2) and (4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveSerialTimeout {
    /// A timeout that fires while the RTO is still backed off (no valid RTT sample since the
    /// previous timeout): the paper's "serial timeouts (with exponential back-off for RTO)".
    #[default]
    BackedOff,
    /// Only a repeated timeout of the same segment (a recovery in between makes the next timeout
    /// a first one).
    SameSegment,
}

/// Optional TCP extensions (see `tcp/ext/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExtensionKind {
    /// TCP-pgy S2 (Kim & Yoo, JCN 2008, §3.2): the receiver stamps every ACK with its count of out-of-order
    /// arrivals; the sender fast-retransmits once that count reaches DupThresh even when
    /// duplicate ACKs were lost.
    DupCount,
    /// TCP-pgy S1 (Kim & Yoo, JCN 2008, §3.1, Algorithm 1): the sender takes the receiver's
    /// cumulative ACK that routing carried in an RREQ or gratuitous RREP as its highest ACK.
    /// Needs `routing.ack_piggyback = true` on the path's AODV nodes.
    AckPiggyback,
    /// ATCP (Liu & Singh 2001; Sridhara & Subramanya §5): Normal/Loss/Congested/Disconnected at the sender;
    /// parameters in `atcp`.
    Atcp,
    /// ELFN (Holland & Vaidya 1999): stand-by with periodic probes on a route failure;
    /// parameters in `elfn`.
    Elfn,
    /// TCP-F (Chandran et al. 2001): snooze on a route failure until the route is back or the
    /// route-failure timer expires; parameters in `tcp_f`.
    TcpF,
    /// Freeze-TCP (Goff et al. 2000): the receiver advertises a zero window before a predicted
    /// disconnection; parameters in `freeze`.
    Freeze,
}

impl ExtensionKind {
    pub fn name(self) -> &'static str {
        match self {
            ExtensionKind::DupCount => "dup_count",
            ExtensionKind::AckPiggyback => "ack_piggyback",
            ExtensionKind::Atcp => "atcp",
            ExtensionKind::Elfn => "elfn",
            ExtensionKind::TcpF => "tcp_f",
            ExtensionKind::Freeze => "freeze",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// RFC 3390: min(4·SMSS, max(2·SMSS, 4380 B)) — eq. (1) of the M-TCP+ paper.
    Rfc3390,
    /// A fixed number of segments.
    Segments(u32),
}

/// How cwnd is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WindowUnit {
    /// Bytes, as the RFCs specify (RFC 5681 §3.1).
    #[default]
    Bytes,
    /// Whole segments, as ns-2's Agent/TCP does: +1 per new ACK in slow start, +1/cwnd per new
    /// ACK in congestion avoidance, ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) on loss.
    Segments,
}

/// Congestion-avoidance increase rule (RFC 5681 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaMode {
    /// Appropriate byte counting: +SMSS once a full cwnd of bytes has been acknowledged (RFC 3465 §2.1).
    #[default]
    ByteCounting,
    /// cwnd += SMSS·SMSS/cwnd per ACK (RFC 5681 eq. 3).
    PerAck,
}

/// A set of defaults for the whole `[tcp]` table; fields the table sets override it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// The RFC defaults this table lists (RFC 6298 RTO, RFC 3390 IW, Reno, NewReno).
    #[default]
    Classic,
    /// Linux's defaults (docs/models/tcp.md, "Linux profile"): CUBIC, RACK on SACK, PRR, IW 10,
    /// Linux's RTO with rto_min 200 ms, timestamps.
    Linux,
    /// ns-2.35's Agent/TCP and TCPSink defaults (docs/models/tcp.md, "ns-2 profile"): windows in
    /// 1000-B packets, window_ 20, windowInit_ 2, ns-2's tick-counting RTO, limited transmit,
    /// an ACK per packet, no timestamps, no handshake.
    Ns2,
}

/// How a TCP flow opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OpenMode {
    /// RFC 9293: the client sends the SYN, then its request; the server answers with the data.
    #[default]
    Handshake,
    /// ns-2.35's one-way TCP with `syn_` true (its default): the data sender sends a SYN at the
    /// flow's start, the receiver answers it, the first data goes with the ACK of the answer;
    /// no request.
    SenderSyn,
    /// ns-2's one-way TCP with `syn_` false: no SYN at all, the first data segment leaves at
    /// the flow's start; no request, options not negotiated (SACK and timestamps as configured,
    /// no window scaling).
    None,
}

/// How the retransmission timeout is computed and restarted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoRule {
    /// RFC 6298: RTO = SRTT + max(G, 4·RTTVAR), clamped to [rto_min, rto_max]; the timer is
    /// restarted as each recovery scheme says (RFC 6582's Impatient timer).
    #[default]
    Rfc6298,
    /// Linux: RTO = SRTT + max(4·RTTVAR, rto_min) (rto_min is a floor on the variance term, not on
    /// the sum), and the timer is restarted on every ACK that advances snd_una.
    Linux,
    /// ns-2.35 Agent/TCP (`rfc2988_` true, its default): RTT in whole ticks of
    /// `clock_granularity` (tcpTick_), SRTT/RTTVAR in fixed point, RTO = ⌊SRTT + 4·RTTVAR⌋ ticks,
    /// rto_min applied before the backoff factor, at least two ticks (`tcp/rtt_ns2.rs`).
    Ns2,
    /// As `ns2` with `rfc2988_` false: rto_min floors the backed-off timeout instead.
    Ns2PreRfc2988,
}

/// Which of HyStart's tests may end CUBIC's slow start (Linux's module parameter
/// `hystart_detect`: 1 = ACK train, 2 = delay, 3 = both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HyStartDetect {
    /// Both tests (Linux's default, 3).
    #[default]
    Both,
    /// Only the ACK-train test: the ACKs of a round keep coming closely spaced for longer than
    /// half the minimum RTT.
    AckTrain,
    /// Only the delay test: a round's RTT samples rise above the minimum RTT.
    Delay,
}

impl HyStartDetect {
    pub fn ack_train(self) -> bool {
        self != HyStartDetect::Delay
    }
    pub fn delay(self) -> bool {
        self != HyStartDetect::AckTrain
    }
}

/// cwnd on leaving NewReno fast recovery with a full ACK (RFC 6582 §3.2 step 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FullAckCwnd {
    /// Option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS).
    #[default]
    FlightSize,
    /// Option (2): ssthresh.
    Ssthresh,
}

/// When a cumulative ACK is "beyond" `recover` (RFC 6582 §3.2 step 1, RFC 6675 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoverBoundary {
    /// ACK > recover: the ACK covers recover itself (ns-2's default, Linux, ns-3; the same test as
    /// the exit from recovery).
    #[default]
    Inclusive,
    /// ACK − 1 > recover: RFC 6582 §3.2 step 1 read literally ("covers more than recover").
    Strict,
}

/// The retransmit-timer rule during NewReno recovery (RFC 6582 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// Reset the timer on the first partial ACK only (RFC 6582 §3.2 step 4, "Impatient").
    #[default]
    Impatient,
    /// Reset it on every partial ACK ("Slow-but-Steady").
    SlowButSteady,
}

/// ssthresh when the retransmission timer expires during fast recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoSsthresh {
    /// Keep the ssthresh the recovery set, capped by RFC 5681 eq. (4): eq. (4) is an upper
    /// bound ("no more than"), and recomputing it from a flight inflated by recovery would raise
    /// ssthresh. Linux keeps ssthresh when the timeout hits in recovery.
    #[default]
    KeepInRecovery,
    /// RFC 5681 eq. (4) from the current FlightSize, whatever the state.
    FlightSize,
    /// ns-2.35 (tcp.cc timeout → slowdown): every expiry, the repeated ones too, sets ssthresh
    /// from the window at that moment (un-inflated in recovery), so the second consecutive
    /// timeout, from cwnd = 1, gives 2 segments. RFC 5681 §3.1 holds ssthresh instead.
    EveryTimeout,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// classic | linux | ns2: the defaults of every other field (docs/models/tcp.md); fields the table
    /// sets override the profile's.
    pub profile: Profile,
    /// Shorthand for `recovery` (reno | newreno | sack) with `cc = "reno"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// Loss recovery: reno | newreno | sack | rack (default newreno, or what `variant` says).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Variant>,
    /// Congestion control: reno (RFC 5681 AIMD) | cubic (RFC 9438) | westwood (Westwood+) |
    /// adaptive (Adaptive TCP, Dalal et al. 2015) | vegas (Brakmo & Peterson 1995) | veno (Fu &
    /// Liew 2003).
    pub cc: CcKind,
    /// Vegas's α, β, γ in segments and its fine-grained retransmission (cc = "vegas";
    /// docs/models/vegas_veno.md).
    pub vegas: VegasParams,
    /// Veno's β in segments (cc = "veno"; docs/models/vegas_veno.md).
    pub veno: VenoParams,
    /// Extensions on top of the composition: dup_count | ack_piggyback | atcp | elfn | tcp_f | freeze.
    pub extensions: Vec<ExtensionKind>,
    /// ATCP's switches (extension "atcp"; docs/models/adhoc_tcp.md).
    pub atcp: AtcpParams,
    /// ELFN's probe interval (extension "elfn").
    pub elfn: ElfnParams,
    /// TCP-F's route-failure timer (extension "tcp_f").
    pub tcp_f: TcpFParams,
    /// Freeze-TCP's reconnection ACKs (extension "freeze").
    pub freeze: FreezeParams,
    /// Sender maximum segment size (payload bytes; 1 to 65495).
    #[serde(with = "size_u32")]
    #[schemars(with = "Size")]
    pub mss: u32,
    /// "rfc3390" or a number of segments.
    #[serde(with = "initial_window")]
    #[schemars(with = "initial_window::Spec")]
    pub initial_window: InitialWindow,
    /// Initial ssthresh in bytes; absent = "arbitrarily high" (RFC 5681 §3.1).
    #[serde(with = "opt_size", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Size>")]
    pub initial_ssthresh: Option<u64>,
    /// bytes (RFC) | segments (ns-2).
    pub window_unit: WindowUnit,
    /// byte_counting (RFC 3465) | per_ack (RFC 5681 eq. 3).
    pub ca_mode: CaMode,
    /// L of RFC 3465: slow start grows by at most L·SMSS per ACK. RFC 5681 uses 1.
    pub abc_limit: u32,
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// NewReno cwnd on a full ACK: flightsize (RFC 6582 option 1) | ssthresh (option 2).
    pub full_ack: FullAckCwnd,
    /// inclusive (ACK > recover) | strict (ACK − 1 > recover): when fast retransmit may start a
    /// new episode (docs/models/tcp.md).
    pub recover_boundary: RecoverBoundary,
    /// impatient | slow_but_steady (RFC 6582 §4).
    pub partial_ack_timer: PartialAckTimer,
    /// ns-2.35: every Agent/TCP's `dupack_action` calls `reset_rtx_timer(1,0)`, so a fast
    /// retransmit restarts the retransmission timer (one RTO from then) and abandons the RTT
    /// sample in progress (`rtt_active_ = 0`). false: RFC 6298 (5.1), a running timer keeps its
    /// expiry.
    pub fast_retransmit_restarts_timer: bool,
    /// keep_in_recovery | flight_size | every_timeout: ssthresh on a timeout during fast recovery
    /// (and, with every_timeout, on repeated timeouts).
    pub rto_ssthresh: RtoSsthresh,
    /// RFC 5681 §4.1: after an idle period longer than the RTO, cwnd = min(IW, cwnd).
    pub restart_after_idle: bool,
    /// RFC 6937 Proportional Rate Reduction sets cwnd during SACK/RACK recovery (instead of
    /// cwnd = ssthresh at once).
    pub prr: bool,
    /// RFC 8985 §7 tail loss probe: 2·SRTT after the last transmission or ACK, a probe of new data
    /// (or the last segment) instead of waiting for the RTO. Needs recovery = "rack".
    pub tlp: bool,
    /// Linux's Loss state (needs recovery = "rack"): during the recovery after a timeout, a
    /// retransmission RACK finds lost on an ACK, or any loss its reordering timer finds, starts a
    /// fast recovery at once. Off, RFC 6675 §5.1 holds: no new recovery until the timeout's
    /// RecoveryPoint is acknowledged, so a lost retransmission waits for the next timeout.
    pub rack_after_rto: bool,
    /// RFC 2883 DSACK: the receiver reports a duplicate segment as the first SACK block (needs
    /// SACK).
    pub dsack: bool,
    /// RFC 3708: a fast recovery or timeout whose every retransmission is DSACKed was spurious;
    /// the pre-episode cwnd and ssthresh come back (Linux's undo). Needs `dsack`.
    pub undo: bool,
    /// RFC 5682 F-RTO: after a timeout, new data on the first two ACKs tells a spurious timeout
    /// (delayed, not lost, segments) from a real one; a spurious one is undone. SACK-enhanced
    /// (§3) when SACK is in use, basic otherwise.
    pub frto: bool,
    /// RFC 3522 Eifel detection: an ACK of a retransmitted segment whose timestamp echo is older
    /// than the retransmission acknowledges the original, so the reduction was spurious and is
    /// undone (Linux's timestamp undo). Needs `timestamps`.
    pub timestamp_undo: bool,
    /// rfc6298 | linux | ns2 | ns2_pre_rfc2988: the RTO formula and when the timer restarts.
    pub rto_rule: RtoRule,
    /// RFC 9438 §4.7 fast convergence (cc = "cubic").
    pub cubic_fast_convergence: bool,
    /// Linux's CUBIC floor (cc = "cubic"): until the first congestion event, and again after each
    /// timeout, cwnd grows at least one segment per 20 acknowledged (5 % per round trip), however
    /// flat W_cubic is there (docs/models/tcp.md). RFC 9438 has no such floor.
    pub cubic_min_growth: bool,
    /// HyStart in CUBIC's slow start, as Linux runs it (cc = "cubic"): slow start ends when a
    /// round trip's ACKs keep arriving in a train for longer than half the minimum RTT, or its
    /// RTTs rise above the smallest one (docs/models/tcp.md).
    pub hystart: bool,
    /// both | ack_train | delay: which of HyStart's tests run (Linux's `hystart_detect`).
    pub hystart_detect: HyStartDetect,
    /// Segments below which HyStart does not run (Linux's `hystart_low_window`, 16).
    pub hystart_low_window: u32,
    /// The largest gap between two ACKs of one train (Linux's `hystart_ack_delta_us`, 2 ms).
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub hystart_ack_delta: SimTime,
    /// mascolo | tustin | linux: Westwood+'s bandwidth filter (cc = "westwood").
    pub westwood_filter: WestwoodFilter,
    /// srtt | sample: Adaptive TCP's "estimated RTT" (cc = "adaptive").
    pub adaptive_rtt: AdaptiveRtt,
    /// linear | max: Adaptive TCP's loss window, Eq. (2) (cc = "adaptive").
    pub adaptive_loss_window: AdaptiveLossWindow,
    /// slope | ratio: Adaptive TCP's K(n) and ssthresh(adv), Eqs. (5)–(6) (cc = "adaptive").
    pub adaptive_advance: AdaptiveAdvance,
    /// detection | recovery_end: where Adaptive TCP's slot starts (cc = "adaptive").
    pub adaptive_slot_start: AdaptiveSlotStart,
    /// backed_off | same_segment: which of Adaptive TCP's timeouts are serial (cc = "adaptive").
    pub adaptive_serial_timeout: AdaptiveSerialTimeout,
    /// RFC 6298 (2.1): RTO before any sample.
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub rto_initial: SimTime,
    /// RFC 6298 (2.4): lower bound (1 s SHOULD; ns-2 and Linux use 0.2 s).
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub rto_min: SimTime,
    /// RFC 6298 (2.5): upper bound (≥ 60 s).
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub rto_max: SimTime,
    /// RFC 6298 (5.7): RTO once data starts if the SYN timed out.
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub rto_after_syn_timeout: SimTime,
    /// Clock granularity G of RFC 6298 (2.2); with rto_rule = "ns2" the tick RTTs are counted in
    /// (ns-2's tcpTick_).
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub clock_granularity: SimTime,
    /// When non-zero, every timer fires on the next multiple of this tick (BSD's 500 ms slow
    /// timer, OPNET's 0.5 s granularity). ns-2's timers fire at their exact time: its tcpTick_
    /// is `clock_granularity` under rto_rule = "ns2".
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub timer_tick: SimTime,
    /// Consecutive RTO expiries for the same data after which the connection aborts (RFC 1122
    /// §4.2.3.5 R2; OPNET's "retransmission threshold"). Applies to SYN retries too.
    pub max_retransmissions: u32,
    /// Persist timer bounds (RFC 1122 §4.2.2.17); the interval starts at the RTO and doubles.
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub persist_min: SimTime,
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub persist_max: SimTime,
    /// Receive buffer (the advertised window when the application reads at once; 1 B to 1 GiB).
    #[serde(with = "size_u64")]
    #[schemars(with = "Size")]
    pub rcv_buf: u64,
    /// Receive-buffer autotuning (Linux's tcp_moderate_rcvbuf, Dynamic Right-Sizing): the window
    /// starts at `rcv_buf` and grows to twice the data delivered per round trip.
    pub rcv_buf_autotune: bool,
    /// The largest buffer autotuning may reach (Linux's tcp_rmem maximum); half of it is window.
    #[serde(with = "size_u64")]
    #[schemars(with = "Size")]
    pub rcv_buf_max: u64,
    /// RFC 1122 §4.2.3.2 / RFC 5681 §4.2 delayed ACK.
    pub delayed_ack: bool,
    /// Linux's quick-ACK mode: ACK every segment for up to 16 ACKs (the window in MSS/2) at the
    /// start, after an idle gap longer than the RTO and after a duplicate or out-of-window
    /// segment, and every segment that raises the offered window (with `rcv_buf_autotune`).
    pub quickack: bool,
    /// Linux's receive-window growth (rcv_ssthresh): the window starts at `rcv_buf` rounded down
    /// to whole segments and grows two MSS per in-order segment up to what the buffer allows,
    /// counted as the kernel counts it (`rcv_overhead` per segment); with `rcv_buf_autotune` the
    /// buffer grows by the kernel's rule (twice the data of a round trip plus 16 MSS, more when
    /// that data grew), not Dynamic Right-Sizing's.
    pub rcv_wnd_growth: bool,
    /// Memory the receive buffer is charged per segment beyond its payload (Linux's skb truesize
    /// minus the payload); MSS/(MSS + overhead) is the share of the buffer that is window (used
    /// with `rcv_wnd_growth`; 844 B makes the 2304-byte truesize of the validation's TUN device).
    #[serde(with = "size_u64")]
    #[schemars(with = "Size")]
    pub rcv_overhead: u64,
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub ack_delay: SimTime,
    /// Acknowledge at least every `ack_every` in-order segments.
    pub ack_every: u32,
    /// handshake | sender_syn | none: how a flow opens (docs/models/tcp.md "ns-2 profile").
    pub open: OpenMode,
    /// Negotiate SACK-permitted (always on with SACK recovery).
    pub sack: bool,
    /// RFC 7323 timestamps.
    pub timestamps: bool,
    /// RFC 7323 window scaling (used only when the receive buffer exceeds 65535 B).
    pub window_scaling: bool,
    /// RFC 3168 ECN.
    pub ecn: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            profile: Profile::Classic,
            variant: None,
            recovery: None,
            cc: CcKind::Reno,
            vegas: VegasParams::default(),
            veno: VenoParams::default(),
            extensions: Vec::new(),
            atcp: AtcpParams::default(),
            elfn: ElfnParams::default(),
            tcp_f: TcpFParams::default(),
            freeze: FreezeParams::default(),
            mss: 1460,
            initial_window: InitialWindow::Rfc3390,
            initial_ssthresh: None,
            window_unit: WindowUnit::Bytes,
            ca_mode: CaMode::ByteCounting,
            abc_limit: 1,
            dupack_threshold: 3,
            limited_transmit: false,
            full_ack: FullAckCwnd::FlightSize,
            recover_boundary: RecoverBoundary::Inclusive,
            partial_ack_timer: PartialAckTimer::Impatient,
            fast_retransmit_restarts_timer: false,
            rto_ssthresh: RtoSsthresh::KeepInRecovery,
            restart_after_idle: false,
            prr: false,
            tlp: false,
            dsack: false,
            undo: false,
            frto: false,
            timestamp_undo: false,
            rack_after_rto: false,
            rto_rule: RtoRule::Rfc6298,
            cubic_fast_convergence: true,
            cubic_min_growth: false,
            hystart: false,
            hystart_detect: HyStartDetect::Both,
            hystart_low_window: 16,
            hystart_ack_delta: SimTime::from_millis(2),
            westwood_filter: WestwoodFilter::Mascolo,
            adaptive_rtt: AdaptiveRtt::Srtt,
            adaptive_loss_window: AdaptiveLossWindow::Linear,
            adaptive_advance: AdaptiveAdvance::Slope,
            adaptive_slot_start: AdaptiveSlotStart::Detection,
            adaptive_serial_timeout: AdaptiveSerialTimeout::BackedOff,
            rto_initial: SimTime::from_secs(1),
            rto_min: SimTime::from_secs(1),
            rto_max: SimTime::from_secs(60),
            rto_after_syn_timeout: SimTime::from_secs(3),
            clock_granularity: SimTime::from_millis(1),
            timer_tick: SimTime::ZERO,
            max_retransmissions: 15,
            persist_min: SimTime::ZERO,
            persist_max: SimTime::from_secs(60),
            rcv_buf: 65_535,
            rcv_buf_autotune: false,
            rcv_buf_max: 6 << 20,
            delayed_ack: true,
            quickack: false,
            rcv_wnd_growth: false,
            rcv_overhead: 844,
            ack_delay: SimTime::from_millis(200),
            ack_every: 2,
            open: OpenMode::Handshake,
            sack: false,
            timestamps: false,
            window_scaling: true,
            ecn: false,
        }
    }
}

impl TcpConfig {
    /// The defaults of a profile (what a table with only `profile = ...` resolves to).
    pub fn profile_defaults(p: Profile) -> TcpConfig {
        match p {
            Profile::Classic => TcpConfig::default(),
            Profile::Linux => TcpConfig::linux(),
            Profile::Ns2 => TcpConfig::ns2(),
        }
    }

    /// ns-2.35's Agent/TCP and TCPSink defaults, read from its tcl/lib/ns-default.tcl and
    /// tcp.cc (docs/models/tcp.md "ns-2 profile"). `variant` picks the agent: newreno
    /// (Agent/TCP/Newreno, the default here), reno (Agent/TCP/Reno), sack (Agent/TCP/Sack1).
    pub fn ns2() -> TcpConfig {
        TcpConfig {
            profile: Profile::Ns2,
            // packetSize_ 1000; windows counted in packets, cwnd_ += 1/cwnd_ per ACK
            // (windowOption_ 1), ssthresh = max(⌊min(cwnd_, window_)/2⌋, 2) (slowdown).
            mss: 1000,
            window_unit: WindowUnit::Segments,
            ca_mode: CaMode::PerAck,
            // windowInit_ 2; tcp.cc reset(): ssthresh_ = window_.
            initial_window: InitialWindow::Segments(2),
            initial_ssthresh: Some(20 * 1000),
            // window_ 20 packets, the receiver's window. ns-2's window_ is a bare packet count
            // with no 16-bit field: a window_ above 64 KiB is carried whole, the one-way start
            // agreeing the scale from both ends' configurations (no scale below 64 KiB).
            rcv_buf: 20 * 1000,
            window_scaling: true,
            // numdupacks_ 3; singledup_ 1 (a new packet on each of the first two dupacks).
            dupack_threshold: 3,
            limited_transmit: true,
            // Agent/TCP/Newreno: newreno_changes1_ 1 (timer reset on the first partial ACK only),
            // partial_window_deflation_ 1 (RFC 6582's deflation), exit_recovery_fix_ 0 (cwnd =
            // ssthresh on the full ACK).
            partial_ack_timer: PartialAckTimer::Impatient,
            full_ack: FullAckCwnd::Ssthresh,
            recover_boundary: RecoverBoundary::Inclusive,
            // dupack_action(): reset_rtx_timer(1,0) at every fast retransmit.
            fast_retransmit_restarts_timer: true,
            // tcp.cc timeout(): slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) at every expiry.
            rto_ssthresh: RtoSsthresh::EveryTimeout,
            // tcpTick_ 0.01, minrto_ 0.2, maxrto_ 60, rtxcur_init_ 3.0, rfc2988_ true; ns-2's
            // timers fire at the exact time (no tick alignment).
            rto_rule: RtoRule::Ns2,
            clock_granularity: SimTime::from_millis(10),
            timer_tick: SimTime::ZERO,
            rto_min: SimTime::from_millis(200),
            rto_max: SimTime::from_secs(60),
            rto_initial: SimTime::from_secs(3),
            // ns-2's Agent/TCP never gives up.
            max_retransmissions: u32::MAX,
            // TCPSink: an ACK per packet; timestamps_ false; no ECN.
            delayed_ack: false,
            ack_every: 1,
            timestamps: false,
            ecn: false,
            // syn_ true, delay_growth_ true: a 40-B SYN from the sender first, cwnd_ 1 until
            // its ACK, then windowInit_; no request.
            open: OpenMode::SenderSyn,
            ..TcpConfig::default()
        }
    }

    /// Linux's defaults as its documentation states them (Documentation/networking/ip-sysctl
    /// and the RFCs it implements; docs/models/tcp.md "Linux profile").
    pub fn linux() -> TcpConfig {
        TcpConfig {
            profile: Profile::Linux,
            // tcp_congestion_control = cubic, with its module parameter hystart = 1.
            cc: CcKind::Cubic,
            hystart: true,
            // tcp_recovery = 1: RACK subsumes RFC 6675 on SACK connections; tcp_sack = 1.
            recovery: Some(Variant::Rack),
            sack: true,
            prr: true,
            // tcp_early_retrans = 3: the tail loss probe.
            tlp: true,
            // tcp_fastretrans_alert: in the Loss state a lost retransmission (FLAG_LOST_RETRANS)
            // falls through to tcp_enter_recovery; tcp_rack_reo_timeout enters it on any loss.
            rack_after_rto: true,
            // tcp_dsack = 1; Linux undoes reductions DSACKs show spurious.
            dsack: true,
            undo: true,
            // tcp_frto = 2: F-RTO, SACK-enhanced on SACK connections.
            frto: true,
            // Linux also undoes when timestamps show the original was acknowledged (Eifel).
            timestamp_undo: true,
            // tcp_moderate_rcvbuf = 1 (tcp_rmem maximum 6 MiB).
            rcv_buf_autotune: true,
            // tcp_timestamps = 1; tcp_window_scaling = 1.
            timestamps: true,
            window_scaling: true,
            // RFC 6928 (TCP_INIT_CWND = 10).
            initial_window: InitialWindow::Segments(10),
            // TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s, TCP_RTO_MAX 120 s.
            rto_rule: RtoRule::Linux,
            rto_min: SimTime::from_millis(200),
            rto_initial: SimTime::from_secs(1),
            rto_max: SimTime::from_secs(120),
            // tcp_slow_start_after_idle = 1.
            restart_after_idle: true,
            // Linux counts every SACKed/ACKed segment towards new transmissions in disorder.
            limited_transmit: true,
            // TCP_DELACK_MIN = 40 ms: Linux's delayed-ACK timeout starts there.
            ack_delay: SimTime::from_millis(40),
            // Linux's receiver: quick-ACK mode at the start and while its window grows.
            quickack: true,
            // Linux's receiver: the window starts at the initial window and grows per segment.
            rcv_wnd_growth: true,
            // tcp_cubic: ACKs per segment of growth capped at 20 while no loss is remembered.
            cubic_min_growth: true,
            ..TcpConfig::default()
        }
    }

    /// The window scale this end offers (`window_scaling`; 0 without it): the shift its largest
    /// window needs to fit the 16-bit field (RFC 7323 §2.3), at most 14 (§2.3). Linux picks it
    /// for tcp_rmem's maximum, the largest buffer, all of which could be window.
    pub fn window_shift(&self) -> u8 {
        let largest = match (self.rcv_buf_autotune, self.rcv_wnd_growth) {
            (true, true) => self.rcv_buf.max(self.rcv_buf_max),
            (true, false) => self.rcv_buf.max(self.rcv_buf_max / 2),
            (false, true) => 2 * self.rcv_buf,
            (false, false) => self.rcv_buf,
        };
        let mut s = 0u8;
        while self.window_scaling && (largest >> s) > 65_535 && s < 14 {
            s += 1;
        }
        s
    }

    /// Initial window in bytes (RFC 3390 / RFC 5681 §3.1).
    pub fn initial_window_bytes(&self, mss: u32) -> u64 {
        match self.initial_window {
            InitialWindow::Rfc3390 => (4 * mss as u64).min((2 * mss as u64).max(4380)),
            InitialWindow::Segments(n) => n as u64 * mss as u64,
        }
    }

    /// The loss-recovery scheme: `recovery`, else `variant`, else NewReno (the documented default).
    pub fn recovery_kind(&self) -> Variant {
        self.recovery.or(self.variant).unwrap_or(Variant::NewReno)
    }

    pub fn uses_sack(&self) -> bool {
        self.sack || matches!(self.recovery_kind(), Variant::Sack | Variant::Rack)
    }

    pub fn has(&self, e: ExtensionKind) -> bool {
        self.extensions.contains(&e)
    }

    /// The composition's name as results show it: the recovery scheme alone with Reno's AIMD
    /// ("newreno"), otherwise controller and recovery ("cubic+sack"), then extensions.
    pub fn name(&self) -> String {
        let mut n = match self.cc {
            CcKind::Reno => self.recovery_kind().name().to_string(),
            cc => format!("{}+{}", cc.name(), self.recovery_kind().name()),
        };
        for e in &self.extensions {
            n.push('+');
            n.push_str(e.name());
        }
        n
    }

    /// The configuration with `variant` folded into `recovery` (for resolved scenarios and keys).
    pub fn resolved(&self) -> TcpConfig {
        TcpConfig {
            variant: None,
            recovery: Some(self.recovery_kind()),
            ..self.clone()
        }
    }

    /// Range and consistency checks, as (field, message) pairs in the scenario's words.
    pub fn check(&self) -> Vec<(&'static str, String)> {
        let mut errs = Vec::new();
        if let (Some(v), Some(r)) = (self.variant, self.recovery) {
            if v != r {
                errs.push((
                    "recovery",
                    format!(
                        "'{}' contradicts variant = '{}'; give one of them",
                        r.name(),
                        v.name()
                    ),
                ));
            }
        }
        if let InitialWindow::Segments(0) = self.initial_window {
            errs.push(("initial_window", "must be at least 1 segment".into()));
        }
        if self.mss == 0 || self.mss > 65_495 {
            errs.push((
                "mss",
                format!("{} B is out of range; allowed 1 to 65495 bytes", self.mss),
            ));
        }
        if self.rcv_buf == 0 || self.rcv_buf > (1u64 << 30) {
            errs.push(("rcv_buf", "out of range; allowed 1 B to 1 GiB".into()));
        }
        if self.prr && !matches!(self.recovery_kind(), Variant::Sack | Variant::Rack) {
            errs.push((
                "prr",
                format!(
                    "PRR needs recovery = \"sack\" or \"rack\" (it counts delivered data from SACK), not '{}'",
                    self.recovery_kind().name()
                ),
            ));
        }
        if self.tlp && self.recovery_kind() != Variant::Rack {
            errs.push((
                "tlp",
                format!(
                    "the tail loss probe needs recovery = \"rack\" (RFC 8985 §7 builds on RACK), not '{}'",
                    self.recovery_kind().name()
                ),
            ));
        }
        if self.rack_after_rto && self.recovery_kind() != Variant::Rack {
            errs.push((
                "rack_after_rto",
                format!(
                    "a recovery started by RACK's marks after a timeout needs recovery = \"rack\", not '{}'",
                    self.recovery_kind().name()
                ),
            ));
        }
        if self.rcv_buf_max > (1u64 << 30) {
            errs.push(("rcv_buf_max", "out of range; allowed up to 1 GiB".into()));
        }
        if self.rcv_buf_autotune && self.rcv_buf_max / 2 < self.rcv_buf {
            errs.push((
                "rcv_buf_max",
                format!(
                    "{} B leaves autotuning no room: half of it is window, and rcv_buf is {} B; allowed 2·rcv_buf to 1 GiB",
                    self.rcv_buf_max, self.rcv_buf
                ),
            ));
        }
        if self.rcv_overhead > (1u64 << 20) {
            errs.push((
                "rcv_overhead",
                format!(
                    "{} B is out of range; allowed 0 B to 1 MiB",
                    self.rcv_overhead
                ),
            ));
        }
        if self.hystart && self.cc != CcKind::Cubic {
            errs.push((
                "hystart",
                format!(
                    "HyStart is CUBIC's slow start: it needs cc = \"cubic\", not '{}'",
                    self.cc.name()
                ),
            ));
        }
        if self.dsack && !self.uses_sack() {
            errs.push((
                "dsack",
                "DSACK is carried in SACK blocks: it needs sack = true or recovery = \"sack\" or \"rack\"".into(),
            ));
        }
        if self.undo && !self.dsack {
            errs.push((
                "undo",
                "the undo learns of spurious retransmissions from DSACKs (RFC 3708): it needs dsack = true".into(),
            ));
        }
        if self.timestamp_undo && !self.timestamps {
            errs.push((
                "timestamp_undo",
                "Eifel detection (RFC 3522) reads the timestamp echo: it needs timestamps = true"
                    .into(),
            ));
        }
        for (name, v) in [
            ("abc_limit", self.abc_limit),
            ("dupack_threshold", self.dupack_threshold),
            ("ack_every", self.ack_every),
        ] {
            if v == 0 {
                errs.push((name, "must be at least 1".into()));
            }
        }
        if self.rto_min > self.rto_max {
            errs.push(("rto_min", "must not exceed rto_max".into()));
        }
        if matches!(self.rto_rule, RtoRule::Ns2 | RtoRule::Ns2PreRfc2988)
            && self.clock_granularity.0 == 0
        {
            errs.push((
                "clock_granularity",
                "ns-2's RTO counts ticks of clock_granularity (tcpTick_): it must be positive"
                    .into(),
            ));
        }
        if self.rto_initial.0 == 0 {
            errs.push(("rto_initial", "must be positive".into()));
        }
        if self.persist_min > self.persist_max {
            errs.push(("persist_min", "must not exceed persist_max".into()));
        }
        let mut seen = Vec::new();
        for e in &self.extensions {
            if seen.contains(e) {
                errs.push(("extensions", format!("\"{}\" is listed twice", e.name())));
            }
            seen.push(*e);
        }
        self.atcp.check(&mut errs);
        self.elfn.check(&mut errs);
        self.tcp_f.check(&mut errs);
        self.freeze.check(&mut errs);
        self.vegas.check(&mut errs);
        self.veno.check(&mut errs);
        errs
    }
}

/// Serde adapters from the scenario's unit strings to the core's plain numbers.
pub(crate) mod dur {
    use super::*;
    pub fn serialize<S: serde::Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
        Duration(*t).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SimTime, D::Error> {
        Ok(Duration::deserialize(d)?.0)
    }
}

mod size_u64 {
    use super::*;
    pub fn serialize<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        Size(*v).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        Ok(Size::deserialize(d)?.0)
    }
}

mod size_u32 {
    use super::*;
    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        Size(*v as u64).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let v = Size::deserialize(d)?.0;
        u32::try_from(v).map_err(|_| serde::de::Error::custom(format!("{v} B is too large")))
    }
}

mod opt_size {
    use super::*;
    pub fn serialize<S: serde::Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Size).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        Ok(Option::<Size>::deserialize(d)?.map(|s| s.0))
    }
}

mod initial_window {
    use super::*;

    /// "rfc3390" or a number of segments.
    #[derive(Deserialize, Serialize, JsonSchema)]
    #[serde(untagged)]
    pub enum Spec {
        Segments(u32),
        Named(String),
    }

    pub fn serialize<S: serde::Serializer>(v: &InitialWindow, s: S) -> Result<S::Ok, S::Error> {
        match v {
            InitialWindow::Rfc3390 => Spec::Named("rfc3390".into()),
            InitialWindow::Segments(n) => Spec::Segments(*n),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<InitialWindow, D::Error> {
        match Spec::deserialize(d)
            .map_err(|_| serde::de::Error::custom("expected \"rfc3390\" or a number of segments"))?
        {
            Spec::Segments(n) => Ok(InitialWindow::Segments(n)),
            Spec::Named(n) if n == "rfc3390" => Ok(InitialWindow::Rfc3390),
            Spec::Named(n) => Err(serde::de::Error::custom(format!(
                "'{n}' is not allowed; use \"rfc3390\" or a number of segments"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields `check` refuses in `c`, in order.
    fn refused(c: TcpConfig) -> Vec<&'static str> {
        c.check().into_iter().map(|e| e.0).collect()
    }

    /// Each range at its bounds: allowed at the bound, refused one step past it, naming the
    /// scenario's field.
    #[test]
    fn each_range_is_checked_at_its_bounds() {
        let d = TcpConfig::default;
        assert!(refused(d()).is_empty());
        for (mss, ok) in [(0, false), (1, true), (65_495, true), (65_496, false)] {
            assert_eq!(
                refused(TcpConfig { mss, ..d() }).is_empty(),
                ok,
                "mss {mss}"
            );
        }
        for (rcv_buf, ok) in [
            (0, false),
            (1, true),
            (1 << 30, true),
            ((1 << 30) + 1, false),
        ] {
            let c = TcpConfig { rcv_buf, ..d() };
            assert_eq!(refused(c) == ["rcv_buf"], !ok, "rcv_buf {rcv_buf}");
        }
        let max = |rcv_buf_max| TcpConfig { rcv_buf_max, ..d() };
        assert!(refused(max(1 << 30)).is_empty());
        assert_eq!(refused(max((1 << 30) + 1)), ["rcv_buf_max"]);
        // Autotuning needs half of rcv_buf_max to be at least rcv_buf.
        let tuned = |rcv_buf_max| TcpConfig {
            rcv_buf_autotune: true,
            rcv_buf: 1000,
            rcv_buf_max,
            ..d()
        };
        assert!(refused(tuned(2000)).is_empty());
        assert_eq!(refused(tuned(1999)), ["rcv_buf_max"]);
        let overhead = |rcv_overhead| TcpConfig {
            rcv_overhead,
            ..d()
        };
        assert!(refused(overhead(1 << 20)).is_empty());
        assert_eq!(refused(overhead((1 << 20) + 1)), ["rcv_overhead"]);
        let iw = |n| TcpConfig {
            initial_window: InitialWindow::Segments(n),
            ..d()
        };
        assert_eq!(
            (refused(iw(0)), refused(iw(1))),
            (vec!["initial_window"], vec![])
        );
        let ms = SimTime::from_millis;
        // A minimum may equal its maximum, not exceed it.
        type Bounds = fn(SimTime, SimTime) -> TcpConfig;
        let bounds: [(&str, Bounds); 2] = [
            ("rto_min", |rto_min, rto_max| TcpConfig {
                rto_min,
                rto_max,
                ..TcpConfig::default()
            }),
            ("persist_min", |persist_min, persist_max| TcpConfig {
                persist_min,
                persist_max,
                ..TcpConfig::default()
            }),
        ];
        for (field, set) in bounds {
            assert!(refused(set(ms(500), ms(500))).is_empty(), "{field}");
            assert_eq!(refused(set(ms(501), ms(500))), [field]);
        }
        assert_eq!(
            refused(TcpConfig {
                rto_initial: SimTime::ZERO,
                ..d()
            }),
            ["rto_initial"]
        );
        let zeros = TcpConfig {
            abc_limit: 0,
            dupack_threshold: 0,
            ack_every: 0,
            ..d()
        };
        assert_eq!(
            refused(zeros),
            ["abc_limit", "dupack_threshold", "ack_every"]
        );
    }

    /// The consistency rules: one recovery scheme; PRR on SACK or RACK, TLP on RACK; HyStart
    /// with CUBIC; DSACK with SACK, the undo with DSACK, Eifel with timestamps; an extension
    /// listed once; the extensions' own ranges.
    #[test]
    fn each_consistency_rule_names_its_field() {
        let d = TcpConfig::default;
        let rec = |recovery| TcpConfig {
            recovery: Some(recovery),
            ..d()
        };
        let both = TcpConfig {
            variant: Some(Variant::Sack),
            ..rec(Variant::Sack)
        };
        assert!(refused(both).is_empty());
        let clash = TcpConfig {
            variant: Some(Variant::Reno),
            ..rec(Variant::Sack)
        };
        assert_eq!(refused(clash), ["recovery"]);
        for (recovery, prr, tlp) in [
            (Variant::NewReno, false, false),
            (Variant::Sack, true, false),
            (Variant::Rack, true, true),
        ] {
            let c = TcpConfig {
                prr: true,
                ..rec(recovery)
            };
            assert_eq!(refused(c).is_empty(), prr, "prr with {recovery:?}");
            let c = TcpConfig {
                tlp: true,
                ..rec(recovery)
            };
            assert_eq!(refused(c).is_empty(), tlp, "tlp with {recovery:?}");
        }
        let hystart = |cc| TcpConfig {
            hystart: true,
            cc,
            ..d()
        };
        assert!(refused(hystart(CcKind::Cubic)).is_empty());
        assert_eq!(refused(hystart(CcKind::Reno)), ["hystart"]);
        let dsack = |sack, recovery| TcpConfig {
            dsack: true,
            sack,
            recovery,
            ..d()
        };
        assert!(refused(dsack(true, None)).is_empty());
        assert!(refused(dsack(false, Some(Variant::Rack))).is_empty());
        assert_eq!(refused(dsack(false, None)), ["dsack"]);
        assert_eq!(refused(TcpConfig { undo: true, ..d() }), ["undo"]);
        let undo = TcpConfig {
            undo: true,
            ..dsack(true, None)
        };
        assert!(refused(undo).is_empty());
        let eifel = |timestamps| TcpConfig {
            timestamp_undo: true,
            timestamps,
            ..d()
        };
        assert_eq!(
            (refused(eifel(false)), refused(eifel(true))),
            (vec!["timestamp_undo"], vec![])
        );
        let ext = |extensions| TcpConfig { extensions, ..d() };
        use ExtensionKind::*;
        assert!(refused(ext(vec![Atcp, DupCount])).is_empty());
        assert_eq!(refused(ext(vec![Atcp, DupCount, Atcp])), ["extensions"]);
        let elfn = TcpConfig {
            elfn: ElfnParams {
                probe_interval: SimTime::ZERO,
            },
            ..d()
        };
        assert_eq!(refused(elfn), ["elfn.probe_interval"]);
    }

    /// RFC 3390's initial window min(4·SMSS, max(2·SMSS, 4380 B)) in each of its three regions,
    /// and a fixed number of segments.
    #[test]
    fn the_initial_window() {
        let rfc = TcpConfig::default();
        assert_eq!(rfc.initial_window_bytes(1000), 4000);
        assert_eq!(rfc.initial_window_bytes(1460), 4380);
        assert_eq!(rfc.initial_window_bytes(2500), 5000);
        let ten = TcpConfig {
            initial_window: InitialWindow::Segments(10),
            ..rfc
        };
        assert_eq!(ten.initial_window_bytes(1460), 14_600);
    }

    /// `recovery` wins over `variant`, NewReno without either; SACK is on with `sack` or a
    /// SACK-based scheme; names as results show them; `resolved` folds the variant in.
    #[test]
    fn recovery_sack_names_and_resolution() {
        let d = TcpConfig::default;
        assert_eq!(d().recovery_kind(), Variant::NewReno);
        let v = TcpConfig {
            variant: Some(Variant::Reno),
            ..d()
        };
        assert_eq!(v.recovery_kind(), Variant::Reno);
        let both = TcpConfig {
            recovery: Some(Variant::Sack),
            ..v.clone()
        };
        assert_eq!(both.recovery_kind(), Variant::Sack);
        assert!(both.uses_sack() && !v.uses_sack());
        assert!(TcpConfig { sack: true, ..d() }.uses_sack());
        let r = v.resolved();
        assert_eq!((r.variant, r.recovery), (None, Some(Variant::Reno)));
        assert_eq!(d().name(), "newreno");
        let composed = TcpConfig {
            cc: CcKind::Westwood,
            recovery: Some(Variant::Rack),
            extensions: vec![ExtensionKind::TcpF, ExtensionKind::AckPiggyback],
            ..d()
        };
        assert_eq!(composed.name(), "westwood+rack+tcp_f+ack_piggyback");
        assert!(composed.has(ExtensionKind::TcpF) && !composed.has(ExtensionKind::Atcp));
        let names = |cc: CcKind, v: Variant, e: ExtensionKind| [cc.name(), v.name(), e.name()];
        assert_eq!(
            names(CcKind::Adaptive, Variant::Sack, ExtensionKind::DupCount),
            ["adaptive", "sack", "dup_count"]
        );
        assert_eq!(
            names(CcKind::Cubic, Variant::NewReno, ExtensionKind::Atcp),
            ["cubic", "newreno", "atcp"]
        );
        assert_eq!(
            names(CcKind::Reno, Variant::Rack, ExtensionKind::Elfn),
            ["reno", "rack", "elfn"]
        );
        assert_eq!(ExtensionKind::Freeze.name(), "freeze");
        assert_eq!(Variant::Reno.name(), "reno");
    }

    /// The ns-2 profile sets each value docs/models/tcp.md lists for it (ns-2.35's
    /// ns-default.tcl and tcp.cc), and is what `profile = "ns2"` resolves to.
    #[test]
    fn the_ns2_profile_sets_each_documented_value() {
        let n = TcpConfig::profile_defaults(Profile::Ns2);
        assert_eq!(n, TcpConfig::ns2());
        let ms = SimTime::from_millis;
        assert_eq!(
            (n.mss, n.initial_window, n.initial_ssthresh, n.rcv_buf),
            (1000, InitialWindow::Segments(2), Some(20_000), 20_000)
        );
        assert_eq!(
            (n.window_unit, n.ca_mode, n.dupack_threshold, n.ack_every),
            (WindowUnit::Segments, CaMode::PerAck, 3, 1)
        );
        assert_eq!(
            (n.rto_rule, n.rto_ssthresh, n.open, n.recovery_kind()),
            (
                RtoRule::Ns2,
                RtoSsthresh::EveryTimeout,
                OpenMode::SenderSyn,
                Variant::NewReno
            )
        );
        assert_eq!(
            (
                n.clock_granularity,
                n.timer_tick,
                n.rto_min,
                n.rto_max,
                n.rto_initial
            ),
            (ms(10), SimTime::ZERO, ms(200), ms(60_000), ms(3000))
        );
        assert_eq!(
            (n.full_ack, n.partial_ack_timer, n.max_retransmissions),
            (FullAckCwnd::Ssthresh, PartialAckTimer::Impatient, u32::MAX)
        );
        // window_scaling: agreed at a one-way start, and no scale at window_ 20 (below 64 KiB).
        let on = [
            n.limited_transmit,
            n.window_scaling,
            n.fast_retransmit_restarts_timer,
        ];
        let off = [
            n.delayed_ack,
            n.timestamps,
            n.sack,
            n.ecn,
            n.restart_after_idle,
        ];
        assert_eq!((on, off), ([true; 3], [false; 5]));
        assert!(n.check().is_empty());
        // The tick must be positive under ns-2's rule.
        let zero = TcpConfig {
            clock_granularity: SimTime::ZERO,
            ..TcpConfig::ns2()
        };
        assert_eq!(refused(zero), ["clock_granularity"]);
    }

    /// `hystart_detect`: both tests, or one of them.
    #[test]
    fn hystart_detect_selects_the_tests() {
        let tests = |d: HyStartDetect| (d.ack_train(), d.delay());
        assert_eq!(tests(HyStartDetect::Both), (true, true));
        assert_eq!(tests(HyStartDetect::AckTrain), (true, false));
        assert_eq!(tests(HyStartDetect::Delay), (false, true));
    }

    /// The Linux profile sets each value docs/models/tcp.md lists for it (ip-sysctl's defaults
    /// and the kernel's constants), and is what `profile = "linux"` resolves to. (Two of them,
    /// window scaling and the 1 s initial RTO, are also the classic defaults.)
    #[test]
    fn the_linux_profile_sets_each_documented_value() {
        let l = TcpConfig::profile_defaults(Profile::Linux);
        assert_eq!(l, TcpConfig::linux());
        assert_eq!(
            TcpConfig::profile_defaults(Profile::Classic),
            TcpConfig::default()
        );
        assert_eq!(
            (l.profile, l.cc, l.recovery),
            (Profile::Linux, CcKind::Cubic, Some(Variant::Rack))
        );
        let switches = [
            l.hystart,
            l.sack,
            l.prr,
            l.tlp,
            l.dsack,
            l.undo,
            l.frto,
            l.timestamp_undo,
            l.rcv_buf_autotune,
            l.timestamps,
            l.window_scaling,
            l.restart_after_idle,
            l.limited_transmit,
            l.quickack,
            l.rcv_wnd_growth,
            l.cubic_min_growth,
        ];
        assert_eq!(switches, [true; 16]);
        let ms = SimTime::from_millis;
        assert_eq!(
            (
                l.initial_window,
                l.rto_rule,
                l.rto_min,
                l.rto_initial,
                l.rto_max,
                l.ack_delay
            ),
            (
                InitialWindow::Segments(10),
                RtoRule::Linux,
                ms(200),
                ms(1000),
                ms(120_000),
                ms(40)
            )
        );
        assert!(l.check().is_empty());
    }
}
