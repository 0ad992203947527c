//! The scenario's mobility fields → one [`Mobility`] per station (docs/models/mobility.md).
//!
//! `validate_mobility` checks what the scenario text says (called from `validate`);
//! `build_mobility` reads movement files and builds the models. The world moves each station of
//! a [`WlanMobility`] that is not static to `position(t)` at t = 0, every `position_update`, and
//! at every `next_change`.

use std::path::Path;

use super::schema::{MobilitySpec, Scenario, StationSpec, WlanSpec};
use super::{err, FieldError};
use crate::mobility::{
    parse_setdest, Mobility, Point, RandomWaypoint, RandomWaypointParams, Setdest, Track,
};
use crate::rng::{Rng, StreamId};
use crate::time::SimTime;

/// Positions and neighbour tables are refreshed this often while stations move, unless the
/// WLAN's `position_update` says otherwise.
pub const DEFAULT_POSITION_UPDATE: SimTime = SimTime::from_millis(100);

/// The motion of one WLAN's stations, in the order of `wlans[i].stations`.
#[derive(Clone, Debug)]
pub struct WlanMobility {
    /// The fixed refresh interval (`position_update`).
    pub position_update: SimTime,
    pub stations: Vec<Mobility>,
}

impl WlanMobility {
    /// True if no station of the WLAN ever moves (the world schedules nothing for it).
    pub fn is_static(&self) -> bool {
        self.stations.iter().all(Mobility::is_static)
    }
}

fn position(st: &StationSpec) -> Point {
    (st.position.0.metres(), st.position.1.metres())
}

fn rwp_params(m: &MobilitySpec) -> Option<RandomWaypointParams> {
    match m {
        MobilitySpec::RandomWaypoint {
            min_speed,
            max_speed,
            pause,
            area,
            steady_state,
        } => Some(RandomWaypointParams {
            area: (area.0.metres(), area.1.metres()),
            min_speed: min_speed.metres_per_second(),
            max_speed: max_speed.metres_per_second(),
            pause: pause.0,
            steady_state: *steady_state,
        }),
        _ => None,
    }
}

/// Checks the mobility fields of WLAN `w` (at `loc`, e.g. `wlans[0]`).
pub(super) fn validate_mobility(w: &WlanSpec, loc: &str, errs: &mut Vec<FieldError>) {
    if w.position_update.is_some_and(|d| d.0 .0 == 0) {
        errs.push(err(format!("{loc}.position_update"), "must be positive"));
    }
    if w.mobility_file
        .as_deref()
        .is_some_and(|f| f.trim().is_empty())
    {
        errs.push(err(
            format!("{loc}.mobility_file"),
            "must be the path of an ns-2 movement file",
        ));
    }
    for (k, st) in w.stations.iter().enumerate() {
        let ml = format!("{loc}.stations[{k}].mobility");
        match &st.mobility {
            None | Some(MobilitySpec::Static {}) => {}
            Some(MobilitySpec::Waypoints { points }) => {
                if points.is_empty() {
                    errs.push(err(
                        format!("{ml}.points"),
                        "needs at least one [time, x, y] point",
                    ));
                }
                for (j, pair) in points.windows(2).enumerate() {
                    if pair[1].0 <= pair[0].0 {
                        errs.push(err(
                            format!("{ml}.points[{}]", j + 1),
                            format!(
                                "time {} is not after the previous point's {}; times must increase",
                                pair[1].0 .0, pair[0].0 .0
                            ),
                        ));
                    }
                }
            }
            Some(m @ MobilitySpec::RandomWaypoint { .. }) => {
                let Some(p) = rwp_params(m) else { continue };
                if let Err((field, why)) = p.check() {
                    errs.push(err(format!("{ml}.{field}"), why));
                } else if !p.steady_state && !p.contains(position(st)) {
                    errs.push(err(
                        format!("{loc}.stations[{k}].position"),
                        format!(
                            "the walk starts here, so it must lie in the random waypoint area \
                             [0, {}] × [0, {}] m",
                            p.area.0, p.area.1
                        ),
                    ));
                }
            }
        }
    }
}

/// Every WLAN's station motion, in the order of `s.wlans`. Movement files are read here; a
/// relative `mobility_file` is resolved against `base_dir` (the scenario file's directory, or
/// the current directory for scenario text). Errors name the field and, for a file, the line.
pub fn build_mobility(
    s: &Scenario,
    seed: u64,
    base_dir: &Path,
) -> Result<Vec<WlanMobility>, Vec<FieldError>> {
    let mut errs = Vec::new();
    let mut out = Vec::with_capacity(s.wlans.len());
    for (wi, w) in s.wlans.iter().enumerate() {
        let loc = format!("wlans[{wi}]");
        let file = match &w.mobility_file {
            Some(path) => match read_setdest(w, path, base_dir) {
                Ok(f) => Some(f),
                Err(msg) => {
                    errs.push(err(format!("{loc}.mobility_file"), msg));
                    continue;
                }
            },
            None => None,
        };
        let mut stations = Vec::with_capacity(w.stations.len());
        for (k, st) in w.stations.iter().enumerate() {
            let from_file = file.as_ref().and_then(|f| f.track(k, position(st)));
            let moving_spec = !matches!(st.mobility, None | Some(MobilitySpec::Static {}));
            let m = match (from_file, &st.mobility) {
                (Some(_), _) if moving_spec => {
                    errs.push(err(
                        format!("{loc}.stations[{k}].mobility"),
                        format!(
                            "station {k} is already moved by mobility_file (its node {k}); \
                             give one or the other"
                        ),
                    ));
                    continue;
                }
                (Some(tr), _) => Mobility::Waypoints(tr),
                (None, None | Some(MobilitySpec::Static {})) => Mobility::Static(position(st)),
                (None, Some(MobilitySpec::Waypoints { points })) => {
                    let pts = points
                        .iter()
                        .map(|(t, x, y)| (t.0, (x.metres(), y.metres())))
                        .collect();
                    match Track::new(pts) {
                        Ok(tr) => Mobility::Waypoints(tr),
                        Err(e) => {
                            errs.push(err(
                                format!("{loc}.stations[{k}].mobility.points"),
                                e.to_string(),
                            ));
                            continue;
                        }
                    }
                }
                (None, Some(m @ MobilitySpec::RandomWaypoint { .. })) => {
                    let Some(p) = rwp_params(m) else { continue };
                    // Mobility streams: Custom keys tagged 0x4D ("M") with (wlan, station).
                    let rng = Rng::derive(
                        seed,
                        StreamId::Custom((0x4Du64 << 48) | ((wi as u64) << 32) | ((k as u64) << 8)),
                    );
                    match RandomWaypoint::new(p, position(st), rng) {
                        Ok(r) => Mobility::RandomWaypoint(r),
                        Err((field, why)) => {
                            errs.push(err(format!("{loc}.stations[{k}].mobility.{field}"), why));
                            continue;
                        }
                    }
                }
            };
            stations.push(m);
        }
        out.push(WlanMobility {
            position_update: w.position_update.map_or(DEFAULT_POSITION_UPDATE, |d| d.0),
            stations,
        });
    }
    if errs.is_empty() {
        Ok(out)
    } else {
        Err(errs)
    }
}

/// Reads and parses WLAN `w`'s movement file; every node it names must be one of the stations.
fn read_setdest(w: &WlanSpec, path: &str, base_dir: &Path) -> Result<Setdest, String> {
    let full = base_dir.join(path);
    let text = super::input_file::read_input_file(&full, "movement file")?;
    let f = parse_setdest(&text).map_err(|e| format!("'{path}' {e}"))?;
    if let Some((&n, m)) = f.nodes.range(w.stations.len()..).next() {
        return Err(format!(
            "'{path}' line {}: node {n} has no station; file node i moves the WLAN's i-th \
             station and this WLAN has {} (nodes 0 to {})",
            m.first_line,
            w.stations.len(),
            w.stations.len().saturating_sub(1)
        ));
    }
    Ok(f)
}
