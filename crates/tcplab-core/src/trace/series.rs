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
