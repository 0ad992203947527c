//! Scenarios as data: parse (TOML or JSON), apply `--set` overrides, validate with field paths,
//! and build a [`World`](crate::world::World).
//!
//! Every problem is reported, each with its field path and what is allowed, before anything runs:
//! form errors of each node, link and flow are collected separately, then the meaning of the
//! whole is checked.

mod build;
pub mod input_file;
mod locate;
pub mod memory;
pub mod mobility;
mod named_loc;
mod parse;
pub mod pcap_names;
pub mod routing;
pub mod schema;
mod tcp;
pub mod units;
mod validate;
mod warn;
mod words;

use std::fmt;

use serde_json::Value;

pub use build::{link_direction, wlan_config};
pub use mobility::{build_mobility, WlanMobility};
pub use parse::{apply_override, parse, parse_tree};
pub use routing::RoutingSpec;
pub use schema::*;
pub use tcp::{merged_tcp, resolved_tcp, tcp_config, TcpTable};
pub use validate::validate;

use crate::time::SimTime;

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

pub const DEFAULT_DURATION: SimTime = SimTime::from_secs(3600);
pub const DEFAULT_MAX_EVENTS: u64 = 2_000_000_000;

pub fn link_name(l: &LinkSpec) -> String {
    l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
}

/// Parses and validates: the scenario as it will run.
pub fn load(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
) -> Result<Scenario, Vec<FieldError>> {
    let named = |errs: Vec<FieldError>| named_loc::by_name(text, format, overrides, errs);
    let s = parse(text, format, overrides).map_err(named)?;
    validate(&s).map_err(named)?;
    Ok(s)
}

/// Builds the world of a loaded scenario (see `build::build`); errors found while building (a
/// movement file's line, say) name their entries as `load`'s do.
pub fn build(
    s: &Scenario,
    seed: u64,
    pcap_dir: Option<&std::path::Path>,
) -> Result<crate::world::World, Vec<FieldError>> {
    build::build(s, seed, pcap_dir).map_err(|errs| named_loc::by_name_in(s, errs))
}

/// The scenario's warnings (see `warn::warnings`), their entries named as `load`'s errors are.
pub fn warnings(s: &Scenario) -> Vec<FieldError> {
    named_loc::by_name_in(s, warn::warnings(s))
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
    r.tcp = TcpTable::default();
    serde_json::to_value(&r).unwrap_or(Value::Null)
}
