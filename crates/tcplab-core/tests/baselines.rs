//! The baselines of issue 41 end to end on the wired–BS–802.11 network: Snoop and I-TCP at the
//! base station with packet errors on the wireless hop (docs/models/snoop.md, itcp.md).

use tcplab_core::api::{self, RunOutput};
use tcplab_core::scenario::Format;

use crate::common::FhBsMh;

/// Reno from the FH to the MH with 3 % packet errors towards the mobile above the MAC, and
/// `agent` at the BS.
fn run(agent: Option<&str>) -> RunOutput {
    let net = FhBsMh::new("baselines_e2e", "60s", "ftp", "2MB")
        .mobile("loss = { model = \"bernoulli\", p = 0.03, direction = \"b_to_a\" }")
        .mobile("loss_at = \"packets\"");
    let net = match agent {
        None => net,
        Some(kind) => net.agent(kind),
    };
    api::run(&net.build(), Format::Toml, Some(1), &[], None).unwrap_or_else(|e| panic!("{e}"))
}

/// Snoop resends the wireless losses from the BS: the FH retransmits (almost) nothing and the
/// download finishes sooner than plain Reno's.
#[test]
fn snoop_hides_wireless_losses_from_the_sender() {
    let reno = run(None);
    let snoop = run(Some("snoop"));
    let (r, s) = (&reno.summary.flows[0], &snoop.summary.flows[0]);
    assert!(r.completed && s.completed && s.bytes_delivered == 2_000_000);
    let stats = &snoop.summary.agents[0].stats;
    assert!(
        stats["local_retransmits_dupack"].as_u64().unwrap() > 10,
        "{stats}"
    );
    assert!(
        s.retransmissions * 5 < r.retransmissions,
        "FH retransmissions: snoop {} vs reno {}",
        s.retransmissions,
        r.retransmissions
    );
    assert!(s.response_time_s.unwrap() < r.response_time_s.unwrap());
}

/// I-TCP splits the connection: the BS's own connection to the mobile recovers the wireless
/// losses, so the FH retransmits nothing, and the FH's data is acknowledged before the mobile
/// has it (the counter of bytes acknowledged but not delivered), bounded by the relay buffer
/// plus the BS socket's receive buffer.
#[test]
fn itcp_splits_the_connection_at_the_base_station() {
    let reno = run(None);
    let itcp = run(Some("itcp"));
    let (r, i) = (&reno.summary.flows[0], &itcp.summary.flows[0]);
    assert!(i.completed && i.bytes_delivered == 2_000_000, "{i:?}");
    assert!(r.retransmissions > 10);
    assert_eq!(i.retransmissions, 0, "no wireless loss reaches the FH");
    let st = &itcp.summary.agents[0].stats;
    assert_eq!(st["connections_split"], 1);
    assert_eq!(st["relayed_to_mobile"], 2_000_000);
    let gap = st["acked_not_delivered_max"].as_u64().unwrap();
    assert!(gap > 20_000 && gap <= 65_536 + 20_000, "{gap}");
    assert_eq!(st["acked_not_delivered"], 0, "all delivered at the end");
}
