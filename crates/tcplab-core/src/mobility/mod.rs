//! Node mobility: where a station is at any simulated time (docs/models/mobility.md).
//!
//! Every model is piecewise linear: a node rests or moves in a straight line at constant speed
//! between *velocity changes*. A model answers two questions, both O(1) amortised for times that
//! do not go backwards and without allocating:
//!
//! - [`Mobility::position`]`(t)`: the exact position at `t` (not a step of a fixed-interval
//!   integrator, so positions do not depend on how often they are asked for);
//! - [`Mobility::next_change`]`(t)`: the first time after `t` at which the velocity changes, so
//!   the world can refresh neighbour tables at a fixed interval *and* at every turn or stop.
//!
//! Models:
//! - [`Mobility::Static`]: never moves.
//! - [`Mobility::Waypoints`]: a [`Track`] of "be at (x, y) at t" points, or built from ns-2
//!   `setdest` commands ("at t head for (x, y) at speed v"; see [`setdest`]).
//! - [`Mobility::RandomWaypoint`]: Johnson & Maltz's random waypoint with legs drawn lazily from
//!   the station's own random stream, optionally started in its stationary regime (Navidi & Camp
//!   2004; Le Boudec & Vojnović 2005).
//!
//! The models are pure: the world moves a station with `Wifi::set_position(sta, m.position(t))`
//! at each update time `min(next fixed tick, m.next_change(now))`.

mod random_waypoint;
pub mod setdest;
mod waypoint;

pub use random_waypoint::{RandomWaypoint, RandomWaypointParams};
pub use setdest::{parse_setdest, Setdest, SetdestError};
pub use waypoint::{Leg, Track, TrackError};

use crate::time::SimTime;

/// A position or a velocity in the plane: metres, or metres per second.
pub type Point = (f64, f64);

/// How one station moves.
#[derive(Clone, Debug)]
pub enum Mobility {
    /// Stays at its position for the whole run.
    Static(Point),
    /// Follows a precomputed piecewise-linear track.
    Waypoints(Track),
    /// Random waypoint, legs drawn as time advances.
    RandomWaypoint(RandomWaypoint),
}

impl Mobility {
    /// The position at `t`, in metres.
    pub fn position(&mut self, t: SimTime) -> Point {
        match self {
            Mobility::Static(p) => *p,
            Mobility::Waypoints(tr) => tr.position(t),
            Mobility::RandomWaypoint(rw) => rw.position(t),
        }
    }

    /// The velocity at `t` (m/s); constant from `t` until [`Mobility::next_change`]`(t)`.
    pub fn velocity(&mut self, t: SimTime) -> Point {
        match self {
            Mobility::Static(_) => (0.0, 0.0),
            Mobility::Waypoints(tr) => tr.velocity(t),
            Mobility::RandomWaypoint(rw) => rw.velocity(t),
        }
    }

    /// The first time strictly after `t` at which the velocity changes; `None` if it never does
    /// again.
    pub fn next_change(&mut self, t: SimTime) -> Option<SimTime> {
        match self {
            Mobility::Static(_) => None,
            Mobility::Waypoints(tr) => tr.next_change(t),
            Mobility::RandomWaypoint(rw) => Some(rw.next_change(t)),
        }
    }

    /// True if the station never moves (the world need not schedule updates for it).
    pub fn is_static(&self) -> bool {
        match self {
            Mobility::Static(_) => true,
            Mobility::Waypoints(tr) => tr.is_static(),
            Mobility::RandomWaypoint(_) => false,
        }
    }
}

/// One straight piece of motion: at `p0` at `t0`, at `p1` at `t1`, linear in between. A rest is
/// a segment with `p0 == p1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Segment {
    pub t0: SimTime,
    pub t1: SimTime,
    pub p0: Point,
    pub p1: Point,
}

impl Segment {
    /// Position at `t`, clamped to the segment's ends.
    pub fn at(&self, t: SimTime) -> Point {
        if t >= self.t1 {
            return self.p1;
        }
        if t <= self.t0 {
            return self.p0;
        }
        // Exact integer nanoseconds for the fraction; only the final lerp is floating point.
        let f = (t.0 - self.t0.0) as f64 / (self.t1.0 - self.t0.0) as f64;
        (
            self.p0.0 + (self.p1.0 - self.p0.0) * f,
            self.p0.1 + (self.p1.1 - self.p0.1) * f,
        )
    }

    pub fn velocity(&self) -> Point {
        if self.t1 <= self.t0 || self.p0 == self.p1 {
            return (0.0, 0.0);
        }
        let dt = (self.t1 - self.t0).as_secs_f64();
        ((self.p1.0 - self.p0.0) / dt, (self.p1.1 - self.p0.1) / dt)
    }
}

pub(crate) fn distance(a: Point, b: Point) -> f64 {
    (b.0 - a.0).hypot(b.1 - a.1)
}

/// The travel time of `dist` metres at `speed` m/s, at least 1 ns so that every leg moves time
/// forward.
pub(crate) fn travel_time(dist: f64, speed: f64) -> SimTime {
    SimTime::from_secs_f64(dist / speed).max(SimTime(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_never_changes() {
        let mut m = Mobility::Static((3.0, 4.0));
        assert_eq!(m.position(SimTime::from_secs(1000)), (3.0, 4.0));
        assert_eq!(m.next_change(SimTime::ZERO), None);
        assert!(m.is_static());
    }

    #[test]
    fn segment_interpolates_and_clamps() {
        let s = Segment {
            t0: SimTime::from_secs(1),
            t1: SimTime::from_secs(3),
            p0: (0.0, 0.0),
            p1: (10.0, -20.0),
        };
        assert_eq!(s.at(SimTime::ZERO), (0.0, 0.0));
        assert_eq!(s.at(SimTime::from_secs(2)), (5.0, -10.0));
        assert_eq!(s.at(SimTime::from_secs(9)), (10.0, -20.0));
        assert_eq!(s.velocity(), (5.0, -10.0));
    }
}
