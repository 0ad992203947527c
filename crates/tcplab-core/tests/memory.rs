//! Memory flat in simulated duration (issue 35): a mobile ad hoc network run to T and to 4T
//! keeps its event queue within the same bound. Counts of containers, not RSS or time.

use tcplab_core::api;
use tcplab_core::scenario::Format;
use tcplab_core::world::MemoryCensus;

/// 50 nodes moving by random waypoint, AODV with ns-2.35's rules, two TCP flows: local repairs
/// leave far-ahead routing timers that every purge tick supersedes.
const MOBILE: &str = include_str!("../../../examples/adhoc_mobile.toml");

fn census(secs: u32, sweep: bool) -> MemoryCensus {
    let ov = [("duration".to_string(), format!("{secs}s"))];
    let mut p = api::prepare(MOBILE, Format::Toml, Some(1), &ov, None).expect("the example loads");
    p.world.sweep_superseded = sweep;
    while !p.step(u64::MAX).expect("the run") {}
    p.memory_census()
}

#[test]
fn the_event_queue_does_not_grow_with_the_simulated_duration() {
    let t = census(50, true);
    let t4 = census(200, true);
    let off = census(200, false);
    eprintln!("T: {t:?}\n4T: {t4:?}\n4T without the sweep: {off:?}");
    // Superseded wake-ups are at most half the queue (or fewer than the sweep's minimum).
    assert!(t4.stale_timers < 64 || 2 * t4.stale_timers < t4.events_pending);
    // The queue at 4T is no longer than at T, up to the sweep's slack.
    assert!(
        t4.events_pending <= 2 * (t.events_pending - t.stale_timers) + 64,
        "{} events pending at 4T, {} live at T",
        t4.events_pending,
        t.events_pending - t.stale_timers
    );
    assert!(t4.events_capacity <= 2 * t.events_capacity.max(64));
    // Without the sweep the same run piles up dead wake-ups: the check above would fail.
    assert!(
        off.stale_timers > 2 * t4.events_pending + 64,
        "without the sweep: {} dead wake-ups",
        off.stale_timers
    );
    // The sweep only removes dead entries: the live events are the same.
    assert_eq!(
        off.events_pending - off.stale_timers,
        t4.events_pending - t4.stale_timers
    );
}

#[test]
fn route_and_arp_tables_hold_only_the_peers_heard_of() {
    // Each node's AODV table holds one entry per destination it has heard of, and each
    // station's ARP table one per neighbour it has addressed or heard: at most n - 1 each,
    // however long the run (no table sized by the square of the node count up front).
    let c = census(50, true);
    let n = 50;
    assert!(c.aodv_routes > 0 && c.aodv_routes <= n * (n - 1));
    assert!(c.arp_entries > 0 && c.arp_entries <= n * (n - 1));
}
