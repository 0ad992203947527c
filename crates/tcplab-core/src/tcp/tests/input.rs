//! Segment arrival (`socket/input.rs`) rule by rule: what each kind of segment does to the state
//! machine, the send window and the receiver, at the edges of each rule.

use super::*;

/// RFC 9293 §3.10.7: a RST aborts a synchronized connection (no timer is left, nothing is
/// sent); a listener and a closed socket ignore it (§3.10.7.1–.2).
#[test]
fn a_reset_aborts_a_connection_but_not_a_listener() {
    let rst = seg(
        TcpHeader {
            flags: TcpFlags::RST,
            ..S_TEMPL
        },
        0,
    );
    let (mut c, mut s) = established(cfg());
    write(&mut s, T0, 3 * M);
    assert!(s.poll_timeout().is_some());
    assert!(send(&mut s, T0 + ms(10), &rst).is_empty());
    assert!(s.aborted());
    assert_eq!(s.state(), State::Closed);
    assert_eq!(s.poll_timeout(), None);
    // The closed socket ignores everything after, data included (no ACK for it).
    assert!(send(&mut s, T0 + ms(20), &c_ack(S + M)).is_empty());
    let data = seg(C_TEMPL, M as u32);
    assert!(send(&mut s, T0 + ms(30), &data).is_empty());
    // A RST carrying ACK is still a RST.
    let rst_ack = TcpFlags(TcpFlags::RST.0 | TcpFlags::ACK.0);
    send(
        &mut c,
        T0 + ms(10),
        &seg(
            TcpHeader {
                flags: rst_ack,
                ..S_TEMPL
            },
            0,
        ),
    );
    assert!(c.aborted());

    let mut l = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    l.listen();
    assert!(send(&mut l, ms(1), &rst).is_empty());
    assert!(!l.aborted());
    assert_eq!(l.state(), State::Listen);
    // The listener still accepts a SYN after it.
    assert_eq!(send(&mut l, ms(2), &seg(SYN_TEMPL, 0)).len(), 1);
    assert_eq!(l.state(), State::SynReceived);

    let mut closed = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    send(&mut closed, ms(1), &rst);
    assert!(!closed.aborted());
    assert_eq!(closed.state(), State::Closed);
    // A closed socket answers nothing, not even an ACK of data it never sent (§3.10.7.1 would
    // send a RST, which the model does not).
    assert!(send(&mut closed, ms(2), &c_ack(S + M)).is_empty());
}

/// RFC 9293 §3.10.7.2–.3: a listener takes only a SYN without ACK; a SYN-SENT socket only a
/// SYN-ACK acknowledging its SYN (ISS + 1). Anything else leaves the state; the RFC answers an
/// unacceptable ACK with a RST, which the model does not send, so nothing goes out.
#[test]
fn only_the_handshakes_own_segments_move_its_states() {
    let mut l = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    l.listen();
    for flags in [SYN_ACK, TcpFlags::ACK] {
        let wrong = seg(TcpHeader { flags, ..SYN_TEMPL }, 0);
        assert!(send(&mut l, ms(1), &wrong).is_empty());
        assert_eq!(l.state(), State::Listen);
    }
    let (mut c, _) = syn_sent(cfg());
    for (flags, ack) in [(SYN_ACK, C + 1), (SYN_ACK, C - 1), (TcpFlags::SYN, C)] {
        let wrong = seg(
            TcpHeader {
                flags,
                ack,
                ..SYNACK_TEMPL
            },
            0,
        );
        assert!(send(&mut c, ms(50), &wrong).is_empty());
        assert_eq!(c.state(), State::SynSent);
    }
    assert_eq!(send(&mut c, ms(60), &seg(SYNACK_TEMPL, 0)).len(), 1);
    assert_eq!(c.state(), State::Established);
    // In SYN-RECEIVED a segment without ACK is dropped (§3.10.7.4, fifth step): no second
    // SYN-ACK for it, unlike for a retransmitted SYN.
    let (mut s, _) = syn_received(cfg());
    let no_ack = seg(
        TcpHeader {
            flags: TcpFlags(0),
            ..C_TEMPL
        },
        100,
    );
    assert!(send(&mut s, ms(10), &no_ack).is_empty());
    assert_eq!(s.state(), State::SynReceived);
}

/// RFC 3168 §6.1.1: an ECN-setup SYN-ACK has ECE set and CWR clear, and a host sets ECT on its
/// data only after sending an ECN-setup SYN and receiving an ECN-setup SYN-ACK; a SYN-ACK with
/// both flags, or with neither, leaves the connection without ECN.
#[test]
fn ecn_needs_an_ecn_setup_syn_ack() {
    let conf = TcpConfig { ecn: true, ..cfg() };
    let ece = TcpFlags(SYN_ACK.0 | TcpFlags::ECE.0);
    let ece_cwr = TcpFlags(ece.0 | TcpFlags::CWR.0);
    for (flags, ecn) in [(ece, true), (ece_cwr, false), (SYN_ACK, false)] {
        let (mut c, _) = syn_sent(conf.clone());
        send(
            &mut c,
            ms(100),
            &seg(
                TcpHeader {
                    flags,
                    ..SYNACK_TEMPL
                },
                0,
            ),
        );
        assert_eq!(c.state(), State::Established);
        let data = write(&mut c, ms(100), M);
        assert_eq!(data[0].ect, ecn, "SYN-ACK flags {flags:?}");
    }
    // A client without the switch ignores the server's ECE.
    let (mut c, _) = syn_sent(cfg());
    send(
        &mut c,
        ms(100),
        &seg(
            TcpHeader {
                flags: ece,
                ..SYNACK_TEMPL
            },
            0,
        ),
    );
    assert!(!write(&mut c, ms(100), M)[0].ect);
}

/// RFC 9293 §3.10.7.4 (fifth step): the send window is taken from the newest segment — one with
/// a later sequence number than the last update's (SND.WL1), or the same one and an ACK at
/// least SND.WL2 — and never from an ACK below SND.UNA. The client's segments here carry 100
/// bytes of data each so that their sequence numbers differ.
#[test]
fn the_send_window_follows_the_newest_segment() {
    let (_c, mut s) = established(cfg());
    write(&mut s, T0, 4 * M);
    let from_client = |seq: u64, ack: u64, window: u32| {
        seg(
            TcpHeader {
                seq,
                ack,
                window,
                ..C_TEMPL
            },
            100,
        )
    };
    let t = T0 + ms(100);
    // A later sequence number (the handshake's ACK left SND.WL1 at C).
    send(&mut s, t, &from_client(C + 100, S + M, 30_000));
    assert_eq!(s.snd_wnd(), 30_000);
    // An earlier one (reordered) acknowledges new data but leaves the window.
    send(&mut s, t, &from_client(C, S + 2 * M, 10_000));
    assert_eq!(s.snd_wnd(), 30_000);
    assert_eq!(s.snd_una_rel(), 2 * M);
    // The same sequence number with an ACK below SND.UNA: an old ACK, the window stays.
    send(&mut s, t, &from_client(C + 100, S + M, 5_000));
    assert_eq!(s.snd_wnd(), 30_000);
    // The same sequence number with a newer ACK: the window is updated.
    send(&mut s, t, &from_client(C + 100, S + 2 * M, 12_000));
    assert_eq!(s.snd_wnd(), 12_000);
}

/// RFC 3168 §6.1.1 on the server's side: an ECN-setup SYN has both ECE and CWR; a SYN with one
/// of them, or a server without the switch, gives a SYN-ACK without ECE and data without ECT.
#[test]
fn a_server_answers_ecn_only_to_an_ecn_setup_syn() {
    let ecn = TcpConfig { ecn: true, ..cfg() };
    let ece = TcpFlags(TcpFlags::SYN.0 | TcpFlags::ECE.0);
    let cwr = TcpFlags(TcpFlags::SYN.0 | TcpFlags::CWR.0);
    let setup = TcpFlags(ece.0 | TcpFlags::CWR.0);
    for (conf, flags, on) in [
        (&ecn, setup, true),
        (&ecn, ece, false),
        (&ecn, cwr, false),
        (&cfg(), setup, false),
    ] {
        let mut s = Socket::new(conf.clone(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
        s.listen();
        let synack = send(&mut s, ms(0), &seg(TcpHeader { flags, ..SYN_TEMPL }, 0));
        assert_eq!(synack[0].hdr.flags.has(TcpFlags::ECE), on, "SYN {flags:?}");
        send(&mut s, ms(100), &c_ack(S));
        assert_eq!(s.state(), State::Established);
        assert_eq!(write(&mut s, ms(100), M)[0].ect, on, "SYN {flags:?}");
    }
}

/// With timestamps, an ACK echoing 0 gives no RTT sample (the echo of a peer that had no
/// TS.Recent; Linux likewise ignores a zero TSecr): SRTT stays at the handshake's 100 ms.
#[test]
fn an_ack_echoing_zero_gives_no_rtt_sample() {
    let conf = ts_cfg();
    let (mut s, _) = sending(conf);
    let ack = |ack, ecr| {
        seg(
            TcpHeader {
                ack,
                ts: Some((5000, ecr)),
                ..C_TEMPL
            },
            0,
        )
    };
    send(&mut s, T0 + ms(300), &ack(S + M, 0));
    assert_eq!(s.snd_una_rel(), M);
    assert_eq!(s.srtt(), Some(ms(100)));
    // The next ACK's echo (TSval 151 at 150 ms) gives R = 451 − 151 = 300 ms.
    send(&mut s, T0 + ms(300), &ack(S + 2 * M, 151));
    assert_eq!(s.srtt(), Some(SimTime(125_000_000)));
}

/// RFC 9293 §3.6 simultaneous close: a FIN arriving in FIN-WAIT-1 (ours not yet acknowledged)
/// leads to CLOSING, the ACK of our FIN then to TIME-WAIT; each FIN is acknowledged at once, and
/// a FIN that arrives again (our ACK of it lost) is acknowledged again at once.
#[test]
fn simultaneous_close_goes_through_closing() {
    let (mut c, _s) = established(cfg());
    let mut out = Vec::new();
    c.shutdown(T0, &mut out);
    assert_eq!(out.len(), 1);
    assert!(out[0].hdr.flags.has(TcpFlags::FIN));
    assert_eq!(c.state(), State::FinWait1);
    // The server's FIN, sent before ours arrived: it acknowledges nothing new.
    let fin = seg(
        TcpHeader {
            flags: FIN_ACK,
            ..S_TEMPL
        },
        0,
    );
    assert_eq!(
        send(&mut c, T0 + D, &fin),
        [seg(
            TcpHeader {
                seq: C + 1,
                ack: S + 1,
                ..C_TEMPL
            },
            0
        )]
    );
    assert_eq!(c.state(), State::Closing);
    assert!(c.peer_closed());
    // The server's FIN again: acknowledged again, nothing else changes.
    assert_eq!(send(&mut c, T0 + D + D, &fin).len(), 1);
    assert_eq!((c.state(), c.rcv_nxt_rel()), (State::Closing, 1));
    // The ACK of our FIN.
    let ack = seg(
        TcpHeader {
            seq: S + 1,
            ack: C + 1,
            ..S_TEMPL
        },
        0,
    );
    assert!(send(&mut c, T0 + D + D, &ack).is_empty());
    assert_eq!(c.state(), State::TimeWait);
    assert!(c.is_closed());
}

/// RFC 9293 §3.6: our side is closed once our FIN is acknowledged (FIN-WAIT-2, TIME-WAIT,
/// CLOSED), and not before: neither while established nor in FIN-WAIT-1, CLOSE-WAIT or LAST-ACK.
#[test]
fn a_socket_is_closed_only_once_its_fin_is_acknowledged() {
    let (mut c, mut s) = established(cfg());
    assert!(!c.is_closed() && !s.is_closed());
    // The client closes first: FIN-WAIT-1 until the server acknowledges the FIN.
    let mut fin_c = Vec::new();
    c.shutdown(T0, &mut fin_c);
    assert_eq!((c.state(), c.is_closed()), (State::FinWait1, false));
    let ack_of_fin_c = send(&mut s, T0 + D, &fin_c[0]);
    assert_eq!((s.state(), s.is_closed()), (State::CloseWait, false));
    assert!(send(&mut c, T0 + D + D, &ack_of_fin_c[0]).is_empty());
    assert_eq!((c.state(), c.is_closed()), (State::FinWait2, true));
    // The server closes its half: LAST-ACK until the client acknowledges its FIN.
    let mut fin_s = Vec::new();
    s.shutdown(T0 + D, &mut fin_s);
    assert_eq!((s.state(), s.is_closed()), (State::LastAck, false));
    let last_ack = send(&mut c, T0 + D + D, &fin_s[0]);
    assert_eq!((c.state(), c.is_closed()), (State::TimeWait, true));
    assert!(send(&mut s, T0 + D + D + D, &last_ack[0]).is_empty());
    assert_eq!((s.state(), s.is_closed()), (State::Closed, true));
}

/// Without timestamps one segment at a time is timed (RFC 6298 §3): an ACK gives a sample only
/// when it covers the timed segment. Of the first flight, segment 1 is timed; its ACK (at
/// 200 ms, R = 200 ms) starts the timing of segment 5, the first sent after it, so the ACK of
/// segment 2 gives no sample and the ACK of segment 5 the next one.
#[test]
fn only_the_ack_covering_the_timed_segment_gives_a_sample() {
    let (mut s, first) = sending(cfg());
    assert_eq!(first.len(), 4);
    let after_one = send(&mut s, T0 + ms(200), &c_ack(S + M));
    assert_eq!(after_one[0].hdr.seq, S + 4 * M);
    let srtt = SimTime(112_500_000);
    assert_eq!(s.srtt(), Some(srtt));
    send(&mut s, T0 + ms(210), &c_ack(S + 2 * M));
    assert_eq!(s.srtt(), Some(srtt));
    send(&mut s, T0 + ms(220), &c_ack(S + 3 * M));
    assert_eq!(s.srtt(), Some(srtt));
    // Segments 4 and 5 at once: R = 650 − 350 = 300 ms, SRTT = 7/8·112.5 + 300/8.
    send(&mut s, T0 + ms(500), &c_ack(S + 5 * M));
    assert_eq!(s.srtt(), Some(SimTime(135_937_500)));
}

/// RFC 5681 §2's duplicate ACK (without SACK): data outstanding, the ACK carries no data, neither
/// SYN nor FIN, acknowledges nothing new and advertises the window of the last ACK. Each
/// exception below leaves the duplicate count at zero; the plain duplicate then counts.
#[test]
fn what_counts_as_a_duplicate_ack() {
    // Idle: nothing outstanding, so an ACK of everything again is no duplicate.
    let (_c, mut s) = established(cfg());
    send(&mut s, T0, &c_ack(S));
    send(&mut s, T0, &c_ack(S));
    assert_eq!(s.stats.dupacks_received, 0);

    let (mut s, _) = sending(cfg());
    let t = T0 + ms(100);
    let same = |h: TcpHeader, payload: u32| seg(TcpHeader { ack: S, ..h }, payload);
    // (b) carrying data.
    send(&mut s, t, &same(C_TEMPL, 100));
    // (c) a FIN.
    let fin = TcpHeader {
        seq: C + 100,
        flags: FIN_ACK,
        ..C_TEMPL
    };
    send(&mut s, t, &same(fin, 0));
    // (e) another window (a window update).
    let smaller = TcpHeader {
        seq: C + 101,
        window: 30_000,
        ..C_TEMPL
    };
    send(&mut s, t, &same(smaller.clone(), 0));
    assert_eq!(s.stats.dupacks_received, 0);
    // The same window again: a duplicate.
    send(&mut s, t, &same(smaller, 0));
    assert_eq!(s.stats.dupacks_received, 1);
}

/// RFC 9293 §3.10.7.4: an ACK of something not yet sent (SEG.ACK > SND.NXT) is answered with an
/// ACK and otherwise ignored: it neither acknowledges data nor opens the window.
#[test]
fn an_ack_of_unsent_data_is_answered_and_ignored() {
    let (mut s, _) = sending(cfg());
    let beyond = c_ack_window(S + 5 * M, 1000);
    let out = send(&mut s, T0 + ms(100), &beyond);
    assert_eq!(
        out,
        [seg(
            TcpHeader {
                seq: S + 4 * M,
                ..S_TEMPL
            },
            0
        )]
    );
    assert_eq!((s.snd_una_rel(), s.snd_wnd()), (0, 65_535));
}

/// The FIN rides on the segment that ends at it, a retransmission of the head included (RFC
/// 9293 §3.10.4): the client's 8000-byte window holds back segment 9 until the first ACK, by
/// which time the FIN is queued and rides on it. Segments 2 and 9 are lost; NewReno's fast
/// retransmit resends segment 2, and the partial ACK up to segment 9 (RFC 6582 §3.2 step 3)
/// resends segment 9 with its FIN.
#[test]
fn the_fin_rides_on_a_retransmitted_head() {
    let ccfg = TcpConfig {
        rcv_buf: 8 * M,
        ..cfg()
    };
    let (_c, mut s) = established_with(
        ccfg,
        TcpConfig {
            variant: Some(Variant::NewReno),
            initial_window: InitialWindow::Segments(10),
            ..cfg()
        },
    );
    assert_eq!(write(&mut s, T0, 9 * M).len(), 8);
    let mut out = Vec::new();
    s.shutdown(T0, &mut out);
    assert!(out.is_empty());
    let fin_segment = seg(
        TcpHeader {
            seq: S + 8 * M,
            flags: TcpFlags(FIN_ACK.0 | TcpFlags::PSH.0),
            ..S_TEMPL
        },
        M as u32,
    );
    let t = T0 + ms(100);
    assert_eq!(
        send(&mut s, t, &c_ack(S + M)),
        std::slice::from_ref(&fin_segment)
    );
    let mut rtx = Vec::new();
    for _ in 3..=8 {
        rtx.extend(send(&mut s, t, &c_ack(S + M)));
    }
    assert_eq!(segs(&rtx), [(S + M, 1000)]);
    let rtx = send(&mut s, t + ms(100), &c_ack(S + 8 * M));
    assert_eq!(rtx, [fin_segment]);
    assert_eq!(s.state(), State::FinWait1);
}

/// FIN-WAIT-1 lasts until the FIN itself is acknowledged (RFC 9293 §3.10.7.4): an ACK of all
/// the data but not of the (bare) FIN sent after it leaves the state and the retransmission
/// timer, which then resends the FIN.
#[test]
fn fin_wait_1_ends_when_the_fin_is_acknowledged() {
    let (_c, mut s) = established(cfg());
    let mut out = write(&mut s, T0, M);
    s.shutdown(T0, &mut out);
    assert_eq!(segs(&out), [(S, 1000), (S + M, 0)]);
    assert!(out[1].hdr.flags.has(TcpFlags::FIN));
    send(&mut s, T0 + ms(100), &c_ack(S + M));
    assert_eq!(s.state(), State::FinWait1);
    let (_, rtx) = fire(&mut s);
    assert_eq!(
        rtx,
        [seg(
            TcpHeader {
                seq: S + M,
                flags: FIN_ACK,
                ..S_TEMPL
            },
            0
        )]
    );
    send(&mut s, T0 + secs(1), &c_ack(S + M + 1));
    assert_eq!(s.state(), State::FinWait2);
    assert_eq!(s.poll_timeout(), None);
}

/// RFC 3168 §6.1.2 names the sender's reaction to ECE; it applies only to a connection that
/// negotiated ECN (§6.1.1) and not inside a fast recovery, which has already reduced the window
/// for that window of data (§6.1.2: at most once per window). Neither case here reduces.
#[test]
fn ece_is_ignored_without_ecn_and_inside_fast_recovery() {
    let (mut s, _) = sending(TcpConfig {
        initial_window: InitialWindow::Segments(10),
        ..cfg()
    });
    let ssthresh = s.ssthresh();
    send(&mut s, T0 + ms(100), &ece(S + M));
    assert_eq!((s.stats.ecn_reductions, s.ssthresh()), (0, ssthresh));

    // Segment 1 of 10 is lost (an ECN connection).
    let (mut s, _) = sending(TcpConfig {
        ecn: true,
        variant: Some(Variant::NewReno),
        initial_window: InitialWindow::Segments(10),
        ..cfg()
    });
    for _ in 0..3 {
        send(&mut s, T0 + ms(100), &c_ack(S));
    }
    assert!(s.in_recovery());
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    send(&mut s, T0 + ms(110), &ece(S));
    assert_eq!(s.stats.ecn_reductions, 0);
    assert_eq!(s.ssthresh(), ssthresh);
    // The duplicate still inflates the window (RFC 6582), nothing more.
    assert_eq!(s.cwnd(), cwnd + M);
}

/// RFC 9293 §3.10.7.4 (first and seventh steps): the receiver keeps only the part of a segment
/// inside its window [RCV.NXT, RCV.NXT + RCV.WND): a duplicate's new tail is delivered, a
/// segment crossing the right edge is trimmed to it, and one wholly outside is acknowledged
/// and dropped. The client's 1500-byte buffer is not read by the application here.
#[test]
fn the_receiver_keeps_only_what_its_window_holds() {
    let (mut c, _) = established(TcpConfig {
        rcv_buf: 1500,
        delayed_ack: false,
        ..cfg()
    });
    c.auto_read = false;
    let data = |seq: u64, len: u32| seg(TcpHeader { seq, ..S_TEMPL }, len);
    let acked = |out: &[Segment]| out.iter().map(|a| a.hdr.ack).collect::<Vec<_>>();
    // 500 bytes, then a segment repeating them with 500 new ones after: 1000 delivered.
    assert_eq!(acked(&send(&mut c, T0, &data(S, 500))), [S + 500]);
    assert_eq!(acked(&send(&mut c, T0, &data(S, 1000))), [S + M]);
    assert_eq!(c.delivered(), 1000);
    // 500 bytes of window are left: a 1000-byte segment is trimmed to them.
    assert_eq!(acked(&send(&mut c, T0, &data(S + M, 1000))), [S + 1500]);
    assert_eq!(c.delivered(), 1500);
    // The window is closed: the next segment is acknowledged and dropped, so once the
    // application has made room it must come again (the one after it is held meanwhile).
    assert_eq!(acked(&send(&mut c, T0, &data(S + 1500, 500))), [S + 1500]);
    let mut out = Vec::new();
    c.read(T0, 1500, &mut out);
    assert_eq!(c.delivered(), 1500);
    assert_eq!(acked(&send(&mut c, T0, &data(S + 2000, 500))), [S + 1500]);
    assert_eq!(acked(&send(&mut c, T0, &data(S + 1500, 500))), [S + 2500]);
    assert_eq!(c.delivered(), 2500);
}

/// RFC 3168 §6.1.2: one reduction per window of data, the window being everything sent before
/// the reduction, a FIN included: after the first ECE, a second one acknowledging all the data
/// but not the FIN sent with it does not reduce again; one acknowledging the FIN would.
#[test]
fn the_ecn_window_ends_with_the_last_sequence_number_sent() {
    let conf = TcpConfig {
        ecn: true,
        initial_window: InitialWindow::Segments(10),
        ..cfg()
    };
    let (_c, mut s) = established(conf);
    let mut out = write(&mut s, T0, 4 * M);
    s.shutdown(T0, &mut out);
    assert_eq!(segs(&out).last(), Some(&(S + 4 * M, 0)));
    send(&mut s, T0 + ms(100), &ece(S + M));
    assert_eq!(s.stats.ecn_reductions, 1);
    send(&mut s, T0 + ms(100), &ece(S + 4 * M));
    assert_eq!(s.stats.ecn_reductions, 1);
    send(&mut s, T0 + ms(100), &ece(S + 4 * M + 1));
    assert_eq!(s.stats.ecn_reductions, 2);
}

/// RFC 9293 §3.10.7.4: a segment wholly beyond the receive window is not acceptable; it is
/// acknowledged at once and nothing of it is held (no SACK block reports it), and in-order data
/// after it is acknowledged as if it had never come.
#[test]
fn a_segment_beyond_the_window_is_acknowledged_and_not_held() {
    let (mut c, _) = established(sack_cfg());
    let far = s_data(S + 1000 * M);
    let out = send(&mut c, T0, &far);
    let acks: Vec<_> = out
        .iter()
        .map(|a| (a.hdr.ack, a.hdr.sack.as_slice()))
        .collect();
    assert_eq!(acks, [(S, &[][..])]);
    let out = send(&mut c, T0 + ms(10), &s_data(S));
    assert!(
        out.iter().all(|a| a.hdr.sack.as_slice().is_empty()),
        "{out:?}"
    );
    assert_eq!(c.delivered(), M);
}

/// RFC 9293 §3.10.7.4 seventh step: once the peer's FIN is in (CLOSE-WAIT), text beyond it is
/// ignored: not delivered, not held, not acknowledged; a duplicate of data before the FIN is
/// still answered with an ACK.
#[test]
fn text_after_the_peers_fin_is_ignored() {
    let (mut c, _) = established(sack_cfg());
    send(&mut c, T0, &s_data(S));
    let fin = seg(
        TcpHeader {
            seq: S + M,
            flags: FIN_ACK,
            ..S_TEMPL
        },
        0,
    );
    send(&mut c, T0 + ms(1), &fin);
    assert_eq!(c.state(), State::CloseWait);
    for seq in [S + M + 1, S + 3 * M] {
        let out = send(&mut c, T0 + ms(2), &s_data(seq));
        assert!(out.is_empty(), "{seq}: {:?}", segs(&out));
    }
    assert_eq!(c.delivered(), M);
    let out = send(&mut c, T0 + ms(3), &s_data(S));
    assert_eq!(
        out.iter().map(|a| a.hdr.ack).collect::<Vec<_>>(),
        [S + M + 1]
    );
}
