//! Packet-level traces of the Linux profile's mechanisms (docs/models/tcp.md, "Linux profile").
//! Each test runs its trace with the mechanism's switch on and off and shows the difference.

use super::*;
use crate::tcp::config::{Profile, RtoRule};

fn rack_cfg() -> TcpConfig {
    TcpConfig {
        variant: None,
        recovery: Some(Variant::Rack),
        ..sack_cfg()
    }
}

#[test]
fn linux_rto_rule_restarts_the_timer_on_every_advancing_ack() {
    let trace = |rule: RtoRule| {
        let (mut s, out) = sending(TcpConfig {
            initial_window: InitialWindow::Segments(10),
            initial_ssthresh: Some(10 * M),
            rto_rule: rule,
            ..cfg()
        });
        assert_eq!(out.len(), 10);
        send(&mut s, T0 + ms(100), &c_ack(S + M));
        // Segments 1, 4 and 7 lost: NewReno recovery, then two partial ACKs.
        for _ in 0..7 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        assert!(s.in_recovery());
        send(&mut s, T0 + ms(200), &c_ack(S + 4 * M));
        send(&mut s, T0 + ms(300), &c_ack(S + 7 * M));
        (s.poll_timeout().expect("armed"), s.rto())
    };
    // RFC 6582's Impatient timer keeps the deadline of the first partial ACK (200 ms + RTO);
    // Linux restarts it at the second (300 ms + RTO).
    let (deadline, rto) = trace(RtoRule::Rfc6298);
    assert_eq!(deadline, T0 + ms(200) + rto);
    let (deadline, rto) = trace(RtoRule::Linux);
    assert_eq!(deadline, T0 + ms(300) + rto);
}

#[test]
fn linux_profile_resolves_to_its_parts() {
    let c = TcpConfig::linux();
    assert_eq!(c.profile, Profile::Linux);
    assert_eq!(c.name(), "cubic+rack");
    assert_eq!(c.initial_window_bytes(1000), 10_000);
    let (_, s) = established(TcpConfig { mss: 1000, ..c });
    assert_eq!(s.cc_name(), "cubic");
    assert_eq!(s.recovery_name(), "rack");
    // Handshake sample 100 ms: Linux RTO = 100 + max(4·50, 200) = 300 ms.
    assert_eq!(s.rto(), ms(300));
}

#[test]
fn rack_detects_a_lost_segment_by_time_where_rfc6675_waits() {
    // Ten segments at T0; segment 8 is lost, 9 arrives: one SACKed segment above the hole, which
    // RFC 6675's IsLost never calls a loss. RACK does, one RTT plus min_rtt/4 after segment 8 was
    // sent (RFC 8985 §6.2).
    let trace = |conf: TcpConfig| {
        let (mut s, out) = sending(conf);
        assert_eq!(out.len(), 10);
        send(&mut s, T0 + ms(100), &c_ack(S + 8 * M));
        send(
            &mut s,
            T0 + ms(100),
            &c_sack(S + 8 * M, &[(S + 9 * M, S + 10 * M)]),
        );
        let (t, out) = fire(&mut s);
        (t, segs(&out).first().copied(), s.in_recovery())
    };
    assert_eq!(
        trace(rack_cfg()),
        (T0 + ms(125), Some((S + 8 * M, M as u32)), true)
    );
    // RFC 6675: nothing until the retransmission timer (T0 + 100 ms + RTO).
    let (t, first, rec) = trace(sack_cfg());
    assert!(t > T0 + ms(300), "{t:?}");
    assert_eq!(first, Some((S + 8 * M, M as u32)));
    assert!(!rec);
}

#[test]
fn prr_spreads_the_reduction_over_the_round_trip() {
    // Twenty segments out, segment 0 lost, segments 1..19 SACKed one per ACK. RFC 6675 sets
    // cwnd = ssthresh (10 segments) at once and sends nothing until pipe falls below it; PRR
    // (RFC 6937) sends about one segment per two delivered from the start.
    let trace = |prr: bool| {
        let (mut s, out) = sending(TcpConfig {
            prr,
            initial_window: InitialWindow::Segments(20),
            ..sack_cfg()
        });
        assert_eq!(out.len(), 20);
        let mut sent = Vec::new();
        for k in 1..20 {
            let out = send(
                &mut s,
                T0 + ms(100),
                &c_sack(S, &[(S + M, S + (k + 1) * M)]),
            );
            sent.push(out.len());
        }
        assert!(s.in_recovery());
        sent
    };
    let (rfc6675, prr) = (trace(false), trace(true));
    // The third SACK starts recovery and retransmits segment 0 in both.
    assert_eq!(
        rfc6675,
        [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    );
    assert_eq!(
        prr,
        [0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1]
    );
    // Both end the round trip with ssthresh's worth sent in all.
    assert_eq!(rfc6675.iter().sum::<usize>(), prr.iter().sum::<usize>());
}
