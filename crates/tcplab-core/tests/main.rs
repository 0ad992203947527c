//! The integration tests, one module per file of this folder, built as one test binary
//! (`cargo test --release -p tcplab-core --test integration [MODULE::]`): a binary per file
//! would link the whole core once per file.

mod ack_holding;
mod adhoc;
mod adhoc_tcp;
mod agents;
mod baselines;
mod common;
mod conservation;
mod flowstats;
mod frames;
mod fuzz_scenarios;
mod linux_profile;
mod memory;
mod mobility;
mod net_series;
mod network;
mod ns2_profile;
mod routing;
mod wifi;
mod wired;

/// Every `.rs` file of this folder is a module above: with `autotests = false` a file left out
/// would silently never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let listed = include_str!("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the tests folder") {
        let path = entry.expect("a folder entry").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let is_module = path.extension().is_some_and(|e| e == "rs") && stem != "main";
        if is_module && !listed.lines().any(|l| l == format!("mod {stem};")) {
            missing.push(stem.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "add `mod …;` to tests/main.rs for {missing:?}"
    );
}
