//! F-RTO (RFC 5682) traces beyond the Linux profile's one (`linux.rs`): each branch of steps 2
//! and 3, on a connection whose ten segments went out at `T0` and whose RTO expired at
//! T0 + 300 ms, retransmitting segment 0.

use super::*;

/// Ten segments of `data` at `T0` (F-RTO on, SACK as `sack` says), then the timeout's
/// retransmission of segment 0.
fn timed_out(sack: bool, data: Option<u64>) -> Socket {
    let conf = TcpConfig {
        frto: true,
        initial_window: InitialWindow::Segments(10),
        ..if sack { sack_cfg() } else { cfg() }
    };
    let (_, mut s) = established(conf);
    let out = match data {
        Some(n) => write(&mut s, T0, n),
        None => write_all(&mut s, T0),
    };
    assert_eq!(out.len(), 10);
    let (t, rto) = fire(&mut s);
    assert_eq!((t, segs(&rto)), (T0 + ms(300), vec![(S, M as u32)]));
    s
}

/// Step 3a: the second ACK is a duplicate, so the loss was real: cwnd ≤ 3·SMSS (here the 2000
/// bytes slow start reached) and the retransmissions resume from snd_una; no undo. The same
/// with SACK when the duplicate brings no new SACK information.
#[test]
fn frto_a_duplicate_second_ack_means_the_loss_was_real() {
    for sack in [false, true] {
        let mut s = timed_out(sack, None);
        let first = send(&mut s, T0 + ms(310), &c_ack(S + M));
        assert_eq!(
            segs(&first),
            [(S + 10 * M, M as u32), (S + 11 * M, M as u32)]
        );
        let second = send(&mut s, T0 + ms(311), &c_ack(S + M));
        assert_eq!(s.cwnd(), 2 * M, "sack {sack}");
        assert_eq!(s.stats.undos, 0, "sack {sack}");
        assert_eq!(
            segs(&second).first(),
            Some(&(S + M, M as u32)),
            "sack {sack}"
        );
    }
}

/// The SACK-enhanced variant (RFC 5682 §3): a duplicate second ACK whose SACK block reports
/// data sent before the timeout and never retransmitted (segment 5) shows the timeout was
/// spurious; one that SACKs only step 2b's new segments (10 and 11) shows the loss was real, as a
/// plain duplicate does (the retransmissions resume from segment 1).
#[test]
fn frto_with_sack_only_data_sent_before_the_timeout_tells_it_spurious() {
    let second = |block: (u64, u64)| {
        let mut s = timed_out(true, None);
        send(&mut s, T0 + ms(310), &c_ack(S + M));
        let out = send(&mut s, T0 + ms(311), &c_sack(S + M, &[block]));
        (s.stats.undos, s.cwnd(), segs(&out).first().copied())
    };
    let (undos, cwnd, _) = second((S + 5 * M, S + 6 * M));
    assert_eq!(undos, 1);
    assert_eq!(cwnd, 10 * M, "the pre-timeout window");
    let real = (0, 2 * M, Some((S + M, M as u32)));
    assert_eq!(second((S + 10 * M, S + 12 * M)), real);
}

/// Step 2a: a first ACK that does not cover the whole retransmission, or that acknowledges
/// everything up to `recover`, leaves the timeout to conventional recovery: no new data in
/// answer, and no undo on the next ACK. Step 2b: one beyond the retransmission (segment 1
/// acknowledged too) does get the two new segments.
#[test]
fn frto_step_two_needs_an_ack_covering_the_retransmission_and_not_all() {
    // Half of segment 0: go-back-N resumes inside it.
    let mut s = timed_out(false, None);
    let out = send(&mut s, T0 + ms(310), &c_ack(S + M / 2));
    assert!(
        segs(&out).iter().all(|&(q, _)| q < S + 10 * M),
        "{:?}",
        segs(&out)
    );
    send(&mut s, T0 + ms(311), &c_ack(S + 2 * M));
    assert_eq!(s.stats.undos, 0);
    // Everything up to recover: nothing left for F-RTO to decide.
    let mut s = timed_out(false, None);
    send(&mut s, T0 + ms(310), &c_ack(S + 10 * M));
    send(&mut s, T0 + ms(311), &c_ack(S + 11 * M));
    assert_eq!(s.stats.undos, 0);
    // Segments 0 and 1: the two new segments of step 2b, then the undo of step 3b.
    let mut s = timed_out(false, None);
    let out = send(&mut s, T0 + ms(310), &c_ack(S + 2 * M));
    assert_eq!(segs(&out), [(S + 10 * M, M as u32), (S + 11 * M, M as u32)]);
    send(&mut s, T0 + ms(311), &c_ack(S + 3 * M));
    assert_eq!(s.stats.undos, 1);
}

/// Step 2b without new data to send (the application wrote exactly the ten segments): F-RTO
/// gives way to conventional recovery, which retransmits segment 1 at once.
#[test]
fn frto_without_new_data_is_conventional_recovery() {
    let mut s = timed_out(false, Some(10 * M));
    let out = send(&mut s, T0 + ms(310), &c_ack(S + M));
    assert_eq!(segs(&out).first(), Some(&(S + M, M as u32)));
    send(&mut s, T0 + ms(311), &c_ack(S + 2 * M));
    assert_eq!(s.stats.undos, 0);
}
