//! Series beyond TCP (`trace.series`): interface queues, stations' MAC and routing activity,
//! sampled once per `trace.interval` from counters the run keeps anyway.
//!
//! Why sampled, not recorded on change: a queue changes with every packet, and following it
//! would put work on every frame. Reading the counters at interval boundaries costs nothing
//! between samples, and nothing at all when no such series is asked for (the world's event loop
//! then never stops to sample). Counters become per-interval differences, so a series' values add
//! up to the summary's counter; the last interval ends with the run and may be shorter.

use crate::time::SimTime;
use crate::trace::SeriesKind;

/// A series of interfaces, stations or nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NetSeriesKind {
    /// Packets waiting in an interface queue at the sample instant (the one being transmitted
    /// not included): wired link directions and 802.11 stations.
    QueueLen,
    /// Packets the interface queue dropped in the interval (the summary's `drops_queue`).
    QueueDrops,
    /// Bits per second the interface put on the wire or the air in the interval (802.11 data
    /// frames, retransmissions included; the summary's `bytes_sent` · 8 over the interval).
    Throughput,
    /// 802.11 retransmissions in the interval (the station's `retries`).
    MacRetries,
    /// MSDUs the MAC gave up on after its retries in the interval (`drops_retry_limit`).
    MacDrops,
    /// Routing control packets a node sent (originated or forwarded) in the interval
    /// (`control_packets`), and of them route requests, replies and errors.
    RoutingPackets,
    Rreq,
    Rrep,
    Rerr,
    /// Routes to a destination this node sends to that were lost or restored in the interval
    /// (the node's `route_changes`).
    RouteChanges,
}

/// What a series is kept for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every interface: wired link directions and stations.
    Iface,
    /// 802.11 stations only.
    Station,
    /// Every node.
    Node,
}

impl NetSeriesKind {
    pub const ALL: [NetSeriesKind; 10] = [
        NetSeriesKind::QueueLen,
        NetSeriesKind::QueueDrops,
        NetSeriesKind::Throughput,
        NetSeriesKind::MacRetries,
        NetSeriesKind::MacDrops,
        NetSeriesKind::RoutingPackets,
        NetSeriesKind::Rreq,
        NetSeriesKind::Rrep,
        NetSeriesKind::Rerr,
        NetSeriesKind::RouteChanges,
    ];

    /// Names of groups of series (`trace.series = ["queue"]`).
    pub const FAMILIES: [(&'static str, &'static [NetSeriesKind]); 3] = [
        (
            "queue",
            &[NetSeriesKind::QueueLen, NetSeriesKind::QueueDrops],
        ),
        (
            "station",
            &[
                NetSeriesKind::Throughput,
                NetSeriesKind::MacRetries,
                NetSeriesKind::MacDrops,
            ],
        ),
        (
            "routing",
            &[
                NetSeriesKind::RoutingPackets,
                NetSeriesKind::Rreq,
                NetSeriesKind::Rrep,
                NetSeriesKind::Rerr,
                NetSeriesKind::RouteChanges,
            ],
        ),
    ];

    pub fn name(self) -> &'static str {
        match self {
            NetSeriesKind::QueueLen => "queue_len",
            NetSeriesKind::QueueDrops => "queue_drops",
            NetSeriesKind::Throughput => "throughput_bps",
            NetSeriesKind::MacRetries => "mac_retries",
            NetSeriesKind::MacDrops => "mac_drops",
            NetSeriesKind::RoutingPackets => "routing_packets",
            NetSeriesKind::Rreq => "rreq",
            NetSeriesKind::Rrep => "rrep",
            NetSeriesKind::Rerr => "rerr",
            NetSeriesKind::RouteChanges => "route_changes",
        }
    }

    pub fn parse(s: &str) -> Option<NetSeriesKind> {
        NetSeriesKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The series a family name stands for.
    pub fn family(s: &str) -> Option<&'static [NetSeriesKind]> {
        Self::FAMILIES
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, kinds)| *kinds)
    }

    pub fn scope(self) -> Scope {
        match self {
            NetSeriesKind::QueueLen | NetSeriesKind::QueueDrops | NetSeriesKind::Throughput => {
                Scope::Iface
            }
            NetSeriesKind::MacRetries | NetSeriesKind::MacDrops => Scope::Station,
            _ => Scope::Node,
        }
    }

    /// How a reading becomes a value.
    fn reading(self) -> Reading {
        match self {
            NetSeriesKind::QueueLen => Reading::Level,
            NetSeriesKind::Throughput => Reading::BitRate,
            _ => Reading::Count,
        }
    }
}

/// What `trace.series` asks for: the TCP series of every flow and the series beyond TCP, in
/// the order of their lists. "all" is every series, "tcp" every TCP series, "queue", "station" and
/// "routing" their families; None names the first unknown entry.
pub fn select(names: &[String]) -> Result<(Vec<SeriesKind>, Vec<NetSeriesKind>), usize> {
    let mut tcp: Vec<SeriesKind> = Vec::new();
    let mut net: Vec<NetSeriesKind> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let (t, x) = match n.as_str() {
            "all" => (SeriesKind::ALL.to_vec(), NetSeriesKind::ALL.to_vec()),
            "tcp" => (SeriesKind::ALL.to_vec(), Vec::new()),
            _ => {
                if let Some(k) = SeriesKind::parse(n) {
                    (vec![k], Vec::new())
                } else if let Some(k) = NetSeriesKind::parse(n) {
                    (Vec::new(), vec![k])
                } else if let Some(f) = NetSeriesKind::family(n) {
                    (Vec::new(), f.to_vec())
                } else {
                    return Err(i);
                }
            }
        };
        for k in t {
            if !tcp.contains(&k) {
                tcp.push(k);
            }
        }
        for k in x {
            if !net.contains(&k) {
                net.push(k);
            }
        }
    }
    Ok((tcp, net))
}

/// Every name `trace.series` takes, for error messages.
pub fn allowed_names() -> Vec<&'static str> {
    let mut v = vec!["all", "tcp"];
    v.extend(SeriesKind::ALL.iter().map(|k| k.name()));
    v.extend(NetSeriesKind::FAMILIES.iter().map(|(n, _)| *n));
    v.extend(NetSeriesKind::ALL.iter().map(|k| k.name()));
    v
}

enum Reading {
    /// The value at the instant.
    Level,
    /// A cumulative counter: its increase over the interval.
    Count,
    /// A cumulative byte counter: bits per second over the interval.
    BitRate,
}

/// The recorder: which series, when the next sample is due, and the rows so far (long form).
#[derive(Clone, Debug)]
pub struct NetSeries {
    pub kinds: Vec<NetSeriesKind>,
    pub interval: SimTime,
    /// The instant of the last sample (the start of the interval now running).
    pub last: SimTime,
    /// Each (element, kind)'s counter at the last sample, by slot.
    prev: Vec<u64>,
    /// Rows: element (the world's numbering: wired interfaces, then stations, then nodes),
    /// series, sample time (the end of its interval), value.
    pub element: Vec<u32>,
    pub kind: Vec<NetSeriesKind>,
    pub t: Vec<SimTime>,
    pub value: Vec<f64>,
}

impl NetSeries {
    /// A recorder of `kinds` every `interval` (above zero) over `elements` elements.
    pub fn new(kinds: Vec<NetSeriesKind>, interval: SimTime, elements: usize) -> NetSeries {
        assert!(interval > SimTime::ZERO, "a sampling interval above zero");
        NetSeries {
            prev: vec![0; elements * NetSeriesKind::ALL.len()],
            kinds,
            interval,
            last: SimTime::ZERO,
            element: Vec::new(),
            kind: Vec::new(),
            t: Vec::new(),
            value: Vec::new(),
        }
    }

    /// When the next sample is due.
    pub fn next_due(&self) -> SimTime {
        self.last + self.interval
    }

    pub fn wants(&self, scope: Scope) -> bool {
        self.kinds.iter().any(|k| k.scope() == scope)
    }

    /// Records `kind` of `element` as read at `now` (`raw`: a level or a cumulative counter).
    /// Call for every wanted (element, kind), then [`NetSeries::sampled`].
    pub fn record(&mut self, now: SimTime, element: u32, kind: NetSeriesKind, raw: u64) {
        let slot = element as usize * NetSeriesKind::ALL.len() + kind as usize;
        let dt = now.saturating_sub(self.last).as_secs_f64();
        let value = match kind.reading() {
            Reading::Level => raw as f64,
            Reading::Count => raw.saturating_sub(self.prev[slot]) as f64,
            Reading::BitRate => raw.saturating_sub(self.prev[slot]) as f64 * 8.0 / dt,
        };
        self.prev[slot] = raw;
        self.element.push(element);
        self.kind.push(kind);
        self.t.push(now);
        self.value.push(value);
    }

    /// The sample at `now` is complete.
    pub fn sampled(&mut self, now: SimTime) {
        self.last = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_become_differences_and_bytes_bit_rates() {
        let s = SimTime::from_secs;
        let mut r = NetSeries::new(
            vec![NetSeriesKind::QueueDrops, NetSeriesKind::Throughput],
            s(1),
            2,
        );
        assert_eq!(r.next_due(), s(1));
        r.record(s(1), 1, NetSeriesKind::QueueDrops, 5);
        r.record(s(1), 1, NetSeriesKind::Throughput, 1000);
        r.sampled(s(1));
        assert_eq!(r.next_due(), s(2));
        // A last interval of half a second.
        let half = SimTime::from_millis(1500);
        r.record(half, 1, NetSeriesKind::QueueDrops, 7);
        r.record(half, 1, NetSeriesKind::Throughput, 1500);
        r.sampled(half);
        assert_eq!(r.value, vec![5.0, 8000.0, 2.0, 8000.0]);
        assert_eq!(r.element, vec![1, 1, 1, 1]);
    }

    #[test]
    fn names_parse_and_families_cover_every_series() {
        for k in NetSeriesKind::ALL {
            assert_eq!(NetSeriesKind::parse(k.name()), Some(k));
            let in_families = NetSeriesKind::FAMILIES
                .iter()
                .filter(|(_, ks)| ks.contains(&k))
                .count();
            assert_eq!(in_families, 1, "{}", k.name());
        }
        assert_eq!(NetSeriesKind::parse("cwnd"), None);
    }
}
