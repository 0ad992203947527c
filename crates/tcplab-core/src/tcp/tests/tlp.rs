//! Tail loss probe traces beyond the Linux profile's two (`linux.rs`): when RFC 8985 §7.2 allows
//! no probe even though the probe timer was armed.

use super::linux::rack_cfg;
use super::*;

/// RACK with TLP; ten segments at `T0`, the first eight acknowledged at T0 + 100 ms: the probe
/// timer is armed for T0 + 300 ms (2·SRTT), before the RTO (T0 + 350 ms).
fn tail_outstanding(answers: Vec<(Notice, Response)>) -> Socket {
    let (_, mut s) = established(TcpConfig {
        tlp: true,
        ..rack_cfg()
    });
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers,
        zero_window: false,
    }));
    assert_eq!(write(&mut s, T0, 10 * M).len(), 10);
    send(&mut s, T0 + ms(100), &c_ack(S + 8 * M));
    assert_eq!(s.poll_timeout(), Some(T0 + ms(300)));
    s
}

/// A frozen sender sends no probe (§7.2 probes only a sender that may transmit): the freeze
/// stops the retransmission timer, and the probe timer that was already armed finds the
/// sender frozen when it expires.
#[test]
fn a_frozen_sender_sends_no_tail_loss_probe() {
    let mut s = tail_outstanding(vec![(Notice::RouteFailure, Response::Freeze)]);
    let mut out = Vec::new();
    s.notify(T0 + ms(150), Notice::RouteFailure, &mut out);
    assert!(s.is_frozen() && out.is_empty());
    let probe = recv(&mut s, T0 + ms(300));
    assert!(probe.is_empty(), "{:?}", segs(&probe));
    assert_eq!(s.stats.tail_loss_probes, 0);
}

/// The probe timer restarts after new data, not after a retransmission (RFC 8985 §7.2): the
/// head resent by a frozen sender (ELFN's stand-by probe) leaves the timer armed before the
/// freeze running, so a sender unfrozen before it expires still probes its tail then.
#[test]
fn a_retransmission_does_not_restart_the_probe_timer() {
    let mut s = tail_outstanding(vec![
        (Notice::RouteFailure, Response::Freeze),
        (Notice::LinkDown, Response::Resend(Resend::Head)),
        (Notice::RouteReestablished, Response::Unfreeze),
    ]);
    let mut out = Vec::new();
    s.notify(T0 + ms(150), Notice::RouteFailure, &mut out);
    s.notify(T0 + ms(200), Notice::LinkDown, &mut out);
    assert_eq!(segs(&out), [(S + 8 * M, M as u32)], "the head resent");
    out.clear();
    s.notify(T0 + ms(250), Notice::RouteReestablished, &mut out);
    assert!(!s.is_frozen() && out.is_empty(), "{:?}", segs(&out));
    let (t, probe) = fire(&mut s);
    assert_eq!(t, T0 + ms(300));
    assert_eq!(
        segs(&probe),
        [(S + 9 * M, M as u32)],
        "the last segment sent"
    );
    assert_eq!(s.stats.tail_loss_probes, 1);
}

/// With nothing outstanding there is no tail to probe (§7.2): routing learns that the receiver
/// has all ten segments (an AckLearned notice, TCP-pgy), which acknowledges them; the probe
/// timer armed before expires and sends nothing.
#[test]
fn no_tail_loss_probe_once_everything_is_acknowledged() {
    let learned = Notice::AckLearned(S + 10 * M);
    let mut s = tail_outstanding(vec![(learned, Response::AdvanceAck(S + 10 * M))]);
    let mut out = Vec::new();
    s.notify(T0 + ms(150), learned, &mut out);
    assert!(out.is_empty());
    while let Some(t) = s.poll_timeout() {
        let probe = recv(&mut s, t);
        assert!(probe.is_empty(), "{:?}", segs(&probe));
    }
    assert_eq!(s.stats.tail_loss_probes, 0);
}

/// RFC 8985 §7.3: when the receive window allows, the probe is a new segment (cwnd is not
/// consulted), one MSS long; its ACK, acknowledging new data, is no sign of a loss.
#[test]
fn the_probe_is_new_data_when_the_window_allows() {
    let (_, mut s) = established(TcpConfig {
        tlp: true,
        ..rack_cfg()
    });
    assert_eq!(write_all(&mut s, T0).len(), 10);
    let more = send(&mut s, T0 + ms(100), &c_ack(S + 8 * M));
    let next = S + (10 + more.len() as u64) * M;
    let (t, probe) = fire(&mut s);
    assert_eq!(t, T0 + ms(300));
    assert_eq!(segs(&probe), [(next, M as u32)]);
    assert_eq!(s.stats.tail_loss_probes, 1);
    send(&mut s, t + ms(100), &c_ack(next + M));
    assert_eq!((s.stats.tlp_recoveries, s.stats.timeouts), (0, 0));
}

/// RFC 8985 §7.4.1: only a D-SACK of the probe itself (ending at TLP.end_seq) shows the
/// retransmitted probe was redundant. The last of ten segments is lost and probed; the ACK of
/// the eleventh segment, beyond the probe, carries a D-SACK of segment 5 (an unrelated
/// duplicate): the probe repaired a loss, and congestion control reacts (§7.4.2).
#[test]
fn a_dsack_of_another_segment_does_not_make_the_probe_redundant() {
    let (_, mut s) = established(TcpConfig {
        tlp: true,
        ..rack_cfg()
    });
    write(&mut s, T0, 10 * M);
    send(&mut s, T0 + ms(100), &c_ack(S + 9 * M));
    let (t, probe) = fire(&mut s);
    assert_eq!(segs(&probe), [(S + 9 * M, M as u32)]);
    send(&mut s, t + ms(100), &c_ack(S + 10 * M));
    write(&mut s, t + ms(100), M);
    send(
        &mut s,
        t + ms(200),
        &c_sack(S + 11 * M, &[(S + 5 * M, S + 6 * M)]),
    );
    assert_eq!(s.stats.tlp_recoveries, 1);
    assert_eq!(s.cwnd(), s.ssthresh());
}
