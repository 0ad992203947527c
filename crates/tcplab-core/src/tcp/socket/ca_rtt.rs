//! The RTT HyStart samples on every ACK, as Linux measures it: from the send time of the most
//! recently sent segment the ACK newly acknowledges, skipping retransmitted segments (Karn; a
//! retransmission's ACK is ambiguous). Linux takes it from each segment's transmit timestamp,
//! independently of the timestamp option, so HyStart has one sample per ACK in microseconds
//! where RFC 7323's option gives millisecond samples and RFC 6298's timing one per RTT.

use std::collections::VecDeque;

use crate::time::SimTime;

/// Segments of new data in flight, in sequence order: (start, end, sent at).
#[derive(Clone, Debug, Default)]
pub(super) struct SentTimes(VecDeque<(u64, u64, SimTime)>);

impl SentTimes {
    /// A data segment [s, e) went out; a retransmission forgets the send times it overlaps.
    pub(super) fn on_sent(&mut self, s: u64, e: u64, retx: bool, now: SimTime) {
        if retx {
            // New data only ever extends snd_max, so the entries are disjoint and in order: those
            // [s, e) overlaps are one run, found by bisection (no scan of the window per resend).
            let from = self.0.partition_point(|&(_, b, _)| b <= s);
            let to = self.0.partition_point(|&(a, _, _)| a < e);
            if from < to {
                self.0.drain(from..to);
            }
        } else {
            debug_assert!(self.0.back().is_none_or(|&(_, b, _)| b <= s));
            self.0.push_back((s, e, now));
        }
    }

    /// An ACK up to `ack`: the time since the newest never-retransmitted segment it covers was
    /// sent, if it covers one.
    pub(super) fn on_ack(&mut self, ack: u64, now: SimTime) -> Option<SimTime> {
        let mut newest = None;
        while let Some(&(_, _, t)) = self.0.front().filter(|f| f.1 <= ack) {
            newest = Some(t);
            self.0.pop_front();
        }
        newest.map(|t| now - t)
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
}
