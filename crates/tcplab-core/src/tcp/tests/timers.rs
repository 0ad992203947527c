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
    let update = seg(
        TcpHeader {
            ack: S + 4 * M,
            window: 8000,
            ..C_TEMPL
        },
        0,
    );
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
