//! File names of pcap captures: `<link or WLAN>-<node>.pcap` inside the capture folder.
//!
//! Link, WLAN and node names are free text in a scenario, so they become file names only after
//! [`file_stem`] has made them safe: no path separator, no `..`, no leading dot, nothing outside
//! a portable set. Two interfaces whose names map to the same file are refused up front
//! ([`capture_files`]), before any file is created: one capture must never overwrite another,
//! and no name may make a capture land outside the folder (`../../x`, `/abs/path`).

use std::collections::BTreeMap;

use super::schema::Scenario;
use super::{err, link_name, FieldError};

/// `name` as a file-name stem: every character other than an ASCII letter, digit, `_`, `-` or
/// `.` becomes `_`, and a leading `.` becomes `_` (no hidden file, no `.` or `..`).
pub fn file_stem(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.replace_range(0..0, "_");
    }
    s
}

/// The file name of the capture of `iface` (a link or WLAN) at `node`.
pub fn capture_file(iface: &str, node: &str) -> String {
    format!("{}-{}.pcap", file_stem(iface), file_stem(node))
}

/// The capture files the scenario's `trace.pcap` asks for, as (interface, node, file); an
/// error of `trace.pcap` if two interfaces would be written to the same file.
pub fn capture_files(s: &Scenario) -> Result<Vec<(String, String, String)>, FieldError> {
    let wanted = |name: &str| s.trace.pcap.iter().any(|p| p == "*" || p == name);
    let mut out = Vec::new();
    for l in &s.links {
        let name = link_name(l);
        if wanted(&name) {
            for node in [&l.a, &l.b] {
                out.push((name.clone(), node.clone(), capture_file(&name, node)));
            }
        }
    }
    for w in s.wlans.iter().filter(|w| wanted(&w.name)) {
        for st in &w.stations {
            out.push((
                w.name.clone(),
                st.node.clone(),
                capture_file(&w.name, &st.node),
            ));
        }
    }
    let mut seen: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for (iface, node, file) in &out {
        if let Some((i0, n0)) = seen.insert(file, (iface, node)) {
            return Err(err(
                "trace.pcap",
                format!(
                    "the captures of '{i0}' at '{n0}' and of '{iface}' at '{node}' would both be \
                     written to {file} (in file names, characters other than letters, digits, \
                     '.', '_' and '-' become '_'); rename one of them"
                ),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_leave_the_folder_or_hide() {
        assert_eq!(file_stem("../../escaped"), "_.._.._escaped");
        assert_eq!(file_stem("/abs/path"), "_abs_path");
        assert_eq!(file_stem(".."), "_..");
        assert_eq!(file_stem(".hidden"), "_.hidden");
        assert_eq!(file_stem(""), "_");
        assert_eq!(file_stem("a\\b:c\0d é"), "a_b_c_d__");
        assert_eq!(file_stem("bottleneck"), "bottleneck");
        assert_eq!(capture_file("wlan-1.b", "n_0"), "wlan-1.b-n_0.pcap");
        for name in ["../../escaped", "/abs/path", "..", "a/../../b", "./x"] {
            let f = capture_file(name, name);
            assert!(!f.contains('/') && !f.starts_with('.'), "{f}");
        }
    }
}
