//! I-TCP (Bakre & Badrinath, ICDCS 1995), the split-connection baseline of seed 001: the base
//! station terminates the mobile's TCP connection and opens its own to the fixed host, relaying
//! the bytes between the two through a buffer of `relay_buffer` bytes.
//!
//! The agent owns two sans-IO sockets per connection, each speaking for the absent end: towards
//! the mobile it answers as the fixed host (addresses and ports of the FH), towards the FH as the
//! mobile. Every packet of the connection crossing the BS is absorbed and fed to the socket of its
//! side; the sockets' segments leave the BS as packets of the impersonated end. The FH → mobile
//! relay reads from the FH-side socket only while the bytes written to the mobile side and not
//! yet acknowledged by the mobile leave room in the buffer, so a full relay closes the FH's
//! window. The end-to-end semantics the split breaks — the FH's data is acknowledged when the BS
//! has it, not when the mobile does — is counted: bytes acknowledged to the FH but not yet
//! acknowledged by the mobile (docs/models/itcp.md).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ConnKey, Dir, Verdict};
use crate::packet::{Addr, Ecn, Ipv4Header, Packet, TcpFlags, Transport};
use crate::scenario::units::Size;
use crate::tcp::{Segment, Socket, TcpConfig};
use crate::time::SimTime;

/// `itcp = { … }` of an `[[agents]]` entry with kind = "itcp".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ItcpConfig {
    /// Bytes the BS holds per direction between the two connections (default 64 KiB). Allowed
    /// 1 B to 1 GiB.
    #[serde(with = "size")]
    #[schemars(with = "Size")]
    pub relay_buffer: u64,
}

mod size {
    use super::*;
    pub fn serialize<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        Size(*v).serialize(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        Ok(Size::deserialize(d)?.0)
    }
}

impl Default for ItcpConfig {
    fn default() -> Self {
        ItcpConfig {
            relay_buffer: 64 * 1024,
        }
    }
}

impl ItcpConfig {
    pub fn check(&self) -> Vec<(&'static str, String)> {
        if self.relay_buffer == 0 || self.relay_buffer > 1 << 30 {
            return vec![(
                "relay_buffer",
                format!(
                    "{} B is out of range; allowed 1 B to 1 GiB",
                    self.relay_buffer
                ),
            )];
        }
        Vec::new()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItcpStats {
    pub connections_split: u64,
    /// Bytes relayed from the FH's connection to the mobile's, and back.
    pub relayed_to_mobile: u64,
    pub relayed_to_fh: u64,
    /// Bytes acknowledged to the FH but not (yet) acknowledged by the mobile: now, and the most
    /// there ever were.
    pub acked_not_delivered: u64,
    pub acked_not_delivered_max: u64,
}

/// ISNs of the BS's two sockets (any fixed values: the two connections are independent).
const ISS_FH_SIDE: u64 = 1_000_000;
const ISS_MOBILE_SIDE: u64 = 2_000_000;

struct Split {
    flow: u32,
    /// The BS's socket towards the FH, speaking as the mobile.
    fh_side: Socket,
    /// The BS's socket towards the mobile, speaking as the FH.
    mobile_side: Socket,
    /// Bytes moved FH side → mobile side and mobile side → FH side.
    down: u64,
    up: u64,
    fin_down: bool,
    fin_up: bool,
}

impl std::fmt::Debug for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Split")
            .field("flow", &self.flow)
            .field("fh_side", &self.fh_side.state())
            .field("mobile_side", &self.mobile_side.state())
            .field("down", &self.down)
            .field("up", &self.up)
            .finish()
    }
}

#[derive(Debug)]
pub struct Itcp {
    cfg: ItcpConfig,
    tcp: TcpConfig,
    splits: BTreeMap<ConnKey, Split>,
    pub stats: ItcpStats,
}

impl Itcp {
    /// `tcp`: the configuration of the BS's two sockets (the scenario's `[tcp]`).
    pub fn new(cfg: ItcpConfig, tcp: TcpConfig) -> Itcp {
        Itcp {
            cfg,
            tcp,
            splits: BTreeMap::new(),
            stats: ItcpStats::default(),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.splits
            .values()
            .flat_map(|s| [s.fh_side.poll_timeout(), s.mobile_side.poll_timeout()])
            .flatten()
            .min()
    }

    pub fn on_packet(
        &mut self,
        now: SimTime,
        dir: Dir,
        p: &mut Packet,
        out: &mut Vec<Packet>,
    ) -> Verdict {
        let Some(key) = ConnKey::of(p, dir) else {
            return Verdict::Forward;
        };
        let h = p.tcp().expect("a TCP packet").clone();
        let ce = p.ip.ecn == Ecn::Ce;
        if !self.splits.contains_key(&key) {
            // Only a connection the mobile opens is split (I-TCP: the mobile's SYN reaches its
            // base station first); anything else passes untouched.
            let syn = h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK);
            if dir != Dir::FromMobile || !syn {
                return Verdict::Forward;
            }
            let mut fh_side = Socket::new(self.tcp.clone(), key.mh_port, key.fh_port, ISS_FH_SIDE);
            let mut mobile_side =
                Socket::new(self.tcp.clone(), key.fh_port, key.mh_port, ISS_MOBILE_SIDE);
            fh_side.auto_read = false;
            mobile_side.listen();
            let mut segs = Vec::new();
            fh_side.connect(now, &mut segs);
            emit(&key, p.flow, Dir::ToMobile, &mut segs, out);
            self.splits.insert(
                key,
                Split {
                    flow: p.flow,
                    fh_side,
                    mobile_side,
                    down: 0,
                    up: 0,
                    fin_down: false,
                    fin_up: false,
                },
            );
            self.stats.connections_split += 1;
        }
        let s = self.splits.get_mut(&key).expect("present");
        let mut segs = Vec::new();
        match dir {
            Dir::FromMobile => {
                s.mobile_side.on_segment(now, &h, p.payload, ce, &mut segs);
                emit(&key, s.flow, Dir::FromMobile, &mut segs, out);
            }
            Dir::ToMobile => {
                s.fh_side.on_segment(now, &h, p.payload, ce, &mut segs);
                emit(&key, s.flow, Dir::ToMobile, &mut segs, out);
            }
        }
        self.relay(now, key, out);
        Verdict::Absorb
    }

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let keys: Vec<ConnKey> = self.splits.keys().copied().collect();
        for key in keys {
            let s = self.splits.get_mut(&key).expect("present");
            let mut segs = Vec::new();
            if s.fh_side.poll_timeout().is_some_and(|t| t <= now) {
                s.fh_side.handle_timeout(now, &mut segs);
                emit(&key, s.flow, Dir::ToMobile, &mut segs, out);
            }
            if s.mobile_side.poll_timeout().is_some_and(|t| t <= now) {
                s.mobile_side.handle_timeout(now, &mut segs);
                emit(&key, s.flow, Dir::FromMobile, &mut segs, out);
            }
            self.relay(now, key, out);
        }
    }

    /// Moves bytes between the two sockets as far as the relay buffer allows, passes FINs on,
    /// and updates the acknowledged-but-not-delivered count.
    fn relay(&mut self, now: SimTime, key: ConnKey, out: &mut Vec<Packet>) {
        let cap = self.cfg.relay_buffer;
        let s = self.splits.get_mut(&key).expect("present");
        let mut to_mobile = Vec::new();
        let mut to_fh = Vec::new();
        // FH → mobile: what the FH side received in order, while the buffer (bytes written to
        // the mobile side and not yet acknowledged by the mobile) has room.
        if s.mobile_side.is_established() {
            let pending = s.fh_side.delivered() - s.down;
            let held = s.down - s.mobile_side.snd_una_rel().min(s.down);
            let n = pending.min(cap.saturating_sub(held));
            if n > 0 {
                s.mobile_side.write(now, n, &mut to_mobile);
                s.fh_side.read(now, n, &mut to_fh);
                s.down += n;
                self.stats.relayed_to_mobile += n;
            }
            if !s.fin_down && s.fh_side.peer_closed() && s.down == s.fh_side.delivered() {
                s.fin_down = true;
                s.mobile_side.shutdown(now, &mut to_mobile);
            }
        }
        // Mobile → FH (the request): the FH side's send buffer takes it once connected.
        if s.fh_side.is_established() {
            let n = s.mobile_side.delivered() - s.up;
            if n > 0 {
                s.fh_side.write(now, n, &mut to_fh);
                s.up += n;
                self.stats.relayed_to_fh += n;
            }
            if !s.fin_up && s.mobile_side.peer_closed() && s.up == s.mobile_side.delivered() {
                s.fin_up = true;
                s.fh_side.shutdown(now, &mut to_fh);
            }
        }
        emit(&key, s.flow, Dir::ToMobile, &mut to_fh, out);
        emit(&key, s.flow, Dir::FromMobile, &mut to_mobile, out);
        // Acknowledged to the FH (everything the FH side received in order) but not by the mobile.
        let gap = s.fh_side.delivered() - s.mobile_side.snd_una_rel().min(s.down);
        self.stats.acked_not_delivered = gap;
        self.stats.acked_not_delivered_max = self.stats.acked_not_delivered_max.max(gap);
    }
}

/// Turns a socket's segments into packets of the end it speaks for: the FH-side socket (`side`
/// ToMobile: it talks to the FH about data for the mobile) sends as the mobile to the FH; the
/// mobile-side socket sends as the FH to the mobile.
fn emit(key: &ConnKey, flow: u32, side: Dir, segs: &mut Vec<Segment>, out: &mut Vec<Packet>) {
    let (src, dst): (Addr, Addr) = match side {
        Dir::ToMobile => (key.mh, key.fh),
        Dir::FromMobile => (key.fh, key.mh),
    };
    for seg in segs.drain(..) {
        out.push(Packet {
            ip: Ipv4Header {
                src,
                dst,
                ttl: 64,
                ecn: if seg.ect { Ecn::Ect0 } else { Ecn::NotEct },
                ident: 0,
            },
            l4: Transport::Tcp(seg.hdr),
            payload: seg.payload,
            flow,
        });
    }
}
