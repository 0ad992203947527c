//! serde's error messages in the scenario's words: `expected u64` → "a non-negative integer",
//! `expected struct TcpConfig` → "a table of TCP settings", `sequence` → "array", `map` → "table".
//! A user writes TOML or JSON, not Rust; the field path is added by the caller.

/// What each schema struct is, as a scenario author calls it.
const TABLES: &[(&str, &str)] = &[
    ("Scenario", "a scenario (a table of top-level fields)"),
    ("NodeSpec", "a table of node settings"),
    ("LinkSpec", "a table of link settings"),
    ("LossSpec", "a table of loss-model settings"),
    ("OutageSpec", "a table of outage settings"),
    ("FlowSpec", "a table of flow settings"),
    ("TcpConfig", "a table of TCP settings"),
    ("TraceSpec", "a table of trace settings"),
    ("EventsSpec", "a table of event-trace settings"),
    ("RateStepSpec", "a table of rate-step settings"),
    ("PropagationSpec", "a table of propagation settings"),
    ("SignalSpec", "a table of link-signal settings"),
    ("StationSpec", "a table of station settings"),
    ("WlanSpec", "a table of WLAN settings"),
    ("AgentSpec", "a table of agent settings"),
];

/// Rust's names of primitive types and serde's names of data shapes, as the scenario calls them.
const WORDS: &[(&str, &str)] = &[
    ("expected u64", "expected a non-negative integer"),
    ("expected usize", "expected a non-negative integer"),
    ("expected u32", "expected an integer from 0 to 4294967295"),
    ("expected u16", "expected an integer from 0 to 65535"),
    ("expected u8", "expected an integer from 0 to 255"),
    ("expected i64", "expected an integer"),
    ("expected i32", "expected an integer"),
    ("expected f64", "expected a number"),
    ("expected f32", "expected a number"),
    ("expected a boolean", "expected true or false"),
    ("expected a sequence", "expected an array"),
    ("expected a map", "expected a table"),
    (
        "expected string or map",
        "expected a name (a string) or a table",
    ),
    ("invalid type: sequence", "invalid type: an array"),
    ("invalid type: map", "invalid type: a table"),
    ("invalid type: floating point", "invalid type: number"),
    ("invalid value: floating point", "invalid value: number"),
    ("invalid type: unit value", "invalid type: null"),
];

/// Rewrites one serde message; text that names no Rust type passes through unchanged.
pub(super) fn in_scenario_words(msg: &str) -> String {
    let mut m = msg.to_string();
    for (rust, ours) in WORDS {
        m = m.replace(rust, ours);
    }
    for (name, what) in TABLES {
        m = m.replace(
            &format!("expected struct {name}"),
            &format!("expected {what}"),
        );
    }
    // Enums tagged by `kind` (queues) and untagged ones (e.g. an initial window that is a name or
    // a number): say what shape is wanted, not the Rust type's name.
    if let Some(i) = m.find("expected internally tagged enum ") {
        // Mobility tables are tagged by `model`, the others (queues) by `kind`.
        let tag = if m[i..].starts_with("expected internally tagged enum MobilitySpec") {
            "model"
        } else {
            "kind"
        };
        m.truncate(i);
        m.push_str(&format!("expected a table with a `{tag}` field"));
    }
    if m.starts_with("data did not match any variant of untagged enum ") {
        m = "is none of the allowed forms (see `tcplab schema` or docs/scenario.md)".to_string();
    }
    if let Some(r) = unknown_name(&m) {
        m = r;
    }
    // serde's words for an array of the wrong length (a position of three values).
    if let Some(rest) = m.strip_prefix("invalid length ") {
        if let Some((n, expected)) = rest.split_once(", expected ") {
            m = match expected {
                "fewer elements in array" => format!("too many values: found {n}"),
                e => match e
                    .strip_prefix("a tuple of size ")
                    .or_else(|| e.strip_prefix("an array of length "))
                {
                    Some(k) => format!("expected {k} values, found {n}"),
                    None => format!("expected {e}, found {n} values"),
                },
            };
        }
    }
    // "invalid type: integer `5`, expected X" reads better as "expected X, found integer `5`".
    for head in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = m.strip_prefix(head) {
            if let Some((found, expected)) = rest.split_once(", expected ") {
                m = format!("expected {expected}, found {found}");
                break;
            }
        }
    }
    m
}

/// "unknown variant `NewReno`, expected one of `reno`, `newreno`" (serde's words for an enum)
/// → "unknown value `NewReno`; allowed: reno, newreno (values are lower case: `newreno`)"; the
/// same for "unknown field `x`, expected …". `None` when `msg` is neither.
fn unknown_name(msg: &str) -> Option<String> {
    let (what, rest) = if let Some(r) = msg.strip_prefix("unknown variant `") {
        ("value", r)
    } else {
        ("field", msg.strip_prefix("unknown field `")?)
    };
    let (given, expected) = rest.split_once("`, ")?;
    if expected == "there are no fields" {
        return Some(format!(
            "unknown field `{given}`; this table takes no fields"
        ));
    }
    let expected = expected.strip_prefix("expected ")?;
    let allowed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if allowed.is_empty() {
        return None;
    }
    let mut out = format!("unknown {what} `{given}`; allowed: {}", allowed.join(", "));
    let lower = given.to_lowercase();
    if lower != given && allowed.contains(&lower.as_str()) {
        out.push_str(&format!(" (write it in lower case: `{lower}`)"));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::in_scenario_words;

    #[test]
    fn rust_names_become_scenario_words() {
        for (serde, ours) in [
            (
                "invalid value: integer `-1`, expected u64",
                "expected a non-negative integer, found integer `-1`",
            ),
            (
                "invalid type: integer `5`, expected struct TcpConfig",
                "expected a table of TCP settings, found integer `5`",
            ),
            (
                "invalid type: floating point `1.5`, expected u32",
                "expected an integer from 0 to 4294967295, found number `1.5`",
            ),
            (
                "invalid type: integer `5`, expected a sequence",
                "expected an array, found integer `5`",
            ),
            (
                "invalid type: integer `5`, expected internally tagged enum QueueSpec",
                "expected a table with a `kind` field, found integer `5`",
            ),
            (
                "invalid type: string \"static\", expected internally tagged enum MobilitySpec",
                "expected a table with a `model` field, found string \"static\"",
            ),
            ("missing field `model`", "missing field `model`"),
            (
                "unknown variant `NewReno`, expected one of `reno`, `newreno`, `sack`",
                "unknown value `NewReno`; allowed: reno, newreno, sack (write it in lower case: `newreno`)",
            ),
            (
                "unknown variant `red2`, expected `droptail` or `red`",
                "unknown value `red2`; allowed: droptail, red",
            ),
            (
                "unknown field `pakets`, expected `packets` or `bytes`",
                "unknown field `pakets`; allowed: packets, bytes",
            ),
            (
                "unknown field `x`, there are no fields",
                "unknown field `x`; this table takes no fields",
            ),
            (
                "invalid length 3, expected fewer elements in array",
                "too many values: found 3",
            ),
            (
                "invalid length 1, expected a tuple of size 2",
                "expected 2 values, found 1",
            ),
        ] {
            assert_eq!(in_scenario_words(serde), ours);
        }
    }
}
