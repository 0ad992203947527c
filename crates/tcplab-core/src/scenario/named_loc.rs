//! Error locations in the scenario's own names: `links[1].rate` becomes `links.bottleneck.rate`
//! when the second link is named `bottleneck` — the path a user writes in `--set`, and the name
//! they see in their file. Entries without a usable name keep their `[i]` index.

use serde_json::Value;

use super::{apply_override, parse_tree, FieldError, Format, Scenario};

/// The arrays whose entries have a `name` that `--set` paths accept in place of the index.
const NAMED_ARRAYS: &[&str] = &["nodes", "links", "wlans", "flows", "agents"];

/// Rewrites the leading `array[i]` of each error's location to `array.name`, reading the names
/// from the scenario as the user wrote it (overrides applied), so the message and the `--set`
/// path agree.
pub(super) fn by_name(
    text: &str,
    format: Format,
    overrides: &[(String, String)],
    mut errs: Vec<FieldError>,
) -> Vec<FieldError> {
    let Some(mut tree) = names_tree(text, format) else {
        return errs;
    };
    for (p, v) in overrides {
        let _ = apply_override(&mut tree, p, v);
    }
    for e in &mut errs {
        if let Some(loc) = rename(&tree, &e.loc) {
            e.loc = loc;
        }
    }
    errs
}

/// The same for errors and warnings found after parsing (while building the world, or by
/// `warnings`): the names are the parsed scenario's, which are the user's with overrides applied.
pub(super) fn by_name_in(s: &Scenario, mut errs: Vec<FieldError>) -> Vec<FieldError> {
    let Ok(tree) = serde_json::to_value(s) else {
        return errs;
    };
    for e in &mut errs {
        if let Some(loc) = rename(&tree, &e.loc) {
            e.loc = loc;
        }
    }
    errs
}

/// The scenario's tree for reading names only. A TOML `nan` or `inf` is an error of its own
/// (parse_tree refuses the whole text), but it must not cost the other errors their names.
fn names_tree(text: &str, format: Format) -> Option<Value> {
    match (parse_tree(text, format), format) {
        (Ok(t), _) => Some(t),
        (Err(_), Format::Toml) => {
            let mut t = toml::from_str::<toml::Value>(text).ok()?;
            finite(&mut t);
            serde_json::to_value(t).ok()
        }
        (Err(_), Format::Json) => None,
    }
}

/// Every non-finite float of `t` set to 0 (its value is irrelevant to a name).
fn finite(t: &mut toml::Value) {
    match t {
        toml::Value::Float(f) if !f.is_finite() => *f = 0.0,
        toml::Value::Array(a) => a.iter_mut().for_each(finite),
        toml::Value::Table(m) => m.iter_mut().for_each(|(_, v)| finite(v)),
        _ => {}
    }
}

/// `loc` (such as `wlans[0]`) with its entry named as errors name it, for a message that points
/// at another field than its own (`set wlans.cell.signals.lead > 0`).
pub(super) fn named_path(s: &Scenario, loc: &str) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|tree| rename(&tree, loc))
        .unwrap_or_else(|| loc.to_string())
}

fn rename(tree: &Value, loc: &str) -> Option<String> {
    let array = NAMED_ARRAYS
        .iter()
        .find(|a| loc.starts_with(&format!("{a}[")))?;
    let rest = &loc[array.len() + 1..];
    let close = rest.find(']')?;
    let idx: usize = rest[..close].parse().ok()?;
    let entries = tree.get(array)?.as_array()?;
    let name = entries.get(idx)?.get("name")?.as_str()?;
    if !usable(name) {
        return None;
    }
    // A name given twice cannot point at one entry (the duplicate's own error keeps its index).
    let same = entries
        .iter()
        .filter(|e| e.get("name").and_then(Value::as_str) == Some(name))
        .count();
    if same != 1 {
        return None;
    }
    Some(format!("{array}.{name}{}", &rest[close + 1..]))
}

/// A name that reads back as the same entry in an override path: not empty, not a number
/// (that would be an index), and free of the path's own separators.
fn usable(name: &str) -> bool {
    !name.is_empty()
        && name.parse::<usize>().is_err()
        && !name.contains(['.', '[', ']', '=', ' '])
        && !name.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::err;

    fn tree() -> Value {
        serde_json::json!({
            "links": [{"name": "access"}, {"name": "bottleneck"}, {"a": "x"}, {"name": "a.b"},
                      {"name": "7"}, {"name": "d"}, {"name": "d"}],
            "wlans": [{"name": "cell", "stations": [{"node": "s"}]}],
            "trace": {"pcap": ["x"]}
        })
    }

    #[test]
    fn indices_become_names_where_the_name_reads_back() {
        let t = tree();
        let r = |loc: &str| rename(&t, loc);
        assert_eq!(r("links[1].rate").as_deref(), Some("links.bottleneck.rate"));
        assert_eq!(r("links[0]").as_deref(), Some("links.access"));
        assert_eq!(
            r("wlans[0].stations[0].node").as_deref(),
            Some("wlans.cell.stations[0].node")
        );
        // No name, a name with a dot, a numeric name, a duplicate, out of range, not an array.
        for loc in [
            "links[2].a",
            "links[3].rate",
            "links[4].rate",
            "links[5].name",
            "links[9]",
            "trace.pcap[0]",
            "duration",
        ] {
            assert_eq!(r(loc), None, "{loc}");
        }
    }

    #[test]
    fn load_reports_the_name_after_overrides() {
        let text = r#"
            [[nodes]]
            name = "a"
            [[nodes]]
            name = "b"
            [[links]]
            name = "bottleneck"
            a = "a"
            b = "b"
            rate = "5Mbps"
            delay = "1ms"
        "#;
        let errs = by_name(
            text,
            Format::Toml,
            &[("links.bottleneck.name".into(), "wan".into())],
            vec![err("links[0].rate", "x")],
        );
        assert_eq!(errs[0].loc, "links.wan.rate");
    }

    #[test]
    fn a_path_in_a_message_names_its_entry() {
        let s = crate::scenario::load(
            "[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[links]]\nname = \"wan\"\na = \"a\"\nb = \"b\"\n\
             rate = \"5Mbps\"\ndelay = \"1ms\"\n[[links]]\na = \"b\"\nb = \"a\"\nrate = \"5Mbps\"\ndelay = \"1ms\"\n",
            Format::Toml,
            &[],
        )
        .unwrap();
        assert_eq!(named_path(&s, "links[0]"), "links.wan");
        assert_eq!(named_path(&s, "links[1]"), "links[1]"); // no name of its own
    }

    #[test]
    fn a_nan_in_the_text_keeps_the_names_of_its_errors() {
        let text = "[[nodes]]\nname = \"a\"\n[[links]]\nname = \"wan\"\nloss = { model = \"bernoulli\", p = nan }\n";
        let errs = by_name(text, Format::Toml, &[], vec![err("links[0].loss.p", "x")]);
        assert_eq!(errs[0].loc, "links.wan.loss.p");
    }
}
