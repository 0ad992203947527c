//! Traces of the timer expiries (`socket/timers.rs`): the persist timer's FIN probe and its
//! expiry with nothing left to probe for, and the timeout reached through an extension's Release.

use super::*;

/// The FIN sent as the zero-window probe (`only_the_fin_left_behind_a_zero_window`).
fn fin_probed() -> Socket {
    let mut s = only_the_fin_left_behind_a_zero_window();
    let (_, probe) = fire(&mut s);
    assert_eq!(segs(&probe), [(S + 4 * M, 0)]);
    assert!(probe[0].hdr.flags.has(TcpFlags::FIN));
    s
}

/// RFC 9293 §3.8.6.1: the FIN probe is counted once, and the FIN is then in flight (snd_nxt is
/// past it): a window update that does not acknowledge it sends nothing, and the retransmission
/// timer, not another probe, sends it again.
#[test]
fn a_fin_probe_is_counted_and_leaves_the_fin_in_flight() {
    let mut s = fin_probed();
    assert_eq!(s.stats.window_probes, 1);
    let update = c_ack_window(S + 4 * M, 8000);
    assert!(send(&mut s, T0 + ms(700), &update).is_empty());
    assert!(!s.in_persist());
    let (_, rto) = fire(&mut s);
    assert_eq!(segs(&rto), [(S + 4 * M, 0)]);
    assert!(rto[0].hdr.flags.has(TcpFlags::FIN));
    assert_eq!((s.stats.timeouts, s.stats.window_probes), (1, 1));
}

/// An extension's Release runs the timeout's processing at once (ATCP leaving its Loss state);
/// with nothing outstanding there is nothing to time out: no timeout is counted, the window is
/// not cut and nothing is sent.
#[test]
fn a_release_with_nothing_outstanding_is_no_timeout() {
    let (_, mut s) = established(cfg());
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![(Notice::RouteFailure, Response::Release)],
        zero_window: false,
    }));
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    let mut out = Vec::new();
    s.notify(T0 + ms(10), Notice::RouteFailure, &mut out);
    assert!(out.is_empty());
    assert_eq!(s.stats.timeouts, 0);
    assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh));
    assert_eq!(s.poll_timeout(), None);
}

/// The persist timer probes only while data waits for the window: five segments written, four
/// sent and acknowledged with a zero window, so the persist timer runs for the fifth; an
/// extension's Resend then sends that segment into the window. When the timer fires nothing is
/// left to probe for, and it sends nothing (RFC 9293 §3.8.6.1 probes a window that holds data
/// back).
#[test]
fn the_persist_timer_sends_no_probe_once_the_waiting_data_is_sent() {
    let (_, mut s) = established(cfg());
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![(Notice::LinkUp, Response::Resend(Resend::Window))],
        zero_window: false,
    }));
    assert_eq!(write(&mut s, T0, 5 * M).len(), 4);
    send(&mut s, T0 + ms(100), &zero_window(S + 4 * M));
    assert!(s.in_persist());
    let mut out = Vec::new();
    s.notify(T0 + ms(150), Notice::LinkUp, &mut out);
    assert_eq!(segs(&out), [(S + 4 * M, M as u32)]);
    // The persist timer (T0 + 100 ms + RTO 250 ms) fires before the new RTO (T0 + 400 ms).
    let (t, probe) = fire(&mut s);
    assert_eq!(t, T0 + ms(350));
    assert!(probe.is_empty(), "{:?}", segs(&probe));
    assert_eq!(s.stats.window_probes, 0);
}

/// A SYN's retransmission timeouts count as timeouts, as the data's do (the statistic the
/// scenarios report).
#[test]
fn syn_timeouts_are_counted() {
    let (mut c, syn) = syn_sent(cfg());
    for k in 1..=3 {
        assert_eq!(fire(&mut c).1, syn);
        assert_eq!(c.stats.timeouts, k);
    }
}

/// RFC 5681 §3.1 eq. (4) outside a recovery: ssthresh = max(FlightSize/2, 2·SMSS) even below an
/// ssthresh that was already lower (KeepInRecovery keeps the lower one only inside an episode):
/// seven segments in flight over ssthresh 2000 give 3500.
#[test]
fn a_timeout_outside_recovery_sets_ssthresh_from_the_flight_even_above_the_old_one() {
    let (mut s, out) = sending(TcpConfig {
        initial_window: InitialWindow::Segments(7),
        initial_ssthresh: Some(2 * M),
        rto_ssthresh: RtoSsthresh::KeepInRecovery,
        ..cfg()
    });
    assert_eq!(out.len(), 7);
    fire(&mut s);
    assert_eq!((s.ssthresh(), s.cwnd()), (3500, M));
}

/// RFC 5682 §2: F-RTO does not start on a timeout inside fast recovery. Segment 1 is lost, three
/// duplicates start NewReno's recovery, then the timer expires; the ACK of the timeout's
/// retransmission is answered by conventional recovery (segment 2 again), not by F-RTO's two new
/// segments.
#[test]
fn no_frto_after_a_timeout_inside_fast_recovery() {
    let mut s = second_segment_lost_with(TcpConfig {
        frto: true,
        ..cfg()
    });
    for _ in 0..3 {
        send(&mut s, T0 + ms(150), &c_ack(S + M));
    }
    assert!(s.in_recovery());
    let (t, rto) = fire(&mut s);
    assert_eq!(segs(&rto), [(S + M, M as u32)]);
    let next = send(&mut s, t + ms(100), &c_ack(S + 2 * M));
    assert_eq!(segs(&next).first(), Some(&(S + 2 * M, M as u32)));
}

/// A peer whose SACK blocks cover everything outstanding (a receiver that reneges on them,
/// RFC 2018 §8, keeps ACKing below) still gets a retransmission at the timeout: the last byte
/// sent, the one unSACKed position the go-back-N may take (RFC 6675 §5.1 skips SACKed data).
#[test]
fn a_timeout_with_everything_sacked_retransmits_the_last_byte() {
    let (_, mut s) = established(sack_cfg());
    assert_eq!(write(&mut s, T0, 4 * M).len(), 4);
    send(&mut s, T0 + ms(100), &c_sack(S, &[(S, S + 4 * M)]));
    let (_, rto) = fire(&mut s);
    assert_eq!(segs(&rto), [(S + 4 * M - 1, 1)]);
    assert_eq!(s.stats.timeouts, 1);
}

/// The FIN goes with a timeout's retransmission only if it was sent before: four segments fill
/// the receiver's window with the FIN waiting behind them; the last segment is lost and the
/// first three acknowledged with room for one more segment only. The timeout retransmits the
/// fourth segment alone, without the FIN the window still holds back.
#[test]
fn a_timeout_retransmission_carries_no_fin_that_was_never_sent() {
    let mut s = four_segments_and_a_waiting_fin();
    let room_for_one = c_ack_window(S + 3 * M, 1000);
    assert!(send(&mut s, T0 + ms(100), &room_for_one).is_empty());
    let (_, rto) = fire(&mut s);
    assert_eq!(segs(&rto), [(S + 3 * M, M as u32)]);
    assert!(!rto[0].hdr.flags.has(TcpFlags::FIN));
}

/// ns-2.35's `dupack_action` (every Agent/TCP) calls `reset_rtx_timer(1,0)`: the fast
/// retransmit restarts the retransmission timer, one RTO from the retransmission. RFC 6298 (5.1)
/// leaves a running timer alone, so it expires one RTO after the last advancing ACK, sooner.
#[test]
fn ns2_fast_retransmit_restarts_the_retransmission_timer() {
    let trace = |restart: bool| {
        let (mut s, out) = sending(TcpConfig {
            initial_window: InitialWindow::Segments(10),
            initial_ssthresh: Some(10 * M),
            fast_retransmit_restarts_timer: restart,
            ..cfg()
        });
        assert_eq!(out.len(), 10);
        send(&mut s, T0 + ms(100), &c_ack(S + M));
        // Segment 2 lost: three duplicates, the third at 250 ms.
        for _ in 0..2 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        let fr = send(&mut s, T0 + ms(250), &c_ack(S + M));
        assert!(s.in_recovery());
        assert_eq!(segs(&fr).first(), Some(&(S + M, M as u32)));
        (s.poll_timeout().expect("armed"), s.rto())
    };
    let (deadline, rto) = trace(true);
    assert_eq!(deadline, T0 + ms(250) + rto);
    let (deadline, rto) = trace(false);
    assert_eq!(deadline, T0 + ms(100) + rto);
}
