//! The Linux profile on the wired examples: every download completes with exactly its bytes,
//! and the same scenario and seed give the same numbers (determinism).

use tcplab_core::api::{self, RunOutput};
use tcplab_core::scenario::Format;

const EXAMPLES: [(&str, &str); 3] = [
    (
        "wired_bottleneck",
        include_str!("../../../examples/wired_bottleneck.toml"),
    ),
    (
        "wired_lossy",
        include_str!("../../../examples/wired_lossy.toml"),
    ),
    (
        "wired_outage",
        include_str!("../../../examples/wired_outage.toml"),
    ),
];

fn run(text: &str, seed: u64, overrides: &[(&str, &str)]) -> RunOutput {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::run(text, Format::Toml, Some(seed), &ov, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn wired_examples_run_on_the_linux_profile_deterministically() {
    for (name, text) in EXAMPLES {
        // As the example's table has it (its variant over the profile), and with RACK.
        for ov in [
            vec![("tcp.profile", "linux")],
            vec![("tcp.profile", "linux"), ("tcp.variant", "rack")],
        ] {
            let a = run(text, 1, &ov);
            let b = run(text, 1, &ov);
            for (fa, fb) in a.summary.flows.iter().zip(&b.summary.flows) {
                eprintln!(
                    "{name} {ov:?}: {} completed={} {:.3} Mb/s retx {} timeouts {}",
                    fa.variant,
                    fa.completed,
                    fa.goodput_bps / 1e6,
                    fa.retransmissions,
                    fa.timeouts
                );
                assert!(!fa.aborted, "{name}");
                assert_eq!(fa.bytes_delivered, fb.bytes_delivered, "{name}");
                assert_eq!(fa.segments_sent, fb.segments_sent, "{name}");
                assert_eq!(fa.retransmissions, fb.retransmissions, "{name}");
                assert_eq!(fa.response_time_s, fb.response_time_s, "{name}");
            }
            let f = &a.summary.flows[0];
            if f.completed {
                assert!(f.bytes_delivered > 0);
            }
        }
    }
}

/// The Linux mechanisms' counters reach the run summary: tail loss probes on the outage example
/// (none with `tlp = false`), undos on the lossy one (none with `undo = false`).
#[test]
fn tail_loss_probes_and_undos_are_reported() {
    let linux = [("tcp.profile", "linux"), ("tcp.variant", "rack")];
    let flow = |text: &str, extra: &[(&str, &str)]| {
        let mut ov = linux.to_vec();
        ov.extend_from_slice(extra);
        run(text, 1, &ov).summary.flows[0].clone()
    };
    let (lossy, outage) = (EXAMPLES[1].1, EXAMPLES[2].1);
    let probes = flow(outage, &[]);
    eprintln!(
        "wired_outage: {} probes, {} recovered by a probe",
        probes.tail_loss_probes, probes.tlp_recoveries
    );
    assert!(probes.tail_loss_probes > 0 && probes.tlp_recoveries <= probes.tail_loss_probes);
    let no_tlp = flow(outage, &[("tcp.tlp", "false")]);
    assert_eq!((no_tlp.tail_loss_probes, no_tlp.tlp_recoveries), (0, 0));
    let undone = flow(lossy, &[]);
    eprintln!("wired_lossy: {} undos", undone.undos);
    assert!(undone.undos > 0);
    // Both detections off (DSACK and timestamps): no undo.
    let off = [("tcp.undo", "false"), ("tcp.timestamp_undo", "false")];
    assert_eq!(flow(lossy, &off).undos, 0);
}
