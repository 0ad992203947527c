//! Linux's receive window (`rcv_wnd_growth`, docs/models/tcp.md "Linux's receive window") at the
//! packet level: the window the client offers as the server's segments arrive. The client ACKs
//! every segment (no delayed ACK, no quick-ACK mode) so that each window is seen.

use super::*;

/// A client with a 65535-byte window (a 131070-byte buffer), 1000-byte MSS, charged 1600 B per
/// segment (600 B beyond the payload) (scaling ratio 1000·256/1600 = 160/256), timestamps on.
fn client(rcv_wnd_growth: bool, rcv_buf_autotune: bool) -> Socket {
    established(TcpConfig {
        rcv_wnd_growth,
        rcv_buf_autotune,
        rcv_overhead: 600,
        rcv_buf: 65_535,
        delayed_ack: false,
        timestamps: true,
        ..cfg()
    })
    .0
}

/// The window (in bytes) the client offers after each of segments `ks`, segment k arriving at
/// `at(k)` and echoing a timestamp the client sent 100 ms earlier (its RTT sample).
fn windows(
    c: &mut Socket,
    ks: std::ops::RangeInclusive<u64>,
    at: impl Fn(u64) -> SimTime,
) -> Vec<u64> {
    windows_rtt(c, ks, at, |_| 100)
}

/// As `windows`, segment k's echo `rtt(k)` ms old.
fn windows_rtt(
    c: &mut Socket,
    ks: std::ops::RangeInclusive<u64>,
    at: impl Fn(u64) -> SimTime,
    rtt: impl Fn(u64) -> u64,
) -> Vec<u64> {
    ks.map(|k| {
        let t = at(k);
        let echo = (t.as_millis() - rtt(k) + 1) as u32;
        let d = seg(
            TcpHeader {
                seq: S + (k - 1) * M,
                ts: Some((t.as_millis() as u32, echo)),
                ..S_TEMPL
            },
            M as u32,
        );
        let out = send(c, t, &d);
        let a = &out.last().expect("every segment is ACKed").hdr;
        assert_eq!(a.ack, S + k * M);
        (a.window_field() as u64) << a.wscale_applied
    })
    .collect()
}

/// The window starts at the buffer's window in whole segments (65 000 B, not 65 535: Linux's
/// SYN offers 64 240 = 44 × 1460 for the same buffer) and climbs two MSS per segment
/// (tcp_grow_window) until it reaches what the buffer's free space allows with the measured
/// ratio: (131 070 − 1600) · 160/256 = 80 918 B, the kernel's 80 512 B on the validation pcap.
/// Off, the window is the buffer's 65 535 B throughout.
#[test]
fn the_window_starts_at_whole_segments_and_climbs_to_what_the_buffer_allows() {
    let at = |k: u64| T0 + ms(100) + ms(k);
    // Without autotuning the scale is chosen for the 131 070-byte buffer: 1 (2-byte units).
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 5]);
    assert_eq!(windows(&mut client(true, false), 1..=12, at), want);
    assert_eq!(windows(&mut client(false, false), 1..=12, at), [65_535; 12]);
}

/// Arrival of segment `k` in rounds 100 ms apart: segments 1–10, 11–30, 31–40, each 1 ms after
/// the one before.
fn three_rounds(k: u64) -> SimTime {
    let round = match k {
        1..=10 => 100,
        11..=30 => 200,
        _ => 290,
    };
    T0 + ms(round + k)
}

/// With autotuning, Linux's rule: a round trip's data raises the buffer only when it exceeds
/// the largest earlier round's (10 MSS at first), to twice it, grown by twice its relative
/// growth. Rounds of 10 and 20 segments, 100 ms apart: after the second the window is
/// 2·20 000 · (1 + 2 · 10 000/10 000) = 120 000 B, so it climbs on from 80 918 B two MSS per
/// segment. Dynamic Right-Sizing (switch off) wants 2 · 20 000 B, below the 65 535 B it
/// has, and the window stays.
#[test]
fn autotuning_raises_the_buffer_by_linuxs_rule() {
    let w = windows(&mut client(true, true), 1..=40, three_rounds);
    // With the 6 MiB maximum's scale, 7 (128-byte units).
    let scaled = |w: u64| w >> 7 << 7;
    // The checks: at segment 1 (the first since the connection was established: 1000 B), at
    // segment 11 (segments 2–11: 10 000 B, not above 10 MSS, nothing moves) and at segment 31
    // (12–31: 20 000 B): from there the window climbs again.
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 23]);
    want.extend((1..=10).map(|k| 80_918 + 2000 * k));
    assert_eq!(w, want.into_iter().map(scaled).collect::<Vec<_>>());
    // Off: the 6 MiB maximum's window is half of it, scale 6 (64-byte units).
    let w_off = windows(&mut client(false, true), 1..=40, three_rounds);
    assert_eq!(w_off, vec![65_535 >> 6 << 6; 40]);
}

/// Linux's receiver RTT takes a smaller sample at once (tcp_rcv_rtt_update since 6.16): after a
/// first sample of 150 ms, the second round's 100 ms samples bring the estimate to 100 ms at its
/// first segment, so the check falls at round boundaries as in the test above and the window
/// first climbs at segment 31. Averaging them in (7/8) keeps it above 100 ms, the checks drift
/// off the round boundaries and the window is still flat at segment 31 (checked once by making
/// the update average every sample).
#[test]
fn a_smaller_receiver_rtt_sample_is_taken_at_once() {
    let w = windows_rtt(&mut client(true, true), 1..=32, three_rounds, |k| match k {
        1 => 150,
        _ => 100,
    });
    let scaled = |w: u64| w >> 7 << 7;
    assert_eq!(w[29], scaled(80_918));
    assert_eq!(w[30], scaled(82_918));
}

/// As `windows`, segment k echoing the client's timestamp of time `echoed(k)`, and the window
/// exact (before scaling).
fn exact_windows(
    c: &mut Socket,
    ks: std::ops::RangeInclusive<u64>,
    at: impl Fn(u64) -> SimTime,
    echoed: impl Fn(u64) -> SimTime,
) -> Vec<u64> {
    ks.map(|k| {
        let t = at(k);
        let d = seg(
            TcpHeader {
                seq: S + (k - 1) * M,
                ts: Some((t.as_millis() as u32, Socket::ts_now(echoed(k)))),
                ..S_TEMPL
            },
            M as u32,
        );
        let out = send(c, t, &d);
        let a = &out.last().expect("every segment is ACKed").hdr;
        assert_eq!(a.ack, S + k * M);
        a.window as u64
    })
    .collect()
}

/// Linux measures autotuning's rounds from the connection's establishment
/// (tcp_init_buffer_space): the first check comes with the first data and counts only it, so the
/// next round (segments 2–11 of `three_rounds`) holds 10 MSS, not above the initial 10-MSS
/// threshold, and the buffer stays; the window first climbs at segment 31. With a 10 000-byte
/// window (a 20 000-byte buffer, bound (20 000 − 1600) · 160/256 = 11 500 B) a round counted from
/// the first data instead (segments 1–11) would exceed it and raise the window at segment 11.
#[test]
fn autotunings_first_round_starts_at_establishment() {
    let mut c = established(TcpConfig {
        rcv_wnd_growth: true,
        rcv_buf_autotune: true,
        rcv_overhead: 600,
        rcv_buf: 10_000,
        delayed_ack: false,
        timestamps: true,
        ..cfg()
    })
    .0;
    let w = exact_windows(&mut c, 1..=40, three_rounds, |k| three_rounds(k) - ms(100));
    let mut want = vec![11_500; 30];
    want.extend((1..=10).map(|i| 11_500 + 2000 * i));
    assert_eq!(w, want);
}

/// Linux samples the receiver's RTT once per new echo value (rcv_rtt_last_tsecr): segments
/// arriving at one per ms in bursts of 30 that all echo the client's timestamp of 100 ms before
/// the burst's first segment give one 100 ms sample per burst, so the round that starts at
/// segment 1 ends 100 ms later at segment 101 (100 segments read: the window climbs from there).
/// Sampling every segment would lengthen the estimate within each burst (the later segments
/// seem up to 29 ms older) and put the check off to the next burst's first segment (121).
#[test]
fn the_receiver_rtt_is_sampled_once_per_echo() {
    let at = |k: u64| T0 + ms(100 + k);
    let echoed = |k: u64| T0 + ms(1 + (k - 1) / 30 * 30);
    let w = exact_windows(&mut client(true, true), 1..=130, at, echoed);
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 93]);
    want.extend((1..=30).map(|i| 80_918 + 2000 * i));
    assert_eq!(w, want);
}

/// Linux averages a receiver RTT sample larger than the estimate in with weight 1/8
/// (tcp_rcv_rtt_update, 6.16: only a smaller one replaces it): after 100 ms, a 180 ms sample
/// gives 110 ms, so with no new echo after it the round that starts at segment 1 (one segment per
/// ms) ends at segment 111 and the window climbs from there; taking the 180 ms at once would put
/// the check off to segment 181.
#[test]
fn a_larger_receiver_rtt_sample_is_averaged_in() {
    let at = |k: u64| T0 + ms(100 + k);
    let echoed = |k: u64| match k {
        1 => at(1) - ms(100),
        _ => at(2) - ms(180),
    };
    let w = exact_windows(&mut client(true, true), 1..=120, at, echoed);
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 103]);
    want.extend((1..=10).map(|i| 80_918 + 2000 * i));
    assert_eq!(w, want);
}

/// Linux's raise (tcp_rcvbuf_grow, 6.18): twice the round's data, plus twice that times its
/// relative growth over the largest earlier round, and the buffer that holds it. In
/// `three_rounds` the 20 000 B of segments 12–31 after 10 000 B give 2 · 20 000 · (1 + 2 · 1) =
/// 120 000 B of window, a 192 000-byte buffer, so the offered window climbs from segment 31 to
/// what that buffer's free space allows, (192 000 − 1600) · 160/256 = 119 000 B, and stops there.
#[test]
fn autotunings_raise_adds_twice_the_relative_growth() {
    let w = exact_windows(&mut client(true, true), 1..=60, three_rounds, |k| {
        three_rounds(k) - ms(100)
    });
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 23]);
    want.extend((1..=19).map(|i| 80_918 + 2000 * i));
    want.extend([119_000; 11]);
    assert_eq!(w, want);
    // A second round of 25 segments (12–36): 2 · 25 000 · (1 + 2 · 15 000/10 000) = 200 000 B,
    // so the window climbs from segment 36 on past 149 000 B (what 2 · 25 000 · 1.5 plus one
    // would give) towards 199 000 B.
    let at = |k: u64| {
        let round = match k {
            1..=10 => 100,
            11..=35 => 200,
            _ => 290,
        };
        T0 + ms(round + k)
    };
    let w = exact_windows(&mut client(true, true), 1..=80, at, |k| at(k) - ms(100));
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 28]);
    want.extend((1..=45).map(|i| 80_918 + 2000 * i));
    assert_eq!(w, want);
}

/// Without timestamps Linux times one window of data for its receiver RTT (tcp_rcv_rtt_measure:
/// from rcv_nxt + the window), the window being the buffer's (the clamp, 131 070 · 160/256 =
/// 81 918 B once the ratio is measured). At one segment per ms that takes 82 ms (segment 83), so
/// the round that starts at segment 82 ends at segment 164 with 82 segments read, and the window
/// climbs from there; timing a window of nothing would give 1 ms rounds that never exceed 10 MSS.
#[test]
fn without_timestamps_the_receiver_rtt_is_one_windows_arrival() {
    let mut c = established(TcpConfig {
        rcv_wnd_growth: true,
        rcv_buf_autotune: true,
        rcv_overhead: 600,
        rcv_buf: 65_535,
        delayed_ack: false,
        ..cfg()
    })
    .0;
    let w: Vec<u64> = (1..=170u64)
        .map(|k| {
            let out = send(&mut c, T0 + ms(100 + k), &s_data(S + (k - 1) * M));
            let a = &out.last().expect("every segment is ACKed").hdr;
            assert_eq!(a.ack, S + k * M);
            a.window as u64
        })
        .collect();
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 156]);
    want.extend((1..=7).map(|i| 80_918 + 2000 * i));
    assert_eq!(w, want);
}
