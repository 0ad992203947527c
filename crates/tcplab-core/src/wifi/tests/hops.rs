//! The oracle hop count (`hops.rs`): shortest paths over the links frames can cross now.

use super::*;

#[test]
fn hops_count_links_that_decode_not_links_that_only_sense() {
    // 0 - 1 - 2 - 3 every 200 m (decode 250 m, sense 550 m), 4 alone 2 km away: 0 senses 2 at
    // 400 m but cannot decode it, so the path to 2 takes two hops, not one.
    let air = Air::new(
        cfg(),
        &[
            (0.0, 0.0),
            (200.0, 0.0),
            (400.0, 0.0),
            (600.0, 0.0),
            (2000.0, 0.0),
        ],
    );
    let w = &air.wifi;
    assert!(w.in_adhoc(0));
    assert_eq!(w.hops_now(0, 0), Some(0));
    assert_eq!(w.hops_now(0, 1), Some(1));
    assert_eq!(w.hops_now(0, 2), Some(2));
    assert_eq!(w.hops_now(3, 0), Some(3));
    assert_eq!(w.hops_now(1, 3), Some(2));
    assert_eq!(w.hops_now(0, 4), None, "partitioned");
}

#[test]
fn only_an_ad_hoc_wlan_has_oracle_hops() {
    let mut c = cfg();
    c.mode = Mode::Infrastructure;
    let air = Air::new(c, &[(0.0, 0.0), (100.0, 0.0)]);
    assert!(!air.wifi.in_adhoc(0));
}
