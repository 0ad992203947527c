//! Vegas's modified retransmission through the socket (Brakmo & Peterson 1995 §3.1; ns-2.35
//! `tcp-vegas.cc`; docs/models/vegas_veno.md): the controller's fine-grained timer resends the
//! first unacknowledged segment on a duplicate ACK before three have arrived, and checks the
//! next head on the new ACKs after that retransmission. Each test also runs with
//! `vegas.fine_retransmit = false`, where the sender waits for DupThresh or the RTO.

use super::*;
use crate::tcp::cc::VegasParams;

/// Vegas with Reno recovery (as ns-2.35's Agent/TCP/Vegas) and `iw` segments sent at T0.
fn vegas(fine_retransmit: bool, iw: u32) -> (Socket, Vec<Segment>) {
    sending(TcpConfig {
        cc: CcKind::Vegas,
        recovery: Some(Variant::Reno),
        vegas: VegasParams {
            fine_retransmit,
            ..VegasParams::default()
        },
        initial_window: InitialWindow::Segments(iw),
        initial_ssthresh: Some(20 * M),
        ..cfg()
    })
}

fn resends(out: &[Segment], seq: u64) -> bool {
    out.iter().any(|s| s.hdr.seq == seq && s.payload > 0)
}

/// Three segments at T0, the second lost: the only duplicate ACKs are those of the third and
/// of the one segment the first ACK releases — two, never DupThresh. The first ACK (T0 + 100 ms)
/// is the first fine-grained sample, 100 ms: SA = 0.8 s, SD = 0.1 − 0.025 = 0.075 s, so the
/// timeout is (0.2 + 0.075)/2 · 17/16 = 146.09 ms after the head was sent (at T0). The second
/// duplicate at T0 + 146 ms finds it unexpired, at T0 + 147 ms expired.
#[test]
fn a_single_loss_is_resent_on_the_second_duplicate_once_its_fine_timer_expires() {
    let run = |fine: bool, second_dup: SimTime| {
        let (mut s, out) = vegas(fine, 3);
        assert_eq!(segs(&out), [(S, 1000), (S + M, 1000), (S + 2 * M, 1000)]);
        let out = send(&mut s, T0 + ms(100), &c_ack(S + M));
        assert_eq!(
            segs(&out),
            [(S + 3 * M, 1000)],
            "the first ACK releases one"
        );
        // The first duplicate (the third segment's) comes 101 ms after the head was sent.
        let out = send(&mut s, T0 + ms(101), &c_ack(S + M));
        assert!(!resends(&out, S + M) && !s.in_recovery());
        let out = send(&mut s, second_dup, &c_ack(S + M));
        (s, resends(&out, S + M))
    };
    // Expired at the second duplicate: resent at once, as a fast retransmit.
    let (s, resent) = run(true, T0 + ms(147));
    assert!(resent, "Vegas resends on the second duplicate ACK");
    assert!(s.in_recovery());
    assert_eq!(s.fine_retransmits(), [(T0 + ms(147), S + M)]);
    assert_eq!(s.fine_retransmit_count(), 1);
    assert!(
        s.early_fast_retransmits().is_empty(),
        "not an extension's count"
    );
    // Not yet expired 1 ms earlier.
    let (s, resent) = run(true, T0 + ms(146));
    assert!(!resent && !s.in_recovery());
    assert!(s.fine_retransmits().is_empty());
    // Switched off: two duplicates are not DupThresh; the loss waits for the coarse timer,
    // restarted by the first ACK (T0 + 100 ms + RTO 250 ms).
    let (mut s, resent) = run(false, T0 + ms(147));
    assert!(!resent && !s.in_recovery());
    let (at, out) = fire(&mut s);
    assert_eq!(at, T0 + ms(350));
    assert!(resends(&out, S + M));
    assert!(s.fine_retransmits().is_empty());
}

/// Four segments at T0, the second and third lost. The second duplicate (T0 + 200 ms) resends
/// the second segment; its ACK (T0 + 300 ms) is the first new ACK after that retransmission and
/// finds the third segment, sent at T0, past the fine-grained timeout (146.09 ms, × 9/8 after
/// the resend of a once-sent segment): it is resent at once, with no duplicate ACK.
#[test]
fn the_first_new_ack_after_a_retransmission_resends_an_expired_head() {
    let (mut s, out) = vegas(true, 4);
    assert_eq!(out.len(), 4);
    assert_eq!(
        segs(&send(&mut s, T0 + ms(100), &c_ack(S + M))),
        [(S + 4 * M, 1000)]
    );
    assert!(!resends(&send(&mut s, T0 + ms(101), &c_ack(S + M)), S + M));
    assert!(resends(&send(&mut s, T0 + ms(200), &c_ack(S + M)), S + M));
    let out = send(&mut s, T0 + ms(300), &c_ack(S + 2 * M));
    assert!(
        resends(&out, S + 2 * M),
        "the new head is resent: {:?}",
        segs(&out)
    );
    assert!(!s.in_recovery(), "Reno's episode ended with the new ACK");
    assert_eq!(
        s.fine_retransmits(),
        [(T0 + ms(200), S + M), (T0 + ms(300), S + 2 * M)]
    );
    assert_eq!(s.fine_retransmit_count(), 2);

    // Switched off the same losses see two duplicates only: nothing until the RTO.
    let (mut s, _) = vegas(false, 4);
    send(&mut s, T0 + ms(100), &c_ack(S + M));
    send(&mut s, T0 + ms(101), &c_ack(S + M));
    assert!(!resends(&send(&mut s, T0 + ms(200), &c_ack(S + M)), S + M));
    assert!(s.fine_retransmits().is_empty());
}
