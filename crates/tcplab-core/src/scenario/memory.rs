//! Refusing, before anything is built, a scenario whose run cannot fit in memory.
//!
//! What grows fastest with the scenario is the static routing table: every node that routes
//! statically gets a next hop to every other node (`routes[src][dst]`,
//! [`crate::net::shortest_paths_for`]), so N such nodes need N² entries; the stations of a
//! WLAN with an ad hoc routing protocol get none. A run of 10⁵ nodes asked for
//! 10¹⁰ × 12 B = 120 GB and the process aborted (`memory allocation of 1200000 bytes failed`,
//! exit 134), 10⁶ nodes reached 21 GB before failing. The estimate below counts those tables, the WLAN adjacency lists (at most
//! every station hears every other) and a per-node allowance, and the build is refused with
//! the estimate when it exceeds the limit: [`LIMIT_ENV`] if set, else 80 % of the machine's
//! available memory (`MemAvailable` of /proc/meminfo).
//!
//! Measured (`/usr/bin/time -f %M tcplab run`, a wired chain of N nodes, 10 ms): peak RSS
//! 70 MB at N = 1000, 107 MB at 2000, 254 MB at 4000, i.e. a 59–62 MB base plus 12 B per node
//! pair (docs/validation/robustness.md); the per-node part was below 1 KiB.

use std::collections::BTreeSet;

use super::routing::RoutingProtocolName;
use super::schema::Scenario;
use super::units::parse_size;
use super::{err, FieldError};
use crate::ids::NodeId;
use crate::net::Hop;

/// The environment variable that sets the limit: a size (`"16GiB"`, `"500MB"`) or `none`.
pub const LIMIT_ENV: &str = "TCPLAB_MEMORY_LIMIT";

/// Allowance per node for everything that grows linearly (node state, its links, queues,
/// flows): four times the measured < 1 KiB, so that the estimate errs on the safe side.
const PER_NODE: u64 = 4096;

/// The nodes that keep a static routing table: all but the stations of WLANs with an ad hoc
/// routing protocol (`build::install_routing` gives those their agent instead).
fn static_routing_nodes(s: &Scenario) -> u64 {
    let dynamic: BTreeSet<&str> = s
        .wlans
        .iter()
        .filter(|w| {
            w.routing
                .as_ref()
                .is_some_and(|r| r.protocol != RoutingProtocolName::Static)
        })
        .flat_map(|w| w.stations.iter().map(|st| st.node.as_str()))
        .collect();
    s.nodes
        .iter()
        .filter(|n| !dynamic.contains(n.name.as_str()))
        .count() as u64
}

/// The parts of the estimate: per-node allowance, static routing tables, WLAN neighbour lists.
struct Parts {
    nodes: u64,
    routes: u64,
    neighbours: u64,
}

impl Parts {
    fn of(s: &Scenario) -> Parts {
        let n = s.nodes.len() as u64;
        let route = std::mem::size_of::<Option<Hop>>() as u64;
        let adj = std::mem::size_of::<(Hop, NodeId)>() as u64;
        let pairs: u64 = s
            .wlans
            .iter()
            .map(|w| (w.stations.len() as u64).pow(2))
            .sum();
        Parts {
            nodes: n.saturating_mul(PER_NODE),
            routes: static_routing_nodes(s)
                .saturating_mul(n)
                .saturating_mul(route),
            neighbours: pairs.saturating_mul(adj),
        }
    }

    fn total(&self) -> u64 {
        self.nodes
            .saturating_add(self.routes)
            .saturating_add(self.neighbours)
    }
}

/// Estimated peak bytes of the run's data structures that grow with the scenario.
pub fn estimate(s: &Scenario) -> u64 {
    Parts::of(s).total()
}

/// The limit in bytes and how it was set; `None` when there is none (`none`, or no meminfo).
fn limit() -> Result<Option<(u64, String)>, FieldError> {
    if let Ok(v) = std::env::var(LIMIT_ENV) {
        let v = v.trim();
        if v.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        return parse_size(v)
            .map(|b| Some((b, format!("{LIMIT_ENV}={v}"))))
            .map_err(|e| {
                err(
                    LIMIT_ENV,
                    format!("{e}; expected a size such as 16GiB, or none"),
                )
            });
    }
    Ok(available().map(|a| {
        (
            a / 5 * 4,
            format!(
                "80 % of the {} available; set {LIMIT_ENV} to change it",
                gb(a)
            ),
        )
    }))
}

/// `MemAvailable` of /proc/meminfo in bytes (Linux); `None` elsewhere.
fn available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

fn gb(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// An error at `nodes` if the scenario's estimate exceeds the limit.
pub fn check(s: &Scenario) -> Result<(), FieldError> {
    let Some((max, how)) = limit()? else {
        return Ok(());
    };
    check_against(s, max, &how)
}

fn check_against(s: &Scenario, max: u64, how: &str) -> Result<(), FieldError> {
    let parts = Parts::of(s);
    let need = parts.total();
    if need <= max {
        return Ok(());
    }
    let n = s.nodes.len();
    // Name what the estimate is made of, so that the user sees which choice to change (fewer
    // statically routed nodes, or smaller WLANs).
    let route = std::mem::size_of::<Option<Hop>>();
    let adj = std::mem::size_of::<(Hop, NodeId)>();
    let stations: Vec<String> = s
        .wlans
        .iter()
        .filter(|w| !w.stations.is_empty())
        .map(|w| format!("{}²", w.stations.len()))
        .collect();
    let wlans = if stations.is_empty() {
        String::new()
    } else {
        format!(
            "; WLAN neighbour lists {}: up to {adj} B per station pair, {} pairs, as every \
             station may hear every other",
            gb(parts.neighbours),
            stations.join(" + ")
        )
    };
    Err(err(
        "nodes",
        format!(
            "{n} nodes need about {} of memory (static routes {}: {route} B per node pair, {} × \
             {n} pairs{wlans}), more than the limit of {} ({how})",
            gb(need),
            gb(parts.routes),
            static_routing_nodes(s),
            gb(max),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{parse, Format};

    fn chain(n: usize) -> Scenario {
        let nodes: Vec<String> = (0..n).map(|i| format!("{{\"name\":\"n{i}\"}}")).collect();
        let text = format!(
            "{{\"name\":\"c\",\"nodes\":[{}],\"flows\":[{{\"name\":\"f\",\"app\":\"bulk\",\
             \"client\":\"n0\",\"server\":\"n1\"}}]}}",
            nodes.join(",")
        );
        parse(&text, Format::Json, &[]).expect("parses")
    }

    #[test]
    fn the_estimate_grows_with_the_square_of_the_nodes() {
        let (small, big) = (estimate(&chain(1000)), estimate(&chain(4000)));
        // 12 B per pair (Option<Hop>) plus the per-node allowance.
        assert_eq!(std::mem::size_of::<Option<Hop>>(), 12);
        assert_eq!(small, 1000 * PER_NODE + 1000 * 1000 * 12);
        assert_eq!(big, 4000 * PER_NODE + 4000 * 4000 * 12);
    }

    /// `n` stations of one ad hoc WLAN running `protocol`, and one wired node beside them.
    fn adhoc(n: usize, protocol: &str) -> Scenario {
        let mut nodes: Vec<String> = (0..n).map(|i| format!("{{\"name\":\"s{i}\"}}")).collect();
        nodes.push("{\"name\":\"wired\"}".to_string());
        let stations: Vec<String> = (0..n)
            .map(|i| format!("{{\"node\":\"s{i}\",\"position\":[\"{i}m\",\"0m\"]}}"))
            .collect();
        let text = format!(
            "{{\"name\":\"a\",\"nodes\":[{}],\"wlans\":[{{\"name\":\"w\",\"mode\":\"adhoc\",\
             \"routing\":{{\"protocol\":\"{protocol}\"}},\"stations\":[{}]}}],\
             \"flows\":[{{\"name\":\"f\",\"app\":\"bulk\",\"client\":\"s0\",\"server\":\"s1\"}}]}}",
            nodes.join(","),
            stations.join(",")
        );
        parse(&text, Format::Json, &[]).expect("parses")
    }

    #[test]
    fn only_statically_routed_nodes_count_routes() {
        // The routing table is built only for nodes without an ad hoc routing agent
        // (net::shortest_paths_for): with AODV, only the wired node has one (1 × 1001 entries).
        let adj = std::mem::size_of::<(Hop, NodeId)>() as u64;
        let stations = 1000 * 1000 * adj;
        assert_eq!(
            estimate(&adhoc(1000, "aodv")),
            1001 * PER_NODE + 1001 * 12 + stations
        );
        assert_eq!(
            estimate(&adhoc(1000, "static")),
            1001 * PER_NODE + 1001 * 1001 * 12 + stations
        );
    }

    #[test]
    fn too_many_nodes_are_refused_with_the_estimate() {
        let s = chain(100_000);
        let e = check_against(&s, 8_000_000_000, "test").unwrap_err();
        assert_eq!(e.loc, "nodes");
        assert!(
            e.msg.starts_with("100000 nodes need about 120.4 GB"),
            "{}",
            e.msg
        );
        assert!(e.msg.contains("limit of 8.0 GB (test)"), "{}", e.msg);
        assert!(check_against(&chain(1000), 8_000_000_000, "test").is_ok());
    }

    /// 10⁵ stations of one AODV WLAN: no static routes, and the refusal says that the
    /// neighbour lists make the estimate (it used to print "0 × 100000 pairs" of routes only).
    #[test]
    fn a_large_adhoc_wlan_is_refused_naming_its_neighbour_lists() {
        let e = check_against(&adhoc(100_000, "aodv"), 8_000_000_000, "test").unwrap_err();
        assert_eq!(e.loc, "nodes");
        assert!(
            e.msg
                .contains("static routes 0.0 GB: 12 B per node pair, 1 × 100001"),
            "{}",
            e.msg
        );
        assert!(e.msg.contains("100000² pairs"), "{}", e.msg);
        assert!(e.msg.contains("WLAN neighbour lists 1"), "{}", e.msg);
    }
}
