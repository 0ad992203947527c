//! One TCP connection end: the RFC 9293 state machine with RFC 5681/6582/6675 congestion control
//! and loss recovery, RFC 6298 timers, persist (RFC 1122 §4.2.2.17) and delayed ACK.
//!
//! Both directions live in one struct because real connections are bidirectional: the bulk client
//! sends a request and then only acknowledges; the server acknowledges the request and then sends
//! the file.

mod autotune;
mod bounded_log;
mod ca_rtt;
mod dsack;
mod extension;
mod frto;
mod input;
mod output;
mod quickack;
mod rack;
mod rcv_wnd;
mod timers;
mod tlp;

use std::fmt;

use bounded_log::BoundedLog;

use super::cc::{Ack, AckKind, AnyCc, Congestion, Flight, Head, HyStartExit, Window};
use super::config::{OpenMode, RtoRule, RtoSsthresh, TcpConfig};
use super::ext::{AnyExtension, Notice, Response, SenderEvent};
use super::reassembly::Reassembly;
use super::recovery::{AckOutcome, AnyRecovery, FirstRetransmit, Seq};
use super::rtt::RttEstimator;
use super::rtt_ns2::Ns2Rtt;
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
    /// ACK numbers learned from routing that advanced snd_una (TCP-pgy S1).
    pub acks_learned: u64,
    /// RFC 8985 §7 tail loss probes sent, and losses they repaired (§7.4.2 reductions).
    pub tail_loss_probes: u64,
    pub tlp_recoveries: u64,
    /// Reductions taken back as spurious (DSACK undo, F-RTO).
    pub undos: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cause {
    Timeout,
    Fast,
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
    /// A one-way start's window scale of the other end, agreed from the two configurations
    /// before the bare SYN (`expect_one_way_peer`), as no option carries it.
    one_way_peer_wscale: Option<u8>,
    /// Bytes the application has handed over; `None` = unlimited.
    app_limit: Option<u64>,
    fin_queued: bool,
    /// cwnd and ssthresh, shared by the controller and the recovery scheme.
    win: Window,
    cc: AnyCc,
    rec: AnyRecovery,
    /// Extensions in the order the scenario lists them.
    ext: Vec<AnyExtension>,
    /// DupAcks of RFC 5681 §3.2 / RFC 6675 §5.
    dupacks: u32,
    sb: Scoreboard,
    /// An extension froze the sender (no transmission, no retransmission timer).
    frozen: bool,
    /// TCP-pgy S1: snd_una was advanced to this ACK learned from routing; no new data goes out
    /// until a real ACK above it arrives, and the first real ACK equal to it is not a duplicate
    /// (`true` once it came).
    learned_ack: Option<(u64, bool)>,
    /// When each learned ACK advanced snd_una, and to what (for time-sequence diagrams).
    learned_log: Vec<(SimTime, u64)>,
    /// Fast retransmits an extension's evidence started before DupThresh duplicates arrived
    /// (TCP-pgy S2): when, and how many duplicates had arrived.
    early_fast_log: Vec<(SimTime, u32)>,
    /// (time, snd_una) of the retransmissions the controller's fine-grained timer called for: the first
    /// `FINE_LOG_CAP` kept, every one counted (a lossy run calls for one per loss).
    fine_resends_log: BoundedLog<(SimTime, u64)>,
    /// Send times of new data for HyStart's per-ACK RTT (`socket/ca_rtt.rs`), when it runs.
    sent_times: Option<ca_rtt::SentTimes>,
    /// Each end of slow start by HyStart: when, which test, cwnd (bytes) then.
    hystart_log: Vec<(SimTime, HyStartExit, u64)>,
    /// When data was last sent (RFC 5681 §4.1 restart after idle).
    last_data_sent: Option<SimTime>,
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
    /// RACK's reordering timer (RFC 8985 §6.2 step 5).
    rack_at: Option<SimTime>,
    /// The tail loss probe's timer (RFC 8985 §7.2), never later than `rto_at`.
    pto_at: Option<SimTime>,
    /// TLP.end_seq and TLP.is_retrans of the outstanding probe (RFC 8985 §7.3).
    tlp_end: Option<(u64, bool)>,
    /// RTO recovery: HighData + 1 when the last timeout fired, until snd_una reaches it (Linux's
    /// Loss state; RFC 8985 §7.2 sends no probe in it).
    loss_recover: Option<u64>,
    /// The current episode's undo state (RFC 3708, `socket/dsack.rs`).
    undo: Option<dsack::Undo>,
    /// F-RTO's stage after a timeout (RFC 5682, `socket/frto.rs`).
    frto: Option<frto::Frto>,

    // ---- options ----
    sack_on: bool,
    ts_on: bool,
    ts_recent: u32,
    last_ack_sent: u64,
    /// A duplicate to report as the first SACK block of the next ACK (RFC 2883).
    dsack_pending: Option<(u64, u64)>,
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
    /// Receive-buffer autotuning's state (`socket/autotune.rs`), when the switch is on.
    drs: Option<autotune::Drs>,
    /// Linux's quick-ACK mode (`socket/quickack.rs`), when the switch is on.
    quickack: Option<quickack::QuickAck>,
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
/// Fine-grained retransmissions logged with their time (the rest only counted): tests and diagrams read
/// the first few, and the log must not grow with a long lossy run.
pub const FINE_LOG_CAP: usize = 64;

/// The other end of a one-way start: its ISN, MSS, receive window in bytes, and the window scale
/// its configuration implies (`None` when it does not scale).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OneWayPeer {
    pub iss: u64,
    pub mss: u32,
    pub rcv_wnd: u64,
    pub wscale: Option<u8>,
}

impl Socket {
    pub fn new(cfg: TcpConfig, local_port: u16, remote_port: u16, iss: u64) -> Socket {
        let mss = cfg.mss as u64;
        let mut rtt = RttEstimator::new(
            cfg.rto_initial,
            cfg.rto_min,
            cfg.rto_max,
            cfg.clock_granularity,
        );
        match cfg.rto_rule {
            RtoRule::Linux => rtt = rtt.linux(),
            RtoRule::Ns2 | RtoRule::Ns2PreRfc2988 => {
                // ns-2.35's boot_time_, uniform in [0, tcpTick_), drawn here from the ISN.
                let phase = Ns2Rtt::phase_from(iss, cfg.clock_granularity);
                rtt = rtt.ns2(Ns2Rtt::new(
                    cfg.rto_initial,
                    cfg.rto_min,
                    cfg.rto_max,
                    cfg.clock_granularity,
                    phase,
                    cfg.rto_rule == RtoRule::Ns2,
                ));
            }
            RtoRule::Rfc6298 => {}
        }
        let win = Window::new(
            cfg.window_unit,
            mss,
            cfg.initial_window_bytes(cfg.mss),
            cfg.initial_ssthresh.unwrap_or(UNLIMITED),
        );
        // The largest window this receiver may offer sets the scale (RFC 7323 §2.3).
        let rcv_shift = cfg.window_shift();
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
            one_way_peer_wscale: None,
            app_limit: Some(0),
            fin_queued: false,
            win,
            cc: AnyCc::new(&cfg),
            rec: AnyRecovery::new(&cfg, iss),
            ext: cfg
                .extensions
                .iter()
                .map(|&k| AnyExtension::configured(k, &cfg))
                .collect(),
            dupacks: 0,
            sb: Scoreboard::default(),
            frozen: false,
            learned_ack: None,
            learned_log: Vec::new(),
            early_fast_log: Vec::new(),
            fine_resends_log: BoundedLog::new(FINE_LOG_CAP),
            hystart_log: Vec::new(),
            sent_times: cfg
                .cc
                .per_ack_rtt(cfg.hystart)
                .then(ca_rtt::SentTimes::default),
            last_data_sent: None,
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
            rack_at: None,
            pto_at: None,
            tlp_end: None,
            loss_recover: None,
            undo: None,
            frto: None,
            sack_on: false,
            ts_on: false,
            ts_recent: 0,
            last_ack_sent: 0,
            dsack_pending: None,
            rcv_adv_edge: 0,
            ecn_on: false,
            ece_pending: false,
            cwr_pending: false,
            ecn_recover: iss,
            irs: 0,
            rcv_nxt: 0,
            rcv_shift,
            reasm: Reassembly::default(),
            drs: (cfg.rcv_buf_autotune || cfg.rcv_wnd_growth).then(|| autotune::Drs::new(&cfg)),
            quickack: cfg.quickack.then(quickack::QuickAck::default),
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
        self.win.window()
    }
    pub fn ssthresh(&self) -> u64 {
        self.win.ssthresh
    }
    /// The congestion controller and the loss-recovery scheme in use.
    pub fn cc_name(&self) -> &'static str {
        self.cc.get().name()
    }
    /// Adaptive TCP's loss events so far (empty for every other controller).
    /// TCP-pgy S1: (time, data offset) of each ACK learned from routing that advanced snd_una.
    pub fn learned_acks(&self) -> &[(SimTime, u64)] {
        &self.learned_log
    }

    /// TCP-pgy S2: (time, duplicate ACKs received) of each fast retransmit `dup_count` started
    /// before the socket itself had seen DupThresh duplicates.
    pub fn early_fast_retransmits(&self) -> &[(SimTime, u32)] {
        &self.early_fast_log
    }

    /// Vegas §3.1: (time, sequence number resent) of each retransmission the controller's
    /// fine-grained timer called for, before DupThresh duplicates or on a later ACK.
    /// Only the first `FINE_LOG_CAP` are kept; `fine_retransmit_count` counts them all.
    pub fn fine_retransmits(&self) -> &[(SimTime, u64)] {
        self.fine_resends_log.first()
    }

    /// How many retransmissions the controller's fine-grained timer called for.
    pub fn fine_retransmit_count(&self) -> u64 {
        self.fine_resends_log.total()
    }

    /// (time, test, cwnd in bytes) of each end of slow start by CUBIC's HyStart.
    pub fn hystart_exits(&self) -> &[(SimTime, HyStartExit, u64)] {
        &self.hystart_log
    }

    fn hystart_found(&self) -> Option<HyStartExit> {
        match &self.cc {
            AnyCc::Cubic(c) => c.hystart_exit(),
            _ => None,
        }
    }

    pub fn adaptive_history(&self) -> &[super::cc::LossEvent] {
        match &self.cc {
            AnyCc::Adaptive(a) => a.history(),
            _ => &[],
        }
    }
    pub fn recovery_name(&self) -> &'static str {
        self.rec.get().name()
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }
    /// The RTT samples this socket took (count, sum, min, max).
    pub fn rtt_samples(&self) -> &crate::trace::flowstats::RttSummary {
        self.rtt.samples()
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
        self.rec.get().in_recovery()
    }
    pub fn in_persist(&self) -> bool {
        self.persist_at.is_some()
    }
    pub fn mss(&self) -> u64 {
        self.mss
    }
    /// RFC 6675 SetPipe() on the current scoreboard.
    #[cfg(test)]
    pub(in crate::tcp) fn pipe(&self) -> u64 {
        self.rec.pipe(&self.seq(), &self.sb)
    }

    /// The earliest armed timer.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        [
            self.rto_at,
            self.persist_at,
            self.delack_at,
            self.rack_at,
            self.pto_at,
            self.ext_poll(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Whether an extension has frozen the sender.
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Adds an extension after construction (tests of the hooks).
    #[cfg(test)]
    pub(in crate::tcp) fn push_extension(&mut self, e: AnyExtension) {
        self.ext.push(e);
    }

    // ------------------------------------------------------------------ cross-layer notices

    /// A cross-layer notice (routing, ICMP, link layer) for this connection. Each extension
    /// answers; the socket carries out the answers in order. Without extensions nothing changes.
    pub fn notify(&mut self, now: SimTime, n: Notice, out: &mut Vec<Segment>) {
        self.ext_event(now, SenderEvent::Notice(n), out);
    }

    // ------------------------------------------------------------------ application calls

    /// Passive open (RFC 9293 §3.10.1).
    pub fn listen(&mut self) {
        self.set_state(State::Listen);
    }

    /// ns-2's one-way start (`open = "none"`): both ends begin synchronised, as if the SYNs had
    /// been exchanged; `peer` is the other end's ISN, MSS, receive window and window scale. No
    /// option is exchanged: each end uses SACK and timestamps as its configuration says, and the
    /// window is scaled when both configurations scale it (`agreed_wscale`). The sender then
    /// writes and its first segment leaves at once.
    pub fn open_one_way(&mut self, now: SimTime, peer: OneWayPeer) {
        self.set_state(State::Established);
        self.connected_at = Some(now);
        self.snd_una = self.iss + 1;
        self.snd_nxt = self.iss + 1;
        self.snd_max = self.iss + 1;
        self.irs = peer.iss;
        self.rcv_nxt = peer.iss + 1;
        self.last_ack_sent = self.rcv_nxt;
        self.mss = (self.cfg.mss as u64).min(peer.mss as u64);
        self.win.mss = self.mss;
        self.win.set(self.cfg.initial_window_bytes(self.mss as u32));
        self.sack_on = self.cfg.uses_sack();
        self.ts_on = self.cfg.timestamps;
        self.ecn_on = self.cfg.ecn;
        self.agreed_wscale(peer.wscale);
        // The peer's window as its first segment would carry it (snd_shift is the peer's agreed
        // shift: 0 unless both ends scale).
        let wnd = (peer.rcv_wnd >> self.snd_shift).min(65_535) << self.snd_shift;
        self.snd_wnd = wnd;
        self.max_snd_wnd = wnd;
        self.last_peer_wnd_field = (wnd >> self.snd_shift) as u16;
        self.snd_wl1 = peer.iss;
        self.snd_wl2 = self.iss + 1;
        self.rcv_adv_edge =
            self.rcv_nxt + ((self.rcv_wnd() >> self.rcv_shift).min(65_535) << self.rcv_shift);
    }

    /// The window scale agreed at the open; `peer` is the shift the other end offers: its SYN's
    /// option (RFC 7323 §2.2: scaling only when both SYNs carry it), or at a one-way start, where
    /// no SYN carries options, the shift its configuration implies. ns-2's `window_` is a bare
    /// packet count with no 16-bit field to overflow, so when both ends' configurations scale
    /// (`window_scaling`), each applies the shift its own largest window implies (RFC 7323 §2.3)
    /// and reads the peer's by the peer's; otherwise neither scales.
    fn agreed_wscale(&mut self, peer: Option<u8>) {
        self.snd_shift_offered = peer.is_some();
        match peer {
            Some(s) if self.cfg.window_scaling => self.snd_shift = s.min(14),
            _ => {
                self.snd_shift = 0;
                self.rcv_shift = 0;
            }
        }
    }

    /// What one end of a one-way start must know of the other (`open_one_way`,
    /// `expect_one_way_peer`).
    pub fn one_way_peer(&self) -> OneWayPeer {
        OneWayPeer {
            iss: self.iss,
            mss: self.cfg.mss,
            rcv_wnd: self.rcv_wnd(),
            wscale: self.cfg.window_scaling.then_some(self.rcv_shift),
        }
    }

    /// Before a one-way start with bare SYNs (`open = "sender_syn"`): the other end's window
    /// scale, which its configuration implies and no SYN option carries.
    pub fn expect_one_way_peer(&mut self, peer: OneWayPeer) {
        self.one_way_peer_wscale = peer.wscale;
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

    /// Where sending stops: the data the application gave, or what was already sent while a
    /// learned ACK holds new data back.
    fn send_end(&self) -> u64 {
        match self.learned_ack {
            Some(_) => self.data_end().min(self.snd_max),
            None => self.data_end(),
        }
    }

    fn fin_seq(&self) -> Option<u64> {
        match (self.fin_queued, self.app_limit) {
            (true, Some(n)) => Some(self.iss + 1 + n),
            _ => None,
        }
    }

    fn rcv_wnd(&self) -> u64 {
        let buf = self.drs.map_or(self.cfg.rcv_buf, |d| d.wnd);
        buf.saturating_sub(self.unread)
    }

    /// The window to advertise: the buffer's, as receiver extensions would have it (data in
    /// flight is still accepted up to the buffer).
    fn advertised_wnd(&self) -> u64 {
        self.ext
            .iter()
            .fold(self.rcv_wnd(), |w, e| e.get().window(w))
    }

    fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The first unacknowledged segment as its send record has it, when one is kept (controllers
    /// that time every segment: `CcKind::per_ack_rtt`).
    fn head(&self) -> Option<Head> {
        let (sent_at, transmits) = self.sent_times.as_ref()?.head(self.snd_una)?;
        Some(Head {
            sent_at,
            transmits,
            outstanding: self.flight_size().div_ceil(self.mss.max(1)),
        })
    }

    /// Whether the controller's fine-grained timer calls for the head now (`resend_head`).
    fn controller_resends_head(&mut self, now: SimTime, kind: AckKind) -> Option<Head> {
        let head = self.head()?;
        self.cc
            .get_mut()
            .resend_head(now, kind, &head)
            .then_some(head)
    }

    /// The sequence space as loss recovery sees it.
    fn seq(&self) -> Seq {
        Seq {
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            mss: self.mss,
            dupthresh: self.cfg.dupack_threshold,
        }
    }

    /// The ssthresh the controller calls for on a congestion event (not yet applied).
    fn congestion_ssthresh(&mut self, now: SimTime, ev: Congestion) -> u64 {
        let f = Flight {
            now,
            flight_size: self.flight_size(),
            snd_wnd: self.snd_wnd,
        };
        self.cc.get_mut().ssthresh(&self.win, ev, &f, &self.rtt)
    }

    fn set_state(&mut self, s: State) {
        self.state = s;
    }

    fn arm(&self, now: SimTime, after: SimTime) -> SimTime {
        (now + after).round_up_to(self.cfg.timer_tick)
    }

    fn arm_rto(&mut self, now: SimTime) {
        // A frozen sender keeps no retransmission timer (see `notify`).
        self.rto_at = (!self.frozen).then(|| self.arm(now, self.rtt.rto()));
    }

    pub(in crate::tcp) fn ts_now(now: SimTime) -> u32 {
        // RFC 7323 §5.4: a 1 ms timestamp clock (offset by one so that 0 is never sent).
        (now.as_millis() as u32).wrapping_add(1)
    }

    fn abort(&mut self) {
        self.aborted = true;
        self.set_state(State::Closed);
        self.rto_at = None;
        self.persist_at = None;
        self.delack_at = None;
        self.rack_at = None;
        self.pto_at = None;
    }
}
