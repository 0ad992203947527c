//! Packet-level traces of the sans-IO [`Socket`], in smoltcp's style.
//!
//! Segments are written as const header templates with struct-update syntax
//! (`TcpHeader { seq: S + 3 * M, ..S_TEMPL }`), fed with `send(&mut sock, time, &seg)`, and the
//! socket's timers are fired with `recv(&mut sock, time)`, which asserts that the earliest timer is
//! due exactly then. Fixtures build each state by really running the protocol: `established()`
//! performs the three-way handshake between two sockets over a tiny in-test wire with a 50 ms
//! one-way delay, so both ends start with one RTT sample of 100 ms (SRTT = 100 ms,
//! RTTVAR = 50 ms, RTO = 300 ms with the 200 ms floor of `cfg()`).
//!
//! Unless a test says otherwise the server is the data sender and the client the receiver; a
//! hand-written client segment stands for everything the real receiver would send.

use super::config::{
    CaMode, CcKind, ExtensionKind, FullAckCwnd, InitialWindow, OpenMode, PartialAckTimer,
    RecoverBoundary, RtoSsthresh, TcpConfig, Variant, WindowUnit,
};
use super::ext::{AnyExtension, Notice, Resend, Response, Scripted};
use super::socket::{Segment, Socket, State};
use crate::packet::{SackBlocks, TcpFlags, TcpHeader};
use crate::time::SimTime;

// ---------------------------------------------------------------------------------------------
// Constants, templates and helpers
// ---------------------------------------------------------------------------------------------

const CLIENT_PORT: u16 = 49152;
const SERVER_PORT: u16 = 80;
const CLIENT_ISS: u64 = 1_000;
const SERVER_ISS: u64 = 500_000;
/// First sequence number after each side's SYN.
const C: u64 = CLIENT_ISS + 1;
const S: u64 = SERVER_ISS + 1;
/// The MSS of `cfg()`.
const M: u64 = 1000;
/// One-way delay of the fixtures' wire.
const D: SimTime = SimTime::from_millis(50);
/// When `established()` returns: SYN at 0, SYN-ACK at 50 ms, ACK at 100 ms, arriving at 150 ms.
const T0: SimTime = SimTime::from_millis(150);

const NO_SACK: SackBlocks = SackBlocks {
    n: 0,
    blocks: [(0, 0); 4],
};
const SYN_ACK: TcpFlags = TcpFlags(TcpFlags::SYN.0 | TcpFlags::ACK.0);
const FIN_ACK: TcpFlags = TcpFlags(TcpFlags::FIN.0 | TcpFlags::ACK.0);

/// A client → server segment of an established connection, no options.
const C_TEMPL: TcpHeader = TcpHeader {
    sport: CLIENT_PORT,
    dport: SERVER_PORT,
    seq: C,
    ack: S,
    flags: TcpFlags::ACK,
    window: 65535,
    wscale_applied: 0,
    mss: None,
    wscale: None,
    sack_permitted: false,
    sack: NO_SACK,
    ts: None,
    dup_count: None,
};
/// A server → client segment of an established connection, no options.
const S_TEMPL: TcpHeader = TcpHeader {
    sport: SERVER_PORT,
    dport: CLIENT_PORT,
    seq: S,
    ack: C,
    ..C_TEMPL
};
/// The SYN a `cfg()` client sends (window scale offered with shift 0: the buffer fits 16 bits).
const SYN_TEMPL: TcpHeader = TcpHeader {
    seq: CLIENT_ISS,
    ack: 0,
    flags: TcpFlags::SYN,
    mss: Some(1000),
    wscale: Some(0),
    ..C_TEMPL
};
/// The SYN-ACK a `cfg()` server answers `SYN_TEMPL` with.
const SYNACK_TEMPL: TcpHeader = TcpHeader {
    seq: SERVER_ISS,
    ack: C,
    flags: SYN_ACK,
    mss: Some(1000),
    wscale: Some(0),
    ..S_TEMPL
};

/// 1000-byte MSS and a 200 ms RTO floor (ns-2/Linux) so that the handshake's 100 ms RTT gives
/// RTO = 300 ms; everything else is the RFC default.
fn cfg() -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rto_min: ms(200),
        ..TcpConfig::default()
    }
}

/// `cfg()` with RFC 7323 timestamps.
fn ts_cfg() -> TcpConfig {
    TcpConfig {
        timestamps: true,
        ..cfg()
    }
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn secs(x: u64) -> SimTime {
    SimTime::from_secs(x)
}

fn seg(hdr: TcpHeader, payload: u32) -> Segment {
    Segment {
        hdr,
        payload,
        ect: false,
    }
}

/// The client's pure ACK of everything below `ack`.
fn c_ack(ack: u64) -> Segment {
    seg(TcpHeader { ack, ..C_TEMPL }, 0)
}

/// The client's ACK with SACK blocks (most recent first).
fn c_sack(ack: u64, blocks: &[(u64, u64)]) -> Segment {
    let mut sack = NO_SACK;
    for &(s, e) in blocks {
        sack.push(s, e);
    }
    seg(
        TcpHeader {
            ack,
            sack,
            ..C_TEMPL
        },
        0,
    )
}

/// The client's pure ACK of everything below `ack` with ECN-Echo (RFC 3168 §6.1.3).
fn ece(ack: u64) -> Segment {
    seg(
        TcpHeader {
            ack,
            flags: TcpFlags(TcpFlags::ACK.0 | TcpFlags::ECE.0),
            ..C_TEMPL
        },
        0,
    )
}

/// A full-sized server data segment at `seq`.
fn s_data(seq: u64) -> Segment {
    seg(TcpHeader { seq, ..S_TEMPL }, M as u32)
}

/// (seq, payload) of each segment: the compact form of a trace.
fn segs(out: &[Segment]) -> Vec<(u64, u32)> {
    out.iter().map(|s| (s.hdr.seq, s.payload)).collect()
}

/// Feeds `seg` to `sock` at `time` and returns what the socket sends in reply.
#[track_caller]
fn send(sock: &mut Socket, time: SimTime, seg: &Segment) -> Vec<Segment> {
    let mut out = Vec::new();
    sock.on_segment(time, &seg.hdr, seg.payload, false, &mut out);
    out
}

/// Wakes `sock` for its earliest timer, which must be due exactly at `time`, and returns what it
/// sends.
#[track_caller]
fn recv(sock: &mut Socket, time: SimTime) -> Vec<Segment> {
    assert_eq!(sock.poll_timeout(), Some(time), "next timer");
    let mut out = Vec::new();
    sock.handle_timeout(time, &mut out);
    out
}

/// Wakes `sock` for its earliest timer, whenever that is.
#[track_caller]
fn fire(sock: &mut Socket) -> (SimTime, Vec<Segment>) {
    let t = sock.poll_timeout().expect("a timer is armed");
    (t, recv(sock, t))
}

#[track_caller]
fn write(sock: &mut Socket, time: SimTime, n: u64) -> Vec<Segment> {
    let mut out = Vec::new();
    sock.write(time, n, &mut out);
    out
}

#[track_caller]
fn write_all(sock: &mut Socket, time: SimTime) -> Vec<Segment> {
    let mut out = Vec::new();
    sock.write_unlimited(time, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// The wire and the fixtures
// ---------------------------------------------------------------------------------------------

type DropFn = Box<dyn FnMut(bool, &Segment) -> bool>;

/// A tiny wire between a client and a server: a fixed one-way delay, a drop filter, and a log of
/// everything either side sent. Events run in time order, deliveries before timers.
struct Wire {
    now: SimTime,
    delay: SimTime,
    /// (arrival, to_server, segment)
    flight: Vec<(SimTime, bool, Segment)>,
    /// Returns true for segments to lose; arguments are (from_server, segment).
    drop: DropFn,
    /// (time sent, from_server, segment), dropped ones included.
    log: Vec<(SimTime, bool, Segment)>,
}

impl Wire {
    fn new(delay: SimTime) -> Wire {
        Wire {
            now: SimTime::ZERO,
            delay,
            flight: Vec::new(),
            drop: Box::new(|_, _| false),
            log: Vec::new(),
        }
    }

    fn put(&mut self, from_server: bool, out: Vec<Segment>) {
        for sg in out {
            self.log.push((self.now, from_server, sg.clone()));
            if !(self.drop)(from_server, &sg) {
                self.flight.push((self.now + self.delay, !from_server, sg));
            }
        }
    }

    /// Runs the next event due at or before `until`; false when there is none.
    fn step(&mut self, c: &mut Socket, s: &mut Socket, until: SimTime) -> bool {
        let arrival = (0..self.flight.len()).min_by_key(|&i| (self.flight[i].0, i));
        let (tc, ts) = (c.poll_timeout(), s.poll_timeout());
        let next = [arrival.map(|i| self.flight[i].0), tc, ts]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next.filter(|&t| t <= until) else {
            return false;
        };
        self.now = t;
        let mut out = Vec::new();
        match arrival.filter(|&i| self.flight[i].0 == t) {
            Some(i) => {
                let (_, to_server, sg) = self.flight.remove(i);
                let sock = if to_server { &mut *s } else { &mut *c };
                sock.on_segment(t, &sg.hdr, sg.payload, false, &mut out);
                self.put(to_server, out);
            }
            None if tc == Some(t) => {
                c.handle_timeout(t, &mut out);
                self.put(false, out);
            }
            None => {
                s.handle_timeout(t, &mut out);
                self.put(true, out);
            }
        }
        true
    }

    fn run(&mut self, c: &mut Socket, s: &mut Socket, until: SimTime) {
        while self.step(c, s, until) {}
    }

    /// What one side sent, in order.
    fn sent_by(&self, server: bool) -> Vec<(SimTime, Segment)> {
        self.log
            .iter()
            .filter(|l| l.1 == server)
            .map(|l| (l.0, l.2.clone()))
            .collect()
    }
}

/// A client that has just sent its SYN at t = 0.
fn syn_sent(conf: TcpConfig) -> (Socket, Vec<Segment>) {
    let mut c = Socket::new(conf, CLIENT_PORT, SERVER_PORT, CLIENT_ISS);
    let mut out = Vec::new();
    c.connect(SimTime::ZERO, &mut out);
    assert_eq!(c.state(), State::SynSent);
    (c, out)
}

/// A server that has answered `SYN_TEMPL` at t = 0 with its SYN-ACK.
fn syn_received(conf: TcpConfig) -> (Socket, Vec<Segment>) {
    let mut s = Socket::new(conf, SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    s.listen();
    let out = send(&mut s, SimTime::ZERO, &seg(SYN_TEMPL, 0));
    assert_eq!(s.state(), State::SynReceived);
    (s, out)
}

/// Client and server after a real handshake over the wire; the wire's clock stands at `T0`.
fn established_wire(ccfg: TcpConfig, scfg: TcpConfig) -> (Socket, Socket, Wire) {
    let (mut c, syn) = syn_sent(ccfg);
    let mut s = Socket::new(scfg, SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    s.listen();
    let mut w = Wire::new(D);
    w.put(false, syn);
    w.run(&mut c, &mut s, T0);
    assert_eq!(w.now, T0);
    assert_eq!(c.state(), State::Established);
    assert_eq!(s.state(), State::Established);
    assert_eq!(w.log.len(), 3, "SYN, SYN-ACK, ACK");
    (c, s, w)
}

fn established_with(ccfg: TcpConfig, scfg: TcpConfig) -> (Socket, Socket) {
    let (c, s, _) = established_wire(ccfg, scfg);
    (c, s)
}

fn established(conf: TcpConfig) -> (Socket, Socket) {
    established_with(conf.clone(), conf)
}

/// An established server that sent its first flight of unlimited data at `T0`.
fn sending(conf: TcpConfig) -> (Socket, Vec<Segment>) {
    let (_, mut s) = established(conf);
    let out = write_all(&mut s, T0);
    (s, out)
}

// ---------------------------------------------------------------------------------------------
// Tests for the three-way handshake (RFC 9293 §3.5, options of RFC 9293 §3.7.1, RFC 7323, RFC 2018)
// ---------------------------------------------------------------------------------------------

#[test]
fn handshake_negotiates_offered_options() {
    let conf = TcpConfig {
        sack: true,
        timestamps: true,
        rcv_buf: 1 << 20,
        ..cfg()
    };
    let mut c = Socket::new(conf.clone(), CLIENT_PORT, SERVER_PORT, CLIENT_ISS);
    let mut s = Socket::new(conf, SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    s.listen();
    let mut syn = Vec::new();
    c.connect(SimTime::ZERO, &mut syn);
    // 1 MiB needs shift 5 (2^20 >> 5 = 32768); TSval = 1 ms clock + 1.
    assert_eq!(
        syn,
        [seg(
            TcpHeader {
                window: 1 << 20,
                wscale: Some(5),
                sack_permitted: true,
                ts: Some((1, 0)),
                ..SYN_TEMPL
            },
            0
        )]
    );
    // RFC 7323 §2.2: the window of a SYN is never scaled.
    assert_eq!(syn[0].hdr.window_field(), 65535);

    let synack = send(&mut s, ms(50), &syn[0]);
    assert_eq!(
        synack,
        [seg(
            TcpHeader {
                window: 1 << 20,
                wscale: Some(5),
                sack_permitted: true,
                ts: Some((51, 1)),
                ..SYNACK_TEMPL
            },
            0
        )]
    );
    assert_eq!(synack[0].hdr.window_field(), 65535);

    let ack = send(&mut c, ms(100), &synack[0]);
    assert_eq!(c.state(), State::Established);
    assert_eq!(
        ack,
        [seg(
            TcpHeader {
                window: 1 << 20,
                wscale_applied: 5,
                ts: Some((101, 51)),
                ..C_TEMPL
            },
            0
        )]
    );
    assert_eq!(ack[0].hdr.window_field(), 32768);
    assert!(send(&mut s, ms(150), &ack[0]).is_empty());
    assert_eq!(s.state(), State::Established);
    // The SYN-ACK's window was unscaled, the ACK's is scaled.
    assert_eq!(c.snd_wnd(), 65535);
    assert_eq!(s.snd_wnd(), 1 << 20);
    // RFC 7323 §4: the handshake gives an RTT sample from TSecr on both ends.
    assert_eq!(c.srtt(), Some(ms(100)));
    assert_eq!(s.srtt(), Some(ms(100)));
}

/// A one-way start (`open = "none"`) has no SYN to carry the window-scale option: the scale is
/// agreed from both ends' configurations (ns-2's window_ has no 16-bit field). Both scale: the
/// 1 MB window is carried whole (shift 4 for 1 MB, RFC 7323 §2.3). Either end without scaling:
/// neither scales and the window stops at 65535 B (RFC 7323 §2.2).
#[test]
fn a_one_way_start_scales_when_both_configurations_do() {
    let big = |scaling: bool| TcpConfig {
        open: OpenMode::None,
        rcv_buf: 1_000_000,
        window_scaling: scaling,
        ..TcpConfig::ns2()
    };
    for (a_scales, b_scales, want) in [
        (true, true, 1_000_000),
        (true, false, 65_535),
        (false, true, 65_535),
        (false, false, 65_535),
    ] {
        let mut a = Socket::new(big(a_scales), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
        let mut b = Socket::new(big(b_scales), CLIENT_PORT, SERVER_PORT, CLIENT_ISS);
        let (pa, pb) = (a.one_way_peer(), b.one_way_peer());
        a.open_one_way(SimTime::ZERO, pb);
        b.open_one_way(SimTime::ZERO, pa);
        assert_eq!(
            (a.snd_wnd(), b.snd_wnd()),
            (want, want),
            "{a_scales} {b_scales}"
        );
        // What b advertises in a segment is read by a as b meant it.
        let mut out = vec![];
        b.write_unlimited(SimTime::ZERO, &mut out);
        let h = &out[0].hdr;
        assert_eq!((h.window_field() as u64) << h.wscale_applied, want);
    }
}

#[test]
fn window_scale_only_when_both_sides_offer() {
    let big = TcpConfig {
        rcv_buf: 1 << 20,
        ..cfg()
    };
    let no_ws = TcpConfig {
        window_scaling: false,
        ..big.clone()
    };

    // The client offers shift 5; the server does not scale: RFC 7323 §2.2, the SYN-ACK carries no
    // option and neither side scales.
    let (c, s, w) = established_wire(big.clone(), no_ws.clone());
    let [syn, synack, ack] = [&w.log[0].2, &w.log[1].2, &w.log[2].2];
    assert_eq!(syn.hdr.wscale, Some(5));
    assert_eq!(synack.hdr.wscale, None);
    assert_eq!(ack.hdr.wscale_applied, 0);
    assert_eq!(ack.hdr.window_field(), 65535);
    assert_eq!(s.snd_wnd(), 65535);
    assert_eq!(c.snd_wnd(), 65535);

    // The server would scale but the client did not offer: no option on the SYN-ACK either.
    let (_c, mut s, w) = established_wire(no_ws, big);
    assert_eq!(w.log[0].2.hdr.wscale, None);
    assert_eq!(w.log[1].2.hdr.wscale, None);
    let data = write(&mut s, T0, 1000);
    assert_eq!(data[0].hdr.wscale_applied, 0);
    assert_eq!(data[0].hdr.window_field(), 65535);
}

#[test]
fn sack_and_timestamps_only_when_both_sides_offer() {
    let ccfg = TcpConfig {
        sack: true,
        timestamps: true,
        ..cfg()
    };
    let (mut c, _s, w) = established_wire(ccfg, cfg());
    assert!(w.log[0].2.hdr.sack_permitted);
    assert!(w.log[0].2.hdr.ts.is_some());
    assert_eq!(w.log[1].2, seg(SYNACK_TEMPL, 0));
    assert_eq!(w.log[2].2, c_ack(S));
    // No SACK blocks for out-of-order data when SACK was not negotiated.
    let out = send(&mut c, T0, &s_data(S + M));
    assert_eq!(out, [c_ack(S)]);
}

#[test]
fn mss_option_bounds_segment_size() {
    // RFC 9293 §3.7.1: send no segment larger than the peer's MSS.
    let ccfg = TcpConfig { mss: 536, ..cfg() };
    let scfg = TcpConfig { mss: 1460, ..cfg() };
    let (_c, mut s) = established_with(ccfg, scfg);
    assert_eq!(s.mss(), 536);
    // IW = min(4·536, max(2·536, 4380)) = 2144 = 4 segments (RFC 3390).
    let out = write_all(&mut s, T0);
    assert_eq!(
        segs(&out),
        [(S, 536), (S + 536, 536), (S + 1072, 536), (S + 1608, 536)]
    );

    // Without the option the default is 536 (RFC 9293 §3.7.1).
    let mut s = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    s.listen();
    send(
        &mut s,
        SimTime::ZERO,
        &seg(
            TcpHeader {
                mss: None,
                ..SYN_TEMPL
            },
            0,
        ),
    );
    assert_eq!(s.mss(), 536);
}

#[test]
fn syn_retransmitted_with_exponential_backoff() {
    let (mut c, syn) = syn_sent(cfg());
    assert_eq!(syn, [seg(SYN_TEMPL, 0)]);
    // RFC 6298 (2.1): RTO = 1 s before any sample; (5.5) doubled on every expiry.
    assert_eq!(c.rto(), secs(1));
    assert_eq!(recv(&mut c, secs(1)), syn);
    assert_eq!(recv(&mut c, secs(3)), syn);
    assert_eq!(recv(&mut c, secs(7)), syn);
    assert_eq!(recv(&mut c, secs(15)), syn);
    assert_eq!(c.poll_timeout(), Some(secs(31)));
    assert_eq!(c.state(), State::SynSent);
}

#[test]
fn synack_retransmitted_on_timeout() {
    let (mut s, synack) = syn_received(cfg());
    assert_eq!(synack, [seg(SYNACK_TEMPL, 0)]);
    assert_eq!(recv(&mut s, secs(1)), synack);
    assert_eq!(recv(&mut s, secs(3)), synack);
    // The ACK completes the handshake; RFC 6298 (5.7): no sample, so RTO = 3 s once data flows.
    assert!(send(&mut s, ms(3100), &c_ack(S)).is_empty());
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.srtt(), None);
    assert_eq!(s.rto(), secs(3));
}

#[test]
fn synack_answering_a_duplicate_syn_is_not_timed() {
    let (mut s, synack) = syn_received(cfg());
    // The SYN-ACK is lost; the client's retransmitted SYN is answered with a second SYN-ACK.
    assert_eq!(send(&mut s, ms(300), &seg(SYN_TEMPL, 0)), synack);
    // The ACK may answer either copy: Karn (RFC 6298 §3), no sample.
    assert!(send(&mut s, ms(400), &c_ack(S)).is_empty());
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.srtt(), None);
    assert_eq!(s.rto(), secs(1));
}

#[test]
fn rto_is_three_seconds_after_a_syn_timeout() {
    // Baseline: a handshake without loss leaves the sampled RTO (100 ms RTT → 300 ms).
    let (mut c, _) = syn_sent(cfg());
    send(&mut c, ms(100), &seg(SYNACK_TEMPL, 0));
    assert_eq!(c.rto(), ms(300));

    let (mut c, syn) = syn_sent(cfg());
    assert_eq!(recv(&mut c, secs(1)), syn);
    let t = ms(1100);
    assert_eq!(send(&mut c, t, &seg(SYNACK_TEMPL, 0)), [c_ack(S)]);
    assert_eq!(c.state(), State::Established);
    // Karn: the SYN was retransmitted, so no sample; RFC 6298 (5.7): RTO = 3 s.
    assert_eq!(c.srtt(), None);
    assert_eq!(c.rto(), secs(3));
    let data = write(&mut c, t, 1000);
    assert_eq!(segs(&data), [(C, 1000)]);
    assert_eq!(c.poll_timeout(), Some(t + secs(3)));
    // The first valid sample replaces it (R = 100 ms → 300 ms).
    send(
        &mut c,
        t + ms(100),
        &seg(
            TcpHeader {
                ack: C + M,
                ..S_TEMPL
            },
            0,
        ),
    );
    assert_eq!(c.srtt(), Some(ms(100)));
    assert_eq!(c.rto(), ms(300));
}

#[test]
fn syn_gives_up_after_max_retransmissions() {
    let conf = TcpConfig {
        max_retransmissions: 3,
        ..cfg()
    };
    let (mut c, syn) = syn_sent(conf);
    for t in [1, 3, 7] {
        assert_eq!(recv(&mut c, secs(t)), syn);
        assert!(!c.aborted());
    }
    assert!(recv(&mut c, secs(15)).is_empty());
    assert!(c.aborted());
    assert_eq!(c.state(), State::Closed);
    assert_eq!(c.poll_timeout(), None);
}

// ---------------------------------------------------------------------------------------------
// Tests for the retransmission timer (RFC 6298)
// ---------------------------------------------------------------------------------------------

#[test]
fn rto_follows_rfc6298_samples() {
    let conf = TcpConfig {
        rto_min: ms(100),
        ..cfg()
    };
    let (_c, mut s) = established(conf);
    // (2.2) first sample R = 100 ms: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4·RTTVAR = 300 ms.
    assert_eq!(s.srtt(), Some(ms(100)));
    assert_eq!(s.rto(), ms(300));
    write(&mut s, T0, 1000);
    // (5.1) the timer starts with the segment.
    assert_eq!(s.poll_timeout(), Some(T0 + ms(300)));
    // (2.3) R' = 200 ms: RTTVAR = 3/4·50 + 1/4·|100 − 200| = 62.5, SRTT = 7/8·100 + 1/8·200 = 112.5.
    let t = T0 + ms(200);
    send(&mut s, t, &c_ack(S + M));
    assert_eq!(s.srtt(), Some(SimTime(112_500_000)));
    assert_eq!(s.rto(), SimTime(362_500_000));
    // (5.2) all data acknowledged: the timer stops.
    assert_eq!(s.poll_timeout(), None);
    write(&mut s, t, 1000);
    assert_eq!(s.poll_timeout(), Some(t + SimTime(362_500_000)));
}

#[test]
fn rto_is_clamped_and_includes_granularity() {
    // (2.4): RTO below the minimum is rounded up to it.
    let (_c, s) = established(TcpConfig {
        rto_min: secs(1),
        ..cfg()
    });
    assert_eq!(s.rto(), secs(1));
    // (2.2): RTO = SRTT + max(G, 4·RTTVAR) = 100 + max(500, 200) = 600 ms.
    let (_c, s) = established(TcpConfig {
        rto_min: ms(100),
        clock_granularity: ms(500),
        ..cfg()
    });
    assert_eq!(s.rto(), ms(600));
}

#[test]
fn rto_backs_off_up_to_rto_max() {
    let conf = TcpConfig {
        rto_min: secs(1),
        rto_max: secs(5),
        ..cfg()
    };
    let (_c, mut s) = established(conf);
    let first = write(&mut s, T0, 1000);
    // (5.5) 1, 2, 4 s, then the 5 s maximum (2.5).
    let mut t = T0;
    for rto in [1, 2, 4, 5, 5, 5] {
        t += secs(rto);
        assert_eq!(recv(&mut s, t), first);
    }
    assert_eq!(s.rto(), secs(5));
}

#[test]
fn karn_no_sample_from_retransmission_backoff_kept_until_valid_sample() {
    let (_c, mut s) = established(cfg());
    let first = write(&mut s, T0, 1000);
    assert_eq!(recv(&mut s, T0 + ms(300)), first);
    assert_eq!(s.rto(), ms(600));
    // The ACK is ambiguous (original or retransmission): no sample, the backed-off RTO stays.
    send(&mut s, T0 + ms(350), &c_ack(S + M));
    assert_eq!(s.srtt(), Some(ms(100)));
    assert_eq!(s.rto(), ms(600));
    assert_eq!(s.poll_timeout(), None);
    let t = T0 + ms(400);
    write(&mut s, t, 1000);
    assert_eq!(s.poll_timeout(), Some(t + ms(600)));
    // A segment sent once gives a valid sample: SRTT 100, RTTVAR 37.5, RTO 250 ms, backoff gone.
    send(&mut s, t + ms(100), &c_ack(S + 2 * M));
    assert_eq!(s.srtt(), Some(ms(100)));
    assert_eq!(s.rto(), ms(250));
}

#[test]
fn karn_fast_retransmission_stops_the_timing() {
    let (mut s, _) = ten_segments(Variant::Reno);
    // The first segment is timed; it is lost and fast-retransmitted.
    for _ in 0..3 {
        send(&mut s, T0 + ms(100), &c_ack(S));
    }
    assert!(s.in_recovery());
    // The ACK covers the timed segment but may answer the retransmission: no sample.
    send(&mut s, T0 + ms(400), &c_ack(S + 10 * M));
    assert_eq!(s.srtt(), Some(ms(100)));
}

#[test]
fn timers_fire_on_tick_multiples() {
    let conf = TcpConfig {
        timer_tick: ms(500),
        ..cfg()
    };
    let (mut c, mut s) = established(conf);
    let first = write(&mut s, T0, 1000);
    // 150 ms + 300 ms = 450 ms → the next 500 ms tick.
    assert_eq!(s.poll_timeout(), Some(ms(500)));
    assert_eq!(recv(&mut s, ms(500)), first);
    // 500 + 600 = 1100 ms → 1500 ms.
    assert_eq!(s.poll_timeout(), Some(ms(1500)));
    // The delayed-ACK timer too: 200 + 200 ms → 500 ms.
    assert!(send(&mut c, ms(200), &first[0]).is_empty());
    assert_eq!(recv(&mut c, ms(500)), [c_ack(S + M)]);
}

// ---------------------------------------------------------------------------------------------
// Tests for giving up (RFC 1122 §4.2.3.5, R2 as a count of timeouts)
// ---------------------------------------------------------------------------------------------

#[test]
fn aborts_after_max_retransmissions_timeouts() {
    let conf = TcpConfig {
        max_retransmissions: 3,
        ..cfg()
    };
    let (_c, mut s) = established(conf);
    let first = write(&mut s, T0, 1000);
    let mut t = T0;
    for rto in [300, 600, 1200] {
        t += ms(rto);
        assert_eq!(recv(&mut s, t), first);
        assert!(!s.aborted());
        assert_eq!(s.state(), State::Established);
    }
    t += ms(2400);
    assert!(recv(&mut s, t).is_empty());
    assert!(s.aborted());
    assert_eq!(s.state(), State::Closed);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn zero_window_answers_keep_the_connection_open() {
    // RFC 1122 §4.2.2.17: data outstanding, the receiver's window closed. Each retransmission is
    // answered with a zero-window ACK for the old data, so the connection must stay open past
    // the retransmission limit; silence would abort it (previous test).
    let conf = TcpConfig {
        max_retransmissions: 3,
        ..cfg()
    };
    let (_c, mut s) = established(conf);
    assert_eq!(segs(&write(&mut s, T0, 1000)), [(S, 1000)]);
    let zero = zero_window(S);
    let mut t = T0;
    for _ in 0..6 {
        let (when, out) = fire(&mut s);
        assert_eq!(
            segs(&out),
            [(S, 1000)],
            "the retransmission probes the closed window"
        );
        assert!(!s.aborted());
        t = when + D;
        send(&mut s, t, &zero);
    }
    assert!(!s.aborted() && s.state() == State::Established);
    // The window opens: the data is acknowledged and the connection carries on.
    let open = send(&mut s, t + ms(10), &c_ack(S + M));
    assert!(open.is_empty() || segs(&open).iter().all(|&(q, _)| q >= S + M));
    assert!(!s.aborted());
}

#[test]
fn ack_of_new_data_resets_the_timeout_count() {
    let conf = TcpConfig {
        max_retransmissions: 3,
        ..cfg()
    };
    let (_c, mut s) = established(conf);
    assert_eq!(segs(&write(&mut s, T0, 2000)), [(S, 1000), (S + M, 1000)]);
    for _ in 0..2 {
        assert_eq!(segs(&fire(&mut s).1), [(S, 1000)]);
    }
    // The retransmission is acknowledged: go-back-N resends the second segment.
    let out = send(&mut s, T0 + ms(1000), &c_ack(S + M));
    assert_eq!(segs(&out), [(S + M, 1000)]);
    // Three more timeouts of the new head are allowed, the fourth aborts.
    for _ in 0..3 {
        assert_eq!(segs(&fire(&mut s).1), [(S + M, 1000)]);
        assert!(!s.aborted());
    }
    assert!(fire(&mut s).1.is_empty());
    assert!(s.aborted());
}

// ---------------------------------------------------------------------------------------------
// Tests for slow start and congestion avoidance (RFC 5681 §3.1, RFC 3390, RFC 3465)
// ---------------------------------------------------------------------------------------------

/// The first flight of a server with `scfg` talking to a client with `ccfg`.
fn first_flight(ccfg: TcpConfig, scfg: TcpConfig) -> Vec<(u64, u32)> {
    let (_c, mut s) = established_with(ccfg, scfg);
    segs(&write_all(&mut s, T0))
}

#[test]
fn initial_window_rfc3390_and_fixed() {
    let with_mss = |mss| TcpConfig { mss, ..cfg() };
    // min(4·SMSS, max(2·SMSS, 4380)): 1460 → 4380 = 3 segments.
    let f = first_flight(with_mss(1460), with_mss(1460));
    assert_eq!(f, [(S, 1460), (S + 1460, 1460), (S + 2920, 1460)]);
    // 1000 → 4000 = 4 segments.
    assert_eq!(first_flight(cfg(), cfg()).len(), 4);
    // 2190 → 4380 = 2 segments.
    let f = first_flight(with_mss(2190), with_mss(2190));
    assert_eq!(f, [(S, 2190), (S + 2190, 2190)]);
    // A fixed number of segments.
    let fixed = TcpConfig {
        initial_window: InitialWindow::Segments(3),
        ..cfg()
    };
    assert_eq!(first_flight(cfg(), fixed.clone()).len(), 3);
    // …counted in the negotiated MSS.
    let f = first_flight(with_mss(500), fixed);
    assert_eq!(f, [(S, 500), (S + 500, 500), (S + 1000, 500)]);
}

#[test]
fn slow_start_adds_min_of_acked_and_l_smss() {
    let (mut s, out) = sending(cfg());
    assert_eq!(
        segs(&out),
        [
            (S, 1000),
            (S + M, 1000),
            (S + 2 * M, 1000),
            (S + 3 * M, 1000)
        ]
    );
    assert_eq!(s.cwnd(), 4000);
    // One segment acknowledged: cwnd += 1000, two segments leave.
    let out = send(&mut s, T0 + ms(100), &c_ack(S + M));
    assert_eq!(s.cwnd(), 5000);
    assert_eq!(segs(&out), [(S + 4 * M, 1000), (S + 5 * M, 1000)]);
    // A stretch ACK of two segments adds min(N, L·SMSS) = 1000 with L = 1 (RFC 5681 eq. 2).
    let out = send(&mut s, T0 + ms(101), &c_ack(S + 3 * M));
    assert_eq!(s.cwnd(), 6000);
    assert_eq!(out.len(), 3);

    // With L = 2 (RFC 3465 §2.3) the same stretch ACK adds 2000.
    let (mut s, _) = sending(TcpConfig {
        abc_limit: 2,
        ..cfg()
    });
    send(&mut s, T0 + ms(100), &c_ack(S + 2 * M));
    assert_eq!(s.cwnd(), 6000);
    // …but never more than the bytes acknowledged.
    send(&mut s, T0 + ms(101), &c_ack(S + 2 * M + 500));
    assert_eq!(s.cwnd(), 6500);
}

#[test]
fn congestion_avoidance_counts_bytes() {
    let conf = TcpConfig {
        initial_ssthresh: Some(4000),
        ..cfg()
    };
    let (mut s, _) = sending(conf);
    assert_eq!(s.cwnd(), 4000);
    // cwnd = ssthresh: congestion avoidance, +1 SMSS once a cwnd of bytes is acknowledged.
    for k in 1..=3 {
        let out = send(&mut s, T0 + ms(100), &c_ack(S + k * M));
        assert_eq!(s.cwnd(), 4000);
        assert_eq!(segs(&out), [(S + (3 + k) * M, 1000)]);
    }
    let out = send(&mut s, T0 + ms(100), &c_ack(S + 4 * M));
    assert_eq!(s.cwnd(), 5000);
    assert_eq!(out.len(), 2);
}

#[test]
fn congestion_avoidance_per_ack() {
    let conf = TcpConfig {
        initial_ssthresh: Some(4000),
        ca_mode: CaMode::PerAck,
        ..cfg()
    };
    let (mut s, _) = sending(conf);
    // RFC 5681 eq. 3: cwnd += SMSS·SMSS/cwnd.
    send(&mut s, T0 + ms(100), &c_ack(S + M));
    assert_eq!(s.cwnd(), 4250);
    send(&mut s, T0 + ms(100), &c_ack(S + 2 * M));
    assert_eq!(s.cwnd(), 4250 + 235);
}

#[test]
fn ns2_segment_mode() {
    let conf = TcpConfig {
        window_unit: WindowUnit::Segments,
        initial_window: InitialWindow::Segments(2),
        initial_ssthresh: Some(4000),
        ..cfg()
    };
    let (mut s, out) = sending(conf);
    assert_eq!(out.len(), 2);
    // Slow start: +1 segment per ACK.
    send(&mut s, T0 + ms(100), &c_ack(S + M));
    assert_eq!(s.cwnd(), 3000);
    send(&mut s, T0 + ms(100), &c_ack(S + 2 * M));
    assert_eq!(s.cwnd(), 4000);
    // Congestion avoidance: +1/cwnd per ACK; the window is int(cwnd) segments: 4, 4.25, 4.49,
    // 4.71, 4.92, 5.12.
    let mut wins = Vec::new();
    for k in 3..=7 {
        send(&mut s, T0 + ms(100), &c_ack(S + k * M));
        wins.push(s.cwnd());
    }
    assert_eq!(wins, [4000, 4000, 4000, 4000, 5000]);
    // Timeout: ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) segments = 2, cwnd = 1.
    fire(&mut s);
    assert_eq!(s.ssthresh(), 2000);
    assert_eq!(s.cwnd(), 1000);
}

#[test]
fn timeout_sets_ssthresh_from_flight_size_once() {
    let conf = TcpConfig {
        initial_window: InitialWindow::Segments(7),
        ..cfg()
    };
    let (mut s, out) = sending(conf);
    assert_eq!(out.len(), 7);
    // RFC 5681 eq. 4: ssthresh = max(FlightSize/2, 2·SMSS) = 3500; cwnd = 1 SMSS.
    assert_eq!(segs(&fire(&mut s).1), [(S, 1000)]);
    assert_eq!(s.ssthresh(), 3500);
    assert_eq!(s.cwnd(), 1000);
    // RFC 5681 §3.1: a second timeout of the same segment holds ssthresh.
    assert_eq!(segs(&fire(&mut s).1), [(S, 1000)]);
    assert_eq!(s.ssthresh(), 3500);
    assert_eq!(s.cwnd(), 1000);
}

// ---------------------------------------------------------------------------------------------
// Tests for Reno fast retransmit / fast recovery (RFC 5681 §3.2)
// ---------------------------------------------------------------------------------------------

fn ten_segments(variant: Variant) -> (Socket, Vec<Segment>) {
    sending(TcpConfig {
        variant: Some(variant),
        initial_window: InitialWindow::Segments(10),
        ..cfg()
    })
}

#[test]
fn reno_fast_retransmit_inflation_and_deflation() {
    let (mut s, out) = ten_segments(Variant::Reno);
    assert_eq!(out.len(), 10);
    let t = T0 + ms(100);
    // Segment 0 is lost; segments 1..9 each elicit a duplicate ACK.
    assert!(send(&mut s, t, &c_ack(S)).is_empty());
    assert!(send(&mut s, t, &c_ack(S)).is_empty());
    assert!(!s.in_recovery());
    // Third duplicate: retransmit, ssthresh = max(FlightSize/2, 2·SMSS), cwnd = ssthresh + 3·SMSS.
    assert_eq!(send(&mut s, t, &c_ack(S)), [s_data(S)]);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 5000);
    assert_eq!(s.cwnd(), 8000);
    // Each further duplicate inflates by one SMSS; new data once cwnd exceeds the flight.
    assert!(send(&mut s, t, &c_ack(S)).is_empty());
    assert!(send(&mut s, t, &c_ack(S)).is_empty());
    assert_eq!(s.cwnd(), 10_000);
    for k in 10..14 {
        assert_eq!(send(&mut s, t, &c_ack(S)), [s_data(S + k * M)]);
    }
    assert_eq!(s.cwnd(), 14_000);
    // The ACK of new data deflates to ssthresh and ends recovery.
    let out = send(&mut s, T0 + ms(200), &c_ack(S + 10 * M));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5000);
    assert_eq!(out, [s_data(S + 14 * M)]);
}

#[test]
fn reno_halves_twice_for_two_losses_newreno_once() {
    // Segments 1 and 6 are lost: four duplicates, the retransmission's ACK (a partial ACK),
    // four more duplicates.
    let trace = |variant| {
        let mut s = second_segment_lost(variant);
        for _ in 0..4 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        send(&mut s, T0 + ms(200), &c_ack(S + 6 * M));
        for _ in 0..4 {
            send(&mut s, T0 + ms(200), &c_ack(S + 6 * M));
        }
        (s.ssthresh(), s.stats.fast_recoveries)
    };
    // Reno leaves recovery on the partial ACK and halves again (FlightSize 5000 → 2500).
    assert_eq!(trace(Variant::Reno), (2500, 2));
    // NewReno stays in recovery.
    assert_eq!(trace(Variant::NewReno), (5000, 1));
}

#[test]
fn limited_transmit_on_the_first_two_duplicates() {
    let (mut s, out) = sending(TcpConfig {
        variant: Some(Variant::Reno),
        limited_transmit: true,
        ..cfg()
    });
    assert_eq!(out.len(), 4);
    let t = T0 + ms(100);
    // RFC 3042: one new segment on each of the first two duplicate ACKs, cwnd unchanged.
    assert_eq!(send(&mut s, t, &c_ack(S)), [s_data(S + 4 * M)]);
    assert_eq!(send(&mut s, t, &c_ack(S)), [s_data(S + 5 * M)]);
    assert_eq!(s.cwnd(), 4000);
    // The third: fast retransmit with FlightSize = 6000 → ssthresh 3000, cwnd 6000.
    assert_eq!(send(&mut s, t, &c_ack(S)), [s_data(S)]);
    assert_eq!((s.ssthresh(), s.cwnd()), (3000, 6000));
}

// ---------------------------------------------------------------------------------------------
// Tests for NewReno (RFC 6582)
// ---------------------------------------------------------------------------------------------

/// A sender in congestion avoidance (cwnd = ssthresh = 10 segments) whose first segment has been
/// acknowledged at T0 + 100 ms: segments 1..10 are outstanding (FlightSize 10000) and the one RTT
/// sample (100 ms) gives RTO = 250 ms.
fn second_segment_lost(variant: Variant) -> Socket {
    second_segment_lost_with(TcpConfig {
        variant: Some(variant),
        ..cfg()
    })
}

fn second_segment_lost_with(conf: TcpConfig) -> Socket {
    let (mut s, out) = sending(TcpConfig {
        initial_window: InitialWindow::Segments(10),
        initial_ssthresh: Some(10 * M),
        ..conf
    });
    assert_eq!(out.len(), 10);
    assert_eq!(
        send(&mut s, T0 + ms(100), &c_ack(S + M)),
        [s_data(S + 10 * M)]
    );
    assert_eq!(s.cwnd(), 10_000);
    assert_eq!(s.rto(), ms(250));
    s
}

#[test]
fn newreno_first_segment_and_the_recover_boundary() {
    // RFC 6582 §3.2: recover starts at the ISN. Duplicates of ACK = ISN + 1 = recover + 1 cover
    // recover but not "more than" it.
    let dups = |boundary| {
        let (mut s, _) = sending(TcpConfig {
            variant: Some(Variant::NewReno),
            initial_window: InitialWindow::Segments(10),
            recover_boundary: boundary,
            ..cfg()
        });
        let out: Vec<_> = (0..9)
            .map(|_| send(&mut s, T0 + ms(100), &c_ack(S)))
            .collect();
        (s, out)
    };
    // Strict (ACK − 1 > recover, the RFC's words read literally): never a fast retransmit; the
    // timer recovers.
    let (mut s, out) = dups(RecoverBoundary::Strict);
    assert!(out.iter().all(|o| o.is_empty()));
    assert!(!s.in_recovery());
    assert_eq!(recv(&mut s, T0 + ms(300)), [s_data(S)]);
    // Inclusive (ACK > recover, ns-2/Linux/ns-3): the third duplicate retransmits.
    let (s, out) = dups(RecoverBoundary::Inclusive);
    assert_eq!(out[2], [s_data(S)]);
    assert!(s.in_recovery());
}

#[test]
fn newreno_partial_ack_retransmits_next_hole_and_deflates() {
    let mut s = second_segment_lost(Variant::NewReno);
    let t = T0 + ms(150);
    // Segments 1 and 4 lost: eight duplicates (from 2, 3, 5..10).
    send(&mut s, t, &c_ack(S + M));
    send(&mut s, t, &c_ack(S + M));
    assert_eq!(send(&mut s, t, &c_ack(S + M)), [s_data(S + M)]);
    assert_eq!(s.ssthresh(), 5000);
    assert_eq!(s.cwnd(), 8000);
    for _ in 0..5 {
        send(&mut s, t, &c_ack(S + M));
    }
    // Inflated to 13000: three new segments (11, 12, 13) went out.
    assert_eq!(s.cwnd(), 13_000);
    // Partial ACK of 3000 bytes: retransmit segment 4, cwnd = 13000 − 3000 + 1000 = 11000, which
    // lets one new segment out.
    let out = send(&mut s, T0 + ms(250), &c_ack(S + 4 * M));
    assert_eq!(out, [s_data(S + 4 * M), s_data(S + 14 * M)]);
    assert_eq!(s.cwnd(), 11_000);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 5000);
    // Further duplicates keep inflating; they never start a second recovery.
    assert_eq!(
        send(&mut s, T0 + ms(250), &c_ack(S + 4 * M)),
        [s_data(S + 15 * M)]
    );
    for _ in 0..3 {
        send(&mut s, T0 + ms(250), &c_ack(S + 4 * M));
    }
    assert_eq!(s.ssthresh(), 5000);
    assert_eq!(s.stats.fast_recoveries, 1);
    // A partial ACK of less than one SMSS: deflate by it, add nothing back.
    let before = s.cwnd();
    let out = send(&mut s, T0 + ms(350), &c_ack(S + 4 * M + 500));
    assert_eq!(segs(&out)[0], (S + 4 * M + 500, 1000));
    assert_eq!(s.cwnd(), before - 500);
}

#[test]
fn newreno_timer_reset_on_first_partial_ack_only() {
    let mut s = second_segment_lost(Variant::NewReno);
    // Segments 1, 4 and 7 lost: seven duplicates. The timer runs from the ACK at T0 + 100 ms.
    for _ in 0..7 {
        send(&mut s, T0 + ms(150), &c_ack(S + M));
    }
    assert!(s.in_recovery());
    assert_eq!(s.poll_timeout(), Some(T0 + ms(350)));
    // First partial ACK: the timer restarts.
    let out = send(&mut s, T0 + ms(200), &c_ack(S + 4 * M));
    assert_eq!(out[0], s_data(S + 4 * M));
    assert_eq!(s.poll_timeout(), Some(T0 + ms(450)));
    // Second partial ACK: it does not.
    let out = send(&mut s, T0 + ms(300), &c_ack(S + 7 * M));
    assert_eq!(out[0], s_data(S + 7 * M));
    assert_eq!(s.poll_timeout(), Some(T0 + ms(450)));
    // The full ACK restarts it for the new data sent during recovery.
    send(&mut s, T0 + ms(400), &c_ack(S + 11 * M));
    assert!(!s.in_recovery());
    assert_eq!(s.poll_timeout(), Some(T0 + ms(650)));
}

#[test]
fn newreno_full_ack_cwnd_options() {
    // Segment 1 lost, five duplicates arrive (the others are lost): cwnd = 10000 = FlightSize, no
    // new data went out; the full ACK leaves FlightSize = 0.
    let exit = |full_ack| {
        let mut s = second_segment_lost_with(TcpConfig { full_ack, ..cfg() });
        for k in 1..=5 {
            // Only the third duplicate sends (the retransmission).
            let out = send(&mut s, T0 + ms(150), &c_ack(S + M));
            assert_eq!(out.len(), usize::from(k == 3));
        }
        assert_eq!(s.cwnd(), 10_000);
        let out = send(&mut s, T0 + ms(250), &c_ack(S + 11 * M));
        assert!(!s.in_recovery());
        (s.cwnd(), out.len())
    };
    // (1) min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(5000, 2000).
    assert_eq!(exit(FullAckCwnd::FlightSize), (2000, 2));
    // (2) ssthresh.
    assert_eq!(exit(FullAckCwnd::Ssthresh), (5000, 5));
}

/// After a timeout recover = HighData; the go-back-N burst's duplicate ACKs then acknowledge
/// exactly recover + 1 (RFC 6582 §3.2 step 4 and §4's rationale).
fn after_rto_dups_at_recover_plus_one(boundary: RecoverBoundary) -> (Socket, Vec<Segment>) {
    let (mut s, _) = sending(TcpConfig {
        variant: Some(Variant::NewReno),
        initial_window: InitialWindow::Segments(10),
        recover_boundary: boundary,
        ..cfg()
    });
    // No ACK at all: timeout. recover = highest sequence number sent (S + 10M − 1).
    assert_eq!(recv(&mut s, T0 + ms(300)), [s_data(S)]);
    assert_eq!(s.ssthresh(), 5000);
    // Segment 1 had arrived: slow start to 2000, go-back-N resends 2 and 3.
    let out = send(&mut s, T0 + ms(400), &c_ack(S + 2 * M));
    assert_eq!(out, [s_data(S + 2 * M), s_data(S + 3 * M)]);
    // Everything else had arrived: three new segments.
    let out = send(&mut s, T0 + ms(500), &c_ack(S + 10 * M));
    assert_eq!(
        segs(&out),
        [(S + 10 * M, 1000), (S + 11 * M, 1000), (S + 12 * M, 1000)]
    );
    // The duplicate of segment 3 produces duplicate ACKs for S + 10M = recover + 1.
    let mut out = vec![];
    for _ in 0..3 {
        out.extend(send(&mut s, T0 + ms(500), &c_ack(S + 10 * M)));
    }
    (s, out)
}

#[test]
fn newreno_no_fast_retransmit_after_rto_until_recover_is_passed() {
    // Strict: ACK − 1 = recover is not beyond it — no fast retransmit.
    let (mut s, out) = after_rto_dups_at_recover_plus_one(RecoverBoundary::Strict);
    assert!(out.is_empty());
    assert!(!s.in_recovery());
    assert_eq!(s.ssthresh(), 5000);
    // Once the cumulative ACK passes recover + 1, three duplicates do trigger it.
    let out = send(&mut s, T0 + ms(600), &c_ack(S + 11 * M));
    assert_eq!(segs(&out), [(S + 13 * M, 1000), (S + 14 * M, 1000)]);
    send(&mut s, T0 + ms(600), &c_ack(S + 11 * M));
    send(&mut s, T0 + ms(600), &c_ack(S + 11 * M));
    // FlightSize 4000: ssthresh 2000, cwnd 5000, room for one new segment after the retransmission.
    assert_eq!(
        send(&mut s, T0 + ms(600), &c_ack(S + 11 * M)),
        [s_data(S + 11 * M), s_data(S + 15 * M)]
    );
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 2000);

    // Inclusive: ACK = recover + 1 covers recover, so the third duplicate starts an episode.
    let (s, out) = after_rto_dups_at_recover_plus_one(RecoverBoundary::Inclusive);
    assert_eq!(out.first(), Some(&s_data(S + 10 * M)));
    assert!(s.in_recovery());
    assert_eq!(s.stats.fast_recoveries, 1);
}

#[test]
fn rto_inside_newreno_recovery_keeps_ssthresh() {
    // Segment 1 lost; recovery at ssthresh 5000; twelve more duplicates inflate cwnd to 20000 and
    // let ten new segments out, so the flight grows to 20 segments. Then the timer expires.
    let trace = |rule| {
        let mut s = second_segment_lost_with(TcpConfig {
            rto_ssthresh: rule,
            ..cfg()
        });
        for _ in 0..15 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        assert!(s.in_recovery());
        assert_eq!(s.ssthresh(), 5000);
        assert_eq!(s.cwnd(), 20_000);
        let (_, out) = fire(&mut s);
        assert_eq!(out, [s_data(S + M)]);
        assert!(!s.in_recovery());
        (s.ssthresh(), s.cwnd())
    };
    // RFC 5681 eq. (4) is an upper bound; the episode's ssthresh stands (Linux does the same).
    assert_eq!(trace(RtoSsthresh::KeepInRecovery), (5000, 1000));
    // Recomputed from the inflated flight (20 segments): ssthresh rises to 10000.
    assert_eq!(trace(RtoSsthresh::FlightSize), (10_000, 1000));
}

/// ns-2.35's rule (rto_ssthresh = "every_timeout", windows in segments): Reno's timeout clears
/// the inflation first (dupwnd_ = 0), so ssthresh = ⌊min(cwnd, ssthresh)/2⌋ = ⌊5/2⌋ = 2
/// segments; RFC 5681 with the classic rule keeps the episode's 5.
#[test]
fn rto_inside_recovery_under_ns2s_rule_halves_the_uninflated_window() {
    let trace = |rule| {
        let mut s = second_segment_lost_with(TcpConfig {
            rto_ssthresh: rule,
            window_unit: WindowUnit::Segments,
            ..cfg()
        });
        for _ in 0..15 {
            send(&mut s, T0 + ms(150), &c_ack(S + M));
        }
        assert!(s.in_recovery());
        assert_eq!(s.ssthresh(), 5000);
        fire(&mut s);
        (s.ssthresh(), s.cwnd())
    };
    assert_eq!(trace(RtoSsthresh::EveryTimeout), (2000, 1000));
    assert_eq!(trace(RtoSsthresh::KeepInRecovery), (5000, 1000));
}

#[test]
fn rto_outside_recovery_uses_the_flight_either_way() {
    // The rule only concerns timeouts inside an episode.
    for rule in [RtoSsthresh::KeepInRecovery, RtoSsthresh::FlightSize] {
        let (mut s, out) = sending(TcpConfig {
            initial_window: InitialWindow::Segments(7),
            rto_ssthresh: rule,
            ..cfg()
        });
        assert_eq!(out.len(), 7);
        fire(&mut s);
        assert_eq!(s.ssthresh(), 3500);
    }
}

#[test]
fn newreno_slow_but_steady_resets_the_timer_on_every_partial_ack() {
    let mut s = second_segment_lost_with(TcpConfig {
        partial_ack_timer: PartialAckTimer::SlowButSteady,
        ..cfg()
    });
    // Segments 1, 4 and 7 lost, as in the Impatient test above.
    for _ in 0..7 {
        send(&mut s, T0 + ms(150), &c_ack(S + M));
    }
    assert_eq!(s.poll_timeout(), Some(T0 + ms(350)));
    send(&mut s, T0 + ms(200), &c_ack(S + 4 * M));
    assert_eq!(s.poll_timeout(), Some(T0 + ms(450)));
    // RFC 6582 §4 Slow-but-Steady: the second partial ACK restarts it too.
    send(&mut s, T0 + ms(300), &c_ack(S + 7 * M));
    assert_eq!(s.poll_timeout(), Some(T0 + ms(550)));
}

// ---------------------------------------------------------------------------------------------
// Tests for SACK (RFC 2018 receiver, RFC 6675 sender)
// ---------------------------------------------------------------------------------------------

fn sack_cfg() -> TcpConfig {
    TcpConfig {
        variant: Some(Variant::Sack),
        initial_window: InitialWindow::Segments(10),
        ..cfg()
    }
}

#[test]
fn receiver_sack_blocks_most_recent_first() {
    let blocks_after = |timestamps: bool| {
        let conf = TcpConfig {
            timestamps,
            ..sack_cfg()
        };
        let (mut c, _s) = established(conf);
        let mut got = Vec::new();
        for k in [1, 3, 5, 7, 2, 0] {
            let out = send(&mut c, T0 + ms(10 * k), &s_data(S + k * M));
            assert_eq!(
                out.len(),
                1,
                "out-of-order and gap-filling segments are ACKed at once"
            );
            let rel: Vec<_> = out[0]
                .hdr
                .sack
                .as_slice()
                .iter()
                .map(|&(a, b)| ((a - S) / M, (b - S) / M))
                .collect();
            got.push(((out[0].hdr.ack - S) / M, rel));
        }
        got
    };
    // RFC 2018 §4: the first block holds the segment that triggered the ACK, the others repeat
    // the most recently reported ones; RFC 2018 §3: three blocks at most with timestamps.
    assert_eq!(
        blocks_after(true),
        [
            (0, vec![(1, 2)]),
            (0, vec![(3, 4), (1, 2)]),
            (0, vec![(5, 6), (3, 4), (1, 2)]),
            (0, vec![(7, 8), (5, 6), (3, 4)]),
            (0, vec![(1, 4), (7, 8), (5, 6)]),
            (4, vec![(7, 8), (5, 6)]),
        ]
    );
    // Four without.
    assert_eq!(
        blocks_after(false)[3],
        (0, vec![(7, 8), (5, 6), (3, 4), (1, 2)])
    );
}

#[test]
fn sack_dupack_needs_new_sack_information() {
    let (mut s, _) = sending(sack_cfg());
    // RFC 6675 §2: an ACK that SACKs nothing new is not a duplicate ACK.
    for _ in 0..4 {
        assert!(send(&mut s, T0 + ms(100), &c_sack(S, &[(S + M, S + 2 * M)])).is_empty());
    }
    assert_eq!(s.stats.dupacks_received, 1);
    assert!(!s.in_recovery());
}

#[test]
fn sack_enters_recovery_by_islost_before_three_dupacks() {
    let (mut s, _) = sending(sack_cfg());
    let t = T0 + ms(100);
    // Two segments SACKed above the hole: not yet lost (needs > 2·SMSS or 3 ranges).
    assert!(send(&mut s, t, &c_sack(S, &[(S + M, S + 3 * M)])).is_empty());
    // Three segments SACKed (one ACK lost): IsLost(HighACK + 1) on the second duplicate.
    let out = send(&mut s, t, &c_sack(S, &[(S + M, S + 4 * M)]));
    assert_eq!(out, [s_data(S)]);
    assert!(s.in_recovery());
    assert_eq!(s.stats.dupacks_received, 2);
    // RFC 6675 (4.2): ssthresh = cwnd = FlightSize/2, no inflation.
    assert_eq!(s.ssthresh(), 5000);
    assert_eq!(s.cwnd(), 5000);

    // Without SACK, two duplicates are not enough.
    let (mut s, _) = ten_segments(Variant::NewReno);
    send(&mut s, t, &c_ack(S));
    assert!(send(&mut s, t, &c_ack(S)).is_empty());
    assert!(!s.in_recovery());
}

#[test]
fn sack_recovery_lost_holes_first_then_new_data_exit_at_recovery_point() {
    let (mut s, _) = sending(sack_cfg());
    let t = T0 + ms(100);
    // Segments 0 and 2 lost.
    assert!(send(&mut s, t, &c_sack(S, &[(S + M, S + 2 * M)])).is_empty());
    assert!(send(
        &mut s,
        t,
        &c_sack(S, &[(S + 3 * M, S + 4 * M), (S + M, S + 2 * M)])
    )
    .is_empty());
    // Third duplicate: retransmit segment 0, cwnd = ssthresh = 5000.
    let out = send(
        &mut s,
        t,
        &c_sack(S, &[(S + 3 * M, S + 5 * M), (S + M, S + 2 * M)]),
    );
    assert_eq!(out, [s_data(S)]);
    // pipe: segment 0 lost but retransmitted (1), segment 2 not yet lost (1), 5..9 (5) = 7000.
    assert_eq!(s.pipe(), 7000);
    // Segment 5 SACKed: segment 2 is now lost (3 SMSS SACKed above) — pipe 1000 + 0 + 4000.
    let out = send(
        &mut s,
        t,
        &c_sack(S, &[(S + 3 * M, S + 6 * M), (S + M, S + 2 * M)]),
    );
    assert!(out.is_empty());
    assert_eq!(s.pipe(), 5000);
    // Segment 6 SACKed: pipe 4000 → NextSeg rule (1), the lost hole.
    let out = send(
        &mut s,
        t,
        &c_sack(S, &[(S + 3 * M, S + 7 * M), (S + M, S + 2 * M)]),
    );
    assert_eq!(out, [s_data(S + 2 * M)]);
    assert_eq!(s.pipe(), 5000);
    // Segment 7 SACKed: no lost hole left above HighRxt → rule (2), new data.
    let out = send(
        &mut s,
        t,
        &c_sack(S, &[(S + 3 * M, S + 8 * M), (S + M, S + 2 * M)]),
    );
    assert_eq!(out, [s_data(S + 10 * M)]);
    // Partial ACK (segment 0's retransmission arrived): still in recovery, more new data.
    let out = send(
        &mut s,
        T0 + ms(200),
        &c_sack(S + 2 * M, &[(S + 3 * M, S + 8 * M)]),
    );
    assert!(s.in_recovery());
    assert_eq!(out, [s_data(S + 11 * M)]);
    assert_eq!(s.stats.fast_recoveries, 1);
    // The cumulative ACK passes RecoveryPoint (S + 10M − 1): recovery ends with cwnd = ssthresh.
    let out = send(&mut s, T0 + ms(200), &c_ack(S + 10 * M));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5000);
    assert_eq!(
        segs(&out),
        [(S + 12 * M, 1000), (S + 13 * M, 1000), (S + 14 * M, 1000)]
    );
}

#[test]
fn sack_recovery_rule3_then_a_single_rescue() {
    let (_c, mut s) = established(sack_cfg());
    // Only 10 segments to send, so NextSeg rule (2) never applies.
    let out = write(&mut s, T0, 10 * M);
    assert_eq!(out.len(), 10);
    let last = out[9].clone();
    assert!(last.hdr.flags.has(TcpFlags::PSH));
    let t = T0 + ms(100);
    // Segments 0 and 6 lost, 8 and 9 still in flight.
    send(&mut s, t, &c_sack(S, &[(S + M, S + 2 * M)]));
    send(&mut s, t, &c_sack(S, &[(S + M, S + 3 * M)]));
    let out = send(&mut s, t, &c_sack(S, &[(S + M, S + 4 * M)]));
    assert_eq!(out, [s_data(S)]);
    assert!(send(&mut s, t, &c_sack(S, &[(S + M, S + 5 * M)])).is_empty());
    assert!(send(&mut s, t, &c_sack(S, &[(S + M, S + 6 * M)])).is_empty());
    // Segment 7 SACKed: the hole at 6 is not lost (one SMSS above it), nothing lost is left and
    // no new data exists → rule (3) retransmits it.
    let out = send(
        &mut s,
        t,
        &c_sack(S, &[(S + 7 * M, S + 8 * M), (S + M, S + 6 * M)]),
    );
    assert_eq!(out, [s_data(S + 6 * M)]);
    // Partial ACK: HighACK > RescueRxt, rules (1)–(3) fail → rule (4), one rescue retransmission
    // of the highest outstanding segment; only one per recovery.
    let out = send(
        &mut s,
        T0 + ms(200),
        &c_sack(S + 6 * M, &[(S + 7 * M, S + 8 * M)]),
    );
    assert_eq!(out, [last]);
    assert!(send(
        &mut s,
        T0 + ms(201),
        &c_sack(S + 6 * M, &[(S + 7 * M, S + 9 * M)])
    )
    .is_empty());
    // Everything acknowledged: out of recovery, timer stopped.
    assert!(send(&mut s, T0 + ms(300), &c_ack(S + 10 * M)).is_empty());
    assert!(!s.in_recovery());
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn sack_rto_go_back_n_skips_sacked_data() {
    let (mut s, _) = sending(sack_cfg());
    let t = T0 + ms(100);
    // Segments 0 and 2 lost; only two duplicates get through, not enough for recovery.
    send(&mut s, t, &c_sack(S, &[(S + M, S + 2 * M)]));
    send(
        &mut s,
        t,
        &c_sack(S, &[(S + 3 * M, S + 4 * M), (S + M, S + 2 * M)]),
    );
    assert!(!s.in_recovery());
    assert_eq!(recv(&mut s, T0 + ms(300)), [s_data(S)]);
    assert_eq!(s.cwnd(), 1000);
    // Go-back-N (RFC 6675 §5.1) resends segment 2 but not the SACKed 3..9.
    let out = send(
        &mut s,
        T0 + ms(400),
        &c_sack(S + 2 * M, &[(S + 3 * M, S + 10 * M)]),
    );
    assert_eq!(out, [s_data(S + 2 * M)]);
    // The hole filled, new data follows.
    let out = send(&mut s, T0 + ms(500), &c_ack(S + 10 * M));
    assert_eq!(
        segs(&out),
        [(S + 10 * M, 1000), (S + 11 * M, 1000), (S + 12 * M, 1000)]
    );
    assert_eq!(s.stats.fast_recoveries, 0);
}

// ---------------------------------------------------------------------------------------------
// Tests for delayed ACK (RFC 1122 §4.2.3.2, RFC 5681 §4.2)
// ---------------------------------------------------------------------------------------------

#[test]
fn delayed_ack_every_second_segment_or_after_the_delay() {
    let (mut c, _s) = established(cfg());
    assert!(send(&mut c, ms(200), &s_data(S)).is_empty());
    assert_eq!(c.poll_timeout(), Some(ms(400)));
    assert_eq!(send(&mut c, ms(210), &s_data(S + M)), [c_ack(S + 2 * M)]);
    assert_eq!(c.poll_timeout(), None);
    assert!(send(&mut c, ms(300), &s_data(S + 2 * M)).is_empty());
    assert_eq!(recv(&mut c, ms(500)), [c_ack(S + 3 * M)]);
    assert_eq!(c.poll_timeout(), None);
}

#[test]
fn delayed_ack_every_nth_segment() {
    let conf = TcpConfig {
        ack_every: 3,
        ..cfg()
    };
    let (mut c, _s) = established(conf);
    assert!(send(&mut c, ms(200), &s_data(S)).is_empty());
    assert!(send(&mut c, ms(201), &s_data(S + M)).is_empty());
    assert_eq!(
        send(&mut c, ms(202), &s_data(S + 2 * M)),
        [c_ack(S + 3 * M)]
    );
    // Without delayed ACK every segment is acknowledged.
    let (mut c, _s) = established(TcpConfig {
        delayed_ack: false,
        ..cfg()
    });
    assert_eq!(send(&mut c, ms(200), &s_data(S)), [c_ack(S + M)]);
}

#[test]
fn out_of_order_and_gap_fill_acked_immediately() {
    let (mut c, _s) = established(cfg());
    assert!(send(&mut c, ms(200), &s_data(S)).is_empty());
    // Out of order: an immediate duplicate ACK (which also acknowledges the held segment).
    assert_eq!(send(&mut c, ms(201), &s_data(S + 2 * M)), [c_ack(S + M)]);
    assert_eq!(c.poll_timeout(), None);
    assert_eq!(send(&mut c, ms(202), &s_data(S + 4 * M)), [c_ack(S + M)]);
    // Filling part of the gap: immediate ACK.
    assert_eq!(send(&mut c, ms(203), &s_data(S + M)), [c_ack(S + 3 * M)]);
    // Filling the rest.
    assert_eq!(
        send(&mut c, ms(204), &s_data(S + 3 * M)),
        [c_ack(S + 5 * M)]
    );
    // In order again: back to delaying.
    assert!(send(&mut c, ms(205), &s_data(S + 5 * M)).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Tests for the persist timer (RFC 1122 §4.2.2.17, RFC 9293 §3.8.6.1)
// ---------------------------------------------------------------------------------------------

fn zero_window(ack: u64) -> Segment {
    c_ack_window(ack, 0)
}

/// The client's ACK of `ack` advertising `window` (unscaled).
fn c_ack_window(ack: u64, window: u32) -> Segment {
    seg(
        TcpHeader {
            ack,
            window,
            ..C_TEMPL
        },
        0,
    )
}

#[test]
fn zero_window_probes_back_off_and_the_connection_stays_open() {
    let conf = TcpConfig {
        persist_min: ms(400),
        persist_max: secs(3),
        max_retransmissions: 3,
        ..cfg()
    };
    let (mut s, out) = sending(conf);
    assert_eq!(out.len(), 4);
    // Everything acknowledged with a zero window at T1 (R = 100 ms → RTO 250 ms).
    let t1 = T0 + ms(100);
    assert!(send(&mut s, t1, &zero_window(S + 4 * M)).is_empty());
    assert_eq!(s.rto(), ms(250));
    assert_eq!(s.cwnd(), 5000);
    assert!(s.in_persist());
    // Probes of one new byte at RTO·2^k clamped to [400 ms, 3 s]: 400, 500, 1000, 2000, 3000, 3000.
    let probe = seg(
        TcpHeader {
            seq: S + 4 * M,
            ..S_TEMPL
        },
        1,
    );
    let mut t = t1;
    for iv in [400, 500, 1000, 2000, 3000, 3000] {
        t += ms(iv);
        assert_eq!(recv(&mut s, t), std::slice::from_ref(&probe));
        // The receiver still has no room and says so.
        assert!(send(&mut s, t + ms(100), &zero_window(S + 4 * M)).is_empty());
    }
    assert!(!s.aborted());
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.stats.window_probes, 6);
    // Probes are not retransmissions: the RTO was never backed off.
    assert_eq!(s.rto(), ms(250));
    // The window opens: sending resumes with the old cwnd, not from one segment.
    let t = t + ms(500);
    let out = send(&mut s, t, &c_ack_window(S + 4 * M, 8000));
    assert_eq!(s.cwnd(), 5000);
    assert_eq!(
        segs(&out),
        (4..9).map(|k| (S + k * M, 1000)).collect::<Vec<_>>()
    );
    assert!(!s.in_persist());
    assert_eq!(s.poll_timeout(), Some(t + ms(250)));
}

/// Four segments sent, then a zero-window ACK of all four at T0 + 100 ms: the persist timer's
/// one-byte probe of the next data goes out at T0 + 500 ms.
fn zero_window_probed() -> Socket {
    let (mut s, _) = sending(TcpConfig {
        persist_min: ms(400),
        ..cfg()
    });
    send(&mut s, T0 + ms(100), &zero_window(S + 4 * M));
    let (_, probe) = fire(&mut s);
    assert_eq!(segs(&probe), [(S + 4 * M, 1)]);
    s
}

#[test]
fn accepted_probe_byte_is_acknowledged() {
    let mut s = zero_window_probed();
    // The window had just opened: the receiver keeps the byte.
    let out = send(&mut s, T0 + ms(600), &c_ack_window(S + 4 * M + 1, 8000));
    assert_eq!(out[0].hdr.seq, S + 4 * M + 1);
    assert!(!s.in_persist());
}

#[test]
fn a_window_still_closed_after_an_accepted_probe_keeps_the_sender_probing() {
    // RFC 1122 §4.2.2.17: the sender keeps probing a zero window for as long as it stays closed.
    // The receiver keeps the probe's byte but its window is zero again: the byte counts as sent
    // and acknowledged, and the next probe carries the byte after it.
    let mut s = zero_window_probed();
    assert!(send(&mut s, T0 + ms(600), &zero_window(S + 4 * M + 1)).is_empty());
    assert!(s.in_persist());
    let (_, probe) = fire(&mut s);
    assert_eq!(segs(&probe), [(S + 4 * M + 1, 1)]);
}

/// Four segments written and shut down at `T0` into a receiver whose 4000-byte buffer they
/// fill: the four go out, the FIN waits for the window.
fn four_segments_and_a_waiting_fin() -> Socket {
    let ccfg = TcpConfig {
        rcv_buf: 4000,
        ..cfg()
    };
    let (_c, mut s) = established_with(ccfg, cfg());
    let mut out = Vec::new();
    s.write(T0, 4000, &mut out);
    s.shutdown(T0, &mut out);
    // The window holds the data; the FIN waits.
    assert_eq!(out.len(), 4);
    assert!(out.iter().all(|sg| !sg.hdr.flags.has(TcpFlags::FIN)));
    s
}

/// The zero-window ACK of all four segments of `four_segments_and_a_waiting_fin` leaves only
/// the FIN to send, behind the persist timer.
fn only_the_fin_left_behind_a_zero_window() -> Socket {
    let mut s = four_segments_and_a_waiting_fin();
    send(&mut s, T0 + ms(100), &zero_window(S + 4 * M));
    assert!(s.in_persist());
    s
}

#[test]
fn a_fast_retransmit_of_the_last_segment_carries_no_unsent_fin() {
    // RFC 9293 §3.10.4: the FIN occupies the sequence number after the data and is sent once
    // the window admits it; a retransmission repeats what was sent (RFC 5681 §3.2), so the
    // fast retransmit of the last data segment carries the FIN only if the FIN went out.
    let mut s = four_segments_and_a_waiting_fin();
    // The first three arrive; the window stops exactly at the data's end: the FIN still waits.
    let at_the_data_end = c_ack_window(S + 3 * M, 1000);
    assert!(send(&mut s, T0 + ms(100), &at_the_data_end).is_empty());
    for _ in 0..2 {
        assert!(send(&mut s, T0 + ms(110), &at_the_data_end).is_empty());
    }
    let out = send(&mut s, T0 + ms(110), &at_the_data_end);
    assert_eq!(segs(&out), [(S + 3 * M, M as u32)]);
    assert!(!out[0].hdr.flags.has(TcpFlags::FIN));
}

#[test]
fn a_lone_fin_is_the_probe_not_a_phantom_byte() {
    let mut s = only_the_fin_left_behind_a_zero_window();
    // Only the FIN is left to send: it is the probe (no data byte exists beyond it).
    let (_, probe) = fire(&mut s);
    assert_eq!(
        probe,
        [seg(
            TcpHeader {
                seq: S + 4 * M,
                flags: FIN_ACK,
                ..S_TEMPL
            },
            0
        )]
    );
    assert_eq!(s.state(), State::FinWait1);
    send(&mut s, T0 + ms(700), &zero_window(S + 4 * M + 1));
    assert_eq!(s.state(), State::FinWait2);
}

#[test]
fn reading_reopens_the_window() {
    let ccfg = TcpConfig {
        rcv_buf: 8000,
        ..cfg()
    };
    let (mut c, mut s, mut w) = established_wire(ccfg, cfg());
    c.auto_read = false;
    w.put(true, write_all(&mut s, T0));
    w.run(&mut c, &mut s, secs(3));
    // The receiver's buffer is full, the sender probes.
    assert_eq!(c.delivered(), 8000);
    assert!(s.in_persist());
    assert!(s.stats.window_probes >= 1);
    let cwnd = s.cwnd();
    assert!(cwnd > 4000);
    // RFC 9293 §3.8.6.2.2: no update for less than min(RCV.BUFF/2, MSS)…
    let mut out = Vec::new();
    c.read(w.now, 500, &mut out);
    assert!(out.is_empty());
    // …but one as soon as the window has opened by that much.
    c.read(w.now, 500, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].hdr.window, 1000);
    c.read(w.now, 7000, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].hdr.window, 8000);
    let t_update = w.now + D;
    w.put(false, out);
    w.run(&mut c, &mut s, t_update);
    // The update arrives: the old cwnd is used at once.
    assert_eq!(s.cwnd(), cwnd);
    let burst = w
        .sent_by(true)
        .into_iter()
        .filter(|(t, sg)| *t == t_update && sg.payload > 0)
        .count() as u64;
    assert_eq!(burst, cwnd.min(8000) / M);
}

// ---------------------------------------------------------------------------------------------
// Tests for timestamps (RFC 7323 §3, §4)
// ---------------------------------------------------------------------------------------------

fn s_data_ts(seq: u64, tsval: u32) -> Segment {
    seg(
        TcpHeader {
            seq,
            ts: Some((tsval, 0)),
            ..S_TEMPL
        },
        M as u32,
    )
}

#[test]
fn tsecr_echoes_ts_recent() {
    let conf = ts_cfg();
    let (mut c, _s) = established(conf);
    let echo = |out: &[Segment]| {
        assert_eq!(out.len(), 1);
        out[0].hdr.ts.unwrap().1
    };
    // With delayed ACK the ACK echoes the earliest unacknowledged segment (RFC 7323 §4.3 (A)).
    assert!(send(&mut c, ms(200), &s_data_ts(S, 1000)).is_empty());
    assert_eq!(echo(&send(&mut c, ms(210), &s_data_ts(S + M, 1010))), 1000);
    assert!(send(&mut c, ms(220), &s_data_ts(S + 2 * M, 1020)).is_empty());
    assert_eq!(echo(&recv(&mut c, ms(420))), 1020);
    // Out of order: the last in-order segment's TSval (§4.3 (B)).
    assert_eq!(
        echo(&send(&mut c, ms(500), &s_data_ts(S + 4 * M, 1040))),
        1020
    );
    // The segment that fills the hole advances the window: its TSval.
    assert_eq!(
        echo(&send(&mut c, ms(510), &s_data_ts(S + 3 * M, 1050))),
        1050
    );
    // An older TSval never moves TS.Recent back.
    assert!(send(&mut c, ms(520), &s_data_ts(S + 5 * M, 1045)).is_empty());
    assert_eq!(echo(&recv(&mut c, ms(720))), 1050);
}

#[test]
fn rtt_samples_from_tsecr() {
    let conf = ts_cfg();
    let (mut s, out) = sending(conf);
    // TSval = 150 ms + 1.
    assert_eq!(out[0].hdr.ts, Some((151, 101)));
    let ack_ts = |ack, ecr| {
        seg(
            TcpHeader {
                ack,
                ts: Some((5000, ecr)),
                ..C_TEMPL
            },
            0,
        )
    };
    // An ACK that advances snd_una: R = 401 − 151 = 250 ms.
    send(&mut s, ms(400), &ack_ts(S + M, 151));
    assert_eq!(s.srtt(), Some(SimTime(118_750_000)));
    // A duplicate ACK gives no sample.
    send(&mut s, ms(500), &ack_ts(S + M, 151));
    assert_eq!(s.srtt(), Some(SimTime(118_750_000)));

    // With timestamps, the ACK of a retransmission is a valid sample (no Karn ambiguity).
    let (_c, mut s) = established(ts_cfg());
    write(&mut s, T0, 1000);
    let rx = recv(&mut s, T0 + ms(300));
    assert_eq!(rx[0].hdr.ts, Some((451, 101)));
    send(&mut s, T0 + ms(380), &ack_ts(S + M, 451));
    // SRTT = 7/8·100 + 1/8·80 = 97.5 ms.
    assert_eq!(s.srtt(), Some(SimTime(97_500_000)));
}

// ---------------------------------------------------------------------------------------------
// Tests for closing (RFC 9293 §3.6)
// ---------------------------------------------------------------------------------------------

#[test]
fn bulk_close_walks_the_fin_states() {
    let (mut c, mut s, mut w) = established_wire(cfg(), cfg());
    let mut out = Vec::new();
    s.write(T0, 5000, &mut out);
    s.shutdown(T0, &mut out);
    w.put(true, out);
    // The FIN waits behind the fifth segment (IW = 4 segments).
    assert_eq!(s.state(), State::Established);
    let (mut cs, mut ss) = (vec![c.state()], vec![s.state()]);
    let mut client_shut = false;
    loop {
        let more = w.step(&mut c, &mut s, secs(10));
        for (v, st) in [(&mut cs, c.state()), (&mut ss, s.state())] {
            if v.last() != Some(&st) {
                v.push(st);
            }
        }
        // The bulk client closes once the server has.
        if c.peer_closed() && !client_shut {
            client_shut = true;
            let mut out = Vec::new();
            c.shutdown(w.now, &mut out);
            w.put(false, out);
            cs.push(c.state());
        }
        if !more {
            break;
        }
    }
    assert_eq!(
        cs,
        [
            State::Established,
            State::CloseWait,
            State::LastAck,
            State::Closed
        ]
    );
    assert_eq!(
        ss,
        [
            State::Established,
            State::FinWait1,
            State::FinWait2,
            State::TimeWait
        ]
    );
    assert_eq!(c.delivered(), 5000);
    assert!(c.is_closed() && s.is_closed());
    // The FIN rode on the last data segment; the client's FIN was a bare one; the last ACK
    // covers it.
    let server: Vec<_> = w.sent_by(true).into_iter().map(|x| x.1).collect();
    let fin = server
        .iter()
        .find(|sg| sg.hdr.flags.has(TcpFlags::FIN))
        .unwrap();
    assert_eq!((fin.hdr.seq, fin.payload), (S + 4 * M, 1000));
    assert_eq!(server.last().unwrap().hdr.ack, C + 1);
    let client: Vec<_> = w.sent_by(false).into_iter().map(|x| x.1).collect();
    let cfin = client
        .iter()
        .find(|sg| sg.hdr.flags.has(TcpFlags::FIN))
        .unwrap();
    assert_eq!(
        *cfin,
        seg(
            TcpHeader {
                flags: FIN_ACK,
                ack: S + 5 * M + 1,
                ..C_TEMPL
            },
            0
        )
    );
}

#[test]
fn fin_above_a_gap_is_processed_when_the_gap_fills() {
    let (mut c, _s) = established(cfg());
    let fin_data = seg(
        TcpHeader {
            seq: S + M,
            flags: FIN_ACK,
            ..S_TEMPL
        },
        1000,
    );
    // Out of order: an immediate duplicate ACK; the FIN is not processed yet.
    assert_eq!(send(&mut c, ms(200), &fin_data), [c_ack(S)]);
    assert_eq!(c.state(), State::Established);
    assert!(!c.peer_closed());
    // The gap fills: data and FIN are acknowledged at once.
    assert_eq!(send(&mut c, ms(210), &s_data(S)), [c_ack(S + 2 * M + 1)]);
    assert_eq!(c.state(), State::CloseWait);
    assert_eq!(c.delivered(), 2000);

    // A bare FIN above a gap is an out-of-order segment too (RFC 5681 §4.2: ACK at once).
    let (mut c, _s) = established(cfg());
    let fin = seg(
        TcpHeader {
            seq: S + M,
            flags: FIN_ACK,
            ..S_TEMPL
        },
        0,
    );
    assert_eq!(send(&mut c, ms(200), &fin), [c_ack(S)]);
    assert_eq!(send(&mut c, ms(210), &s_data(S)), [c_ack(S + M + 1)]);
    assert_eq!(c.state(), State::CloseWait);
}

#[test]
fn lost_fin_is_retransmitted() {
    let (mut c, mut s, mut w) = established_wire(cfg(), cfg());
    let mut lost = false;
    w.drop = Box::new(move |from_server, sg| {
        let hit = from_server && sg.hdr.flags.has(TcpFlags::FIN) && !lost;
        lost |= hit;
        hit
    });
    let mut out = Vec::new();
    s.write(T0, 5000, &mut out);
    s.shutdown(T0, &mut out);
    w.put(true, out);
    w.run(&mut c, &mut s, secs(5));
    assert!(c.peer_closed());
    assert_eq!(c.delivered(), 5000);
    assert_eq!(s.state(), State::FinWait2);
    // The FIN rode on the fifth segment; the timeout resends both together.
    let fins = w
        .sent_by(true)
        .into_iter()
        .filter(|x| x.1.hdr.flags.has(TcpFlags::FIN))
        .map(|x| (x.1.hdr.seq, x.1.payload))
        .collect::<Vec<_>>();
    assert_eq!(fins, [(S + 4 * M, 1000), (S + 4 * M, 1000)]);
    assert_eq!(s.stats.timeouts, 1);
}

// ---------------------------------------------------------------------------------------------
// Tests for window scaling (RFC 7323 §2)
// ---------------------------------------------------------------------------------------------

#[test]
fn one_mib_receive_buffer_through_the_shift() {
    let ccfg = TcpConfig {
        rcv_buf: 1 << 20,
        ..cfg()
    };
    let scfg = TcpConfig {
        initial_window: InitialWindow::Segments(2000),
        ..cfg()
    };
    let (mut c, mut s) = established_with(ccfg.clone(), scfg.clone());
    assert_eq!(s.snd_wnd(), 1 << 20);
    // The usable window is the scaled one: 1048 full segments fit in 1 MiB.
    let out = write_all(&mut s, T0);
    assert_eq!(out.len(), 1048);
    assert_eq!(out.last().unwrap().hdr.seq, S + 1047 * M);
    // The receiver takes all of it and keeps advertising through the shift.
    let mut acks = Vec::new();
    for sg in &out {
        acks.extend(send(&mut c, T0 + D, sg));
    }
    assert_eq!(c.delivered(), 1_048_000);
    let a = acks.last().unwrap();
    assert_eq!(a.hdr.ack, S + 1_048_000);
    assert_eq!((a.hdr.wscale_applied, a.hdr.window_field()), (5, 32768));

    // Without scaling the same buffer is seen as 65535 bytes.
    let (_c, mut s) = established_with(
        TcpConfig {
            window_scaling: false,
            ..ccfg
        },
        scfg,
    );
    assert_eq!(s.snd_wnd(), 65535);
    assert_eq!(write_all(&mut s, T0).len(), 65);
}

// ---------------------------------------------------------------------------------------------
// RFC 6675 §2 DupAck definition, RFC 5681 §4.1 restart after idle, extensions
// ---------------------------------------------------------------------------------------------

#[test]
fn sack_ack_advancing_with_new_sack_info_is_a_dupack() {
    let (mut s, _) = sending(sack_cfg());
    let t = T0 + ms(100);
    // Segment 0 arrives, segment 1 is lost, 2..4 arrive; the receiver's ACKs for 0, 2 and 3 are
    // lost, so the first ACK the sender sees both advances (to S + M) and SACKs three segments
    // above the hole. RFC 6675 §2 counts it as a DupAck "even if it ... moves the cumulative
    // acknowledgment point", and IsLost(HighACK + 1) holds: recovery starts on this ACK.
    let out = send(&mut s, t, &c_sack(S + M, &[(S + 2 * M, S + 5 * M)]));
    assert!(s.in_recovery());
    assert_eq!(out.first(), Some(&s_data(S + M)));
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.stats.dupacks_received, 1);
}

#[test]
fn restart_after_idle_returns_to_the_initial_window() {
    let run = |restart| {
        let conf = TcpConfig {
            restart_after_idle: restart,
            ..cfg()
        };
        let (_, mut s) = established(conf);
        // 20 segments in slow start: cwnd grows from 4 to 24 segments as they are acknowledged.
        let out = write(&mut s, T0, 20 * M);
        assert_eq!(out.len(), 4);
        let mut t = T0;
        let mut acked = 0;
        while acked < 20 {
            t += ms(100);
            acked += 4.min(20 - acked);
            send(&mut s, t, &c_ack(S + acked * M));
        }
        let grown = s.cwnd();
        // Idle for 5 s (RTO ≈ 300 ms), then the application writes again.
        let out = write(&mut s, t + secs(5), 30 * M);
        (grown, s.cwnd(), out.len())
    };
    let (grown, after, burst) = run(false);
    assert_eq!((after, burst), (grown, (grown / M) as usize));
    // RFC 5681 §4.1: cwnd = min(RW, cwnd), RW = min(IW, cwnd) = 4 segments.
    let (grown2, after, burst) = run(true);
    assert_eq!(grown2, grown);
    assert!(grown > 4 * M);
    assert_eq!((after, burst), (4 * M, 4));
}

#[test]
fn dup_count_receiver_stamps_out_of_order_arrivals() {
    let conf = TcpConfig {
        extensions: vec![ExtensionKind::DupCount],
        delayed_ack: false,
        ..cfg()
    };
    let (mut c, _) = established(conf);
    let data = |k: u64| {
        seg(
            TcpHeader {
                seq: S + k * M,
                ..S_TEMPL
            },
            M as u32,
        )
    };
    let stamp = |out: Vec<Segment>| out[0].hdr.dup_count;
    // In order: 0.
    assert_eq!(stamp(send(&mut c, T0, &data(0))), Some(0));
    // Segment 1 lost: 2, 3, 4 arrive out of order → 1, 2, 3.
    assert_eq!(stamp(send(&mut c, T0, &data(2))), Some(1));
    assert_eq!(stamp(send(&mut c, T0, &data(3))), Some(2));
    assert_eq!(stamp(send(&mut c, T0, &data(4))), Some(3));
    // The gap fills: back to 0.
    assert_eq!(stamp(send(&mut c, T0, &data(1))), Some(0));
    // Without the extension no stamp is sent.
    let (mut plain, _) = established(TcpConfig {
        delayed_ack: false,
        ..cfg()
    });
    assert_eq!(stamp(send(&mut plain, T0, &data(2))), None);
}

#[test]
fn dup_count_sender_fast_retransmits_when_duplicates_were_lost() {
    let run = |ext: Vec<ExtensionKind>| {
        let mut s = second_segment_lost_with(TcpConfig {
            extensions: ext,
            ..cfg()
        });
        // Two of the three duplicate ACKs were lost; the one that arrives says the receiver has
        // seen three segments out of order.
        let dup = seg(
            TcpHeader {
                ack: S + M,
                dup_count: Some(3),
                ..C_TEMPL
            },
            0,
        );
        let out = send(&mut s, T0 + ms(150), &dup);
        (s, out)
    };
    let (s, out) = run(vec![ExtensionKind::DupCount]);
    assert_eq!(out, [s_data(S + M)]);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 5000);
    // Plain NewReno waits for three duplicates it will never see.
    let (s, out) = run(vec![]);
    assert!(out.is_empty());
    assert!(!s.in_recovery());
}

/// Algorithm 2 says dup_count ≥ num_dupacks: when the first three duplicates are all lost, the
/// fourth (dup_count 4) still starts the fast retransmit.
#[test]
fn dup_count_above_the_threshold_still_fast_retransmits() {
    let mut s = second_segment_lost_with(TcpConfig {
        extensions: vec![ExtensionKind::DupCount],
        ..cfg()
    });
    let dup = seg(
        TcpHeader {
            ack: S + M,
            dup_count: Some(4),
            ..C_TEMPL
        },
        0,
    );
    assert_eq!(send(&mut s, T0 + ms(150), &dup), [s_data(S + M)]);
    assert!(s.in_recovery());
    // Logged with the one duplicate that had actually arrived.
    assert_eq!(s.early_fast_retransmits(), [(T0 + ms(150), 1)]);
}

#[test]
fn dup_count_fires_once_per_recovery_episode() {
    let mut s = second_segment_lost_with(TcpConfig {
        extensions: vec![ExtensionKind::DupCount],
        ..cfg()
    });
    let dup = |n| {
        seg(
            TcpHeader {
                ack: S + M,
                dup_count: Some(n),
                ..C_TEMPL
            },
            0,
        )
    };
    send(&mut s, T0 + ms(150), &dup(3));
    assert_eq!(s.stats.fast_recoveries, 1);
    for n in 4..10 {
        send(&mut s, T0 + ms(150), &dup(n));
    }
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.ssthresh(), 5000);
}

#[test]
fn notices_freeze_and_resume_the_sender() {
    let mut s = second_segment_lost(Variant::NewReno);
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![
            (Notice::RouteFailure, Response::Freeze),
            (Notice::RouteReestablished, Response::Resume),
        ],
        zero_window: false,
    }));
    assert!(s.poll_timeout().is_some());
    let mut out = vec![];
    // A notice no extension answers changes nothing.
    s.notify(T0 + ms(120), Notice::LinkUp, &mut out);
    assert!(!s.is_frozen() && out.is_empty());
    // Frozen: the retransmission timer stops, and ACKs that open the window send nothing.
    s.notify(T0 + ms(120), Notice::RouteFailure, &mut out);
    assert!(s.is_frozen());
    assert_eq!(s.poll_timeout(), None);
    assert!(send(&mut s, T0 + ms(130), &c_ack(S + 2 * M)).is_empty());
    assert_eq!(s.poll_timeout(), None);
    // Resumed: the first unacknowledged segment goes out at once, then what the window allows,
    // and the timer runs again.
    s.notify(T0 + secs(5), Notice::RouteReestablished, &mut out);
    assert!(!s.is_frozen());
    assert_eq!(out.first(), Some(&s_data(S + 2 * M)));
    assert!(out.len() > 1);
    assert_eq!(s.poll_timeout(), Some(T0 + secs(5) + s.rto()));
}

/// `Resume` and `Unfreeze` leave the frozen state (ELFN's stand-by, TCP-F's snooze, ATCP's
/// persist) and nothing else: for a sender that is not frozen they resend nothing and leave the
/// retransmission timer where it was (no restart that would put a timeout off).
#[test]
fn resume_and_unfreeze_do_nothing_to_a_sender_not_frozen() {
    let mut s = second_segment_lost(Variant::NewReno);
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![
            (Notice::RouteReestablished, Response::Resume),
            (Notice::LinkUp, Response::Unfreeze),
            (Notice::LinkDown, Response::Flush),
        ],
        zero_window: false,
    }));
    let rto_at = s.poll_timeout();
    assert_eq!(rto_at, Some(T0 + ms(350)));
    let mut out = vec![];
    for (t, n) in [
        (120, Notice::RouteReestablished),
        (130, Notice::LinkUp),
        (140, Notice::LinkDown),
    ] {
        s.notify(T0 + ms(t), n, &mut out);
        assert!(out.is_empty(), "{n:?}: {:?}", segs(&out));
        assert_eq!(s.poll_timeout(), rto_at, "{n:?}");
    }
    assert!(!s.is_frozen());
    // Flush's go-back-N did not happen either: the next ACK sends new data, not segment 2.
    let next = send(&mut s, T0 + ms(150), &c_ack(S + 2 * M));
    assert_eq!(next.first(), Some(&s_data(S + 11 * M)));
}

/// A sender unfrozen with nothing outstanding (`Resume`, `Unfreeze`, `Flush`) has nothing to
/// resend and runs no retransmission timer (RFC 6298 (5.2): the timer is off while all data is
/// acknowledged), so the timer of the data it sends next starts when that data is sent (5.1).
#[test]
fn leaving_the_frozen_state_with_nothing_outstanding_arms_no_timer() {
    for r in [Response::Resume, Response::Unfreeze, Response::Flush] {
        let (_, mut s) = established(cfg());
        assert_eq!(write(&mut s, T0, 2 * M).len(), 2);
        assert!(send(&mut s, T0 + ms(100), &c_ack(S + 2 * M)).is_empty());
        assert_eq!(s.poll_timeout(), None);
        s.push_extension(AnyExtension::Scripted(Scripted {
            answers: vec![
                (Notice::RouteFailure, Response::Freeze),
                (Notice::RouteReestablished, r),
            ],
            zero_window: false,
        }));
        let mut out = vec![];
        s.notify(T0 + ms(200), Notice::RouteFailure, &mut out);
        assert!(s.is_frozen());
        s.notify(T0 + ms(300), Notice::RouteReestablished, &mut out);
        assert!(!s.is_frozen());
        assert!(out.is_empty(), "{r:?}: {:?}", segs(&out));
        assert_eq!(s.poll_timeout(), None, "{r:?}");
        assert_eq!(
            segs(&write(&mut s, T0 + secs(1), M)),
            [(S + 2 * M, M as u32)]
        );
        assert_eq!(s.poll_timeout(), Some(T0 + secs(1) + s.rto()), "{r:?}");
    }
}

/// Leaving the frozen state (`Resume`, `Unfreeze`, `Flush`) with data outstanding restarts the
/// retransmission timer even when a zero window lets nothing new go: the timer runs while data
/// is outstanding (RFC 6298 (5.1)–(5.2)), and the sender must keep retransmitting to a zero
/// window (RFC 9293 §3.8.6.1); the persist timer is only for a window closed with nothing
/// outstanding. `Resume` also resends the first unacknowledged segment at once.
#[test]
fn unfreezing_into_a_zero_window_restarts_the_retransmission_timer() {
    for r in [Response::Resume, Response::Unfreeze, Response::Flush] {
        let mut s = second_segment_lost(Variant::NewReno);
        s.push_extension(AnyExtension::Scripted(Scripted {
            answers: vec![
                (Notice::RouteFailure, Response::Freeze),
                (Notice::RouteReestablished, r),
            ],
            zero_window: false,
        }));
        // Segment 1 arrives, and the receiver's window closes: segments 2..10 outstanding.
        let closed = seg(
            TcpHeader {
                ack: S + 2 * M,
                window: 0,
                ..C_TEMPL
            },
            0,
        );
        assert!(send(&mut s, T0 + ms(110), &closed).is_empty());
        let mut out = vec![];
        s.notify(T0 + ms(120), Notice::RouteFailure, &mut out);
        assert_eq!(s.poll_timeout(), None);
        s.notify(T0 + secs(1), Notice::RouteReestablished, &mut out);
        assert!(!s.is_frozen());
        let resent: &[(u64, u32)] = match r {
            Response::Resume => &[(S + 2 * M, M as u32)],
            _ => &[],
        };
        assert_eq!(segs(&out), resent, "{r:?}");
        assert_eq!(s.poll_timeout(), Some(T0 + secs(1) + s.rto()), "{r:?}");
    }
}

/// What an extension's `Resend(what)` sends (seq relative to S, payload, FIN) when the server
/// wrote `n` bytes and closed (the FIN sent after them) at T0 and nothing was acknowledged.
fn resent_after_close(n: u64, what: Resend) -> Vec<(u64, u32, bool)> {
    let (_, mut s) = established(cfg());
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![(Notice::LinkDown, Response::Resend(what))],
        zero_window: false,
    }));
    let mut out = vec![];
    s.write(T0, n, &mut out);
    s.shutdown(T0, &mut out);
    assert!(out.last().unwrap().hdr.flags.has(TcpFlags::FIN));
    let mut out = vec![];
    s.notify(T0 + ms(10), Notice::LinkDown, &mut out);
    out.iter()
        .map(|x| (x.hdr.seq - S, x.payload, x.hdr.flags.has(TcpFlags::FIN)))
        .collect()
}

/// A frozen sender's resend of the window (ATCP's Loss state, TCP-F's flush) sends every
/// unacknowledged segment once, in MSS-sized pieces, the last one as long as the data left, and
/// the FIN rides on the segment that ends at it, once (RFC 9293 §3.10.4: the FIN occupies the
/// sequence number after the last byte; sending it again on a segment of its own as well would be
/// a duplicate the receiver ACKs at once, a spurious duplicate ACK). With only the head resent,
/// the FIN stays behind.
#[test]
fn a_window_resend_sends_each_segment_once_with_the_fin_riding_on_the_last() {
    assert_eq!(
        resent_after_close(2 * M, Resend::Window),
        [(0, 1000, false), (M, 1000, true)]
    );
    assert_eq!(
        resent_after_close(2500, Resend::Window),
        [(0, 1000, false), (M, 1000, false), (2 * M, 500, true)]
    );
    assert_eq!(resent_after_close(2 * M, Resend::Head), [(0, 1000, false)]);
    assert_eq!(resent_after_close(500, Resend::Head), [(0, 500, true)]);
    // A FIN not yet sent (the initial window of four segments holds it back) is new: the
    // resend of the window leaves it to the sender's windows.
    let (_, mut s) = established(cfg());
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![(Notice::LinkDown, Response::Resend(Resend::Window))],
        zero_window: false,
    }));
    let mut out = vec![];
    s.write(T0, 4 * M, &mut out);
    s.shutdown(T0, &mut out);
    assert_eq!(out.len(), 4);
    assert!(out.iter().all(|x| !x.hdr.flags.has(TcpFlags::FIN)));
    let mut out = vec![];
    s.notify(T0 + ms(10), Notice::LinkDown, &mut out);
    assert_eq!(
        segs(&out),
        (0..4).map(|k| (S + k * M, M as u32)).collect::<Vec<_>>()
    );
    assert!(out.iter().all(|x| !x.hdr.flags.has(TcpFlags::FIN)));
}

/// With nothing outstanding a frozen sender's resend of the window is a probe: one segment of
/// the data waiting to be sent, not all of it (a frozen sender sends nothing new; ATCP's persist
/// probes, `ext_resend`).
#[test]
fn a_window_resend_with_nothing_outstanding_probes_with_one_segment() {
    let (_, mut s) = established(cfg());
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![
            (Notice::RouteFailure, Response::Freeze),
            (Notice::LinkDown, Response::Resend(Resend::Window)),
        ],
        zero_window: false,
    }));
    let mut out = vec![];
    s.notify(T0, Notice::RouteFailure, &mut out);
    assert!(write(&mut s, T0 + ms(10), 3 * M).is_empty(), "frozen");
    s.notify(T0 + ms(20), Notice::LinkDown, &mut out);
    assert_eq!(segs(&out), [(S, M as u32)]);
    assert!(s.is_frozen());
}

#[test]
fn a_learned_ack_stops_go_back_n_below_it() {
    // Segments 1..10 outstanding; routing learns that the receiver has everything below 6.
    let mut s = second_segment_lost(Variant::NewReno);
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![(
            Notice::AckLearned(S + 6 * M),
            Response::AdvanceAck(S + 6 * M),
        )],
        zero_window: false,
    }));
    let cwnd = s.cwnd();
    let mut out = vec![];
    s.notify(T0 + ms(120), Notice::AckLearned(S + 6 * M), &mut out);
    // Nothing is sent at that moment and cwnd is unchanged (seed 002 §3.1).
    assert!(out.is_empty());
    assert_eq!(s.cwnd(), cwnd);
    assert_eq!(s.snd_una_rel(), 6 * M);
    // The timeout resends from the learned ACK, not from segment 1.
    let (_, resent) = fire(&mut s);
    assert_eq!(resent, [s_data(S + 6 * M)]);
    // A learned ACK at or below snd_una changes nothing.
    let mut s = second_segment_lost(Variant::NewReno);
    s.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![(Notice::AckLearned(S), Response::AdvanceAck(S))],
        zero_window: false,
    }));
    s.notify(T0 + ms(120), Notice::AckLearned(S), &mut out);
    assert_eq!(s.snd_una_rel(), M);
}

/// TCP-pgy S1 sender (seed 002 Algorithm 1 and §IV-B): the learned ACK moves snd_una; the
/// receiver's own ACK for that point, when it finally comes, is not a duplicate; nothing new
/// is sent, however open the window, until an ACK above the learned one arrives.
#[test]
fn ack_piggyback_holds_new_data_until_an_ack_above_the_learned_one() {
    let mut s = second_segment_lost_with(TcpConfig {
        variant: Some(Variant::NewReno),
        extensions: vec![ExtensionKind::AckPiggyback],
        ..cfg()
    });
    let mut out = vec![];
    s.notify(T0 + ms(120), Notice::AckLearned(S + 6 * M), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.snd_una_rel(), 6 * M);
    assert_eq!(s.stats.acks_learned, 1);
    assert_eq!(s.learned_acks(), [(T0 + ms(120), 6 * M)]);
    // snd_una + cwnd now reaches past snd_max, yet the late ACKs send nothing new.
    assert!(send(&mut s, T0 + ms(130), &c_ack(S + 6 * M)).is_empty());
    assert_eq!(s.stats.dupacks_received, 0, "the learned point's own ACK");
    assert!(send(&mut s, T0 + ms(131), &c_ack(S + 6 * M)).is_empty());
    assert_eq!(s.stats.dupacks_received, 1, "a real duplicate after it");
    // An ACK above the learned one: sending resumes where it stopped.
    let resumed = send(&mut s, T0 + ms(140), &c_ack(S + 7 * M));
    assert_eq!(resumed.first(), Some(&s_data(S + 11 * M)));
    // A second learned ACK at or below snd_una is ignored.
    s.notify(T0 + ms(150), Notice::AckLearned(S + 7 * M), &mut out);
    assert_eq!(s.stats.acks_learned, 1);
}

/// A learned ACK that covers everything sent leaves no ACK to wait for: it counts as that ACK
/// (the timer stops and sending goes on), or the sender would stall until a timeout.
#[test]
fn ack_piggyback_covering_everything_sent_resumes_at_once() {
    let mut s = second_segment_lost_with(TcpConfig {
        variant: Some(Variant::NewReno),
        extensions: vec![ExtensionKind::AckPiggyback],
        ..cfg()
    });
    let mut out = vec![];
    s.notify(T0 + ms(120), Notice::AckLearned(S + 11 * M), &mut out);
    assert_eq!(s.snd_una_rel(), 11 * M);
    assert_eq!(
        out.first(),
        Some(&s_data(S + 11 * M)),
        "new data goes out now"
    );
    assert_eq!(
        s.poll_timeout(),
        Some(T0 + ms(120) + s.rto()),
        "timer restarted for it"
    );
}

#[test]
fn a_receiver_extension_sets_the_advertised_window() {
    let (mut c, _) = established(TcpConfig {
        delayed_ack: false,
        ..cfg()
    });
    c.push_extension(AnyExtension::Scripted(Scripted {
        answers: vec![],
        zero_window: true,
    }));
    let out = send(&mut c, T0, &seg(TcpHeader { seq: S, ..S_TEMPL }, M as u32));
    assert_eq!(out[0].hdr.window, 0);
    assert_eq!(out[0].hdr.ack, S + M);
}

// ---------------------------------------------------------------------------------------------
// Tests for ECN (RFC 3168 §6.1)
// ---------------------------------------------------------------------------------------------

fn ecn_cfg() -> TcpConfig {
    TcpConfig {
        ecn: true,
        delayed_ack: false,
        initial_window: InitialWindow::Segments(10),
        initial_ssthresh: Some(10 * M),
        ..cfg()
    }
}

#[test]
fn ecn_is_negotiated_only_when_both_ends_ask() {
    // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR; the SYN-ACK answers with ECE only.
    let (_, syn) = syn_sent(ecn_cfg());
    assert!(syn[0].hdr.flags.has(TcpFlags::ECE) && syn[0].hdr.flags.has(TcpFlags::CWR));
    let mut s = Socket::new(ecn_cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    s.listen();
    let synack = send(&mut s, SimTime::ZERO, &syn[0]);
    assert!(synack[0].hdr.flags.has(TcpFlags::ECE) && !synack[0].hdr.flags.has(TcpFlags::CWR));
    // Both ends ECN-capable: new data is ECT (§6.1.1), the SYN itself is not.
    assert!(!syn[0].ect && !synack[0].ect);
    let (_, out) = sending(ecn_cfg());
    assert!(out.iter().all(|sg| sg.ect));
    // A peer that did not ask: no ECT.
    let (_, mut s) = established_with(cfg(), ecn_cfg());
    assert!(write_all(&mut s, T0).iter().all(|sg| !sg.ect));
}

#[test]
fn ecn_receiver_echoes_ce_until_cwr() {
    let (mut c, _) = established(ecn_cfg());
    let data = |k: u64, flags: TcpFlags| {
        seg(
            TcpHeader {
                seq: S + k * M,
                flags,
                ..S_TEMPL
            },
            M as u32,
        )
    };
    let mut out = vec![];
    // RFC 3168 §6.1.3: a CE-marked segment sets ECE on every ACK from then on...
    let d0 = data(0, TcpFlags::ACK);
    c.on_segment(T0, &d0.hdr, d0.payload, true, &mut out);
    assert!(out[0].hdr.flags.has(TcpFlags::ECE));
    let out = send(&mut c, T0, &data(1, TcpFlags::ACK));
    assert!(out[0].hdr.flags.has(TcpFlags::ECE), "echoed until CWR");
    // ...until a data segment with CWR arrives.
    let out = send(
        &mut c,
        T0,
        &data(2, TcpFlags(TcpFlags::ACK.0 | TcpFlags::CWR.0)),
    );
    assert!(!out[0].hdr.flags.has(TcpFlags::ECE));
}

#[test]
fn ecn_a_cwr_on_a_bare_fin_does_not_stop_the_echo() {
    // RFC 3168 §6.1.2 sets CWR on a new data packet, so only one carrying data ends the echo
    // (§6.1.3); the flag on a segment without data (here a bare FIN) leaves ECE on the ACKs.
    let (mut c, _) = established(ecn_cfg());
    let d0 = seg(S_TEMPL, M as u32);
    let mut out = vec![];
    c.on_segment(T0, &d0.hdr, d0.payload, true, &mut out);
    assert!(out[0].hdr.flags.has(TcpFlags::ECE));
    let fin = seg(
        TcpHeader {
            seq: S + M,
            flags: TcpFlags(FIN_ACK.0 | TcpFlags::CWR.0),
            ..S_TEMPL
        },
        0,
    );
    let out = send(&mut c, T0, &fin);
    assert_eq!(out[0].hdr.ack, S + M + 1);
    assert!(out[0].hdr.flags.has(TcpFlags::ECE));
}

#[test]
fn each_segment_the_receiver_already_has_is_counted() {
    // RFC 9293 §3.10.7.4: a segment wholly below rcv_nxt is a duplicate; the statistics count
    // each one (the figures of retransmissions that were not needed).
    let (mut c, _) = established(cfg());
    let d0 = seg(S_TEMPL, M as u32);
    send(&mut c, T0, &d0);
    assert_eq!(c.stats.duplicate_segments_received, 0);
    for k in 1..=2 {
        let ack = send(&mut c, T0 + ms(k), &d0);
        assert_eq!(ack[0].hdr.ack, S + M);
        assert_eq!(c.stats.duplicate_segments_received, k);
    }
}

#[test]
fn ecn_sender_halves_once_per_window_and_sets_cwr() {
    let (mut s, out) = sending(ecn_cfg());
    assert_eq!(out.len(), 10);
    // First ECE: ssthresh = cwnd = max(FlightSize/2, 2·SMSS) with FlightSize measured before the
    // ACK's own advance (10 segments): 5000 (§6.1.2 — as for a loss, but no retransmission).
    let out = send(&mut s, T0 + ms(100), &ece(S + M));
    assert_eq!(s.ssthresh(), 5000);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert!(!s.in_recovery());
    // cwnd 5000 with 9 segments in flight: nothing goes out yet; the first new segment that does
    // carries CWR.
    assert!(out.is_empty());
    // Further ECEs for data of the same window do not reduce again; as the window drains, new
    // segments go out, and the first of them carries CWR (§6.1.2).
    let mut sent = vec![];
    for k in 2..=9 {
        sent.extend(send(&mut s, T0 + ms(100), &ece(S + k * M)));
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    sent.extend(send(&mut s, T0 + ms(100), &c_ack(S + 10 * M)));
    assert!(sent.len() >= 2);
    assert_eq!(sent[0].hdr.seq, S + 10 * M);
    assert!(sent[0].hdr.flags.has(TcpFlags::CWR));
    assert!(sent[1..].iter().all(|sg| !sg.hdr.flags.has(TcpFlags::CWR)));
    let out = sent;
    // An ECE acknowledging data sent after the reduction is a new congestion signal.
    let first_new = out[0].hdr.seq;
    let before = s.ssthresh();
    send(&mut s, T0 + ms(200), &ece(first_new + M));
    assert_eq!(s.stats.ecn_reductions, 2);
    assert!(s.ssthresh() <= before);
    // Retransmissions are never ECT (§6.1.5): a timeout's retransmission goes out without it.
    let (_, rtx) = fire(&mut s);
    assert!(!rtx[0].ect);
}

// ---------------------------------------------------------------------------------------------
// Tests for Westwood+ (ALGORITHMS.md §2) through the socket
// ---------------------------------------------------------------------------------------------

/// (in recovery, timeouts so far, cwnd, ssthresh), windows in segments.
type RecoveryChange = (bool, u64, u64, u64);

/// A bulk transfer over the fixtures' wire (100 ms RTT, a 64 KB receive window, an ACK per
/// segment) from a server running `cc` (ns-2's cwnd = ssthresh on a full ACK); the first
/// transmission of every segment whose index (from 0) is in `lost` is dropped. Runs until
/// `T0` + `run` and returns (in recovery, timeouts, cwnd, ssthresh) in segments at every change
/// of the first two, and the number of data segments the server sent in each second.
fn bulk_with_losses(
    cc: CcKind,
    lost: &'static [std::ops::Range<u64>],
    run: SimTime,
) -> (Vec<RecoveryChange>, Vec<u64>) {
    let ccfg = TcpConfig {
        delayed_ack: false,
        ..cfg()
    };
    let scfg = TcpConfig {
        cc,
        full_ack: FullAckCwnd::Ssthresh,
        ..cfg()
    };
    let (mut c, mut s, mut w) = established_wire(ccfg, scfg);
    let mut sent = std::collections::HashSet::new();
    w.drop = Box::new(move |from_server, sg| {
        let k = sg.hdr.seq.wrapping_sub(S) / M;
        let first = sent.insert(sg.hdr.seq);
        from_server && sg.payload > 0 && first && lost.iter().any(|r| r.contains(&k))
    });
    let out = write_all(&mut s, T0);
    w.put(true, out);
    let mut changes = Vec::new();
    let mut state = (false, 0);
    while w.step(&mut c, &mut s, T0 + run) {
        if (s.in_recovery(), s.stats.timeouts) != state {
            state = (s.in_recovery(), s.stats.timeouts);
            changes.push((state.0, state.1, s.cwnd() / M, s.ssthresh() / M));
        }
    }
    let mut per_second = vec![0; (run.as_nanos() / secs(1).as_nanos()) as usize + 1];
    for (t, sg) in w.sent_by(true) {
        if sg.payload > 0 {
            per_second[((t - T0).as_nanos() / secs(1).as_nanos()) as usize] += 1;
        }
    }
    (changes, per_second)
}

/// Westwood+ (ALGORITHMS.md §2.1) against Reno on the same trace: segment 5000 is lost in a
/// steady receive-window-limited transfer (cwnd has grown past the window), segments
/// 8000–8069 — more than a window — later, so that only the timer recovers them.
/// Three duplicate ACKs: ssthresh = BWE·RTT_min/seg, the pipe the transfer was filling (the
/// segments sent per 100 ms RTT, counted on the wire), cwnd cut to it (+3 in recovery), not
/// Reno's half flight; the RTO: ssthresh = the pipe again and cwnd = 1.
#[test]
fn westwood_cuts_to_the_measured_pipe_after_dupacks_and_rto() {
    let lost: &[std::ops::Range<u64>] = &[5000..5001, 8000..8070];
    let (ww, per_second) = bulk_with_losses(CcKind::Westwood, lost, secs(14));
    // Seconds 3 to 7 are steady: the same count of segments each second.
    assert!(
        per_second[3..8].windows(2).all(|p| p[0] == p[1]),
        "{per_second:?}"
    );
    let pipe = per_second[5] / 10;
    assert!(pipe >= 60, "the window-limited pipe, {pipe} segments");
    // The estimate approaches the rate from below (it rose through slow start) and the pipe is
    // truncated to whole segments, so it may be one segment short of the count.
    let ss = ww[0].3;
    assert!(ss == pipe || ss + 1 == pipe, "ssthresh {ss}, pipe {pipe}");
    assert_eq!(
        ww[..3],
        [(true, 0, ss + 3, ss), (false, 0, ss, ss), (false, 1, 1, ss)]
    );
    // Reno on the same trace halves the flight.
    let (reno, _) = bulk_with_losses(CcKind::Reno, lost, secs(14));
    assert_eq!(reno[0], (true, 0, pipe / 2 + 3, pipe / 2));
}

// ---------------------------------------------------------------------------------------------
// Tests for Adaptive TCP (ALGORITHMS.md §1) through the socket
// ---------------------------------------------------------------------------------------------

/// On a wire whose RTT never varies RTT_max = RTT_min, so α = 0 at every loss and Adaptive TCP
/// reacts as native NewReno: the same trace, event for event, as `cc = "reno"`.
#[test]
fn adaptive_with_a_constant_rtt_is_native_newreno() {
    let lost: &[std::ops::Range<u64>] = &[5000..5001, 8000..8070];
    let (adaptive, sent_a) = bulk_with_losses(CcKind::Adaptive, lost, secs(14));
    let (reno, sent_r) = bulk_with_losses(CcKind::Reno, lost, secs(14));
    assert!(adaptive.len() >= 3, "{adaptive:?}");
    assert_eq!(adaptive, reno);
    assert_eq!(sent_a, sent_r);
}

#[test]
fn newreno_full_ack_with_new_data_outstanding() {
    // Segment 1 lost; eight duplicates inflate cwnd to 13000, so segments 11, 12 and 13 go out
    // during recovery. The full ACK (S + 11M > recover) leaves those three in flight:
    // option (1) gives min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(5000, 4000).
    let mut s = second_segment_lost(Variant::NewReno);
    let mut sent = vec![];
    for _ in 0..8 {
        sent.extend(send(&mut s, T0 + ms(150), &c_ack(S + M)));
    }
    assert_eq!(
        segs(&sent),
        [
            (S + M, 1000),
            (S + 11 * M, 1000),
            (S + 12 * M, 1000),
            (S + 13 * M, 1000)
        ]
    );
    send(&mut s, T0 + ms(250), &c_ack(S + 11 * M));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 4000);
}

#[test]
fn compositions_are_named_and_sack_falls_back_without_the_peer() {
    let (c, s) = established_with(
        cfg(),
        TcpConfig {
            recovery: Some(Variant::Sack),
            cc: CcKind::Cubic,
            ..cfg()
        },
    );
    // The client did not offer SACK-permitted: RFC 6675 has no scoreboard to work with, so the
    // server recovers as RFC 5681 says.
    assert_eq!((s.cc_name(), s.recovery_name()), ("cubic", "reno"));
    assert_eq!((c.cc_name(), c.recovery_name()), ("reno", "newreno"));
    let (_, s) = established(sack_cfg());
    assert_eq!(s.recovery_name(), "sack");
    let (_, s) = established(TcpConfig {
        variant: Some(Variant::Reno),
        ..cfg()
    });
    assert_eq!(s.recovery_name(), "reno");
}

#[test]
fn reno_timeout_inside_fast_recovery_ends_the_episode() {
    // Segments 1 and 2 lost: Reno enters recovery on the third duplicate, then the timer expires.
    let mut s = second_segment_lost(Variant::Reno);
    for _ in 0..3 {
        send(&mut s, T0 + ms(150), &c_ack(S + M));
    }
    assert!(s.in_recovery());
    fire(&mut s);
    // RFC 5681 §3.1: after the timeout the sender is in slow start from one segment; the next
    // ACK grows cwnd by one SMSS instead of deflating to ssthresh as a recovery exit would.
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 1000);
    send(&mut s, T0 + secs(1), &c_ack(S + 2 * M));
    assert_eq!(s.cwnd(), 2000);
    assert!(s.ssthresh() > 2000);
}

// The Linux profile's mechanisms, each against its switch.
mod adhoc;
mod frto;
mod hystart;
mod input;
mod linux;
mod observers;
mod output;
mod quickack;
mod rcv_wnd;
mod timers;
mod tlp;
mod undo;
mod vegas;
