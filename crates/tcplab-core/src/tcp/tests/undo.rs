//! What an undo restores (docs/models/tcp.md, "Undo"): Linux's prior ssthresh is
//! tcp_current_ssthresh(), max(ssthresh, ¾·cwnd) outside a cwnd reduction, not ssthresh alone.

use super::*;

/// A sender in congestion avoidance (cwnd 10 segments, ssthresh 6) with DSACK and undo, whose
/// first segment is reordered: three SACKs of the segments after it start a fast recovery.
fn reordered_into_recovery() -> Socket {
    let (mut s, out) = sending(TcpConfig {
        dsack: true,
        undo: true,
        initial_ssthresh: Some(6 * M),
        ..sack_cfg()
    });
    assert_eq!(out.len(), 10);
    for k in 2..5 {
        send(&mut s, T0 + ms(100), &c_sack(S, &[(S + M, S + k * M)]));
    }
    s
}

/// In congestion avoidance (cwnd 10 segments above ssthresh 6), a reordered segment starts a
/// spurious fast recovery whose DSACK undoes it: ssthresh comes back as max(6, ¾·10) = 7.5
/// segments, cwnd as 10.
#[test]
fn an_undo_in_avoidance_restores_three_quarters_of_cwnd_as_ssthresh() {
    let mut s = reordered_into_recovery();
    assert!(s.in_recovery() && s.ssthresh() < 6 * M);
    send(&mut s, T0 + ms(101), &c_ack(S + 4 * M));
    send(&mut s, T0 + ms(102), &c_ack(S + 10 * M));
    let cwnd = s.cwnd();
    send(&mut s, T0 + ms(150), &c_sack(S + 10 * M, &[(S, S + M)]));
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ssthresh(), 7_500);
    assert_eq!(s.cwnd(), cwnd.max(10 * M));
}

/// The client's ACK of everything below `ack`, echoing `ecr` (RFC 7323).
fn c_ack_ts(ack: u64, ecr: u32) -> Segment {
    seg(
        TcpHeader {
            ack,
            ts: Some((1, ecr)),
            ..C_TEMPL
        },
        0,
    )
}

/// Ten segments at T0 (TSval 151), no ACK until the RTO at T0 + 300 ms retransmits segment 0
/// (TSval 451). The ACK that then arrives echoes 151: it acknowledges the original, so the
/// timeout was spurious (RFC 3522) and with `timestamp_undo` its reduction is undone at once; an
/// echo of 451 (the retransmission got through) changes nothing, nor does the switch off.
#[test]
fn eifel_undoes_a_timeout_whose_ack_echoes_the_original() {
    let trace = |timestamp_undo: bool, ecr: u32| {
        let (mut s, out) = sending(TcpConfig {
            timestamps: true,
            timestamp_undo,
            initial_window: InitialWindow::Segments(10),
            ..cfg()
        });
        assert_eq!(out.len(), 10);
        assert_eq!(out[0].hdr.ts.map(|t| t.0), Some(151));
        let (t, rto) = fire(&mut s);
        assert_eq!((t, segs(&rto)), (T0 + ms(300), vec![(S, M as u32)]));
        assert_eq!(rto[0].hdr.ts.map(|t| t.0), Some(451));
        let next = send(&mut s, T0 + ms(310), &c_ack_ts(S + M, ecr));
        (s.cwnd(), s.stats.undos, segs(&next))
    };
    // Undone: cwnd back to 10 segments, and new data (not segment 1 again) goes out.
    let (cwnd, undos, next) = trace(true, 151);
    assert_eq!((cwnd, undos), (11 * M, 1));
    assert_eq!(next.first(), Some(&(S + 10 * M, M as u32)));
    // The retransmission's own echo, or the switch off: go-back-N from segment 1.
    for (on, ecr) in [(true, 451), (false, 151)] {
        let (cwnd, undos, next) = trace(on, ecr);
        assert_eq!((cwnd, undos), (2 * M, 0), "{on} {ecr}");
        assert_eq!(next.first(), Some(&(S + M, M as u32)), "{on} {ecr}");
    }
}

/// A timeout inside a fast recovery keeps the recovery's saved cwnd and ssthresh (Linux saves
/// them again only outside a recovery in progress): segment 0 is reordered, fast-retransmitted,
/// then retransmitted again by the RTO; when both retransmissions are DSACKed the pre-recovery
/// window (10 segments, ssthresh max(6, ¾·10) = 7.5) comes back, not the recovery's.
#[test]
fn a_timeout_inside_recovery_keeps_the_recoverys_undo_state() {
    let mut s = reordered_into_recovery();
    assert!(s.in_recovery() && s.stats.retransmissions == 1);
    while s.stats.timeouts == 0 {
        fire(&mut s);
    }
    assert_eq!(s.stats.retransmissions, 2);
    let t = s.poll_timeout().expect("armed") - ms(1);
    send(&mut s, t, &c_ack(S + 10 * M));
    send(&mut s, t, &c_sack(S + 10 * M, &[(S, S + M)]));
    assert_eq!(s.stats.undos, 0, "one retransmission is not yet DSACKed");
    send(&mut s, t, &c_sack(S + 10 * M, &[(S, S + M)]));
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ssthresh(), 7_500);
    assert!(s.cwnd() >= 10 * M, "{}", s.cwnd());
}

/// A sender with timestamps and Eifel detection (`timestamp_undo`) that sent ten segments at
/// `T0` (TSval 151).
fn ten_segments_with_eifel() -> Socket {
    let (s, out) = sending(TcpConfig {
        timestamps: true,
        timestamp_undo: true,
        initial_window: InitialWindow::Segments(10),
        ..cfg()
    });
    assert_eq!(out.len(), 10);
    s
}

/// RFC 5681 §3.1 holds ssthresh when the same segment times out again, and the undo keeps the
/// window from before the first timeout: two timeouts of segment 0, then an ACK echoing the
/// original's TSval (RFC 3522) restores the ten segments of before, not the one of the first
/// timeout's loss window.
#[test]
fn eifel_after_two_timeouts_restores_the_window_of_before_the_first() {
    let mut s = ten_segments_with_eifel();
    let ssthresh = s.ssthresh();
    fire(&mut s);
    let (t, second) = fire(&mut s);
    assert_eq!(segs(&second), [(S, M as u32)]);
    assert_eq!(s.stats.timeouts, 2);
    send(&mut s, t + ms(10), &c_ack_ts(S + M, 151));
    assert_eq!(s.stats.undos, 1);
    assert_eq!((s.cwnd(), s.ssthresh()), (11 * M, ssthresh));
}

/// A SACK sender with D-SACK and undo that sent ten segments at `T0` (slow start, ssthresh
/// unbounded).
fn ten_segments_with_dsack_undo() -> Socket {
    let (s, out) = sending(TcpConfig {
        dsack: true,
        undo: true,
        ..sack_cfg()
    });
    assert_eq!(out.len(), 10);
    s
}

/// RFC 3708 §3 counts only the episode's own retransmissions: segment 0 is acknowledged, then
/// segment 1 is reordered behind 2..4 and fast-retransmitted. A D-SACK of segment 0 (data
/// acknowledged before the episode began) says nothing about the episode and undoes nothing;
/// the D-SACK of segment 1 then does.
#[test]
fn a_dsack_of_data_from_before_the_episode_undoes_nothing() {
    let mut s = ten_segments_with_dsack_undo();
    send(&mut s, T0 + ms(100), &c_ack(S + M));
    for k in 3..6 {
        send(
            &mut s,
            T0 + ms(100),
            &c_sack(S + M, &[(S + 2 * M, S + k * M)]),
        );
    }
    assert!(s.in_recovery() && s.stats.retransmissions == 1);
    send(&mut s, T0 + ms(101), &c_sack(S + 5 * M, &[(S, S + M)]));
    assert_eq!(s.stats.undos, 0);
    send(
        &mut s,
        T0 + ms(102),
        &c_sack(S + 5 * M, &[(S + M, S + 2 * M)]),
    );
    assert_eq!(s.stats.undos, 1);
}

/// One D-SACK block may report several retransmissions (RFC 2883 §4): segments 0 and 1 are
/// both reordered behind 2..4, both retransmitted, and one D-SACK of the two undoes the episode.
#[test]
fn one_dsack_of_two_retransmitted_segments_undoes_the_episode() {
    let mut s = ten_segments_with_dsack_undo();
    // Three SACKs start the recovery and retransmit segment 0; segment 1 goes once pipe has
    // fallen below cwnd (RFC 6675 §5 NextSeg, rule 1: it is lost with three segments above).
    let mut k = 3;
    while s.stats.retransmissions < 2 {
        assert!(k <= 10, "segment 1 never retransmitted");
        send(&mut s, T0 + ms(100), &c_sack(S, &[(S + 2 * M, S + k * M)]));
        k += 1;
    }
    assert!(s.in_recovery());
    send(&mut s, T0 + ms(101), &c_sack(S + 10 * M, &[(S, S + 2 * M)]));
    assert_eq!(s.stats.undos, 1);
}

/// Each episode keeps its own undo state: an undo state left by an earlier episode that ended
/// without a D-SACK (its loss was real) is replaced when the next episode begins. Episode 1:
/// segment 0 is lost, SACKs of 1..3 start a recovery, its retransmission is acknowledged with
/// everything else. Episode 2: of five new segments the first is reordered behind the next
/// three; the D-SACK of its retransmission undoes episode 2, whose only retransmission it was.
#[test]
fn a_new_episode_replaces_the_undo_state_of_an_earlier_one() {
    let (_, mut s) = established(TcpConfig {
        dsack: true,
        undo: true,
        initial_window: InitialWindow::Segments(10),
        ..sack_cfg()
    });
    assert_eq!(write(&mut s, T0, 10 * M).len(), 10);
    for k in 2..5 {
        send(&mut s, T0 + ms(100), &c_sack(S, &[(S + M, S + k * M)]));
    }
    assert!(s.in_recovery());
    send(&mut s, T0 + ms(200), &c_ack(S + 10 * M));
    assert!(!s.in_recovery());
    let second = write(&mut s, T0 + ms(200), 10 * M);
    assert_eq!(segs(&second).first(), Some(&(S + 10 * M, M as u32)));
    assert!(second.len() >= 4, "{}", second.len());
    for k in 12..15 {
        send(
            &mut s,
            T0 + ms(300),
            &c_sack(S + 10 * M, &[(S + 11 * M, S + k * M)]),
        );
    }
    assert!(s.in_recovery());
    assert_eq!(s.stats.retransmissions, 2);
    send(&mut s, T0 + ms(301), &c_ack(S + 14 * M));
    send(
        &mut s,
        T0 + ms(302),
        &c_sack(S + 14 * M, &[(S + 10 * M, S + 11 * M)]),
    );
    assert_eq!(s.stats.undos, 1);
}

/// Eifel detection (RFC 3522) only with its switch: a connection with timestamps and the
/// D-SACK undo, but not `timestamp_undo`, keeps a spurious timeout's reduction when the ACK
/// echoes the original's TSval (it waits for a D-SACK).
#[test]
fn no_eifel_undo_without_its_switch() {
    let (mut s, out) = sending(TcpConfig {
        timestamps: true,
        dsack: true,
        undo: true,
        initial_window: InitialWindow::Segments(10),
        ..sack_cfg()
    });
    assert_eq!(out.len(), 10);
    let (t, rto) = fire(&mut s);
    assert_eq!(segs(&rto), [(S, M as u32)]);
    send(&mut s, t + ms(10), &c_ack_ts(S + M, 151));
    assert_eq!((s.stats.undos, s.cwnd()), (0, 2 * M));
}

/// Eifel in fast recovery (RFC 3522 §3.2 applies to any retransmission): segment 0 is reordered
/// behind three others, fast-retransmitted at T0 + 100 ms (TSval 251), and then acknowledged by
/// an ACK echoing the original's TSval (151): the fast retransmit was spurious, ssthresh and
/// cwnd come back and NewReno's recovery ends there (its partial-ACK rule would shrink the
/// restored window).
#[test]
fn eifel_undoes_a_spurious_fast_retransmit() {
    let mut s = ten_segments_with_eifel();
    let (ssthresh, cwnd) = (s.ssthresh(), s.cwnd());
    for _ in 0..3 {
        send(&mut s, T0 + ms(100), &c_ack_ts(S, 151));
    }
    assert!(s.in_recovery());
    assert_eq!(s.stats.retransmissions, 1);
    send(&mut s, T0 + ms(110), &c_ack_ts(S + 4 * M, 151));
    assert_eq!((s.stats.undos, s.ssthresh()), (1, ssthresh));
    assert!(!s.in_recovery(), "the spurious episode ended");
    assert!(
        s.cwnd() >= cwnd,
        "cwnd {} after the undo, {cwnd} before",
        s.cwnd()
    );
}

/// Eifel's ACK must acknowledge the retransmitted data itself (RFC 3522 §3.2): SACK blocks of
/// everything outstanding leave the last byte as the timeout's retransmission; an ACK up to
/// that byte, echoing the original TSval, does not cover it and undoes nothing, one beyond it
/// does.
#[test]
fn eifel_needs_the_ack_to_cover_the_retransmission() {
    let (_, mut s) = established(TcpConfig {
        timestamps: true,
        timestamp_undo: true,
        ..sack_cfg()
    });
    assert_eq!(write(&mut s, T0, 4 * M).len(), 4);
    let mut all_sacked = c_sack(S, &[(S, S + 4 * M)]);
    all_sacked.hdr.ts = Some((1, 151));
    send(&mut s, T0 + ms(100), &all_sacked);
    let (t, rto) = fire(&mut s);
    assert_eq!(segs(&rto), [(S + 4 * M - 1, 1)]);
    send(&mut s, t + ms(10), &c_ack_ts(S + 4 * M - 1, 151));
    assert_eq!(s.stats.undos, 0);
    send(&mut s, t + ms(20), &c_ack_ts(S + 4 * M, 151));
    assert_eq!(s.stats.undos, 1);
}
