//! RFC 6937 Proportional Rate Reduction: during recovery, cwnd = pipe + sndcnt, where sndcnt
//! spreads the reduction to ssthresh over the ACKs of one round trip (proportional part) and, once
//! pipe has fallen below ssthresh, grows back towards it no faster than slow start (the
//! slow-start reduction bound, PRR-SSRB).

use crate::tcp::cc::Window;

#[derive(Clone, Debug, Default)]
pub struct Prr {
    /// RecoverFS: the flight when the episode began.
    recover_fs: u64,
    /// Bytes delivered to the receiver since the episode began.
    delivered: u64,
    /// Bytes sent since the episode began.
    out: u64,
}

impl Prr {
    /// RFC 6937 §3 "on entering recovery": prr_delivered = prr_out = 0, RecoverFS = snd.nxt − snd.una.
    pub fn start(&mut self, flight_size: u64) {
        *self = Prr {
            recover_fs: flight_size.max(1),
            delivered: 0,
            out: 0,
        };
    }

    /// RFC 6937 §3 "on any data transmitted": prr_out += data sent.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// RFC 6937 §3 "on every ACK during recovery": sets cwnd = pipe + sndcnt.
    pub fn on_ack(&mut self, delivered_data: u64, pipe: u64, w: &mut Window) {
        self.delivered += delivered_data;
        let ssthresh = w.ssthresh;
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let target =
                (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128);
            (target as u64).saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS.
            let limit = self.delivered.saturating_sub(self.out).max(delivered_data) + w.mss;
            (ssthresh - pipe).min(limit)
        };
        w.set(pipe + sndcnt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::WindowUnit;

    const M: u64 = 1000;

    #[test]
    fn one_segment_out_per_two_delivered_while_pipe_exceeds_ssthresh() {
        // RFC 6937 §5's example: 20 segments in flight, ssthresh 10 (Reno's half): PRR sends one
        // segment for every two delivered.
        let mut w = Window::new(WindowUnit::Bytes, M, 20 * M, 10 * M);
        let mut p = Prr::default();
        p.start(20 * M);
        let mut pipe = 19 * M; // one segment lost
        let mut sent = 0;
        for _ in 0..10 {
            pipe -= M; // a SACK for one more segment
            p.on_ack(M, pipe, &mut w);
            while w.window() >= pipe + M {
                p.on_sent(M);
                pipe += M;
                sent += 1;
            }
        }
        assert_eq!(sent, 5);
    }

    #[test]
    fn ssrb_grows_back_to_ssthresh_like_slow_start() {
        // pipe far below ssthresh (a burst of losses): at most delivered + 1 MSS per ACK.
        let mut w = Window::new(WindowUnit::Bytes, M, 20 * M, 10 * M);
        let mut p = Prr::default();
        p.start(20 * M);
        p.on_ack(M, 2 * M, &mut w);
        assert_eq!(w.window(), 2 * M + 2 * M);
        // Never above ssthresh.
        p.on_ack(9 * M, 9 * M, &mut w);
        assert_eq!(w.window(), 10 * M);
    }

    #[test]
    fn the_proportional_part_runs_while_pipe_exceeds_ssthresh_and_rounds_up() {
        // RFC 6937 §3: "if (pipe > ssthresh)" the proportional part, else PRR-SSRB. At pipe =
        // ssthresh the SSRB branch sends nothing (ssthresh − pipe = 0).
        let mut w = Window::new(WindowUnit::Bytes, M, 20 * M, 10 * M);
        let mut p = Prr::default();
        p.start(20 * M);
        p.on_ack(M, 10 * M, &mut w);
        assert_eq!(w.window(), 10 * M);
        // One byte above: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out, here
        // CEIL(2000 · 10 000 / 20 000) = 1000, less the 300 bytes sent.
        p.on_sent(300);
        p.on_ack(M, 10 * M + 1, &mut w);
        assert_eq!(w.window(), 10 * M + 1 + 700);
        // Rounded up: CEIL(2001 · 10 000 / 20 000) = CEIL(1000.5) = 1001.
        p.on_ack(1, 10 * M + 1, &mut w);
        assert_eq!(w.window(), 10 * M + 1 + 701);
        // prr_out beyond the target: nothing to send (the subtraction saturates).
        p.on_sent(5 * M);
        p.on_ack(0, 10 * M + 1, &mut w);
        assert_eq!(w.window(), 10 * M + 1);
    }

    #[test]
    fn ssrb_allows_what_was_delivered_and_not_yet_sent_plus_one_mss() {
        // RFC 6937 §3: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS.
        let mut w = Window::new(WindowUnit::Bytes, M, 20 * M, 10 * M);
        let mut p = Prr::default();
        p.start(20 * M);
        p.on_ack(4 * M, 12 * M, &mut w); // proportional: CEIL(4000 · 10 000 / 20 000) = 2000
        assert_eq!(w.window(), 14 * M);
        p.on_sent(M);
        // pipe 2000 < ssthresh: prr_delivered − prr_out = 4500 − 1000 > DeliveredData = 500.
        p.on_ack(500, 2 * M, &mut w);
        assert_eq!(w.window(), 2 * M + 3_500 + M);
        // DeliveredData the larger: 3000 > 4500 + 3000 − (1000 + 6000).
        p.on_sent(6 * M);
        p.on_ack(3 * M, 2 * M, &mut w);
        assert_eq!(w.window(), 2 * M + 3 * M + M);
    }
}
