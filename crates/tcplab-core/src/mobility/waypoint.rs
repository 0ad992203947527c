//! Precomputed tracks: a list of "be at (x, y) at t" points with straight, constant-speed motion
//! between consecutive points, and their construction from ns-2 `setdest` legs ("at t head for
//! (x, y) at speed v").
//!
//! A node is at the first point before its time and stays at the last point after it. Points
//! where the velocity does not change are dropped when the track is built, so every time
//! `next_change` returns is a real turn, start or stop.

use std::fmt;

use super::{distance, travel_time, Point, Segment};
use crate::time::SimTime;

/// ns-2 `$ns_ at t "$node_(i) setdest x y v"`: at `at`, head from wherever the node is towards
/// `to` at `speed` m/s, and stop there (a later leg may turn it before it arrives).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    pub at: SimTime,
    pub to: Point,
    pub speed: f64,
}

/// Why a list of points is not a track.
#[derive(Clone, Debug, PartialEq)]
pub enum TrackError {
    Empty,
    /// Point `index` is not later than the point before it.
    NotIncreasing {
        index: usize,
    },
    /// A coordinate or speed that is not a finite number (or a negative speed).
    NotFinite {
        index: usize,
    },
}

impl fmt::Display for TrackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrackError::Empty => f.write_str("a track needs at least one point"),
            TrackError::NotIncreasing { index } => write!(
                f,
                "point {index} is not later than the point before it; times must increase"
            ),
            TrackError::NotFinite { index } => write!(
                f,
                "point {index} has a coordinate or speed that is not a finite number (speeds ≥ 0)"
            ),
        }
    }
}

/// A piecewise-linear track with a cursor on the current piece.
#[derive(Clone, Debug)]
pub struct Track {
    /// (time, position), strictly increasing in time, at least one point.
    points: Vec<(SimTime, Point)>,
    /// Index of the last point at or before the last queried time (0 before the first point).
    cursor: usize,
}

impl Track {
    /// A track through `points` ("be at p at t"); times must strictly increase.
    pub fn new(points: Vec<(SimTime, Point)>) -> Result<Track, TrackError> {
        if points.is_empty() {
            return Err(TrackError::Empty);
        }
        for (i, (t, p)) in points.iter().enumerate() {
            if !(p.0.is_finite() && p.1.is_finite()) {
                return Err(TrackError::NotFinite { index: i });
            }
            if i > 0 && *t <= points[i - 1].0 {
                return Err(TrackError::NotIncreasing { index: i });
            }
        }
        Ok(Track {
            points: simplify(points),
            cursor: 0,
        })
    }

    /// The track of a node that starts at `start` at t = 0 and follows ns-2 `setdest` legs
    /// (MobileNode::set_destination: the new heading starts from the position reached so far;
    /// arrival stops the node). Legs are taken in time order, equal times in the given order
    /// (ns-2's scheduler is FIFO for equal times).
    pub fn from_legs(start: Point, legs: &[Leg]) -> Result<Track, TrackError> {
        let mut order: Vec<usize> = (0..legs.len()).collect();
        order.sort_by_key(|&i| legs[i].at); // stable: file order for equal times
        let mut pts: Vec<(SimTime, Point)> = vec![(SimTime::ZERO, start)];
        // The motion in progress since the last point: (arrival time, destination).
        let mut heading: Option<(SimTime, Point)> = None;
        for &i in &order {
            let leg = legs[i];
            if !(leg.to.0.is_finite()
                && leg.to.1.is_finite()
                && leg.speed.is_finite()
                && leg.speed >= 0.0)
            {
                return Err(TrackError::NotFinite { index: i });
            }
            let (t_last, p_last) = pts[pts.len() - 1];
            let here = match heading {
                Some((arrive, dest)) if leg.at >= arrive => {
                    push(&mut pts, arrive, dest);
                    dest
                }
                Some((arrive, dest)) => Segment {
                    t0: t_last,
                    t1: arrive,
                    p0: p_last,
                    p1: dest,
                }
                .at(leg.at),
                None => p_last,
            };
            push(&mut pts, leg.at, here);
            // ns-2: a zero speed or the current position as destination leaves the node at rest.
            heading = (leg.speed > 0.0 && leg.to != here).then(|| {
                (
                    leg.at + travel_time(distance(here, leg.to), leg.speed),
                    leg.to,
                )
            });
        }
        if let Some((arrive, dest)) = heading {
            push(&mut pts, arrive, dest);
        }
        Track::new(pts)
    }

    /// True if the node never moves.
    pub fn is_static(&self) -> bool {
        self.points.len() == 1
    }

    /// Moves the cursor to the piece containing `t`: forward step by step (amortised O(1) for
    /// non-decreasing times), backward by binary search.
    fn seek(&mut self, t: SimTime) -> usize {
        let n = self.points.len();
        if t < self.points[self.cursor].0 {
            self.cursor = self.points.partition_point(|p| p.0 <= t).saturating_sub(1);
        }
        while self.cursor + 1 < n && self.points[self.cursor + 1].0 <= t {
            self.cursor += 1;
        }
        self.cursor
    }

    fn segment(&mut self, t: SimTime) -> Segment {
        let k = self.seek(t);
        let (t0, p0) = self.points[k];
        if t < t0 {
            // Before the first point: at rest there.
            return Segment {
                t0: SimTime::ZERO,
                t1: t0,
                p0,
                p1: p0,
            };
        }
        match self.points.get(k + 1) {
            Some(&(t1, p1)) => Segment { t0, t1, p0, p1 },
            None => Segment {
                t0,
                t1: SimTime::MAX,
                p0,
                p1: p0,
            },
        }
    }

    pub fn position(&mut self, t: SimTime) -> Point {
        self.segment(t).at(t)
    }

    pub fn velocity(&mut self, t: SimTime) -> Point {
        self.segment(t).velocity()
    }

    pub fn next_change(&mut self, t: SimTime) -> Option<SimTime> {
        let k = self.seek(t);
        if t < self.points[k].0 {
            return Some(self.points[k].0);
        }
        self.points.get(k + 1).map(|p| p.0)
    }

    /// The points of the track (after simplification).
    pub fn points(&self) -> &[(SimTime, Point)] {
        &self.points
    }
}

/// Appends a point, replacing the last one if it has the same time (a leg that starts the
/// instant the previous one arrives).
fn push(pts: &mut Vec<(SimTime, Point)>, t: SimTime, p: Point) {
    match pts.last_mut() {
        Some(last) if last.0 == t => last.1 = p,
        _ => pts.push((t, p)),
    }
}

/// Drops points where the velocity does not change: a first point followed by a rest (the node
/// rests there before it anyway), interior points between two pieces of equal velocity, and a
/// last point reached by a rest.
fn simplify(points: Vec<(SimTime, Point)>) -> Vec<(SimTime, Point)> {
    let vel = |a: (SimTime, Point), b: (SimTime, Point)| {
        Segment {
            t0: a.0,
            t1: b.0,
            p0: a.1,
            p1: b.1,
        }
        .velocity()
    };
    let mut out: Vec<(SimTime, Point)> = Vec::with_capacity(points.len());
    for p in points {
        // Before or after the track the node rests, so a rest next to either end is no change.
        if out.len() == 1 && out[0].1 == p.1 {
            out[0] = p;
            continue;
        }
        if out.len() >= 2 {
            let (a, b) = (out[out.len() - 2], out[out.len() - 1]);
            if vel(a, b) == vel(b, p) {
                out.pop();
            }
        }
        out.push(p);
    }
    while out.len() >= 2 && out[out.len() - 1].1 == out[out.len() - 2].1 {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: f64) -> SimTime {
        SimTime::from_secs_f64(x)
    }

    fn track(pts: &[(f64, f64, f64)]) -> Track {
        Track::new(pts.iter().map(|&(t, x, y)| (s(t), (x, y))).collect()).unwrap()
    }

    fn close(a: Point, b: Point) {
        assert!(
            (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9,
            "{a:?} != {b:?}"
        );
    }

    #[test]
    fn waypoints_interpolate_linearly_and_hold_at_the_ends() {
        let mut tr = track(&[(10.0, 0.0, 0.0), (20.0, 100.0, 0.0), (30.0, 100.0, 50.0)]);
        close(tr.position(s(0.0)), (0.0, 0.0));
        close(tr.position(s(15.0)), (50.0, 0.0));
        close(tr.position(s(20.0)), (100.0, 0.0));
        close(tr.position(s(27.5)), (100.0, 37.5));
        close(tr.position(s(100.0)), (100.0, 50.0));
        // Backwards queries are answered too (binary search).
        close(tr.position(s(12.5)), (25.0, 0.0));
        close(tr.velocity(s(12.0)), (10.0, 0.0));
        close(tr.velocity(s(25.0)), (0.0, 5.0));
        assert_eq!(tr.velocity(s(31.0)), (0.0, 0.0));
    }

    #[test]
    fn next_change_lists_every_turn_and_nothing_else() {
        // A rest from 0 to 10 s, a straight run at constant velocity through a redundant middle
        // point, a turn at 20 s, a stop at 30 s and a final rest.
        let mut tr = track(&[
            (0.0, 0.0, 0.0),
            (10.0, 0.0, 0.0),
            (15.0, 50.0, 0.0),
            (20.0, 100.0, 0.0),
            (30.0, 100.0, 50.0),
            (40.0, 100.0, 50.0),
        ]);
        let mut t = SimTime::ZERO;
        let mut changes = Vec::new();
        while let Some(n) = tr.next_change(t) {
            changes.push(n);
            t = n;
        }
        assert_eq!(changes, vec![s(10.0), s(20.0), s(30.0)]);
        assert!(!tr.is_static());
        assert!(track(&[(0.0, 1.0, 1.0), (5.0, 1.0, 1.0)]).is_static());
    }

    #[test]
    fn bad_points_are_refused() {
        assert_eq!(Track::new(vec![]).unwrap_err(), TrackError::Empty);
        let e = Track::new(vec![(s(2.0), (0.0, 0.0)), (s(2.0), (1.0, 0.0))]).unwrap_err();
        assert_eq!(e, TrackError::NotIncreasing { index: 1 });
        let e = Track::new(vec![(s(0.0), (f64::NAN, 0.0))]).unwrap_err();
        assert_eq!(e, TrackError::NotFinite { index: 0 });
    }

    fn leg(at: f64, x: f64, y: f64, speed: f64) -> Leg {
        Leg {
            at: s(at),
            to: (x, y),
            speed,
        }
    }

    #[test]
    fn setdest_legs_follow_ns2_semantics() {
        // Start at (0,0); at 1 s head for (100,0) at 10 m/s (arrives at 11 s); at 6 s, halfway,
        // turn towards (50,40) at 4 m/s (40 m: arrives at 16 s); rest; at 20 s a zero-speed
        // setdest leaves it at rest.
        let legs = [
            leg(1.0, 100.0, 0.0, 10.0),
            leg(6.0, 50.0, 40.0, 4.0),
            leg(20.0, 0.0, 0.0, 0.0),
        ];
        let mut tr = Track::from_legs((0.0, 0.0), &legs).unwrap();
        close(tr.position(s(0.5)), (0.0, 0.0));
        close(tr.position(s(3.5)), (25.0, 0.0));
        close(tr.position(s(6.0)), (50.0, 0.0));
        close(tr.position(s(11.0)), (50.0, 20.0));
        close(tr.position(s(16.0)), (50.0, 40.0));
        close(tr.position(s(100.0)), (50.0, 40.0));
        assert_eq!(tr.next_change(SimTime::ZERO), Some(s(1.0)));
        assert_eq!(tr.next_change(s(1.0)), Some(s(6.0)));
        assert_eq!(tr.next_change(s(6.0)), Some(s(16.0)));
        assert_eq!(tr.next_change(s(16.0)), None);
    }

    #[test]
    fn setdest_legs_after_arrival_start_from_the_destination() {
        // Arrives at (30,40) at 5 s (50 m at 10 m/s), rests, leaves at 8 s back to the origin.
        let legs = [leg(8.0, 0.0, 0.0, 25.0), leg(0.0, 30.0, 40.0, 10.0)];
        let mut tr = Track::from_legs((0.0, 0.0), &legs).unwrap();
        close(tr.position(s(2.5)), (15.0, 20.0));
        close(tr.position(s(7.0)), (30.0, 40.0));
        close(tr.position(s(9.0)), (15.0, 20.0));
        close(tr.position(s(10.0)), (0.0, 0.0));
        let pts: Vec<SimTime> = tr.points().iter().map(|p| p.0).collect();
        assert_eq!(pts, vec![s(0.0), s(5.0), s(8.0), s(10.0)]);
    }
}
