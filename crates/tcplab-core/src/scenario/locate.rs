//! Where inside a table a form error is, when serde cannot say, and what a missing field allows.
//!
//! serde reads an internally tagged table (a queue's `kind`, a station mobility's `model`) into a
//! buffer before choosing its variant, so the field path of an error inside it stops at the
//! table: `links.bottleneck.queue: expected an integer …` for a bad `packets`. And a missing
//! field is reported without the values it could take (`missing field `model``). Both are found
//! here by asking the schema itself again on altered copies of the table — no list of fields or
//! values is written twice. Only ever run on the error path.

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

/// A string no field accepts as a value: an enum answers it with its list of allowed values.
const PROBE: &str = "\u{1}";

/// One form error of `T` read from `v`: its path (serde's, relative to `v`; "." for the root) and
/// its message in serde's words, both made precise where serde stopped short.
pub(super) fn refine<T: DeserializeOwned>(
    v: &Value,
    e: &serde_path_to_error::Error<serde_json::Error>,
) -> (String, String) {
    let path = e.path().to_string();
    let msg = e.inner().to_string();
    let segs: Vec<Segment> = e.path().iter().cloned().collect();
    let Some(table) = at(v, &segs).and_then(Value::as_object) else {
        return (path, msg);
    };
    if let Some(field) = quoted_after(&msg, "missing field `") {
        return match allowed_for_missing::<T>(v, &segs, &path, field) {
            Some(allowed) => (path, format!("{msg}; allowed: {allowed}")),
            None => (path, msg),
        };
    }
    if msg.starts_with("unknown field `") {
        return (path, msg); // names the field itself
    }
    if let Some(given) = quoted_after(&msg, "unknown variant `") {
        // The tag's own value is wrong: point at the tag.
        let keys: Vec<&String> = table
            .iter()
            .filter(|(_, x)| x.as_str() == Some(given))
            .map(|(k, _)| k)
            .collect();
        return match keys.as_slice() {
            [k] => (join(&path, k), msg),
            _ => (path, msg),
        };
    }
    let culprits: Vec<&String> = table
        .keys()
        .filter(|k| is_culprit::<T>(v, &segs, &path, k))
        .collect();
    match culprits.as_slice() {
        [k] => (join(&path, k), msg),
        _ => (path, msg),
    }
}

/// `path.key` in serde_path_to_error's notation.
fn join(path: &str, key: &str) -> String {
    if path == "." {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The text between `head` and the next backquote.
fn quoted_after<'m>(msg: &'m str, head: &str) -> Option<&'m str> {
    msg.strip_prefix(head)?.split('`').next()
}

/// The value at `segs` inside `v`.
fn at<'v>(v: &'v Value, segs: &[Segment]) -> Option<&'v Value> {
    segs.iter().try_fold(v, |cur, s| match s {
        Segment::Seq { index } => cur.get(*index),
        Segment::Map { key } => cur.get(key),
        // An externally tagged value `{variant = {…}}`; a unit variant is its own string.
        Segment::Enum { variant } => Some(cur.get(variant).unwrap_or(cur)),
        Segment::Unknown => None,
    })
}

fn at_mut<'v>(v: &'v mut Value, segs: &[Segment]) -> Option<&'v mut Value> {
    let mut cur = v;
    for s in segs {
        cur = match s {
            Segment::Seq { index } => cur.get_mut(*index)?,
            Segment::Map { key } => cur.get_mut(key)?,
            Segment::Enum { variant } => {
                if cur.get(variant).is_some() {
                    cur.get_mut(variant)?
                } else {
                    cur
                }
            }
            Segment::Unknown => return None,
        };
    }
    Some(cur)
}

/// `T` read again from `v` with the table at `segs` changed by `edit`: `Ok` or (path, message).
fn retry<T: DeserializeOwned>(
    v: &Value,
    segs: &[Segment],
    edit: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> Result<(), (String, String)> {
    let mut copy = v.clone();
    if let Some(Value::Object(table)) = at_mut(&mut copy, segs) {
        edit(table);
    }
    serde_path_to_error::deserialize::<_, T>(&copy)
        .map(|_| ())
        .map_err(|e| (e.path().to_string(), e.inner().to_string()))
}

/// The allowed values of a missing field that takes one of a list of names: given a value no
/// name matches, serde lists them ("unknown variant `…`, expected one of `a`, `b`").
fn allowed_for_missing<T: DeserializeOwned>(
    v: &Value,
    segs: &[Segment],
    path: &str,
    field: &str,
) -> Option<String> {
    let (p, m) = retry::<T>(v, segs, |t| {
        t.insert(field.to_string(), Value::String(PROBE.into()));
    })
    .err()?;
    if p != path && p != join(path, field) {
        return None; // another error came first; say nothing we are unsure of
    }
    let expected = m.strip_prefix(&format!("unknown variant `{PROBE}`, expected "))?;
    let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// Whether the value of `key` is what `msg` is about: without it the table reads (an optional
/// field) or misses exactly that field (a required one); and it is not the tag choosing the
/// variant (which, given a value no variant has, answers with the list of variants).
fn is_culprit<T: DeserializeOwned>(v: &Value, segs: &[Segment], path: &str, key: &str) -> bool {
    let without = retry::<T>(v, segs, |t| {
        t.remove(key);
    });
    let explained = match &without {
        Ok(()) => true,
        Err((p, m)) => {
            (p == path || *p == join(path, key)) && *m == format!("missing field `{key}`")
        }
    };
    if !explained {
        return false;
    }
    let probed = retry::<T>(v, segs, |t| {
        t.insert(key.to_string(), Value::String(PROBE.into()));
    });
    !matches!(probed, Err((_, m)) if m.starts_with(&format!("unknown variant `{PROBE}`")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::LinkSpec;
    use serde_json::json;

    fn located(v: Value) -> (String, String) {
        let e = serde_path_to_error::deserialize::<_, LinkSpec>(&v).unwrap_err();
        refine::<LinkSpec>(&v, &e)
    }

    fn link(extra: Value) -> Value {
        let mut l =
            json!({"name": "bottleneck", "a": "r", "b": "s", "rate": "5Mbps", "delay": "10ms"});
        l.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        l
    }

    #[test]
    fn a_bad_field_inside_a_queue_table_is_named() {
        let (p, m) = located(link(json!({"queue": {"kind": "droptail", "packets": -1}})));
        assert_eq!(p, "queue.packets");
        assert!(m.contains("-1"), "{m}");
        let (p, _) = located(link(
            json!({"queue": {"kind": "red", "limit": 50, "min_th": "five", "max_th": 15}}),
        ));
        assert_eq!(p, "queue.min_th");
        // A required field of the variant with a bad value.
        let (p, _) = located(link(
            json!({"queue": {"kind": "red", "limit": -3, "min_th": 5, "max_th": 15}}),
        ));
        assert_eq!(p, "queue.limit");
    }

    #[test]
    fn a_bad_tag_is_named_with_its_values() {
        let (p, m) = located(link(json!({"queue": {"kind": "red2"}})));
        assert_eq!(p, "queue.kind");
        assert!(m.contains("`droptail` or `red`"), "{m}");
    }

    #[test]
    fn a_missing_field_lists_the_values_it_allows() {
        let (p, m) = located(link(json!({"loss": {"p": 0.01}})));
        assert_eq!(p, "loss");
        assert!(
            m.starts_with("missing field `model`; allowed: ")
                && m.contains("bernoulli")
                && m.contains("gilbert_elliott"),
            "{m}"
        );
        let (p, m) = located(link(json!({"queue": {"packets": 10}})));
        assert_eq!(p, "queue");
        assert_eq!(m, "missing field `kind`; allowed: droptail, red");
        // A missing field that is not a name keeps serde's words.
        let (_, m) = located(json!({"name": "x", "a": "r", "b": "s", "delay": "10ms"}));
        assert_eq!(m, "missing field `rate`");
    }
}
