//! Packet-level traces of the Linux profile's mechanisms (docs/models/tcp.md, "Linux profile").
//! Each test runs its trace with the mechanism's switch on and off and shows the difference.

use super::*;
use crate::tcp::config::{Profile, RtoRule};

pub(super) fn rack_cfg() -> TcpConfig {
    TcpConfig {
        variant: None,
        recovery: Some(Variant::Rack),
        ..sack_cfg()
    }
}

#[test]
fn linux_rto_rule_restarts_the_timer_on_every_advancing_ack() {
    let trace = |rule: RtoRule| {
        let (mut s, out) = sending(TcpConfig {
            initial_window: InitialWindow::Segments(10),
            initial_ssthresh: Some(10 * M),
            rto_rule: rule,
            ..cfg()
        });
        assert_eq!(out.len(), 10);
        send(&mut s, T0 + ms(100), &c_ack(S + M));
        // Segments 1, 4 and 7 lost: NewReno recovery, then two partial ACKs.
        for _ in 0..7 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        assert!(s.in_recovery());
        send(&mut s, T0 + ms(200), &c_ack(S + 4 * M));
        send(&mut s, T0 + ms(300), &c_ack(S + 7 * M));
        (s.poll_timeout().expect("armed"), s.rto())
    };
    // RFC 6582's Impatient timer keeps the deadline of the first partial ACK (200 ms + RTO);
    // Linux restarts it at the second (300 ms + RTO).
    let (deadline, rto) = trace(RtoRule::Rfc6298);
    assert_eq!(deadline, T0 + ms(200) + rto);
    let (deadline, rto) = trace(RtoRule::Linux);
    assert_eq!(deadline, T0 + ms(300) + rto);
}

#[test]
fn linux_profile_resolves_to_its_parts() {
    let c = TcpConfig::linux();
    assert_eq!(c.profile, Profile::Linux);
    assert_eq!(c.name(), "cubic+rack");
    assert_eq!(c.initial_window_bytes(1000), 10_000);
    let (_, s) = established(TcpConfig { mss: 1000, ..c });
    assert_eq!(s.cc_name(), "cubic");
    assert_eq!(s.recovery_name(), "rack");
    // Handshake sample 100 ms: Linux RTO = 100 + max(4·50, 200) = 300 ms.
    assert_eq!(s.rto(), ms(300));
}

#[test]
fn rack_detects_a_lost_segment_by_time_where_rfc6675_waits() {
    // Ten segments at T0; segment 8 is lost, 9 arrives: one SACKed segment above the hole, which
    // RFC 6675's IsLost never calls a loss. RACK does, one RTT plus min_rtt/4 after segment 8 was
    // sent (RFC 8985 §6.2).
    let trace = |conf: TcpConfig| {
        let (mut s, out) = sending(conf);
        assert_eq!(out.len(), 10);
        send(&mut s, T0 + ms(100), &c_ack(S + 8 * M));
        send(
            &mut s,
            T0 + ms(100),
            &c_sack(S + 8 * M, &[(S + 9 * M, S + 10 * M)]),
        );
        let (t, out) = fire(&mut s);
        (t, segs(&out).first().copied(), s.in_recovery())
    };
    assert_eq!(
        trace(rack_cfg()),
        (T0 + ms(125), Some((S + 8 * M, M as u32)), true)
    );
    // RFC 6675: nothing until the retransmission timer (T0 + 100 ms + RTO).
    let (t, first, rec) = trace(sack_cfg());
    assert!(t > T0 + ms(300), "{t:?}");
    assert_eq!(first, Some((S + 8 * M, M as u32)));
    assert!(!rec);
}

/// Twenty segments out, segment 0 lost, segments 1..19 SACKed one per ACK at T0 + 100 ms: how
/// many segments the sender sends on each ACK.
fn sent_per_sack_of_a_twenty_segment_flight(conf: TcpConfig) -> Vec<usize> {
    let (mut s, out) = sending(TcpConfig {
        initial_window: InitialWindow::Segments(20),
        ..conf
    });
    assert_eq!(out.len(), 20);
    let mut sent = Vec::new();
    for k in 1..20 {
        let out = send(
            &mut s,
            T0 + ms(100),
            &c_sack(S, &[(S + M, S + (k + 1) * M)]),
        );
        sent.push(out.len());
    }
    assert!(s.in_recovery());
    sent
}

/// RFC 6675's cwnd = ssthresh (10 segments) at once: nothing until pipe falls below it.
const CWND_SSTHRESH_SENDS: [usize; 19] = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
/// PRR (RFC 6937): about one segment per two delivered from the start.
const PRR_SENDS: [usize; 19] = [0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1];

#[test]
fn prr_spreads_the_reduction_over_the_round_trip() {
    // RFC 6675 sets cwnd = ssthresh (10 segments) at once and sends nothing until pipe falls
    // below it; PRR (RFC 6937) sends about one segment per two delivered from the start.
    let trace =
        |prr: bool| sent_per_sack_of_a_twenty_segment_flight(TcpConfig { prr, ..sack_cfg() });
    let (rfc6675, prr) = (trace(false), trace(true));
    // The third SACK starts recovery and retransmits segment 0 in both.
    assert_eq!(rfc6675, CWND_SSTHRESH_SENDS);
    assert_eq!(prr, PRR_SENDS);
    // Both end the round trip with ssthresh's worth sent in all.
    assert_eq!(rfc6675.iter().sum::<usize>(), prr.iter().sum::<usize>());
}

#[test]
fn tlp_probes_the_tail_two_srtts_after_the_last_ack() {
    // Ten segments written, the last two lost: the ACK of segments 0..7 is the last feedback.
    // With TLP (RFC 8985 §7) a probe of the last segment goes out at 2·SRTT = 200 ms, before the
    // RTO (250 ms); its SACK lets RACK find segment 8 and recovery starts without a timeout.
    let trace = |tlp: bool| {
        let (_, mut s) = established(TcpConfig { tlp, ..rack_cfg() });
        assert_eq!(write(&mut s, T0, 10 * M).len(), 10);
        send(&mut s, T0 + ms(100), &c_ack(S + 8 * M));
        let (t, out) = fire(&mut s);
        (t, segs(&out), s)
    };
    let (t, probe, mut s) = trace(true);
    assert_eq!((t, probe), (T0 + ms(300), vec![(S + 9 * M, M as u32)]));
    assert_eq!((s.stats.timeouts, s.stats.tail_loss_probes), (0, 1));
    // §7.3: the RTO, not the PTO, is armed after the probe.
    assert_eq!(s.poll_timeout(), Some(T0 + ms(300) + s.rto()));
    let out = send(
        &mut s,
        T0 + ms(400),
        &c_sack(S + 8 * M, &[(S + 9 * M, S + 10 * M)]),
    );
    assert_eq!(segs(&out), [(S + 8 * M, M as u32)]);
    assert!(s.in_recovery());
    assert_eq!(s.stats.timeouts, 0);
    // Without TLP: the RTO at 100 + 250 ms retransmits segment 8.
    let (t, first, s) = trace(false);
    assert_eq!((t, first), (T0 + ms(350), vec![(S + 8 * M, M as u32)]));
    assert_eq!((s.stats.timeouts, s.stats.tail_loss_probes), (1, 0));
}

#[test]
fn tlp_reacts_to_a_loss_only_when_the_probe_repaired_one() {
    // The last of ten segments is lost. One segment in flight: PTO = 2·SRTT + WCDelAckT = 400 ms,
    // cut to the RTO's expiry (250 ms). The probe retransmits it; the ACK of exactly TLP.end_seq
    // is ambiguous, so the sender waits (RFC 8985 §7.4.1): a DSACK of the probe means no loss, an
    // ACK beyond TLP.end_seq means the probe repaired one, and cwnd is reduced (§7.4.2).
    let run = |dsack: bool| {
        let (_, mut s) = established(TcpConfig {
            tlp: true,
            ..rack_cfg()
        });
        write(&mut s, T0, 10 * M);
        send(&mut s, T0 + ms(100), &c_ack(S + 9 * M));
        let (t, out) = fire(&mut s);
        assert_eq!((t, segs(&out)), (T0 + ms(350), vec![(S + 9 * M, M as u32)]));
        assert_eq!(s.stats.timeouts, 0);
        let ack = if dsack {
            c_sack(S + 10 * M, &[(S + 9 * M, S + 10 * M)])
        } else {
            c_ack(S + 10 * M)
        };
        send(&mut s, T0 + ms(450), &ack);
        assert_eq!(s.stats.tlp_recoveries, 0, "waits at TLP.end_seq");
        write(&mut s, T0 + ms(450), M);
        send(&mut s, T0 + ms(550), &c_ack(S + 11 * M));
        (s.stats.tlp_recoveries, s.cwnd() == s.ssthresh())
    };
    assert_eq!(run(true), (0, false));
    assert_eq!(run(false), (1, true));
}

/// The SACK blocks of the reply `c` (the receiver) sends to each segment, the last one's.
fn blocks_after(c: &mut Socket, t: SimTime, data: &[u64]) -> Vec<(u64, u64)> {
    let mut last = Vec::new();
    for &seq in data {
        let out = send(c, t, &s_data(seq));
        if let Some(a) = out.last() {
            last = a.hdr.sack.as_slice().to_vec();
        }
    }
    last
}

#[test]
fn dsack_reports_a_duplicate_below_the_cumulative_ack() {
    // RFC 2883 §4.1.1: the ACKs of segments 0 and 1 were lost and segment 0 is retransmitted;
    // the receiver reports it as the first (and only) SACK block with ACK = segment 2.
    let run = |dsack: bool| {
        let (mut c, _) = established(TcpConfig {
            dsack,
            ..sack_cfg()
        });
        blocks_after(&mut c, T0, &[S, S + M, S])
    };
    assert_eq!(run(true), [(S, S + M)]);
    assert!(run(false).is_empty());
}

/// A retransmitted bare FIN draws an ACK but no D-SACK. The model's sender does not count a
/// bare FIN it resends as a retransmission (`send_range`), so a D-SACK of the FIN would take
/// from its undo count a retransmission it never counted; Linux counts and D-SACKs both (the
/// departure is in docs/models/tcp.md).
#[test]
fn a_retransmitted_bare_fin_draws_no_dsack() {
    let (mut c, _) = established(TcpConfig {
        dsack: true,
        ..sack_cfg()
    });
    let fin = seg(
        TcpHeader {
            seq: S + M,
            flags: FIN_ACK,
            ..S_TEMPL
        },
        0,
    );
    send(&mut c, T0, &s_data(S));
    for t in [T0, T0 + ms(300)] {
        let out = send(&mut c, t, &fin);
        assert_eq!(c.state(), State::CloseWait);
        let acks: Vec<_> = out
            .iter()
            .map(|a| (a.hdr.ack, a.hdr.sack.as_slice()))
            .collect();
        assert_eq!(acks, [(S + M + 1, &[][..])], "at {t:?}");
    }
}

#[test]
fn dsack_of_held_data_is_followed_by_the_block_holding_it() {
    // RFC 2883 §4 (b): segments 2, 3 and 5 are held above a gap at 1; segment 3 arrives again.
    // First block: the duplicate; second: the held block it lies in (2..4); then the other
    // blocks, without repeating that one.
    let (mut c, _) = established(TcpConfig {
        dsack: true,
        ..sack_cfg()
    });
    let blocks = blocks_after(&mut c, T0, &[S, S + 2 * M, S + 3 * M, S + 5 * M, S + 3 * M]);
    assert_eq!(
        blocks,
        [
            (S + 3 * M, S + 4 * M),
            (S + 2 * M, S + 4 * M),
            (S + 5 * M, S + 6 * M)
        ]
    );
    // Reported once: the next ACK carries the usual blocks only.
    let next = blocks_after(&mut c, T0, &[S + 7 * M]);
    assert_eq!(next[0], (S + 7 * M, S + 8 * M));
    assert!(!next.contains(&(S + 3 * M, S + 4 * M)));
}

#[test]
fn a_spurious_fast_retransmit_is_undone_when_its_dsack_arrives() {
    // Segment 0 is reordered behind 1..3: three SACKs start RFC 6675 recovery, which retransmits
    // it and halves the window. The original arrives, the episode ends, and then the receiver's
    // DSACK of the retransmission shows that every retransmission of the episode was needless
    // (RFC 3708): with `undo` the pre-episode cwnd and ssthresh come back.
    let trace = |undo: bool| {
        let (mut s, out) = sending(TcpConfig {
            dsack: true,
            undo,
            ..sack_cfg()
        });
        assert_eq!(out.len(), 10);
        let before = (s.cwnd(), s.ssthresh());
        for k in 2..5 {
            send(&mut s, T0 + ms(100), &c_sack(S, &[(S + M, S + k * M)]));
        }
        assert!(s.in_recovery());
        assert_eq!(s.stats.retransmissions, 1);
        send(&mut s, T0 + ms(101), &c_ack(S + 4 * M));
        send(&mut s, T0 + ms(102), &c_ack(S + 10 * M));
        assert!(!s.in_recovery());
        let reduced = (s.cwnd(), s.ssthresh());
        send(&mut s, T0 + ms(150), &c_sack(S + 10 * M, &[(S, S + M)]));
        (before, reduced, (s.cwnd(), s.ssthresh()), s.stats.undos)
    };
    let (before, reduced, after, undos) = trace(true);
    assert!(reduced.1 < before.1, "{reduced:?} {before:?}");
    assert_eq!(undos, 1);
    assert_eq!(after.1, before.1, "ssthresh restored");
    assert!(after.0 >= before.0, "cwnd restored: {after:?} {before:?}");
    let (_, reduced, after, undos) = trace(false);
    assert_eq!((after, undos), (reduced, 0));
}

#[test]
fn frto_tells_a_delay_spike_from_a_loss_and_undoes_the_timeout() {
    // Ten segments out, then the path stalls: no ACK until after the RTO (300 ms), which
    // retransmits segment 0. Then the delayed ACKs of the originals arrive. F-RTO (RFC 5682)
    // answers the first with two new segments instead of retransmitting 1 and 2; the second ACK
    // acknowledges data that was never retransmitted, so the timeout was spurious and is undone.
    let trace = |frto: bool| {
        let (mut s, out) = sending(TcpConfig {
            frto,
            initial_window: InitialWindow::Segments(10),
            ..cfg()
        });
        assert_eq!(out.len(), 10);
        let before = s.cwnd();
        let (t, rto) = fire(&mut s);
        assert_eq!((t, segs(&rto)), (T0 + ms(300), vec![(S, M as u32)]));
        let first = send(&mut s, T0 + ms(310), &c_ack(S + M));
        send(&mut s, T0 + ms(311), &c_ack(S + 2 * M));
        (segs(&first), before, s.cwnd(), s.stats.undos)
    };
    let (first, before, after, undos) = trace(true);
    assert_eq!(first, [(S + 10 * M, M as u32), (S + 11 * M, M as u32)]);
    assert_eq!((after, undos), (before, 1));
    let (first, _, after, undos) = trace(false);
    assert_eq!(first, [(S + M, M as u32), (S + 2 * M, M as u32)]);
    assert!(after < before && undos == 0, "{after}");
}

#[test]
fn autotuning_grows_the_window_to_twice_the_data_per_round_trip() {
    // A bulk transfer over the fixtures' wire (100 ms RTT, no rate limit) with a 64 KiB receive
    // buffer: without autotuning the client offers 65535 B throughout and the transfer moves one
    // window per round trip; with it the window doubles each round trip the sender fills it, up
    // to half of rcv_buf_max.
    let run = |rcv_buf_autotune: bool| {
        let conf = TcpConfig {
            rcv_buf_autotune,
            rcv_buf_max: 4 << 20,
            timestamps: true,
            ..sack_cfg()
        };
        let (mut c, mut s, mut w) = established_wire(conf.clone(), conf);
        let out = write_all(&mut s, T0);
        w.put(true, out);
        w.run(&mut c, &mut s, T0 + secs(2));
        let windows: Vec<u64> = w
            .sent_by(false)
            .iter()
            .map(|(_, sg)| sg.hdr.window as u64)
            .collect();
        (windows, c.delivered())
    };
    let (fixed, fixed_bytes) = run(false);
    assert!(fixed.iter().all(|&x| x == 65_535), "{fixed:?}");
    let (tuned, tuned_bytes) = run(true);
    assert_eq!(tuned[0], 65_535);
    assert!(tuned.windows(2).all(|p| p[1] >= p[0]), "never shrinks");
    assert_eq!(
        *tuned.last().unwrap(),
        2 << 20,
        "capped at half of rcv_buf_max"
    );
    assert!(
        tuned_bytes > 10 * fixed_bytes,
        "{tuned_bytes} vs {fixed_bytes}"
    );
}

/// Dynamic Right-Sizing without Linux's rules (`rcv_buf_autotune` alone): the window (bytes,
/// before scaling) a client with an `rcv_buf`-byte buffer offers after each of the server's
/// in-order segments 1..=n, segment k arriving at `at(k)` with TSecr `ecr(k)` (None: no
/// timestamp option). The client ACKs every segment.
fn drs_windows(
    rcv_buf: u64,
    timestamps: bool,
    n: u64,
    at: impl Fn(u64) -> SimTime,
    ecr: impl Fn(u64) -> Option<u32>,
) -> Vec<u64> {
    let mut c = established(TcpConfig {
        rcv_buf_autotune: true,
        rcv_buf,
        delayed_ack: false,
        timestamps,
        ..cfg()
    })
    .0;
    (1..=n)
        .map(|k| {
            let t = at(k);
            let d = seg(
                TcpHeader {
                    seq: S + (k - 1) * M,
                    ts: ecr(k).map(|e| (t.as_millis() as u32, e)),
                    ..S_TEMPL
                },
                M as u32,
            );
            let out = send(&mut c, t, &d);
            let a = &out.last().expect("every segment is ACKed").hdr;
            assert_eq!(a.ack, S + k * M);
            a.window as u64
        })
        .collect()
}

/// Dynamic Right-Sizing (Fisk & Feng 2001) with timestamps: every segment's echo is an RTT
/// sample, smoothed 7/8 as RFC 6298 smooths SRTT, so steady 100 ms samples keep the estimate at
/// 100 ms; the round that starts with the first segment (1 ms apart) ends at segment 101, which
/// sets the window to twice the 101 segments the round delivered, and the offered window then
/// climbs two MSS per segment towards it.
#[test]
fn drs_steady_rtt_samples_give_one_round_per_rtt() {
    let at = |k: u64| T0 + ms(100 + k);
    let w = drs_windows(120_000, true, 110, at, |k| {
        Some(Socket::ts_now(at(k) - ms(100)))
    });
    let mut want = vec![120_000; 100];
    want.extend((1..=10).map(|i| 120_000 + 2000 * i));
    assert_eq!(w, want);
}

/// A TSecr of zero echoes nothing (RFC 7323 §3.2: zero is what a segment carries when it has no
/// timestamp to echo; Linux takes no RTT sample from it): with timestamps on, a client whose
/// data all echoes zero has no receiver RTT, and it does not fall back on timing a window's
/// arrival (DRS's estimate for connections without timestamps), so its window never grows.
/// The same trace with real 100 ms echoes grows it.
#[test]
fn drs_takes_no_rtt_sample_from_a_zero_echo() {
    let at = |k: u64| T0 + ms(50 * k);
    assert_eq!(drs_windows(4000, true, 20, at, |_| Some(0)), [4000; 20]);
    let echoed = drs_windows(4000, true, 20, at, |k| {
        Some(Socket::ts_now(at(k) - ms(100)))
    });
    assert!(echoed[19] > 4000, "{echoed:?}");
}

/// Dynamic Right-Sizing without timestamps (Fisk & Feng 2001): the RTT is the time one window
/// of data takes to arrive, timed afresh for each window with the window then offered. At one
/// segment per ms the first window (4000 B) takes 4 ms, the 4-ms rounds hold 4 segments and
/// the window doubles to 8000 B (offered at segments 8 and 9); the next window, 8000 B, takes
/// 8 ms, the estimate rises to 4.5 ms, and rounds of 5 segments raise the window to 10 000 B at
/// segment 21. Timing only the first window would keep it at 8000 B.
#[test]
fn drs_without_timestamps_times_every_window() {
    let w = drs_windows(4000, false, 30, |k| T0 + ms(100 + k), |_| None);
    let mut want = vec![4000; 7];
    want.extend([6000]);
    want.extend([8000; 12]);
    want.extend([10_000; 10]);
    assert_eq!(w, want);
}

#[test]
fn rack_recovery_sends_by_pipe_every_marked_loss_then_new_data() {
    // Ten segments at T0; segments 2 and 5 lost, the others SACKed 100 ms later. Three SACKed
    // segments and no reordering seen: reo_wnd = 0, so both holes, sent before the delivered
    // segments, are lost at once (RFC 8985 §6.2). Recovery as RFC 6675 §5 with RACK's marks:
    // cwnd = ssthresh = FlightSize / 2 = 4 segments; pipe = 0 (six SACKed, two lost), so both
    // retransmissions and two new segments go out.
    let (mut s, out) = sending(rack_cfg());
    assert_eq!(out.len(), 10);
    let out = send(
        &mut s,
        T0 + ms(100),
        &c_sack(
            S + 2 * M,
            &[(S + 3 * M, S + 5 * M), (S + 6 * M, S + 10 * M)],
        ),
    );
    assert!(s.in_recovery());
    assert_eq!(s.cwnd(), 4 * M);
    assert_eq!(
        segs(&out),
        [
            (S + 2 * M, M as u32),
            (S + 5 * M, M as u32),
            (S + 10 * M, M as u32),
            (S + 11 * M, M as u32)
        ]
    );
}

#[test]
fn rack_recovery_uses_prr_when_configured() {
    // The trace of `prr_spreads_the_reduction_over_the_round_trip` under RACK: the third SACK
    // leaves three SACKed segments (reo_wnd = 0), so segment 0 is lost then, as with RFC 6675's
    // DupThresh, and the episode sends what PRR (RFC 6937) or cwnd = ssthresh allows.
    let trace =
        |prr: bool| sent_per_sack_of_a_twenty_segment_flight(TcpConfig { prr, ..rack_cfg() });
    assert_eq!(trace(false), CWND_SSTHRESH_SENDS);
    assert_eq!(trace(true), PRR_SENDS);
}

/// A RACK sender (`rack_after_rto` as given) that sent ten segments at `T0`.
fn ten_segments_out(rack_after_rto: bool) -> Socket {
    let (s, out) = sending(TcpConfig {
        initial_window: InitialWindow::Segments(10),
        rack_after_rto,
        ..rack_cfg()
    });
    assert_eq!(out.len(), 10);
    s
}

#[test]
fn a_retransmission_lost_after_a_timeout_is_repaired_before_the_next_one() {
    // Ten segments at T0, all lost: the RTO (T0 + 300 ms) resends segment 0; its ACK (+100 ms)
    // lets go-back-N resend 1 and 2. The retransmission of 1 is lost, 2 is SACKed one RTT later:
    // RACK marks 1 lost again (RFC 8985 §6.2: sent no later than 2, one RACK.rtt ago).
    let trace = |rack_after_rto: bool| {
        let mut s = ten_segments_out(rack_after_rto);
        let (rto, out) = fire(&mut s);
        assert_eq!((rto, segs(&out)), (T0 + ms(300), vec![(S, M as u32)]));
        let t1 = rto + ms(100);
        let out = send(&mut s, t1, &c_ack(S + M));
        assert_eq!(segs(&out), [(S + M, M as u32), (S + 2 * M, M as u32)]);
        let sack = c_sack(S + M, &[(S + 2 * M, S + 3 * M)]);
        let out = send(&mut s, t1 + ms(100), &sack);
        (segs(&out), s.in_recovery(), s.poll_timeout())
    };
    // Linux leaves its Loss state for Recovery and resends segment 1 on this ACK.
    let (sent, rec, _) = trace(true);
    assert_eq!(sent.first(), Some(&(S + M, M as u32)));
    assert!(rec);
    // RFC 6675 §5.1: no new recovery before RecoveryPoint (segment 9) is acknowledged; segment 1
    // waits for the backed-off RTO, 600 ms after the ACK that restarted it.
    let (sent, rec, next) = trace(false);
    assert_eq!((sent, rec), (vec![], false));
    assert_eq!(next, Some(T0 + ms(400) + ms(600)));
}

#[test]
fn after_a_timeout_the_reordering_timer_starts_the_recovery() {
    // Segment 0 arrives (min_rtt 100 ms, so RACK's reordering window is 25 ms); everything after
    // it is lost. The RTO resends 1; its ACK lets go-back-N resend 2 and 3; 3 is SACKed one RTT
    // later, 2 is not: RACK waits 25 ms, then its timer marks 2 lost.
    let trace = |rack_after_rto: bool| {
        let mut s = ten_segments_out(rack_after_rto);
        send(&mut s, T0 + ms(100), &c_ack(S + M));
        let (rto, out) = fire(&mut s);
        assert_eq!(segs(&out), [(S + M, M as u32)]);
        let t1 = rto + ms(100);
        let out = send(&mut s, t1, &c_ack(S + 2 * M));
        assert_eq!(segs(&out), [(S + 2 * M, M as u32), (S + 3 * M, M as u32)]);
        let sack = c_sack(S + 2 * M, &[(S + 3 * M, S + 4 * M)]);
        assert!(send(&mut s, t1 + ms(100), &sack).is_empty());
        let (t, out) = fire(&mut s);
        (t - t1, segs(&out).first().copied(), s.in_recovery())
    };
    assert_eq!(trace(true), (ms(125), Some((S + 2 * M, M as u32)), true));
    // Off: the timer marks 2 but sends nothing; 2 waits for the backed-off RTO.
    assert_eq!(trace(false), (ms(125), None, false));
}

#[test]
fn dsack_reports_the_duplicate_part_of_a_partly_duplicate_segment() {
    // RFC 2883 §4: segment 0 arrived; a resent segment straddling the cumulative ACK
    // (0.5..1.5) carries half a segment the receiver has: that half is the D-SACK block.
    let (mut c, _) = established(TcpConfig {
        dsack: true,
        ..sack_cfg()
    });
    assert_eq!(
        blocks_after(&mut c, T0, &[S, S + M / 2]),
        [(S + M / 2, S + M)]
    );
    // In order, nothing is duplicate (two segments, so that the second is ACKed at once); a
    // pure ACK from below rcv_nxt reports nothing either.
    let in_order = blocks_after(&mut c, T0, &[S + 3 * M / 2, S + 5 * M / 2]);
    assert!(in_order.is_empty(), "{in_order:?}");
    let mut old_ack = s_data(S);
    old_ack.payload = 0;
    let out = send(&mut c, T0, &old_ack);
    assert!(
        out.iter().all(|a| a.hdr.sack.as_slice().is_empty()),
        "{out:?}"
    );
}
