//! The TCP part of a scenario: `[tcp]` and each flow's `tcp` table are [`TcpConfig`] written
//! partially. A table keeps only what the file sets (so a flow's table can override the
//! scenario's field by field); deserialising it into [`TcpConfig`] fills the RFC defaults and
//! reports every bad field with its path. There is no second, hand-mapped copy of the settings.

use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{err, FieldError};
use crate::tcp::config::Profile;
use crate::tcp::TcpConfig;

/// A `[tcp]` table as written in the scenario: only the fields it sets.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct TcpTable(pub Map<String, Value>);

impl JsonSchema for TcpTable {
    /// Inlined where used: a reference to TcpConfig's schema.
    fn is_referenceable() -> bool {
        false
    }
    fn schema_name() -> String {
        "TcpTable".to_string()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        gen.subschema_for::<TcpConfig>()
    }
}

/// The flow's table over the scenario's. `variant` and `recovery` name the same choice, so a
/// flow that sets either replaces both of the scenario's.
pub fn merged_tcp(global: &TcpTable, local: Option<&TcpTable>) -> TcpTable {
    let mut m = global.0.clone();
    if let Some(l) = local {
        if l.0.contains_key("variant") || l.0.contains_key("recovery") {
            m.remove("variant");
            m.remove("recovery");
        }
        m.extend(l.0.clone());
    }
    TcpTable(m)
}

/// The socket configuration of a (merged) table: the table's fields over its profile's defaults
/// (the RFC defaults unless `profile` says otherwise).
pub fn tcp_config(t: &TcpTable, loc: &str) -> Result<TcpConfig, Vec<FieldError>> {
    let mut errs = Vec::new();
    match super::parse::de::<TcpConfig>(&Value::Object(over_profile(t)), loc, &mut errs) {
        Some(c) => Ok(c),
        None => Err(errs),
    }
}

/// The table's fields over the defaults of the profile it names. A bad profile name leaves the
/// table alone, so that deserialising it reports the field.
fn over_profile(t: &TcpTable) -> Map<String, Value> {
    let Some(p) =
        t.0.get("profile")
            .and_then(|v| serde_json::from_value::<Profile>(v.clone()).ok())
    else {
        return t.0.clone();
    };
    let mut m = match serde_json::to_value(TcpConfig::profile_defaults(p)) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    // `variant` and `recovery` name one choice: the table's replaces the profile's.
    if t.0.contains_key("variant") || t.0.contains_key("recovery") {
        m.remove("variant");
        m.remove("recovery");
        // The profile's PRR goes with its SACK-based recovery: a table that picks Reno or
        // NewReno over it drops PRR unless it asks for it (and is then told why it cannot).
        let sack_based = ["variant", "recovery"]
            .iter()
            .filter_map(|k| t.0.get(*k))
            .any(|v| v == "sack" || v == "rack");
        if !sack_based && !t.0.contains_key("prr") {
            m.insert("prr".into(), Value::Bool(false));
        }
        // Likewise the tail loss probe and the Loss state's recoveries go with RACK.
        let rack = ["variant", "recovery"]
            .iter()
            .filter_map(|k| t.0.get(*k))
            .any(|v| v == "rack");
        if !rack && !t.0.contains_key("tlp") {
            m.insert("tlp".into(), Value::Bool(false));
        }
        if !rack && !t.0.contains_key("rack_after_rto") {
            m.insert("rack_after_rto".into(), Value::Bool(false));
        }
    }
    // HyStart is CUBIC's: a table that picks another controller over the profile drops it.
    if t.0.get("cc").is_some_and(|v| v != "cubic") && !t.0.contains_key("hystart") {
        m.insert("hystart".into(), Value::Bool(false));
    }
    // Timestamp undo reads the echo: a table that turns timestamps off drops it.
    if t.0.get("timestamps") == Some(&Value::Bool(false)) && !t.0.contains_key("timestamp_undo") {
        m.insert("timestamp_undo".into(), Value::Bool(false));
    }
    m.extend(t.0.clone());
    m
}

/// Every field filled in, `variant` folded into `recovery` (for resolved scenarios and keys).
pub fn resolved_tcp(t: &TcpTable) -> TcpTable {
    let resolved = tcp_config(t, "tcp")
        .map(|c| c.resolved())
        .unwrap_or_default();
    match serde_json::to_value(resolved) {
        Ok(Value::Object(m)) => TcpTable(m),
        _ => TcpTable::default(),
    }
}

/// Form and range errors of one table, with `loc` (e.g. `flows[0].tcp`) before each field.
pub(super) fn validate_tcp(t: &TcpTable, loc: &str, errs: &mut Vec<FieldError>) {
    match tcp_config(t, loc) {
        Ok(c) => {
            for (field, msg) in c.check() {
                errs.push(err(format!("{loc}.{field}"), msg));
            }
        }
        Err(e) => errs.extend(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{CcKind, Variant};

    fn table(toml: &str) -> TcpTable {
        let v: toml::Value = toml::from_str(toml).expect("toml");
        serde_json::from_value(serde_json::to_value(v).expect("json")).expect("table")
    }

    /// Each (table, field, word): exactly one error, at the field, whose message has the word.
    fn assert_each_named(cases: &[(&str, &str, &str)]) {
        for &(toml, field, word) in cases {
            let mut errs = vec![];
            validate_tcp(&table(toml), "tcp", &mut errs);
            assert_eq!(errs.len(), 1, "{toml}: {errs:?}");
            assert_eq!(errs[0].loc, field, "{toml}");
            assert!(errs[0].msg.contains(word), "{toml}: {}", errs[0].msg);
        }
    }

    #[test]
    fn a_flow_table_overrides_field_by_field_and_variant_replaces_recovery() {
        let g = table("variant = \"sack\"\nmss = 1000\ncc = \"cubic\"");
        let l = table("recovery = \"newreno\"");
        let c = tcp_config(&merged_tcp(&g, Some(&l)), "tcp").expect("valid");
        assert_eq!(c.recovery_kind(), Variant::NewReno);
        assert_eq!(c.mss, 1000);
        assert_eq!(c.cc, CcKind::Cubic);
        assert_eq!(c.name(), "cubic+newreno");
    }

    #[test]
    fn bad_fields_are_named_with_their_path() {
        let mut errs = vec![];
        validate_tcp(&table("recovery = \"vegas\""), "flows[0].tcp", &mut errs);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].loc, "flows[0].tcp.recovery");
        assert!(errs[0].msg.contains("reno"), "{}", errs[0].msg);
        let mut errs = vec![];
        validate_tcp(
            &table("variant = \"sack\"\nrecovery = \"reno\""),
            "tcp",
            &mut errs,
        );
        assert_eq!(errs[0].loc, "tcp.recovery");
        let mut errs = vec![];
        validate_tcp(
            &table("rto_min = \"2s\"\nrto_max = \"1s\""),
            "tcp",
            &mut errs,
        );
        assert_eq!(errs[0].loc, "tcp.rto_min");
    }

    #[test]
    fn a_profile_sets_defaults_and_the_table_overrides_them() {
        let c = tcp_config(&table("profile = \"linux\""), "tcp").expect("valid");
        assert_eq!(c, TcpConfig::linux());
        assert_eq!(c.recovery_kind(), Variant::Rack);
        let c = tcp_config(
            &table("profile = \"linux\"\ncc = \"reno\"\nvariant = \"sack\""),
            "tcp",
        )
        .expect("valid");
        assert_eq!(c.cc, CcKind::Reno);
        assert_eq!(c.recovery_kind(), Variant::Sack);
        assert!(c.prr && c.timestamps);
        // Picking NewReno over the profile drops its PRR (which needs SACK-based recovery).
        let c =
            tcp_config(&table("profile = \"linux\"\nvariant = \"newreno\""), "tcp").expect("valid");
        assert!(!c.prr && c.check().is_empty());
        // A flow's table may pick another profile over the scenario's.
        let g = table("profile = \"linux\"\nmss = 1000");
        let l = table("profile = \"classic\"");
        let c = tcp_config(&merged_tcp(&g, Some(&l)), "tcp").expect("valid");
        assert_eq!(c.cc, CcKind::Reno);
        assert_eq!(c.mss, 1000);
        // Resolving keeps the profile's values.
        let r = resolved_tcp(&table("profile = \"linux\""));
        assert_eq!(
            tcp_config(&r, "tcp").expect("valid"),
            TcpConfig::linux().resolved()
        );
    }

    /// `profile = "ns2"` gives ns-2.35's defaults; its fields are overridable one by one, and a
    /// bad `open` or `rto_rule` is named with the allowed values.
    #[test]
    fn the_ns2_profile_resolves_and_its_fields_override() {
        let c = tcp_config(&table("profile = \"ns2\""), "tcp").expect("valid");
        assert_eq!(c, TcpConfig::ns2());
        let c = tcp_config(
            &table("profile = \"ns2\"\nvariant = \"sack\"\nclock_granularity = \"100ms\"\nopen = \"none\""),
            "tcp",
        )
        .expect("valid");
        assert!(c.uses_sack() && c.check().is_empty());
        assert_eq!(c.clock_granularity, crate::time::SimTime::from_millis(100));
        assert_eq!(c.mss, 1000);
        assert_each_named(&[
            ("open = \"syn\"", "tcp.open", "sender_syn"),
            ("rto_rule = \"ns3\"", "tcp.rto_rule", "ns2_pre_rfc2988"),
            ("profile = \"ns3\"", "tcp.profile", "ns2"),
        ]);
    }

    #[test]
    fn bad_linux_options_are_named() {
        assert_each_named(&[
            ("profile = \"bsd\"", "tcp.profile", "linux"),
            ("rto_rule = \"solaris\"", "tcp.rto_rule", "rfc6298"),
            ("prr = true\nvariant = \"newreno\"", "tcp.prr", "sack"),
            ("prr = 3", "tcp.prr", "true or false"),
        ]);
    }

    #[test]
    fn the_tail_loss_probe_and_the_loss_state_go_with_rack() {
        let c =
            tcp_config(&table("profile = \"linux\"\nvariant = \"sack\""), "tcp").expect("valid");
        assert!(!c.tlp && !c.rack_after_rto && c.prr && c.check().is_empty());
        assert!(TcpConfig::linux().rack_after_rto);
        let mut errs = vec![];
        validate_tcp(&table("rack_after_rto = true"), "tcp", &mut errs);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].loc, "tcp.rack_after_rto");
        assert!(errs[0].msg.contains("\"rack\""), "{}", errs[0].msg);
        let mut errs = vec![];
        validate_tcp(&table("tlp = true\nvariant = \"sack\""), "tcp", &mut errs);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].loc, "tcp.tlp");
        assert!(
            errs[0].msg.contains("\"rack\"") && errs[0].msg.contains("'sack'"),
            "{}",
            errs[0].msg
        );
    }

    #[test]
    fn bad_dsack_undo_and_autotuning_options_are_named() {
        assert_each_named(&[
            ("dsack = true", "tcp.dsack", "sack = true"),
            (
                "undo = true\nvariant = \"sack\"",
                "tcp.undo",
                "dsack = true",
            ),
            ("frto = \"yes\"", "tcp.frto", "true or false"),
            ("hystart = true", "tcp.hystart", "cubic"),
            (
                "rcv_buf_autotune = true\nrcv_buf_max = \"64KiB\"",
                "tcp.rcv_buf_max",
                "2·rcv_buf",
            ),
            (
                "rcv_overhead = \"2MiB\"",
                "tcp.rcv_overhead",
                "0 B to 1 MiB",
            ),
            ("rcv_wnd_growth = 1", "tcp.rcv_wnd_growth", "true or false"),
        ]);
    }

    #[test]
    fn bad_hystart_parameters_are_named_with_the_allowed_values() {
        assert_each_named(&[
            (
                "hystart_detect = \"train\"",
                "tcp.hystart_detect",
                "ack_train",
            ),
            ("hystart_low_window = -1", "tcp.hystart_low_window", "0 to"),
            ("hystart_ack_delta = \"2\"", "tcp.hystart_ack_delta", "ms"),
        ]);
        let c = tcp_config(&table("profile = \"linux\""), "tcp").expect("valid");
        assert_eq!(
            (c.hystart_detect, c.hystart_low_window, c.hystart_ack_delta),
            (
                crate::tcp::HyStartDetect::Both,
                16,
                crate::time::SimTime::from_millis(2)
            )
        );
    }

    #[test]
    fn timestamp_undo_needs_timestamps() {
        assert_each_named(&[(
            "timestamp_undo = true",
            "tcp.timestamp_undo",
            "timestamps = true",
        )]);
        let c =
            tcp_config(&table("profile = \"linux\"\ntimestamps = false"), "tcp").expect("valid");
        assert!(!c.timestamp_undo && c.check().is_empty());
        assert!(TcpConfig::linux().timestamp_undo);
    }

    /// `initial_ssthresh` reads a size with its unit and `initial_window` "rfc3390" or a number
    /// of segments (here over the Linux profile's 10 segments); another name is refused at the
    /// field, naming what is allowed.
    #[test]
    fn initial_ssthresh_and_initial_window_read_as_the_scenario_spells_them() {
        let t = table(
            "profile = \"linux\"\ninitial_ssthresh = \"64KiB\"\ninitial_window = \"rfc3390\"",
        );
        let c = tcp_config(&t, "tcp").expect("valid");
        assert_eq!(c.initial_ssthresh, Some(65_536));
        assert_eq!(c.initial_window, crate::tcp::InitialWindow::Rfc3390);
        let errs = tcp_config(&table("initial_window = \"rfc9999\""), "tcp").unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].loc, "tcp.initial_window");
        assert!(
            errs[0]
                .msg
                .contains("'rfc9999' is not allowed; use \"rfc3390\""),
            "{}",
            errs[0].msg
        );
    }

    #[test]
    fn resolved_table_round_trips_to_the_same_config() {
        let t = table("variant = \"reno\"\ninitial_window = 3\nrcv_buf = \"4MB\"");
        let r = resolved_tcp(&t);
        assert!(!r.0.contains_key("variant"));
        assert_eq!(r.0["recovery"], "reno");
        let a = tcp_config(&t, "tcp").expect("valid").resolved();
        let b = tcp_config(&r, "tcp").expect("valid");
        assert_eq!(a, b);
    }
}
