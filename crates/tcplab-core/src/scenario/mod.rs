//! Scenarios as data: parse (TOML or JSON), apply `--set` overrides, validate with field paths,
//! and build a [`World`].
//!
//! Every problem is reported, each with its field path and what is allowed, before anything runs:
//! form errors of each node, link and flow are collected separately, then the meaning of the
//! whole is checked.

pub mod schema;
pub mod units;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use schema::*;

use crate::agents::AnyAgent;
use crate::app::{AppKind, CbrFlow, TcpFlow};
use crate::ids::NodeId;
use crate::link::{LossModel, Outage, Queue, QueueConfig};
use crate::net::node_addr;
use crate::rng::{Rng, StreamId};
use crate::tcp::{CaMode, FullAckCwnd, InitialWindow, Socket, TcpConfig, Variant, WindowUnit};
use crate::time::SimTime;
use crate::trace::{PcapWriter, SeriesKind, SeriesSet};
use crate::wifi::{
    MacParams, Mode, Modulation, PhyParams, Propagation, RadioParams, RateSelection, Reception,
    SignalConfig, SinrParams, WlanConfig,
};
use crate::world::{LinkDir, World};

/// One problem in a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Where: a dotted path such as `links[1].rate`.
    pub loc: String,
    pub msg: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.loc.is_empty() {
            f.write_str(&self.msg)
        } else {
            write!(f, "{}: {}", self.loc, self.msg)
        }
    }
}

fn err(loc: impl Into<String>, msg: impl Into<String>) -> FieldError {
    FieldError {
        loc: loc.into(),
        msg: msg.into(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "toml" => Some(Format::Toml),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

const TOP_FIELDS: &[&str] = &[
    "name",
    "description",
    "seed",
    "duration",
    "max_events",
    "tcp",
    "nodes",
    "links",
    "wlans",
    "agents",
    "flows",
    "trace",
];

pub const DEFAULT_DURATION: SimTime = SimTime::from_secs(3600);
pub const DEFAULT_MAX_EVENTS: u64 = 2_000_000_000;

/// Parses text into a JSON tree (the common form for TOML and JSON input).
pub fn parse_tree(text: &str, format: Format) -> Result<Value, Vec<FieldError>> {
    match format {
        Format::Toml => toml::from_str::<Value>(text)
            .map_err(|e| vec![err("", format!("malformed TOML: {}", e.to_string().trim()))]),
        Format::Json => serde_json::from_str::<Value>(text)
            .map_err(|e| vec![err("", format!("malformed JSON: {e}"))]),
    }
}

/// Applies one `path=value` override. Arrays of tables are addressed by index or by `name`.
pub fn apply_override(tree: &mut Value, path: &str, raw: &str) -> Result<(), FieldError> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(err(
            path,
            "override path has an empty segment; write e.g. links.bottleneck.rate=5Mbps",
        ));
    }
    let value = parse_override_value(raw);
    let mut cur = tree;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..i].join(".");
        cur = match cur {
            Value::Object(map) => {
                if last {
                    map.insert(part.to_string(), value);
                    return Ok(());
                }
                map.entry(part.to_string())
                    .or_insert_with(|| Value::Object(Default::default()))
            }
            Value::Array(arr) => {
                let idx = match part.parse::<usize>() {
                    Ok(k) if k < arr.len() => k,
                    Ok(k) => {
                        return Err(err(
                            path,
                            format!(
                                "index {k} is out of range: '{here}' has {} entries",
                                arr.len()
                            ),
                        ))
                    }
                    Err(_) => match arr
                        .iter()
                        .position(|e| e.get("name").and_then(Value::as_str) == Some(part))
                    {
                        Some(k) => k,
                        None => {
                            let names: Vec<&str> = arr
                                .iter()
                                .filter_map(|e| e.get("name").and_then(Value::as_str))
                                .collect();
                            return Err(err(
                                path,
                                format!(
                                    "no entry named '{part}' in '{here}'; names: {}",
                                    names.join(", ")
                                ),
                            ));
                        }
                    },
                };
                if last {
                    arr[idx] = value;
                    return Ok(());
                }
                &mut arr[idx]
            }
            _ => {
                return Err(err(
                    path,
                    format!("'{here}' is not a table or an array, so '{part}' cannot be set in it"),
                ))
            }
        };
    }
    Ok(())
}

/// An override value is read as a TOML value when it parses as one ("5", "true", "[1, 2]",
/// "\"x\""), otherwise as a string ("5Mbps").
fn parse_override_value(raw: &str) -> Value {
    let doc = format!("v = {raw}");
    match toml::from_str::<BTreeMap<String, Value>>(&doc) {
        Ok(mut m) => m.remove("v").unwrap_or(Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

fn de<T: DeserializeOwned>(v: &Value, loc: &str, errs: &mut Vec<FieldError>) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(v) {
        Ok(t) => Some(t),
        Err(e) => {
            let p = e.path().to_string();
            let full = match (loc.is_empty(), p.as_str()) {
                (_, ".") | (_, "") => loc.to_string(),
                (true, p) => p.to_string(),
                (false, p) => format!("{loc}.{p}"),
            };
            errs.push(err(full, e.inner().to_string()));
            None
        }
    }
}

/// Parses, applies overrides and checks the form of every part.
pub fn parse(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
) -> Result<Scenario, Vec<FieldError>> {
    let mut tree = parse_tree(text, format)?;
    let mut errs = Vec::new();
    for (p, v) in overrides {
        if let Err(e) = apply_override(&mut tree, p, v) {
            errs.push(e);
        }
    }
    let Some(obj) = tree.as_object() else {
        errs.push(err("", "the scenario must be a table of fields"));
        return Err(errs);
    };
    for k in obj.keys() {
        if !TOP_FIELDS.contains(&k.as_str()) {
            errs.push(err(
                k.clone(),
                format!("unknown field; allowed: {}", TOP_FIELDS.join(", ")),
            ));
        }
    }
    let n_before = errs.len();
    check_array::<NodeSpec>(obj.get("nodes"), "nodes", &mut errs);
    check_array::<LinkSpec>(obj.get("links"), "links", &mut errs);
    check_array::<WlanSpec>(obj.get("wlans"), "wlans", &mut errs);
    check_array::<FlowSpec>(obj.get("flows"), "flows", &mut errs);
    check_array::<AgentSpec>(obj.get("agents"), "agents", &mut errs);
    if let Some(t) = obj.get("tcp") {
        de::<TcpSpec>(t, "tcp", &mut errs);
    }
    if let Some(t) = obj.get("trace") {
        de::<TraceSpec>(t, "trace", &mut errs);
    }
    if obj.get("nodes").is_none() {
        errs.push(err(
            "nodes",
            "missing: a scenario needs at least one [[nodes]] entry",
        ));
    }
    // The remaining (scalar) fields: deserialize the whole and keep its error if it is new.
    let mut whole_errs = Vec::new();
    let whole = de::<Scenario>(&tree, "", &mut whole_errs);
    if errs.len() == n_before {
        for e in whole_errs {
            if !errs
                .iter()
                .any(|x| e.loc.starts_with(&x.loc) && !x.loc.is_empty())
            {
                errs.push(e);
            }
        }
    }
    match whole {
        Some(s) if errs.is_empty() => Ok(s),
        _ => {
            if errs.is_empty() {
                errs.push(err("", "the scenario could not be read"));
            }
            Err(errs)
        }
    }
}

fn check_array<T: DeserializeOwned>(v: Option<&Value>, key: &str, errs: &mut Vec<FieldError>) {
    match v {
        None => {}
        Some(Value::Array(a)) => {
            for (i, el) in a.iter().enumerate() {
                de::<T>(el, &format!("{key}[{i}]"), errs);
            }
        }
        Some(_) => errs.push(err(key, format!("must be an array of tables ([[{key}]])"))),
    }
}

// ---------------------------------------------------------------------- meaning

/// TCP parameters of a flow: the flow's table over the scenario's over the RFC defaults.
pub fn merged_tcp(global: &TcpSpec, local: Option<&TcpSpec>) -> TcpSpec {
    let mut g = serde_json::to_value(global).unwrap_or(Value::Null);
    if let (Some(Ok(Value::Object(lm))), Value::Object(gm)) =
        (local.map(serde_json::to_value), &mut g)
    {
        gm.extend(lm);
    }
    serde_json::from_value(g).unwrap_or_default()
}

/// Converts a (validated) TcpSpec into the socket configuration.
pub fn tcp_config(s: &TcpSpec) -> TcpConfig {
    let d = TcpConfig::default();
    TcpConfig {
        variant: match s.variant {
            Some(VariantName::Reno) => Variant::Reno,
            Some(VariantName::Sack) => Variant::Sack,
            Some(VariantName::Newreno) | None => Variant::NewReno,
        },
        mss: s.mss.map_or(d.mss, |m| m.0 as u32),
        initial_window: match &s.initial_window {
            Some(InitialWindowSpec::Segments(n)) => InitialWindow::Segments(*n),
            _ => InitialWindow::Rfc3390,
        },
        initial_ssthresh: s.initial_ssthresh.map(|x| x.0),
        window_unit: match s.window_unit {
            Some(WindowUnitName::Segments) => WindowUnit::Segments,
            _ => WindowUnit::Bytes,
        },
        ca_mode: match s.ca_mode {
            Some(CaModeName::PerAck) => CaMode::PerAck,
            _ => CaMode::ByteCounting,
        },
        abc_limit: s.abc_limit.unwrap_or(d.abc_limit),
        dupack_threshold: s.dupack_threshold.unwrap_or(d.dupack_threshold),
        limited_transmit: s.limited_transmit.unwrap_or(d.limited_transmit),
        full_ack: match s.full_ack {
            Some(FullAckName::Ssthresh) => FullAckCwnd::Ssthresh,
            _ => FullAckCwnd::FlightSize,
        },
        rto_initial: s.rto_initial.map_or(d.rto_initial, |x| x.0),
        rto_min: s.rto_min.map_or(d.rto_min, |x| x.0),
        rto_max: s.rto_max.map_or(d.rto_max, |x| x.0),
        rto_after_syn_timeout: s
            .rto_after_syn_timeout
            .map_or(d.rto_after_syn_timeout, |x| x.0),
        clock_granularity: s.clock_granularity.map_or(d.clock_granularity, |x| x.0),
        timer_tick: s.timer_tick.map_or(d.timer_tick, |x| x.0),
        max_retransmissions: s.max_retransmissions.unwrap_or(d.max_retransmissions),
        persist_min: s.persist_min.map_or(d.persist_min, |x| x.0),
        persist_max: s.persist_max.map_or(d.persist_max, |x| x.0),
        rcv_buf: s.rcv_buf.map_or(d.rcv_buf, |x| x.0),
        delayed_ack: s.delayed_ack.unwrap_or(d.delayed_ack),
        ack_delay: s.ack_delay.map_or(d.ack_delay, |x| x.0),
        ack_every: s.ack_every.unwrap_or(d.ack_every),
        sack: s.sack.unwrap_or(d.sack),
        timestamps: s.timestamps.unwrap_or(d.timestamps),
        window_scaling: s.window_scaling.unwrap_or(d.window_scaling),
        ecn: s.ecn.unwrap_or(d.ecn),
    }
}

/// The TcpSpec with every field filled in (for the resolved scenario and result keys).
pub fn resolved_tcp(s: &TcpSpec) -> TcpSpec {
    let c = tcp_config(s);
    TcpSpec {
        variant: Some(match c.variant {
            Variant::Reno => VariantName::Reno,
            Variant::NewReno => VariantName::Newreno,
            Variant::Sack => VariantName::Sack,
        }),
        mss: Some(units::Size(c.mss as u64)),
        initial_window: Some(match c.initial_window {
            InitialWindow::Rfc3390 => InitialWindowSpec::Named("rfc3390".into()),
            InitialWindow::Segments(n) => InitialWindowSpec::Segments(n),
        }),
        initial_ssthresh: c.initial_ssthresh.map(units::Size),
        window_unit: Some(match c.window_unit {
            WindowUnit::Bytes => WindowUnitName::Bytes,
            WindowUnit::Segments => WindowUnitName::Segments,
        }),
        ca_mode: Some(match c.ca_mode {
            CaMode::ByteCounting => CaModeName::ByteCounting,
            CaMode::PerAck => CaModeName::PerAck,
        }),
        abc_limit: Some(c.abc_limit),
        dupack_threshold: Some(c.dupack_threshold),
        limited_transmit: Some(c.limited_transmit),
        full_ack: Some(match c.full_ack {
            FullAckCwnd::FlightSize => FullAckName::Flightsize,
            FullAckCwnd::Ssthresh => FullAckName::Ssthresh,
        }),
        rto_initial: Some(units::Duration(c.rto_initial)),
        rto_min: Some(units::Duration(c.rto_min)),
        rto_max: Some(units::Duration(c.rto_max)),
        rto_after_syn_timeout: Some(units::Duration(c.rto_after_syn_timeout)),
        clock_granularity: Some(units::Duration(c.clock_granularity)),
        timer_tick: Some(units::Duration(c.timer_tick)),
        max_retransmissions: Some(c.max_retransmissions),
        persist_min: Some(units::Duration(c.persist_min)),
        persist_max: Some(units::Duration(c.persist_max)),
        rcv_buf: Some(units::Size(c.rcv_buf)),
        delayed_ack: Some(c.delayed_ack),
        ack_delay: Some(units::Duration(c.ack_delay)),
        ack_every: Some(c.ack_every),
        sack: Some(c.sack),
        timestamps: Some(c.timestamps),
        window_scaling: Some(c.window_scaling),
        ecn: Some(c.ecn),
    }
}

fn validate_tcp(t: &TcpSpec, loc: &str, errs: &mut Vec<FieldError>) {
    if let Some(InitialWindowSpec::Named(n)) = &t.initial_window {
        if n != "rfc3390" {
            errs.push(err(
                format!("{loc}.initial_window"),
                format!("'{n}' is not allowed; use \"rfc3390\" or a number of segments"),
            ));
        }
    }
    if let Some(InitialWindowSpec::Segments(0)) = &t.initial_window {
        errs.push(err(
            format!("{loc}.initial_window"),
            "must be at least 1 segment",
        ));
    }
    if let Some(m) = t.mss {
        if m.0 == 0 || m.0 > 65_495 {
            errs.push(err(
                format!("{loc}.mss"),
                format!("{} B is out of range; allowed 1 to 65495 bytes", m.0),
            ));
        }
    }
    if let Some(b) = t.rcv_buf {
        if b.0 == 0 || b.0 > (1u64 << 30) {
            errs.push(err(
                format!("{loc}.rcv_buf"),
                "out of range; allowed 1 B to 1 GiB",
            ));
        }
    }
    let pos = |v: Option<u32>, name: &str, errs: &mut Vec<FieldError>| {
        if v == Some(0) {
            errs.push(err(format!("{loc}.{name}"), "must be at least 1"));
        }
    };
    pos(t.abc_limit, "abc_limit", errs);
    pos(t.dupack_threshold, "dupack_threshold", errs);
    pos(t.ack_every, "ack_every", errs);
    let c = tcp_config(t);
    if c.rto_min > c.rto_max {
        errs.push(err(format!("{loc}.rto_min"), "must not exceed rto_max"));
    }
    if c.rto_initial.0 == 0 {
        errs.push(err(format!("{loc}.rto_initial"), "must be positive"));
    }
    if c.persist_min > c.persist_max {
        errs.push(err(
            format!("{loc}.persist_min"),
            "must not exceed persist_max",
        ));
    }
}

fn check_prob(v: Option<f64>, loc: String, errs: &mut Vec<FieldError>) {
    if let Some(p) = v {
        if !(0.0..=1.0).contains(&p) {
            errs.push(err(
                loc,
                format!("{p} is not a probability; allowed 0 to 1"),
            ));
        }
    }
}

/// Checks the meaning of a parsed scenario.
pub fn validate(s: &Scenario) -> Result<(), Vec<FieldError>> {
    let mut errs = Vec::new();
    let mut node_names = BTreeSet::new();
    for (i, n) in s.nodes.iter().enumerate() {
        if n.name.is_empty() {
            errs.push(err(format!("nodes[{i}].name"), "must not be empty"));
        }
        if !node_names.insert(n.name.as_str()) {
            errs.push(err(
                format!("nodes[{i}].name"),
                format!("duplicate node name '{}'", n.name),
            ));
        }
    }
    if s.nodes.is_empty() {
        errs.push(err("nodes", "a scenario needs at least one node"));
    }
    let known = |name: &str| node_names.contains(name);
    let list: Vec<&str> = node_names.iter().copied().collect();
    let unknown_node = |loc: String, name: &str| {
        err(
            loc,
            format!("unknown node '{name}'; nodes: {}", list.join(", ")),
        )
    };

    let mut link_names = BTreeSet::new();
    for (i, l) in s.links.iter().enumerate() {
        let loc = format!("links[{i}]");
        for (f, v) in [("a", &l.a), ("b", &l.b)] {
            if !known(v) {
                errs.push(unknown_node(format!("{loc}.{f}"), v));
            }
        }
        if l.a == l.b {
            errs.push(err(format!("{loc}.b"), "a link needs two different nodes"));
        }
        let name = link_name(l);
        if !link_names.insert(name.clone()) {
            errs.push(err(
                format!("{loc}.name"),
                format!("duplicate link name '{name}'"),
            ));
        }
        if let Some(QueueSpec::Red {
            limit,
            min_th,
            max_th,
            max_p,
            w_q,
            ..
        }) = &l.queue
        {
            if !(0.0 <= *min_th && min_th < max_th) {
                errs.push(err(
                    format!("{loc}.queue.min_th"),
                    "need 0 ≤ min_th < max_th",
                ));
            }
            if *limit == 0 {
                errs.push(err(
                    format!("{loc}.queue.limit"),
                    "must be at least 1 packet",
                ));
            }
            if !(*max_p > 0.0 && *max_p <= 1.0) {
                errs.push(err(format!("{loc}.queue.max_p"), "allowed: 0 < max_p ≤ 1"));
            }
            if !(*w_q > 0.0 && *w_q <= 1.0) {
                errs.push(err(format!("{loc}.queue.w_q"), "allowed: 0 < w_q ≤ 1"));
            }
        }
        if let Some(QueueSpec::Droptail {
            packets: Some(0), ..
        }) = &l.queue
        {
            errs.push(err(format!("{loc}.queue.packets"), "must be at least 1"));
        }
        if let Some(ls) = &l.loss {
            validate_loss(ls, &format!("{loc}.loss"), &mut errs);
        }
        if let Some(o) = &l.outage {
            validate_outage(o, &format!("{loc}.outage"), &mut errs);
        }
    }

    let mut wlan_names = BTreeSet::new();
    for (i, w) in s.wlans.iter().enumerate() {
        let loc = format!("wlans[{i}]");
        if !wlan_names.insert(w.name.clone()) || link_names.contains(&w.name) {
            errs.push(err(
                format!("{loc}.name"),
                format!("duplicate link or WLAN name '{}'", w.name),
            ));
        }
        validate_wlan(w, &loc, &known, &unknown_node, &mut errs);
    }
    for n in &wlan_names {
        link_names.insert(n.clone());
    }

    validate_tcp(&s.tcp, "tcp", &mut errs);
    let mut flow_names = BTreeSet::new();
    for (i, f) in s.flows.iter().enumerate() {
        let loc = format!("flows[{i}]");
        if !flow_names.insert(f.name.as_str()) {
            errs.push(err(
                format!("{loc}.name"),
                format!("duplicate flow name '{}'", f.name),
            ));
        }
        let need = |v: bool, field: &str, errs: &mut Vec<FieldError>| {
            if !v {
                errs.push(err(
                    format!("{loc}.{field}"),
                    format!("required for app = \"{}\"", app_str(f.app)),
                ));
            }
        };
        let forbid = |v: bool, field: &str, errs: &mut Vec<FieldError>| {
            if v {
                errs.push(err(
                    format!("{loc}.{field}"),
                    format!("not used by app = \"{}\"", app_str(f.app)),
                ));
            }
        };
        // Each named endpoint must be a node of the scenario.
        let check_nodes = |fields: &[(&str, &Option<String>)], errs: &mut Vec<FieldError>| {
            for (field, v) in fields {
                if let Some(n) = v {
                    if !known(n) {
                        errs.push(unknown_node(format!("{loc}.{field}"), n));
                    }
                }
            }
        };
        match f.app {
            AppName::BulkDownload | AppName::Bulk => {
                need(f.client.is_some(), "client", &mut errs);
                need(f.server.is_some(), "server", &mut errs);
                if f.app == AppName::BulkDownload {
                    need(f.size.is_some(), "size", &mut errs);
                } else {
                    forbid(f.size.is_some(), "size", &mut errs);
                }
                for (field, v) in [
                    ("src", f.src.is_some()),
                    ("dst", f.dst.is_some()),
                    ("rate", f.rate.is_some()),
                    ("packet_size", f.packet_size.is_some()),
                    ("stop", f.stop.is_some()),
                ] {
                    forbid(v, field, &mut errs);
                }
                check_nodes(&[("client", &f.client), ("server", &f.server)], &mut errs);
                if f.client.is_some() && f.client == f.server {
                    errs.push(err(
                        format!("{loc}.server"),
                        "client and server must be different nodes",
                    ));
                }
                if let (Some(c), Some(sv)) = (&f.client, &f.server) {
                    if known(c) && known(sv) && !connected(s, c, sv) {
                        errs.push(err(
                            format!("{loc}.server"),
                            format!("no path of links between '{c}' and '{sv}'"),
                        ));
                    }
                }
                if let Some(t) = &f.tcp {
                    validate_tcp(t, &format!("{loc}.tcp"), &mut errs);
                }
            }
            AppName::Cbr => {
                need(f.src.is_some(), "src", &mut errs);
                need(f.dst.is_some(), "dst", &mut errs);
                need(f.rate.is_some(), "rate", &mut errs);
                need(f.packet_size.is_some(), "packet_size", &mut errs);
                for (field, v) in [
                    ("client", f.client.is_some()),
                    ("server", f.server.is_some()),
                    ("size", f.size.is_some()),
                    ("request", f.request.is_some()),
                    ("tcp", f.tcp.is_some()),
                ] {
                    forbid(v, field, &mut errs);
                }
                check_nodes(&[("src", &f.src), ("dst", &f.dst)], &mut errs);
                if let Some(p) = f.packet_size {
                    if p.0 == 0 || p.0 > 65_507 {
                        errs.push(err(
                            format!("{loc}.packet_size"),
                            "allowed 1 to 65507 bytes",
                        ));
                    }
                }
            }
        }
    }
    for (i, name) in s.trace.series.iter().enumerate() {
        if name != "all" && SeriesKind::parse(name).is_none() {
            let all: Vec<&str> = SeriesKind::ALL.iter().map(|k| k.name()).collect();
            errs.push(err(
                format!("trace.series[{i}]"),
                format!("unknown series '{name}'; allowed: all, {}", all.join(", ")),
            ));
        }
    }
    for (i, name) in s.trace.pcap.iter().enumerate() {
        if name != "*" && !link_names.contains(name) {
            let names: Vec<&str> = link_names.iter().map(|s| s.as_str()).collect();
            errs.push(err(
                format!("trace.pcap[{i}]"),
                format!(
                    "unknown link '{name}'; links: {} (or \"*\")",
                    names.join(", ")
                ),
            ));
        }
    }
    if s.duration.is_some_and(|d| d.0 .0 == 0) {
        errs.push(err("duration", "must be positive"));
    }
    if s.max_events == Some(0) {
        errs.push(err("max_events", "must be positive"));
    }
    for (i, a) in s.agents.iter().enumerate() {
        validate_agent(s, a, &format!("agents[{i}]"), &node_names, &mut errs);
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn validate_agent(
    s: &Scenario,
    a: &AgentSpec,
    loc: &str,
    nodes: &BTreeSet<&str>,
    errs: &mut Vec<FieldError>,
) {
    let list: Vec<&str> = nodes.iter().copied().collect();
    for (f, v) in [("node", &a.node), ("mobile", &a.mobile)] {
        if !nodes.contains(v.as_str()) {
            errs.push(err(
                format!("{loc}.{f}"),
                format!("unknown node '{v}'; nodes: {}", list.join(", ")),
            ));
        }
    }
    if a.node == a.mobile {
        errs.push(err(
            format!("{loc}.mobile"),
            "the agent's node and its mobile must differ",
        ));
    }
    // The mobile's station: where its outages and their predictions are configured.
    let station = s.wlans.iter().enumerate().find_map(|(wi, w)| {
        w.stations
            .iter()
            .find(|st| st.node == a.mobile)
            .map(|st| (wi, w, st))
    });
    match station {
        None if nodes.contains(a.mobile.as_str()) => errs.push(err(
            format!("{loc}.mobile"),
            format!(
                "'{}' is not a station of any WLAN; agents act on a wireless host's connections",
                a.mobile
            ),
        )),
        Some((wi, w, st)) => {
            let lead = w
                .signals
                .as_ref()
                .and_then(|g| g.lead)
                .map_or(SimTime::ZERO, |d| d.0);
            if st.outage.is_some() && lead.0 == 0 && a.kind != AgentKindName::AckHolder {
                errs.push(err(
                    format!("{loc}.kind"),
                    format!(
                        "{} needs outages predicted ahead: set wlans[{wi}].signals.lead > 0",
                        agent_str(a.kind)
                    ),
                ));
            }
        }
        None => {}
    }
    let kind = agent_str(a.kind);
    let forbid = |v: bool, f: &str, errs: &mut Vec<FieldError>| {
        if v {
            errs.push(err(
                format!("{loc}.{f}"),
                format!("not used by kind = \"{kind}\""),
            ));
        }
    };
    let holder = a.kind == AgentKindName::AckHolder;
    let plus = a.kind == AgentKindName::MtcpPlus;
    forbid(!plus && a.buffer.is_some(), "buffer", errs);
    forbid(!plus && a.rto.is_some(), "rto", errs);
    forbid(!plus && a.max_rto.is_some(), "max_rto", errs);
    for (f, v) in [
        ("estimator", a.estimator.is_some()),
        ("fh_rto_min", a.fh_rto_min.is_some()),
        ("fh_rto_max", a.fh_rto_max.is_some()),
        ("fh_granularity", a.fh_granularity.is_some()),
        ("guard", a.guard.is_some()),
        ("max_dups", a.max_dups.is_some()),
        ("rewrite_tsecr", a.rewrite_tsecr.is_some()),
    ] {
        forbid(!holder && v, f, errs);
    }
    if let Some(g) = a.guard {
        if !(0.0..1.0).contains(&g) {
            errs.push(err(
                format!("{loc}.guard"),
                format!("{g} is out of range; allowed 0 ≤ guard < 1"),
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (a.fh_rto_min, a.fh_rto_max) {
        if lo.0 > hi.0 {
            errs.push(err(
                format!("{loc}.fh_rto_min"),
                "must not exceed fh_rto_max",
            ));
        }
    }
    if a.buffer.is_some_and(|b| b.0 == 0) {
        errs.push(err(format!("{loc}.buffer"), "must be positive"));
    }
}

fn agent_str(k: AgentKindName) -> &'static str {
    match k {
        AgentKindName::Mtcp => "mtcp",
        AgentKindName::MtcpPlus => "mtcp_plus",
        AgentKindName::AckHolder => "ack_holder",
    }
}

/// The agent a validated spec describes.
fn build_agent(a: &AgentSpec) -> AnyAgent {
    use crate::agents::{ack_holder, ack_schedule::Estimator, mtcp};
    match a.kind {
        AgentKindName::Mtcp => AnyAgent::Mtcp(mtcp::MtcpSh::default()),
        AgentKindName::MtcpPlus => {
            let d = mtcp::MtcpPlusConfig::default();
            AnyAgent::MtcpPlus(mtcp::MtcpPlusIh::new(mtcp::MtcpPlusConfig {
                buffer: a.buffer.map_or(d.buffer, |b| b.0),
                rto: a.rto.map_or(d.rto, |x| x.0),
                max_rto: a.max_rto.map_or(d.max_rto, |x| x.0),
            }))
        }
        AgentKindName::AckHolder => {
            let d = ack_holder::AckHolderConfig::default();
            let estimator = match (a.estimator, d.estimator) {
                (Some(EstimatorName::Pure), _) => Estimator::Pure,
                (
                    _,
                    Estimator::Clamped {
                        min,
                        max,
                        granularity,
                    },
                ) => Estimator::Clamped {
                    min: a.fh_rto_min.map_or(min, |x| x.0.as_secs_f64()),
                    max: a.fh_rto_max.map_or(max, |x| x.0.as_secs_f64()),
                    granularity: a.fh_granularity.map_or(granularity, |x| x.0.as_secs_f64()),
                },
                (_, e) => e,
            };
            AnyAgent::AckHolder(Box::new(ack_holder::AckHolder::new(
                ack_holder::AckHolderConfig {
                    estimator,
                    guard: a.guard.unwrap_or(d.guard),
                    max_dups: a.max_dups.unwrap_or(d.max_dups),
                    rewrite_tsecr: a.rewrite_tsecr.unwrap_or(d.rewrite_tsecr),
                },
            )))
        }
    }
}

fn validate_loss(l: &LossSpec, loc: &str, errs: &mut Vec<FieldError>) {
    check_prob(l.p, format!("{loc}.p"), errs);
    check_prob(l.p_gb, format!("{loc}.p_gb"), errs);
    check_prob(l.p_bg, format!("{loc}.p_bg"), errs);
    check_prob(l.loss_good, format!("{loc}.loss_good"), errs);
    check_prob(l.loss_bad, format!("{loc}.loss_bad"), errs);
    check_prob(l.mean, format!("{loc}.mean"), errs);
    match l.model {
        LossModelName::Bernoulli => {
            if l.p.is_none() {
                errs.push(err(
                    format!("{loc}.p"),
                    "required for model = \"bernoulli\"",
                ));
            }
            for (f, v) in [
                ("p_gb", l.p_gb),
                ("p_bg", l.p_bg),
                ("loss_good", l.loss_good),
                ("loss_bad", l.loss_bad),
                ("mean", l.mean),
                ("burst", l.burst),
            ] {
                if v.is_some() {
                    errs.push(err(
                        format!("{loc}.{f}"),
                        "not used by model = \"bernoulli\" (it takes p)",
                    ));
                }
            }
        }
        LossModelName::GilbertElliott => {
            let explicit = l.p_gb.is_some() || l.p_bg.is_some();
            let by_mean = l.mean.is_some() || l.burst.is_some();
            if l.p.is_some() {
                errs.push(err(format!("{loc}.p"), "not used by model = \"gilbert_elliott\"; give p_gb and p_bg, or mean and burst"));
            }
            if explicit == by_mean {
                errs.push(err(
                    loc.to_string(),
                    "gilbert_elliott takes either p_gb and p_bg, or mean and burst",
                ));
            } else if explicit && (l.p_gb.is_none() || l.p_bg.is_none()) {
                errs.push(err(loc.to_string(), "give both p_gb and p_bg"));
            } else if by_mean && (l.mean.is_none() || l.burst.is_none()) {
                errs.push(err(loc.to_string(), "give both mean and burst"));
            }
            if let Some(b) = l.burst {
                if b < 1.0 {
                    errs.push(err(
                        format!("{loc}.burst"),
                        "mean burst length is at least 1 packet",
                    ));
                }
            }
            if l.mean == Some(1.0) {
                errs.push(err(format!("{loc}.mean"), "must be below 1"));
            }
        }
    }
}

fn validate_outage(o: &OutageSpec, loc: &str, errs: &mut Vec<FieldError>) {
    match (o.every, o.down) {
        (Some(p), Some(d)) => {
            if d.0 >= p.0 || p.0 .0 == 0 {
                errs.push(err(format!("{loc}.down"), "must be shorter than 'every'"));
            }
        }
        (None, None) => {
            if o.start.is_some() {
                errs.push(err(
                    format!("{loc}.start"),
                    "only used with 'every' and 'down'",
                ));
            }
        }
        _ => errs.push(err(loc.to_string(), "'every' and 'down' go together")),
    }
    for (i, (s, e)) in o.intervals.iter().enumerate() {
        if e.0 <= s.0 {
            errs.push(err(
                format!("{loc}.intervals[{i}]"),
                "end must be after start",
            ));
        }
    }
}

fn validate_wlan(
    w: &WlanSpec,
    loc: &str,
    known: &dyn Fn(&str) -> bool,
    unknown_node: &dyn Fn(String, &str) -> FieldError,
    errs: &mut Vec<FieldError>,
) {
    let phy = match wlan_phy_base(w) {
        Some(p) => Some(p),
        None => {
            errs.push(err(
                format!("{loc}.phy"),
                format!(
                    "unknown PHY preset '{}'; allowed: {}",
                    w.phy.as_deref().unwrap_or(""),
                    PhyParams::PRESETS.join(", ")
                ),
            ));
            None
        }
    };
    if let Some(p) = &phy {
        let rates: Vec<String> = p
            .rates
            .iter()
            .map(|r| format!("{}", *r as f64 / 1e6))
            .collect();
        let check_rate = |r: u64, at: String, errs: &mut Vec<FieldError>| {
            if !p.rates.contains(&r) {
                errs.push(err(
                    at,
                    format!(
                        "{} Mb/s is not a rate of PHY '{}'; allowed (Mb/s): {}",
                        r as f64 / 1e6,
                        p.preset,
                        rates.join(", ")
                    ),
                ));
            }
        };
        if let Some(r) = w.rate {
            check_rate(r.0, format!("{loc}.rate"), errs);
        }
        if let Some(r) = w.basic_rate {
            check_rate(r.0, format!("{loc}.basic_rate"), errs);
        }
        if let Some(r) = w.rts_cts_rate {
            check_rate(r.0, format!("{loc}.rts_cts_rate"), errs);
        }
        for (k, st) in w.rate_steps.iter().enumerate() {
            check_rate(st.rate.0, format!("{loc}.rate_steps[{k}].rate"), errs);
            if k > 0 && st.max_distance <= w.rate_steps[k - 1].max_distance {
                errs.push(err(
                    format!("{loc}.rate_steps[{k}].max_distance"),
                    "steps must be in increasing distance",
                ));
            }
        }
        if w.short_preamble.is_some()
            && !matches!(p.modulation, Modulation::Dsss | Modulation::ErpOfdm)
        {
            errs.push(err(
                format!("{loc}.short_preamble"),
                format!("PHY '{}' has no short preamble", p.preset),
            ));
        }
    }
    if w.rate.is_some() && !w.rate_steps.is_empty() {
        errs.push(err(
            format!("{loc}.rate_steps"),
            "give either a fixed rate or rate_steps, not both",
        ));
    }
    for (f, v) in [("cw_min", w.cw_min), ("cw_max", w.cw_max)] {
        if let Some(c) = v {
            if !(c + 1).is_power_of_two() || c == 0 {
                errs.push(err(
                    format!("{loc}.{f}"),
                    format!(
                        "{c} is not allowed; CW + 1 must be a power of two (e.g. 15, 31, 1023)"
                    ),
                ));
            }
        }
    }
    if let Some(p) = &phy {
        let (lo, hi) = (w.cw_min.unwrap_or(p.cw_min), w.cw_max.unwrap_or(p.cw_max));
        if lo > hi {
            errs.push(err(format!("{loc}.cw_min"), "must not exceed cw_max"));
        }
    }
    for (f, v) in [
        ("short_retry_limit", w.short_retry_limit),
        ("long_retry_limit", w.long_retry_limit),
        ("queue", w.queue),
    ] {
        if v == Some(0) {
            errs.push(err(format!("{loc}.{f}"), "must be at least 1"));
        }
    }
    if w.slot.is_some_and(|d| d.0 .0 == 0) {
        errs.push(err(format!("{loc}.slot"), "must be positive"));
    }
    validate_reception(w, loc, phy.as_ref(), errs);
    if w.prop_delay.is_some() && w.prop_delay_from_distance == Some(true) {
        errs.push(err(
            format!("{loc}.prop_delay"),
            "give either prop_delay or prop_delay_from_distance = true, not both",
        ));
    }
    if let Some(pr) = &w.propagation {
        let pl = format!("{loc}.propagation");
        let disk = pr.model == PropagationModelName::UnitDisk;
        for (f, set) in [
            ("rx_range", pr.rx_range.is_some()),
            ("cs_range", pr.cs_range.is_some()),
        ] {
            if set && !disk {
                errs.push(err(
                    format!("{pl}.{f}"),
                    "only used by model = \"unit_disk\"",
                ));
            }
        }
        for (f, v) in [
            ("tx_power_w", pr.tx_power_w),
            ("frequency_hz", pr.frequency_hz),
            ("rx_thresh_w", pr.rx_thresh_w),
            ("cs_thresh_w", pr.cs_thresh_w),
            ("capture_ratio", pr.capture_ratio),
        ] {
            if let Some(x) = v {
                if disk {
                    errs.push(err(
                        format!("{pl}.{f}"),
                        "not used by model = \"unit_disk\" (it takes rx_range and cs_range)",
                    ));
                } else if !(x > 0.0 && x.is_finite()) {
                    errs.push(err(format!("{pl}.{f}"), "must be a positive number"));
                }
            }
        }
        if disk {
            let rx = pr.rx_range.map_or(250.0, |d| d.metres());
            let cs = pr.cs_range.map_or(550.0, |d| d.metres());
            if rx <= 0.0 {
                errs.push(err(format!("{pl}.rx_range"), "must be positive"));
            }
            if cs < rx {
                errs.push(err(format!("{pl}.cs_range"), "must be at least rx_range"));
            }
        }
    }
    if let Some(sg) = &w.signals {
        if sg
            .duration_factor
            .is_some_and(|f| !(f >= 0.0 && f.is_finite()))
        {
            errs.push(err(
                format!("{loc}.signals.duration_factor"),
                "must be zero or positive",
            ));
        }
        if sg
            .miss_probability
            .is_some_and(|p| !(0.0..=1.0).contains(&p))
        {
            errs.push(err(
                format!("{loc}.signals.miss_probability"),
                "is a probability: allowed 0 to 1",
            ));
        }
        if sg.sample_interval.is_some_and(|d| d.0 .0 == 0) {
            errs.push(err(
                format!("{loc}.signals.sample_interval"),
                "must be positive",
            ));
        }
    }
    let mut seen = BTreeSet::new();
    for (k, st) in w.stations.iter().enumerate() {
        let sl = format!("{loc}.stations[{k}]");
        if !known(&st.node) {
            errs.push(unknown_node(format!("{sl}.node"), &st.node));
        }
        if !seen.insert(st.node.as_str()) {
            errs.push(err(
                format!("{sl}.node"),
                format!("node '{}' is already a station of this WLAN", st.node),
            ));
        }
        if let Some(l) = &st.loss {
            validate_loss(l, &format!("{sl}.loss"), errs);
        }
        if let Some(o) = &st.outage {
            validate_outage(o, &format!("{sl}.outage"), errs);
        }
    }
    if w.stations.len() < 2 {
        errs.push(err(
            format!("{loc}.stations"),
            "a WLAN needs at least two stations",
        ));
    }
    match (w.mode, &w.ap) {
        (WlanMode::Infrastructure, None) => errs.push(err(
            format!("{loc}.ap"),
            "required for mode = \"infrastructure\" (the node of the access point)",
        )),
        (WlanMode::Infrastructure, Some(ap)) => {
            if !w.stations.iter().any(|s| &s.node == ap) {
                errs.push(err(
                    format!("{loc}.ap"),
                    format!("'{ap}' must also be listed in stations (with its position)"),
                ));
            }
        }
        (WlanMode::Adhoc, Some(_)) => {
            errs.push(err(format!("{loc}.ap"), "not used by mode = \"adhoc\""))
        }
        (WlanMode::Adhoc, None) => {}
    }
}

/// The reception model's and the log-distance model's fields of one WLAN.
fn validate_reception(
    w: &WlanSpec,
    loc: &str,
    phy: Option<&PhyParams>,
    errs: &mut Vec<FieldError>,
) {
    if let Some(pr) = &w.propagation {
        let pl = format!("{loc}.propagation");
        let logd = pr.model == PropagationModelName::LogDistance;
        for (f, v, ok) in [
            (
                "exponent",
                pr.exponent,
                pr.exponent.is_none_or(|x| x > 0.0 && x.is_finite()),
            ),
            (
                "reference_loss_db",
                pr.reference_loss_db,
                pr.reference_loss_db.is_none_or(f64::is_finite),
            ),
            (
                "shadowing_db",
                pr.shadowing_db,
                pr.shadowing_db.is_none_or(|x| x >= 0.0 && x.is_finite()),
            ),
        ] {
            if v.is_some() && !logd {
                errs.push(err(
                    format!("{pl}.{f}"),
                    "only used by model = \"log_distance\"",
                ));
            } else if !ok {
                errs.push(err(
                    format!("{pl}.{f}"),
                    "must be a finite number (exponent > 0, shadowing_db ≥ 0)",
                ));
            }
        }
        if pr.reference_distance.is_some() && !logd {
            errs.push(err(
                format!("{pl}.reference_distance"),
                "only used by model = \"log_distance\"",
            ));
        }
    }
    let Some(r) = &w.reception else { return };
    let rl = format!("{loc}.reception");
    if r.model != ReceptionModelName::Sinr {
        if r.noise_figure_db.is_some() {
            errs.push(err(
                format!("{rl}.noise_figure_db"),
                "only used by model = \"sinr\"",
            ));
        }
        return;
    }
    if r.noise_figure_db.is_some_and(|x| !x.is_finite()) {
        errs.push(err(
            format!("{rl}.noise_figure_db"),
            "must be a finite number of dB",
        ));
    }
    if w.propagation
        .as_ref()
        .is_some_and(|p| p.model == PropagationModelName::UnitDisk)
    {
        errs.push(err(
            format!("{rl}.model"),
            "\"sinr\" needs received powers: use propagation model two_ray_ground, free_space or log_distance",
        ));
    }
    if let Some(p) = phy {
        let allowed = crate::wifi::reception::SINR_RATES;
        let names = "1, 2, 5.5, 11";
        let mut rates: Vec<(String, u64)> = Vec::new();
        if let Some(x) = w.rate {
            rates.push((format!("{loc}.rate"), x.0));
        } else if w.rate_steps.is_empty() {
            let d = if p.preset == "ns2_dsss" {
                2_000_000
            } else {
                p.rates.iter().copied().max().unwrap_or(0)
            };
            rates.push((format!("{loc}.phy"), d));
        }
        for (k, st) in w.rate_steps.iter().enumerate() {
            rates.push((format!("{loc}.rate_steps[{k}].rate"), st.rate.0));
        }
        for b in w.basic_rate.map_or(p.basic_rates.clone(), |b| vec![b.0]) {
            rates.push((format!("{loc}.basic_rate"), b));
        }
        for (at, x) in rates {
            if !allowed.contains(&x) {
                errs.push(err(
                    at,
                    format!(
                        "{} Mb/s has no error model for reception = \"sinr\"; allowed (Mb/s): {names} (802.11b DSSS/CCK)",
                        x as f64 / 1e6
                    ),
                ));
            }
        }
    }
}

/// The preset a WLAN names, before the WLAN's overrides.
fn wlan_phy_base(w: &WlanSpec) -> Option<PhyParams> {
    PhyParams::by_name(w.phy.as_deref().unwrap_or("hr_dsss"))
}

/// The PHY, MAC and propagation of a validated WLAN, with every override applied.
pub fn wlan_config(w: &WlanSpec) -> WlanConfig {
    let mut phy = wlan_phy_base(w).unwrap_or_else(|| PhyParams::hr_dsss(false));
    let ns2 = phy.preset == "ns2_dsss";
    if let Some(sp) = w.short_preamble {
        phy.short_preamble = sp;
        if phy.modulation == Modulation::Dsss {
            // aRxPHYStartDelay follows the preamble (802.11-2020 Table 16-4).
            let rx = if sp { phy.plcp_short } else { phy.plcp_long };
            phy.rx_start_delay = rx;
            phy.response_timeout = phy.sifs + phy.slot + rx;
        }
    }
    let slot_changed = w.slot.is_some() || w.sifs.is_some();
    if let Some(d) = w.slot {
        phy.slot = d.0;
    }
    if let Some(d) = w.sifs {
        phy.sifs = d.0;
    }
    if slot_changed && w.difs.is_none() {
        phy.difs = phy.sifs + phy.slot.times(2); // 10.3.2.3.5
    }
    if let Some(d) = w.difs {
        phy.difs = d.0;
    }
    if let Some(d) = w.eifs {
        phy.eifs = d.0;
    }
    if let Some(c) = w.cw_min {
        phy.cw_min = c;
    }
    if let Some(c) = w.cw_max {
        phy.cw_max = c;
    }
    if let Some(d) = w.response_timeout {
        phy.response_timeout = d.0;
    }
    if let Some(d) = w.prop_delay {
        phy.prop_delay = d.0;
    }
    if let Some(r) = w.basic_rate {
        phy.basic_rates = vec![r.0];
    }
    if let Some(r) = w.rts_cts_rate {
        phy.rts_cts_rate = Some(r.0);
    }
    let d = MacParams::default();
    let mac = MacParams {
        // ns-2 RTSThreshold_ 0: RTS/CTS before every unicast frame (ALGORITHMS.md §6.1).
        rts_threshold: w
            .rts_threshold
            .map_or(if ns2 { 0 } else { d.rts_threshold }, |x| {
                x.0.min(u32::MAX as u64) as u32
            }),
        short_retry_limit: w.short_retry_limit.unwrap_or(d.short_retry_limit),
        long_retry_limit: w.long_retry_limit.unwrap_or(d.long_retry_limit),
        queue_limit: w.queue.map_or(d.queue_limit, |q| q as usize),
        nav_reset: w.nav_reset.unwrap_or(d.nav_reset),
    };
    let propagation = match &w.propagation {
        None => Propagation::ns2_default(),
        Some(p) => match p.model {
            PropagationModelName::UnitDisk => Propagation::UnitDisk {
                rx_range: p.rx_range.map_or(250.0, |d| d.metres()),
                cs_range: p.cs_range.map_or(550.0, |d| d.metres()),
            },
            m => {
                let def = RadioParams::default();
                let h = p.antenna_height.map_or(def.ht, |d| d.metres());
                let r = RadioParams {
                    pt: p.tx_power_w.unwrap_or(def.pt),
                    freq: p.frequency_hz.unwrap_or(def.freq),
                    ht: h,
                    hr: h,
                    rx_thresh: p.rx_thresh_w.unwrap_or(def.rx_thresh),
                    cs_thresh: p.cs_thresh_w.unwrap_or(def.cs_thresh),
                    cp_thresh: p.capture_ratio.unwrap_or(def.cp_thresh),
                    ..def
                };
                match m {
                    PropagationModelName::FreeSpace => Propagation::FreeSpace(r),
                    PropagationModelName::LogDistance => Propagation::LogDistance {
                        radio: r,
                        exponent: p.exponent.unwrap_or(3.0),
                        ref_distance: p.reference_distance.map_or(1.0, |d| d.metres()),
                        ref_loss_db: p.reference_loss_db,
                        shadowing_db: p.shadowing_db.unwrap_or(0.0),
                    },
                    _ => Propagation::TwoRayGround(r),
                }
            }
        },
    };
    let default_rate = if ns2 {
        2_000_000 // the ns-2 papers' "802.11 at 2 Mb/s" (scripts set dataRate_ 2Mb)
    } else {
        phy.rates.iter().copied().max().unwrap_or(1_000_000)
    };
    let rate = if w.rate_steps.is_empty() {
        RateSelection::Fixed(w.rate.map_or(default_rate, |r| r.0))
    } else {
        RateSelection::Distance(
            w.rate_steps
                .iter()
                .map(|s| (s.max_distance.metres(), s.rate.0))
                .collect(),
        )
    };
    let sg = w.signals.clone().unwrap_or_default();
    WlanConfig {
        name: w.name.clone(),
        mode: match w.mode {
            WlanMode::Infrastructure => Mode::Infrastructure,
            WlanMode::Adhoc => Mode::AdHoc,
        },
        phy,
        mac,
        propagation,
        rate,
        signals: SignalConfig {
            lead: sg.lead.map_or(SimTime::ZERO, |d| d.0),
            duration_factor: sg.duration_factor.unwrap_or(1.0),
            miss_probability: sg.miss_probability.unwrap_or(0.0),
            sample_interval: sg.sample_interval.map(|d| d.0),
        },
        delay_from_distance: w.prop_delay_from_distance.unwrap_or(false),
        reception: match &w.reception {
            Some(r) if r.model == ReceptionModelName::Sinr => {
                // DSSS/CCK occupy 22 MHz (802.11-2020 16.3.7.4).
                Reception::Sinr(SinrParams::thermal(22e6, r.noise_figure_db.unwrap_or(7.0)))
            }
            _ => Reception::Threshold,
        },
    }
}

fn app_str(a: AppName) -> &'static str {
    match a {
        AppName::BulkDownload => "bulk_download",
        AppName::Bulk => "bulk",
        AppName::Cbr => "cbr",
    }
}

pub fn link_name(l: &LinkSpec) -> String {
    l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
}

/// Whether b is reachable from a over links and WLANs (a WLAN counts as connecting all its
/// stations; whether an ad hoc WLAN's radio ranges connect them is known only when it is built).
fn connected(s: &Scenario, a: &str, b: &str) -> bool {
    let mut seen = BTreeSet::from([a]);
    let mut frontier = vec![a];
    while let Some(u) = frontier.pop() {
        for l in &s.links {
            for (x, y) in [(&l.a, &l.b), (&l.b, &l.a)] {
                if x == u && seen.insert(y.as_str()) {
                    frontier.push(y.as_str());
                }
            }
        }
        for w in &s.wlans {
            if w.stations.iter().any(|st| st.node == u) {
                for st in &w.stations {
                    if seen.insert(st.node.as_str()) {
                        frontier.push(st.node.as_str());
                    }
                }
            }
        }
    }
    seen.contains(b)
}

/// Parses and validates: the scenario as it will run.
pub fn load(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
) -> Result<Scenario, Vec<FieldError>> {
    let s = parse(text, format, overrides)?;
    validate(&s)?;
    Ok(s)
}

/// The fully resolved scenario (defaults filled in, every flow's TCP parameters merged).
pub fn resolve(s: &Scenario) -> Value {
    let mut r = s.clone();
    r.duration = Some(units::Duration(
        r.duration.map_or(DEFAULT_DURATION, |d| d.0),
    ));
    r.max_events = Some(r.max_events.unwrap_or(DEFAULT_MAX_EVENTS));
    for l in &mut r.links {
        l.name = Some(link_name(l));
        if l.queue.is_none() {
            l.queue = Some(QueueSpec::Droptail {
                packets: Some(50),
                bytes: None,
            });
        }
    }
    for f in &mut r.flows {
        if f.app != AppName::Cbr {
            f.tcp = Some(resolved_tcp(&merged_tcp(&s.tcp, f.tcp.as_ref())));
            f.request = Some(f.request.unwrap_or(units::Size(100)));
        }
        f.start = Some(f.start.unwrap_or(units::Duration(SimTime::ZERO)));
    }
    r.tcp = TcpSpec::default();
    serde_json::to_value(&r).unwrap_or(Value::Null)
}

fn loss_model(l: &LossSpec) -> LossModel {
    match l.model {
        LossModelName::Bernoulli => LossModel::Bernoulli {
            p: l.p.unwrap_or(0.0),
        },
        LossModelName::GilbertElliott => match (l.mean, l.burst) {
            (Some(m), Some(b)) => LossModel::gilbert_from_mean(m, b),
            _ => LossModel::GilbertElliott {
                p_gb: l.p_gb.unwrap_or(0.0),
                p_bg: l.p_bg.unwrap_or(1.0),
                loss_good: l.loss_good.unwrap_or(0.0),
                loss_bad: l.loss_bad.unwrap_or(1.0),
                bad: false,
            },
        },
    }
}

fn outage(o: &Option<OutageSpec>) -> Outage {
    let Some(o) = o else { return Outage::none() };
    let mut intervals: Vec<(SimTime, SimTime)> =
        o.intervals.iter().map(|(s, e)| (s.0, e.0)).collect();
    intervals.sort();
    Outage {
        intervals,
        periodic: match (o.every, o.down) {
            (Some(p), Some(d)) => Some((o.start.map_or(SimTime::ZERO, |s| s.0), p.0, d.0)),
            _ => None,
        },
    }
}

/// Builds the world of a validated scenario. `pcap_dir` enables the captures the scenario's
/// `trace.pcap` names.
pub fn build(s: &Scenario, seed: u64, pcap_dir: Option<&Path>) -> Result<World, Vec<FieldError>> {
    let stop = s.duration.map_or(DEFAULT_DURATION, |d| d.0);
    let mut w = World::new(
        s.name.clone(),
        seed,
        stop,
        s.max_events.unwrap_or(DEFAULT_MAX_EVENTS),
    );
    let mut ids: BTreeMap<&str, NodeId> = BTreeMap::new();
    for n in &s.nodes {
        ids.insert(n.name.as_str(), w.add_node(&n.name));
    }
    let snaplen = s.trace.pcap_snaplen.unwrap_or(65_535);
    let mut errs = Vec::new();
    for (li, l) in s.links.iter().enumerate() {
        let name = link_name(l);
        let capture = pcap_dir.is_some() && s.trace.pcap.iter().any(|p| p == "*" || *p == name);
        let mut dirs = Vec::new();
        for (k, node) in [(0u8, &l.a), (1u8, &l.b)] {
            let qcfg = match &l.queue {
                None => QueueConfig::DropTail {
                    packets: Some(50),
                    bytes: None,
                },
                Some(QueueSpec::Droptail { packets, bytes }) => QueueConfig::DropTail {
                    packets: if packets.is_none() && bytes.is_none() {
                        Some(50)
                    } else {
                        *packets
                    },
                    bytes: bytes.map(|b| b.0),
                },
                Some(QueueSpec::Red {
                    limit,
                    min_th,
                    max_th,
                    max_p,
                    w_q,
                    gentle,
                    ecn,
                }) => QueueConfig::Red {
                    limit: *limit,
                    min_th: *min_th,
                    max_th: *max_th,
                    max_p: *max_p,
                    w_q: *w_q,
                    gentle: *gentle,
                    ecn: *ecn,
                },
            };
            let loss = match &l.loss {
                Some(ls)
                    if ls.direction == Direction::Both
                        || (ls.direction == Direction::AToB && k == 0)
                        || (ls.direction == Direction::BToA && k == 1) =>
                {
                    loss_model(ls)
                }
                _ => LossModel::None,
            };
            let pcap = if capture {
                let dir = pcap_dir.expect("capture implies a directory");
                let path = dir.join(format!("{name}-{node}.pcap"));
                match PcapWriter::create(&path, snaplen) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        errs.push(err(
                            "trace.pcap",
                            format!("cannot create {}: {e}", path.display()),
                        ));
                        None
                    }
                }
            } else {
                None
            };
            dirs.push(LinkDir {
                rate_bps: l.rate.0,
                delay: l.delay.0,
                queue: Queue::new(qcfg, SimTime::tx_time(1000, l.rate.0)),
                loss,
                outage: outage(&l.outage),
                rng: Rng::derive(
                    seed,
                    StreamId::Link {
                        link: li as u32,
                        dir: k,
                        purpose: 0,
                    },
                ),
                pcap,
            });
        }
        let b = dirs.pop().expect("two directions");
        let a = dirs.pop().expect("two directions");
        w.add_link(&name, ids[l.a.as_str()], ids[l.b.as_str()], [a, b]);
    }
    for (wi, ws) in s.wlans.iter().enumerate() {
        let capture = pcap_dir.is_some() && s.trace.pcap.iter().any(|p| p == "*" || *p == ws.name);
        w.wifi.seed = seed;
        let wl = w.wifi.add_wlan(wlan_config(ws));
        for (k, st) in ws.stations.iter().enumerate() {
            let stream = |purpose: u64| {
                // Wireless streams: Custom keys tagged 0x57 ("W") with (wlan, station, purpose).
                Rng::derive(
                    seed,
                    StreamId::Custom(
                        (0x57u64 << 48) | ((wi as u64) << 32) | ((k as u64) << 8) | purpose,
                    ),
                )
            };
            let loss_of = |dir: Direction| match &st.loss {
                Some(ls) if ls.direction == Direction::Both || ls.direction == dir => {
                    loss_model(ls)
                }
                _ => LossModel::None,
            };
            let sta = w.wifi.add_station(
                wl,
                ids[st.node.as_str()],
                (st.position.0.metres(), st.position.1.metres()),
                ws.ap.as_deref() == Some(st.node.as_str()),
                LossModel::None,
                outage(&st.outage),
                [stream(0), stream(1), stream(2), stream(3)],
            );
            {
                let s_ = &mut w.wifi.stations[sta as usize];
                // a_to_b: frames the station sends; b_to_a: frames it receives.
                s_.loss_tx = loss_of(Direction::AToB);
                s_.loss_rx = loss_of(Direction::BToA);
            }
            let pcap = if capture {
                let dir = pcap_dir.expect("capture implies a directory");
                let path = dir.join(format!("{}-{}.pcap", ws.name, st.node));
                match PcapWriter::create(&path, snaplen) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        errs.push(err(
                            "trace.pcap",
                            format!("cannot create {}: {e}", path.display()),
                        ));
                        None
                    }
                }
            } else {
                None
            };
            w.wifi.stations[sta as usize].pcap = pcap.is_some();
            w.wifi_pcap.push(pcap);
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    w.compute_routes();
    if s.trace.frames == Some(true) {
        w.wifi.frames = Some(Vec::new());
    }
    w.start_wifi();
    for a in &s.agents {
        w.add_agent(ids[a.node.as_str()], ids[a.mobile.as_str()], build_agent(a));
    }

    let kinds: Vec<SeriesKind> = if s.trace.series.iter().any(|x| x == "all") {
        SeriesKind::ALL.to_vec()
    } else {
        s.trace
            .series
            .iter()
            .filter_map(|x| SeriesKind::parse(x))
            .collect()
    };
    let interval = s.trace.interval.map_or(SimTime::ZERO, |d| d.0);
    let mut tcp_index = 0u32;
    for (fi, f) in s.flows.iter().enumerate() {
        match f.app {
            AppName::BulkDownload | AppName::Bulk => {
                let (Some(c), Some(sv)) = (&f.client, &f.server) else {
                    continue;
                };
                let (cn, sn) = (ids[c.as_str()], ids[sv.as_str()]);
                let cfg = tcp_config(&merged_tcp(&s.tcp, f.tcp.as_ref()));
                let flow = w.next_flow_id();
                let (cport, sport) = (49_152 + tcp_index as u16, 5_001 + tcp_index as u16);
                tcp_index += 1;
                let mut rc = Rng::derive(
                    seed,
                    StreamId::Tcp {
                        flow: fi as u32,
                        end: 0,
                    },
                );
                let mut rs = Rng::derive(
                    seed,
                    StreamId::Tcp {
                        flow: fi as u32,
                        end: 1,
                    },
                );
                // Random ISNs (RFC 9293 §3.4.1), drawn from each end's own stream.
                let client = Socket::new(cfg.clone(), cport, sport, rc.next_u64() & 0xffff_ffff);
                let server = Socket::new(cfg, sport, cport, rs.next_u64() & 0xffff_ffff);
                let cs = w.add_socket(cn, client, node_addr(sn), flow);
                let ss = w.add_socket(sn, server, node_addr(cn), flow);
                w.add_flow(
                    TcpFlow {
                        name: f.name.clone(),
                        kind: match f.app {
                            AppName::BulkDownload => AppKind::BulkDownload {
                                size: f.size.map_or(0, |x| x.0),
                            },
                            _ => AppKind::Bulk,
                        },
                        client: cs,
                        server: ss,
                        client_node: cn,
                        server_node: sn,
                        start: f.start.map_or(SimTime::ZERO, |d| d.0),
                        request: f.request.map_or(100, |x| x.0),
                        request_sent: false,
                        response_started: false,
                        completed_at: None,
                        client_closed: false,
                        finished: false,
                    },
                    SeriesSet::new(&kinds, interval),
                );
            }
            AppName::Cbr => {
                let (Some(src), Some(dst), Some(rate), Some(ps)) =
                    (&f.src, &f.dst, f.rate, f.packet_size)
                else {
                    continue;
                };
                let ip_bytes = ps.0 + 28;
                w.add_cbr(CbrFlow {
                    name: f.name.clone(),
                    src: ids[src.as_str()],
                    dst: ids[dst.as_str()],
                    port: 9_000 + fi as u16,
                    packet_size: ps.0 as u32,
                    interval: SimTime::tx_time(ip_bytes, rate.0),
                    start: f.start.map_or(SimTime::ZERO, |d| d.0),
                    stop: f.stop.map_or(SimTime::MAX, |d| d.0),
                    sent: 0,
                    received: 0,
                    bytes_received: 0,
                });
            }
        }
    }
    Ok(w)
}
