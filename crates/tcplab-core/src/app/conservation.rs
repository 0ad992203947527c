//! Byte conservation, checked in every run by an oracle independent of the TCP code.
//!
//! Payload bytes are not materialised, so "the application got exactly the bytes sent, in order,
//! with no duplicate" is checked on sequence ranges: a [`StreamLedger`] per receiving socket
//! records which data bytes of the peer's stream have *arrived* at it (from the segments the
//! world hands the socket) and the contiguous prefix they form. A socket may never have
//! delivered more than that prefix (delivering later bytes first, or counting a byte twice, would
//! exceed it), and at the end of the run the delivered count is compared with what the
//! application wrote. UDP: a flow may not deliver more than it sent.

use std::collections::BTreeMap;

use crate::packet::{TcpFlags, TcpHeader};

/// The data bytes of one direction of a TCP connection that reached the receiving socket.
#[derive(Clone, Debug, Default)]
pub struct StreamLedger {
    /// Sequence number of the stream's first data byte (the peer's ISN + 1), once its SYN arrived.
    origin: Option<u64>,
    /// End of the contiguous run of arrived bytes from `origin` (absolute sequence number).
    prefix_end: u64,
    /// Arrived ranges beyond a gap: start → end (disjoint, not touching the prefix).
    beyond: BTreeMap<u64, u64>,
    /// Highest sequence number of any arrived data byte + 1.
    max_end: u64,
}

impl StreamLedger {
    /// Records a segment as it is handed to the receiving socket.
    pub fn on_arrival(&mut self, h: &TcpHeader, payload: u32) {
        // RFC 9293 §3.4: the SYN occupies one sequence number; data starts after it.
        let data_start = if h.flags.has(TcpFlags::SYN) {
            if self.origin.is_none() {
                self.origin = Some(h.seq + 1);
                self.prefix_end = h.seq + 1;
                self.max_end = h.seq + 1;
            }
            h.seq + 1
        } else {
            h.seq
        };
        let Some(origin) = self.origin else { return };
        if payload == 0 {
            return;
        }
        let (s, e) = (data_start.max(origin), data_start + u64::from(payload));
        if e <= s {
            return;
        }
        self.max_end = self.max_end.max(e);
        if s > self.prefix_end {
            // Merge into the ranges beyond the gap.
            let (mut s, mut e) = (s, e);
            while let Some((&bs, &be)) = self.beyond.range(..=e).next_back() {
                if be < s {
                    break;
                }
                self.beyond.remove(&bs);
                s = s.min(bs);
                e = e.max(be);
            }
            self.beyond.insert(s, e);
            return;
        }
        self.prefix_end = self.prefix_end.max(e);
        while let Some((&bs, &be)) = self.beyond.first_key_value() {
            if bs > self.prefix_end {
                break;
            }
            self.beyond.remove(&bs);
            self.prefix_end = self.prefix_end.max(be);
        }
    }

    /// A stream that opens without a SYN (ns-2's one-way start, `open = "none"`): its first data
    /// byte is `first` (the sender's ISN + 1, as if a SYN had taken the ISN).
    pub fn open_without_syn(&mut self, first: u64) {
        if self.origin.is_none() {
            self.origin = Some(first);
            self.prefix_end = first;
            self.max_end = first;
        }
    }

    /// Bytes of the stream that arrived in order from its first byte.
    pub fn in_order(&self) -> u64 {
        self.origin.map_or(0, |o| self.prefix_end - o)
    }

    /// Bytes from the stream's first byte to the highest one that arrived.
    pub fn highest(&self) -> u64 {
        self.origin.map_or(0, |o| self.max_end - o)
    }
}

/// One conservation check of a TCP stream; `written` is what the sending application wrote
/// (None for an unlimited transfer). Returns the violation, if any.
pub fn check_tcp(
    ledger: &StreamLedger,
    delivered: u64,
    written: Option<u64>,
    completed: bool,
) -> Option<String> {
    if delivered > ledger.in_order() {
        return Some(format!(
            "{delivered} bytes delivered to the application but only {} arrived in order \
             (a byte delivered out of order, twice, or never sent)",
            ledger.in_order()
        ));
    }
    if let Some(w) = written {
        if ledger.highest() > w {
            return Some(format!(
                "bytes up to offset {} arrived but the application wrote only {w}",
                ledger.highest()
            ));
        }
        if completed && delivered != w {
            return Some(format!(
                "completed with {delivered} bytes delivered, but {w} were sent"
            ));
        }
    }
    None
}

/// UDP: a flow may lose datagrams, never create them.
pub fn check_udp(sent: u64, received: u64, bytes_sent: u64, bytes_received: u64) -> Option<String> {
    (received > sent || bytes_received > bytes_sent).then(|| {
        format!(
            "{received} datagrams ({bytes_received} B) delivered but only {sent} \
             ({bytes_sent} B) sent"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(seq: u64, flags: TcpFlags, payload: u32) -> (TcpHeader, u32) {
        (TcpHeader::new(1, 2, seq, 0, flags, 65_535), payload)
    }

    #[test]
    fn prefix_follows_arrivals_in_any_order() {
        let mut l = StreamLedger::default();
        let (h, p) = seg(999, TcpFlags::SYN, 0);
        l.on_arrival(&h, p);
        for (seq, len) in [
            (1000, 100),
            (1200, 100),
            (1400, 50),
            (1100, 100),
            (1000, 100),
        ] {
            let (h, p) = seg(seq, TcpFlags::ACK, len);
            l.on_arrival(&h, p);
        }
        assert_eq!(l.in_order(), 300);
        assert_eq!(l.highest(), 450);
        let (h, p) = seg(1300, TcpFlags::ACK, 100);
        l.on_arrival(&h, p);
        assert_eq!(l.in_order(), 450);
    }

    #[test]
    fn violations_are_named() {
        let mut l = StreamLedger::default();
        let (h, p) = seg(0, TcpFlags::SYN, 0);
        l.on_arrival(&h, p);
        let (h, p) = seg(1, TcpFlags::ACK, 1000);
        l.on_arrival(&h, p);
        assert!(check_tcp(&l, 1000, Some(1000), true).is_none());
        assert!(check_tcp(&l, 1001, Some(5000), false)
            .unwrap()
            .contains("out of order, twice"));
        assert!(check_tcp(&l, 1000, Some(500), false)
            .unwrap()
            .contains("wrote only 500"));
        assert!(check_tcp(&l, 900, Some(1000), true)
            .unwrap()
            .contains("were sent"));
        assert!(check_udp(10, 10, 100, 100).is_none());
        assert!(check_udp(10, 11, 100, 110).is_some());
    }
}
