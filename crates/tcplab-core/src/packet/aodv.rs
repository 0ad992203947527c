//! AODV control messages (RFC 3561 §5), carried in UDP datagrams on port 654 (RFC 3561 §4).
//!
//! Each message is a struct with the fields of its RFC layout; `len()` is the exact number of
//! bytes `emit()` writes (the UDP payload). Sequence numbers are the raw 32-bit values of the
//! wire (RFC 3561 §6.1 compares them with signed rollover arithmetic).

use super::Addr;

/// The AODV UDP port (RFC 3561 §4).
pub const AODV_PORT: u16 = 654;

/// The AODV extension type of TCP-pgy S1's `ack_seq` (seed 002 §III-B.1). RFC 3561 §7 lets
/// messages carry type-length-value extensions after their fixed part; IANA assigned only type 1
/// (Hello Interval, §7.1), so this one uses an unassigned type.
pub const ACK_SEQ_EXT: u8 = 200;

/// TCP-pgy S1's piggybacked cumulative ACK: the receiver's connection (its ports as the ACKs
/// carry them) and the ACK number. The paper's field is the 4-byte number alone; the ports
/// tell two connections between the same nodes apart. On the wire: an RFC 3561 §7 extension,
/// type [`ACK_SEQ_EXT`], length 8 (source port, destination port, ACK number), 10 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSeq {
    /// The ACKs' source port (the TCP receiver's) and destination port (the sender's).
    pub sport: u16,
    pub dport: u16,
    /// Unwrapped cumulative ACK number; the wire carries its low 32 bits.
    pub ack: u64,
}

impl AckSeq {
    pub const WIRE_LEN: u32 = 10;

    /// Type `kind`, length 8, then the body (an AODV extension's layout).
    fn emit(&self, kind: u8, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&[kind, 8]);
        self.emit_body(buf);
    }

    /// The ports, then the ACK's low 32 bits (8 bytes; a DSR option's data too).
    pub(crate) fn emit_body(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.sport.to_be_bytes());
        buf.extend_from_slice(&self.dport.to_be_bytes());
        buf.extend_from_slice(&(self.ack as u32).to_be_bytes());
    }
}

fn ext_len(e: &Option<AckSeq>) -> u32 {
    e.map_or(0, |_| AckSeq::WIRE_LEN)
}

/// Route Request (RFC 3561 §5.1, type 1, 24 bytes, + 10 with an `ack_seq` extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rreq {
    /// J: join flag (multicast).
    pub join: bool,
    /// R: repair flag (multicast).
    pub repair: bool,
    /// G: a gratuitous RREP should go to the destination (§6.6.3).
    pub gratuitous: bool,
    /// D: only the destination may answer (§6.5).
    pub dest_only: bool,
    /// U: the destination sequence number is unknown (§6.3).
    pub unknown_seq: bool,
    pub hop_count: u8,
    pub id: u32,
    pub dst: Addr,
    pub dst_seq: u32,
    pub orig: Addr,
    pub orig_seq: u32,
    /// TCP-pgy S1: the originator's TCP receiver's cumulative ACK toward `dst`.
    pub ack_seq: Option<AckSeq>,
}

/// Route Reply (RFC 3561 §5.2, type 2, 20 bytes, + 10 with an `ack_seq` extension). A HELLO (§6.9) is an RREP whose destination
/// is its sender, sent with IP TTL 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rrep {
    /// R: repair flag (multicast).
    pub repair: bool,
    /// A: the sender asks for an RREP-ACK (§6.7).
    pub ack_required: bool,
    /// Prefix size (5 bits, §5.2): the reply covers a subnet; 0 for a host route.
    pub prefix: u8,
    pub hop_count: u8,
    pub dst: Addr,
    pub dst_seq: u32,
    pub orig: Addr,
    /// Lifetime in milliseconds.
    pub lifetime_ms: u32,
    /// TCP-pgy S1: a gratuitous RREP carries the RREQ's `ack_seq` to the TCP sender.
    pub ack_seq: Option<AckSeq>,
}

/// Route Error (RFC 3561 §5.3, type 3, 4 + 8n bytes).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Rerr {
    /// N: no-delete flag, set after a local repair (§6.12).
    pub no_delete: bool,
    /// The unreachable destinations and their (incremented) sequence numbers.
    pub unreachable: Vec<(Addr, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AodvMsg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
    /// Route Reply Acknowledgment (RFC 3561 §5.4, type 4, 2 bytes).
    RrepAck,
}

impl AodvMsg {
    pub fn type_code(&self) -> u8 {
        match self {
            AodvMsg::Rreq(_) => 1,
            AodvMsg::Rrep(_) => 2,
            AodvMsg::Rerr(_) => 3,
            AodvMsg::RrepAck => 4,
        }
    }

    /// Bytes on the wire (the UDP payload).
    pub fn len(&self) -> u32 {
        match self {
            AodvMsg::Rreq(r) => 24 + ext_len(&r.ack_seq),
            AodvMsg::Rrep(r) => 20 + ext_len(&r.ack_seq),
            AodvMsg::Rerr(e) => 4 + 8 * e.unreachable.len() as u32,
            AodvMsg::RrepAck => 2,
        }
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the message in its RFC 3561 §5 layout (network byte order).
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let put = |buf: &mut Vec<u8>, v: u32| buf.extend_from_slice(&v.to_be_bytes());
        match self {
            AodvMsg::Rreq(r) => {
                // §5.1: J R G D U in the five high bits of the flags octet.
                let flags = (r.join as u8) << 7
                    | (r.repair as u8) << 6
                    | (r.gratuitous as u8) << 5
                    | (r.dest_only as u8) << 4
                    | (r.unknown_seq as u8) << 3;
                buf.extend_from_slice(&[1, flags, 0, r.hop_count]);
                put(buf, r.id);
                put(buf, r.dst);
                put(buf, r.dst_seq);
                put(buf, r.orig);
                put(buf, r.orig_seq);
                if let Some(e) = &r.ack_seq {
                    e.emit(ACK_SEQ_EXT, buf);
                }
            }
            AodvMsg::Rrep(r) => {
                // §5.2: R A, 9 reserved bits, 5-bit prefix size.
                let flags = (r.repair as u8) << 7 | (r.ack_required as u8) << 6;
                buf.extend_from_slice(&[2, flags, r.prefix & 0x1f, r.hop_count]);
                put(buf, r.dst);
                put(buf, r.dst_seq);
                put(buf, r.orig);
                put(buf, r.lifetime_ms);
                if let Some(e) = &r.ack_seq {
                    e.emit(ACK_SEQ_EXT, buf);
                }
            }
            AodvMsg::Rerr(e) => {
                // §5.3: N, 15 reserved bits, DestCount.
                let n = e.unreachable.len().min(255) as u8;
                buf.extend_from_slice(&[3, (e.no_delete as u8) << 7, 0, n]);
                for &(a, s) in &e.unreachable[..n as usize] {
                    put(buf, a);
                    put(buf, s);
                }
            }
            AodvMsg::RrepAck => buf.extend_from_slice(&[4, 0]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(m: &AodvMsg) -> Vec<u8> {
        let mut b = Vec::new();
        m.emit(&mut b);
        assert_eq!(b.len() as u32, m.len(), "len() matches emit()");
        b
    }

    #[test]
    fn rreq_layout() {
        let m = AodvMsg::Rreq(Rreq {
            join: false,
            repair: false,
            gratuitous: true,
            dest_only: true,
            unknown_seq: true,
            hop_count: 3,
            id: 0x0102_0304,
            dst: 0x0a00_0007,
            dst_seq: 9,
            orig: 0x0a00_0001,
            orig_seq: 0xffff_fffe,
            ack_seq: None,
        });
        let b = bytes(&m);
        assert_eq!(&b[..4], &[1, 0x38, 0, 3]);
        assert_eq!(&b[4..8], &[1, 2, 3, 4]);
        assert_eq!(&b[8..12], &[10, 0, 0, 7]);
        assert_eq!(&b[12..16], &[0, 0, 0, 9]);
        assert_eq!(&b[16..20], &[10, 0, 0, 1]);
        assert_eq!(&b[20..24], &[0xff, 0xff, 0xff, 0xfe]);
    }

    /// TCP-pgy S1: the RFC 3561 §7 extension after the fixed part, counted in `len()`.
    #[test]
    fn ack_seq_extension_layout() {
        let e = Some(AckSeq {
            sport: 0x1389,
            dport: 0x9c40,
            ack: 0x1_0203_0405,
        });
        let q = AodvMsg::Rreq(Rreq {
            join: false,
            repair: false,
            gratuitous: true,
            dest_only: false,
            unknown_seq: false,
            hop_count: 0,
            id: 1,
            dst: 0x0a00_0001,
            dst_seq: 2,
            orig: 0x0a00_0008,
            orig_seq: 4,
            ack_seq: e,
        });
        let b = bytes(&q);
        assert_eq!(b.len(), 34);
        assert_eq!(&b[24..], &[200, 8, 0x13, 0x89, 0x9c, 0x40, 2, 3, 4, 5]);
        let a = AodvMsg::Rrep(Rrep {
            repair: false,
            ack_required: false,
            prefix: 0,
            hop_count: 3,
            dst: 0x0a00_0008,
            dst_seq: 4,
            orig: 0x0a00_0001,
            lifetime_ms: 6000,
            ack_seq: e,
        });
        let b = bytes(&a);
        assert_eq!(b.len(), 30);
        assert_eq!(&b[20..22], &[200, 8]);
    }

    #[test]
    fn rrep_rerr_ack_layout() {
        let m = AodvMsg::Rrep(Rrep {
            repair: false,
            ack_required: true,
            prefix: 0,
            hop_count: 2,
            dst: 0x0a00_0003,
            dst_seq: 4,
            orig: 0x0a00_0001,
            lifetime_ms: 10_000,
            ack_seq: None,
        });
        let b = bytes(&m);
        assert_eq!(&b[..4], &[2, 0x40, 0, 2]);
        assert_eq!(&b[16..20], &10_000u32.to_be_bytes());
        let e = AodvMsg::Rerr(Rerr {
            no_delete: true,
            unreachable: vec![(0x0a00_0003, 5), (0x0a00_0004, 7)],
        });
        let b = bytes(&e);
        assert_eq!(b.len(), 20);
        assert_eq!(&b[..4], &[3, 0x80, 0, 2]);
        assert_eq!(&b[12..20], &[10, 0, 0, 4, 0, 0, 0, 7]);
        assert_eq!(bytes(&AodvMsg::RrepAck), vec![4, 0]);
    }

    /// Our pcaps decode as AODV in Wireshark, with the field values we wrote.
    #[test]
    fn tshark_decodes_each_message() {
        use crate::packet::{Ecn, Ipv4Header, Packet, Transport};
        let msgs = [
            AodvMsg::Rreq(Rreq {
                join: false,
                repair: false,
                gratuitous: true,
                dest_only: false,
                unknown_seq: true,
                hop_count: 2,
                id: 77,
                dst: 0x0a00_0008,
                dst_seq: 0,
                orig: 0x0a00_0001,
                orig_seq: 12,
                ack_seq: Some(AckSeq {
                    sport: 5001,
                    dport: 40000,
                    ack: 0x1_0000_1234,
                }),
            }),
            AodvMsg::Rrep(Rrep {
                repair: false,
                ack_required: false,
                prefix: 0,
                hop_count: 6,
                dst: 0x0a00_0008,
                dst_seq: 44,
                orig: 0x0a00_0001,
                lifetime_ms: 10_000,
                ack_seq: None,
            }),
            AodvMsg::Rerr(Rerr {
                no_delete: false,
                unreachable: vec![(0x0a00_0008, 45), (0x0a00_0009, 3)],
            }),
            AodvMsg::RrepAck,
        ];
        let pkts: Vec<Packet> = msgs
            .iter()
            .enumerate()
            .map(|(i, m)| Packet {
                ip: Ipv4Header {
                    src: 0x0a00_0002,
                    dst: 0xffff_ffff,
                    ttl: 1,
                    ecn: Ecn::NotEct,
                    ident: i as u16,
                },
                l4: Transport::Aodv(m.clone()),
                payload: 0,
                flow: u32::MAX,
            })
            .collect();
        let Some(text) = crate::packet::tshark::decode("aodv", &pkts, "udp.check_checksum:TRUE")
        else {
            return;
        };
        assert_eq!(
            text.matches("Ad hoc On-demand Distance Vector").count(),
            4,
            "{text}"
        );
        for needle in [
            "Route Request (1)",
            "..1. .... .... .... = RREQ Gratuitous RREP: Set",
            ".... 1... .... .... = RREQ Unknown Sequence Number: Set",
            "RREQ Id: 77",
            "Originator Sequence Number: 12",
            "Extension Type: Unknown (200)",
            "Extension Length: 8 bytes",
            "Route Reply (2)",
            "Hop Count: 6",
            "Destination Sequence Number: 44",
            "Lifetime: 10000",
            "Route Error (3)",
            "Destination Count: 2",
            "Unreachable Destination IP: 10.0.0.9",
            "Destination Sequence Number: 45",
            "Route Reply Acknowledgment (4)",
            "[Checksum Status: Good]",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.contains("Malformed"), "{text}");
    }
}
