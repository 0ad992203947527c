//! Packet-level traces of the ad hoc extensions (docs/models/adhoc_tcp.md): ATCP's transitions
//! and seed 003's three changes, ELFN's stand-by, TCP-F's snooze and Freeze-TCP's zero window.
//! Each rule is shown against the same trace without it (the extension off, or the switch at
//! its other value).
//!
//! The sender traces start from `second_segment_lost_with`: segments 1..10 outstanding at
//! T0 + 100 ms, cwnd = 10 segments, RTO = 250 ms, the retransmission timer due at T0 + 350 ms.

use super::*;
use crate::tcp::ext::{
    AtcpParams, ElfnParams, FreezeParams, LossRetransmit, ProbeBackoff, TcpFParams,
};

fn with_ext(e: ExtensionKind) -> TcpConfig {
    TcpConfig {
        extensions: vec![e],
        ..cfg()
    }
}

fn atcp_cfg(p: AtcpParams) -> TcpConfig {
    TcpConfig {
        atcp: p,
        ..with_ext(ExtensionKind::Atcp)
    }
}

/// Segments 1..10 outstanding, then three duplicate ACKs of segment 1 at T0 + 150 ms; returns
/// what the third one made the sender send.
fn three_dupacks(s: &mut Socket) -> Vec<Segment> {
    assert!(send(s, T0 + ms(150), &c_ack(S + M)).is_empty());
    assert!(send(s, T0 + ms(150), &c_ack(S + M)).is_empty());
    send(s, T0 + ms(150), &c_ack(S + M))
}

fn window_from(k: u64) -> Vec<Segment> {
    (k..11).map(|i| s_data(S + i * M)).collect()
}

fn notify(s: &mut Socket, t: SimTime, n: Notice) -> Vec<Segment> {
    let mut out = vec![];
    s.notify(t, n, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// ATCP: Normal → Loss → Normal
// ---------------------------------------------------------------------------------------------

#[test]
fn atcp_third_dupack_persists_and_resends_the_window() {
    // Without ATCP: NewReno's fast retransmit of segment 1, ssthresh halved.
    let mut s = second_segment_lost(Variant::NewReno);
    assert_eq!(three_dupacks(&mut s), [s_data(S + M)]);
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.ssthresh(), 5000);

    // Original ATCP: the third duplicate is not forwarded; TCP goes into persist (no timer, no
    // cwnd cut) and every unacknowledged segment is resent.
    let mut s = second_segment_lost_with(atcp_cfg(AtcpParams::default()));
    assert_eq!(three_dupacks(&mut s), window_from(1));
    assert_eq!(s.extension_states(), ["loss"]);
    assert!(s.is_frozen() && !s.in_recovery());
    assert_eq!(s.stats.fast_recoveries, 0);
    assert_eq!((s.cwnd(), s.ssthresh()), (10_000, 10_000));
    // Further duplicates are absorbed.
    assert!(send(&mut s, T0 + ms(160), &c_ack(S + M)).is_empty());
    assert_eq!(s.stats.fast_recoveries, 0);
}

#[test]
fn atcp_modified_resends_only_the_lost_segment() {
    let mut s = second_segment_lost_with(atcp_cfg(AtcpParams {
        loss_retransmit: LossRetransmit::LostSegment,
        ..AtcpParams::default()
    }));
    assert_eq!(three_dupacks(&mut s), [s_data(S + M)]);
    assert_eq!(s.extension_states(), ["loss"]);
    assert_eq!(s.cwnd(), 10_000);
}

#[test]
fn atcp_loss_timer_resends_at_the_rto_and_a_new_ack_returns_to_normal() {
    let mut s = second_segment_lost_with(atcp_cfg(AtcpParams::default()));
    three_dupacks(&mut s);
    // ATCP's own timer reuses TCP's RTO value (250 ms), without backing it off.
    let t = T0 + ms(150) + ms(250);
    assert_eq!(recv(&mut s, t), window_from(1));
    assert_eq!(s.rto(), ms(250));
    assert_eq!(s.extension_states(), ["loss"]);
    assert_eq!(s.poll_timeout(), Some(t + ms(250)));
    // A new ACK: out of persist, back to Normal, TCP sends what cwnd allows (its timer runs).
    let out = send(&mut s, t + ms(50), &c_ack(S + 11 * M));
    assert_eq!(s.extension_states(), ["normal"]);
    assert!(!s.is_frozen());
    assert_eq!(out.first(), Some(&s_data(S + 11 * M)));
    assert!(s.cwnd() >= 10_000);
    assert_eq!(s.poll_timeout(), Some(t + ms(50) + s.rto()));
}

#[test]
fn atcp_rto_persists_instead_of_cutting_cwnd() {
    // TCP's own timeout: cwnd = 1 segment and the RTO doubles.
    let mut s = second_segment_lost(Variant::NewReno);
    assert_eq!(recv(&mut s, T0 + ms(350)), [s_data(S + M)]);
    assert_eq!((s.cwnd(), s.rto()), (1000, ms(500)));

    // ATCP: persist and resend; cwnd and RTO untouched.
    let mut s = second_segment_lost_with(atcp_cfg(AtcpParams {
        loss_retransmit: LossRetransmit::LostSegment,
        ..AtcpParams::default()
    }));
    assert_eq!(recv(&mut s, T0 + ms(350)), [s_data(S + M)]);
    assert_eq!((s.cwnd(), s.rto()), (10_000, ms(250)));
    assert_eq!(s.extension_states(), ["loss"]);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn atcp_hands_the_timeout_back_to_tcp_after_the_threshold() {
    let run = |threshold: u32| {
        let mut s = second_segment_lost_with(atcp_cfg(AtcpParams {
            loss_retransmit: LossRetransmit::LostSegment,
            timeout_threshold: threshold,
            ..AtcpParams::default()
        }));
        // Absorbed: the RTO at 350 ms, ATCP's timer at 600 ms.
        recv(&mut s, T0 + ms(350));
        recv(&mut s, T0 + ms(600));
        assert_eq!(s.stats.timeouts, 0);
        // The third expiry.
        let out = recv(&mut s, T0 + ms(850));
        (s, out)
    };
    // Threshold 2: the third timeout is TCP's: cwnd = 1 segment, RTO backed off, Normal.
    let (s, out) = run(2);
    assert_eq!(out, [s_data(S + M)]);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!((s.cwnd(), s.rto()), (1000, ms(500)));
    assert_eq!(s.extension_states(), ["normal"]);
    assert!(!s.is_frozen());
    // Threshold 0 (original ATCP): ATCP keeps absorbing.
    let (s, out) = run(0);
    assert_eq!(out, [s_data(S + M)]);
    assert_eq!(s.stats.timeouts, 0);
    assert_eq!(s.cwnd(), 10_000);
    assert_eq!(s.extension_states(), ["loss"]);
}

// ---------------------------------------------------------------------------------------------
// ATCP: Congested
// ---------------------------------------------------------------------------------------------

/// `second_segment_lost_with` on an ECN connection (its data segments are ECT).
fn atcp_ecn_sending() -> Socket {
    let (mut s, out) = sending(TcpConfig {
        ecn: true,
        initial_window: InitialWindow::Segments(10),
        initial_ssthresh: Some(10 * M),
        ..atcp_cfg(AtcpParams::default())
    });
    assert_eq!(out.len(), 10);
    assert_eq!(
        segs(&send(&mut s, T0 + ms(100), &c_ack(S + M))),
        [(S + 10 * M, 1000)]
    );
    s
}

#[test]
fn atcp_ece_leaves_congestion_to_tcp_until_new_data() {
    let mut s = atcp_ecn_sending();
    // ECN-Echo in Normal: Congested, and TCP's own reaction (RFC 3168: cwnd halved).
    send(&mut s, T0 + ms(150), &ece(S + 2 * M));
    assert_eq!(s.extension_states(), ["congested"]);
    assert_eq!(s.stats.ecn_reductions, 1);
    // Congested: duplicate ACKs are TCP's (fast retransmit), not ATCP's.
    send(&mut s, T0 + ms(160), &c_ack(S + 2 * M));
    send(&mut s, T0 + ms(160), &c_ack(S + 2 * M));
    let out = send(&mut s, T0 + ms(160), &c_ack(S + 2 * M));
    assert_eq!(segs(&out), [(S + 2 * M, 1000)]);
    assert_eq!(s.stats.fast_recoveries, 1);
    assert!(!s.is_frozen());
    // TCP's next new segment returns ATCP to Normal.
    let out = send(&mut s, T0 + ms(200), &c_ack(S + 11 * M));
    assert!(out.iter().any(|sg| sg.hdr.seq >= S + 11 * M));
    assert_eq!(s.extension_states(), ["normal"]);
}

#[test]
fn atcp_ece_in_loss_takes_tcp_out_of_persist() {
    let mut s = atcp_ecn_sending();
    three_dupacks(&mut s);
    assert!(s.is_frozen());
    send(&mut s, T0 + ms(160), &ece(S + M));
    assert_eq!(s.extension_states(), ["congested"]);
    assert!(!s.is_frozen());
    // TCP's retransmission timer runs again.
    assert_eq!(s.poll_timeout(), Some(T0 + ms(160) + s.rto()));
}

// ---------------------------------------------------------------------------------------------
// ATCP: Disconnected
// ---------------------------------------------------------------------------------------------

/// The times of the probes (one byte at snd_una) sent over `n` probe timer expiries.
fn probe_times(s: &mut Socket, n: usize) -> Vec<SimTime> {
    (0..n)
        .map(|_| {
            let (t, out) = fire(s);
            assert_eq!(out.len(), 1);
            assert_eq!((out[0].hdr.seq, out[0].payload), (S + M, 1));
            t
        })
        .collect()
}

#[test]
fn atcp_icmp_unreachable_disconnects_with_cwnd_one_and_probes() {
    // Without ATCP an ICMP unreachable changes nothing.
    let mut s = second_segment_lost(Variant::NewReno);
    notify(&mut s, T0 + ms(120), Notice::IcmpUnreachable);
    assert_eq!((s.cwnd(), s.is_frozen()), (10_000, false));

    let mut s = second_segment_lost_with(atcp_cfg(AtcpParams::default()));
    let t = T0 + ms(120);
    assert!(notify(&mut s, t, Notice::IcmpUnreachable).is_empty());
    assert_eq!(s.extension_states(), ["disconnected"]);
    assert!(s.is_frozen());
    assert_eq!(s.cwnd(), 1000);
    // Original: probes at RTO intervals backed off exponentially (250, 500, 1000 ms).
    let times = probe_times(&mut s, 3);
    assert_eq!(times, [t + ms(250), t + ms(750), t + ms(1750)]);
    assert_eq!(s.stats.window_probes, 3);
    // An ACK (the receiver answers a probe): Normal, slow start from one segment.
    let out = send(&mut s, t + secs(2), &c_ack(S + M + 1));
    assert_eq!(s.extension_states(), ["normal"]);
    assert!(!s.is_frozen());
    assert_eq!(segs(&out), [(S + M + 1, 1000)]);
}

#[test]
fn atcp_can_take_a_route_failure_as_unreachable() {
    let run = |on: bool| {
        let mut s = second_segment_lost_with(atcp_cfg(AtcpParams {
            route_failure_disconnects: on,
            ..AtcpParams::default()
        }));
        notify(&mut s, T0 + ms(120), Notice::RouteFailure);
        (s.extension_states(), s.cwnd())
    };
    assert_eq!(run(false), (vec!["normal"], 10_000));
    assert_eq!(run(true), (vec!["disconnected"], 1000));
}

#[test]
fn atcp_lost_segment_mode_resends_each_hole_on_its_partial_ack() {
    // Segments 1 and 4 lost. Original ATCP leaves Loss on the first new ACK; the lost-segment mode
    // resends segment 4 on the partial ACK that reveals it and stays in Loss until all of the data
    // outstanding at entry is acknowledged (RFC 6582's partial-ACK rule).
    let run = |mode: LossRetransmit| {
        let mut s = second_segment_lost_with(atcp_cfg(AtcpParams {
            loss_retransmit: mode,
            ..AtcpParams::default()
        }));
        three_dupacks(&mut s);
        let out = send(&mut s, T0 + ms(200), &c_ack(S + 4 * M));
        (s.extension_states(), segs(&out))
    };
    assert_eq!(
        run(LossRetransmit::LostSegment),
        (vec!["loss"], vec![(S + 4 * M, 1000)])
    );
    let (state, _) = run(LossRetransmit::Window);
    assert_eq!(state, ["normal"]);
}

#[test]
fn extensions_leave_the_handshake_alone() {
    // An ICMP unreachable before the connection exists must not freeze the SYN's timer.
    let (mut c, _) = syn_sent(atcp_cfg(AtcpParams::default()));
    notify(&mut c, ms(10), Notice::IcmpUnreachable);
    assert_eq!(c.extension_states(), ["normal"]);
    assert_eq!(c.poll_timeout(), Some(secs(1)));
}

#[test]
fn atcp_modified_probes_back_off_linearly() {
    let mut s = second_segment_lost_with(atcp_cfg(AtcpParams {
        probe_backoff: ProbeBackoff::Linear,
        ..AtcpParams::default()
    }));
    let t = T0 + ms(120);
    notify(&mut s, t, Notice::IcmpUnreachable);
    // 250, 500, 750 ms apart.
    let times = probe_times(&mut s, 3);
    assert_eq!(times, [t + ms(250), t + ms(750), t + ms(1500)]);
}

// ---------------------------------------------------------------------------------------------
// ELFN
// ---------------------------------------------------------------------------------------------

fn elfn_cfg() -> TcpConfig {
    TcpConfig {
        elfn: ElfnParams {
            probe_interval: secs(1),
        },
        ..with_ext(ExtensionKind::Elfn)
    }
}

#[test]
fn elfn_stands_by_and_probes_with_the_head_segment() {
    // Without ELFN the route failure changes nothing: the RTO fires at 350 ms.
    let mut s = second_segment_lost(Variant::NewReno);
    notify(&mut s, T0 + ms(120), Notice::RouteFailure);
    assert_eq!(s.poll_timeout(), Some(T0 + ms(350)));

    let mut s = second_segment_lost_with(elfn_cfg());
    let t = T0 + ms(120);
    notify(&mut s, t, Notice::RouteFailure);
    assert_eq!(s.extension_states(), ["standby"]);
    assert!(s.is_frozen());
    // No retransmission timer: the next wake-up is the probe, one interval later, and again.
    assert_eq!(recv(&mut s, t + secs(1)), [s_data(S + M)]);
    assert_eq!(recv(&mut s, t + secs(2)), [s_data(S + M)]);
    assert_eq!(s.stats.timeouts, 0);
    // The probe answered: stand-by ends with the old cwnd and RTO.
    let out = send(&mut s, t + ms(2100), &c_ack(S + 2 * M));
    assert_eq!(s.extension_states(), ["normal"]);
    assert_eq!((s.cwnd() >= 10_000, s.rto()), (true, ms(250)));
    assert!(!out.is_empty());
    assert_eq!(s.poll_timeout(), Some(t + ms(2100) + ms(250)));
}

#[test]
fn elfn_resumes_on_route_reestablished() {
    let mut s = second_segment_lost_with(elfn_cfg());
    notify(&mut s, T0 + ms(120), Notice::RouteFailure);
    let out = notify(&mut s, T0 + ms(500), Notice::RouteReestablished);
    assert_eq!(out.first(), Some(&s_data(S + M)));
    assert_eq!(s.extension_states(), ["normal"]);
    assert_eq!(s.poll_timeout(), Some(T0 + ms(500) + ms(250)));
}

// ---------------------------------------------------------------------------------------------
// TCP-F
// ---------------------------------------------------------------------------------------------

fn tcp_f_cfg() -> TcpConfig {
    TcpConfig {
        tcp_f: TcpFParams {
            failure_timer: secs(5),
        },
        ..with_ext(ExtensionKind::TcpF)
    }
}

#[test]
fn tcp_f_snoozes_and_flushes_the_window_on_rrn() {
    let mut s = second_segment_lost_with(tcp_f_cfg());
    let t = T0 + ms(120);
    notify(&mut s, t, Notice::RouteFailure);
    assert_eq!(s.extension_states(), ["snooze"]);
    // Snooze: no timer but the route-failure timer; ACKs send nothing.
    assert_eq!(s.poll_timeout(), Some(t + secs(5)));
    assert!(send(&mut s, t + ms(10), &c_ack(S + M)).is_empty());
    // RRN: Active, every unacknowledged segment of the window again at the old cwnd.
    let out = notify(&mut s, t + secs(1), Notice::RouteReestablished);
    assert_eq!(out, window_from(1));
    assert_eq!(s.cwnd(), 10_000);
    assert_eq!(s.extension_states(), ["active"]);
}

#[test]
fn a_snoozing_sender_takes_no_fast_retransmit() {
    // TCP-F (Chandran et al. 1998): in snooze the sender stops all sending, so three duplicate
    // ACKs arriving while frozen start no fast retransmit (RFC 5681 §3.2 is suspended).
    let mut s = second_segment_lost_with(tcp_f_cfg());
    notify(&mut s, T0 + ms(120), Notice::RouteFailure);
    assert!(s.is_frozen());
    assert!(three_dupacks(&mut s).is_empty());
    assert_eq!(s.stats.fast_recoveries, 0);
    assert!(!s.in_recovery());
    // The same duplicates without the route failure: fast retransmit of segment 1.
    let mut s = second_segment_lost_with(tcp_f_cfg());
    assert_eq!(three_dupacks(&mut s), [s_data(S + M)]);
    assert_eq!(s.stats.fast_recoveries, 1);
}

#[test]
fn tcp_f_route_failure_timer_ends_the_snooze() {
    let mut s = second_segment_lost_with(tcp_f_cfg());
    let t = T0 + ms(120);
    notify(&mut s, t, Notice::RouteFailure);
    // The RRN was lost: the route-failure timer flushes the window.
    assert_eq!(recv(&mut s, t + secs(5)), window_from(1));
    assert_eq!(s.extension_states(), ["active"]);
}

// ---------------------------------------------------------------------------------------------
// Freeze-TCP
// ---------------------------------------------------------------------------------------------

#[test]
fn freeze_receiver_advertises_zero_window_then_three_reconnection_acks() {
    let conf = TcpConfig {
        freeze: FreezeParams::default(),
        delayed_ack: false,
        ..with_ext(ExtensionKind::Freeze)
    };
    let (mut c, _) = established(conf);
    let data = seg(TcpHeader { seq: S, ..S_TEMPL }, M as u32);
    assert_eq!(send(&mut c, T0, &data)[0].hdr.window, 65535);
    // The warning: a zero-window ACK at once.
    let out = notify(&mut c, T0 + ms(10), Notice::LinkDown);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].hdr.ack, out[0].hdr.window), (S + M, 0));
    // Data still in flight is accepted, and acknowledged with a zero window.
    let data2 = seg(
        TcpHeader {
            seq: S + M,
            ..S_TEMPL
        },
        M as u32,
    );
    let out = send(&mut c, T0 + ms(20), &data2);
    assert_eq!((out[0].hdr.ack, out[0].hdr.window), (S + 2 * M, 0));
    // Reconnection: three copies of the ACK of the last segment, window open.
    let out = notify(&mut c, T0 + secs(3), Notice::LinkUp);
    assert_eq!(out.len(), 3);
    assert!(out
        .iter()
        .all(|a| a.hdr.ack == S + 2 * M && a.hdr.window == 65535 && a.payload == 0));
}

#[test]
fn freeze_keeps_the_senders_cwnd_across_the_disconnection() {
    // The receiver freezes the sender by its window: persist with cwnd kept, then resumption at
    // the old cwnd on the reconnection ACKs. A standard receiver leaves the sender to time out.
    let run = |freeze: bool| {
        let exts = if freeze {
            vec![ExtensionKind::Freeze]
        } else {
            vec![]
        };
        let conf = TcpConfig {
            extensions: exts,
            initial_window: InitialWindow::Segments(4),
            delayed_ack: false,
            ..cfg()
        };
        let (mut c, mut s, mut w) = established_wire(conf.clone(), conf);
        let out = write_all(&mut s, T0);
        w.put(true, out);
        w.run(&mut c, &mut s, T0 + secs(1));
        // Predicted disconnection: the warning one RTT before the link goes.
        let mut out = vec![];
        c.notify(w.now, Notice::LinkDown, &mut out);
        w.put(false, out);
        w.run(&mut c, &mut s, T0 + ms(1100));
        let cwnd = s.cwnd();
        // The link is down for 10 s: everything is lost.
        w.drop = Box::new(|_, _| true);
        w.run(&mut c, &mut s, T0 + ms(11_100));
        w.drop = Box::new(|_, _| false);
        let mut out = vec![];
        c.notify(w.now, Notice::LinkUp, &mut out);
        w.put(false, out);
        w.run(&mut c, &mut s, T0 + ms(11_200));
        (cwnd, s.cwnd(), s.stats.timeouts)
    };
    let (before, after, timeouts) = run(true);
    assert!(before > 4000);
    assert!(after >= before && timeouts == 0);
    let (before, after, timeouts) = run(false);
    assert!(after < before && timeouts > 0);
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

#[test]
fn extension_parameters_are_checked() {
    let conf = TcpConfig {
        atcp: AtcpParams {
            timeout_threshold: 101,
            ..AtcpParams::default()
        },
        elfn: ElfnParams {
            probe_interval: SimTime::ZERO,
        },
        tcp_f: TcpFParams {
            failure_timer: secs(601),
        },
        freeze: FreezeParams {
            reconnection_acks: 0,
        },
        ..cfg()
    };
    let fields: Vec<_> = conf.check().into_iter().map(|e| e.0).collect();
    assert_eq!(
        fields,
        [
            "atcp.timeout_threshold",
            "elfn.probe_interval",
            "tcp_f.failure_timer",
            "freeze.reconnection_acks"
        ]
    );
    assert!(cfg().check().is_empty());
}
