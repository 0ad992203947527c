//! The RTT HyStart samples on every ACK, as Linux measures it: from the send time of the most
//! recently sent segment the ACK newly acknowledges, skipping retransmitted segments (Karn; a
//! retransmission's ACK is ambiguous). Linux takes it from each segment's transmit timestamp,
//! independently of the timestamp option, so HyStart has one sample per ACK in microseconds
//! where RFC 7323's option gives millisecond samples and RFC 6298's timing one per RTT.
//!
//! The same record keeps each segment's latest transmission and how many there were, which
//! Vegas's fine-grained retransmission check reads for the first unacknowledged segment
//! (Brakmo & Peterson 1995 §3.1; ns-2.35 `tcp-vegas.cc` keeps `v_sendtime_`/`v_transmits_`).

use std::collections::VecDeque;

use crate::time::SimTime;

/// One segment of new data as first sent: [start, end), its latest transmission and how many
/// transmissions it has had.
#[derive(Clone, Copy, Debug)]
struct Sent {
    start: u64,
    end: u64,
    at: SimTime,
    transmits: u32,
}

/// Segments in flight, in sequence order.
#[derive(Clone, Debug, Default)]
pub(super) struct SentTimes(VecDeque<Sent>);

impl SentTimes {
    /// A data segment [s, e) went out. A retransmission marks the segments it overlaps as
    /// resent (Karn: their ACKs give no sample) and records when.
    pub(super) fn on_sent(&mut self, s: u64, e: u64, retx: bool, now: SimTime) {
        if retx {
            // New data only ever extends snd_max, so the entries are disjoint and in order: those
            // [s, e) overlaps are one run, found by bisection (no scan of the window per resend).
            let from = self.0.partition_point(|x| x.end <= s);
            let to = self.0.partition_point(|x| x.start < e);
            for x in self.0.range_mut(from..to.max(from)) {
                x.at = now;
                x.transmits += 1;
            }
        } else {
            debug_assert!(self.0.back().is_none_or(|x| x.end <= s));
            self.0.push_back(Sent {
                start: s,
                end: e,
                at: now,
                transmits: 1,
            });
        }
    }

    /// An ACK up to `ack`: the time since the newest never-retransmitted segment it covers was
    /// sent, if it covers one.
    pub(super) fn on_ack(&mut self, ack: u64, now: SimTime) -> Option<SimTime> {
        let mut newest = None;
        while let Some(&x) = self.0.front().filter(|f| f.end <= ack) {
            if x.transmits == 1 {
                newest = Some(x.at);
            }
            self.0.pop_front();
        }
        newest.map(|t| now - t)
    }

    /// The segment holding sequence number `una` (the first unacknowledged byte): when it was
    /// last sent and how many times, if it is recorded.
    pub(super) fn head(&self, una: u64) -> Option<(SimTime, u32)> {
        self.0
            .front()
            .filter(|x| x.start <= una && una < x.end)
            .map(|x| (x.at, x.transmits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_the_newest_acknowledged_segment_never_retransmitted() {
        let ms = SimTime::from_millis;
        let mut t = SentTimes::default();
        for k in 0..4 {
            t.on_sent(k * 1000, (k + 1) * 1000, false, ms(k));
        }
        // An ACK of the first two: the second was sent at 1 ms.
        assert_eq!(t.on_ack(2000, ms(41)), Some(ms(40)));
        // A partial ACK inside the third covers no whole segment: no sample.
        assert_eq!(t.on_ack(2500, ms(42)), None);
        // The fourth is retransmitted: the ACK of both gives the third's time.
        t.on_sent(3000, 4000, true, ms(50));
        assert_eq!(t.on_ack(4000, ms(90)), Some(ms(88)));
        // Nothing left: no sample.
        assert_eq!(t.on_ack(4000, ms(91)), None);
        // A resend across parts of two segments forgets both and only them.
        for k in 4..8 {
            t.on_sent(k * 1000, (k + 1) * 1000, false, ms(100 + k));
        }
        t.on_sent(4500, 5500, true, ms(120));
        assert_eq!(t.on_ack(6000, ms(130)), None);
        assert_eq!(t.on_ack(8000, ms(140)), Some(ms(33)));
    }

    /// Vegas's check reads the head's latest transmission and its count, retransmissions
    /// included, and follows the head as ACKs (partial ones too) advance.
    #[test]
    fn the_head_keeps_its_latest_send_time_and_transmit_count() {
        let ms = SimTime::from_millis;
        let mut t = SentTimes::default();
        for k in 0..3 {
            t.on_sent(k * 1000, (k + 1) * 1000, false, ms(k));
        }
        assert_eq!(t.head(0), Some((ms(0), 1)));
        t.on_sent(0, 1000, true, ms(30));
        assert_eq!(t.head(0), Some((ms(30), 2)));
        t.on_sent(0, 1000, true, ms(60));
        assert_eq!(t.head(0), Some((ms(60), 3)));
        // The resent segment's ACK gives no sample (Karn); the next one is the new head.
        assert_eq!(t.on_ack(1000, ms(70)), None);
        assert_eq!(t.head(1000), Some((ms(1), 1)));
        // A partial ACK leaves the head inside the same segment.
        assert_eq!(t.on_ack(1500, ms(71)), None);
        assert_eq!(t.head(1500), Some((ms(1), 1)));
        assert_eq!(t.head(3000), None, "nothing recorded there");
    }
}
