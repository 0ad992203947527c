//! Recording what `tcplab view` needs besides the event trace (`trace.view = true`,
//! trace/view.rs): each station's track. The packets the page draws are the event trace's
//! rows; `view_drop` is the one hook every discard goes through, and writes the event trace's
//! drop row.

use super::World;
use crate::ids::{NodeId, PktId};
use crate::time::SimTime;
use crate::trace::view::{self as v, Discard, ViewTrace};

impl World {
    /// Turns the view trace on (before the stations are placed, so their first positions are
    /// recorded).
    pub fn enable_view(&mut self) {
        self.view = Some(Box::default());
    }

    /// The view trace, if recorded.
    pub fn view(&self) -> Option<&ViewTrace> {
        self.view.as_deref()
    }

    /// A station was placed or moved by its model at `now`, moving at `vel` from here.
    pub(super) fn view_position(&mut self, sta: u32, pos: (f64, f64), vel: (f64, f64)) {
        if let Some(t) = self.view.as_mut() {
            let node = self.wifi.stations[sta as usize].node.0;
            t.position(sta, node, self.now, pos, vel);
        }
    }

    /// Packet `id` is dropped at `node` for `why`; `peer` is the next hop it was meant for, if
    /// known: the event trace's drop row.
    pub(super) fn view_drop(
        &mut self,
        node: NodeId,
        id: PktId,
        why: Discard,
        peer: Option<NodeId>,
    ) {
        self.ev_discard(node, id, why, peer);
    }

    /// Takes the view trace out of the world at the end of a run, with a starting point for every station that never reported a position.
    pub fn take_view(&mut self) -> Option<ViewTrace> {
        let mut t = *self.view.take()?;
        let mut placed = vec![false; self.nodes.len()];
        for p in &t.tracks {
            placed[p.node as usize] = true;
        }
        for st in &self.wifi.stations {
            if !placed[st.node.idx()] {
                placed[st.node.idx()] = true;
                t.tracks.push(v::TrackPoint {
                    node: st.node.0,
                    t: SimTime::ZERO,
                    pos: st.pos,
                    vel: (0.0, 0.0),
                });
            }
        }
        Some(t)
    }

    /// The network's shape for the viewer: nodes, wired links, WLANs with their members, AP
    /// and ranges, flows.
    pub fn view_meta(&self) -> serde_json::Value {
        use serde_json::json;
        let name = |n: NodeId| self.nodes[n.idx()].name.clone();
        let links: Vec<_> = self
            .links
            .iter()
            .map(|l| {
                let (a, b) = (
                    &self.ifaces[l.ifaces[0].idx()],
                    &self.ifaces[l.ifaces[1].idx()],
                );
                json!({
                    "name": l.name, "a": a.node.0, "b": b.node.0,
                    "rate_bps": a.rate_bps, "delay_s": a.delay.0 as f64 / 1e9,
                })
            })
            .collect();
        let wlans: Vec<_> = self
            .wifi
            .wlans
            .iter()
            .map(|w| {
                let prop = &w.cfg.propagation;
                json!({
                    "name": w.cfg.name,
                    "mode": match w.cfg.mode {
                        crate::wifi::Mode::Infrastructure => "infrastructure",
                        crate::wifi::Mode::AdHoc => "adhoc",
                    },
                    "ap": w.ap.map(|s| self.wifi.stations[s as usize].node.0),
                    "nodes": w.stations.iter().map(|&s| self.wifi.stations[s as usize].node.0).collect::<Vec<_>>(),
                    "rx_range_m": range(|d| prop.reach(d).decodable),
                    "cs_range_m": range(|d| prop.reach(d).sensed),
                })
            })
            .collect();
        let mut flows: Vec<_> = self
            .flows
            .iter()
            .map(|f| {
                json!({
                    "name": f.name, "kind": "tcp",
                    "client": f.client_node.0, "server": f.server_node.0,
                    "start_s": f.start.0 as f64 / 1e9,
                })
            })
            .collect();
        flows.extend(self.cbr.iter().map(|c| {
            json!({
                "name": c.name, "kind": "cbr", "src": c.src.0, "dst": c.dst.0,
                "start_s": c.start.0 as f64 / 1e9,
            })
        }));
        json!({
            "nodes": self.nodes.iter().enumerate().map(|(i, _)| name(NodeId(i as u32))).collect::<Vec<_>>(),
            "routing": self.routing.iter().map(|r| r.kind()).collect::<Vec<_>>(),
            "links": links,
            "wlans": wlans,
            "flows": flows,
        })
    }
}

/// The largest distance (m, to 1 cm) at which `reaches` holds, for a model where it holds up to
/// some distance and never beyond (every propagation model's mean path loss grows with
/// distance); 0 if it never holds, capped at 100 km.
fn range(reaches: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (0.0, 100_000.0);
    if !reaches(lo) {
        return 0.0;
    }
    if reaches(hi) {
        return hi;
    }
    while hi - lo > 0.01 {
        let mid = 0.5 * (lo + hi);
        if reaches(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use crate::api::prepare;
    use crate::scenario::Format;
    use crate::time::SimTime;

    const RW: &str = r#"
name = "rw"
duration = "120s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[wlans]]
name = "w"
mode = "adhoc"
position_update = "1s"
[[wlans.stations]]
node = "a"
position = ["0m", "0m"]
[[wlans.stations]]
node = "b"
position = ["100m", "0m"]
mobility = { model = "random_waypoint", min_speed = "1m/s", max_speed = "20m/s", pause = "2s", area = ["300m", "300m"] }
[[wlans.stations]]
node = "c"
position = ["50m", "50m"]
mobility = { model = "waypoints", points = [["10s", "50m", "50m"], ["20s", "150m", "50m"], ["25s", "150m", "0m"]] }
# A flow keeps the run going to its end.
[[flows]]
name = "keepalive"
app = "cbr"
src = "a"
dst = "c"
rate = "8kbps"
packet_size = "100B"
[trace]
view = true
"#;

    /// The recorded tracks give the mobility model's exact position at any time, between the
    /// world's refreshes too (a random waypoint's legs and pauses, a waypoint track, a static
    /// station).
    #[test]
    fn tracks_reproduce_the_models_positions() {
        let mut p = prepare(RW, Format::Toml, Some(7), &[], None).unwrap();
        let mut models = p.world.mobile.clone();
        while !p.step(u64::MAX).unwrap() {}
        assert_eq!(
            p.world.now,
            SimTime::from_secs(120),
            "the run lasts its duration"
        );
        let trace = p.world.take_view().unwrap();
        let at = |node: u32, t: SimTime| {
            let k = trace
                .tracks
                .iter()
                .rfind(|q| q.node == node && q.t <= t)
                .expect("a point at t = 0");
            let dt = (t - k.t).0 as f64 / 1e9;
            (k.pos.0 + k.vel.0 * dt, k.pos.1 + k.vel.1 * dt)
        };
        for i in 0..=1200u64 {
            let t = SimTime::from_millis(i * 100 + 37);
            for (sta, m) in models.iter_mut() {
                let node = p.world.wifi.stations[*sta as usize].node.0;
                let (want, got) = (m.position(t), at(node, t));
                assert!(
                    (want.0 - got.0).abs() < 1e-6 && (want.1 - got.1).abs() < 1e-6,
                    "station {sta} at {t:?}: model {want:?}, track {got:?}"
                );
            }
        }
        assert_eq!(at(0, SimTime::from_secs(50)), (0.0, 0.0));
        // The random waypoint turned several times: one point per velocity change, not per refresh.
        let b = trace.tracks.iter().filter(|q| q.node == 1).count();
        assert!(
            b > 4 && b < 120,
            "{b} points for 120 s refreshed every second"
        );
    }
}
