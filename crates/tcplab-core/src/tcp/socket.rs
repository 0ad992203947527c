//! One TCP connection end: the RFC 9293 state machine with RFC 5681/6582/6675 congestion control
//! and loss recovery, RFC 6298 timers, persist (RFC 1122 §4.2.2.17) and delayed ACK.
//!
//! Both directions live in one struct because real connections are bidirectional: the bulk client
//! sends a request and then only acknowledges; the server acknowledges the request and then sends
//! the file.

use std::fmt;

use super::config::{CaMode, FullAckCwnd, TcpConfig, Variant, WindowUnit};
use super::reassembly::Reassembly;
use super::rtt::RttEstimator;
use super::scoreboard::{NextSeg, Scoreboard};
use crate::packet::{TcpFlags, TcpHeader};
use crate::time::SimTime;

/// RFC 9293 §3.3.2 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            State::Closed => "CLOSED",
            State::Listen => "LISTEN",
            State::SynSent => "SYN-SENT",
            State::SynReceived => "SYN-RECEIVED",
            State::Established => "ESTABLISHED",
            State::FinWait1 => "FIN-WAIT-1",
            State::FinWait2 => "FIN-WAIT-2",
            State::CloseWait => "CLOSE-WAIT",
            State::Closing => "CLOSING",
            State::LastAck => "LAST-ACK",
            State::TimeWait => "TIME-WAIT",
        };
        f.write_str(s)
    }
}

/// A segment the socket wants sent. The caller wraps it in IP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub hdr: TcpHeader,
    pub payload: u32,
    /// ECN-capable transport (RFC 3168 §6.1.1): the IP header carries ECT(0).
    pub ect: bool,
}

/// Per-connection counters. Always on; each costs one add.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Segments carrying data sent, retransmissions included (window probes excluded).
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub timeout_retransmissions: u64,
    pub fast_retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub window_probes: u64,
    pub acks_sent: u64,
    pub dupacks_received: u64,
    /// Data segments received that held nothing new (the receiver already had every byte).
    pub duplicate_segments_received: u64,
    pub ecn_reductions: u64,
}

/// Congestion window arithmetic in bytes or in ns-2-style segments.
#[derive(Clone, Debug)]
struct Cwnd {
    unit: WindowUnit,
    ca_mode: CaMode,
    abc_limit: u64,
    mss: u64,
    /// cwnd in bytes; fractional only in segment mode (ns-2's cwnd_ is a double).
    cwnd: f64,
    ssthresh: u64,
    /// Bytes acknowledged towards the next congestion-avoidance increment (RFC 3465).
    ca_acked: u64,
}

impl Cwnd {
    /// The usable window in bytes.
    fn window(&self) -> u64 {
        match self.unit {
            WindowUnit::Bytes => self.cwnd as u64,
            // ns-2 uses int(cwnd_) segments.
            WindowUnit::Segments => {
                (self.cwnd / self.mss as f64).floor().max(1.0) as u64 * self.mss
            }
        }
    }

    fn set(&mut self, bytes: u64) {
        self.cwnd = bytes as f64;
        self.ca_acked = 0;
    }

    fn in_slow_start(&self) -> bool {
        (self.cwnd as u64) < self.ssthresh
    }

    /// Growth on an ACK of `acked` new bytes outside recovery.
    fn on_ack(&mut self, acked: u64) {
        match self.unit {
            WindowUnit::Bytes => {
                if self.in_slow_start() {
                    // RFC 5681 §3.1 eq. 2 with RFC 3465's limit L.
                    self.cwnd += acked.min(self.abc_limit * self.mss) as f64;
                } else {
                    match self.ca_mode {
                        // RFC 5681 §3.1 / RFC 3465 §2.1: +SMSS per cwnd of acknowledged bytes.
                        CaMode::ByteCounting => {
                            self.ca_acked += acked;
                            let w = self.cwnd as u64;
                            if self.ca_acked >= w {
                                self.ca_acked -= w;
                                self.cwnd += self.mss as f64;
                            }
                        }
                        // RFC 5681 §3.1 eq. 3: cwnd += SMSS·SMSS/cwnd, at least one byte.
                        CaMode::PerAck => {
                            let inc = (self.mss * self.mss / (self.cwnd as u64).max(1)).max(1);
                            self.cwnd += inc as f64;
                        }
                    }
                }
            }
            WindowUnit::Segments => {
                // ns-2 Agent/TCP opencwnd(): +1 segment per ACK in slow start, +1/cwnd after.
                let segs = self.cwnd / self.mss as f64;
                if self.in_slow_start() {
                    self.cwnd += self.mss as f64;
                } else {
                    self.cwnd += self.mss as f64 / segs;
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cause {
    Timeout,
    Fast,
}

/// Loss-recovery episode in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recovery {
    /// Reno/NewReno fast recovery; `partial_seen` for RFC 6582's first-partial-ACK timer rule.
    Fast { partial_seen: bool },
    /// RFC 6675 loss recovery.
    Sack,
}

pub struct Socket {
    cfg: TcpConfig,
    state: State,
    pub local_port: u16,
    pub remote_port: u16,
    mss: u64,

    // ---- send side (RFC 9293 §3.3.1 names) ----
    iss: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// One past the highest sequence number sent (HighData + 1).
    snd_max: u64,
    snd_wnd: u64,
    max_snd_wnd: u64,
    snd_wl1: u64,
    snd_wl2: u64,
    /// The window field of the last segment received (RFC 5681 §2 duplicate-ACK rule (e)).
    last_peer_wnd_field: u16,
    snd_shift: u8,
    snd_shift_offered: bool,
    /// Bytes the application has handed over; `None` = unlimited.
    app_limit: Option<u64>,
    fin_queued: bool,
    cc: Cwnd,
    dupacks: u32,
    recovery: Option<Recovery>,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint: highest sequence number sent at entry.
    recover: u64,
    sb: Scoreboard,
    /// RFC 6675 HighRxt (exclusive end of the highest retransmitted range).
    high_rxt: u64,
    rescue_rxt: Option<u64>,
    rtt: RttEstimator,
    /// Segment being timed without timestamps: (end sequence, send time).
    rtt_timing: Option<(u64, SimTime)>,
    consecutive_timeouts: u32,
    /// Timeouts since the peer last answered: the abort counter. Unlike `consecutive_timeouts` it
    /// also resets when a zero-window ACK answers a retransmission (RFC 1122 §4.2.2.17).
    unanswered_timeouts: u32,
    syn_retries: u32,
    syn_timed_out: bool,
    persist_backoff: u32,
    probe_end: u64,

    // ---- timers (absolute deadlines; the engine is woken at the earliest) ----
    rto_at: Option<SimTime>,
    persist_at: Option<SimTime>,
    delack_at: Option<SimTime>,

    // ---- options ----
    sack_on: bool,
    ts_on: bool,
    ts_recent: u32,
    last_ack_sent: u64,
    /// Right edge of the window advertised in the last ACK sent (RCV.NXT + RCV.WND).
    rcv_adv_edge: u64,
    ecn_on: bool,
    ece_pending: bool,
    cwr_pending: bool,
    ecn_recover: u64,

    // ---- receive side ----
    irs: u64,
    rcv_nxt: u64,
    rcv_shift: u8,
    reasm: Reassembly,
    /// In-order bytes not yet read by the application.
    unread: u64,
    pub auto_read: bool,
    delack_pending: u32,
    fin_rcvd: bool,
    /// Sequence number of a FIN that arrived out of order.
    fin_pending: Option<u64>,

    // ---- towards the application ----
    delivered: u64,
    connected_at: Option<SimTime>,
    aborted: bool,
    pub stats: TcpStats,
}

const UNLIMITED: u64 = u64::MAX / 4;

impl Socket {
    pub fn new(cfg: TcpConfig, local_port: u16, remote_port: u16, iss: u64) -> Socket {
        let mss = cfg.mss as u64;
        let rtt = RttEstimator::new(
            cfg.rto_initial,
            cfg.rto_min,
            cfg.rto_max,
            cfg.clock_granularity,
        );
        let cc = Cwnd {
            unit: cfg.window_unit,
            ca_mode: cfg.ca_mode,
            abc_limit: cfg.abc_limit.max(1) as u64,
            mss,
            cwnd: cfg.initial_window_bytes(cfg.mss) as f64,
            ssthresh: cfg.initial_ssthresh.unwrap_or(UNLIMITED),
            ca_acked: 0,
        };
        let rcv_shift = if cfg.window_scaling && cfg.rcv_buf > 65_535 {
            let mut s = 0u8;
            while (cfg.rcv_buf >> s) > 65_535 && s < 14 {
                s += 1;
            }
            s
        } else {
            0
        };
        Socket {
            state: State::Closed,
            local_port,
            remote_port,
            mss,
            iss,
            snd_una: iss,
            snd_nxt: iss,
            snd_max: iss,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            last_peer_wnd_field: 0,
            snd_shift: 0,
            snd_shift_offered: false,
            app_limit: Some(0),
            fin_queued: false,
            cc,
            dupacks: 0,
            recovery: None,
            recover: iss,
            sb: Scoreboard::default(),
            high_rxt: iss,
            rescue_rxt: None,
            rtt,
            rtt_timing: None,
            consecutive_timeouts: 0,
            unanswered_timeouts: 0,
            syn_retries: 0,
            syn_timed_out: false,
            persist_backoff: 0,
            probe_end: 0,
            rto_at: None,
            persist_at: None,
            delack_at: None,
            sack_on: false,
            ts_on: false,
            ts_recent: 0,
            last_ack_sent: 0,
            rcv_adv_edge: 0,
            ecn_on: false,
            ece_pending: false,
            cwr_pending: false,
            ecn_recover: iss,
            irs: 0,
            rcv_nxt: 0,
            rcv_shift,
            reasm: Reassembly::default(),
            unread: 0,
            auto_read: true,
            delack_pending: 0,
            fin_rcvd: false,
            fin_pending: None,
            delivered: 0,
            connected_at: None,
            aborted: false,
            stats: TcpStats::default(),
            cfg,
        }
    }

    // ------------------------------------------------------------------ observers

    pub fn state(&self) -> State {
        self.state
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn is_established(&self) -> bool {
        self.connected_at.is_some()
    }
    pub fn connected_at(&self) -> Option<SimTime> {
        self.connected_at
    }
    pub fn aborted(&self) -> bool {
        self.aborted
    }
    /// In-order payload bytes delivered to the application so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    pub fn peer_closed(&self) -> bool {
        self.fin_rcvd
    }
    /// True once our FIN is acknowledged (or the connection is gone).
    pub fn is_closed(&self) -> bool {
        matches!(
            self.state,
            State::Closed | State::TimeWait | State::FinWait2
        )
    }
    pub fn cwnd(&self) -> u64 {
        self.cc.window()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }
    /// Relative sequence numbers (bytes after the SYN), as Wireshark shows them.
    pub fn snd_una_rel(&self) -> u64 {
        self.snd_una.saturating_sub(self.iss + 1)
    }
    pub fn snd_nxt_rel(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.iss + 1)
    }
    pub fn rcv_nxt_rel(&self) -> u64 {
        self.rcv_nxt.saturating_sub(self.irs + 1)
    }
    pub fn in_recovery(&self) -> bool {
        self.recovery.is_some()
    }
    pub fn in_persist(&self) -> bool {
        self.persist_at.is_some()
    }
    pub fn mss(&self) -> u64 {
        self.mss
    }
    /// RFC 6675 SetPipe() on the current scoreboard.
    #[cfg(test)]
    pub(super) fn pipe(&self) -> u64 {
        self.sb.pipe(
            self.snd_una,
            self.snd_max,
            self.high_rxt,
            self.cfg.dupack_threshold,
            self.mss,
        )
    }

    /// The earliest armed timer.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        [self.rto_at, self.persist_at, self.delack_at]
            .into_iter()
            .flatten()
            .min()
    }

    // ------------------------------------------------------------------ application calls

    /// Passive open (RFC 9293 §3.10.1).
    pub fn listen(&mut self) {
        self.set_state(State::Listen);
    }

    /// Active open: sends the SYN.
    pub fn connect(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.set_state(State::SynSent);
        self.snd_nxt = self.iss + 1;
        self.snd_max = self.iss + 1;
        self.send_syn(now, out);
    }

    /// Hands `n` more bytes to the send buffer.
    pub fn write(&mut self, now: SimTime, n: u64, out: &mut Vec<Segment>) {
        if let Some(l) = self.app_limit.as_mut() {
            *l += n;
        }
        self.try_send(now, out);
    }

    /// Makes the send buffer endless (bulk transfer).
    pub fn write_unlimited(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.app_limit = None;
        self.try_send(now, out);
    }

    /// No more data: a FIN follows the last byte (RFC 9293 §3.10.4).
    pub fn shutdown(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.app_limit.is_some() {
            self.fin_queued = true;
            self.try_send(now, out);
        }
    }

    /// The application reads `n` buffered bytes (only when `auto_read` is off).
    pub fn read(&mut self, now: SimTime, n: u64, out: &mut Vec<Segment>) {
        self.unread -= n.min(self.unread);
        // RFC 9293 §3.8.6.2.2 (receiver SWS avoidance): announce the window once it exceeds the
        // last advertised one (RCV.WND) by at least min(RCV.BUFF/2, MSS).
        let advertised = self.rcv_adv_edge.saturating_sub(self.rcv_nxt);
        let step = (self.cfg.rcv_buf / 2).min(self.mss);
        if self.rcv_wnd() >= advertised + step && self.is_established() {
            self.send_ack(now, out);
        }
    }

    // ------------------------------------------------------------------ sequence-space helpers

    /// Exclusive end of the sequence space the application has made available, FIN included.
    fn data_end(&self) -> u64 {
        let d = match self.app_limit {
            None => UNLIMITED,
            Some(n) => self.iss + 1 + n,
        };
        if self.fin_queued {
            d + 1
        } else {
            d
        }
    }

    fn fin_seq(&self) -> Option<u64> {
        match (self.fin_queued, self.app_limit) {
            (true, Some(n)) => Some(self.iss + 1 + n),
            _ => None,
        }
    }

    fn rcv_wnd(&self) -> u64 {
        self.cfg.rcv_buf.saturating_sub(self.unread)
    }

    fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// ssthresh after a loss: RFC 5681 eq. (4), or ns-2's window-based rule in segment mode.
    fn loss_ssthresh(&self) -> u64 {
        match self.cfg.window_unit {
            WindowUnit::Bytes => (self.flight_size() / 2).max(2 * self.mss),
            WindowUnit::Segments => {
                let wnd_segs = self.snd_wnd / self.mss;
                let cw = (self.cc.window() / self.mss).min(wnd_segs.max(1));
                (cw / 2).max(2) * self.mss
            }
        }
    }

    fn set_state(&mut self, s: State) {
        self.state = s;
    }

    fn arm(&self, now: SimTime, after: SimTime) -> SimTime {
        (now + after).round_up_to(self.cfg.timer_tick)
    }

    fn arm_rto(&mut self, now: SimTime) {
        self.rto_at = Some(self.arm(now, self.rtt.rto()));
    }

    fn ts_now(now: SimTime) -> u32 {
        // RFC 7323 §5.4: a 1 ms timestamp clock (offset by one so that 0 is never sent).
        (now.as_millis() as u32).wrapping_add(1)
    }

    fn abort(&mut self) {
        self.aborted = true;
        self.set_state(State::Closed);
        self.rto_at = None;
        self.persist_at = None;
        self.delack_at = None;
    }

    // ------------------------------------------------------------------ output

    fn header(&mut self, now: SimTime, seq: u64, flags: TcpFlags) -> TcpHeader {
        let mut h = TcpHeader::new(
            self.local_port,
            self.remote_port,
            seq,
            self.rcv_nxt,
            flags,
            self.rcv_wnd() as u32,
        );
        if !flags.has(TcpFlags::SYN) {
            h.wscale_applied = self.rcv_shift;
        }
        if self.ts_on {
            h.ts = Some((Self::ts_now(now), self.ts_recent));
        }
        if self.sack_on && !self.reasm.is_empty() {
            // RFC 2018 §3: at most 4 blocks, 3 with the timestamps option.
            let max = if self.ts_on { 3 } else { 4 };
            for (s, e) in self.reasm.sack_blocks(max) {
                h.sack.push(s, e);
            }
        }
        if self.ece_pending && flags.has(TcpFlags::ACK) {
            // RFC 3168 §6.1.3: echo congestion until CWR arrives.
            h.flags.set(TcpFlags::ECE);
        }
        h
    }

    fn emit(&mut self, h: TcpHeader, payload: u32, ect: bool, out: &mut Vec<Segment>) {
        if h.flags.has(TcpFlags::ACK) {
            self.last_ack_sent = self.rcv_nxt;
            self.rcv_adv_edge = self.rcv_nxt + ((h.window_field() as u64) << h.wscale_applied);
            self.delack_at = None;
            self.delack_pending = 0;
            if payload == 0 {
                self.stats.acks_sent += 1;
            }
        }
        out.push(Segment {
            hdr: h,
            payload,
            ect,
        });
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let synack = self.state == State::SynReceived;
        let flags = if synack {
            TcpFlags::SYN | TcpFlags::ACK
        } else {
            TcpFlags::SYN
        };
        let mut h = self.header(now, self.iss, flags);
        h.mss = Some(self.cfg.mss as u16);
        // Offer options on the SYN; on the SYN-ACK only those the peer offered (RFC 7323 §2.2,
        // RFC 2018 §2, RFC 3168 §6.1.1).
        // RFC 7323 §2.2: a SYN-ACK carries the option only if the SYN did.
        if self.cfg.window_scaling && (!synack || self.snd_shift_offered) {
            h.wscale = Some(self.rcv_shift);
        }
        h.sack_permitted = if synack {
            self.sack_on
        } else {
            self.cfg.uses_sack()
        };
        if synack {
            if !self.ts_on {
                h.ts = None;
            }
        } else if self.cfg.timestamps {
            h.ts = Some((Self::ts_now(now), 0));
        }
        if self.cfg.ecn {
            if synack {
                if self.ecn_on {
                    h.flags.set(TcpFlags::ECE);
                }
            } else {
                h.flags.set(TcpFlags::ECE);
                h.flags.set(TcpFlags::CWR);
            }
        }
        self.emit(h, 0, false, out);
        if self.rtt_timing.is_none() && !self.syn_timed_out {
            self.rtt_timing = Some((self.iss + 1, now));
        }
        self.arm_rto(now);
    }

    /// Sends [seq, seq+len) of the sequence space (the FIN counts as the last byte).
    fn send_range(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u64,
        cause: Option<Cause>,
        out: &mut Vec<Segment>,
    ) {
        let fin = self.fin_seq().is_some_and(|f| seq + len == f + 1);
        let payload = (len - fin as u64) as u32;
        let mut flags = TcpFlags::ACK;
        if fin {
            flags.set(TcpFlags::FIN);
        }
        if payload > 0
            && self
                .app_limit
                .is_some_and(|_| seq + len >= self.data_end() - self.fin_queued as u64)
        {
            flags.set(TcpFlags::PSH);
        }
        let retx = seq < self.snd_max;
        if self.cwr_pending && payload > 0 && !retx {
            // RFC 3168 §6.1.2: CWR on the first new data packet after the reduction.
            flags.set(TcpFlags::CWR);
            self.cwr_pending = false;
        }
        let h = self.header(now, seq, flags);
        if payload > 0 {
            self.stats.segments_sent += 1;
            self.stats.bytes_sent += payload as u64;
        }
        // Retransmission counters count data segments only, like `segments_sent` (seed 000 eq. 7
        // divides one by the other); a bare FIN resent is not a data retransmission.
        if retx && payload > 0 {
            self.stats.retransmissions += 1;
            match cause {
                Some(Cause::Timeout) | None => self.stats.timeout_retransmissions += 1,
                Some(Cause::Fast) => self.stats.fast_retransmissions += 1,
            }
            // Karn's algorithm (RFC 6298 §3): a retransmitted segment is never timed.
            if self.rtt_timing.is_some_and(|(end, _)| seq < end) {
                self.rtt_timing = None;
            }
        } else if self.rtt_timing.is_none() && !self.ts_on {
            self.rtt_timing = Some((seq + len, now));
        }
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        let ect = self.ecn_on && payload > 0 && !retx;
        self.emit(h, payload, ect, out);
        self.snd_max = self.snd_max.max(seq + len);
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
        match self.state {
            State::Established if fin => self.set_state(State::FinWait1),
            State::CloseWait if fin => self.set_state(State::LastAck),
            _ => {}
        }
    }

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let h = self.header(now, self.snd_nxt.max(self.snd_una), TcpFlags::ACK);
        self.emit(h, 0, false, out);
    }

    fn can_send_data(&self) -> bool {
        matches!(
            self.state,
            State::Established
                | State::CloseWait
                | State::FinWait1
                | State::Closing
                | State::LastAck
        )
    }

    /// Sends whatever the windows allow.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.can_send_data() {
            return;
        }
        if self.recovery == Some(Recovery::Sack) {
            self.sack_send(now, out);
        } else {
            self.window_send(now, out);
        }
        self.update_persist(now);
    }

    /// Window-limited sending (RFC 5681 §3; go-back-N from snd_nxt after a timeout).
    fn window_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        // RFC 3042: up to two extra segments on the first two duplicate ACKs.
        let lt = if self.cfg.limited_transmit && self.recovery.is_none() {
            self.dupacks.min(2) as u64 * self.mss
        } else {
            0
        };
        let win = (self.cc.window() + lt).min(self.snd_wnd);
        let limit = self.snd_una + win;
        let data_end = self.data_end();
        let fin = self.fin_seq();
        loop {
            let mut s = self.snd_nxt;
            if self.sack_on && s < self.snd_max {
                // Go-back-N skips what the receiver has SACKed (RFC 6675 §5.1).
                s = self.sb.next_unsacked(s).min(self.snd_max.max(s));
                self.snd_nxt = s;
            }
            if s >= data_end {
                break;
            }
            let payload_end = fin.unwrap_or(data_end);
            let mut e = (s + self.mss).min(payload_end);
            if fin.is_some() && e == payload_end {
                e += 1; // the FIN rides on the last segment
            }
            if self.sack_on && s < self.snd_max {
                e = e.min(self.sb.unsacked_run_end(s, self.snd_max).max(s + 1));
            }
            if e > limit {
                // RFC 9293 §3.8.6.2.1 (sender SWS avoidance): a short segment only when nothing is
                // outstanding, so that a window below one MSS cannot stall the connection.
                let usable = limit.saturating_sub(s);
                if usable == 0 || self.snd_una != self.snd_max {
                    break;
                }
                e = s + usable;
            }
            let cause = if s < self.snd_max {
                Some(Cause::Timeout)
            } else {
                None
            };
            self.send_range(now, s, e - s, cause, out);
            self.snd_nxt = e;
        }
    }

    /// RFC 6675 §5 step (C): transmit while cwnd − pipe ≥ 1 SMSS.
    fn sack_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let dt = self.cfg.dupack_threshold;
        let data_end = self.data_end();
        loop {
            let pipe = self
                .sb
                .pipe(self.snd_una, self.snd_max, self.high_rxt, dt, self.mss);
            if self.cc.window() < pipe + self.mss {
                break;
            }
            let new_len = (data_end - self.snd_max.min(data_end)).min(self.mss + 1);
            let can_new =
                new_len > 0 && self.snd_max + new_len.min(self.mss) <= self.snd_una + self.snd_wnd;
            let rescue_ok = self.rescue_rxt.is_none_or(|r| self.snd_una > r + 1);
            match self.sb.next_seg(
                self.snd_una,
                self.snd_max,
                self.high_rxt,
                rescue_ok,
                can_new,
                dt,
                self.mss,
            ) {
                NextSeg::Retransmit { seq, len, rescue } => {
                    self.send_range(now, seq, len, Some(Cause::Fast), out);
                    if rescue {
                        self.rescue_rxt = Some(self.recover);
                    } else {
                        self.high_rxt = self.high_rxt.max(seq + len);
                    }
                }
                NextSeg::New => {
                    let s = self.snd_max;
                    let fin = self.fin_seq();
                    let payload_end = fin.unwrap_or(data_end);
                    let mut e = (s + self.mss).min(payload_end);
                    if fin.is_some() && e == payload_end {
                        e += 1;
                    }
                    self.send_range(now, s, e - s, None, out);
                    self.snd_nxt = self.snd_max;
                }
                NextSeg::Nothing => break,
            }
        }
    }

    /// Arms or clears the persist timer (RFC 1122 §4.2.2.17): a zero window with data waiting and
    /// nothing outstanding.
    fn update_persist(&mut self, now: SimTime) {
        let waiting = self.snd_nxt < self.data_end();
        if self.snd_wnd == 0 && waiting && self.snd_una == self.snd_max && self.can_send_data() {
            if self.persist_at.is_none() {
                let base = self.rtt.rto();
                let iv = base.times(1u64 << self.persist_backoff.min(20));
                let iv = iv.max(self.cfg.persist_min).min(self.cfg.persist_max);
                self.persist_at = Some(self.arm(now, iv));
            }
        } else {
            self.persist_at = None;
            if self.snd_wnd > 0 {
                self.persist_backoff = 0;
            }
        }
    }

    // ------------------------------------------------------------------ timers

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            self.send_ack(now, out);
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_at = None;
            self.on_persist(now, out);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.on_rto(now, out);
        }
    }

    fn on_persist(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.snd_wnd > 0 || self.snd_nxt >= self.data_end() {
            return;
        }
        let seq = self.snd_una;
        if self.fin_seq() == Some(seq) {
            // RFC 9293 §3.8.6.1: only the FIN is left, so the FIN is the probe (no data byte
            // exists to send); from here the retransmission timer covers it.
            self.send_range(now, seq, 1, None, out);
            self.snd_nxt = seq + 1;
            self.stats.window_probes += 1;
            self.update_persist(now);
            return;
        }
        // RFC 9293 §3.8.6.1: probe with one byte of new data beyond the zero window.
        let h = self.header(now, seq, TcpFlags::ACK);
        self.emit(h, 1, false, out);
        self.stats.window_probes += 1;
        self.probe_end = seq + 1;
        // RFC 1122 §4.2.2.17: probe intervals SHOULD grow exponentially.
        self.persist_backoff += 1;
        self.update_persist(now);
    }

    fn on_rto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        match self.state {
            State::SynSent | State::SynReceived => {
                if self.syn_retries >= self.cfg.max_retransmissions {
                    self.abort();
                    return;
                }
                self.syn_retries += 1;
                self.syn_timed_out = true;
                self.rtt_timing = None;
                self.stats.timeouts += 1;
                // RFC 6298 (5.5)/(5.6).
                self.rtt.back_off();
                self.send_syn(now, out);
            }
            _ if self.snd_una < self.snd_max && self.can_send_data() => {
                if self.unanswered_timeouts >= self.cfg.max_retransmissions {
                    // RFC 1122 §4.2.3.5: R2 reached, close the connection.
                    self.abort();
                    return;
                }
                self.stats.timeouts += 1;
                // RFC 5681 §3.1: ssthresh is cut on the first timeout only and held when the same
                // segment times out again.
                if self.consecutive_timeouts == 0 {
                    self.cc.ssthresh = self.loss_ssthresh();
                }
                self.consecutive_timeouts += 1;
                self.unanswered_timeouts += 1;
                // RFC 5681 §3.1: cwnd = loss window = 1 SMSS.
                self.cc.set(self.mss);
                self.recovery = None;
                self.dupacks = 0;
                // RFC 6582 §4 / RFC 6675 §5.1: recover = RecoveryPoint = HighData.
                self.recover = self.snd_max - 1;
                self.high_rxt = self.snd_una;
                self.rtt_timing = None;
                // RFC 6298 (5.5): back off.
                self.rtt.back_off();
                // RFC 6298 (5.4): retransmit the earliest unacknowledged segment — even into a
                // zero window, which makes it a probe (RFC 9293 §3.8.6.1).
                self.snd_nxt = self.snd_una;
                let s = if self.sack_on {
                    self.sb.next_unsacked(self.snd_una).min(self.snd_max - 1)
                } else {
                    self.snd_una
                };
                let fin = self.fin_seq();
                let mut e = (s + self.mss).min(self.snd_max);
                if fin.is_some_and(|f| e == f) && self.snd_max > e {
                    e += 1;
                }
                if self.sack_on {
                    e = e.min(self.sb.unsacked_run_end(s, self.snd_max).max(s + 1));
                }
                self.send_range(now, s, e - s, Some(Cause::Timeout), out);
                self.snd_nxt = e;
                // RFC 6298 (5.6): restart the timer with the backed-off RTO.
                self.arm_rto(now);
                self.window_send(now, out);
                self.update_persist(now);
            }
            _ => {}
        }
    }

    // ------------------------------------------------------------------ input

    /// Processes an arriving segment. `ce` says the IP header carried Congestion Experienced.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        ce: bool,
        out: &mut Vec<Segment>,
    ) {
        if h.flags.has(TcpFlags::RST) {
            if self.state != State::Listen && self.state != State::Closed {
                self.abort();
            }
            return;
        }
        match self.state {
            State::Closed => {}
            State::Listen => {
                if h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK) {
                    self.accept_syn(now, h);
                    self.set_state(State::SynReceived);
                    self.snd_nxt = self.iss + 1;
                    self.snd_max = self.iss + 1;
                    self.send_syn(now, out);
                }
            }
            State::SynSent => {
                if h.flags.has(TcpFlags::SYN) && h.flags.has(TcpFlags::ACK) && h.ack == self.iss + 1
                {
                    self.accept_syn(now, h);
                    self.ecn_on =
                        self.cfg.ecn && h.flags.has(TcpFlags::ECE) && !h.flags.has(TcpFlags::CWR);
                    self.snd_una = h.ack;
                    self.handshake_rtt(now, h);
                    self.establish(now);
                    self.send_ack(now, out);
                    self.try_send(now, out);
                }
            }
            State::SynReceived if h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK) => {
                // Our SYN-ACK was lost and the peer retransmitted its SYN.
                self.send_syn(now, out);
                // Karn (RFC 6298 §3): the SYN-ACK is now retransmitted, its ACK gives no sample.
                self.rtt_timing = None;
            }
            _ => self.on_synchronized(now, h, payload, ce, out),
        }
    }

    /// Records the peer's SYN and the options it offered.
    fn accept_syn(&mut self, now: SimTime, h: &TcpHeader) {
        self.irs = h.seq;
        self.rcv_nxt = h.seq + 1;
        self.last_ack_sent = self.rcv_nxt;
        // RFC 9293 §3.7.1: send no segment larger than the peer's MSS (536 if absent).
        self.mss = (self.cfg.mss as u64).min(h.mss.unwrap_or(536) as u64);
        self.cc.mss = self.mss;
        self.cc.set(self.cfg.initial_window_bytes(self.mss as u32));
        self.sack_on = self.cfg.uses_sack() && h.sack_permitted;
        self.ts_on = self.cfg.timestamps && h.ts.is_some();
        if let Some((val, _)) = h.ts {
            self.ts_recent = val;
        }
        // RFC 7323 §2.2: scaling only when both SYNs carry the option.
        self.snd_shift_offered = h.wscale.is_some();
        if self.cfg.window_scaling && h.wscale.is_some() {
            self.snd_shift = h.wscale.unwrap_or(0).min(14);
        } else {
            self.snd_shift = 0;
            self.rcv_shift = 0;
        }
        if self.state == State::Listen {
            // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR.
            self.ecn_on = self.cfg.ecn && h.flags.has(TcpFlags::ECE) && h.flags.has(TcpFlags::CWR);
        }
        // The window in a SYN is never scaled (RFC 7323 §2.2).
        self.snd_wnd = h.window_field() as u64;
        self.last_peer_wnd_field = h.window_field();
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = h.seq;
        self.snd_wl2 = h.ack;
        let _ = now;
    }

    fn handshake_rtt(&mut self, now: SimTime, h: &TcpHeader) {
        self.take_rtt_sample(now, h);
        self.rtt_timing = None;
    }

    /// RTT from an ACK that advances snd_una: RFC 7323 §4.2 with timestamps (every such ACK),
    /// otherwise the timed segment (RFC 6298 §3, Karn).
    fn take_rtt_sample(&mut self, now: SimTime, h: &TcpHeader) {
        if self.ts_on {
            if let Some((_, ecr)) = h.ts {
                if ecr != 0 {
                    let ms = Self::ts_now(now).wrapping_sub(ecr) as u64;
                    self.rtt.on_sample(SimTime::from_millis(ms));
                }
            }
        } else if let Some((end, t0)) = self.rtt_timing {
            if h.ack >= end {
                self.rtt.on_sample(now - t0);
                self.rtt_timing = None;
            }
        }
    }

    fn establish(&mut self, now: SimTime) {
        self.set_state(State::Established);
        self.connected_at = Some(now);
        self.rto_at = None;
        self.consecutive_timeouts = 0;
        if self.syn_timed_out {
            // RFC 6298 (5.7).
            self.rtt
                .raise_floor_before_sample(self.cfg.rto_after_syn_timeout);
        }
    }

    fn on_synchronized(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        ce: bool,
        out: &mut Vec<Segment>,
    ) {
        if h.flags.has(TcpFlags::SYN) {
            // A retransmitted SYN-ACK: our ACK of it was lost. Acknowledge again.
            if h.flags.has(TcpFlags::ACK) {
                self.send_ack(now, out);
            }
            return;
        }
        if !h.flags.has(TcpFlags::ACK) {
            return;
        }
        if self.state == State::SynReceived {
            if h.ack == self.iss + 1 {
                self.snd_una = h.ack;
                self.handshake_rtt(now, h);
                self.establish(now);
                self.snd_wnd = (h.window_field() as u64) << self.snd_shift;
                self.max_snd_wnd = self.max_snd_wnd.max(self.snd_wnd);
                self.snd_wl1 = h.seq;
                self.snd_wl2 = h.ack;
            } else {
                return;
            }
        }
        // RFC 7323 §4.3: TS.Recent follows the segment that covers the last ACK sent.
        if self.ts_on {
            if let Some((val, _)) = h.ts {
                if h.seq <= self.last_ack_sent && (val.wrapping_sub(self.ts_recent) as i32) >= 0 {
                    self.ts_recent = val;
                }
            }
        }
        self.process_ack(now, h, payload, out);
        if self.state == State::Closed {
            return;
        }
        self.process_data(now, h, payload, ce, out);
        self.try_send(now, out);
    }

    /// The sender's half of segment processing (RFC 9293 §3.10.7.4 fifth step).
    fn process_ack(&mut self, now: SimTime, h: &TcpHeader, payload: u32, out: &mut Vec<Segment>) {
        let ack = h.ack;
        if ack > self.snd_max.max(self.probe_end) {
            // Acknowledges something not yet sent: reply with an ACK and ignore (RFC 9293).
            self.send_ack(now, out);
            return;
        }
        let wnd = (h.window_field() as u64) << self.snd_shift;
        let wnd_changed = h.window_field() != self.last_peer_wnd_field;
        self.last_peer_wnd_field = h.window_field();
        // RFC 9293 §3.10.7.4: update the send window from the newest segment (SND.WL1/WL2 rule).
        if ack >= self.snd_una
            && (self.snd_wl1 < h.seq || (self.snd_wl1 == h.seq && self.snd_wl2 <= ack))
        {
            self.snd_wnd = wnd;
            self.max_snd_wnd = self.max_snd_wnd.max(wnd);
            self.snd_wl1 = h.seq;
            self.snd_wl2 = ack;
        }
        // SACK information updates the scoreboard whatever else the ACK does (RFC 6675 §5 B.1).
        let mut new_sack = false;
        if self.sack_on {
            for &(s, e) in h.sack.as_slice() {
                if e <= self.snd_max {
                    new_sack |= self.sb.add(s, e, ack.max(self.snd_una));
                }
            }
        }
        // RFC 3168 §6.1.2: react to ECE at most once per window of data.
        if self.ecn_on
            && h.flags.has(TcpFlags::ECE)
            && ack > self.ecn_recover
            && self.recovery.is_none()
        {
            self.cc.ssthresh = (self.flight_size() / 2).max(2 * self.mss);
            self.cc.set(self.cc.ssthresh);
            self.cwr_pending = true;
            self.ecn_recover = self.snd_max.saturating_sub(1);
            self.stats.ecn_reductions += 1;
        }

        if ack > self.snd_una {
            self.on_new_ack(now, h, ack, out);
        } else if ack == self.snd_una && self.snd_una < self.snd_max && !h.flags.has(TcpFlags::FIN)
        {
            if wnd == 0 {
                // RFC 1122 §4.2.2.17: a receiver that keeps answering with a zero window keeps the
                // connection open, whatever the retransmission count.
                self.unanswered_timeouts = 0;
            }
            // RFC 5681 §2 duplicate ACK: no data, same window; RFC 6675 §2 DupAck: new SACK info.
            let dup = match self.cfg.variant {
                Variant::Sack if self.sack_on => new_sack,
                _ => payload == 0 && !wnd_changed,
            };
            if dup {
                self.on_dupack(now, out);
            }
        }
    }

    fn on_new_ack(&mut self, now: SimTime, h: &TcpHeader, ack: u64, out: &mut Vec<Segment>) {
        let acked = ack - self.snd_una;
        self.take_rtt_sample(now, h);
        self.consecutive_timeouts = 0;
        self.unanswered_timeouts = 0;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        if self.snd_max < ack {
            self.snd_max = ack; // an accepted window probe
        }
        self.high_rxt = self.high_rxt.max(ack);
        if self.sack_on {
            self.sb.on_cumulative_ack(ack);
        }
        let mut restart_timer = true;
        match self.recovery {
            Some(Recovery::Fast { partial_seen }) => match self.cfg.variant {
                Variant::Reno | Variant::Sack => {
                    // RFC 5681 §3.2 step 6: deflate on the first new ACK and leave recovery.
                    self.cc.set(self.cc.ssthresh);
                    self.recovery = None;
                }
                Variant::NewReno => {
                    if ack > self.recover {
                        // RFC 6582 §3.2 step 3: full acknowledgment.
                        let w = match self.cfg.full_ack {
                            FullAckCwnd::Ssthresh => self.cc.ssthresh,
                            FullAckCwnd::FlightSize => self
                                .cc
                                .ssthresh
                                .min(self.flight_size().max(self.mss) + self.mss),
                        };
                        self.cc.set(w);
                        self.recovery = None;
                    } else {
                        // RFC 6582 §3.2 step 4: partial ACK — retransmit the first unacknowledged
                        // segment, deflate by the amount acknowledged, add back one SMSS if at
                        // least one SMSS was acknowledged.
                        self.retransmit_head(now, out);
                        let mut w = self.cc.cwnd as u64;
                        w = w.saturating_sub(acked);
                        if acked >= self.mss {
                            w += self.mss;
                        }
                        self.cc.cwnd = w.max(self.mss) as f64;
                        // Reset the retransmit timer on the first partial ACK only.
                        restart_timer = !partial_seen;
                        self.recovery = Some(Recovery::Fast { partial_seen: true });
                    }
                }
            },
            Some(Recovery::Sack) => {
                // RFC 6675 §5 (A): an ACK beyond RecoveryPoint ends recovery.
                if ack > self.recover {
                    self.recovery = None;
                    self.cc.set(self.cc.ssthresh);
                }
            }
            None => {
                self.cc.on_ack(acked);
            }
        }
        self.dupacks = 0;
        // RFC 6298 (5.2)/(5.3).
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if restart_timer {
            self.arm_rto(now);
        }
        self.on_fin_acked();
    }

    fn on_fin_acked(&mut self) {
        let Some(f) = self.fin_seq() else { return };
        if self.snd_una > f {
            match self.state {
                State::FinWait1 => self.set_state(State::FinWait2),
                State::Closing => self.set_state(State::TimeWait),
                State::LastAck => self.set_state(State::Closed),
                _ => {}
            }
            if matches!(
                self.state,
                State::FinWait2 | State::TimeWait | State::Closed
            ) {
                self.rto_at = None;
            }
        }
    }

    fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.dupacks_received += 1;
        self.dupacks += 1;
        let dt = self.cfg.dupack_threshold;
        match self.recovery {
            Some(Recovery::Fast { .. }) => {
                // RFC 5681 §3.2 step 4 / RFC 6582 §3.2 step 2: inflate by one SMSS.
                self.cc.cwnd += self.mss as f64;
            }
            Some(Recovery::Sack) => {}
            None => {
                let sack = self.cfg.variant == Variant::Sack && self.sack_on;
                let triggered = self.dupacks == dt
                    || (sack
                        && (self.dupacks >= dt || self.sb.is_lost(self.snd_una, dt, self.mss)));
                if !triggered {
                    return;
                }
                // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: only when the cumulative ACK covers more
                // than `recover` (no second reduction for one window of losses).
                let allowed = match self.cfg.variant {
                    Variant::Reno => true,
                    Variant::NewReno => self.snd_una - 1 > self.recover,
                    Variant::Sack => self.snd_una > self.recover,
                };
                if !allowed {
                    return;
                }
                self.enter_recovery(now, sack, out);
            }
        }
    }

    fn enter_recovery(&mut self, now: SimTime, sack: bool, out: &mut Vec<Segment>) {
        self.stats.fast_recoveries += 1;
        self.recover = self.snd_max - 1;
        self.cc.ssthresh = self.loss_ssthresh();
        if sack {
            // RFC 6675 §5 (4.1)–(4.5).
            self.recovery = Some(Recovery::Sack);
            self.cc.set(self.cc.ssthresh);
            self.high_rxt = self.snd_una;
            let len = (self.sb.unsacked_run_end(self.snd_una, self.snd_max) - self.snd_una)
                .min(self.mss)
                .max(1);
            let s = self.snd_una;
            self.send_range(now, s, len, Some(Cause::Fast), out);
            self.high_rxt = s + len;
            self.rescue_rxt = Some(s + len - 1);
        } else {
            // RFC 5681 §3.2 steps 2–3 (RFC 6582 §3.2 step 1): retransmit, cwnd = ssthresh + 3·SMSS.
            self.recovery = Some(Recovery::Fast {
                partial_seen: false,
            });
            self.retransmit_head(now, out);
            self.cc
                .set(self.cc.ssthresh + self.cfg.dupack_threshold as u64 * self.mss);
        }
    }

    /// Retransmits the first unacknowledged segment (fast retransmit, NewReno partial ACK).
    fn retransmit_head(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let s = self.snd_una;
        let mut e = (s + self.mss).min(self.snd_max);
        if let Some(f) = self.fin_seq() {
            if e == f && self.snd_max > f {
                e += 1;
            }
        }
        if e > s {
            self.send_range(now, s, e - s, Some(Cause::Fast), out);
        }
    }

    /// The receiver's half (RFC 9293 §3.10.7.4 seventh and eighth steps).
    fn process_data(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        ce: bool,
        out: &mut Vec<Segment>,
    ) {
        let fin = h.flags.has(TcpFlags::FIN);
        if payload == 0 && !fin {
            return;
        }
        if self.ecn_on {
            if ce {
                self.ece_pending = true;
            }
            if h.flags.has(TcpFlags::CWR) && payload > 0 {
                self.ece_pending = false;
            }
        }
        let s = h.seq;
        let e = s + payload as u64;
        let wnd_end = self.rcv_nxt + self.rcv_wnd();
        let had_gap = !self.reasm.is_empty();
        // Data the receiver already has: below rcv_nxt, or fully held out of order.
        if payload > 0 && (e <= self.rcv_nxt || self.reasm.covers(s, e)) {
            self.stats.duplicate_segments_received += 1;
            self.send_ack(now, out); // RFC 9293: an unacceptable segment elicits an ACK
            return;
        }
        let s_eff = s.max(self.rcv_nxt);
        let e_eff = e.min(wnd_end);
        if payload > 0 && s_eff >= e_eff {
            // Outside the window (e.g. a zero-window probe): acknowledge, keep nothing.
            self.send_ack(now, out);
            return;
        }
        let mut immediate = false;
        if payload > 0 {
            if s_eff == self.rcv_nxt {
                let before = self.rcv_nxt;
                self.rcv_nxt = self.reasm.advance(e_eff);
                let got = self.rcv_nxt - before;
                self.deliver(got);
                // RFC 5681 §4.2: fill of a gap → immediate ACK.
                immediate = had_gap;
            } else {
                self.reasm.insert(s_eff, e_eff);
                // RFC 5681 §4.2: out-of-order segment → immediate (duplicate) ACK.
                immediate = true;
            }
        }
        if fin && !self.fin_rcvd && e > self.rcv_nxt {
            // A FIN above a gap: remember where it is, so that filling the gap delivers it
            // (RFC 9293 §3.10.7.4: the FIN is processed once its sequence number is reached).
            self.fin_pending = Some(e);
            // RFC 5681 §4.2: an out-of-order segment (a bare FIN too) is acknowledged at once.
            immediate = true;
        }
        let fin_now = !self.fin_rcvd
            && ((fin && e == self.rcv_nxt) || self.fin_pending == Some(self.rcv_nxt));
        if fin_now {
            self.fin_pending = None;
            self.fin_rcvd = true;
            self.rcv_nxt += 1;
            immediate = true;
            match self.state {
                State::Established => self.set_state(State::CloseWait),
                State::FinWait1 => self.set_state(State::Closing),
                State::FinWait2 => self.set_state(State::TimeWait),
                _ => {}
            }
        } else if fin && self.fin_rcvd {
            immediate = true; // a retransmitted FIN: our ACK was lost
        }
        if immediate || !self.cfg.delayed_ack {
            self.send_ack(now, out);
        } else {
            // RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK every `ack_every` segments or after the delay.
            self.delack_pending += 1;
            if self.delack_pending >= self.cfg.ack_every {
                self.send_ack(now, out);
            } else if self.delack_at.is_none() {
                self.delack_at = Some(self.arm(now, self.cfg.ack_delay));
            }
        }
    }

    fn deliver(&mut self, n: u64) {
        self.delivered += n;
        if !self.auto_read {
            self.unread += n;
        }
    }
}
