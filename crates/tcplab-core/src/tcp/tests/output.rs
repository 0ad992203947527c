//! What the socket sends (`socket/output.rs`): the options and counters of each segment it
//! builds, rule by rule.

use super::*;

/// RFC 2018 §3: with the timestamps option an ACK has room for three SACK blocks, and a D-SACK
/// (RFC 2883 §4) is one of them: a duplicate of segment 0 arriving while segments 2, 4 and 6
/// are held is reported first, followed by the two most recent blocks only.
#[test]
fn a_dsack_takes_one_of_the_three_blocks_timestamps_leave() {
    let (mut c, _) = established(TcpConfig {
        dsack: true,
        timestamps: true,
        delayed_ack: false,
        ..sack_cfg()
    });
    let reply = |c: &mut Socket, seq: u64| {
        let out = send(c, T0, &s_data(seq));
        out.last().expect("an ACK").hdr.sack.as_slice().to_vec()
    };
    for k in [0, 2, 4] {
        reply(&mut c, S + k * M);
    }
    let held = [
        (S + 6 * M, S + 7 * M),
        (S + 4 * M, S + 5 * M),
        (S + 2 * M, S + 3 * M),
    ];
    assert_eq!(reply(&mut c, S + 6 * M), held);
    assert_eq!(
        reply(&mut c, S),
        [(S, S + M), (S + 6 * M, S + 7 * M), (S + 4 * M, S + 5 * M)]
    );
}

/// `acks_sent` counts pure ACKs (no payload): the receiver's three immediate ACKs, none of the
/// sender's data segments although each carries the ACK flag.
#[test]
fn only_segments_without_data_count_as_acks_sent() {
    let (mut c, mut s) = established(TcpConfig {
        delayed_ack: false,
        ..cfg()
    });
    let (c0, s0) = (c.stats.acks_sent, s.stats.acks_sent);
    let data = write(&mut s, T0, 3 * M);
    assert_eq!(data.len(), 3);
    assert!(data.iter().all(|d| d.hdr.flags.has(TcpFlags::ACK)));
    for d in &data {
        assert_eq!(send(&mut c, T0 + D, d).len(), 1);
    }
    assert_eq!(s.stats.acks_sent - s0, 0);
    assert_eq!(c.stats.acks_sent - c0, 3);
}

/// RFC 9293 §3.8.6.2.2 (receiver SWS avoidance): a window update goes out once the window
/// exceeds the right edge last advertised by min(RCV.BUFF/2, MSS). The edge is where the last
/// ACK's window field, scaled by the shift it was sent with (RFC 7323 §2.3), ends: here 4000 of
/// a 1 MiB buffer are unread (shift 5), so reading 500 bytes sends nothing and 500 more send
/// the update.
#[test]
fn a_window_update_waits_for_an_mss_beyond_the_scaled_edge() {
    let (mut c, _) = established(TcpConfig {
        rcv_buf: 1 << 20,
        delayed_ack: false,
        ..cfg()
    });
    c.auto_read = false;
    let mut last = Vec::new();
    for k in 0..4 {
        last = send(&mut c, T0, &s_data(S + k * M));
    }
    let a = &last[0].hdr;
    assert_eq!((a.ack, a.wscale_applied), (S + 4 * M, 5));
    assert_eq!((a.window_field() as u64) << 5, (1 << 20) - 4 * M);
    let mut out = Vec::new();
    c.read(T0 + ms(1), 500, &mut out);
    assert!(out.is_empty(), "the window grew by 500 < one MSS");
    c.read(T0 + ms(2), 500, &mut out);
    assert_eq!(out.len(), 1);
    // The field holds the window in units of 32 bytes, rounded down.
    assert_eq!(out[0].hdr.window_field() as u64, ((1 << 20) - 3 * M) >> 5);
}

/// RFC 9293 §3.8.6.2.2 (receiver SWS avoidance): the step is min(RCV.BUFF/2, MSS), so a buffer
/// smaller than two MSS announces its window once half the buffer is free: of a full 1500-byte
/// buffer (window 0 advertised), reading 749 bytes sends nothing, reading one more (750) the
/// update.
#[test]
fn a_small_buffer_announces_its_window_once_half_of_it_is_free() {
    let (mut c, _) = established(TcpConfig {
        rcv_buf: 1500,
        delayed_ack: false,
        ..cfg()
    });
    c.auto_read = false;
    send(&mut c, T0, &s_data(S));
    let full = send(
        &mut c,
        T0,
        &seg(
            TcpHeader {
                seq: S + M,
                ..S_TEMPL
            },
            500,
        ),
    );
    assert_eq!((full[0].hdr.ack, full[0].hdr.window), (S + 1500, 0));
    let mut out = Vec::new();
    c.read(T0 + ms(1), 749, &mut out);
    assert!(out.is_empty(), "749 < min(1500/2, 1000)");
    c.read(T0 + ms(2), 1, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].hdr.ack, out[0].hdr.window), (S + 1500, 750));
}

/// RFC 6298 §2: the handshake's RTT is timed on both ends, from the SYN (or SYN-ACK) to the ACK
/// of ISS + 1, whatever the ISS; 0 is one of the 2^32 ISSs the scenarios draw.
#[test]
fn the_syn_is_timed_from_any_iss() {
    let mut c = Socket::new(cfg(), CLIENT_PORT, SERVER_PORT, 0);
    c.connect(SimTime::ZERO, &mut Vec::new());
    let synack = TcpHeader {
        ack: 1,
        ..SYNACK_TEMPL
    };
    send(&mut c, ms(100), &seg(synack, 0));
    assert_eq!(c.state(), State::Established);
    assert_eq!(c.srtt(), Some(ms(100)));

    let mut s = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, 0);
    s.listen();
    send(&mut s, SimTime::ZERO, &seg(SYN_TEMPL, 0));
    send(&mut s, ms(100), &c_ack(1));
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.srtt(), Some(ms(100)));
}

/// A bare FIN (all data sent before the application closed) carries no data: RFC 3168 §6.1.2
/// sets CWR on the first new *data* packet after a reduction and §6.1.1 marks only data ECT;
/// the data counters leave it out, and resending it after a timeout is no data retransmission.
#[test]
fn a_bare_fin_is_not_data() {
    let (_, mut s) = established(TcpConfig { ecn: true, ..cfg() });
    assert_eq!(write(&mut s, T0, 2 * M).len(), 2);
    // An ECE acknowledging both: the window is reduced and CWR waits for new data.
    send(&mut s, T0 + ms(100), &ece(S + 2 * M));
    assert_eq!(s.stats.ecn_reductions, 1);
    let mut fin = Vec::new();
    s.shutdown(T0 + ms(110), &mut fin);
    assert_eq!(segs(&fin), [(S + 2 * M, 0)]);
    assert_eq!(fin[0].hdr.flags, FIN_ACK, "no CWR on a FIN without data");
    assert!(!fin[0].ect);
    let counted = |s: &Socket| (s.stats.segments_sent, s.stats.bytes_sent);
    assert_eq!(counted(&s), (2, 2 * M));
    let (_, again) = fire(&mut s);
    assert_eq!(segs(&again), [(S + 2 * M, 0)]);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(counted(&s), (2, 2 * M));
    assert_eq!(s.stats.retransmissions + s.stats.timeout_retransmissions, 0);
}

/// The data counters (seed 000's retransmission ratio divides one by the other): segments and
/// bytes sent, retransmissions among them, by cause: one fast retransmit (RFC 5681 §3.2), then
/// one after the timeout (RFC 6298 (5.4)).
#[test]
fn data_and_retransmissions_are_counted_by_cause() {
    let mut s = second_segment_lost(Variant::NewReno);
    let counted = |s: &Socket| {
        let st = s.stats;
        (
            st.segments_sent,
            st.bytes_sent,
            st.retransmissions,
            st.fast_retransmissions,
            st.timeout_retransmissions,
        )
    };
    assert_eq!(counted(&s), (11, 11 * M, 0, 0, 0));
    for _ in 0..3 {
        send(&mut s, T0 + ms(150), &c_ack(S + M));
    }
    assert_eq!(counted(&s), (12, 12 * M, 1, 1, 0));
    let (_, out) = fire(&mut s);
    assert_eq!(segs(&out), [(S + M, M as u32)]);
    assert_eq!(counted(&s), (13, 13 * M, 2, 1, 1));
}

/// RFC 8985 §7.2: the probe timer starts when new data is sent (2·SRTT = 200 ms, before the
/// RTO's 300 ms). Its probe resends the last segment, [S + M, S + 2M); Karn's rule (RFC 6298 §3)
/// voids the timing of a segment only when that very segment is resent, so the first segment,
/// timed and ending where the probe starts, still gives a sample (250 ms): SRTT = 7/8·100 +
/// 1/8·250 ms (RFC 6298 (2.3)).
#[test]
fn a_probe_of_the_next_segment_keeps_the_timed_one() {
    let (_, mut s) = established(TcpConfig {
        tlp: true,
        ..super::linux::rack_cfg()
    });
    assert_eq!(write(&mut s, T0, 2 * M).len(), 2);
    let probe = recv(&mut s, T0 + ms(200));
    assert_eq!(segs(&probe), [(S + M, M as u32)]);
    assert_eq!(s.stats.tail_loss_probes, 1);
    send(&mut s, T0 + ms(250), &c_ack(S + 2 * M));
    assert_eq!(s.srtt(), Some(SimTime::from_micros(118_750)));
}

/// ATCP's Congested state (ECN-Echo) ends with the next new data sent; neither a retransmission
/// nor a bare FIN is new data.
#[test]
fn atcp_leaves_congested_on_new_data_only() {
    let (_, mut s) = established(TcpConfig {
        ecn: true,
        extensions: vec![ExtensionKind::Atcp],
        ..cfg()
    });
    assert_eq!(write(&mut s, T0, 2 * M).len(), 2);
    send(&mut s, T0 + ms(100), &ece(S + M));
    assert_eq!(s.extension_states(), ["congested"]);
    assert_eq!(
        segs(&write(&mut s, T0 + ms(100), M)),
        [(S + 2 * M, M as u32)]
    );
    assert_eq!(s.extension_states(), ["normal"]);
    send(&mut s, T0 + ms(200), &ece(S + 3 * M));
    assert_eq!(s.extension_states(), ["congested"]);
    let mut fin = Vec::new();
    s.shutdown(T0 + ms(210), &mut fin);
    assert_eq!(segs(&fin), [(S + 3 * M, 0)]);
    assert_eq!(s.extension_states(), ["congested"]);
}

/// RFC 9293 §3.10.4: in CLOSE-WAIT the application may still send; only its FIN moves the
/// connection to LAST-ACK.
#[test]
fn close_wait_sends_data_and_leaves_with_the_fin() {
    let (_, mut s) = established(cfg());
    let fin = seg(
        TcpHeader {
            flags: FIN_ACK,
            ..C_TEMPL
        },
        0,
    );
    send(&mut s, T0, &fin);
    assert_eq!(s.state(), State::CloseWait);
    assert_eq!(write(&mut s, T0 + ms(10), 2 * M).len(), 2);
    assert_eq!(s.state(), State::CloseWait);
    let mut out = Vec::new();
    s.shutdown(T0 + ms(20), &mut out);
    assert_eq!(segs(&out), [(S + 2 * M, 0)]);
    assert_eq!(s.state(), State::LastAck);
}

/// RFC 9293 §3.10.7: a reset connection is CLOSED, and a closed socket sends nothing however
/// much the application writes.
#[test]
fn a_reset_connection_sends_no_more_data() {
    let (_, mut s) = established(cfg());
    assert_eq!(write(&mut s, T0, 2 * M).len(), 2);
    let rst = seg(
        TcpHeader {
            flags: TcpFlags::RST,
            ..C_TEMPL
        },
        0,
    );
    send(&mut s, T0 + ms(10), &rst);
    assert!(s.aborted());
    assert!(write(&mut s, T0 + ms(20), 5 * M).is_empty());
    assert_eq!(s.poll_timeout(), None);
}

/// RFC 5681 §4.1 restarts from the initial window only after an idle period of *more* than one
/// RTO: a write exactly one RTO (250 ms) after the last data keeps the grown window, one a
/// millisecond later does not.
#[test]
fn restart_after_idle_needs_more_than_one_rto() {
    let run = |idle: SimTime| {
        let (_, mut s) = established(TcpConfig {
            restart_after_idle: true,
            ..cfg()
        });
        assert_eq!(write(&mut s, T0, 4 * M).len(), 4);
        send(&mut s, T0 + ms(100), &c_ack(S + 4 * M));
        // One ACK in slow start adds one SMSS (RFC 5681 §3.1).
        assert_eq!((s.cwnd(), s.rto()), (5 * M, ms(250)));
        write(&mut s, T0 + idle, 20 * M).len()
    };
    assert_eq!(run(ms(250)), 5);
    assert_eq!(run(ms(251)), 4);
}

/// RFC 6675 §5.1: the go-back-N after a timeout resends no SACKed data, also when SACK only
/// informs NewReno's window-driven sender. Six 500-byte segments (one write each), the second
/// and fourth SACKed: the timeout resends the first 500 bytes; the ACK of the first thousand
/// opens two MSS, and the go-back-N sends the third segment alone (stopping where the SACKed
/// fourth starts), then a full MSS after it.
#[test]
fn go_back_n_stops_at_sacked_data() {
    let (_, mut s) = established(TcpConfig {
        sack: true,
        variant: Some(Variant::NewReno),
        ..cfg()
    });
    for _ in 0..6 {
        assert_eq!(write(&mut s, T0, 500).len(), 1);
    }
    let sacked = [(S + 1500, S + 2 * M), (S + 500, S + M)];
    send(&mut s, T0 + ms(100), &c_sack(S, &sacked));
    let (t, out) = fire(&mut s);
    assert_eq!(segs(&out), [(S, 500)]);
    let out = send(&mut s, t + ms(100), &c_sack(S + M, &sacked[..1]));
    assert_eq!(segs(&out), [(S + M, 500), (S + 2 * M, M as u32)]);
}

/// RFC 9293 §3.8.6.2.1 (sender SWS avoidance): with nothing outstanding a window smaller than
/// one MSS is still used, by a segment exactly as long as the window (500 bytes).
#[test]
fn a_window_below_one_mss_gets_a_segment_of_its_size() {
    let (_, mut s) = established(cfg());
    let small = seg(
        TcpHeader {
            window: 500,
            ..C_TEMPL
        },
        0,
    );
    send(&mut s, T0, &small);
    assert_eq!(s.snd_wnd(), 500);
    assert_eq!(segs(&write(&mut s, T0, 3 * M)), [(S, 500)]);
}

/// RFC 8985 §7.3: a probe of new data is one segment from SND.NXT as the window-driven sender
/// would cut it (the last of the application's data, the FIN riding on it if the application
/// closed), and only if the peer's window holds it; otherwise the last segment sent is resent.
/// Ten segments fit the initial window; the probe comes 2·SRTT after them.
#[test]
fn a_new_data_probe_is_cut_like_any_segment_inside_the_peers_window() {
    let probe = |written: u64, close: bool, window: u32| {
        let (_, mut s) = established(TcpConfig {
            tlp: true,
            ..super::linux::rack_cfg()
        });
        let w = seg(TcpHeader { window, ..C_TEMPL }, 0);
        send(&mut s, T0, &w);
        let mut out = write(&mut s, T0, written);
        if close {
            s.shutdown(T0, &mut out);
        }
        let (t, probe) = fire(&mut s);
        assert_eq!(t, T0 + ms(200));
        assert_eq!(probe.len(), 1);
        (
            probe[0].hdr.seq,
            probe[0].payload,
            probe[0].hdr.flags.has(TcpFlags::FIN),
        )
    };
    assert_eq!(probe(11 * M, false, 65535), (S + 10 * M, M as u32, false));
    assert_eq!(probe(11 * M, true, 65535), (S + 10 * M, M as u32, true));
    // A 2000-byte window: two segments sent, the third does not fit, the second is resent.
    assert_eq!(probe(3 * M, false, 2000), (S + M, M as u32, false));
    // One byte short of a third segment is still too short.
    assert_eq!(probe(3 * M, false, 2999), (S + M, M as u32, false));
}

/// RFC 9293 §3.8.6.1 (RFC 1122 §4.2.2.17): the persist timer probes a zero window only while
/// data waits to be sent; a zero window that acknowledges everything arms no timer at all.
#[test]
fn a_zero_window_with_nothing_to_send_arms_no_persist_timer() {
    let (_, mut s) = established(cfg());
    assert_eq!(write(&mut s, T0, 2 * M).len(), 2);
    let closed = zero_window(S + 2 * M);
    assert!(send(&mut s, T0 + ms(100), &closed).is_empty());
    assert_eq!(s.snd_wnd(), 0);
    assert!(!s.in_persist());
    assert_eq!(s.poll_timeout(), None);
    // One more byte written: now the window is probed.
    assert!(write(&mut s, T0 + ms(110), 1).is_empty());
    assert!(s.in_persist());
}

/// RFC 1122 §4.2.2.17: the persist timer backs off while the window stays closed, and starts
/// afresh once the window has opened: two unanswered probes (400, 500 ms), the window opens and
/// data flows, the window closes again: the next probe waits max(RTO, 400 ms), not 4·RTO.
#[test]
fn an_opened_window_resets_the_persist_backoff() {
    let (mut s, out) = sending(TcpConfig {
        persist_min: ms(400),
        persist_max: secs(3),
        ..cfg()
    });
    assert_eq!(out.len(), 4);
    let t1 = T0 + ms(100);
    send(&mut s, t1, &zero_window(S + 4 * M));
    assert_eq!(recv(&mut s, t1 + ms(400)).len(), 1);
    assert_eq!(recv(&mut s, t1 + ms(900)).len(), 1);
    let t2 = t1 + ms(950);
    let more = send(&mut s, t2, &c_ack(S + 4 * M));
    assert!(!more.is_empty() && !s.in_persist());
    let end = more
        .last()
        .map(|d| d.hdr.seq + d.payload as u64)
        .unwrap_or(0);
    let t3 = t2 + ms(100);
    send(&mut s, t3, &zero_window(end));
    assert!(s.in_persist());
    assert_eq!(s.poll_timeout(), Some(t3 + s.rto().max(ms(400))));
}
