//! The `routing` table of a WLAN: the routing agent its nodes run, and its constants over a
//! preset (docs/models/aodv.md, dsr.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::schema::{Scenario, WlanMode};
use super::units::Duration;
use super::{err, FieldError};
use crate::net::aodv::{AodvParams, Hello, LocalRepair};
use crate::net::dsdv::DsdvParams;
use crate::net::dsr::DsrParams;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocolName {
    /// Shortest paths over the topology at t = 0, never updated.
    Static,
    /// Ad hoc On-demand Distance Vector (RFC 3561).
    Aodv,
    /// Dynamic Source Routing (RFC 4728).
    Dsr,
    /// Destination-Sequenced Distance Vector (Perkins & Bhagwat 1994; ns-2.35's agent).
    Dsdv,
}

impl RoutingProtocolName {
    pub fn name(self) -> &'static str {
        match self {
            RoutingProtocolName::Static => "static",
            RoutingProtocolName::Aodv => "aodv",
            RoutingProtocolName::Dsr => "dsr",
            RoutingProtocolName::Dsdv => "dsdv",
        }
    }

    /// The presets a protocol starts from, the default first.
    pub fn presets(self) -> &'static [PresetName] {
        match self {
            RoutingProtocolName::Static => &[],
            RoutingProtocolName::Aodv => &[PresetName::Rfc3561, PresetName::Ns2],
            RoutingProtocolName::Dsr => &[PresetName::Rfc4728, PresetName::Ns2],
            RoutingProtocolName::Dsdv => &[PresetName::Ns2],
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PresetName {
    /// AODV: RFC 3561 §10 constants and rules.
    Rfc3561,
    /// DSR: RFC 4728 §9 constants.
    Rfc4728,
    /// ns-2.35's compiled-in constants and behaviour of the protocol.
    Ns2,
}

impl PresetName {
    pub fn name(self) -> &'static str {
        match self {
            PresetName::Rfc3561 => "rfc3561",
            PresetName::Rfc4728 => "rfc4728",
            PresetName::Ns2 => "ns2",
        }
    }
}

/// Fields of the routing table each protocol reads (besides `protocol` and `preset`).
const DSR_FIELDS: &[&str] = &[
    "ack_piggyback",
    "jitter",
    "buffer",
    "buffer_timeout",
    "salvage",
    "reply_from_cache",
    "notify_every_error",
    "promiscuous",
    "gratuitous_replies",
    "snoop_forward_only",
    "control_failures",
    "relay_discovery",
    "keep_request_backoff",
];

/// Fields only DSR reads (AODV reads the rest of `DSR_FIELDS`).
const DSR_ONLY: &[&str] = &[
    "salvage",
    "reply_from_cache",
    "notify_every_error",
    "promiscuous",
    "gratuitous_replies",
    "snoop_forward_only",
    "control_failures",
    "relay_discovery",
    "keep_request_backoff",
];

/// Fields DSDV reads.
const DSDV_FIELDS: &[&str] = &[
    "update_interval",
    "link_layer_breaks",
    "per_route_triggers",
    "full_dump_resets_timers",
    "metric_until_full_dump",
];

/// Routing of a WLAN's nodes. `protocol = "static"` (default), `"aodv"`, `"dsr"` or `"dsdv"`;
/// AODV starts from `preset` rfc3561 (default) or ns2, DSR from rfc4728 (default) or ns2, DSDV
/// from ns2, and each field below overrides one of its constants.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    pub protocol: RoutingProtocolName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<PresetName>,
    /// ACTIVE_ROUTE_TIMEOUT (RFC 3000 ms, ns-2 10 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_route_timeout: Option<Duration>,
    /// MY_ROUTE_TIMEOUT, the lifetime a destination puts in its RREP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub my_route_timeout: Option<Duration>,
    /// RREQ_RETRIES (RFC 2, ns-2 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rreq_retries: Option<u32>,
    /// Expanding ring search: TTL_START (RFC 1, ns-2 5), TTL_INCREMENT, TTL_THRESHOLD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_start: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_increment: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_threshold: Option<u8>,
    /// NET_DIAMETER (RFC 35, ns-2 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_diameter: Option<u8>,
    /// NODE_TRAVERSAL_TIME (RFC 40 ms, ns-2 30 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_traversal_time: Option<Duration>,
    /// Local repair of a break nearer the destination (ns-2's rule; RFC preset: off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_repair: Option<bool>,
    /// Ask intermediate repliers for a gratuitous RREP to the destination (G flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gratuitous_rrep: Option<bool>,
    /// Only the destination answers RREQs (D flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dest_only: Option<bool>,
    /// TCP-pgy S1: RREQs carry the TCP receiver's cumulative ACK (`ack_seq`) and gratuitous
    /// RREPs copy it to the sender, whose TCP uses it with `extensions = ["ack_piggyback"]`;
    /// with DSR, route requests and replies carry it (AODV, DSR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_piggyback: Option<bool>,
    /// HELLO messages at this interval (default: none, link breaks come from the MAC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello_interval: Option<Duration>,
    /// ALLOWED_HELLO_LOSS (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_hello_loss: Option<u32>,
    /// Drop packets queued for a next hop whose link broke (ns-2 preset: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purge_queue_on_break: Option<bool>,
    /// Drop packets queued for the sender of an RERR (ns-2 preset: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purge_queue_on_rerr: Option<bool>,
    /// A relay that drops a packet for want of a route sends its source an ICMP destination
    /// unreachable (RFC 1812; rfc3561 preset: true). ns2 preset: false, ns-2.35 has no ICMP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icmp_unreachable: Option<bool>,
    /// AODV: a route under local repair keeps its hop count, so replies offering the same
    /// sequence number and no fewer hops do not end the repair, and a further failed packet
    /// toward it is repaired again (ns-2's `RTF_IN_REPAIR`; ns2 preset: true, rfc3561: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_keeps_hops: Option<bool>,
    /// AODV: forwarded data also refreshes the routes to its next hop, source and previous hop
    /// (RFC 3561 §6.2; rfc3561 preset: true). ns2 preset: false, ns-2 refreshes only the route
    /// it used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_reverse_routes: Option<bool>,
    /// Largest random delay before a forwarded broadcast (AODV, DSR; default 10 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Duration>,
    /// Packets buffered per node while routes are discovered (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    /// Longest wait of a buffered packet (default 30 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_timeout: Option<Duration>,
    /// DSR: salvage packets whose next hop broke with another cached route (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salvage: Option<bool>,
    /// DSR: intermediate nodes answer route requests from their route cache (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_from_cache: Option<bool>,
    /// DSR: tell the sender's TCP of every Route Error on its route, even when another cached
    /// route remains (ELFN as its authors built it; default false: only when no route remains).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify_every_error: Option<bool>,
    /// DSR: listen promiscuously to unicast frames for other nodes: cut the links overheard
    /// route errors report, cache overheard routes, shorten routes (ns2 preset: true, ns-2's
    /// `dsragent_use_tap`; rfc4728: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promiscuous: Option<bool>,
    /// DSR: automatic route shortening by gratuitous route replies when `promiscuous` (RFC 4728
    /// §3.4.3; default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gratuitous_replies: Option<bool>,
    /// DSR: a forwarded or received packet teaches only the rest of its own source route from
    /// this node on; route requests and the routes replies carry are not snooped (ns-2
    /// `noticeRouteUsed`; ns2 preset: true, rfc4728: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snoop_forward_only: Option<bool>,
    /// DSR: a route reply or error the MAC could not deliver gets a (nested) route error to its
    /// originator and is salvaged, as a data packet is (ns-2 `xmitFailed`; ns2 preset: true,
    /// rfc4728: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_failures: Option<bool>,
    /// DSR: a forwarder that cannot salvage a packet holds it and sends non-propagating route
    /// requests for it (ns-2 NEW_SALVAGE_LOGIC; ns2 preset: true, rfc4728: false: dropped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_discovery: Option<bool>,
    /// DSR: a destination's route-request backoff is kept across discoveries until a route
    /// reply for it arrives (ns-2's request table; ns2 preset: true, rfc4728: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_request_backoff: Option<bool>,
    /// DSDV: period of full dumps (ns-2 15 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_interval: Option<Duration>,
    /// DSDV: a link breaks when the MAC gives up on a frame, not only after three silent
    /// periods (ns-2 `use_mac_`, default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_layer_breaks: Option<bool>,
    /// DSDV: only a route that asks for one (new destination, shorter route, break) schedules
    /// a triggered update, at its own time; routes that only settled wait for the next update
    /// (ns-2 `needTriggeredUpdate`; ns2 preset: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_route_triggers: Option<bool>,
    /// DSDV: a full dump counts as the last triggered update, and a triggered update that
    /// became a full dump restarts the periodic timer (ns-2 `lasttup_`; ns2 preset: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_dump_resets_timers: Option<bool>,
    /// DSDV: a changed metric rides on every triggered update until the next full dump (ns-2
    /// `advert_metric`; ns2 preset: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_until_full_dump: Option<bool>,
}

/// AODV's constants for a routing table (preset, then overrides).
pub fn aodv_params(r: &RoutingSpec) -> AodvParams {
    let mut p = match r.preset {
        Some(PresetName::Ns2) => AodvParams::ns2(),
        _ => AodvParams::rfc3561(),
    };
    set(
        &mut p.active_route_timeout,
        r.active_route_timeout.map(|d| d.0),
    );
    set(&mut p.my_route_timeout, r.my_route_timeout.map(|d| d.0));
    set(&mut p.rreq_retries, r.rreq_retries);
    set(&mut p.ttl_start, r.ttl_start);
    set(&mut p.ttl_increment, r.ttl_increment);
    set(&mut p.ttl_threshold, r.ttl_threshold);
    set(&mut p.net_diameter, r.net_diameter);
    set(
        &mut p.node_traversal_time,
        r.node_traversal_time.map(|d| d.0),
    );
    if let Some(on) = r.local_repair {
        p.local_repair = if on {
            LocalRepair::Ns2
        } else {
            LocalRepair::Off
        };
    }
    set(&mut p.gratuitous_rrep, r.gratuitous_rrep);
    set(&mut p.dest_only, r.dest_only);
    set(&mut p.ack_piggyback, r.ack_piggyback);
    if let Some(iv) = r.hello_interval {
        p.hello = Some(Hello {
            interval: iv.0,
            allowed_loss: r.allowed_hello_loss.unwrap_or(2),
        });
    }
    set(&mut p.purge_queue_on_break, r.purge_queue_on_break);
    set(&mut p.purge_queue_on_rerr, r.purge_queue_on_rerr);
    set(&mut p.icmp_unreachable, r.icmp_unreachable);
    set(&mut p.repair_keeps_hops, r.repair_keeps_hops);
    set(&mut p.refresh_reverse_routes, r.refresh_reverse_routes);
    set(&mut p.jitter_max, r.jitter.map(|d| d.0));
    set(&mut p.buffer_capacity, r.buffer.map(|n| n as usize));
    set(&mut p.buffer_timeout, r.buffer_timeout.map(|d| d.0));
    p
}

/// TCP-pgy S1 has two halves: the sender's `ack_piggyback` extension learns nothing unless the
/// AODV or DSR nodes carry the ACK (`routing.ack_piggyback = true`; DSDV has no requests).
pub fn validate_ack_piggyback(s: &Scenario, errs: &mut Vec<FieldError>) {
    let carried = s
        .wlans
        .iter()
        .filter_map(|w| w.routing.as_ref())
        .any(|r| r.ack_piggyback == Some(true));
    if carried {
        return;
    }
    let asks = |t: &super::tcp::TcpTable| {
        t.0.get("extensions")
            .and_then(|v| v.as_array())
            .is_some_and(|a| a.iter().any(|e| e.as_str() == Some("ack_piggyback")))
    };
    let tables = std::iter::once(("tcp".to_string(), Some(&s.tcp))).chain(
        s.flows
            .iter()
            .enumerate()
            .map(|(i, f)| (format!("flows[{i}].tcp"), f.tcp.as_ref())),
    );
    for (loc, t) in tables {
        if t.is_some_and(asks) {
            errs.push(err(
                format!("{loc}.extensions"),
                "\"ack_piggyback\" needs the ACK carried by routing: set ack_piggyback = true in a WLAN's routing table (protocol = \"aodv\" or \"dsr\")",
            ));
        }
    }
}

/// DSR's constants for a routing table (preset, then overrides).
pub fn dsr_params(r: &RoutingSpec) -> DsrParams {
    let mut p = match r.preset {
        Some(PresetName::Ns2) => DsrParams::ns2(),
        _ => DsrParams::rfc4728(),
    };
    set(&mut p.jitter_max, r.jitter.map(|d| d.0));
    set(&mut p.buffer_capacity, r.buffer.map(|n| n as usize));
    set(&mut p.buffer_timeout, r.buffer_timeout.map(|d| d.0));
    set(&mut p.salvage, r.salvage);
    set(&mut p.reply_from_cache, r.reply_from_cache);
    set(&mut p.ack_piggyback, r.ack_piggyback);
    set(&mut p.notify_every_error, r.notify_every_error);
    set(&mut p.tap, r.promiscuous);
    set(&mut p.grat_replies, r.gratuitous_replies);
    set(&mut p.snoop_forward_only, r.snoop_forward_only);
    set(&mut p.control_failures, r.control_failures);
    set(&mut p.relay_discovery, r.relay_discovery);
    set(&mut p.keep_request_backoff, r.keep_request_backoff);
    p
}

/// DSDV's constants for a routing table (ns-2 preset, then overrides).
pub fn dsdv_params(r: &RoutingSpec) -> DsdvParams {
    let mut p = DsdvParams::ns2();
    set(&mut p.periodic, r.update_interval.map(|d| d.0));
    set(&mut p.mac_breaks, r.link_layer_breaks);
    set(&mut p.per_route_triggers, r.per_route_triggers);
    set(&mut p.full_dump_resets_timers, r.full_dump_resets_timers);
    set(&mut p.metric_until_full_dump, r.metric_until_full_dump);
    p
}

/// Names each field set in `r` that its protocol does not read, and a preset it lacks.
fn check_fields(r: &RoutingSpec, loc: &str, errs: &mut Vec<FieldError>) {
    let presets = r.protocol.presets();
    if let Some(pr) = r.preset {
        if !presets.contains(&pr) {
            let allowed: Vec<String> = presets
                .iter()
                .map(|p| format!("\"{}\"", p.name()))
                .collect();
            let msg = if allowed.is_empty() {
                format!("protocol = \"{}\" has no presets", r.protocol.name())
            } else {
                format!(
                    "\"{}\" is not a preset of protocol = \"{}\"; allowed: {}",
                    pr.name(),
                    r.protocol.name(),
                    allowed.join(", ")
                )
            };
            errs.push(err(format!("{loc}.preset"), msg));
        }
    }
    let Ok(serde_json::Value::Object(set)) = serde_json::to_value(r) else {
        return;
    };
    for f in set.keys().filter(|k| *k != "protocol" && *k != "preset") {
        let dsr = DSR_FIELDS.contains(&f.as_str());
        let dsdv = DSDV_FIELDS.contains(&f.as_str());
        let aodv = !dsdv && !DSR_ONLY.contains(&f.as_str());
        let used = match r.protocol {
            RoutingProtocolName::Static => false,
            RoutingProtocolName::Aodv => aodv,
            RoutingProtocolName::Dsr => dsr,
            RoutingProtocolName::Dsdv => dsdv,
        };
        if !used {
            let users: Vec<&str> = [("aodv", aodv), ("dsr", dsr), ("dsdv", dsdv)]
                .iter()
                .filter(|u| u.1)
                .map(|u| u.0)
                .collect();
            let users: Vec<String> = users
                .iter()
                .map(|u| format!("protocol = \"{u}\""))
                .collect();
            errs.push(err(
                format!("{loc}.{f}"),
                format!("only used by {}", users.join(" or ")),
            ));
        }
    }
}

/// The routing tables' meaning: AODV fields only with AODV, AODV only in ad hoc WLANs, one
/// routing protocol per node, consistent TTLs and positive times.
pub fn validate_routing(s: &Scenario, errs: &mut Vec<FieldError>) {
    let mut node_wlan: std::collections::BTreeMap<&str, (usize, RoutingProtocolName)> =
        Default::default();
    for (wi, w) in s.wlans.iter().enumerate() {
        let loc = format!("wlans[{wi}].routing");
        let proto = w
            .routing
            .as_ref()
            .map_or(RoutingProtocolName::Static, |r| r.protocol);
        for st in &w.stations {
            match node_wlan.get(st.node.as_str()) {
                Some(&(other, p)) if p != proto => errs.push(err(
                    format!("{loc}.protocol"),
                    format!(
                        "node '{}' is also in WLAN '{}' with another routing protocol; a node runs one routing protocol",
                        st.node, s.wlans[other].name
                    ),
                )),
                _ => {
                    node_wlan.insert(st.node.as_str(), (wi, proto));
                }
            }
        }
        let Some(r) = &w.routing else { continue };
        check_fields(r, &loc, errs);
        if r.protocol == RoutingProtocolName::Static {
            continue;
        }
        if w.mode != WlanMode::Adhoc {
            errs.push(err(
                format!("{loc}.protocol"),
                format!(
                    "\"{}\" routes between ad hoc nodes: use it with mode = \"adhoc\"",
                    r.protocol.name()
                ),
            ));
        }
        if r.update_interval.is_some_and(|d| d.0 .0 == 0) {
            errs.push(err(
                format!("{loc}.update_interval"),
                "must be longer than 0 s",
            ));
        }
        if r.buffer_timeout.is_some_and(|d| d.0 .0 == 0) {
            errs.push(err(
                format!("{loc}.buffer_timeout"),
                "must be longer than 0 s",
            ));
        }
        if r.buffer == Some(0) {
            errs.push(err(format!("{loc}.buffer"), "must be at least 1 packet"));
        }
        if r.protocol != RoutingProtocolName::Aodv {
            continue;
        }
        let p = aodv_params(r);
        if p.ttl_start == 0 || p.ttl_increment == 0 {
            let f = if p.ttl_start == 0 {
                "ttl_start"
            } else {
                "ttl_increment"
            };
            errs.push(err(format!("{loc}.{f}"), "must be at least 1"));
        }
        if p.ttl_start > p.ttl_threshold || p.ttl_threshold > p.net_diameter {
            errs.push(err(
                format!("{loc}.ttl_threshold"),
                format!(
                    "the ring must grow towards the diameter: need ttl_start ({}) ≤ ttl_threshold ({}) ≤ net_diameter ({})",
                    p.ttl_start, p.ttl_threshold, p.net_diameter
                ),
            ));
        }
        let times = [
            ("active_route_timeout", r.active_route_timeout),
            ("my_route_timeout", r.my_route_timeout),
            ("node_traversal_time", r.node_traversal_time),
            ("hello_interval", r.hello_interval),
        ];
        for (f, d) in times {
            if d.is_some_and(|d| d.0 .0 == 0) {
                errs.push(err(format!("{loc}.{f}"), "must be longer than 0 s"));
            }
        }
        if r.allowed_hello_loss.is_some() && r.hello_interval.is_none() {
            errs.push(err(
                format!("{loc}.allowed_hello_loss"),
                "only used with hello_interval (HELLO messages are off by default)",
            ));
        }
        if r.allowed_hello_loss == Some(0) {
            errs.push(err(
                format!("{loc}.allowed_hello_loss"),
                "must be at least 1",
            ));
        }
    }
}

/// A routing table's field, when given, overrides the preset's constant.
fn set<T>(constant: &mut T, field: Option<T>) {
    if let Some(v) = field {
        *constant = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> RoutingSpec {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_dsr_tap_fields_set_its_params_and_only_dsr_takes_them() {
        let ns2 = dsr_params(&spec(r#"{"protocol": "dsr", "preset": "ns2"}"#));
        assert!(ns2.tap && ns2.grat_replies, "ns-2's tap and replies on");
        assert!(
            !dsr_params(&spec(r#"{"protocol": "dsr"}"#)).tap,
            "rfc4728: no tap"
        );
        let off = spec(
            r#"{"protocol": "dsr", "preset": "ns2", "promiscuous": false,
                "gratuitous_replies": false}"#,
        );
        assert!(!dsr_params(&off).tap && !dsr_params(&off).grat_replies);
        for f in ["promiscuous", "gratuitous_replies"] {
            let mut errs = Vec::new();
            check_fields(
                &spec(&format!(r#"{{"protocol": "aodv", "{f}": true}}"#)),
                "r",
                &mut errs,
            );
            assert_eq!(errs.len(), 1, "{f}");
            assert_eq!(errs[0].loc, format!("r.{f}"));
            assert!(
                errs[0].msg.contains(r#"only used by protocol = "dsr""#),
                "{errs:?}"
            );
        }
    }
}
