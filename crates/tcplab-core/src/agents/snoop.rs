//! Snoop (Balakrishnan, Seshan, Amir & Katz, MobiCom'95 / ACM Wireless Networks 1(4), 1995), the
//! link-layer baseline of seed 001: a TCP-aware agent at the base station that hides wireless
//! losses from the fixed host.
//!
//! - Data from the FH to the mobile is forwarded and a copy cached until the mobile acknowledges
//!   it; a segment below the highest one seen that was not cached is the sender's retransmission
//!   of a loss upstream (congestion), marked so that its duplicate ACKs reach the sender.
//! - A new ACK from the mobile cleans the cache up to it, gives an RTT sample of the wireless
//!   hop and is forwarded.
//! - A duplicate ACK for a cached segment (the `dupack_threshold`-th; the paper retransmits on the
//!   first) triggers a local retransmission and is suppressed, as are the duplicate ACKs the
//!   segments already in flight behind the lost one will cause; later ones go to the sender.
//! - A local timer, max(SRTT + 4·RTTVAR, `min_timeout`) of the wireless hop, retransmits the
//!   oldest cached segment when the mobile's ACKs stop.
//!
//! Parameters, their sources and where ns-2.35's LL/LLSnoop differs: docs/models/snoop.md.

use std::collections::{BTreeMap, VecDeque};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{seg_end, ConnKey, Dir, Verdict};
use crate::packet::{Packet, TcpFlags};
use crate::scenario::units::Duration;
use crate::tcp::config::dur;
use crate::time::SimTime;

/// `snoop = { … }` of an `[[agents]]` entry with kind = "snoop".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SnoopConfig {
    /// Segments cached per connection; when full, new segments are forwarded uncached (ns-2.35
    /// snoop.h SNOOP_MAXWIND = 100). Allowed 1 to 100000.
    pub cache_packets: u32,
    /// The duplicate ACK that triggers a local retransmission: 1 = the first (Balakrishnan et
    /// al. 1995 §3), 2 = the second (ns-2.35 snoop.cc RTX_THRESH = 1). Allowed 1 to 10.
    pub dupack_threshold: u32,
    /// The floor of the local timer, max(SRTT + 4·RTTVAR, min_timeout) (ns-2.35 snoopTick_ =
    /// 100 ms). Allowed 1 ms to 60 s.
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub min_timeout: SimTime,
    /// Local retransmissions of one segment before Snoop leaves it to the sender (ns-2.35
    /// SNOOP_MAX_RXMIT = 10). Allowed 1 to 100.
    pub max_local_retransmits: u32,
}

impl Default for SnoopConfig {
    fn default() -> Self {
        SnoopConfig {
            cache_packets: 100,
            dupack_threshold: 1,
            min_timeout: SimTime::from_millis(100),
            max_local_retransmits: 10,
        }
    }
}

impl SnoopConfig {
    /// Range checks as (field, message) pairs, the field relative to the `snoop` table.
    pub fn check(&self) -> Vec<(&'static str, String)> {
        let mut errs = Vec::new();
        let mut range = |f: &'static str, v: u32, lo: u32, hi: u32| {
            if !(lo..=hi).contains(&v) {
                errs.push((f, format!("{v} is out of range; allowed {lo} to {hi}")));
            }
        };
        range("cache_packets", self.cache_packets, 1, 100_000);
        range("dupack_threshold", self.dupack_threshold, 1, 10);
        range("max_local_retransmits", self.max_local_retransmits, 1, 100);
        if !(SimTime::from_millis(1)..=SimTime::from_secs(60)).contains(&self.min_timeout) {
            errs.push(("min_timeout", "out of range; allowed 1ms to 60s".into()));
        }
        errs
    }
}

/// ns-2.35 Snoop's initial srtt_ (100 ms) and rttvar_ (250 ms): a 1.1 s timer before the first
/// sample of the wireless hop.
const INITIAL_SRTT: f64 = 0.1;
const INITIAL_RTTVAR: f64 = 0.25;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnoopStats {
    pub packets_cached: u64,
    /// Segments forwarded uncached because the cache was full.
    pub cache_full: u64,
    /// Segments removed from the cache by new ACKs.
    pub packets_cleaned: u64,
    pub local_retransmits_dupack: u64,
    pub local_retransmits_timeout: u64,
    pub dupacks_suppressed: u64,
    /// Sender retransmissions of segments Snoop never cached (losses before the BS).
    pub sender_retransmits: u64,
}

#[derive(Clone, Debug)]
struct Cached {
    seq: u64,
    end: u64,
    pkt: Packet,
    /// Last transmission towards the mobile (by the FH or locally).
    sent: SimTime,
    local_retransmits: u32,
    /// The sender retransmitted it: a loss upstream, its duplicate ACKs are the sender's.
    sender_retransmit: bool,
}

#[derive(Clone, Debug)]
struct Conn {
    /// Unacknowledged segments towards the mobile, in sequence order.
    cache: VecDeque<Cached>,
    last_ack: Option<u64>,
    /// End of the highest segment seen from the FH.
    last_seen: u64,
    dupacks: u32,
    /// Duplicate ACKs still to suppress after a local retransmission.
    expected_dupacks: u32,
    srtt: f64,
    rttvar: f64,
    /// Whether the wireless hop has been sampled (the first sample initialises the estimator).
    sampled: bool,
    timer: Option<SimTime>,
}

impl Conn {
    fn new() -> Conn {
        Conn {
            cache: VecDeque::new(),
            last_ack: None,
            last_seen: 0,
            dupacks: 0,
            expected_dupacks: 0,
            srtt: INITIAL_SRTT,
            rttvar: INITIAL_RTTVAR,
            sampled: false,
            timer: None,
        }
    }

    /// The local timer's length: max(SRTT + 4·RTTVAR, min_timeout).
    fn timeout(&self, min: SimTime) -> SimTime {
        SimTime::from_secs_f64(self.srtt + 4.0 * self.rttvar).max(min)
    }
}

#[derive(Debug)]
pub struct Snoop {
    cfg: SnoopConfig,
    conns: BTreeMap<ConnKey, Conn>,
    pub stats: SnoopStats,
}

impl Snoop {
    pub fn new(cfg: SnoopConfig) -> Snoop {
        Snoop {
            cfg,
            conns: BTreeMap::new(),
            stats: SnoopStats::default(),
        }
    }

    /// Segments cached for the connection (tests and traces).
    pub fn cached(&self, key: &ConnKey) -> usize {
        self.conns.get(key).map_or(0, |c| c.cache.len())
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.conns.values().filter_map(|c| c.timer).min()
    }

    pub fn on_packet(
        &mut self,
        now: SimTime,
        dir: Dir,
        p: &mut Packet,
        out: &mut Vec<Packet>,
    ) -> Verdict {
        let Some(key) = ConnKey::of(p, dir) else {
            return Verdict::Forward;
        };
        match dir {
            Dir::ToMobile => {
                self.on_data(now, key, p);
                Verdict::Forward
            }
            Dir::FromMobile => self.on_ack(now, key, p, out),
        }
    }

    fn on_data(&mut self, now: SimTime, key: ConnKey, p: &Packet) {
        let h = p.tcp().expect("a TCP packet").clone();
        if h.flags.has(TcpFlags::SYN) {
            // A new connection on these ports starts from an empty cache.
            self.conns.remove(&key);
            return;
        }
        let end = seg_end(&h, p.payload);
        if end == h.seq {
            return; // a pure ACK from the FH
        }
        let cap = self.cfg.cache_packets as usize;
        let min = self.cfg.min_timeout;
        let c = self.conns.entry(key).or_insert_with(Conn::new);
        if c.last_ack.is_some_and(|a| end <= a) {
            return; // the mobile has it already
        }
        if let Some(e) = c.cache.iter_mut().find(|e| e.seq == h.seq) {
            // The sender retransmits a segment Snoop holds: its loss is the sender's business
            // now (ns-2.35 snoop_insert: marked a sender retransmission, timer restarted).
            e.sender_retransmit = true;
            e.local_retransmits = 0;
            e.sent = now;
            c.timer = Some(now + c.timeout(min));
            return;
        }
        if c.cache.len() >= cap {
            self.stats.cache_full += 1;
            return;
        }
        // Below the highest segment seen and not cached: the sender's retransmission of a loss
        // before the BS (Balakrishnan et al. §3: its duplicate ACKs belong to the sender).
        let sender_retransmit = h.seq < c.last_seen;
        if sender_retransmit {
            self.stats.sender_retransmits += 1;
        } else {
            c.last_seen = end;
        }
        let at = c.cache.partition_point(|e| e.seq < h.seq);
        c.cache.insert(
            at,
            Cached {
                seq: h.seq,
                end,
                pkt: p.clone(),
                sent: now,
                local_retransmits: 0,
                sender_retransmit,
            },
        );
        self.stats.packets_cached += 1;
        if c.timer.is_none() {
            c.timer = Some(now + c.timeout(min));
        }
    }

    fn on_ack(&mut self, now: SimTime, key: ConnKey, p: &Packet, out: &mut Vec<Packet>) -> Verdict {
        let h = p.tcp().expect("a TCP packet").clone();
        let min = self.cfg.min_timeout;
        if !h.flags.has(TcpFlags::ACK) || p.payload > 0 {
            return Verdict::Forward;
        }
        let Some(c) = self.conns.get_mut(&key) else {
            return Verdict::Forward;
        };
        let ack = h.ack;
        match c.last_ack {
            Some(a) if ack < a => Verdict::Forward,
            Some(a) if ack == a => self.on_dupack(now, key, out),
            _ => {
                // A new ACK: clean the cache up to it (§3 "snoop_ack").
                let mut sample = None;
                while c.cache.front().is_some_and(|e| e.end <= ack) {
                    let e = c.cache.pop_front().expect("non-empty");
                    sample = Some(now.saturating_sub(e.sent));
                    self.stats.packets_cleaned += 1;
                }
                c.last_ack = Some(ack);
                c.dupacks = 0;
                c.expected_dupacks = 0;
                if let Some(r) = sample.filter(|r| *r > SimTime::ZERO) {
                    let r = r.as_secs_f64();
                    // RFC 6298 §2 gains (1/8, 1/4) on the wireless hop's samples.
                    if !std::mem::replace(&mut c.sampled, true) {
                        c.srtt = r;
                        c.rttvar = r / 2.0;
                    } else {
                        c.rttvar = 0.75 * c.rttvar + 0.25 * (c.srtt - r).abs();
                        c.srtt = 0.875 * c.srtt + 0.125 * r;
                    }
                }
                c.timer = (!c.cache.is_empty()).then(|| now + c.timeout(min));
                Verdict::Forward
            }
        }
    }

    /// A duplicate ACK from the mobile (§3): retransmit locally and suppress, or let it through.
    fn on_dupack(&mut self, now: SimTime, key: ConnKey, out: &mut Vec<Packet>) -> Verdict {
        let threshold = self.cfg.dupack_threshold;
        let max = self.cfg.max_local_retransmits;
        let c = self.conns.get_mut(&key).expect("present");
        let ack = c.last_ack.expect("a duplicate follows an ACK");
        // Not cached (lost before the BS, or the cache was full): the sender must resend it.
        if c.cache.front().is_none_or(|e| e.seq > ack) {
            return Verdict::Forward;
        }
        // The duplicates caused by segments already in flight behind the lost one.
        if c.expected_dupacks > 0 {
            c.expected_dupacks -= 1;
            self.stats.dupacks_suppressed += 1;
            return Verdict::Absorb;
        }
        let behind = c.cache.len() as u32 - 1;
        let head = c.cache.front_mut().expect("non-empty");
        if head.local_retransmits > 0 || head.sender_retransmit {
            // Already resent and its expected duplicates used up, or a loss the sender handles.
            return Verdict::Forward;
        }
        c.dupacks += 1;
        if c.dupacks < threshold || head.local_retransmits >= max {
            return Verdict::Forward;
        }
        out.push(head.pkt.clone());
        head.local_retransmits += 1;
        head.sent = now;
        self.stats.local_retransmits_dupack += 1;
        self.stats.dupacks_suppressed += 1;
        c.expected_dupacks = behind.saturating_sub(c.dupacks);
        c.timer = Some(now + c.timeout(self.cfg.min_timeout));
        Verdict::Absorb
    }

    /// The local timer: retransmit the oldest cached segment if it is the next one the mobile
    /// expects (ns-2.35 SnoopRxmitHandler), then re-arm while segments remain.
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let max = self.cfg.max_local_retransmits;
        let min = self.cfg.min_timeout;
        let due: Vec<ConnKey> = self
            .conns
            .iter()
            .filter(|(_, c)| c.timer.is_some_and(|t| t <= now))
            .map(|(k, _)| *k)
            .collect();
        for key in due {
            let c = self.conns.get_mut(&key).expect("present");
            c.timer = None;
            let last_ack = c.last_ack;
            let Some(head) = c.cache.front_mut() else {
                continue;
            };
            if last_ack.is_some_and(|a| a != head.seq) || head.local_retransmits >= max {
                continue;
            }
            out.push(head.pkt.clone());
            head.local_retransmits += 1;
            head.sent = now;
            self.stats.local_retransmits_timeout += 1;
            c.timer = Some(now + c.timeout(min));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::tcp_packet;
    use crate::packet::{Addr, TcpHeader};

    const MSS: u64 = 1000;
    const FH: Addr = 1;
    const MH: Addr = 3;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn data(seq: u64) -> Packet {
        let h = TcpHeader::new(80, 5000, seq, 1, TcpFlags::ACK, 65_535);
        tcp_packet(FH, MH, h, MSS as u32, 0)
    }

    fn ack(a: u64) -> Packet {
        let h = TcpHeader::new(5000, 80, 1, a, TcpFlags::ACK, 65_535);
        tcp_packet(MH, FH, h, 0, 0)
    }

    fn key() -> ConnKey {
        ConnKey::of(&data(0), Dir::ToMobile).unwrap()
    }

    /// Snoop after the FH sent segments [0, n) at 0 ms and the mobile acknowledged the first
    /// at 40 ms.
    fn primed(n: u64) -> Snoop {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = Vec::new();
        for k in 0..n {
            assert_eq!(
                s.on_packet(SimTime::ZERO, Dir::ToMobile, &mut data(k * MSS), &mut out),
                Verdict::Forward
            );
        }
        assert_eq!(s.cached(&key()), n as usize);
        let v = s.on_packet(ms(40), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!(v, Verdict::Forward, "new ACKs go to the FH");
        assert!(out.is_empty());
        s
    }

    fn seqs(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.tcp().unwrap().seq).collect()
    }

    /// §3: the first duplicate ACK for a cached segment resends it from the cache and is
    /// suppressed.
    #[test]
    fn the_first_duplicate_ack_resends_the_cached_segment_locally() {
        let mut s = primed(5);
        let mut out = Vec::new();
        let v = s.on_packet(ms(50), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!(v, Verdict::Absorb);
        assert_eq!(seqs(&out), [MSS]);
        assert_eq!(s.stats.local_retransmits_dupack, 1);
        // With dupack_threshold = 2 (ns-2.35) the first goes through and the second resends.
        let mut s = primed(5);
        s.cfg.dupack_threshold = 2;
        let mut out = Vec::new();
        let v = s.on_packet(ms(50), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!((v, out.len()), (Verdict::Forward, 0));
        let v = s.on_packet(ms(51), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!((v, seqs(&out)), (Verdict::Absorb, vec![MSS]));
    }

    /// §3: after a local retransmission the duplicates the segments in flight behind the lost
    /// one cause (4 cached behind it, one duplicate already in) are suppressed; the next
    /// reaches the FH.
    #[test]
    fn the_duplicates_of_segments_in_flight_are_suppressed_then_passed() {
        let mut s = primed(6); // cache [1000, 6000): the head and 4 behind it
        let mut out = Vec::new();
        s.on_packet(ms(50), Dir::FromMobile, &mut ack(MSS), &mut out);
        let verdicts: Vec<_> = (0..4)
            .map(|k| s.on_packet(ms(51 + k), Dir::FromMobile, &mut ack(MSS), &mut out))
            .collect();
        use Verdict::*;
        assert_eq!(verdicts, [Absorb, Absorb, Absorb, Forward]);
        assert_eq!(
            s.stats.dupacks_suppressed, 4,
            "the one answered and three expected"
        );
        assert_eq!(out.len(), 1, "one local retransmission");
    }

    /// A duplicate ACK for a segment Snoop never cached (a loss before the BS, retransmitted
    /// by the sender out of order) goes to the FH, which must resend it.
    #[test]
    fn losses_before_the_base_station_are_left_to_the_sender() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = Vec::new();
        // Segment 1000 was lost upstream: Snoop sees 0, 2000, 3000.
        for seq in [0, 2 * MSS, 3 * MSS] {
            s.on_packet(ms(0), Dir::ToMobile, &mut data(seq), &mut out);
        }
        s.on_packet(ms(40), Dir::FromMobile, &mut ack(MSS), &mut out);
        let v = s.on_packet(ms(41), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!((v, out.len()), (Verdict::Forward, 0));
        // The sender's retransmission of 1000 is cached, marked; its duplicates pass.
        s.on_packet(ms(60), Dir::ToMobile, &mut data(MSS), &mut out);
        assert_eq!(s.stats.sender_retransmits, 1);
        let v = s.on_packet(ms(61), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!((v, out.len()), (Verdict::Forward, 0));
    }

    /// The local timer resends the oldest cached segment when ACKs stop: 1.1 s before any
    /// sample (ns-2.35's initial srtt_ and rttvar_), then max(SRTT + 4·RTTVAR, 100 ms).
    #[test]
    fn the_local_timer_resends_the_oldest_segment() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = Vec::new();
        s.on_packet(ms(0), Dir::ToMobile, &mut data(0), &mut out);
        s.on_packet(ms(0), Dir::ToMobile, &mut data(MSS), &mut out);
        assert_eq!(s.poll_timeout(), Some(ms(1100)));
        s.handle_timeout(ms(1100), &mut out);
        assert_eq!(seqs(&out), [0]);
        assert_eq!(s.stats.local_retransmits_timeout, 1);
        // A 40 ms sample (ACK of 0, sent at 1100 ms): SRTT 40, RTTVAR 20, timer 120 ms.
        s.on_packet(ms(1140), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!(s.poll_timeout(), Some(ms(1260)));
        s.handle_timeout(ms(1260), &mut out);
        assert_eq!(seqs(&out), [0, MSS]);
        // Every segment acknowledged: no timer.
        s.on_packet(ms(1300), Dir::FromMobile, &mut ack(2 * MSS), &mut out);
        assert_eq!(s.poll_timeout(), None);
    }

    /// New ACKs remove what they acknowledge from the cache; the next duplicate resends the
    /// new head, not a cleaned segment.
    #[test]
    fn new_acks_clean_the_cache() {
        let mut s = primed(5);
        assert_eq!(s.cached(&key()), 4);
        let mut out = Vec::new();
        s.on_packet(ms(45), Dir::FromMobile, &mut ack(3 * MSS), &mut out);
        assert_eq!(s.cached(&key()), 2);
        assert_eq!(s.stats.packets_cleaned, 3);
        s.on_packet(ms(46), Dir::FromMobile, &mut ack(3 * MSS), &mut out);
        assert_eq!(seqs(&out), [3 * MSS]);
        // An old ACK passes and cleans nothing.
        let v = s.on_packet(ms(47), Dir::FromMobile, &mut ack(MSS), &mut out);
        assert_eq!((v, s.cached(&key())), (Verdict::Forward, 2));
    }

    /// A full cache forwards new segments uncached.
    #[test]
    fn a_full_cache_forwards_uncached() {
        let mut s = Snoop::new(SnoopConfig {
            cache_packets: 2,
            ..SnoopConfig::default()
        });
        let mut out = Vec::new();
        for k in 0..3 {
            let v = s.on_packet(ms(0), Dir::ToMobile, &mut data(k * MSS), &mut out);
            assert_eq!(v, Verdict::Forward);
        }
        assert_eq!((s.cached(&key()), s.stats.cache_full), (2, 1));
        let bad = SnoopConfig {
            cache_packets: 0,
            dupack_threshold: 11,
            min_timeout: SimTime::ZERO,
            max_local_retransmits: 0,
        };
        let fields: Vec<_> = bad.check().into_iter().map(|e| e.0).collect();
        assert_eq!(
            fields,
            [
                "cache_packets",
                "dupack_threshold",
                "max_local_retransmits",
                "min_timeout"
            ]
        );
    }
}
