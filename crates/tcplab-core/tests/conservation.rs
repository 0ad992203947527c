//! Byte conservation is checked at the end of every run (app/conservation.rs): a run whose
//! books do not balance ends in an error, not in a number. These tests unbalance the books of a
//! finished run on purpose and expect the error.

use tcplab_core::api::{self, Error, Prepared};
use tcplab_core::app::AppKind;
use tcplab_core::scenario::Format;
use tcplab_core::world::SimError;

const BOTTLENECK: &str = include_str!("../../../examples/wired_bottleneck.toml");
const SATURATION: &str = include_str!("../../../examples/wlan_saturation.toml");

fn finished(text: &str, overrides: &[(&str, &str)]) -> Prepared {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut p = api::prepare(text, Format::Toml, Some(1), &ov, None).expect("valid");
    while !p.step(u64::MAX).expect("runs") {}
    p
}

fn violations(p: Prepared) -> Vec<String> {
    match p.finish() {
        Err(Error::Simulation(SimError::Conservation(v))) => v,
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => vec![],
    }
}

#[test]
fn balanced_runs_pass() {
    assert!(violations(finished(BOTTLENECK, &[("flows.download.size", "1MB")])).is_empty());
    assert!(violations(finished(SATURATION, &[("duration", "2s")])).is_empty());
}

#[test]
fn a_download_that_claims_more_than_was_delivered_is_an_error() {
    let mut p = finished(BOTTLENECK, &[("flows.download.size", "1MB")]);
    // The application wrote one more byte than the client got, yet the flow says completed.
    p.world.flows_mut()[0].kind = AppKind::BulkDownload { size: 1_000_001 };
    let v = violations(p);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("flow download: completed with 1000000 bytes delivered, but 1000001"));
}

#[test]
fn a_download_delivering_more_than_was_written_is_an_error() {
    let mut p = finished(BOTTLENECK, &[("flows.download.size", "1MB")]);
    p.world.flows_mut()[0].kind = AppKind::BulkDownload { size: 999_999 };
    let v = violations(p);
    assert!(
        v.iter()
            .any(|e| e.contains("the application wrote only 999999")),
        "{v:?}"
    );
}

#[test]
fn udp_delivering_more_than_it_sent_is_an_error() {
    let mut p = finished(SATURATION, &[("duration", "2s")]);
    let c = &mut p.world.cbr_mut()[3];
    c.received = c.sent + 1;
    let v = violations(p);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("flow u3: ") && v[0].contains("delivered but only"));
}
