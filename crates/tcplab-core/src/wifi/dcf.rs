//! The 802.11 DCF MAC of one station as a sans-IO state machine.
//!
//! The MAC never schedules anything and reads no one else's state. Everything it learns is an
//! [`Input`] given to [`Dcf::handle`] at an instant: the medium turns busy (with the instant the
//! frame reached this station) or idle, its PHY locks on a frame, a reception ends with a frame or
//! an error, its own transmission ends, its deadline comes, its outage starts or ends. Packets from
//! the network layer come through [`Dcf::enqueue`]. Every input pushes [`MacAction`]s (transmit,
//! deliver up, free, drop, link failure) and [`Dcf::next_deadline`] says when to call it with
//! [`Input::Timer`]. Propagation and reception (who hears what, collisions, capture, errors) stay
//! in the channel.
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
//! IEEE 802.11-2016 10.3.2.5 (NAV reset after an RTS); ns-2.35 `mac/mac-802_11.cc` for the ns-2
//! preset's choices (see ALGORITHMS.md §6.1).

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
    /// Reset a NAV set by an RTS if no frame starts within 2·SIFS + CTS + aRxPHYStartDelay +
    /// 2·slot after it (IEEE 802.11-2016 10.3.2.5; optional in the standard, off by default).
    pub nav_reset: bool,
}

impl Default for MacParams {
    fn default() -> Self {
        MacParams {
            rts_threshold: 2347, // ALGORITHMS.md §6.1 "Real 802.11b": RTSThreshold 2347 (off)
            short_retry_limit: 7, // 802.11-2020 Annex C dot11ShortRetryLimit
            long_retry_limit: 4, // 802.11-2020 Annex C dot11LongRetryLimit
            queue_limit: 50,     // ns-2 IFQ limit_ 50
            nav_reset: false,
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

/// What the channel tells the MAC. Handled at the instant given to [`Dcf::handle`]: for the end of
/// a frame, the instant it ended *at this station* (its end plus the propagation delay from its
/// sender).
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// The medium turned busy here (the first signal above the CS threshold). The frame started
    /// at the handling instant and reaches this station at `arrival`.
    MediumBusy { arrival: SimTime },
    /// The last sensed signal ended.
    MediumIdle,
    /// The PHY locked on an incoming frame (PHY-RXSTART).
    RxStart,
    /// A reception ended with a correctly received frame.
    Frame(&'a Frame),
    /// A reception ended without a frame: collision, below the reception threshold, or lost to
    /// the error model (PHY-RXEND with an error).
    FrameError,
    /// The PHY, locked on one frame, captured it against a weaker newcomer that lasts
    /// `air_time` (ns-2's model: `MacParams`' owner decides whether the channel reports it).
    Captured { air_time: SimTime },
    /// This station's own transmission ended.
    TxEnd,
    /// The deadline [`Dcf::next_deadline`] gave has come.
    Timer,
    /// A scheduled outage starts (true) or ends (false).
    Down(bool),
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
    /// The retry limit to `dst` was exceeded (the network layer's link-failure callback); it
    /// follows the `Drop` of the same packet and hands that packet to the network layer.
    LinkFailure {
        dst: u32,
        pkt: PktId,
    },
    /// The MAC took `pkt` from the interface queue to send it (ns-2's `Queue::resume` handing
    /// the next packet down when the MAC is done with the last); only when asked for
    /// (`Dcf::set_report_dequeue`, the event trace's IFQ rows). `dst` as in `QueuedPkt`.
    Dequeued {
        pkt: PktId,
        dst: u32,
    },
    /// A promiscuous station decoded a unicast data frame from `src` to another station
    /// `dst` (ns-2's MAC tap): `pkt` is the sender's copy, shown to the network layer, not
    /// handed over.
    Overheard {
        pkt: PktId,
        src: u32,
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
    /// Of those, the data frames sent again (the frames with the Retry bit, 9.2.4.1.4); the
    /// rest are RTS frames sent again, which as control frames carry no Retry bit.
    pub data_retries: u64,
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
    /// Unicast data frames for other stations reported by promiscuous reception.
    pub overheard: u64,
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
    /// DATA frames of this MSDU put on the air so far (an RTS is not one).
    data_tx: u32,
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
    // ---- the medium as this station sees it (from its inputs)
    /// A signal above the CS threshold is present (between `MediumBusy` and `MediumIdle`).
    busy: bool,
    /// The PHY is locked on a frame (between `RxStart` and the reception's end).
    rx_locked: bool,
    tx_until: Option<SimTime>,
    phys_idle_since: SimTime,
    nav_until: SimTime,
    /// No backoff counting before this instant + IFS (set at the end of a response timeout).
    floor: SimTime,
    eifs: bool,
    wait: Wait,
    resp: Option<(SimTime, Frame)>,
    /// A NAV set by an RTS that may be reset (10.3.2.5 in 802.11-2016): (deadline, NAV before).
    rts_nav: Option<(SimTime, SimTime)>,
    /// (source, last sequence number) for duplicate detection.
    dup: Vec<(u32, u16)>,
    /// The station is in a scheduled outage.
    down: bool,
    /// Report decoded unicast data frames for other stations (off unless the node's routing
    /// agent asks for them).
    promiscuous: bool,
    /// Report each packet taken from the interface queue (`MacAction::Dequeued`; off unless
    /// the event trace records the IFQ layer).
    report_dequeue: bool,
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
            busy: false,
            rx_locked: false,
            tx_until: None,
            phys_idle_since: SimTime::ZERO,
            nav_until: SimTime::ZERO,
            floor: SimTime::ZERO,
            eifs: false,
            wait: Wait::None,
            resp: None,
            rts_nav: None,
            dup: Vec::new(),
            down: false,
            promiscuous: false,
            report_dequeue: false,
            stats: MacStats::default(),
            rng,
        }
    }

    /// Turns promiscuous reception on or off (ns-2's `install-tap` on the MAC).
    pub fn set_promiscuous(&mut self, on: bool) {
        self.promiscuous = on;
    }

    /// Turns the `MacAction::Dequeued` reports on or off.
    pub fn set_report_dequeue(&mut self, on: bool) {
        self.report_dequeue = on;
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len() + self.hol.is_some() as usize
    }

    /// Packets waiting in the interface queue, the one the MAC is sending not included.
    pub fn ifq_len(&self) -> usize {
        self.queue.len()
    }

    /// Whether the station's own transmission is under way (until its end is processed).
    #[inline]
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
    #[inline]
    fn access_start(&self, phy: &PhyParams) -> Option<SimTime> {
        if self.tx_until.is_some() || self.busy || self.wait != Wait::None || self.resp.is_some() {
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
            None => self.backoff = Some(self.draw(phy)),
        }
    }

    /// Starts counting if the medium is idle and something needs access.
    #[inline]
    fn resume(&mut self, phy: &PhyParams) {
        if self.due.is_some() || (self.hol.is_none() && self.backoff.is_none()) {
            return;
        }
        if let Some(s) = self.access_start(phy) {
            self.due = Some(s + phy.slot.times(self.backoff.unwrap_or(0) as u64));
        }
    }

    /// A post-backoff that ran out with nothing to send leaves no backoff pending.
    #[inline]
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

    fn draw(&mut self, phy: &PhyParams) -> u32 {
        // 10.3.4.3: uniform on [0, CW]; ns-2 draws `Random::random() % cw`, i.e. [0, CW − 1].
        let n = if phy.ns2_backoff {
            self.cw
        } else {
            self.cw + 1
        };
        self.rng.below(n.max(1) as u64) as u32
    }

    /// The next instant `on_timer` must run.
    #[inline]
    pub fn next_deadline(&self) -> Option<SimTime> {
        let mut t: Option<SimTime> = None;
        let mut take = |x: SimTime| t = Some(t.map_or(x, |y: SimTime| y.min(x)));
        if let Some((at, _)) = self.resp {
            take(at);
        }
        if let Some((at, _)) = self.rts_nav {
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

    /// Everything that decides this MAC's future behaviour but its queue and random stream,
    /// in a form tests can compare.
    #[cfg(test)]
    fn state(&self) -> String {
        format!(
            "{:?}",
            (
                (self
                    .hol
                    .map(|h| (h.q, h.seq, h.src, h.lrc, h.attempts, h.data_tx))),
                (self.seq_next, self.cw, self.backoff, self.due),
                (
                    self.busy,
                    self.rx_locked,
                    self.tx_until,
                    self.phys_idle_since
                ),
                (self.nav_until, self.floor, self.eifs, self.wait),
                (self.resp, self.rts_nav, &self.dup, self.down),
            )
        )
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
            self.next_hol(out);
            if self.due.is_none() && self.backoff.is_none() && self.access_start(phy).is_none() {
                // The medium is busy as the frame arrives: back off (10.3.4.3).
                self.backoff = Some(self.draw(phy));
            }
            self.resume(phy);
            if self.due.is_some_and(|d| d <= now) {
                self.access(now, phy, mac, out);
            }
        }
        true
    }

    /// The MAC takes the next packet from the interface queue (once per MSDU, not per retry).
    fn next_hol(&mut self, out: &mut Vec<MacAction>) {
        if let Some(q) = self.queue.pop() {
            if self.report_dequeue {
                out.push(MacAction::Dequeued {
                    pkt: q.pkt,
                    dst: q.dst,
                });
            }
            let seq = self.seq_next;
            self.seq_next = (self.seq_next + 1) & 0x0fff; // 12-bit sequence number (9.2.4.4.2)
            self.hol = Some(Hol {
                q,
                seq,
                src: 0,
                lrc: 0,
                attempts: 0,
                data_tx: 0,
                rate: q.rate,
            });
        }
    }

    /// Handles one input at `now` (for the end of a frame: its end at this station).
    pub fn handle(
        &mut self,
        now: SimTime,
        input: Input<'_>,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        self.settle(now);
        match input {
            Input::MediumBusy { .. } | Input::RxStart | Input::Captured { .. } => {
                self.sense_inner(now, input, phy)
            }
            Input::MediumIdle => {
                self.busy = false;
                self.phys_idle_since = self.phys_idle_since.max(now);
            }
            Input::Frame(f) => {
                self.rx_locked = false;
                self.on_frame(now, f, phy, mac, out);
            }
            Input::FrameError => {
                self.rx_locked = false;
                self.on_rx_error(now, phy, mac, out);
            }
            Input::TxEnd => self.on_tx_end(now, phy, out),
            Input::Timer => self.on_timer(now, phy, mac, out),
            Input::Down(down) => {
                self.down = down;
                if down {
                    self.rx_locked = false; // the PHY is off: a reception in progress is lost
                }
            }
        }
        self.resume(phy);
    }

    /// The end of a frame at one of its hearers in one call: the reception's outcome
    /// (`Input::Frame` or `Input::FrameError`, or None when the station was not locked on the
    /// frame) and then, if `idle`, `Input::MediumIdle` at the same instant. Exactly `handle`
    /// with each of them in turn: `MediumIdle` pushes no action, and the actions a reception's
    /// end pushes (deliver, sent, drop, link failure, dequeue, overheard; never a transmission)
    /// read nothing of this MAC, so the channel may carry them out after both inputs.
    pub fn rx_end(
        &mut self,
        now: SimTime,
        input: Option<Input<'_>>,
        idle: bool,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        debug_assert!(input.is_none_or(|i| matches!(i, Input::Frame(_) | Input::FrameError)));
        if let Some(input) = input {
            self.handle(now, input, phy, mac, out);
        }
        if idle {
            self.settle(now);
            self.busy = false;
            self.phys_idle_since = self.phys_idle_since.max(now);
            self.resume(phy);
        }
    }

    /// Handles one of the inputs a frame's start gives its hearers (`MediumBusy`, `RxStart`,
    /// `Captured`), exactly as [`Dcf::handle`] would. These never ask for an action and never
    /// bring [`Dcf::next_deadline`] forward (they only freeze a count, lock the PHY or extend the
    /// NAV, and arrive while the medium is busy, when no count starts), so the channel needs
    /// neither to carry out actions nor to re-arm the station's timer after them; other inputs
    /// are refused (debug builds).
    pub fn sense(&mut self, now: SimTime, input: Input<'_>, phy: &PhyParams) {
        debug_assert!(matches!(
            input,
            Input::MediumBusy { .. } | Input::RxStart | Input::Captured { .. }
        ));
        self.settle(now);
        self.sense_inner(now, input, phy);
        self.resume(phy);
    }

    /// What a frame's start gives one hearer, in one call: `MediumBusy { arrival }` if it
    /// makes the medium busy here, then `RxStart` if the PHY locks on it, or
    /// `Captured { air_time }` if the frame being received captured it. Exactly [`Dcf::sense`]
    /// with each of them in turn: once the medium is busy (the first of them makes it so, or it
    /// already was) `resume` starts no count, and `settle` at the same instant finds nothing
    /// newly due, so the `settle` and `resume` between the inputs change nothing.
    pub fn sense_start(
        &mut self,
        now: SimTime,
        arrival: Option<SimTime>,
        rx_start: bool,
        captured: Option<SimTime>,
        phy: &PhyParams,
    ) {
        self.settle(now);
        if let Some(arrival) = arrival {
            self.sense_inner(now, Input::MediumBusy { arrival }, phy);
        }
        debug_assert!(self.busy || (!rx_start && captured.is_none()));
        if rx_start {
            self.sense_inner(now, Input::RxStart, phy);
        }
        if let Some(air_time) = captured {
            self.sense_inner(now, Input::Captured { air_time }, phy);
        }
        self.resume(phy);
    }

    #[inline]
    fn sense_inner(&mut self, now: SimTime, input: Input<'_>, phy: &PhyParams) {
        match input {
            Input::MediumBusy { arrival } => {
                self.busy = true;
                self.freeze(arrival + phy.cca_time, phy);
            }
            Input::RxStart => {
                self.rx_locked = true;
                // 10.3.2.5 (2016): a frame started, so a NAV set by an RTS stands.
                self.rts_nav = None;
            }
            Input::Captured { air_time } => {
                // ns-2.35 Mac802_11::capture(): NAV = EIFS + the captured-away frame's air time.
                self.nav_until = self.nav_until.max(now + phy.eifs + air_time);
            }
            _ => {}
        }
    }

    /// The station's own transmission ended at `end`.
    fn on_tx_end(&mut self, end: SimTime, phy: &PhyParams, out: &mut Vec<MacAction>) {
        self.tx_until = None;
        self.phys_idle_since = self.phys_idle_since.max(end);
        // A broadcast data frame is done when it is sent (no ACK, 10.3.6).
        if self.wait == Wait::None {
            if let Some(h) = self.hol {
                if h.q.dst == BROADCAST && h.attempts > 0 {
                    self.hol = None;
                    out.push(MacAction::Sent(h.q.pkt));
                    self.success(phy, out);
                }
            }
        }
    }

    #[inline]
    fn success(&mut self, phy: &PhyParams, out: &mut Vec<MacAction>) {
        self.cw = phy.cw_min;
        self.next_hol(out);
        self.restart_backoff(phy);
    }

    /// A new backoff from the current CW: after every transmission, successful or not, and
    /// before a retry (10.3.4.3).
    fn restart_backoff(&mut self, phy: &PhyParams) {
        self.backoff = Some(self.draw(phy));
        self.due = None;
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
                let before = self.nav_until;
                self.nav_until = self.nav_until.max(now + f.nav);
                if f.kind == FrameKind::Rts && mac.nav_reset && self.nav_until > before {
                    // 802.11-2016 10.3.2.5: the NAV may be reset if no frame starts within
                    // 2·SIFS + CTS_Time (at the RTS's rate) + aRxPHYStartDelay + 2·slot.
                    let window = phy.sifs.times(2)
                        + phy.duration(phy.cts_len, f.rate)
                        + phy.rx_start_delay
                        + phy.slot.times(2);
                    self.rts_nav = Some((now + window, before));
                }
                // ns-2 `recv_timer`: the tap sees a data frame after its NAV is set; it is
                // not acknowledged and leaves the duplicate cache alone (only the addressee
                // keeps one, 10.3.2.14).
                if let (true, FrameKind::Data, Some(pkt)) = (self.promiscuous, f.kind, f.pkt) {
                    self.stats.overheard += 1;
                    out.push(MacAction::Overheard {
                        pkt,
                        src: f.src,
                        dst: f.dst,
                    });
                }
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
                    self.success(phy, out);
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
            out.push(MacAction::LinkFailure {
                dst: h.q.dst,
                pkt: h.q.pkt,
            });
            self.cw = phy.cw_min; // reset on a drop as on success (10.3.4.3)
            self.next_hol(out);
        } else {
            self.hol = Some(h);
            self.cw = (2 * (self.cw + 1) - 1).min(phy.cw_max);
        }
        self.restart_backoff(phy);
    }

    fn on_timer(
        &mut self,
        now: SimTime,
        phy: &PhyParams,
        mac: &MacParams,
        out: &mut Vec<MacAction>,
    ) {
        if let Some((at, before)) = self.rts_nav {
            if at <= now {
                self.rts_nav = None;
                // No frame followed the RTS: the NAV ends now (or at what it was before).
                self.nav_until = before.max(now);
                // A count waiting for the old NAV to end restarts from now (it had not begun).
                if self.due.is_some_and(|d| d > now) {
                    self.due = None;
                }
            }
        }
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
            let ctl = phy.rts_rate(h.rate);
            let cts_d = phy.duration(phy.cts_len, ctl);
            let ack_d = phy.ack_duration(h.rate);
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
        self.rx_locked = false; // half duplex: sending ends a reception in progress
        match f.kind {
            FrameKind::Data => {
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += f.bytes as u64;
                if f.retry {
                    self.stats.data_retries += 1;
                }
                if let Some(h) = self.hol.as_mut() {
                    h.data_tx += 1;
                }
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
        // 9.2.4.1.4: the Retry bit marks a retransmission of this DATA frame; failed RTS
        // attempts before its first transmission do not make it one (ns-2.35 mac-802_11.cc
        // sets fc_retry only in RetransmitDATA).
        retry: h.data_tx > 0,
    }
}

#[cfg(test)]
mod tests {
    //! The DCF alone, driven by hand-written input traces. Station 0 is the MAC under test;
    //! stations 1 and 2 are peers whose frames are written out. CW = 0, so every backoff is 0
    //! slots and the times are exact.
    use super::*;

    const ME: u32 = 0;
    const PEER: u32 = 1;
    const OTHER: u32 = 2;

    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }

    struct Mac {
        dcf: Dcf,
        phy: PhyParams,
        mac: MacParams,
        /// Every action with the instant it was asked for.
        trace: Vec<(SimTime, MacAction)>,
        now: SimTime,
    }

    impl Mac {
        fn new(mac: MacParams) -> Mac {
            let mut phy = PhyParams::hr_dsss(false);
            phy.cw_min = 0;
            phy.cw_max = 0;
            Mac::with(phy, mac)
        }

        /// RTS/CTS before every unicast frame.
        fn with_rts() -> Mac {
            Mac::new(MacParams {
                rts_threshold: 0,
                ..MacParams::default()
            })
        }

        fn with(phy: PhyParams, mac: MacParams) -> Mac {
            let dcf = Dcf::new(
                ME,
                &mac,
                &phy,
                Rng::derive(1, crate::rng::StreamId::Custom(0)),
            );
            Mac {
                dcf,
                phy,
                mac,
                trace: Vec::new(),
                now: SimTime::ZERO,
            }
        }

        fn input(&mut self, t: SimTime, i: Input<'_>) {
            self.now = t;
            let mut out = Vec::new();
            self.dcf.handle(t, i, &self.phy, &self.mac, &mut out);
            self.trace.extend(out.into_iter().map(|a| (t, a)));
        }

        /// Offers `q` at `t`; whether the queue took it.
        fn offer(&mut self, t: SimTime, q: QueuedPkt) -> bool {
            self.now = t;
            let mut out = Vec::new();
            let taken = self.dcf.enqueue(t, q, &self.phy, &self.mac, &mut out);
            self.trace.extend(out.into_iter().map(|a| (t, a)));
            taken
        }

        /// A 1500-B packet for `dst` at `t`.
        fn enqueue(&mut self, t: SimTime, dst: u32, pkt: u32) {
            assert!(self.offer(t, queued(dst, pkt)));
        }

        /// Runs the MAC's deadlines up to `t` (the medium stays as it is).
        fn run_until(&mut self, t: SimTime) {
            while let Some(d) = self.dcf.next_deadline().filter(|&d| d <= t) {
                self.input(d.max(self.now), Input::Timer);
            }
            self.now = t;
        }

        /// Runs the MAC's deadlines until it transmits; returns that frame.
        fn next_tx(&mut self) -> (SimTime, Frame) {
            let n = self.sent().len();
            while self.sent().len() == n {
                let d = self.dcf.next_deadline().expect("a deadline");
                self.input(d.max(self.now), Input::Timer);
            }
            *self.sent().last().unwrap()
        }

        /// The frames this MAC transmitted: (start, frame).
        fn sent(&self) -> Vec<(SimTime, Frame)> {
            self.trace
                .iter()
                .filter_map(|(t, a)| match a {
                    MacAction::Transmit(f, _) => Some((*t, *f)),
                    _ => None,
                })
                .collect()
        }

        /// Lets our last transmission end, as the channel would report it.
        fn end_tx(&mut self) {
            let (t, f) = *self.sent().last().unwrap();
            let end = t + self.phy.duration(f.bytes, f.rate);
            self.run_until(end);
            self.input(end, Input::TxEnd);
        }

        /// A correctly received frame that ends at `t` (busy from `t − air time`).
        fn receive(&mut self, t: SimTime, f: Frame) {
            let start = t - self.phy.duration(f.bytes, f.rate);
            self.run_until(start);
            self.input(start, Input::MediumBusy { arrival: start });
            self.input(start, Input::RxStart);
            self.run_until(t);
            self.input(t, Input::Frame(&f));
            self.input(t, Input::MediumIdle);
        }
    }

    fn queued(dst: u32, pkt: u32) -> QueuedPkt {
        QueuedPkt {
            pkt: PktId(pkt),
            dst,
            ip_len: 1500,
            prio: false,
            rate: 11_000_000,
        }
    }

    fn frame(kind: FrameKind, src: u32, dst: u32, nav: SimTime) -> Frame {
        let bytes = match kind {
            FrameKind::Data => 1536,
            FrameKind::Rts => 20,
            _ => 14,
        };
        Frame {
            kind,
            src,
            dst,
            nav,
            bytes,
            rate: 2_000_000,
            pkt: (kind == FrameKind::Data).then_some(PktId(99)),
            seq: 7,
            retry: false,
        }
    }

    // ------------------------------------------------------------------ quiet inputs

    /// Gives `macs` (driven alike; the first one's frames decide) their own deadlines and the
    /// end of their own transmission `tx_end`, in time order, up to `t`, calling `after` after
    /// each input.
    fn run_own_events(
        macs: &mut [&mut Mac],
        tx_end: &mut Option<SimTime>,
        t: SimTime,
        mut after: impl FnMut(&[&mut Mac]),
    ) {
        loop {
            let d = macs[0].dcf.next_deadline().filter(|&d| d <= t);
            let e = tx_end.filter(|&e| e <= t);
            match (d, e) {
                (Some(d), e) if e.is_none_or(|e| d < e) => {
                    let n = macs[0].sent().len();
                    for m in macs.iter_mut() {
                        m.input(d.max(m.now), Input::Timer);
                    }
                    if macs[0].sent().len() > n {
                        let (at, f) = *macs[0].sent().last().unwrap();
                        *tx_end = Some(at + macs[0].phy.duration(f.bytes, f.rate));
                    }
                }
                (_, Some(e)) => {
                    *tx_end = None;
                    for m in macs.iter_mut() {
                        m.input(e.max(m.now), Input::TxEnd);
                    }
                }
                _ => break,
            }
            after(macs);
        }
    }

    /// The channel neither runs actions nor re-arms a hearer's timer after `Dcf::sense` (a
    /// frame's start): that is exact only if these inputs never bring the next deadline
    /// forward. Random but consistent input sequences (frames of others starting and ending,
    /// own transmissions, packets, timers; real CW, RTS/CTS on and off) check it after every
    /// sensed input.
    #[test]
    fn inputs_at_a_frames_start_never_bring_the_deadline_forward() {
        let mut checked = 0;
        for (seed, rts) in [(1, false), (2, true), (3, false), (4, true)] {
            let mut mac = Mac::with(
                PhyParams::ns2_dsss(),
                MacParams {
                    rts_threshold: if rts { 0 } else { 2347 },
                    ..MacParams::default()
                },
            );
            let mut rng = Rng::derive(seed, crate::rng::StreamId::Custom(7));
            // Frames of others on the air: (end, whether our PHY is locked on it).
            let mut others: Vec<(SimTime, bool)> = Vec::new();
            let mut tx_end: Option<SimTime> = None;
            let mut pkt = 0;
            let mut t = us(0);
            for _ in 0..4000 {
                run_own_events(&mut [&mut mac], &mut tx_end, t, |_| {});
                mac.now = t;
                match rng.below(4) {
                    0 => {
                        pkt += 1;
                        let dst = if rng.below(3) == 0 { BROADCAST } else { PEER };
                        mac.offer(t, queued(dst, pkt));
                    }
                    1 if others.len() < 3 => {
                        let end = t + us(50 + rng.below(2000));
                        let locked = others.iter().any(|o| o.1);
                        let lock = !locked && tx_end.is_none();
                        let mut sense = |mac: &mut Mac, i: Input<'_>| {
                            let before = mac.dcf.next_deadline();
                            mac.dcf.sense(t, i, &mac.phy);
                            let after = mac.dcf.next_deadline();
                            assert!(
                                after.is_none_or(|a| before.is_some_and(|b| a >= b)),
                                "seed {seed}: {i:?} at {t:?} moved the deadline {before:?} -> {after:?}"
                            );
                            checked += 1;
                        };
                        if others.is_empty() {
                            let arrival = t + us(1);
                            sense(&mut mac, Input::MediumBusy { arrival });
                        }
                        if lock {
                            sense(&mut mac, Input::RxStart);
                        } else if locked && rng.below(2) == 0 {
                            let air_time = end - t;
                            sense(&mut mac, Input::Captured { air_time });
                        }
                        others.push((end, lock));
                    }
                    2 if !others.is_empty() => {
                        let i = (0..others.len()).min_by_key(|&i| others[i].0).unwrap();
                        let (end, locked) = others.remove(i);
                        let end = end.max(t);
                        mac.run_until(end);
                        t = end;
                        if locked {
                            let kinds = [
                                FrameKind::Data,
                                FrameKind::Ack,
                                FrameKind::Rts,
                                FrameKind::Cts,
                            ];
                            let kind = kinds[rng.below(4) as usize];
                            let (src, dst) = if rng.below(2) == 0 {
                                (PEER, ME)
                            } else {
                                (PEER, OTHER)
                            };
                            let f = frame(kind, src, dst, us(rng.below(500)));
                            if rng.below(4) == 0 {
                                mac.input(t, Input::FrameError);
                            } else {
                                mac.input(t, Input::Frame(&f));
                            }
                        }
                        if others.is_empty() {
                            mac.input(t, Input::MediumIdle);
                        }
                    }
                    _ => t += us(rng.below(400)),
                }
            }
        }
        assert!(checked > 3000, "only {checked} sensed inputs checked");
    }

    /// The channel's merged calls (`sense_start` for what a frame's start gives a hearer,
    /// `rx_end` for a reception's end and the medium turning idle) against the inputs one by
    /// one through `sense` and `handle`: two MACs with the same stream driven by the same random
    /// consistent sequences (real CW, RTS/CTS on and off, packets, own transmissions, timers,
    /// NAV from overheard frames) ask for the same actions and have the same deadline, counters
    /// and whole state (`Dcf::state`) after every step. (Checked by breaking the merged call:
    /// with `rx_end` turning the medium idle before the reception's end, seed 11 fails on the
    /// deadline.)
    #[test]
    fn merged_frame_start_and_end_calls_equal_the_inputs_one_by_one() {
        let mut compared = 0;
        for (seed, rts) in [(11, false), (12, true), (13, false), (14, true)] {
            let params = MacParams {
                rts_threshold: if rts { 0 } else { 2347 },
                ..MacParams::default()
            };
            let mut one = Mac::with(PhyParams::ns2_dsss(), params.clone());
            let mut merged = Mac::with(PhyParams::ns2_dsss(), params);
            let mut rng = Rng::derive(seed, crate::rng::StreamId::Custom(8));
            let mut others: Vec<(SimTime, bool)> = Vec::new();
            let mut tx_end: Option<SimTime> = None;
            let mut pkt = 0;
            let mut t = us(0);
            let same = |a: &Mac, b: &Mac| {
                assert_eq!(a.trace, b.trace, "seed {seed}");
                assert_eq!(a.dcf.next_deadline(), b.dcf.next_deadline(), "seed {seed}");
                assert_eq!(a.dcf.stats, b.dcf.stats, "seed {seed}");
                assert_eq!(a.dcf.state(), b.dcf.state(), "seed {seed}");
            };
            for _ in 0..4000 {
                run_own_events(&mut [&mut one, &mut merged], &mut tx_end, t, |m| {
                    same(m[0], m[1])
                });
                one.now = t;
                merged.now = t;
                match rng.below(4) {
                    0 => {
                        pkt += 1;
                        let dst = if rng.below(3) == 0 { BROADCAST } else { PEER };
                        one.offer(t, queued(dst, pkt));
                        merged.offer(t, queued(dst, pkt));
                    }
                    1 if others.len() < 3 => {
                        let end = t + us(50 + rng.below(2000));
                        let locked = others.iter().any(|o| o.1);
                        let lock = !locked && tx_end.is_none();
                        let arrival = others.is_empty().then(|| t + us(1));
                        let captured = (!lock && locked && rng.below(2) == 0).then(|| end - t);
                        if let Some(arrival) = arrival {
                            one.dcf.sense(t, Input::MediumBusy { arrival }, &one.phy);
                        }
                        if lock {
                            one.dcf.sense(t, Input::RxStart, &one.phy);
                        }
                        if let Some(air_time) = captured {
                            one.dcf.sense(t, Input::Captured { air_time }, &one.phy);
                        }
                        merged
                            .dcf
                            .sense_start(t, arrival, lock, captured, &merged.phy);
                        others.push((end, lock));
                        compared += 1;
                    }
                    2 if !others.is_empty() => {
                        let i = (0..others.len()).min_by_key(|&i| others[i].0).unwrap();
                        let (end, locked) = others.remove(i);
                        let end = end.max(t);
                        one.run_until(end);
                        merged.run_until(end);
                        t = end;
                        let kinds = [
                            FrameKind::Data,
                            FrameKind::Ack,
                            FrameKind::Rts,
                            FrameKind::Cts,
                        ];
                        let kind = kinds[rng.below(4) as usize];
                        let dst = if rng.below(2) == 0 { ME } else { OTHER };
                        let f = frame(kind, PEER, dst, us(rng.below(500)));
                        let input = match (locked, rng.below(4)) {
                            (false, _) => None,
                            (true, 0) => Some(Input::FrameError),
                            (true, _) => Some(Input::Frame(&f)),
                        };
                        let idle = others.is_empty();
                        if let Some(i) = input {
                            one.input(t, i);
                        }
                        if idle {
                            one.input(t, Input::MediumIdle);
                        }
                        let mut out = Vec::new();
                        let (phy, mac) = (&merged.phy, &merged.mac);
                        merged.dcf.rx_end(t, input, idle, phy, mac, &mut out);
                        merged.trace.extend(out.into_iter().map(|a| (t, a)));
                        compared += 1;
                    }
                    _ => t += us(rng.below(400)),
                }
                same(&one, &merged);
            }
        }
        assert!(compared > 3000, "only {compared} merged calls compared");
    }

    // ------------------------------------------------------------------ NAV

    #[test]
    fn nav_from_an_overheard_frame_defers_access() {
        let mut m = Mac::new(MacParams::default());
        // A data frame between two others ends at 2 ms and reserves 1 ms more.
        m.receive(us(2000), frame(FrameKind::Data, PEER, OTHER, us(1000)));
        // Overheard while no response is awaited: no failure (10.3.2.11).
        assert_eq!(m.dcf.stats.tx_failures, 0);
        m.enqueue(us(2100), PEER, 1);
        m.run_until(us(10_000));
        // 10.3.2.5: access waits for the NAV (3 ms), then DIFS.
        assert_eq!(m.sent()[0].0, us(3000) + m.phy.difs);
    }

    #[test]
    fn cts_only_when_the_nav_is_idle() {
        let mut m = Mac::new(MacParams::default());
        m.receive(us(2000), frame(FrameKind::Data, PEER, OTHER, us(1000)));
        // An RTS for us while our NAV runs (until 3 ms): no CTS (10.3.2.7).
        m.receive(us(2500), frame(FrameKind::Rts, OTHER, ME, us(2000)));
        m.run_until(us(2900));
        assert!(m.sent().is_empty(), "{:?}", m.sent());
        // After the NAV: an RTS is answered SIFS after it ends.
        m.receive(us(4000), frame(FrameKind::Rts, OTHER, ME, us(2000)));
        m.run_until(us(4100));
        let s = m.sent();
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].0, s[0].1.kind, s[0].1.dst),
            (us(4010), FrameKind::Cts, OTHER)
        );
    }

    #[test]
    fn nav_reset_after_an_rts_without_data_is_an_option() {
        // 802.11-2016 10.3.2.5: an RTS reserves ~ 2 ms; nothing follows it.
        let rts_end = us(1000);
        let reserve = us(2000);
        let access = |nav_reset: bool| {
            let mut m = Mac::new(MacParams {
                nav_reset,
                ..MacParams::default()
            });
            m.receive(rts_end, frame(FrameKind::Rts, PEER, OTHER, reserve));
            m.enqueue(rts_end + us(1), PEER, 1);
            m.run_until(us(10_000));
            m.sent()[0].0
        };
        let phy = PhyParams::hr_dsss(false);
        // Reset when no PHY-RXSTART within 2·SIFS + CTS (at the RTS's 2 Mb/s) + aRxPHYStartDelay
        // + 2·slot: 20 + 248 + 192 + 40 = 500 µs; access DIFS after the reset.
        let window = us(20) + phy.duration(14, 2_000_000) + us(192) + us(40);
        assert_eq!(access(true), rts_end + window + phy.difs);
        assert_eq!(access(false), rts_end + reserve + phy.difs);
    }

    #[test]
    fn nav_reset_does_not_fire_when_a_frame_follows_the_rts() {
        let mut m = Mac::new(MacParams {
            nav_reset: true,
            ..MacParams::default()
        });
        m.receive(us(1000), frame(FrameKind::Rts, PEER, OTHER, us(2000)));
        m.enqueue(us(1001), PEER, 1);
        // The CTS starts 10 µs after the RTS (for OTHER's reply we only see its start).
        m.run_until(us(1010));
        m.input(us(1010), Input::MediumBusy { arrival: us(1010) });
        m.input(us(1010), Input::RxStart);
        m.input(us(1258), Input::FrameError);
        m.input(us(1258), Input::MediumIdle);
        m.run_until(us(10_000));
        // The NAV of the RTS stands (until 3 ms), followed by EIFS for the undecodable frame.
        assert_eq!(m.sent()[0].0, us(3000) + m.phy.eifs);
    }

    #[test]
    fn a_captured_frame_sets_nav_to_eifs_plus_its_air_time() {
        // ns-2.35 Mac802_11::capture(): while receiving, a weaker frame of 1 ms arrives.
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        m.input(us(1), Input::MediumBusy { arrival: us(1) });
        m.input(us(1), Input::RxStart);
        m.input(us(100), Input::Captured { air_time: us(1000) });
        let f = frame(FrameKind::Ack, PEER, OTHER, SimTime::ZERO);
        m.input(us(400), Input::Frame(&f));
        m.input(us(400), Input::MediumIdle);
        m.run_until(us(10_000));
        assert_eq!(m.sent()[0].0, us(100) + m.phy.eifs + us(1000) + m.phy.difs);
    }

    // ------------------------------------------------------------------ EIFS

    #[test]
    fn eifs_after_an_undecodable_frame_until_a_correct_one() {
        let mut m = Mac::new(MacParams::default());
        m.input(us(100), Input::MediumBusy { arrival: us(100) });
        m.input(us(100), Input::RxStart);
        m.enqueue(us(200), PEER, 1);
        m.input(us(1000), Input::FrameError);
        m.input(us(1000), Input::MediumIdle);
        m.run_until(us(10_000));
        // 10.3.2.3.7: EIFS (364 µs) instead of DIFS.
        assert_eq!(m.sent()[0].0, us(1000) + m.phy.eifs);
        // A correct reception ends EIFS: the next access is DIFS after a frame.
        let mut m = Mac::new(MacParams::default());
        m.input(us(100), Input::MediumBusy { arrival: us(100) });
        m.input(us(100), Input::RxStart);
        m.input(us(1000), Input::FrameError);
        m.input(us(1000), Input::MediumIdle);
        m.receive(us(2000), frame(FrameKind::Ack, PEER, OTHER, SimTime::ZERO));
        m.enqueue(us(2001), PEER, 1);
        m.run_until(us(10_000));
        assert_eq!(m.sent()[0].0, us(2000) + m.phy.difs);
    }

    // ------------------------------------------------------------------ retries and CW

    /// Lets every response timeout expire: each attempt fails.
    fn fail_all(m: &mut Mac, until: SimTime) {
        while m.now < until {
            let n = m.sent().len();
            m.run_until(until);
            if m.sent().len() == n {
                break;
            }
            m.end_tx();
        }
    }

    fn drops(m: &Mac) -> Vec<(SimTime, DropCause)> {
        m.trace
            .iter()
            .filter_map(|(t, a)| match a {
                MacAction::Drop(_, c) => Some((*t, *c)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn short_retry_limit_counts_rts_attempts() {
        // RTS before every frame; no CTS ever comes: 7 RTS, then the drop (10.3.4.4).
        let mut m = Mac::with_rts();
        m.enqueue(us(0), PEER, 1);
        fail_all(&mut m, SimTime::from_millis(100));
        let s = m.sent();
        assert!(s.iter().all(|(_, f)| f.kind == FrameKind::Rts));
        assert_eq!(s.len(), 7);
        assert_eq!(drops(&m).len(), 1);
        assert_eq!(drops(&m)[0].1, DropCause::RetryLimit);
        assert_eq!(m.dcf.stats.retries, 6);
        assert!(m
            .trace
            .iter()
            .any(|(_, a)| matches!(a, MacAction::LinkFailure { dst: PEER, .. })));
    }

    #[test]
    fn long_retry_limit_counts_data_after_cts() {
        // Every RTS gets its CTS, no DATA gets its ACK: 4 DATA frames (long limit), then drop.
        let mut m = Mac::with_rts();
        m.enqueue(us(0), PEER, 1);
        let mut data = 0;
        while drops(&m).is_empty() {
            let (_, f) = m.next_tx();
            m.end_tx();
            if f.kind == FrameKind::Rts {
                let cts_end = m.now + us(10) + m.phy.duration(14, f.rate);
                m.receive(cts_end, frame(FrameKind::Cts, PEER, ME, SimTime::ZERO));
            } else {
                data += 1;
                let timeout = m.now + m.phy.response_timeout;
                m.run_until(timeout);
            }
        }
        assert_eq!(data, 4);
        assert_eq!(drops(&m).len(), 1);
    }

    #[test]
    fn cw_doubles_on_failure_and_resets_on_success_and_on_drop() {
        let mut m = Mac::with(PhyParams::hr_dsss(false), MacParams::default());
        m.enqueue(us(0), PEER, 1);
        let mut cws = vec![m.dcf.cw()];
        for _ in 0..3 {
            m.next_tx();
            m.end_tx();
            let deadline = m.now + m.phy.response_timeout;
            m.run_until(deadline); // no ACK
            cws.push(m.dcf.cw());
        }
        assert_eq!(cws, [31, 63, 127, 255]);
        // The fourth attempt is acknowledged: CW back to CWmin (10.3.4.3).
        m.next_tx();
        m.end_tx();
        let ack_end = m.now + us(10) + m.phy.ack_duration(11_000_000);
        m.receive(ack_end, frame(FrameKind::Ack, PEER, ME, SimTime::ZERO));
        assert_eq!(m.dcf.cw(), 31);
        assert_eq!(m.dcf.stats.acked, 1);
        // Dropped at the retry limit: CW back to CWmin too.
        let mut m = Mac::with(PhyParams::hr_dsss(false), MacParams::default());
        m.enqueue(us(0), PEER, 1);
        fail_all(&mut m, SimTime::from_secs(1));
        assert_eq!(drops(&m).len(), 1);
        assert_eq!(m.dcf.cw(), 31);
    }

    #[test]
    fn a_success_is_followed_by_a_backoff_before_the_next_frame() {
        // 10.3.4.3: a backoff after every transmission, also with the next frame waiting.
        let mut m = Mac::with(PhyParams::hr_dsss(false), MacParams::default());
        m.enqueue(us(1000), PEER, 1);
        m.enqueue(us(1000), PEER, 2);
        m.end_tx();
        let ack_end = m.now + m.phy.sifs + m.phy.ack_duration(11_000_000);
        m.receive(ack_end, frame(FrameKind::Ack, PEER, ME, SimTime::ZERO));
        let k = m.dcf.backoff.expect("a backoff drawn after the success");
        let due = ack_end + m.phy.difs + m.phy.slot.times(k as u64);
        assert_eq!(m.next_tx().0, due);
    }

    #[test]
    fn ns2_draws_backoff_below_cw_and_ieee_up_to_cw() {
        let max_draw = |ns2: bool| {
            let mut phy = PhyParams::hr_dsss(false);
            phy.cw_min = 3;
            phy.ns2_backoff = ns2;
            let mut m = Mac::with(phy, MacParams::default());
            (0..400).map(|_| m.dcf.draw(&m.phy.clone())).max().unwrap()
        };
        assert_eq!(max_draw(false), 3);
        assert_eq!(max_draw(true), 2);
    }

    // ------------------------------------------------------------------ frames sent

    #[test]
    fn rts_and_data_reserve_the_rest_of_the_exchange() {
        let mut m = Mac::with_rts();
        m.enqueue(us(0), PEER, 1);
        let (_, rts) = m.next_tx();
        m.end_tx();
        let (p, rate) = (m.phy.clone(), 11_000_000);
        let (ctl, data_bytes) = (p.rts_rate(rate), p.data_mpdu(1500));
        let (cts_d, data_d, ack_d) = (
            p.duration(p.cts_len, ctl),
            p.duration(data_bytes, rate),
            p.ack_duration(rate),
        );
        // 9.3.1.2: the RTS reserves 3·SIFS + CTS + DATA + ACK.
        assert_eq!(
            (rts.kind, rts.dst, rts.bytes),
            (FrameKind::Rts, PEER, p.rts_len)
        );
        assert_eq!(rts.nav, p.sifs.times(3) + cts_d + data_d + ack_d);
        let cts_end = m.now + p.sifs + cts_d;
        m.receive(cts_end, frame(FrameKind::Cts, PEER, ME, SimTime::ZERO));
        let (t, data) = m.next_tx();
        // The DATA goes SIFS after the CTS and reserves SIFS + ACK (9.3.2.1).
        assert_eq!(t, cts_end + p.sifs);
        assert_eq!(data.nav, p.sifs + ack_d);
        assert_eq!(
            (data.kind, data.bytes, data.rate, data.pkt, data.retry),
            (FrameKind::Data, data_bytes, rate, Some(PktId(1)), false)
        );
        assert_eq!(m.dcf.stats.control_frames_sent, 1);
        assert_eq!(m.dcf.stats.data_frames_sent, 1);
        assert_eq!(m.dcf.stats.data_bytes_sent, data_bytes as u64);
    }

    #[test]
    fn sequence_numbers_count_modulo_4096_and_a_retry_keeps_its_own() {
        let mut m = Mac::new(MacParams::default());
        m.dcf.seq_next = 4095;
        for pkt in 1..=2 {
            m.enqueue(us(0), PEER, pkt);
        }
        let (_, first) = m.next_tx();
        m.end_tx();
        m.run_until(m.now + m.phy.response_timeout); // no ACK: the same MSDU again
        let (_, retry) = m.next_tx();
        m.end_tx();
        let ack_end = m.now + m.phy.sifs + m.phy.ack_duration(11_000_000);
        m.receive(ack_end, frame(FrameKind::Ack, PEER, ME, SimTime::ZERO));
        let (_, second) = m.next_tx();
        // 9.2.4.4.2: a 12-bit sequence number per MSDU; the retransmission sets Retry (9.2.4.1.4).
        assert_eq!((first.seq, first.retry), (4095, false));
        assert_eq!((retry.seq, retry.retry, retry.pkt), (4095, true, first.pkt));
        assert_eq!(
            (second.seq, second.retry, second.pkt),
            (0, false, Some(PktId(2)))
        );
        assert_eq!((m.dcf.stats.acked, m.dcf.stats.retried_msdus), (1, 1));
    }

    #[test]
    fn a_broadcast_reserves_nothing_and_waits_for_no_ack() {
        let mut m = Mac::with_rts();
        m.enqueue(us(0), BROADCAST, 1);
        m.enqueue(us(0), BROADCAST, 2);
        let (_, f) = m.next_tx();
        // No RTS for a broadcast, NAV 0 and done at its end (9.3.2.1, 10.3.6).
        assert_eq!(
            (f.kind, f.dst, f.nav),
            (FrameKind::Data, BROADCAST, SimTime::ZERO)
        );
        m.end_tx();
        let sent: Vec<_> = m
            .trace
            .iter()
            .filter_map(|(_, a)| match a {
                MacAction::Sent(p) => Some(*p),
                _ => None,
            })
            .collect();
        assert_eq!(sent, [PktId(1)]);
        // The next broadcast follows after DIFS, with no response timeout in between.
        let end = m.now;
        let (t, g) = m.next_tx();
        assert_eq!((t, g.pkt), (end + m.phy.difs, Some(PktId(2))));
        assert_eq!(m.dcf.stats.tx_failures, 0);
    }

    #[test]
    fn the_queue_counts_the_frame_in_progress_and_a_drain_leaves_it() {
        let mut m = Mac::new(MacParams::default());
        for (pkt, dst) in [(1, PEER), (2, PEER), (3, OTHER)] {
            m.enqueue(us(0), dst, pkt);
        }
        // Packet 1 is the head of line (waiting for DIFS), 2 and 3 are queued.
        assert_eq!(m.dcf.queue_len(), 3);
        // AODV's filter removes the queued packets for a destination, not the one in progress.
        assert_eq!(m.dcf.drain_for(PEER), [PktId(2)]);
        assert_eq!(m.dcf.queue_len(), 2);
        assert!(!m.dcf.is_transmitting());
        m.next_tx();
        assert!(m.dcf.is_transmitting());
        m.end_tx();
        assert!(!m.dcf.is_transmitting());
    }

    #[test]
    fn a_full_queue_refuses_a_packet_and_routing_control_pushes_out_the_tail() {
        let mut m = Mac::new(MacParams {
            queue_limit: 2,
            ..MacParams::default()
        });
        for pkt in 1..=3 {
            m.enqueue(us(0), PEER, pkt); // 1 at the head of line, 2 and 3 queued
        }
        assert!(!m.offer(us(0), queued(PEER, 4)));
        assert_eq!(m.dcf.stats.drops_queue, 1);
        // ns-2 PriQueue: a routing packet goes to the head and the tail packet is dropped.
        assert!(m.offer(
            us(0),
            QueuedPkt {
                prio: true,
                ..queued(OTHER, 5)
            }
        ));
        assert_eq!(drops(&m), [(us(0), DropCause::QueueOverflow)]);
        assert_eq!(m.dcf.stats.drops_queue, 2);
        assert_eq!(m.dcf.drain_for(PEER), [PktId(2)]);
    }

    #[test]
    fn a_packet_on_a_medium_idle_for_difs_goes_at_once_and_on_a_busy_one_backs_off() {
        // 10.3.4.2: immediate access when the medium has been idle for DIFS; 10.3.4.3: a
        // backoff when it is busy as the packet arrives. CW = 31 here.
        // Idle from 900 µs; DIFS (50 µs) has passed at 951 µs, no backoff slot yet.
        let mut m = Mac::with(PhyParams::hr_dsss(false), MacParams::default());
        m.input(us(800), Input::MediumBusy { arrival: us(800) });
        m.input(us(900), Input::MediumIdle);
        m.enqueue(us(951), PEER, 1);
        assert_eq!(m.sent().first().map(|s| s.0), Some(us(951)));
        let mut m = Mac::with(PhyParams::hr_dsss(false), MacParams::default());
        m.input(us(900), Input::MediumBusy { arrival: us(900) });
        m.enqueue(us(1000), PEER, 1);
        assert!(m.sent().is_empty() && m.dcf.backoff.is_some());
    }

    #[test]
    fn a_packet_queued_while_this_station_owes_an_ack_backs_off() {
        // 10.3.4.2: immediate access needs the medium idle when the packet is queued and for
        // DIFS after; the ACK this station owes SIFS after the data frame it just received makes
        // the medium busy before that, so the packet backs off (10.3.4.3). ns-3 3.44 checks only
        // the queueing instant and sends such a packet DIFS after the ACK with no backoff
        // (docs/validation/wifi.md, MAC retries vs ns-3). CW = 31 here.
        let mut m = Mac::with(PhyParams::hr_dsss(false), MacParams::default());
        let end = us(3000);
        m.receive(end, frame(FrameKind::Data, PEER, ME, us(10 + 304)));
        m.enqueue(end, PEER, 1);
        let k = m
            .dcf
            .backoff
            .expect("a backoff drawn as the packet is queued");
        let (ack_at, ack) = m.next_tx();
        assert_eq!((ack_at, ack.kind), (end + m.phy.sifs, FrameKind::Ack));
        m.end_tx();
        let ack_end = m.now;
        let (data_at, data) = m.next_tx();
        assert_eq!(data.kind, FrameKind::Data);
        assert_eq!(data_at, ack_end + m.phy.difs + m.phy.slot.times(k as u64));
    }

    #[test]
    fn a_frame_without_its_ack_counts_again_ack_timeout_plus_difs_after_its_end() {
        // 802.11-2016: the backoff is invoked when ACKTimeout (SIFS + slot + aRxPHYStartDelay
        // from the frame's end) expires, and counts after DIFS (nothing was received in error);
        // ns-3 3.44 likewise (ACK-timeout end + DIFS). CW = 0, so the retry draws 0 slots.
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        m.next_tx();
        m.end_tx();
        let end = m.now;
        let (t, f) = m.next_tx();
        assert!(f.retry);
        assert_eq!(t, end + m.phy.response_timeout + m.phy.difs);
        assert_eq!(m.phy.response_timeout, us(10 + 20 + 192)); // 802.11b, long preamble
    }

    // ------------------------------------------------------------------ receiver

    #[test]
    fn another_frame_instead_of_the_ack_is_a_failure_and_a_broadcast_is_delivered_unacked() {
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        m.next_tx();
        m.end_tx();
        // 10.3.2.11: a frame other than the awaited ACK ends the wait as a failure. Here a
        // neighbour's broadcast, which is delivered (9.3.2.1) and never acknowledged.
        let end = m.now + m.phy.sifs + m.phy.duration(1536, 2_000_000);
        m.receive(end, frame(FrameKind::Data, OTHER, BROADCAST, SimTime::ZERO));
        assert_eq!(m.dcf.stats.tx_failures, 1);
        assert_eq!(m.dcf.stats.delivered, 1);
        let (_, again) = m.next_tx();
        assert_eq!((again.kind, again.retry), (FrameKind::Data, true));
        assert_eq!(m.sent().len(), 2, "no ACK for a broadcast: {:?}", m.sent());
    }

    #[test]
    fn a_waiting_broadcast_is_not_done_when_an_ack_this_station_sends_ends() {
        // A broadcast arrives while a frame for us is on the air; our ACK goes first (SIFS), and
        // its end must not count as the broadcast's (10.3.6).
        let mut m = Mac::new(MacParams::default());
        let data = frame(FrameKind::Data, PEER, ME, SimTime::ZERO);
        let end = us(2000);
        let start = end - m.phy.duration(data.bytes, data.rate);
        m.input(start, Input::MediumBusy { arrival: start });
        m.input(start, Input::RxStart);
        m.enqueue(start + us(10), BROADCAST, 1);
        m.input(end, Input::Frame(&data));
        m.input(end, Input::MediumIdle);
        let (_, ack) = m.next_tx();
        assert_eq!(ack.kind, FrameKind::Ack);
        m.end_tx();
        assert!(!m.trace.iter().any(|(_, a)| matches!(a, MacAction::Sent(_))));
        let (_, b) = m.next_tx();
        assert_eq!(
            (b.kind, b.dst, b.pkt),
            (FrameKind::Data, BROADCAST, Some(PktId(1)))
        );
    }

    #[test]
    fn a_promiscuous_station_reports_a_frame_for_another_without_acking_or_caching_it() {
        // ns-2's MAC tap: the frame sets the NAV as any frame for another station, is shown
        // to the network layer, not delivered, not acknowledged, and leaves the duplicate
        // cache alone (the addressee's business, 10.3.2.14).
        let run = |promiscuous: bool| {
            let mut m = Mac::new(MacParams::default());
            m.dcf.set_promiscuous(promiscuous);
            let f = frame(FrameKind::Data, PEER, OTHER, us(258));
            m.receive(us(2000), f);
            assert_eq!(m.dcf.nav_until, us(2258), "NAV from the Duration field");
            m.run_until(us(3000));
            assert!(
                m.sent().is_empty(),
                "no ACK for a frame for another station"
            );
            // The same source and sequence number, with Retry, now for this station: a
            // duplicate only if the overheard frame had entered the cache.
            m.receive(
                us(6000),
                Frame {
                    dst: ME,
                    retry: true,
                    ..f
                },
            );
            let heard: Vec<MacAction> = m
                .trace
                .iter()
                .filter(|(_, a)| {
                    matches!(a, MacAction::Overheard { .. } | MacAction::Deliver { .. })
                })
                .map(|&(_, a)| a)
                .collect();
            (heard, m.dcf.stats.overheard, m.dcf.stats.duplicates)
        };
        let deliver = MacAction::Deliver {
            pkt: PktId(99),
            src: PEER,
        };
        let overheard = MacAction::Overheard {
            pkt: PktId(99),
            src: PEER,
            dst: OTHER,
        };
        assert_eq!(run(true), (vec![overheard, deliver], 1, 0));
        assert_eq!(run(false), (vec![deliver], 0, 0), "off unless asked for");
    }

    #[test]
    fn duplicates_are_acknowledged_but_delivered_once() {
        let mut m = Mac::new(MacParams::default());
        let f = frame(FrameKind::Data, PEER, ME, us(258));
        m.receive(us(2000), f);
        // Our ACK was lost: the peer retransmits the same sequence number with Retry set.
        m.run_until(us(3000));
        m.end_tx();
        m.receive(us(6000), Frame { retry: true, ..f });
        m.run_until(us(7000));
        let delivered = m
            .trace
            .iter()
            .filter(|(_, a)| matches!(a, MacAction::Deliver { .. }))
            .count();
        let acks = m
            .sent()
            .iter()
            .filter(|(_, f)| f.kind == FrameKind::Ack)
            .count();
        assert_eq!((delivered, acks), (1, 2));
        assert_eq!(m.dcf.stats.duplicates, 1);
        // A new sequence number from the same source is delivered.
        m.end_tx();
        m.receive(
            us(9000),
            Frame {
                seq: 8,
                retry: false,
                ..f
            },
        );
        assert_eq!(m.dcf.stats.delivered, 2);
    }

    // ------------------------------------------------------------------ backoff slots

    #[test]
    fn a_frame_detected_after_the_slot_boundary_does_not_freeze_the_count() {
        // Counting after DIFS with 0 slots left: due at DIFS. A frame that reaches us 1 µs
        // before that boundary is not reported by CCA before it (aCCATime 15 µs): we transmit.
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        let due = m.phy.difs;
        m.input(
            due - us(2),
            Input::MediumBusy {
                arrival: due - us(1),
            },
        );
        m.run_until(us(1000));
        assert_eq!(m.sent()[0].0, due);
        // One that reaches us a full CCA time before the boundary freezes it.
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        let early = due - m.phy.cca_time - us(1);
        m.input(early, Input::MediumBusy { arrival: early });
        m.run_until(us(1000));
        assert!(m.sent().is_empty());
        // One detected exactly at the boundary freezes it too: access is granted only in a
        // slot whose boundary came before the detection.
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        let at = due - m.phy.cca_time;
        m.input(at, Input::MediumBusy { arrival: at });
        m.run_until(us(1000));
        assert!(m.sent().is_empty());
    }

    #[test]
    fn a_packet_arriving_on_a_busy_medium_after_an_idle_post_backoff_defers() {
        // After a success the post-backoff (0 slots here) runs out with nothing to send; a
        // packet that then arrives while another station's frame occupies the medium waits for
        // it to end and DIFS (10.3.4.3), instead of using the spent count.
        let (mut m, ack_end) = one_frame_acked();
        let (busy, idle) = (ack_end + us(1000), ack_end + us(2000));
        m.run_until(busy);
        m.input(busy, Input::MediumBusy { arrival: busy });
        m.input(busy, Input::RxStart);
        m.enqueue(busy + us(100), PEER, 2);
        m.run_until(idle);
        assert_eq!(m.sent().len(), 1, "sent on a busy medium: {:?}", m.sent());
        m.input(
            idle,
            Input::Frame(&frame(FrameKind::Ack, PEER, OTHER, SimTime::ZERO)),
        );
        m.input(idle, Input::MediumIdle);
        assert_eq!(m.next_tx().0, idle + m.phy.difs);
    }

    /// A backoff of 5 slots counted from DIFS (50 µs, slots of 20 µs) that a frame arriving at
    /// `arrival` interrupts; the medium is idle again at 1 ms. Returns when the frame goes out.
    fn access_after_a_freeze(arrival: SimTime) -> SimTime {
        let mut m = Mac::new(MacParams::default());
        m.dcf.backoff = Some(5);
        m.enqueue(us(0), PEER, 1);
        assert_eq!(m.dcf.next_deadline(), Some(us(50 + 5 * 20)));
        m.input(arrival, Input::MediumBusy { arrival });
        m.input(us(1000), Input::MediumIdle);
        m.next_tx().0
    }

    #[test]
    fn a_frozen_backoff_resumes_with_the_slots_not_yet_counted() {
        // 10.3.4.3: the counter goes down by one per idle slot; a busy medium freezes it, and
        // counting resumes DIFS after the medium is idle again with the slots left.
        let cca = PhyParams::hr_dsss(false).cca_time.0 / 1_000;
        let resumed = |slots_left: u64| us(1000 + 50 + 20 * slots_left);
        // Detected 2.5 slots into the count: two slot boundaries came before it, 3 slots left.
        assert_eq!(access_after_a_freeze(us(50 + 50 - cca)), resumed(3));
        // Detected exactly at the second boundary: that slot was not idle to its end, 4 left.
        assert_eq!(access_after_a_freeze(us(50 + 40 - cca)), resumed(4));
        // Detected as counting starts: no slot counted, all 5 left.
        assert_eq!(access_after_a_freeze(us(50 - cca)), resumed(5));
    }

    #[test]
    fn a_drop_at_the_retry_limit_is_counted_by_its_cause() {
        // Seven RTS without a CTS (10.3.4.4): one drop at the retry limit, seven failures.
        let mut m = Mac::with_rts();
        m.enqueue(us(0), PEER, 1);
        fail_all(&mut m, SimTime::from_millis(100));
        let st = &m.dcf.stats;
        assert_eq!((st.tx_failures, st.drops_retry, st.drops_outage), (7, 1, 0));
        // The same during an outage: the drop is the outage's.
        let mut m = Mac::with_rts();
        m.input(us(0), Input::Down(true));
        m.enqueue(us(0), PEER, 1);
        fail_all(&mut m, SimTime::from_millis(100));
        let causes: Vec<_> = drops(&m).into_iter().map(|(_, c)| c).collect();
        assert_eq!(causes, [DropCause::Outage]);
        let st = &m.dcf.stats;
        assert_eq!((st.tx_failures, st.drops_retry, st.drops_outage), (7, 0, 1));
    }

    #[test]
    fn a_timer_input_before_the_response_timeout_does_not_end_the_wait() {
        // The channel does not cancel a timer whose deadline moved later (wifi::rearm), so the
        // MAC sees Timer inputs before its deadlines; the wait for the ACK fails only at the
        // response timeout (10.3.2.11).
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        m.next_tx();
        m.end_tx();
        let end = m.now;
        m.input(end + us(1), Input::Timer);
        assert_eq!(m.dcf.stats.tx_failures, 0);
        let ack_end = end + m.phy.sifs + m.phy.ack_duration(11_000_000);
        m.receive(ack_end, frame(FrameKind::Ack, PEER, ME, SimTime::ZERO));
        assert_eq!((m.dcf.stats.acked, m.dcf.stats.tx_failures), (1, 0));
    }

    #[test]
    fn a_nav_reset_keeps_a_count_that_ends_at_the_reset() {
        // An RTS whose NAV ends DIFS before the reset instant (2·SIFS + CTS + aRxPHYStartDelay +
        // 2·slot = 500 µs after it): the count after that NAV ends exactly at the reset, so the
        // reset (10.3.2.5) has nothing to restart and access is granted then, not DIFS later.
        let mut m = Mac::new(MacParams {
            nav_reset: true,
            ..MacParams::default()
        });
        let rts_end = us(1000);
        let phy = PhyParams::hr_dsss(false);
        let window = us(20) + phy.duration(14, 2_000_000) + us(192) + us(40);
        m.receive(
            rts_end,
            frame(FrameKind::Rts, PEER, OTHER, window - phy.difs),
        );
        m.enqueue(rts_end + us(1), PEER, 1);
        assert_eq!(m.next_tx().0, rts_end + window);
    }

    #[test]
    fn a_data_frame_for_us_is_acknowledged_sifs_after_its_end() {
        // 10.3.2.9: the ACK goes out SIFS after the end of the DATA frame, to its sender.
        let mut m = Mac::new(MacParams::default());
        m.receive(us(2000), frame(FrameKind::Data, PEER, ME, us(258)));
        m.run_until(us(3000));
        let s = m.sent();
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].0, s[0].1.kind, s[0].1.dst),
            (us(2000) + m.phy.sifs, FrameKind::Ack, PEER)
        );
        assert_eq!(m.dcf.stats.data_frames_received, 1);
    }

    #[test]
    fn a_first_attempt_success_is_not_a_retried_msdu_and_a_cts_reserves_the_rest() {
        let (m, _) = one_frame_acked();
        assert_eq!((m.dcf.stats.acked, m.dcf.stats.retried_msdus), (1, 0));
        // 9.3.1.3: the CTS's Duration is the RTS's minus SIFS and the CTS's own air time.
        let mut m = Mac::new(MacParams::default());
        m.receive(us(1000), frame(FrameKind::Rts, OTHER, ME, us(2000)));
        m.run_until(us(1100));
        let cts_d = m.phy.duration(14, 2_000_000);
        assert_eq!(m.sent()[0].1.nav, us(2000) - m.phy.sifs - cts_d);
    }

    /// One frame sent at once and acknowledged SIFS after it; returns the MAC and the ACK's end.
    fn one_frame_acked() -> (Mac, SimTime) {
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        m.next_tx();
        m.end_tx();
        let ack_end = m.now + m.phy.sifs + m.phy.ack_duration(11_000_000);
        m.receive(ack_end, frame(FrameKind::Ack, PEER, ME, SimTime::ZERO));
        (m, ack_end)
    }

    #[test]
    fn only_a_retry_with_the_cached_sequence_number_is_a_duplicate() {
        // 10.3.2.14: a duplicate has the Retry bit set and the cached (source, sequence number);
        // a frame without Retry is new even with the same number (the 12-bit space wraps).
        let mut m = Mac::new(MacParams::default());
        let f = frame(FrameKind::Data, PEER, ME, us(258));
        m.receive(us(2000), f);
        m.run_until(us(3000));
        m.end_tx();
        m.receive(us(6000), f);
        assert_eq!((m.dcf.stats.delivered, m.dcf.stats.duplicates), (2, 0));
    }

    #[test]
    fn an_undecodable_frame_fails_an_awaited_response_and_is_no_failure_otherwise() {
        // 10.3.2.11: a reception that starts within the ACK timeout holds the wait until its end;
        // ending in error, it is not the ACK, so the exchange has failed then, not later.
        let mut m = Mac::new(MacParams::default());
        m.enqueue(us(0), PEER, 1);
        m.next_tx();
        m.end_tx();
        let start = m.now + m.phy.sifs;
        m.input(start, Input::MediumBusy { arrival: start });
        m.input(start, Input::RxStart);
        m.run_until(start + us(1000)); // past the response timeout: the reception decides
        assert_eq!(m.dcf.stats.tx_failures, 0);
        let end = start + us(1000);
        m.input(end, Input::FrameError);
        assert_eq!(m.dcf.stats.tx_failures, 1);
        m.input(end, Input::MediumIdle);
        let (t, f) = m.next_tx();
        assert_eq!(
            (t, f.retry),
            (end + m.phy.eifs, true),
            "the retry, EIFS after"
        );
        // With nothing awaited, an undecodable frame only sets EIFS (10.3.2.3.7): no failure, and
        // the queued frame's first attempt is not a retry.
        let mut m = Mac::new(MacParams::default());
        m.input(us(100), Input::MediumBusy { arrival: us(100) });
        m.input(us(100), Input::RxStart);
        m.enqueue(us(200), PEER, 1);
        m.input(us(1000), Input::FrameError);
        m.input(us(1000), Input::MediumIdle);
        let (t, f) = m.next_tx();
        assert_eq!((t, f.retry), (us(1000) + m.phy.eifs, false));
        assert_eq!(m.dcf.stats.tx_failures, 0);
    }

    #[test]
    fn rts_precedes_only_an_mpdu_longer_than_the_rts_threshold() {
        // dot11RTSThreshold (802.11-2016 Annex C): RTS/CTS for an individually addressed MPDU
        // whose length is greater than the threshold; one exactly at the threshold goes without.
        let phy = PhyParams::hr_dsss(false);
        let first_frame = |rts_threshold: u32| {
            let mut m = Mac::new(MacParams {
                rts_threshold,
                ..MacParams::default()
            });
            m.enqueue(us(0), PEER, 1);
            m.next_tx().1.kind
        };
        let mpdu = phy.data_mpdu(1500);
        assert_eq!(first_frame(mpdu), FrameKind::Data);
        assert_eq!(first_frame(mpdu - 1), FrameKind::Rts);
    }
}
