//! What the socket reports about itself (`socket/mod.rs`'s observers), read off connections the
//! tests run: the run's summary, its time series and its error messages are built from these.

use super::*;

/// RFC 9293 §3.3.2's names, hyphens included (as smoltcp's `Display` prints them).
#[test]
fn states_print_as_rfc_9293_spells_them() {
    let names = [
        (State::Closed, "CLOSED"),
        (State::Listen, "LISTEN"),
        (State::SynSent, "SYN-SENT"),
        (State::SynReceived, "SYN-RECEIVED"),
        (State::Established, "ESTABLISHED"),
        (State::FinWait1, "FIN-WAIT-1"),
        (State::FinWait2, "FIN-WAIT-2"),
        (State::CloseWait, "CLOSE-WAIT"),
        (State::Closing, "CLOSING"),
        (State::LastAck, "LAST-ACK"),
        (State::TimeWait, "TIME-WAIT"),
    ];
    for (s, name) in names {
        assert_eq!(s.to_string(), name);
    }
}

/// `connected_at` is when each end reached ESTABLISHED (the summary's "never connected" reads
/// it): the client on the SYN-ACK at 100 ms, the server on the client's ACK at 150 ms; `config`
/// is the configuration the socket was built with (the summary's variant name and
/// retransmission limit).
#[test]
fn each_end_reports_when_it_connected_and_its_configuration() {
    let conf = TcpConfig {
        rcv_buf: 12_345,
        max_retransmissions: 7,
        ..cfg()
    };
    let (c, _) = syn_sent(conf.clone());
    assert_eq!(c.connected_at(), None);
    assert!(!c.is_established());
    let (c, s) = established(conf);
    assert_eq!(c.connected_at(), Some(ms(100)));
    assert_eq!(s.connected_at(), Some(T0));
    assert!(c.is_established() && s.is_established());
    for end in [&c, &s] {
        assert_eq!(end.config().rcv_buf, 12_345);
        assert_eq!(end.config().max_retransmissions, 7);
        assert_eq!(end.config().mss, 1000);
    }
}

/// Relative sequence numbers (bytes after each side's SYN, as Wireshark shows them; the
/// snd_nxt and rcv_nxt time series): three segments sent, two received.
#[test]
fn relative_sequence_numbers_count_from_after_the_syn() {
    let (mut c, mut s) = established(cfg());
    write(&mut s, T0, 3 * M);
    assert_eq!((s.snd_una_rel(), s.snd_nxt_rel()), (0, 3 * M));
    send(&mut c, T0 + D, &s_data(S));
    send(&mut c, T0 + D, &s_data(S + M));
    assert_eq!(c.rcv_nxt_rel(), 2 * M);
    send(&mut s, T0 + D + D, &c_ack(S + 2 * M));
    assert_eq!((s.snd_una_rel(), s.snd_nxt_rel()), (2 * M, 3 * M));
}

/// Adaptive TCP's loss events (the summary's per-loss table) come from its controller: one per
/// fast retransmit, none for any other controller.
#[test]
fn adaptive_tcp_reports_each_loss_event() {
    for (cc, events) in [(CcKind::Adaptive, 1), (CcKind::Reno, 0)] {
        let mut s = second_segment_lost_with(TcpConfig { cc, ..cfg() });
        assert!(s.adaptive_history().is_empty());
        for _ in 0..3 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        assert!(s.in_recovery());
        let history = s.adaptive_history();
        assert_eq!(history.len(), events, "{cc:?}");
        if let Some(ev) = history.first() {
            assert!(!ev.timeout);
            assert_eq!(ev.ssthresh, s.ssthresh() as f64 / M as f64);
        }
    }
}
