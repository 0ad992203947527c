//! RFC 8985 RACK: a segment is lost when a segment sent after it has been delivered and more
//! than one RTT plus a reordering window has passed since it was sent. Detection is by time, not
//! by counting duplicate ACKs, so lost retransmissions and tail losses are found too. Recovery
//! itself is RFC 6675's shape: pipe-driven transmission of the segments RACK marked lost, then new
//! data; cwnd = ssthresh or, with `prr`, RFC 6937.
//!
//! RACK keeps what a scoreboard of byte ranges cannot: each segment's last transmission time. The
//! socket reports every transmission (`on_sent`) and every ACK (`on_ack`); the scheme marks
//! losses and asks for its reordering timer (`timer`).

use std::collections::VecDeque;

use super::prr::Prr;
use super::{beyond_recover, AckOutcome, FirstRetransmit, LossRecovery, Seq};
use crate::tcp::cc::Window;
use crate::tcp::config::{RecoverBoundary, TcpConfig};
use crate::tcp::scoreboard::{NextSeg, Scoreboard};
use crate::time::SimTime;

/// One transmitted segment [start, end) and what RACK knows of it (RFC 8985 §5.2).
#[derive(Clone, Copy, Debug)]
struct Sent {
    start: u64,
    end: u64,
    /// Time of its latest transmission.
    xmit: SimTime,
    /// Ever retransmitted.
    retx: bool,
    sacked: bool,
    /// Marked lost and not yet delivered.
    lost: bool,
    /// Retransmitted since it was marked lost (so in flight again).
    rexmit: bool,
}

impl Sent {
    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// RFC 8985 §6.2 RACK_sent_after: was (t1, seq1) sent after (t2, seq2)?
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[derive(Clone, Debug)]
pub struct Rack {
    active: bool,
    /// RecoveryPoint (RFC 6675 names): HighData when the episode (or a timeout) began.
    recover: u64,
    boundary: RecoverBoundary,
    segs: VecDeque<Sent>,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered so far.
    xmit_ts: SimTime,
    end_seq: u64,
    /// RACK.rtt: the RTT of that segment.
    rtt: SimTime,
    min_rtt: Option<SimTime>,
    /// RACK.fack: the highest end of a delivered segment.
    fack: u64,
    /// RACK.reord: reordering has been seen on this connection.
    reord: bool,
    /// RFC 8985 §6.2 step 4: the DSACK-driven reordering-window multiplier.
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    sacked_out: u64,
    lost_out: u64,
    retrans_out: u64,
    /// The reordering timer (RFC 8985 §6.2 step 5), absolute.
    timer: Option<SimTime>,
    /// What the last detection marked: anything, a retransmission (Linux's FLAG_LOST_RETRANS).
    marked: Marked,
    prr: Option<Prr>,
}

/// What one run of RACK_detect_loss marked lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marked {
    /// At least one segment.
    pub any: bool,
    /// At least one retransmission, lost again.
    pub retransmission: bool,
}

impl Rack {
    pub fn new(cfg: &TcpConfig, iss: u64) -> Rack {
        Rack {
            active: false,
            recover: iss,
            boundary: cfg.recover_boundary,
            segs: VecDeque::new(),
            xmit_ts: SimTime::ZERO,
            end_seq: iss,
            rtt: SimTime::ZERO,
            min_rtt: None,
            fack: iss,
            reord: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            timer: None,
            marked: Marked::default(),
            prr: cfg.prr.then(Prr::default),
        }
    }

    /// The reordering timer's deadline, if armed.
    pub fn timer(&self) -> Option<SimTime> {
        self.timer
    }

    pub fn prr_mut(&mut self) -> Option<&mut Prr> {
        self.prr.as_mut()
    }

    /// Segments marked lost and not yet delivered.
    pub fn has_lost(&self) -> bool {
        self.lost_out > 0
    }

    /// What the last detection (on an ACK or the reordering timer) marked lost.
    pub fn marked(&self) -> Marked {
        self.marked
    }

    /// Whether a new episode may start now.
    pub fn may_enter(&self, s: &Seq) -> bool {
        !self.active && self.lost_out > 0 && beyond_recover(self.boundary, s.snd_una, self.recover)
    }

    /// Bytes in flight: Linux's packets_out − (sacked_out + lost_out) + retrans_out, in bytes.
    pub fn pipe(&self, s: &Seq) -> u64 {
        (s.flight_size() + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// RFC 6675 NextSeg with RACK's loss marks: the lowest lost segment not yet retransmitted,
    /// then new data.
    pub fn next_seg(&self, can_send_new: bool) -> NextSeg {
        match self.segs.iter().find(|g| g.lost && !g.rexmit && !g.sacked) {
            Some(g) => NextSeg::Retransmit {
                seq: g.start,
                len: g.len(),
                rescue: false,
            },
            None if can_send_new => NextSeg::New,
            None => NextSeg::Nothing,
        }
    }

    /// The last segment sent (the tail loss probe's retransmission), as (seq, len).
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        self.segs.back().map(|g| (g.start, g.len()))
    }

    /// A spurious episode was undone: nothing is lost after all, and nothing retransmitted is
    /// counted in flight twice.
    pub fn forget_losses(&mut self) {
        for g in self.segs.iter_mut() {
            g.lost = false;
            g.rexmit = false;
        }
        self.lost_out = 0;
        self.retrans_out = 0;
        self.timer = None;
    }

    /// Splits the record holding `x` strictly inside it, so that a range starting or ending at
    /// `x` covers whole records.
    fn split_at(&mut self, x: u64) {
        let i = self.segs.partition_point(|g| g.end <= x);
        if let Some(g) = self.segs.get(i).copied() {
            if g.start < x && x < g.end {
                // Flags are per byte; the counters hold bytes, so splitting changes none.
                self.segs[i].end = x;
                self.segs.insert(i + 1, Sent { start: x, ..g });
            }
        }
    }

    /// RFC 8985 §6.1: record each transmission's time. New data appends a record; a
    /// retransmission refreshes the records it covers.
    pub fn on_sent(&mut self, seq: u64, len: u64, now: SimTime) {
        let end = seq + len;
        if self.segs.back().is_none_or(|g| g.end <= seq) {
            self.segs.push_back(Sent {
                start: seq,
                end,
                xmit: now,
                retx: false,
                sacked: false,
                lost: false,
                rexmit: false,
            });
            return;
        }
        self.split_at(seq);
        self.split_at(end);
        let i = self.segs.partition_point(|g| g.end <= seq);
        for g in self.segs.range_mut(i..) {
            if g.start >= end {
                break;
            }
            g.xmit = now;
            g.retx = true;
            if g.lost && !g.rexmit && !g.sacked {
                g.rexmit = true;
                self.retrans_out += g.end - g.start;
            }
        }
        if self.segs.back().is_some_and(|g| g.end < end) {
            // Beyond everything recorded (a retransmission that also carries new bytes).
            let from = self.segs.back().map_or(seq, |g| g.end);
            self.on_sent(from, end - from, now);
        }
    }

    /// RFC 8985 §6.2 step 2 (RACK_update) for a segment just delivered, and step 3 (reordering).
    fn delivered(&mut self, g: Sent, now: SimTime) {
        let rtt = now - g.xmit;
        if !g.retx {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            // Step 3: a never-retransmitted segment below the highest delivered one arrived late.
            if g.end < self.fack {
                self.reord = true;
            }
        } else if self.min_rtt.is_some_and(|m| rtt < m) {
            // Step 2: an ACK faster than any RTT seen answers the original, not the retransmission.
            return;
        }
        self.fack = self.fack.max(g.end);
        if sent_after(g.xmit, g.end, self.xmit_ts, self.end_seq) {
            self.rtt = rtt;
            self.xmit_ts = g.xmit;
            self.end_seq = g.end;
        }
    }

    fn unmark(&mut self, g: &Sent) {
        if g.lost {
            self.lost_out -= g.len();
        }
        if g.rexmit {
            self.retrans_out -= g.len();
        }
    }

    /// An ACK: cumulative point `s.snd_una` (already advanced), its SACK blocks, whether it
    /// carried a DSACK. Updates RACK's state and marks losses (RFC 8985 §6.2 steps 1–5).
    pub fn on_ack(
        &mut self,
        s: &Seq,
        blocks: &[(u64, u64)],
        dsack: bool,
        srtt: Option<SimTime>,
        now: SimTime,
    ) {
        // Cumulatively acknowledged segments leave the list.
        while let Some(g) = self.segs.front().copied() {
            if g.end > s.snd_una {
                if g.start < s.snd_una {
                    // A partial cumulative ACK inside a record.
                    self.split_at(s.snd_una);
                    continue;
                }
                break;
            }
            self.segs.pop_front();
            if g.sacked {
                self.sacked_out -= g.len();
            } else {
                self.unmark(&g);
                self.delivered(g, now);
            }
        }
        for &(bs, be) in blocks {
            if be <= s.snd_una || be > s.snd_max {
                continue;
            }
            self.split_at(bs);
            self.split_at(be);
            let i = self.segs.partition_point(|g| g.end <= bs);
            for k in i..self.segs.len() {
                let g = self.segs[k];
                if g.start >= be {
                    break;
                }
                if !g.sacked {
                    self.segs[k].sacked = true;
                    self.sacked_out += g.len();
                    self.unmark(&g);
                    self.segs[k].lost = false;
                    self.segs[k].rexmit = false;
                    self.delivered(g, now);
                }
            }
        }
        // Step 4: a DSACK means the window was too small; widen it once per round trip and keep
        // it wide for 16 recoveries.
        if dsack {
            self.reord = true;
            if self.dsack_round.is_none_or(|r| s.snd_una > r) {
                self.dsack_round = Some(s.snd_max);
                self.reo_wnd_mult += 1;
                self.reo_wnd_persist = 16;
            }
        }
        self.detect_loss(srtt, now);
    }

    /// RFC 8985 §6.2 step 4: RACK.reo_wnd.
    fn reo_wnd(&self, srtt: Option<SimTime>) -> SimTime {
        if !self.reord {
            // Without reordering seen, behave like DupThresh once it would have fired.
            let sacked_segs = self.segs.iter().filter(|g| g.sacked).take(3).count();
            if self.active || sacked_segs >= 3 {
                return SimTime::ZERO;
            }
        }
        let w = self
            .min_rtt
            .unwrap_or(SimTime::ZERO)
            .times(self.reo_wnd_mult as u64)
            .0
            / 4;
        SimTime(srtt.map_or(w, |s| w.min(s.0)))
    }

    /// RFC 8985 §6.2 step 5 (RACK_detect_loss): mark the segments sent before RACK.xmit_ts whose
    /// time is up; arm the reordering timer for the others.
    pub fn detect_loss(&mut self, srtt: Option<SimTime>, now: SimTime) {
        self.timer = None;
        self.marked = Marked::default();
        let reo = self.reo_wnd(srtt);
        let mut wait: Option<SimTime> = None;
        for g in self.segs.iter_mut() {
            if g.sacked || (g.lost && !g.rexmit) {
                continue;
            }
            if !sent_after(self.xmit_ts, self.end_seq, g.xmit, g.end) {
                if !g.retx {
                    // Later originals were sent later still, and so were retransmissions above.
                    break;
                }
                continue;
            }
            let deadline = g.xmit + self.rtt + reo;
            if deadline <= now {
                g.lost = true;
                self.marked.any = true;
                if g.rexmit {
                    self.marked.retransmission = true;
                    // A lost retransmission: in flight no more, to be sent again.
                    g.rexmit = false;
                    self.retrans_out -= g.end - g.start;
                } else {
                    self.lost_out += g.end - g.start;
                }
            } else {
                wait = Some(wait.map_or(deadline, |w| w.max(deadline)));
            }
        }
        self.timer = wait;
    }

    /// RFC 8985 §6.3: on a timeout, the first outstanding segment and every one whose time is up
    /// are lost.
    fn mark_lost_on_rto(&mut self, now: SimTime, srtt: Option<SimTime>) {
        let reo = self.reo_wnd(srtt);
        let (rtt, first) = (self.rtt, self.segs.front().map(|g| g.start));
        for g in self.segs.iter_mut() {
            if g.sacked {
                continue;
            }
            if Some(g.start) == first || g.xmit + rtt + reo <= now {
                if !g.lost {
                    self.lost_out += g.len();
                }
                if g.rexmit {
                    self.retrans_out -= g.len();
                }
                g.lost = true;
                g.rexmit = false;
            }
        }
        self.timer = None;
    }

    /// The timeout, with the time and SRTT [`LossRecovery::on_timeout`] does not carry.
    pub fn on_rto(&mut self, s: &Seq, now: SimTime, srtt: Option<SimTime>) {
        self.on_timeout(s);
        self.mark_lost_on_rto(now, srtt);
    }
}

impl LossRecovery for Rack {
    fn name(&self) -> &'static str {
        "rack"
    }

    fn in_recovery(&self) -> bool {
        self.active
    }

    fn sack_dupacks(&self) -> bool {
        true
    }

    fn should_enter(&self, _dupacks: u32, _s: &Seq, _sb: &Scoreboard) -> bool {
        // RACK starts an episode when it marks a loss (the socket asks `may_enter`), never on a
        // count of duplicate ACKs.
        false
    }

    fn enter(&mut self, s: &Seq, _sb: &Scoreboard, w: &mut Window) -> FirstRetransmit {
        self.active = true;
        self.recover = s.snd_max - 1;
        // RFC 6675 (4.2) cwnd = ssthresh, or RFC 6937 from here on.
        w.set(w.ssthresh);
        if let Some(p) = self.prr.as_mut() {
            p.start(s.flight_size());
        }
        if self.reo_wnd_persist > 0 {
            self.reo_wnd_persist -= 1;
        } else {
            self.reo_wnd_mult = 1;
        }
        match self.next_seg(false) {
            NextSeg::Retransmit { seq, len, .. } => FirstRetransmit::Range { seq, len },
            _ => FirstRetransmit::Head,
        }
    }

    fn on_dupack(&mut self, _w: &mut Window) {}

    fn on_ack(&mut self, s: &Seq, _acked: u64, w: &mut Window) -> AckOutcome {
        if s.snd_una > self.recover {
            self.active = false;
            w.set(w.ssthresh);
            return AckOutcome::Exit;
        }
        AckOutcome::Stay {
            retransmit_head: false,
            restart_timer: true,
        }
    }

    fn on_timeout(&mut self, s: &Seq) {
        self.active = false;
        self.recover = s.snd_max - 1;
    }

    fn abandon(&mut self) {
        self.active = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    fn seq(una: u64, max: u64) -> Seq {
        Seq {
            snd_una: una,
            snd_max: max,
            mss: M,
            dupthresh: 3,
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn rack() -> Rack {
        Rack::new(&TcpConfig::default(), 0)
    }

    #[test]
    fn a_segment_is_lost_one_rtt_plus_reo_wnd_after_a_later_one_was_delivered() {
        let mut r = rack();
        r.reord = true; // keep the reordering window open: min_rtt / 4
        for k in 0..4 {
            r.on_sent(k * M, M, ms(k));
        }
        // Segment 1 is SACKed at 100 ms (RTT 99 ms); segment 0 (sent 1 ms before it) is not.
        r.on_ack(&seq(0, 4 * M), &[(M, 2 * M)], false, Some(ms(99)), ms(100));
        assert!(!r.has_lost());
        // Deadline: 0 + 99 + 99/4 = 123.75 ms.
        assert_eq!(r.timer(), Some(SimTime(123_750_000)));
        r.detect_loss(Some(ms(99)), SimTime(123_750_000));
        assert!(r.has_lost());
        assert_eq!(
            r.next_seg(true),
            NextSeg::Retransmit {
                seq: 0,
                len: M,
                rescue: false
            }
        );
        // Segments 2 and 3 were sent after the delivered one: not lost.
        assert_eq!(r.pipe(&seq(0, 4 * M)), 2 * M);
    }

    #[test]
    fn a_lost_retransmission_is_detected_again() {
        let mut r = rack();
        for k in 0..6 {
            r.on_sent(k * M, M, ms(0));
        }
        // Segment 0 lost; 1..4 SACKed: three SACKed segments and no reordering → reo_wnd = 0.
        r.on_ack(&seq(0, 6 * M), &[(M, 4 * M)], false, Some(ms(100)), ms(100));
        assert!(r.has_lost());
        r.on_sent(0, M, ms(100));
        assert_eq!(
            r.pipe(&seq(0, 6 * M)),
            3 * M,
            "segments 4, 5 and the retransmission"
        );
        // New data sent after the retransmission is SACKed: the retransmission was sent before
        // it, so once an RTT has passed it is lost again.
        r.on_sent(6 * M, M, ms(110));
        r.on_ack(
            &seq(0, 7 * M),
            &[(6 * M, 7 * M)],
            false,
            Some(ms(100)),
            ms(210),
        );
        assert_eq!(
            r.next_seg(false),
            NextSeg::Retransmit {
                seq: 0,
                len: M,
                rescue: false
            }
        );
    }

    fn rxt(seq: u64, len: u64) -> NextSeg {
        NextSeg::Retransmit {
            seq,
            len,
            rescue: false,
        }
    }

    /// The records as (start, end, xmit in ms, retx).
    fn records(r: &Rack) -> Vec<(u64, u64, u64, bool)> {
        r.segs
            .iter()
            .map(|g| (g.start, g.end, g.xmit.as_millis(), g.retx))
            .collect()
    }

    #[test]
    fn sent_after_orders_by_time_then_by_end_sequence() {
        // RFC 8985 §6.2 RACK_sent_after: later time, or the same time and a higher sequence.
        assert!(sent_after(ms(2), 0, ms(1), 5_000));
        assert!(!sent_after(ms(1), 5_000, ms(2), 0));
        assert!(sent_after(ms(1), 5_000, ms(1), 4_000));
        assert!(!sent_after(ms(1), 4_000, ms(1), 4_000));
        assert!(!sent_after(ms(1), 3_000, ms(1), 4_000));
    }

    #[test]
    fn a_retransmission_refreshes_the_bytes_it_covers_and_appends_what_is_new() {
        // RFC 8985 §6.1: each segment's latest transmission time.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        r.on_sent(M, M, ms(1));
        assert_eq!(r.last_segment(), Some((M, M)));
        // A retransmission across the two records splits both.
        r.on_sent(500, M, ms(5));
        assert_eq!(
            records(&r),
            [
                (0, 500, 0, false),
                (500, M, 5, true),
                (M, 1_500, 5, true),
                (1_500, 2 * M, 1, false)
            ]
        );
        // One that also carries new bytes: the old part refreshed, the new part a new record.
        r.on_sent(1_800, 400, ms(7));
        assert_eq!(
            records(&r)[3..],
            [
                (1_500, 1_800, 1, false),
                (1_800, 2 * M, 7, true),
                (2 * M, 2_200, 7, false)
            ]
        );
        assert_eq!(r.last_segment(), Some((2 * M, 200)));
        // A partial cumulative ACK splits the first record and keeps its upper part.
        r.on_ack(&seq(200, 2_200), &[], false, None, ms(8));
        assert_eq!(records(&r)[0], (200, 500, 0, false));
    }

    /// Segments 0..n of one MSS sent 1 ms apart; segment `sacked` SACKed at `now`, so every
    /// segment below it is lost once `now` reaches its send time + RTT (reo_wnd 0: 3 SACKed).
    fn lost_below(n: u64, sacked: &[u64], now: SimTime) -> Rack {
        let mut r = rack();
        for k in 0..n {
            r.on_sent(k * M, M, ms(k));
        }
        let blocks: Vec<_> = sacked.iter().map(|&k| (k * M, (k + 1) * M)).collect();
        r.on_ack(&seq(0, n * M), &blocks, false, Some(ms(100)), now);
        r
    }

    #[test]
    fn pipe_counts_flight_less_sacked_and_lost_plus_retransmitted() {
        // Segments 4, 5, 6 SACKed at 106 ms (RTT 100 ms from segment 6, sent at 6 ms); 0..3 sent
        // at 0..3 ms are lost (3 SACKed: no reordering window).
        let mut r = lost_below(8, &[4, 5, 6], ms(106));
        let s = seq(0, 8 * M);
        assert_eq!((r.sacked_out, r.lost_out, r.retrans_out), (3 * M, 4 * M, 0));
        // Linux: packets_out − (sacked_out + lost_out) + retrans_out: only segment 7.
        assert_eq!(r.pipe(&s), M);
        assert_eq!(r.next_seg(false), rxt(0, M));
        r.on_sent(0, M, ms(107));
        assert_eq!(r.retrans_out, M);
        assert_eq!(r.pipe(&s), 2 * M);
        // The next lost segment, then new data once every loss is retransmitted.
        assert_eq!(r.next_seg(true), rxt(M, M));
        for k in 1..4 {
            r.on_sent(k * M, M, ms(107));
        }
        assert_eq!(r.next_seg(true), NextSeg::New);
        assert_eq!(r.next_seg(false), NextSeg::Nothing);
        assert_eq!(r.pipe(&s), 5 * M);
        // A retransmission of something not lost adds nothing to retrans_out.
        r.on_sent(7 * M, M, ms(108));
        assert_eq!(r.retrans_out, 4 * M);
        // The cumulative ACK of the retransmitted segments takes them out of every count.
        r.on_ack(&seq(7 * M, 8 * M), &[], false, Some(ms(100)), ms(207));
        assert_eq!((r.sacked_out, r.lost_out, r.retrans_out), (0, 0, 0));
        assert_eq!(r.pipe(&seq(7 * M, 8 * M)), M);
        // More SACKed than in flight (a stale count) cannot make pipe negative.
        r.sacked_out = 5 * M;
        assert_eq!(r.pipe(&seq(7 * M, 8 * M)), 0);
    }

    #[test]
    fn sack_blocks_outside_the_window_are_ignored() {
        let mut r = rack();
        for k in 0..4 {
            r.on_sent(k * M, M, ms(k));
        }
        // Below the cumulative ACK (a DSACK's block), and beyond snd_max.
        r.on_ack(
            &seq(M, 4 * M),
            &[(0, M), (4 * M, 5 * M), (3 * M, 5 * M)],
            false,
            None,
            ms(10),
        );
        assert_eq!(r.sacked_out, 0);
        // A block ending exactly at snd_max is taken.
        r.on_ack(&seq(M, 4 * M), &[(3 * M, 4 * M)], false, None, ms(10));
        assert_eq!(r.sacked_out, M);
        // The cumulative ACK of a SACKed segment leaves sacked_out.
        r.on_ack(&seq(4 * M, 4 * M), &[], false, None, ms(11));
        assert_eq!(r.sacked_out, 0);
    }

    #[test]
    fn the_rtt_comes_from_the_most_recently_sent_delivered_segment() {
        // RFC 8985 §6.2 step 2.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        r.on_sent(M, M, ms(10));
        r.on_sent(2 * M, M, ms(30));
        // Segment 1 delivered at 50 ms: RTT 40 ms.
        r.on_ack(&seq(0, 3 * M), &[(M, 2 * M)], false, None, ms(50));
        assert_eq!((r.rtt, r.xmit_ts, r.end_seq), (ms(40), ms(10), 2 * M));
        assert_eq!(r.min_rtt, Some(ms(40)));
        assert_eq!(r.fack, 2 * M);
        // Segment 0, sent earlier, delivered later: not more recent, RTT kept; min_rtt is the
        // minimum (60 ms > 40 ms); it arrived below fack, so reordering is seen (step 3).
        assert!(!r.reord);
        r.on_ack(&seq(2 * M, 3 * M), &[], false, None, ms(60));
        assert_eq!((r.rtt, r.xmit_ts), (ms(40), ms(10)));
        assert_eq!(r.min_rtt, Some(ms(40)));
        assert!(r.reord);
        // Segment 2 at 62 ms: RTT 32 ms, the new minimum.
        r.on_ack(&seq(3 * M, 3 * M), &[], false, None, ms(62));
        assert_eq!((r.rtt, r.min_rtt), (ms(32), Some(ms(32))));
        assert_eq!(r.fack, 3 * M);
    }

    #[test]
    fn an_ack_of_a_retransmission_faster_than_min_rtt_is_for_the_original() {
        // RFC 8985 §6.2 step 2: such an ACK says nothing of the retransmission's RTT.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        r.on_sent(M, M, ms(0));
        r.on_ack(&seq(0, 2 * M), &[(M, 2 * M)], false, None, ms(50));
        assert_eq!(r.min_rtt, Some(ms(50)));
        r.on_sent(0, M, ms(60));
        r.on_ack(&seq(M, 2 * M), &[], false, None, ms(70));
        assert_eq!((r.rtt, r.xmit_ts), (ms(50), ms(0)), "10 ms < min_rtt");
        // Exactly min_rtt is a plausible RTT of the retransmission.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        r.on_sent(M, M, ms(0));
        r.on_ack(&seq(0, 2 * M), &[(M, 2 * M)], false, None, ms(50));
        r.on_sent(0, M, ms(60));
        r.on_ack(&seq(M, 2 * M), &[], false, None, ms(110));
        assert_eq!((r.rtt, r.xmit_ts), (ms(50), ms(60)));
        // A retransmission does not lower min_rtt.
        r.on_sent(2 * M, M, ms(110));
        r.on_sent(2 * M, M, ms(150));
        r.on_ack(&seq(3 * M, 3 * M), &[], false, None, ms(170));
        assert_eq!(r.min_rtt, Some(ms(50)));
    }

    #[test]
    fn the_reordering_window_is_zero_until_reordering_is_seen_once_dupthresh_would_fire() {
        // RFC 8985 §6.2 step 4.
        let srtt = Some(ms(100));
        let mut r = rack();
        r.min_rtt = Some(ms(80));
        // No SACKed segments, no episode: min_rtt / 4.
        assert_eq!(r.reo_wnd(srtt), ms(20));
        // Capped by SRTT.
        r.reo_wnd_mult = 6;
        assert_eq!(r.reo_wnd(srtt), ms(100));
        assert_eq!(r.reo_wnd(None), ms(120));
        r.reo_wnd_mult = 1;
        // Three SACKed segments (DupThresh) without reordering: zero; two are not enough.
        for k in 0..4 {
            r.on_sent(k * M, M, ms(0));
        }
        r.on_ack(&seq(0, 4 * M), &[(M, 3 * M)], false, srtt, ms(200));
        assert_eq!(r.reo_wnd(srtt), ms(20));
        r.on_ack(&seq(0, 4 * M), &[(M, 4 * M)], false, srtt, ms(200));
        assert_eq!(r.reo_wnd(srtt), SimTime::ZERO);
        // In recovery, zero as well; with reordering seen, the window stays open.
        let mut r = rack();
        r.min_rtt = Some(ms(80));
        r.active = true;
        assert_eq!(r.reo_wnd(srtt), SimTime::ZERO);
        r.reord = true;
        assert_eq!(r.reo_wnd(srtt), ms(20));
    }

    #[test]
    fn a_dsack_widens_the_window_once_per_round_trip_for_sixteen_recoveries() {
        // RFC 8985 §6.2 step 4: reo_wnd_mult += 1 per round trip with a DSACK; reset after 16
        // recoveries without one.
        let mut r = rack();
        let w = &mut Window::new(crate::tcp::config::WindowUnit::Bytes, M, 10 * M, 5 * M);
        r.on_sent(0, 4 * M, ms(0));
        r.on_ack(&seq(M, 4 * M), &[], true, None, ms(10));
        assert!(r.reord);
        assert_eq!((r.reo_wnd_mult, r.reo_wnd_persist), (2, 16));
        // Another DSACK in the same round trip (snd_una not beyond 4000): no change.
        r.on_ack(&seq(4 * M, 4 * M), &[], true, None, ms(11));
        assert_eq!(r.reo_wnd_mult, 2);
        // The next round trip.
        r.on_sent(4 * M, M, ms(12));
        r.on_ack(&seq(4 * M + 1, 5 * M), &[], true, None, ms(13));
        assert_eq!(r.reo_wnd_mult, 3);
        // Each recovery spends one of the 16; the 17th resets the multiplier.
        for _ in 0..16 {
            r.enter(&seq(5 * M, 6 * M), &Scoreboard::default(), w);
            assert_eq!(r.reo_wnd_mult, 3);
        }
        assert_eq!(r.reo_wnd_persist, 0);
        r.enter(&seq(5 * M, 6 * M), &Scoreboard::default(), w);
        assert_eq!(r.reo_wnd_mult, 1);
    }

    #[test]
    fn the_reordering_timer_waits_for_the_latest_deadline_and_skips_what_is_decided() {
        // RFC 8985 §6.2 step 5: segments 0 and 1 sent at 0 and 4 ms, segment 2 SACKed at 100 ms
        // (RTT 92 ms); window min_rtt / 4 = 23 ms (reordering seen).
        let mut r = rack();
        r.reord = true;
        r.on_sent(0, M, ms(0));
        r.on_sent(M, M, ms(4));
        r.on_sent(2 * M, M, ms(8));
        r.on_ack(
            &seq(0, 3 * M),
            &[(2 * M, 3 * M)],
            false,
            Some(ms(200)),
            ms(100),
        );
        // Deadlines 0 + 92 + 23 = 115 ms and 119 ms: the timer is the later one.
        assert_eq!(r.timer(), Some(ms(119)));
        r.detect_loss(Some(ms(200)), ms(115));
        assert_eq!(r.lost_out, M, "segment 0, exactly at its deadline");
        assert_eq!(r.timer(), Some(ms(119)));
        // A lost segment not yet retransmitted is not counted again.
        r.detect_loss(Some(ms(200)), ms(119));
        assert_eq!(r.lost_out, 2 * M);
        assert_eq!(r.timer(), None);
    }

    #[test]
    fn a_timeout_marks_the_first_segment_and_every_expired_one_lost() {
        // RFC 8985 §6.3.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        r.on_sent(M, M, ms(90));
        r.on_sent(2 * M, M, ms(100));
        r.on_sent(3 * M, M, ms(100));
        r.on_ack(
            &seq(0, 4 * M),
            &[(3 * M, 4 * M)],
            false,
            Some(ms(60)),
            ms(160),
        );
        // RTT 60 ms; window min(60/4, SRTT) = 15 ms. Segment 0 lost at 75 ms already; segment 2
        // (same time as 3, lower sequence) was sent before the delivered one, due at 175 ms.
        assert_eq!(r.lost_out, M);
        r.on_sent(0, M, ms(161));
        assert_eq!(r.retrans_out, M);
        // At 170 ms: segment 0 (the first, retransmitted at 161 ms) and segment 1 (90 + 75 ≤
        // 170) are lost; segment 2 (100 + 75 > 170) is not; segment 3 is SACKed.
        r.on_rto(&seq(0, 4 * M), ms(170), Some(ms(60)));
        assert_eq!((r.lost_out, r.retrans_out), (2 * M, 0));
        assert_eq!(r.timer(), None);
        assert_eq!(r.next_seg(false), rxt(0, M));
        r.on_sent(0, M, ms(171));
        assert_eq!(
            r.next_seg(false),
            rxt(M, M),
            "segment 1 lost, not segment 2"
        );
        assert!(!r.in_recovery());
        // §5.1 of RFC 6675 as RACK uses it: no episode until an ACK beyond HighData (3999).
        assert!(!r.may_enter(&seq(3_999, 5 * M)));
        assert!(r.may_enter(&seq(4 * M, 5 * M)));
        // A first segment not yet marked lost is counted as it is marked.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        r.on_rto(&seq(0, M), ms(300), None);
        assert_eq!(r.lost_out, M);
    }

    #[test]
    fn an_episode_starts_on_a_marked_loss_beyond_recover_and_ends_beyond_it() {
        let mut r = lost_below(6, &[3, 4, 5], ms(105));
        // No duplicate-ACK count starts RACK's episode; a marked loss does, once HighACK is
        // beyond recover (the ISS, 0, at first).
        let s = seq(1, 6 * M);
        assert!(!r.should_enter(3, &s, &Scoreboard::default()));
        assert!(r.sack_dupacks());
        assert!(!r.may_enter(&seq(0, 6 * M)));
        assert!(r.may_enter(&s));
        let mut w = Window::new(crate::tcp::config::WindowUnit::Bytes, M, 10 * M, 5 * M);
        assert_eq!(
            r.enter(&s, &Scoreboard::default(), &mut w),
            FirstRetransmit::Range { seq: 0, len: M }
        );
        assert!(r.in_recovery());
        assert!(!r.may_enter(&s), "one episode at a time");
        assert_eq!(w.window(), 5 * M, "RFC 6675 (4.2) cwnd = ssthresh");
        w.set(7 * M);
        // RecoveryPoint = 5999: an ACK of it stays; one beyond ends the episode at ssthresh.
        assert_eq!(
            LossRecovery::on_ack(&mut r, &seq(5_999, 6 * M), M, &mut w),
            AckOutcome::Stay {
                retransmit_head: false,
                restart_timer: true
            }
        );
        assert_eq!(w.window(), 7 * M);
        assert_eq!(
            LossRecovery::on_ack(&mut r, &seq(6 * M, 6 * M), M, &mut w),
            AckOutcome::Exit
        );
        assert_eq!(w.window(), 5 * M);
        assert!(!r.in_recovery());
        // Nothing marked lost: the head.
        let mut r = rack();
        r.on_sent(0, M, ms(0));
        assert_eq!(
            r.enter(&seq(0, M), &Scoreboard::default(), &mut w),
            FirstRetransmit::Head
        );
        r.abandon();
        assert!(!r.in_recovery());
    }

    #[test]
    fn prr_starts_from_the_flight_at_the_episode_start() {
        let cfg = TcpConfig {
            prr: true,
            ..TcpConfig::default()
        };
        let mut r = Rack::new(&cfg, 0);
        let mut w = Window::new(crate::tcp::config::WindowUnit::Bytes, M, 20 * M, 10 * M);
        r.enter(&seq(0, 20 * M), &Scoreboard::default(), &mut w);
        // RFC 6937 with RecoverFS = 20 000: two segments delivered, pipe 18 000 → one out.
        r.prr_mut().unwrap().on_ack(2 * M, 18 * M, &mut w);
        assert_eq!(w.window(), 19 * M);
        assert!(rack().prr_mut().is_none());
    }

    #[test]
    fn forgetting_the_losses_of_an_undone_episode_clears_every_mark() {
        let mut r = lost_below(6, &[3, 4, 5], ms(105));
        r.on_sent(0, M, ms(106));
        r.timer = Some(ms(300));
        assert!(r.has_lost());
        r.forget_losses();
        assert!(!r.has_lost());
        assert_eq!((r.lost_out, r.retrans_out, r.timer()), (0, 0, None));
        assert_eq!(r.next_seg(false), NextSeg::Nothing);
        assert!(r.segs.iter().all(|g| !g.lost && !g.rexmit));
    }

    #[test]
    fn a_lost_segment_delivered_leaves_the_lost_and_retransmitted_counts() {
        // Segments 0, 1, 2 lost; 0 and 1 retransmitted.
        let mut r = lost_below(6, &[3, 4, 5], ms(105));
        r.on_sent(0, M, ms(106));
        r.on_sent(M, M, ms(106));
        assert_eq!((r.lost_out, r.retrans_out), (3 * M, 2 * M));
        // Segment 1's retransmission SACKed (before segment 0's is due, at 206 ms): no longer lost
        // nor in flight.
        r.on_ack(&seq(0, 6 * M), &[(M, 2 * M)], false, Some(ms(100)), ms(205));
        assert_eq!((r.lost_out, r.retrans_out), (2 * M, M));
        // Segment 0 cumulatively acknowledged: likewise.
        r.on_ack(&seq(M, 6 * M), &[], false, Some(ms(100)), ms(205));
        assert_eq!((r.lost_out, r.retrans_out), (M, 0));
    }

    #[test]
    fn a_retransmission_sent_after_the_delivered_segment_does_not_end_the_scan() {
        // RFC 8985 §6.2 step 5: a segment sent after RACK.xmit_ts is not lost yet; an original
        // ends the scan (those above it were sent later still), a retransmission does not.
        let mut r = rack();
        r.reord = true;
        for k in 0..6 {
            r.on_sent(k * M, M, ms(k));
        }
        // Segment 5 SACKed at 100 ms: RTT 95 ms, reo_wnd 95 / 4 = 23.75 ms.
        r.on_ack(
            &seq(0, 6 * M),
            &[(5 * M, 6 * M)],
            false,
            Some(ms(200)),
            ms(100),
        );
        // Segment 0 resent at 101 ms (after segment 5); segment 1 is due at 119.75 ms.
        r.on_sent(0, M, ms(101));
        r.detect_loss(Some(ms(200)), ms(120));
        assert_eq!(r.lost_out, M);
        assert_eq!(r.next_seg(false), rxt(M, M));
    }

    #[test]
    fn a_lost_retransmission_is_no_longer_in_flight() {
        // Segments 0, 1, 2 lost; segment 1 resent at 106 ms, new segment 6 at 110 ms.
        let mut r = lost_below(6, &[3, 4, 5], ms(105));
        r.on_sent(M, M, ms(106));
        r.on_sent(6 * M, M, ms(110));
        assert_eq!((r.lost_out, r.retrans_out), (3 * M, M));
        // Segment 6 SACKed at 210 ms: the retransmission, sent before it, is lost again (RFC
        // 8985 §6.2 step 5) and leaves retrans_out; it is still counted lost, once.
        r.on_ack(
            &seq(0, 7 * M),
            &[(6 * M, 7 * M)],
            false,
            Some(ms(100)),
            ms(210),
        );
        assert_eq!((r.lost_out, r.retrans_out), (3 * M, 0));
        assert_eq!(r.next_seg(false), rxt(0, M));
    }
}
