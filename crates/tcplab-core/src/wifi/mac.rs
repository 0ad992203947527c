//! The 802.11 DCF MAC of one station as a sans-IO state machine.
//!
//! The MAC never schedules anything. The channel tells it when its medium turns busy or idle
//! (`on_busy`, `on_idle`), when its own transmission ends (`on_tx_end`) and what it received
//! (`on_frame`, `on_rx_error`); the world calls `on_timer` at the deadline `next_deadline()`
//! returns. Every input pushes [`MacAction`]s.
//!
//! **Backoff costs no event per slot.** While the medium is idle the MAC knows when its counter
//! will reach zero: `due = idle_ref + IFS + k·slot`, where `idle_ref` is the latest of the end of
//! the last busy period, the NAV expiry and the end of a response timeout. When a frame makes the
//! medium busy, the counter is frozen arithmetically at the instant CCA reports it,
//! `detect = arrival + aCCATime`: `k −= (number of slot boundaries before detect)` (802.11-2020
//! 10.3.4.3: a slot counts only if the medium was idle for all of it). A station whose counter
//! reaches zero before `detect` cannot know of the frame and transmits in that slot. The slot
//! boundaries of the stations deferring on one busy period differ only by propagation delays
//! (the last transmitter sees its frame end δ before its hearers do), far less than aCCATime, so
//! stations that drew the same slot transmit together and collide (Bianchi's assumption).
//!
//! Sources: IEEE 802.11-2020 10.3 (DCF), 10.3.4.3 (backoff), 10.3.2.11 (ACK procedure and
//! timeout), 10.3.4.4 (retry counters), 10.3.2.14 (duplicate detection), 10.3.2.5 (NAV);
//! ns-2.35 `mac/mac-802_11.cc` for the ns-2 preset's choices (see ALGORITHMS.md §6.1).

use crate::ids::PktId;
use crate::rng::Rng;
use crate::time::SimTime;

use super::phy::PhyParams;
use super::queue::{PriQueue, QueuedPkt};

/// Destination of broadcast frames.
pub const BROADCAST: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Data,
    Ack,
    Rts,
    Cts,
}

/// A MAC frame on the air. Stations are named by their global station index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: FrameKind,
    pub src: u32,
    pub dst: u32,
    /// Duration/ID field: how long the medium stays reserved after this frame ends (NAV).
    pub nav: SimTime,
    /// MPDU length in bytes (MAC header and FCS included).
    pub bytes: u32,
    pub rate: u64,
    pub pkt: Option<PktId>,
    pub seq: u16,
    pub retry: bool,
}

/// MAC configuration beyond the PHY timing.
#[derive(Clone, Debug, PartialEq)]
pub struct MacParams {
    /// MPDUs longer than this are preceded by RTS/CTS (dot11RTSThreshold, bytes).
    pub rts_threshold: u32,
    /// dot11ShortRetryLimit (7) and dot11LongRetryLimit (4): attempts before a drop.
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Interface queue limit in packets (ns-2 IFQ `Queue set limit_ 50`).
    pub queue_limit: usize,
}

impl Default for MacParams {
    fn default() -> Self {
        MacParams {
            rts_threshold: 2347, // ALGORITHMS.md §6.1 "Real 802.11b": RTSThreshold 2347 (off)
            short_retry_limit: 7, // 802.11-2020 Annex C dot11ShortRetryLimit
            long_retry_limit: 4, // 802.11-2020 Annex C dot11LongRetryLimit
            queue_limit: 50,     // ns-2 IFQ limit_ 50
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    RetryLimit,
    QueueOverflow,
    /// The retry limit was reached while the station was in a scheduled outage.
    Outage,
}

/// What the PHY made of a frame whose reception ended.
#[derive(Clone, Copy, Debug)]
pub enum RxResult<'a> {
    /// The station was not locked on this frame (it was interference or went unheard).
    None,
    Ok(&'a Frame),
    /// Collision, too weak to decode, or lost to the error model.
    Err,
}

/// What the MAC asks of its environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacAction {
    /// Start sending `frame` now; it lasts `duration`.
    Transmit(Frame, SimTime),
    /// Hand a received data packet from station `src` up to the network layer.
    Deliver {
        pkt: PktId,
        src: u32,
    },
    /// The packet was acknowledged (or sent, if broadcast): the sender's copy may be freed.
    Sent(PktId),
    Drop(PktId, DropCause),
    /// The retry limit to `dst` was exceeded (the network layer's link-failure callback).
    LinkFailure {
        dst: u32,
    },
}

/// Per-station counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacStats {
    pub data_frames_sent: u64,
    pub data_bytes_sent: u64,
    pub control_frames_sent: u64,
    /// Data and RTS retransmissions.
    pub retries: u64,
    /// Exchanges that got no ACK/CTS (collision, error or outage at the far end).
    pub tx_failures: u64,
    /// Of those, the exchanges whose frame or response was lost to an overlapping frame at its
    /// receiver (the receiver was sending, or locked on or destroyed by another frame): the
    /// collisions this station experienced as a transmitter.
    pub tx_collisions: u64,
    /// Receptions at this station destroyed by an overlapping transmission (any frame it was
    /// locked on, addressed to it or not).
    pub rx_collisions: u64,
    /// Frames lost to the error model.
    pub rx_errors: u64,
    pub data_frames_received: u64,
    pub duplicates: u64,
    pub delivered: u64,
    pub acked: u64,
    /// MSDUs acknowledged after one or more retransmissions (dot11RetryCount).
    pub retried_msdus: u64,
    pub drops_retry: u64,
    pub drops_queue: u64,
    pub drops_outage: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    None,
    /// Awaiting a CTS or an ACK whose reception must start before `deadline`; `MAX` once a
    /// reception is under way and its end decides.
    Cts(SimTime),
    Ack(SimTime),
}

#[derive(Clone, Copy, Debug)]
struct Hol {
    q: QueuedPkt,
    seq: u16,
    /// Short/long retry counts of this MSDU (10.3.4.4).
    src: u32,
    lrc: u32,
    attempts: u32,
    rate: u64,
}

pub struct Dcf {
    pub id: u32,
    queue: PriQueue,
    hol: Option<Hol>,
    seq_next: u16,
    cw: u32,
    /// Remaining backoff slots; None when no backoff procedure is pending.
    backoff: Option<u32>,
    /// While counting: when the counter reaches zero (access is granted).
    due: Option<SimTime>,
    // ---- the medium as this station sees it
    /// Signals currently sensed above the CS threshold (maintained by the channel).
    pub sensed: u32,
    /// The PHY is locked on a frame (maintained by the channel).
    pub rx_locked: bool,
    tx_until: Option<SimTime>,
    phys_idle_since: SimTime,
    nav_until: SimTime,
    /// No backoff counting before this instant + IFS (set at the end of a response timeout).
    floor: SimTime,
    eifs: bool,
    wait: Wait,
    resp: Option<(SimTime, Frame)>,
    /// (source, last sequence number) for duplicate detection.
    dup: Vec<(u32, u16)>,
    /// The station is in a scheduled outage (set by the channel).
    pub down: bool,
    pub stats: MacStats,
    rng: Rng,
}

impl Dcf {
    pub fn new(id: u32, mac: &MacParams, phy: &PhyParams, rng: Rng) -> Dcf {
        Dcf {
            id,
            queue: PriQueue::new(mac.queue_limit),
            hol: None,
            seq_next: 0,
            cw: phy.cw_min,
            backoff: None,
            due: None,
            sensed: 0,
            rx_locked: false,
            tx_until: None,
            phys_idle_since: SimTime::ZERO,
            nav_until: SimTime::ZERO,
            floor: SimTime::ZERO,
            eifs: false,
            wait: Wait::None,
            resp: None,
            dup: Vec::new(),
            down: false,
            stats: MacStats::default(),
            rng,
        }
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len() + self.hol.is_some() as usize
    }

    /// Whether the station's own transmission is under way (until its end is processed).
    pub fn is_transmitting(&self) -> bool {
        self.tx_until.is_some()
    }

    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// Removes every queued (not in-progress) packet for `dst` (AODV's `ifqueue->filter`).
    pub fn drain_for(&mut self, dst: u32) -> Vec<PktId> {
        self.queue.drain_for(dst)
    }

    /// The instant this station may start counting (idle reference + IFS), or None while the
    /// medium is busy for it or it is in a frame exchange.
    fn access_start(&self, phy: &PhyParams) -> Option<SimTime> {
        if self.tx_until.is_some()
            || self.sensed > 0
            || self.wait != Wait::None
            || self.resp.is_some()
        {
            return None;
        }
        let r = self.phys_idle_since.max(self.nav_until).max(self.floor);
        Some(r + if self.eifs { phy.eifs } else { phy.difs })
    }

    /// Freezes the counter because a busy medium is detected at `detect` (for a frame from
    /// elsewhere: its arrival here plus aCCATime; for our own frame: its start).
    fn freeze(&mut self, detect: SimTime, phy: &PhyParams) {
        let Some(due) = self.due else { return };
        if due < detect {
            // 10.3.4.3: the slot boundary came before CCA could report the medium busy, so access
            // is granted in that slot: the timer at `due` transmits and same-slot ties collide.
            return;
        }
        self.due = None;
        match self.backoff {
            Some(k) => {
                // Slots whose boundary came before the detection were idle (10.3.4.3).
                let start = SimTime(due.0 - phy.slot.0 * k as u64);
                let elapsed = if detect > start {
                    ((detect - start).0 - 1) / phy.slot.0
                } else {
                    0
                } as u32;
                self.backoff = Some(k - elapsed.min(k));
            }
            // Waiting out DIFS for immediate access and the medium turned busy: back off
            // (10.3.4.3).
            None => self.backoff = Some(self.draw()),
        }
    }

    /// Starts counting if the medium is idle and something needs access.
    fn resume(&mut self, phy: &PhyParams) {
        if self.due.is_some() || (self.hol.is_none() && self.backoff.is_none()) {
            return;
        }
        if let Some(s) = self.access_start(phy) {
            self.due = Some(s + phy.slot.times(self.backoff.unwrap_or(0) as u64));
        }
    }

    /// A post-backoff that ran out with nothing to send leaves no backoff pending.
    fn settle(&mut self, now: SimTime) {
        if self.hol.is_none() {
            if let Some(d) = self.due {
                if d <= now {
                    self.due = None;
                    self.backoff = None;
                }
            }
        }
    }

    fn draw(&mut self) -> u32 {
        self.rng.below(self.cw as u64 + 1) as u32
    }

    /// The next instant `on_timer` must run.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let mut t: Option<SimTime> = None;
        let mut take = |x: SimTime| t = Some(t.map_or(x, |y: SimTime| y.min(x)));
        if let Some((at, _)) = self.resp {
            take(at);
        }
        match self.wait {
            Wait::Cts(d) | Wait::Ack(d) if d != SimTime::MAX => take(d),
            _ => {}
        }
        if self.hol.is_some() {
            if let Some(d) = self.due {
                take(d);
            }
        }
        t
    }

    // ------------------------------------------------------------------ inputs

    /// Offers a packet for `dst` (BROADCAST for broadcast). Returns false when the queue is full
    /// (the caller frees the packet); a high-priority packet may push out the tail instead, which
    /// is reported as a `Drop` action.
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        q: QueuedPkt,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) -> bool {
        self.settle(now);
        match self.queue.push(q) {
            Ok(None) => {}
            Ok(Some(pushed_out)) => {
                self.stats.drops_queue += 1;
                out.push(MacAction::Drop(pushed_out, DropCause::QueueOverflow));
            }
            Err(()) => {
                self.stats.drops_queue += 1;
                return false;
            }
        }
        if self.hol.is_none() {
            self.next_hol(phy);
            if self.due.is_none() && self.backoff.is_none() && self.access_start(phy).is_none() {
                // The medium is busy as the frame arrives: back off (10.3.4.3).
                self.backoff = Some(self.draw());
            }
            self.resume(phy);
            if self.due.is_some_and(|d| d <= now) {
                self.access(now, phy, mac, out);
            }
        }
        true
    }

    fn next_hol(&mut self, _phy: &PhyParams) {
        if let Some(q) = self.queue.pop() {
            let seq = self.seq_next;
            self.seq_next = (self.seq_next + 1) & 0x0fff; // 12-bit sequence number (9.2.4.4.2)
            self.hol = Some(Hol {
                q,
                seq,
                src: 0,
                lrc: 0,
                attempts: 0,
                rate: q.rate,
            });
        }
    }

    /// The medium turns busy for this station (first sensed signal): a frame started at `now`
    /// reaches it at `arrival` (now + propagation delay).
    pub fn on_busy(&mut self, now: SimTime, arrival: SimTime, phy: &PhyParams) {
        self.settle(now);
        self.freeze(arrival + phy.cca_time, phy);
    }

    /// The medium turns idle for this station (last sensed signal ended).
    pub fn on_idle(&mut self, now: SimTime, phy: &PhyParams) {
        self.phys_idle_since = self.phys_idle_since.max(now);
        self.resume(phy);
    }

    /// The station's own transmission that started earlier ended at `end`.
    pub fn on_tx_end(&mut self, end: SimTime, phy: &PhyParams, out: &mut Vec<MacAction>) {
        self.tx_until = None;
        self.phys_idle_since = self.phys_idle_since.max(end);
        // A broadcast data frame is done when it is sent (no ACK, 10.3.6).
        if self.wait == Wait::None {
            if let Some(h) = self.hol {
                if h.q.dst == BROADCAST && h.attempts > 0 {
                    self.hol = None;
                    out.push(MacAction::Sent(h.q.pkt));
                    self.success(phy);
                }
            }
        }
        self.resume(phy);
    }

    fn success(&mut self, phy: &PhyParams) {
        self.cw = phy.cw_min;
        self.next_hol(phy);
        // Post-backoff after every transmission (10.3.4.3).
        self.backoff = Some(self.draw());
        self.due = None;
    }

    /// A frame's reception ended at `now` for this station: `res` says what the PHY made of it
    /// (nothing if the station was not locked on it), `idle` whether the medium is now idle.
    pub fn on_rx_end(
        &mut self,
        now: SimTime,
        res: RxResult<'_>,
        idle: bool,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        self.settle(now);
        if idle {
            // Before handling the frame, so a backoff resumes from this instant with the NAV and
            // IFS the frame implies.
            self.phys_idle_since = self.phys_idle_since.max(now);
        }
        match res {
            RxResult::Ok(f) => self.on_frame(now, f, phy, mac, out),
            RxResult::Err => self.on_rx_error(now, phy, mac, out),
            RxResult::None => {}
        }
        self.resume(phy);
    }

    /// A frame was received correctly (after the error model) at `now` (its end).
    fn on_frame(
        &mut self,
        now: SimTime,
        f: &Frame,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        self.eifs = false; // 10.3.2.3.7: a correct reception ends EIFS
        let for_me = f.dst == self.id;
        // Anything other than the awaited response ends the wait as a failure (10.3.2.11).
        let expected = match (self.wait, f.kind) {
            (Wait::Cts(_), FrameKind::Cts) | (Wait::Ack(_), FrameKind::Ack) => for_me,
            _ => false,
        };
        if self.wait != Wait::None && !expected {
            self.fail(now, phy, mac, out);
        }
        if !for_me {
            if f.dst == BROADCAST && f.kind == FrameKind::Data {
                self.receive_data(f, out);
            } else {
                // Virtual carrier sense (10.3.2.5): NAV from the Duration field of frames for
                // other stations.
                self.nav_until = self.nav_until.max(now + f.nav);
            }
            return;
        }
        match f.kind {
            FrameKind::Data => {
                self.receive_data(f, out);
                let ack = Frame {
                    kind: FrameKind::Ack,
                    src: self.id,
                    dst: f.src,
                    nav: SimTime::ZERO,
                    bytes: phy.ack_len,
                    rate: phy.control_rate(f.rate),
                    pkt: None,
                    seq: 0,
                    retry: false,
                };
                self.resp = Some((now + phy.sifs, ack));
            }
            FrameKind::Rts => {
                // Answer only if the NAV shows the medium idle (10.3.2.7).
                if self.nav_until <= now && self.tx_until.is_none() {
                    let cts_d = phy.duration(phy.cts_len, f.rate);
                    let cts = Frame {
                        kind: FrameKind::Cts,
                        src: self.id,
                        dst: f.src,
                        nav: SimTime(f.nav.0.saturating_sub((phy.sifs + cts_d).0)),
                        bytes: phy.cts_len,
                        rate: f.rate,
                        pkt: None,
                        seq: 0,
                        retry: false,
                    };
                    self.resp = Some((now + phy.sifs, cts));
                }
            }
            FrameKind::Cts => {
                if expected {
                    self.wait = Wait::None;
                    if let Some(h) = self.hol.as_mut() {
                        h.src = 0; // a CTS ends the RTS's short retries (10.3.4.4)
                        let data = data_frame(self.id, h, phy);
                        self.resp = Some((now + phy.sifs, data));
                    }
                }
            }
            FrameKind::Ack => {
                if expected {
                    self.wait = Wait::None;
                    if let Some(h) = self.hol.take() {
                        self.stats.acked += 1;
                        if h.attempts > 1 || h.lrc > 0 {
                            self.stats.retried_msdus += 1;
                        }
                        out.push(MacAction::Sent(h.q.pkt));
                    }
                    self.success(phy);
                }
            }
        }
    }

    fn receive_data(&mut self, f: &Frame, out: &mut Vec<MacAction>) {
        self.stats.data_frames_received += 1;
        let Some(pkt) = f.pkt else { return };
        // Duplicate detection by (source, sequence number) with the Retry bit (10.3.2.14).
        if f.dst != BROADCAST {
            match self.dup.iter_mut().find(|(s, _)| *s == f.src) {
                Some(e) => {
                    if f.retry && e.1 == f.seq {
                        self.stats.duplicates += 1;
                        return;
                    }
                    e.1 = f.seq;
                }
                None => self.dup.push((f.src, f.seq)),
            }
        }
        self.stats.delivered += 1;
        out.push(MacAction::Deliver { pkt, src: f.src });
    }

    /// A frame ended that could not be decoded (collision, below the RX threshold, error model).
    fn on_rx_error(
        &mut self,
        now: SimTime,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        self.eifs = true; // 10.3.2.3.7
        if self.wait != Wait::None {
            self.fail(now, phy, mac, out);
        }
    }

    /// The awaited response did not come.
    fn fail(&mut self, now: SimTime, phy: &PhyParams, mac: &MacParams, out: &mut Vec<MacAction>) {
        let was_cts = matches!(self.wait, Wait::Cts(_));
        self.wait = Wait::None;
        self.floor = self.floor.max(now);
        self.stats.tx_failures += 1;
        let Some(mut h) = self.hol else { return };
        // RTS failures and data frames not preceded by RTS count against the short limit; data
        // frames sent after RTS/CTS against the long limit (10.3.4.4).
        let drop = if was_cts || !uses_rts(&h, phy, mac) {
            h.src += 1;
            h.src >= mac.short_retry_limit
        } else {
            h.lrc += 1;
            h.lrc >= mac.long_retry_limit
        };
        if drop {
            self.hol = None;
            let cause = if self.down {
                self.stats.drops_outage += 1;
                DropCause::Outage
            } else {
                self.stats.drops_retry += 1;
                DropCause::RetryLimit
            };
            out.push(MacAction::Drop(h.q.pkt, cause));
            out.push(MacAction::LinkFailure { dst: h.q.dst });
            self.cw = phy.cw_min; // reset on a drop as on success (10.3.4.3)
            self.next_hol(phy);
        } else {
            self.hol = Some(h);
            self.cw = (2 * (self.cw + 1) - 1).min(phy.cw_max);
        }
        self.backoff = Some(self.draw());
        self.due = None;
    }

    pub fn on_timer(
        &mut self,
        now: SimTime,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        self.settle(now);
        if let Some((at, f)) = self.resp {
            if at <= now {
                self.resp = None;
                self.transmit(now, f, phy, out);
                if f.kind == FrameKind::Data {
                    self.wait_after(now, phy, FrameKind::Data, f.rate);
                }
                return;
            }
        }
        match self.wait {
            Wait::Cts(d) | Wait::Ack(d) if d <= now => {
                if self.rx_locked {
                    // A reception started in time; its end decides (10.3.2.11).
                    self.wait = match self.wait {
                        Wait::Cts(_) => Wait::Cts(SimTime::MAX),
                        _ => Wait::Ack(SimTime::MAX),
                    };
                } else {
                    self.fail(now, phy, mac, out);
                    self.resume(phy);
                }
                return;
            }
            _ => {}
        }
        if self.hol.is_some() && self.due.is_some_and(|d| d <= now) {
            self.access(now, phy, mac, out);
        }
    }

    /// Access granted: send the head-of-line frame (or its RTS).
    fn access(&mut self, now: SimTime, phy: &PhyParams, mac: &MacParams, out: &mut Vec<MacAction>) {
        self.due = None;
        self.backoff = None;
        let Some(h) = self.hol.as_mut() else { return };
        h.attempts += 1;
        if h.attempts > 1 {
            self.stats.retries += 1;
        }
        let h = *h;
        if uses_rts(&h, phy, mac) {
            let data_d = phy.duration(phy.data_mpdu(h.q.ip_len), h.rate);
            let ctl = phy.control_rate(h.rate);
            let cts_d = phy.duration(phy.cts_len, ctl);
            let ack_d = phy.duration(phy.ack_len, ctl);
            let rts = Frame {
                kind: FrameKind::Rts,
                src: self.id,
                dst: h.q.dst,
                nav: phy.sifs.times(3) + cts_d + data_d + ack_d, // 9.3.1.2
                bytes: phy.rts_len,
                rate: ctl,
                pkt: None,
                seq: 0,
                retry: false,
            };
            self.transmit(now, rts, phy, out);
            self.wait_after(now, phy, FrameKind::Rts, ctl);
        } else {
            let f = data_frame(self.id, &h, phy);
            self.transmit(now, f, phy, out);
            if h.q.dst != BROADCAST {
                self.wait_after(now, phy, FrameKind::Data, f.rate);
            }
        }
    }

    fn wait_after(&mut self, now: SimTime, phy: &PhyParams, sent: FrameKind, _rate: u64) {
        let end = self.tx_until.unwrap_or(now);
        let deadline = end + phy.response_timeout;
        self.wait = match sent {
            FrameKind::Rts => Wait::Cts(deadline),
            _ => Wait::Ack(deadline),
        };
    }

    fn transmit(&mut self, now: SimTime, f: Frame, phy: &PhyParams, out: &mut Vec<MacAction>) {
        // Our own transmission makes the medium busy for us: a pending count freezes.
        self.freeze(now, phy);
        let d = phy.duration(f.bytes, f.rate);
        self.tx_until = Some(now + d);
        match f.kind {
            FrameKind::Data => {
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += f.bytes as u64;
            }
            _ => self.stats.control_frames_sent += 1,
        }
        out.push(MacAction::Transmit(f, d));
    }
}

fn uses_rts(h: &Hol, phy: &PhyParams, mac: &MacParams) -> bool {
    h.q.dst != BROADCAST && phy.data_mpdu(h.q.ip_len) > mac.rts_threshold
}

fn data_frame(me: u32, h: &Hol, phy: &PhyParams) -> Frame {
    let broadcast = h.q.dst == BROADCAST;
    Frame {
        kind: FrameKind::Data,
        src: me,
        dst: h.q.dst,
        // 9.3.2.1 / 10.3.2.5: unicast data reserves SIFS + ACK; broadcast reserves nothing.
        nav: if broadcast {
            SimTime::ZERO
        } else {
            phy.sifs + phy.ack_duration(h.rate)
        },
        bytes: phy.data_mpdu(h.q.ip_len),
        rate: h.rate,
        pkt: Some(h.q.pkt),
        seq: h.seq,
        retry: h.attempts > 1 || h.lrc > 0,
    }
}
