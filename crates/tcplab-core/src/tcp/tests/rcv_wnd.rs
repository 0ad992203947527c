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
    ks.map(|k| {
        let t = at(k);
        let echo = (t.as_millis() - 100 + 1) as u32;
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

/// With autotuning, Linux's rule: a round trip's data raises the buffer only when it exceeds
/// the largest earlier round's (10 MSS at first), to twice it plus 16 MSS, grown by twice its
/// relative growth. Rounds of 10 and 20 segments, 100 ms apart: after the second the window is
/// (2·20 000 + 16 000) · (1 + 2 · 9000/11 000) = 147 636 B, so it climbs on from 80 918 B two MSS
/// per segment. Dynamic Right-Sizing (switch off) wants 2 · 20 000 B, below the 65 535 B it
/// has, and the window stays.
#[test]
fn autotuning_raises_the_buffer_by_linuxs_rule() {
    // Rounds 100 ms apart: segments 1–10, 11–30, 31–40, each 1 ms after the one before.
    let at = |k: u64| {
        let round = match k {
            1..=10 => 100,
            11..=30 => 200,
            _ => 290,
        };
        T0 + ms(round + k)
    };
    let w = windows(&mut client(true, true), 1..=40, at);
    // With the 6 MiB maximum's scale, 7 (128-byte units).
    let scaled = |w: u64| w >> 7 << 7;
    // The first check, at segment 11, counts segments 1–11 (11 000 B, above 10 MSS): its window
    // (2·11 000 + 16 000)·(1 + 2·1000/10 000) = 45 600 B is below the buffer's, nothing moves.
    // The next, at segment 31, counts 12–31 (20 000 B): from there the window climbs again.
    let mut want: Vec<u64> = (1..=7).map(|k| 65_000 + 2000 * k).collect();
    want.extend([80_918; 23]);
    want.extend((1..=10).map(|k| 80_918 + 2000 * k));
    assert_eq!(w, want.into_iter().map(scaled).collect::<Vec<_>>());
    // Off: the 6 MiB maximum's window is half of it, scale 6 (64-byte units).
    let w_off = windows(&mut client(false, true), 1..=40, at);
    assert_eq!(w_off, vec![65_535 >> 6 << 6; 40]);
}
