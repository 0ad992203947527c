//! Parsing: text → JSON tree, `--set` overrides on the tree, and deserialisation of each part
//! with its field path, so that form errors of every node, link and flow are reported at once.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::schema::{AgentSpec, FlowSpec, LinkSpec, NodeSpec, Scenario, TraceSpec, WlanSpec};
use super::words::in_scenario_words;
use super::{err, FieldError, Format};
use crate::tcp::TcpConfig;

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

/// Parses text into a JSON tree (the common form for TOML and JSON input).
pub fn parse_tree(text: &str, format: Format) -> Result<Value, Vec<FieldError>> {
    match format {
        Format::Toml => {
            let t =
                toml::from_str::<toml::Value>(text).map_err(|e| vec![malformed_toml(text, &e)])?;
            let mut errs = Vec::new();
            non_finite(&t, "", &mut errs);
            if !errs.is_empty() {
                return Err(errs);
            }
            json_of(t)
        }
        Format::Json => serde_json::from_str::<Value>(text)
            .map_err(|e| vec![err("", format!("malformed JSON: {e}"))]),
    }
}

/// Where and what, never the text: the toml crate's own message quotes the offending line, which
/// for a file that is not a scenario (`tcplab run ~/.netrc`) would print the file's content.
fn malformed_toml(text: &str, e: &toml::de::Error) -> FieldError {
    let at = match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(" at line {line}, column {col}")
        }
        None => String::new(),
    };
    err("", format!("malformed TOML{at}: {}", e.message().trim()))
}

/// A TOML tree as JSON; the tree holds no non-finite float (checked first), so nothing is lost.
fn json_of(t: toml::Value) -> Result<Value, Vec<FieldError>> {
    serde_json::to_value(t).map_err(|e| vec![err("", format!("malformed TOML: {e}"))])
}

const NON_FINITE: &str = "not a finite number: nan and inf are not allowed";

/// TOML has `nan` and `inf` floats, JSON has not: converted, they would become null and an
/// optional field would silently take its default. Each one is an error at its path instead.
fn non_finite(t: &toml::Value, loc: &str, errs: &mut Vec<FieldError>) {
    match t {
        toml::Value::Float(f) if !f.is_finite() => errs.push(err(loc, NON_FINITE)),
        toml::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                non_finite(v, &format!("{loc}[{i}]"), errs);
            }
        }
        toml::Value::Table(m) => {
            for (k, v) in m {
                let here = if loc.is_empty() {
                    k.clone()
                } else {
                    format!("{loc}.{k}")
                };
                non_finite(v, &here, errs);
            }
        }
        _ => {}
    }
}

/// Applies one `path=value` override. Arrays of tables are addressed by index or by `name`.
pub fn apply_override(tree: &mut Value, path: &str, raw: &str) -> Result<(), FieldError> {
    let parts = path_parts(path).ok_or_else(|| {
        err(
            path,
            "override path has an empty segment or a bad [index]; write e.g. \
             links.bottleneck.rate=5Mbps or links[1].rate=5Mbps",
        )
    })?;
    let value = parse_override_value(raw).map_err(|at| {
        let loc = match at.chars().next() {
            None => path.to_string(),
            Some('[') => format!("{path}{at}"),
            Some(_) => format!("{path}.{at}"),
        };
        let hint = if at.is_empty() {
            format!(" (for the text, quote it: {path}='\"{raw}\"')")
        } else {
            String::new()
        };
        err(loc, format!("{NON_FINITE}{hint}"))
    })?;
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

/// The segments of an override path: `links.bottleneck.rate` and, in the form error messages
/// use, `links[1].rate` (= `links.1.rate`). `None` for an empty segment or a malformed index.
fn path_parts(path: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    for seg in path.split('.') {
        let (head, mut rest) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if head.is_empty() {
            return None;
        }
        out.push(head);
        while !rest.is_empty() {
            let close = rest.find(']')?;
            let idx = rest.get(1..close)?;
            if !rest.starts_with('[') || idx.is_empty() || !idx.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            out.push(idx);
            rest = &rest[close + 1..];
        }
    }
    Some(out)
}

/// An override value is read as a TOML value when it parses as one ("5", "true", "[1, 2]",
/// "\"x\""), otherwise as a string ("5Mbps"). A non-finite float in it is an error: the
/// `Err` holds where in the value it is ("" for the value itself, "[1]" in an array).
fn parse_override_value(raw: &str) -> Result<Value, String> {
    let doc = format!("v = {raw}");
    match toml::from_str::<BTreeMap<String, toml::Value>>(&doc) {
        Ok(mut m) => match m.remove("v") {
            Some(v) => {
                let mut errs = Vec::new();
                non_finite(&v, "", &mut errs);
                if let Some(e) = errs.first() {
                    return Err(e.loc.clone());
                }
                Ok(json_of(v).unwrap_or(Value::String(raw.to_string())))
            }
            None => Ok(Value::String(raw.to_string())),
        },
        Err(_) => Ok(Value::String(raw.to_string())),
    }
}

pub(super) fn de<T: DeserializeOwned>(
    v: &Value,
    loc: &str,
    errs: &mut Vec<FieldError>,
) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(v) {
        Ok(t) => Some(t),
        Err(e) => {
            let (p, msg) = super::locate::refine::<T>(v, &e);
            let full = match (loc.is_empty(), p.as_str()) {
                (_, ".") | (_, "") => loc.to_string(),
                (true, p) => p.to_string(),
                (false, p) => format!("{loc}.{p}"),
            };
            errs.push(err(full, in_scenario_words(&msg)));
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
    // TCP tables are partial TcpConfigs: their form is TcpConfig's.
    if let Some(t) = obj.get("tcp") {
        de::<TcpConfig>(t, "tcp", &mut errs);
    }
    if let Some(Value::Array(flows)) = obj.get("flows") {
        for (i, f) in flows.iter().enumerate() {
            if let Some(t) = f.get("tcp") {
                de::<TcpConfig>(t, &format!("flows[{i}].tcp"), &mut errs);
            }
        }
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

#[cfg(test)]
mod path_tests {
    use super::*;

    #[test]
    fn malformed_toml_names_the_line_but_never_quotes_it() {
        let text = "name = \"x\"\nDB_PASSWORD hunter2-secret\n";
        let e = parse_tree(text, Format::Toml).unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(
            e[0].msg.starts_with("malformed TOML at line 2, column "),
            "{}",
            e[0].msg
        );
        assert!(
            !e[0].msg.contains("hunter2") && !e[0].msg.contains("DB_PASSWORD"),
            "{}",
            e[0].msg
        );
    }

    #[test]
    fn index_syntax_of_the_messages_is_accepted() {
        assert_eq!(
            path_parts("links[1].rate"),
            Some(vec!["links", "1", "rate"])
        );
        assert_eq!(path_parts("links.1.rate"), Some(vec!["links", "1", "rate"]));
        assert_eq!(path_parts("a[0][2]"), Some(vec!["a", "0", "2"]));
        for bad in [
            "links[].rate",
            "links[x].rate",
            "[1].rate",
            "links..rate",
            "links[1",
            "a[1]b",
        ] {
            assert_eq!(path_parts(bad), None, "{bad}");
        }
        let mut tree: Value =
            serde_json::json!({"links": [{"name": "a", "rate": 1}, {"name": "b"}]});
        apply_override(&mut tree, "links[1].rate", "5").unwrap();
        assert_eq!(tree["links"][1]["rate"], 5);
        let e = apply_override(&mut tree, "links[9].rate", "5").unwrap_err();
        assert!(
            e.msg
                .contains("index 9 is out of range: 'links' has 2 entries"),
            "{}",
            e.msg
        );
    }
}
