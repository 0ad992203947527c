//! Linux's quick-ACK receiver (`quickack`, docs/models/tcp.md "Quick-ACK mode") at the packet
//! level: which arriving segments the client ACKs at once. With the switch off the same traces
//! give RFC 5681's ACK for every second segment.

use super::*;

/// The client (1000-byte MSS) receives segment k of the server's data at `at(k)`, for k in
/// `ks`; returns the k after which it sent an ACK (and checks that ACK covers segment k).
fn acked(
    c: &mut Socket,
    ks: std::ops::RangeInclusive<u64>,
    at: impl Fn(u64) -> SimTime,
) -> Vec<u64> {
    let mut acked = Vec::new();
    for k in ks {
        let out = send(c, at(k), &s_data(S + (k - 1) * M));
        if !out.is_empty() {
            assert_eq!(out.last().unwrap().hdr.ack, S + k * M);
            acked.push(k);
        }
    }
    acked
}

fn client(quickack: bool, rcv_buf: u64) -> Socket {
    established(TcpConfig {
        quickack,
        rcv_buf,
        ..cfg()
    })
    .0
}

/// After segment `from` was ACKed: the ACK for every second segment up to `to`.
fn every_second(from: u64, to: u64) -> Vec<u64> {
    (from + 1..=to)
        .filter(|k| (k - from).is_multiple_of(2))
        .collect()
}

/// A 64 KiB window is 32 segments, half of it 16 = TCP_MAX_QUICKACKS: the first 16 segments are
/// ACKed one by one, then every second one. Off: every second from the first.
#[test]
fn the_first_sixteen_segments_are_acked_one_by_one() {
    let at = |k: u64| T0 + ms(100) + ms(k);
    let mut c = client(true, 65_535);
    let mut want: Vec<u64> = (1..=16).collect();
    want.extend(every_second(16, 30));
    assert_eq!(acked(&mut c, 1..=30, at), want);
    assert_eq!(
        acked(&mut client(false, 65_535), 1..=30, at),
        every_second(0, 30)
    );
}

/// The budget is the window in MSS/2: a 6000-byte window gives 3 quick ACKs.
#[test]
fn the_budget_is_half_the_window_in_segments() {
    let at = |k: u64| T0 + ms(100) + ms(k);
    let mut want = vec![1, 2, 3];
    want.extend(every_second(3, 12));
    assert_eq!(acked(&mut client(true, 6000), 1..=12, at), want);
}

/// After the budget is spent, a gap in the data longer than the RTO (300 ms here) grants it
/// again, and a duplicate segment (its ACK was lost) enters the mode again.
#[test]
fn idle_and_duplicates_reenter_quick_ack_mode() {
    let run = |quickack: bool| {
        let mut c = client(quickack, 6000);
        acked(&mut c, 1..=6, |k| T0 + ms(100) + ms(k));
        // A segment left waiting for the delayed-ACK timer is ACKed by it.
        if let Some(t) = c.poll_timeout() {
            assert_eq!(recv(&mut c, t).len(), 1);
        }
        let idle = T0 + secs(2);
        let after_idle = acked(&mut c, 7..=12, |k| idle + ms(k));
        // A copy of segment 12, whose ACK is still delayed: ACKed at once.
        assert_eq!(send(&mut c, idle + ms(13), &s_data(S + 11 * M)).len(), 1);
        let after_dup = acked(&mut c, 13..=18, |k| idle + ms(k + 1));
        (after_idle, after_dup)
    };
    assert_eq!(run(true), (vec![7, 8, 9, 11], vec![13, 14, 15, 17]));
    assert_eq!(run(false), (vec![8, 10, 12], vec![14, 16, 18]));
}

/// With autotuning the offered window climbs two MSS per segment towards the buffer's window
/// (Linux's rcv_ssthresh); each segment that raises it adds one quick ACK, so while it climbs
/// every segment is ACKed. A 4000-byte window gives 2 quick ACKs at the start; the receiver's
/// first RTT sample (one window's arrival, 4 ms at a segment per ms) lets the buffer grow.
#[test]
fn a_growing_window_is_acked_segment_by_segment() {
    let run = |quickack: bool, rcv_buf_autotune: bool| {
        let mut c = established(TcpConfig {
            quickack,
            rcv_buf: 4000,
            rcv_buf_autotune,
            ..cfg()
        })
        .0;
        let mut wnd = Vec::new();
        let mut ks = Vec::new();
        for k in 1..=30u64 {
            let out = send(&mut c, T0 + ms(100) + ms(k), &s_data(S + (k - 1) * M));
            if let Some(a) = out.last() {
                ks.push(k);
                wnd.push(a.hdr.window_field());
            }
        }
        (ks, wnd)
    };
    // The buffer's window grows to 8000 B (twice the 4 segments of a round) after segment 7:
    // segments 8 and 9 raise the offered window (window field in units of 64 B: 62, 93, 125)
    // and are ACKed at once, though segment 9 is the first of a pair.
    let mut want = vec![1, 2, 4, 6, 8, 9];
    want.extend(every_second(9, 30));
    let (ks, wnd) = run(true, true);
    assert_eq!(ks, want);
    assert_eq!(wnd[3..6], [62, 93, 125]);
    // A fixed window: the 2 start-up quick ACKs only; off: every second segment.
    let mut fixed = vec![1, 2];
    fixed.extend(every_second(2, 30));
    assert_eq!(run(true, false).0, fixed);
    assert_eq!(run(false, true).0, every_second(0, 30));
}

/// Linux's quick-ACK budget counts data segments only (`quickack.rs`): a bare FIN above a gap
/// is ACKed at once (RFC 5681 §4.2) without spending it, so with a 4000-byte buffer (budget
/// of two) the data after that FIN still gets the second quick ACK.
#[test]
fn a_bare_fin_spends_no_quick_ack() {
    let mut c = client(true, 4000);
    assert_eq!(send(&mut c, T0 + ms(1), &s_data(S)).len(), 1);
    let fin = seg(
        TcpHeader {
            seq: S + 3 * M,
            flags: FIN_ACK,
            ..S_TEMPL
        },
        0,
    );
    assert_eq!(send(&mut c, T0 + ms(2), &fin).len(), 1);
    let out = send(&mut c, T0 + ms(3), &s_data(S + M));
    assert_eq!(out.len(), 1, "the second quick ACK");
    assert_eq!(out[0].hdr.ack, S + 2 * M);
}

/// Linux grants the quick ACKs again after a gap in the data only when the gap is longer than
/// the RTO (tcp_event_data_recv's "too long gap", m > icsk_rto): after the budget of a 6000-byte
/// window is spent, a segment exactly one RTO (300 ms) after the last waits for its pair, one
/// arriving a millisecond later is ACKed at once.
#[test]
fn only_a_gap_longer_than_the_rto_reenters_quick_ack_mode() {
    let run = |gap: SimTime| {
        let mut c = client(true, 6000);
        assert_eq!(acked(&mut c, 1..=6, |k| T0 + ms(100 + k)), [1, 2, 3, 5]);
        let t = c.poll_timeout().expect("segment 6's delayed ACK");
        assert_eq!(recv(&mut c, t).len(), 1);
        assert_eq!(c.rto(), ms(300));
        acked(&mut c, 7..=7, |_| T0 + ms(106) + gap)
    };
    assert_eq!(run(ms(300)), Vec::<u64>::new());
    assert_eq!(run(ms(301)), [7]);
}
