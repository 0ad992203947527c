//! File names of pcap captures inside the capture folder: `<link or WLAN>-<node>.pcap` (IP) and
//! `<WLAN>-<node>-80211.pcap` (802.11).
//!
//! Link, WLAN and node names are free text in a scenario, so they become file names only after
//! [`file_stem`] has made them safe: no path separator, no `..`, no leading dot, nothing outside
//! a portable set. Two captures whose names map to the same file are refused up front
//! ([`check_capture_files`]), before any file is created: one capture must never overwrite
//! another, and no name may make a capture land outside the folder (`../../x`, `/abs/path`).

use std::collections::BTreeMap;

use super::schema::Scenario;
use super::{err, link_name, FieldError};
use crate::tcp::config::OpenMode;

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

/// The file name of the 802.11 (radiotap) capture of station `node` of WLAN `wlan`.
pub fn capture_file_80211(wlan: &str, node: &str) -> String {
    format!("{}-{}-80211.pcap", file_stem(wlan), file_stem(node))
}

/// The files the captures the scenario asks for are written to (`trace.pcap`, then
/// `trace.pcap_80211`), in that order, when the run is given a capture folder; an error if two
/// of them would be the same file ([`check_capture_files`]). The Python API checks these names
/// against the folder before the run (a file it did not write is never replaced).
pub fn capture_files(s: &Scenario) -> Result<Vec<String>, FieldError> {
    check_capture_files(s)?;
    Ok(wanted_captures(s).into_iter().map(|c| c.3).collect())
}

/// (field, interface, node, file) of every capture the scenario asks for.
fn wanted_captures(s: &Scenario) -> Vec<(&'static str, String, &str, String)> {
    let wanted = |list: &[String], name: &str| list.iter().any(|p| p == "*" || p == name);
    let mut out: Vec<(&'static str, String, &str, String)> = Vec::new();
    for l in &s.links {
        let name = link_name(l);
        if wanted(&s.trace.pcap, &name) {
            for node in [&l.a, &l.b] {
                out.push(("trace.pcap", name.clone(), node, capture_file(&name, node)));
            }
        }
    }
    for (field, list) in [
        ("trace.pcap", &s.trace.pcap),
        ("trace.pcap_80211", &s.trace.pcap_80211),
    ] {
        for w in s.wlans.iter().filter(|w| wanted(list, &w.name)) {
            for st in &w.stations {
                let file = if field == "trace.pcap" {
                    capture_file(&w.name, &st.node)
                } else {
                    capture_file_80211(&w.name, &st.node)
                };
                out.push((field, w.name.clone(), &st.node, file));
            }
        }
    }
    out
}

/// The TCP flows whose captures show a scaled window with no option that says so, and the
/// shift: a one-way start (`tcp.open` = `sender_syn` or `none`: no SYN, or bare SYNs, so no
/// window-scale option is on the wire) where the window is scaled all the same (both ends'
/// `window_scaling`; the two ends of a flow share one configuration, so one shift, the one
/// `TcpConfig::window_shift` gives; tcp socket `agreed_wscale`). A reader of the captures must
/// be told the shift (tshark `-o tcp.default_window_scaling:N`); a shift of 0 needs nothing.
pub fn unsignalled_window_shifts(s: &Scenario) -> Vec<(String, u8, OpenMode)> {
    use super::schema::AppName;
    let mut out = Vec::new();
    for f in &s.flows {
        if !matches!(f.app, AppName::BulkDownload | AppName::Bulk) {
            continue;
        }
        let table = super::merged_tcp(&s.tcp, f.tcp.as_ref());
        let Ok(cfg) = super::tcp_config(&table, "tcp") else {
            continue; // a loaded scenario's configurations are valid
        };
        let shift = cfg.window_shift();
        if cfg.open != OpenMode::Handshake && shift > 0 {
            out.push((f.name.clone(), shift, cfg.open));
        }
    }
    out
}

/// An error if two of the captures the scenario asks for (`trace.pcap`, then
/// `trace.pcap_80211`) would be written to the same file; it is the field of the second.
pub fn check_capture_files(s: &Scenario) -> Result<(), FieldError> {
    let out = wanted_captures(s);
    let what = |field: &str, iface: &str, node: &str| {
        let kind = if field == "trace.pcap" {
            ""
        } else {
            " (802.11)"
        };
        format!("'{iface}' at '{node}'{kind}")
    };
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    for (field, iface, node, file) in &out {
        let this = what(field, iface, node);
        if let Some(first) = seen.insert(file, this.clone()) {
            return Err(err(
                *field,
                format!(
                    "the captures of {first} and of {this} would both be written to {file} (in \
                     file names, characters other than letters, digits, '.', '_' and '-' become \
                     '_'); rename one of them"
                ),
            ));
        }
    }
    Ok(())
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
        assert_eq!(capture_file_80211("../w", "n 0"), "_.._w-n_0-80211.pcap");
        for name in ["../../escaped", "/abs/path", "..", "a/../../b", "./x"] {
            let f = capture_file(name, name);
            assert!(!f.contains('/') && !f.starts_with('.'), "{f}");
        }
    }

    /// A WLAN `cell` with stations `bs` (its AP) and `<mh>`, capturing `ip` and `wifi`.
    fn wlan(mh: &str, ip: &str, wifi: &str) -> Scenario {
        let text = format!(
            r#"
            [[nodes]]
            name = "bs"
            [[nodes]]
            name = "{mh}"
            [[wlans]]
            name = "cell"
            mode = "infrastructure"
            ap = "bs"
            [[wlans.stations]]
            node = "bs"
            position = ["0m", "0m"]
            [[wlans.stations]]
            node = "{mh}"
            position = ["50m", "0m"]
            [trace]
            pcap = {ip}
            pcap_80211 = {wifi}
            "#
        );
        super::super::load(&text, super::super::Format::Toml, &[]).expect("a valid scenario")
    }

    #[test]
    fn an_ip_capture_and_an_80211_capture_on_one_file_are_refused() {
        // The IP capture of `cell` at `bs-80211` and the 802.11 capture of `cell` at `bs` are
        // both cell-bs-80211.pcap.
        let e = check_capture_files(&wlan("bs-80211", r#"["*"]"#, r#"["cell"]"#)).unwrap_err();
        assert_eq!(e.loc, "trace.pcap_80211");
        assert!(
            e.msg
                .contains("'cell' at 'bs-80211' and of 'cell' at 'bs' (802.11)")
                && e.msg.contains("written to cell-bs-80211.pcap"),
            "{}",
            e.msg
        );
        // Either kind alone, or a station name that does not collide, is fine.
        assert!(check_capture_files(&wlan("bs-80211", r#"["*"]"#, "[]")).is_ok());
        assert!(check_capture_files(&wlan("bs-80211", "[]", r#"["*"]"#)).is_ok());
        assert!(check_capture_files(&wlan("mh", r#"["*"]"#, r#"["*"]"#)).is_ok());
    }
}
