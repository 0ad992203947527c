//! What `tcplab view` needs besides the event trace (docs/viewer.md): each station's track,
//! so the page draws positions exactly between the world's refreshes. The packets the page
//! draws are the event trace's rows (`trace::events`), which the viewer reads; this module
//! records no packet event of its own. Recorded only when the scenario sets `trace.view =
//! true`, so an ordinary run pays one `Option` test per position refresh.

use crate::mobility::Point;
use crate::time::SimTime;

pub use super::events::{routing_reason, R_LOSS, R_OUTAGE, R_QUEUE, R_TTL};

/// Why the network discarded a packet. Its code is worked out only when a row is written (a
/// routing reason's is a search by name), so a run without the trace pays nothing for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    Queue,
    Loss,
    Outage,
    Ttl,
    Routing(crate::net::DropReason),
    /// Replaced in the ARP hold by a newer packet for the same neighbour.
    Arp,
}

impl Discard {
    /// The event trace's reason code (`trace::events::REASON_NAMES`).
    pub fn code(self) -> u8 {
        match self {
            Discard::Queue => R_QUEUE,
            Discard::Loss => R_LOSS,
            Discard::Outage => R_OUTAGE,
            Discard::Ttl => R_TTL,
            Discard::Routing(r) => routing_reason(r),
            Discard::Arp => super::events::R_ARP,
        }
    }
}

/// One point of a station's track: from `t` on it is at `pos` moving at `vel` (m/s) until the
/// next point of the same node. Mobility models are piecewise linear and the world refreshes
/// at every velocity change, so these points reproduce the model's position exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackPoint {
    pub node: u32,
    pub t: SimTime,
    pub pos: Point,
    pub vel: Point,
}

/// The recorded tracks.
#[derive(Clone, Debug, Default)]
pub struct ViewTrace {
    pub tracks: Vec<TrackPoint>,
    /// The last velocity recorded per station (NaN before the first point).
    last_vel: Vec<Point>,
}

impl ViewTrace {
    /// Station `sta` of node `node` is at `pos` moving at `vel` from `t`: a track point when the
    /// velocity changed (or at its first report).
    pub fn position(&mut self, sta: u32, node: u32, t: SimTime, pos: Point, vel: Point) {
        let i = sta as usize;
        if self.last_vel.len() <= i {
            self.last_vel.resize(i + 1, (f64::NAN, f64::NAN));
        }
        if self.last_vel[i] == vel {
            return;
        }
        self.last_vel[i] = vel;
        self.tracks.push(TrackPoint { node, t, pos, vel });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_track_point_only_when_the_velocity_changes() {
        let mut v = ViewTrace::default();
        v.position(2, 7, SimTime::ZERO, (0.0, 0.0), (1.0, 0.0));
        v.position(2, 7, SimTime::from_secs(1), (1.0, 0.0), (1.0, 0.0));
        v.position(2, 7, SimTime::from_secs(2), (2.0, 0.0), (0.0, 0.0));
        assert_eq!(v.tracks.len(), 2);
        assert_eq!(v.tracks[1].t, SimTime::from_secs(2));
        assert_eq!(v.tracks[1].pos, (2.0, 0.0));
    }
}
