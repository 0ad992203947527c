//! Import of ns-2 movement files, as written by ns-2's `setdest` tool (CMU) and by hand:
//!
//! ```text
//! $node_(0) set X_ 150.0          initial position (Z_ is accepted and ignored: motion is 2-D)
//! $node_(0) set Y_ 93.5
//! $ns_ at 2.0 "$node_(0) setdest 300.0 120.0 4.5"    at 2 s head for (300, 120) at 4.5 m/s
//! $god_ set-dist 0 1 2            GOD lines (shortest-path hints for ns-2's oracle): ignored
//! # comment                       comments and blank lines: ignored
//! ```
//!
//! Each node becomes a [`Track`] with ns-2's `setdest` semantics ([`Track::from_legs`]). Anything
//! else is an error with its line number, so a truncated or hand-edited file is never half
//! read. Errors describe what is wrong with a line but never quote it: the file may be anything
//! the user named (`/etc/passwd`), and its content must not end up on a terminal or in a log.

use std::collections::BTreeMap;
use std::fmt;

use super::{Leg, Point, Track};
use crate::time::SimTime;

/// Node indices above this are refused (a typo such as `$node_(1000000000)` must not make the
/// importer allocate for a billion nodes).
pub const MAX_NODE: usize = 1 << 20;

/// A problem in a movement file, at a 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetdestError {
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for SetdestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

/// The motion of one node of the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeMotion {
    /// `set X_` / `set Y_` values, if given.
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub legs: Vec<Leg>,
    /// The first line that names the node (for errors about the node as a whole).
    pub first_line: usize,
}

/// A parsed movement file: the nodes it names, by index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Setdest {
    pub nodes: BTreeMap<usize, NodeMotion>,
}

impl Setdest {
    /// The track of file node `node`, starting at the file's initial position; a coordinate
    /// the file does not set is taken from `default_start`. `None` if the file never names the
    /// node.
    pub fn track(&self, node: usize, default_start: Point) -> Option<Track> {
        let m = self.nodes.get(&node)?;
        let start = (
            m.x.unwrap_or(default_start.0),
            m.y.unwrap_or(default_start.1),
        );
        // Every leg was checked when parsed, so building the track cannot fail.
        Track::from_legs(start, &m.legs).ok()
    }
}

const EXPECTED: &str = "expected `$node_(i) set X_|Y_|Z_ <metres>`, \
`$ns_ at <seconds> \"$node_(i) setdest <x> <y> <m/s>\"`, a `$god_` line or a # comment";

/// Parses a movement file.
pub fn parse_setdest(text: &str) -> Result<Setdest, SetdestError> {
    let mut out = Setdest::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') || l.contains("$god_") {
            continue;
        }
        let e = |msg: String| SetdestError { line, msg };
        if l.matches('"').count() % 2 != 0 {
            return Err(e("unbalanced quote (\")".to_string()));
        }
        let unquoted = l.replace('"', " ");
        let tok: Vec<&str> = unquoted.split_whitespace().collect();
        match tok.as_slice() {
            [node, "set", axis @ ("X_" | "Y_" | "Z_"), v] => {
                let n = node_index(node).map_err(e)?;
                let v = number(v, axis).map_err(e)?;
                let m = motion(&mut out, n, line);
                match *axis {
                    "X_" => m.x = Some(v),
                    "Y_" => m.y = Some(v),
                    _ => {}
                }
            }
            [node, "set", _, _] => {
                node_index(node).map_err(e)?;
                return Err(e("unknown coordinate; allowed: X_, Y_, Z_".to_string()));
            }
            ["$ns_", "at", t, node, "setdest", x, y, speed] => {
                let at = number(t, "time").map_err(e)?;
                if at < 0.0 {
                    return Err(e(format!("time {t} is negative")));
                }
                let n = node_index(node).map_err(e)?;
                let (x, y) = (number(x, "x").map_err(e)?, number(y, "y").map_err(e)?);
                let speed = number(speed, "speed").map_err(e)?;
                if speed < 0.0 {
                    return Err(e(format!("speed {speed} is negative")));
                }
                motion(&mut out, n, line).legs.push(Leg {
                    at: SimTime::from_secs_f64(at),
                    to: (x, y),
                    speed,
                });
            }
            _ => return Err(e(format!("not a movement-file line: {EXPECTED}"))),
        }
    }
    Ok(out)
}

fn motion(s: &mut Setdest, n: usize, line: usize) -> &mut NodeMotion {
    s.nodes.entry(n).or_insert_with(|| NodeMotion {
        first_line: line,
        ..Default::default()
    })
}

/// `$node_(12)` → 12.
fn node_index(tok: &str) -> Result<usize, String> {
    let inner = tok
        .strip_prefix("$node_(")
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| "expected a node, written $node_(<index>)".to_string())?;
    match inner.parse::<usize>() {
        Ok(n) if n <= MAX_NODE => Ok(n),
        Ok(_) => Err(format!(
            "node index {inner} is too large (at most {MAX_NODE})"
        )),
        Err(_) => {
            Err("the node index in $node_(<index>) must be a non-negative integer".to_string())
        }
    }
}

/// A finite number; `what` names it in the error.
fn number(tok: &str, what: &str) -> Result<f64, String> {
    match tok.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{what} is not a finite number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
# nodes: 2, pause: 1.00, max speed: 10.00, max x: 500.00, max y: 500.00
#
$node_(0) set X_ 10.0
$node_(0) set Y_ 20.0
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 400.0
$god_ set-dist 0 1 1
$ns_ at 1.000000000000 "$node_(0) setdest 110.0 20.0 10.0"
$ns_ at 30.0 "$god_ set-dist 0 1 2"
$ns_ at 3.5 "$node_(1) setdest 400.0 0.0 2.0"
"#;

    #[test]
    fn reads_initial_positions_and_legs_and_skips_god_and_comments() {
        let s = parse_setdest(FILE).unwrap();
        assert_eq!(s.nodes.len(), 2);
        let n0 = &s.nodes[&0];
        assert_eq!((n0.x, n0.y), (Some(10.0), Some(20.0)));
        assert_eq!(
            n0.legs,
            vec![Leg {
                at: SimTime::from_secs(1),
                to: (110.0, 20.0),
                speed: 10.0
            }]
        );
        let mut t0 = s.track(0, (0.0, 0.0)).unwrap();
        assert_eq!(t0.position(SimTime::from_secs(6)), (60.0, 20.0));
        // Node 1 sets only X_: Y_ comes from the default start (the station's position).
        let mut t1 = s.track(1, (0.0, 50.0)).unwrap();
        assert_eq!(t1.position(SimTime::ZERO), (400.0, 50.0));
        assert_eq!(t1.position(SimTime::from_secs(100)), (400.0, 0.0));
        assert!(s.track(2, (0.0, 0.0)).is_none());
    }

    #[test]
    fn malformed_lines_are_refused_with_their_line_number() {
        for (text, line, needle) in [
            (
                "$node_(0) set X_ 1\n$node_(0) set W_ 2",
                2,
                "allowed: X_, Y_, Z_",
            ),
            ("\n\n$node_(a) set X_ 1", 3, "non-negative integer"),
            ("$node_(0) set X_ abc", 1, "X_ is not a finite number"),
            ("$ns_ at -1 \"$node_(0) setdest 1 2 3\"", 1, "negative"),
            (
                "$ns_ at 1 \"$node_(0) setdest 1 2 -3\"",
                1,
                "speed -3 is negative",
            ),
            (
                "$ns_ at 1 \"$node_(0) setdest 1 2\"",
                1,
                "not a movement-file line",
            ),
            ("$ns_ at 1 \"$node_(0) setdest 1 2 3", 1, "unbalanced quote"),
            (
                "$ns_ at 1 \"$node_(0) setdest 1 2 inf\"",
                1,
                "speed is not a finite number",
            ),
            ("$node_(99999999) set X_ 1", 1, "too large"),
            ("set val(nn) 50", 1, "not a movement-file line"),
        ] {
            let e = parse_setdest(text).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.msg.contains(needle), "{text}: {e}");
            // The message describes the line, it never quotes what the file holds.
            for word in ["abc", "val(nn)", "W_", "$node_(a)"] {
                assert!(!e.msg.contains(word), "{text}: {e}");
            }
        }
    }
}
