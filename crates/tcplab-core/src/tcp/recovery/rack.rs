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
    prr: Option<Prr>,
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
                if g.rexmit {
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
}
