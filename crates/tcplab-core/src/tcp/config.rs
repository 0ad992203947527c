//! TCP parameters. Every constant of the RFCs is a field here, with the RFC default in
//! `Default`; scenarios override any of them.

use crate::time::SimTime;

/// Loss-recovery algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 5681 fast retransmit / fast recovery (exits on the first new ACK).
    Reno,
    /// RFC 6582 NewReno (partial ACKs keep recovery going).
    NewReno,
    /// RFC 6675 SACK-based recovery with RFC 2018 SACK blocks.
    Sack,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// RFC 3390: min(4·SMSS, max(2·SMSS, 4380 B)) — eq. (1) of seed 000.
    Rfc3390,
    /// A fixed number of segments.
    Segments(u32),
}

/// How cwnd is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowUnit {
    /// Bytes, as the RFCs specify (RFC 5681 §3.1).
    Bytes,
    /// Whole segments, as ns-2's Agent/TCP does: +1 per new ACK in slow start, +1/cwnd per new
    /// ACK in congestion avoidance, ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) on loss.
    Segments,
}

/// Congestion-avoidance increase rule (RFC 5681 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaMode {
    /// Appropriate byte counting: +SMSS once a full cwnd of bytes has been acknowledged (RFC 3465 §2.1).
    ByteCounting,
    /// cwnd += SMSS·SMSS/cwnd per ACK (RFC 5681 eq. 3).
    PerAck,
}

/// cwnd on leaving NewReno fast recovery with a full ACK (RFC 6582 §3.2 step 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAckCwnd {
    /// Option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS).
    FlightSize,
    /// Option (2): ssthresh.
    Ssthresh,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Sender maximum segment size (payload bytes).
    pub mss: u32,
    pub initial_window: InitialWindow,
    /// Initial ssthresh in bytes; None = "arbitrarily high" (RFC 5681 §3.1).
    pub initial_ssthresh: Option<u64>,
    pub window_unit: WindowUnit,
    pub ca_mode: CaMode,
    /// L of RFC 3465: slow start grows by at most L·SMSS per ACK. RFC 5681 uses 1.
    pub abc_limit: u32,
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    pub full_ack: FullAckCwnd,
    /// RFC 6298 (2.1): RTO before any sample.
    pub rto_initial: SimTime,
    /// RFC 6298 (2.4): lower bound (1 s SHOULD; ns-2 and Linux use 0.2 s).
    pub rto_min: SimTime,
    /// RFC 6298 (2.5): upper bound (≥ 60 s).
    pub rto_max: SimTime,
    /// RFC 6298 (5.7): RTO once data starts if the SYN timed out.
    pub rto_after_syn_timeout: SimTime,
    /// Clock granularity G of RFC 6298 (2.2).
    pub clock_granularity: SimTime,
    /// When non-zero, every timer fires on the next multiple of this tick (BSD's 500 ms slow
    /// timer, OPNET's 0.5 s granularity, ns-2's tcpTick).
    pub timer_tick: SimTime,
    /// Consecutive RTO expiries for the same data after which the connection aborts (RFC 1122
    /// §4.2.3.5 R2; OPNET's "retransmission threshold"). Applies to SYN retries too.
    pub max_retransmissions: u32,
    /// Persist timer bounds (RFC 1122 §4.2.2.17); the interval starts at the RTO and doubles.
    pub persist_min: SimTime,
    pub persist_max: SimTime,
    /// Receive buffer in bytes (the advertised window when the application reads at once).
    pub rcv_buf: u64,
    /// RFC 1122 §4.2.3.2 / RFC 5681 §4.2 delayed ACK.
    pub delayed_ack: bool,
    pub ack_delay: SimTime,
    /// Acknowledge at least every `ack_every` in-order segments.
    pub ack_every: u32,
    /// Negotiate SACK-permitted (always on for `Variant::Sack`).
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
            variant: Variant::NewReno,
            mss: 1460,
            initial_window: InitialWindow::Rfc3390,
            initial_ssthresh: None,
            window_unit: WindowUnit::Bytes,
            ca_mode: CaMode::ByteCounting,
            abc_limit: 1,
            dupack_threshold: 3,
            limited_transmit: false,
            full_ack: FullAckCwnd::FlightSize,
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
            delayed_ack: true,
            ack_delay: SimTime::from_millis(200),
            ack_every: 2,
            sack: false,
            timestamps: false,
            window_scaling: true,
            ecn: false,
        }
    }
}

impl TcpConfig {
    /// Initial window in bytes (RFC 3390 / RFC 5681 §3.1).
    pub fn initial_window_bytes(&self, mss: u32) -> u64 {
        match self.initial_window {
            InitialWindow::Rfc3390 => (4 * mss as u64).min((2 * mss as u64).max(4380)),
            InitialWindow::Segments(n) => n as u64 * mss as u64,
        }
    }

    pub fn uses_sack(&self) -> bool {
        self.sack || self.variant == Variant::Sack
    }
}
