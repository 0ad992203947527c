//! HyStart through the socket (docs/models/tcp.md, "HyStart"): the sender samples the RTT of
//! every ACK from its own send times (no timestamp option here), and each of the two tests ends
//! slow start only when it is switched on.

use super::*;
use crate::tcp::cc::HyStartExit;
use crate::tcp::config::{CcKind, HyStartDetect};

/// 40 segments sent at T0; their ACKs come one per segment, 0.5 ms apart from T0 + 20.5 ms.
/// Returns ssthresh afterwards and the recorded exits.
fn train(hystart: bool, detect: HyStartDetect) -> (u64, Vec<(SimTime, HyStartExit, u64)>) {
    let (mut s, out) = sending(TcpConfig {
        cc: CcKind::Cubic,
        hystart,
        hystart_detect: detect,
        initial_window: InitialWindow::Segments(40),
        ..cfg()
    });
    assert_eq!(out.len(), 40);
    for k in 1..=40 {
        send(
            &mut s,
            T0 + ms(20) + SimTime::from_micros(500 * k),
            &c_ack(S + k * M),
        );
    }
    (s.ssthresh(), s.hystart_exits().to_vec())
}

/// The minimum RTT is the first ACK's 20.5 ms; the train must outlast (20.5 + 1 ms cushion)/2 =
/// 10.75 ms: the 23rd ACK (11 ms after the first) ends slow start at 40 + 22 segments. All
/// samples belong to one round, whose smallest is the minimum, so the delay test alone never
/// fires, and nothing does without HyStart.
#[test]
fn an_ack_train_ends_slow_start_only_with_the_train_test() {
    let t = T0 + ms(20) + SimTime::from_micros(500 * 23);
    assert_eq!(
        train(true, HyStartDetect::Both),
        (62 * M, vec![(t, HyStartExit::AckTrain, 62 * M)])
    );
    assert_eq!(train(true, HyStartDetect::AckTrain).0, 62 * M);
    let unlimited = train(false, HyStartDetect::Both).0;
    assert!(unlimited > 1 << 40);
    assert_eq!(train(true, HyStartDetect::Delay), (unlimited, vec![]));
}

/// Two rounds: the first 20 segments' ACKs at 40 ms RTT, 3 ms apart (no train), then the 40
/// sent in answer acknowledged at 50 ms: above 40 + clamp(40/8, 4, 16) ms from the 9th sample
/// of the second round on. Only the delay test ends it.
#[test]
fn a_delay_rise_ends_slow_start_only_with_the_delay_test() {
    let run = |detect: HyStartDetect| {
        let (mut s, out) = sending(TcpConfig {
            cc: CcKind::Cubic,
            hystart: true,
            hystart_detect: detect,
            initial_window: InitialWindow::Segments(20),
            rcv_buf: 1 << 20,
            ..cfg()
        });
        assert_eq!(out.len(), 20);
        // Round 1: segment k (sent at T0) acknowledged at T0 + 40 ms + 3(k−1) ms; each ACK
        // releases two segments, sent at that moment.
        let mut sent: Vec<(u64, SimTime)> = Vec::new();
        for k in 1..=20u64 {
            let t = T0 + ms(40 + 3 * (k - 1));
            for sg in send(&mut s, t, &c_ack(S + k * M)) {
                sent.push((sg.hdr.seq + sg.payload as u64, t));
            }
        }
        // Round 2: each of those acknowledged 50 ms after it was sent.
        for (end, t) in sent {
            send(&mut s, t + ms(50), &c_ack(end));
        }
        s.hystart_exits().to_vec()
    };
    let exits = run(HyStartDetect::Both);
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0].1, HyStartExit::Delay);
    assert_eq!(run(HyStartDetect::Delay), exits);
    assert_eq!(run(HyStartDetect::AckTrain), vec![]);
}

/// Linux's per-ACK RTT (tcp_clean_rtx_queue's ca_rtt): the time since the newest segment the
/// ACK covers was sent, never a later one. Two segments at T0, the first acknowledged at
/// T0 + 40 ms (releasing two more at that moment), the second at T0 + 41.5 ms: its RTT is
/// 41.5 ms. Timed from the segments sent at 40 ms it would be 1.5 ms, and 1.5 ms of ACKs
/// would outlast half of (1.5 + 1 ms cushion): the train test would end slow start.
#[test]
fn an_acks_rtt_is_timed_from_the_segment_it_covers() {
    let (mut s, out) = sending(TcpConfig {
        cc: CcKind::Cubic,
        hystart: true,
        hystart_detect: HyStartDetect::AckTrain,
        hystart_low_window: 2,
        initial_window: InitialWindow::Segments(2),
        ..cfg()
    });
    assert_eq!(out.len(), 2);
    let released = send(&mut s, T0 + ms(40), &c_ack(S + M));
    assert_eq!(
        segs(&released),
        [(S + 2 * M, M as u32), (S + 3 * M, M as u32)]
    );
    send(&mut s, T0 + SimTime::from_micros(41_500), &c_ack(S + 2 * M));
    assert_eq!(s.hystart_exits(), []);
}

/// The per-ACK RTT times data only: a bare FIN carries none. One segment at T0, the FIN alone
/// at T0 + 39.5 ms; the segment's ACK at 40 ms (min RTT 40 ms), the FIN's at 43 ms. Timed from
/// the FIN, the last ACK would give a 3.5 ms minimum that 3 ms of train outlasts.
#[test]
fn a_bare_fin_gives_no_rtt_sample() {
    let (_, mut s) = established(TcpConfig {
        cc: CcKind::Cubic,
        hystart: true,
        hystart_detect: HyStartDetect::AckTrain,
        hystart_low_window: 2,
        hystart_ack_delta: ms(5),
        initial_window: InitialWindow::Segments(2),
        ..cfg()
    });
    assert_eq!(segs(&write(&mut s, T0, M)), [(S, M as u32)]);
    let mut out = vec![];
    s.shutdown(T0 + SimTime::from_micros(39_500), &mut out);
    assert_eq!(segs(&out), [(S + M, 0)]);
    send(&mut s, T0 + ms(40), &c_ack(S + M));
    send(&mut s, T0 + ms(43), &c_ack(S + M + 1));
    assert_eq!(s.hystart_exits(), []);
}
