//! Warnings: a valid scenario that will not do what its author most likely means. They do not
//! stop the run; they are printed before it and carried in its summary.
//!
//! Today: a WLAN station that cannot hear its peer at its start position (a station beyond its
//! AP's reception range, or an ad hoc station that hears no other station), whose flows would
//! otherwise report 0 bytes with no reason given.

use super::schema::{Scenario, WlanMode, WlanSpec};
use super::{wlan_config, FieldError};

/// Every warning of a validated scenario, each with the field path it is about.
pub fn warnings(s: &Scenario) -> Vec<FieldError> {
    let mut out = Vec::new();
    for (wi, w) in s.wlans.iter().enumerate() {
        unreachable_stations(w, &format!("wlans[{wi}]"), &mut out);
    }
    out
}

fn unreachable_stations(w: &WlanSpec, loc: &str, out: &mut Vec<FieldError>) {
    let prop = wlan_config(w).propagation;
    let pos = |i: usize| {
        let (x, y) = w.stations[i].position;
        (x.metres(), y.metres())
    };
    let dist = |i: usize, j: usize| {
        let ((xi, yi), (xj, yj)) = (pos(i), pos(j));
        (xi - xj).hypot(yi - yj)
    };
    // Frames are decoded when the received power clears the reception threshold (ns-2's
    // threshold model) or, for the unit disk, within rx_range; the channel is symmetric.
    let hears = |i: usize, j: usize| prop.reach(dist(i, j)).decodable;
    let n = w.stations.len();
    match w.mode {
        WlanMode::Infrastructure => {
            let Some(ap) = w
                .stations
                .iter()
                .position(|st| Some(&st.node) == w.ap.as_ref())
            else {
                return;
            };
            for i in (0..n).filter(|&i| i != ap && !hears(i, ap)) {
                out.push(FieldError {
                    loc: format!("{loc}.stations[{i}].position"),
                    msg: format!(
                        "station {} is {:.1} m from the AP {}, beyond its reception range: no frame \
                         between them can be received, so its flows will deliver nothing",
                        w.stations[i].node,
                        dist(i, ap),
                        w.stations[ap].node
                    ),
                });
            }
        }
        WlanMode::Adhoc => {
            for i in 0..n {
                let nearest = (0..n)
                    .filter(|&j| j != i)
                    .min_by(|&a, &b| dist(i, a).total_cmp(&dist(i, b)));
                if let Some(j) = nearest.filter(|&j| !hears(i, j)) {
                    out.push(FieldError {
                        loc: format!("{loc}.stations[{i}].position"),
                        msg: format!(
                            "station {} hears no other station of {} at its start position \
                             (nearest: {} at {:.1} m, beyond reception range): it can neither \
                             relay nor reach a peer",
                            w.stations[i].node,
                            w.name,
                            w.stations[j].node,
                            dist(i, j)
                        ),
                    });
                }
            }
        }
    }
}
