//! Time series recorded at event granularity, columnar, with optional decimation.

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SeriesKind {
    Cwnd,
    Ssthresh,
    Srtt,
    Rto,
    Rwnd,
    SndUna,
    SndNxt,
    RcvNxt,
}

impl SeriesKind {
    pub const ALL: [SeriesKind; 8] = [
        SeriesKind::Cwnd,
        SeriesKind::Ssthresh,
        SeriesKind::Srtt,
        SeriesKind::Rto,
        SeriesKind::Rwnd,
        SeriesKind::SndUna,
        SeriesKind::SndNxt,
        SeriesKind::RcvNxt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SeriesKind::Cwnd => "cwnd",
            SeriesKind::Ssthresh => "ssthresh",
            SeriesKind::Srtt => "srtt",
            SeriesKind::Rto => "rto",
            SeriesKind::Rwnd => "rwnd",
            SeriesKind::SndUna => "snd_una",
            SeriesKind::SndNxt => "snd_nxt",
            SeriesKind::RcvNxt => "rcv_nxt",
        }
    }

    pub fn parse(s: &str) -> Option<SeriesKind> {
        SeriesKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// One series: sample times and values, recorded on change.
#[derive(Clone, Debug)]
pub struct Series {
    pub kind: SeriesKind,
    pub t: Vec<SimTime>,
    pub v: Vec<f64>,
    last_t: Option<SimTime>,
    last_v: f64,
}

/// The series one flow records.
#[derive(Clone, Debug, Default)]
pub struct SeriesSet {
    pub series: Vec<Series>,
    /// Minimum spacing between samples of a series (0: every change).
    pub interval: SimTime,
}

impl SeriesSet {
    pub fn new(kinds: &[SeriesKind], interval: SimTime) -> Self {
        SeriesSet {
            series: kinds
                .iter()
                .map(|&kind| Series {
                    kind,
                    t: Vec::new(),
                    v: Vec::new(),
                    last_t: None,
                    last_v: f64::NAN,
                })
                .collect(),
            interval,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    /// Offers the current values; records those that changed (and are due under decimation).
    #[inline]
    pub fn sample(&mut self, now: SimTime, value_of: impl Fn(SeriesKind) -> f64) {
        for s in &mut self.series {
            let v = value_of(s.kind);
            if v.to_bits() == s.last_v.to_bits() {
                continue;
            }
            if let Some(t) = s.last_t {
                if now < t + self.interval {
                    continue;
                }
            }
            s.t.push(now);
            s.v.push(v);
            s.last_t = Some(now);
            s.last_v = v;
        }
    }
}

/// Series of the network rather than of a TCP flow, sampled every `trace.interval` (default
/// 100 ms): per interface (wired and 802.11), per station, per routing agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NetSeriesKind {
    /// Packets in the interface queue.
    QueueLen,
    /// Packets the interface queue dropped (cumulative; RED's included).
    QueueDrops,
    /// Data bits the station put on the air per second over the last interval (retries
    /// included).
    StaThroughput,
    /// DATA and RTS retransmissions (cumulative).
    StaRetries,
    /// Packets the MAC gave up on at the retry limit, in or out of an outage (cumulative).
    StaDrops,
    /// Routing control packets the node sent (cumulative).
    RoutingControl,
    /// Route discoveries the node started (cumulative).
    RouteDiscoveries,
    /// Link breaks the node's routing agent detected (cumulative).
    LinkBreaks,
}

impl NetSeriesKind {
    pub const ALL: [NetSeriesKind; 8] = [
        NetSeriesKind::QueueLen,
        NetSeriesKind::QueueDrops,
        NetSeriesKind::StaThroughput,
        NetSeriesKind::StaRetries,
        NetSeriesKind::StaDrops,
        NetSeriesKind::RoutingControl,
        NetSeriesKind::RouteDiscoveries,
        NetSeriesKind::LinkBreaks,
    ];

    pub fn name(self) -> &'static str {
        match self {
            NetSeriesKind::QueueLen => "queue_len",
            NetSeriesKind::QueueDrops => "queue_drops",
            NetSeriesKind::StaThroughput => "sta_throughput",
            NetSeriesKind::StaRetries => "sta_retries",
            NetSeriesKind::StaDrops => "sta_mac_drops",
            NetSeriesKind::RoutingControl => "routing_control",
            NetSeriesKind::RouteDiscoveries => "route_discoveries",
            NetSeriesKind::LinkBreaks => "link_breaks",
        }
    }

    pub fn parse(s: &str) -> Option<NetSeriesKind> {
        NetSeriesKind::ALL.into_iter().find(|k| k.name() == s)
    }
}
