//! The DSR Options header (RFC 4728 §6), carried directly in IP as protocol 48 (§6.1) between
//! the IP header and the transport header it routes (or alone, Next Header 59, for a control
//! packet). Each option is a struct with the fields of its RFC layout; `len()` is the exact
//! number of bytes `emit()` writes. Options are packed one after another without Pad1/PadN
//! (alignment is a SHOULD of §6.1; Wireshark decodes either way).

use super::{AckSeq, Addr, Transport};

/// IP protocol number of the DSR Options header (RFC 4728 §6.1, IANA).
pub const IPPROTO_DSR: u8 = 48;
/// "No Next Header" (RFC 8200 §4.7): a DSR packet that carries only options.
pub const NO_NEXT_HEADER: u8 = 59;
/// Route Error type NODE_UNREACHABLE (RFC 4728 §6.4.1).
pub const NODE_UNREACHABLE: u8 = 1;
/// Option type of TCP-pgy S1's ACK (seed 002 §III-B.1, which says S1 applies to DSR-like
/// protocols). IANA's DSR Option Types registry structures a type as Unk (1 bit), Act (2 bits)
/// and a number (5 bits); 4–31 (Unk 0, Act 00) are unassigned: a node that does not know the
/// option ignores it and sends no OPTION_NOT_SUPPORTED error. 31 is the last of them.
pub const DSR_ACK_SEQ: u8 = 31;
/// The fixed part of the DSR Options header: Next Header, F + reserved, Payload Length (§6.1).
pub const DSR_FIXED_LEN: u32 = 4;

/// One DSR option (RFC 4728 §6.2–6.7, the four the agent uses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DsrOption {
    /// Route Request (§6.2, type 1): the initiator's request `id` for `target`; `addrs` are the
    /// nodes it crossed (not the initiator, which is the IP source).
    RouteRequest {
        id: u16,
        target: Addr,
        addrs: Vec<Addr>,
    },
    /// Route Reply (§6.3, type 2): the route from the initiator (the IP destination), not
    /// included, through `addrs` to the target (the last address).
    RouteReply {
        last_hop_external: bool,
        addrs: Vec<Addr>,
    },
    /// Route Error (§6.4, type 3) of type NODE_UNREACHABLE: `err_src` could not reach
    /// `unreachable`; the error is for `err_dst`.
    RouteError {
        salvage: u8,
        err_src: Addr,
        err_dst: Addr,
        unreachable: Addr,
    },
    /// DSR Source Route (§6.7, type 96): the intermediate hops `addrs`; `segs_left` of them
    /// are still to be visited; `salvage` counts salvages (4 bits).
    SourceRoute {
        salvage: u8,
        segs_left: u8,
        addrs: Vec<Addr>,
    },
    /// TCP-pgy S1's ACK (type [`DSR_ACK_SEQ`], 10 bytes): the sending node's TCP receiver's
    /// latest cumulative ACK toward the packet's other end, on a route request or reply.
    AckSeq(AckSeq),
}

impl DsrOption {
    pub fn type_code(&self) -> u8 {
        match self {
            DsrOption::RouteRequest { .. } => 1,
            DsrOption::RouteReply { .. } => 2,
            DsrOption::RouteError { .. } => 3,
            DsrOption::SourceRoute { .. } => 96,
            DsrOption::AckSeq(_) => DSR_ACK_SEQ,
        }
    }

    /// Opt Data Len: the option's bytes after its type and length octets.
    fn data_len(&self) -> u32 {
        match self {
            DsrOption::RouteRequest { addrs, .. } => 6 + 4 * addrs.len() as u32,
            DsrOption::RouteReply { addrs, .. } => 1 + 4 * addrs.len() as u32,
            DsrOption::RouteError { .. } => 14,
            DsrOption::SourceRoute { addrs, .. } => 2 + 4 * addrs.len() as u32,
            DsrOption::AckSeq(_) => AckSeq::WIRE_LEN - 2,
        }
    }

    pub fn len(&self) -> u32 {
        2 + self.data_len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    fn emit(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&[self.type_code(), self.data_len() as u8]);
        let addrs_out = |buf: &mut Vec<u8>, a: &[Addr]| {
            for x in a {
                buf.extend_from_slice(&x.to_be_bytes());
            }
        };
        match self {
            DsrOption::RouteRequest { id, target, addrs } => {
                buf.extend_from_slice(&id.to_be_bytes());
                buf.extend_from_slice(&target.to_be_bytes());
                addrs_out(buf, addrs);
            }
            DsrOption::RouteReply {
                last_hop_external,
                addrs,
            } => {
                // §6.3: L, then 7 reserved bits.
                buf.push((*last_hop_external as u8) << 7);
                addrs_out(buf, addrs);
            }
            DsrOption::RouteError {
                salvage,
                err_src,
                err_dst,
                unreachable,
            } => {
                // §6.4: Error Type, 4 reserved bits and the 4-bit Salvage, two addresses, and
                // NODE_UNREACHABLE's type-specific Unreachable Node Address (§6.4.1).
                buf.extend_from_slice(&[NODE_UNREACHABLE, salvage & 0x0f]);
                buf.extend_from_slice(&err_src.to_be_bytes());
                buf.extend_from_slice(&err_dst.to_be_bytes());
                buf.extend_from_slice(&unreachable.to_be_bytes());
            }
            DsrOption::SourceRoute {
                salvage,
                segs_left,
                addrs,
            } => {
                // §6.7: F, L, 4 reserved bits, 4-bit Salvage, 6-bit Segments Left.
                let bits: u16 = ((*salvage as u16 & 0x0f) << 6) | (*segs_left as u16 & 0x3f);
                buf.extend_from_slice(&bits.to_be_bytes());
                addrs_out(buf, addrs);
            }
            DsrOption::AckSeq(e) => e.emit_body(buf),
        }
    }
}

/// The DSR Options header with its options (flow-state bit F always 0).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DsrHeader {
    pub options: Vec<DsrOption>,
}

impl DsrHeader {
    pub fn len(&self) -> u32 {
        DSR_FIXED_LEN + self.options.iter().map(DsrOption::len).sum::<u32>()
    }

    pub fn is_empty(&self) -> bool {
        self.options.is_empty()
    }

    pub fn emit(&self, next_header: u8, buf: &mut Vec<u8>) {
        let payload = (self.len() - DSR_FIXED_LEN) as u16;
        buf.extend_from_slice(&[next_header, 0]);
        buf.extend_from_slice(&payload.to_be_bytes());
        for o in &self.options {
            o.emit(buf);
        }
    }
}

/// An IP datagram's DSR part: the options header, then the transport it routes (None: a
/// control packet, Next Header 59).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsrPacket {
    pub hdr: DsrHeader,
    pub inner: Option<Transport>,
}

impl DsrPacket {
    /// The packet's source route, if it has one.
    pub fn source_route(&self) -> Option<(u8, u8, &[Addr])> {
        self.hdr.options.iter().find_map(|o| match o {
            DsrOption::SourceRoute {
                salvage,
                segs_left,
                addrs,
            } => Some((*salvage, *segs_left, addrs.as_slice())),
            _ => None,
        })
    }

    /// The TCP-pgy S1 ACK the packet carries, if any.
    pub fn ack_seq(&self) -> Option<AckSeq> {
        self.hdr.options.iter().find_map(|o| match o {
            DsrOption::AckSeq(e) => Some(*e),
            _ => None,
        })
    }

    pub fn source_route_mut(&mut self) -> Option<(&mut u8, &mut u8, &mut Vec<Addr>)> {
        self.hdr.options.iter_mut().find_map(|o| match o {
            DsrOption::SourceRoute {
                salvage,
                segs_left,
                addrs,
            } => Some((salvage, segs_left, addrs)),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(h: &DsrHeader) -> Vec<u8> {
        let mut b = Vec::new();
        h.emit(NO_NEXT_HEADER, &mut b);
        assert_eq!(b.len() as u32, h.len(), "len() matches emit()");
        b
    }

    #[test]
    fn option_layouts() {
        let h = DsrHeader {
            options: vec![DsrOption::RouteRequest {
                id: 0x0102,
                target: 0x0a00_0008,
                addrs: vec![0x0a00_0002],
            }],
        };
        let b = bytes(&h);
        assert_eq!(&b[..4], &[59, 0, 0, 12]);
        assert_eq!(&b[4..8], &[1, 10, 1, 2]);
        assert_eq!(&b[8..16], &[10, 0, 0, 8, 10, 0, 0, 2]);
        let h = DsrHeader {
            options: vec![
                DsrOption::RouteReply {
                    last_hop_external: false,
                    addrs: vec![0x0a00_0002, 0x0a00_0003],
                },
                DsrOption::SourceRoute {
                    salvage: 2,
                    segs_left: 1,
                    addrs: vec![0x0a00_0002],
                },
            ],
        };
        let b = bytes(&h);
        assert_eq!(&b[4..7], &[2, 9, 0]);
        assert_eq!(&b[15..19], &[96, 6, 0x00, 0x81]);
        let h = DsrHeader {
            options: vec![DsrOption::RouteError {
                salvage: 3,
                err_src: 0x0a00_0004,
                err_dst: 0x0a00_0001,
                unreachable: 0x0a00_0005,
            }],
        };
        let b = bytes(&h);
        assert_eq!(b.len(), 4 + 16);
        assert_eq!(&b[4..8], &[3, 14, 1, 3]);
        assert_eq!(&b[16..20], &[10, 0, 0, 5]);
    }

    /// TCP-pgy S1's option: type 31, Opt Data Len 8, the ports and the ACK's low 32 bits.
    #[test]
    fn ack_seq_option_layout() {
        let h = DsrHeader {
            options: vec![DsrOption::AckSeq(AckSeq {
                sport: 80,
                dport: 5001,
                ack: 0x1_0000_0007,
            })],
        };
        let b = bytes(&h);
        assert_eq!(&b[..4], &[59, 0, 0, 10]);
        assert_eq!(&b[4..], &[31, 8, 0, 80, 0x13, 0x89, 0, 0, 0, 7]);
    }

    /// Our pcaps decode as DSR in Wireshark, the TCP segment inside a source-routed packet with
    /// a good checksum and the IP length counting the DSR header.
    #[test]
    fn tshark_decodes_dsr_and_the_tcp_inside() {
        use crate::packet::{Ecn, Ipv4Header, Packet, TcpFlags, TcpHeader, Transport};
        let (a, b, c, d) = (0x0a00_0001, 0x0a00_0002, 0x0a00_0003, 0x0a00_0004);
        let ip = |src, dst, ident| Ipv4Header {
            src,
            dst,
            ttl: 64,
            ecn: Ecn::NotEct,
            ident,
        };
        let control = |options| {
            Transport::Dsr(Box::new(DsrPacket {
                hdr: DsrHeader { options },
                inner: None,
            }))
        };
        let data = Packet {
            ip: ip(a, d, 1),
            l4: Transport::Dsr(Box::new(DsrPacket {
                hdr: DsrHeader {
                    options: vec![DsrOption::SourceRoute {
                        salvage: 1,
                        segs_left: 2,
                        addrs: vec![b, c],
                    }],
                },
                inner: Some(Transport::Tcp(TcpHeader::new(
                    5001,
                    80,
                    1_000,
                    2_000,
                    TcpFlags::ACK,
                    65535,
                ))),
            })),
            payload: 1000,
            flow: 0,
        };
        let pkts = [
            data.clone(),
            Packet {
                ip: ip(a, 0xffff_ffff, 2),
                l4: control(vec![DsrOption::RouteRequest {
                    id: 77,
                    target: d,
                    addrs: vec![b],
                }]),
                payload: 0,
                flow: u32::MAX,
            },
            Packet {
                ip: ip(d, a, 3),
                l4: control(vec![
                    DsrOption::RouteReply {
                        last_hop_external: false,
                        addrs: vec![b, c, d],
                    },
                    DsrOption::SourceRoute {
                        salvage: 0,
                        segs_left: 2,
                        addrs: vec![c, b],
                    },
                ]),
                payload: 0,
                flow: u32::MAX,
            },
            Packet {
                ip: ip(c, a, 4),
                l4: control(vec![DsrOption::RouteError {
                    salvage: 0,
                    err_src: c,
                    err_dst: a,
                    unreachable: d,
                }]),
                payload: 0,
                flow: u32::MAX,
            },
        ];
        assert_eq!(data.ip_len(), 20 + (4 + 2 + 2 + 8) + 20 + 1000);
        let Some(text) = crate::packet::tshark::decode("dsr", &pkts, "tcp.check_checksum:TRUE")
        else {
            return;
        };
        assert_eq!(text.matches("Dynamic Source Routing").count(), 4, "{text}");
        for needle in [
            "Protocol: Dynamic source routing (48)",
            "Total Length: 1056",
            "Next header: TCP (0x06)",
            "Segments left: 2",
            "Salvage: 0x01",
            "Hop list : 10.0.0.2 10.0.0.3 10.0.0.4",
            "Target address: 10.0.0.4",
            "Unreachable node address: 10.0.0.4",
            "[Checksum Status: Good]",
            "Source Port: 5001",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.contains("Malformed"), "{text}");
    }

    /// TCP-pgy S1's option goes last in the header: tshark's DSR dissector has no case for an
    /// option type it does not know and then advances two bytes instead of the option's length,
    /// so what follows it would be misread. Placed last, every standard option before it
    /// decodes (tshark then flags the unknown tail as malformed).
    #[test]
    fn tshark_decodes_the_options_before_the_ack() {
        use crate::packet::{Ecn, Ipv4Header, Packet};
        let (a, b, c) = (0x0a00_0001, 0x0a00_0002, 0x0a00_0003);
        let ack = DsrOption::AckSeq(AckSeq {
            sport: 80,
            dport: 5001,
            ack: 9,
        });
        let pkt = |src, dst, options| Packet {
            ip: Ipv4Header {
                src,
                dst,
                ttl: 64,
                ecn: Ecn::NotEct,
                ident: 1,
            },
            l4: Transport::Dsr(Box::new(DsrPacket {
                hdr: DsrHeader { options },
                inner: None,
            })),
            payload: 0,
            flow: u32::MAX,
        };
        let request = DsrOption::RouteRequest {
            id: 77,
            target: c,
            addrs: vec![b],
        };
        let reply = DsrOption::RouteReply {
            last_hop_external: false,
            addrs: vec![b, c],
        };
        let route = DsrOption::SourceRoute {
            salvage: 0,
            segs_left: 1,
            addrs: vec![b],
        };
        let pkts = [
            pkt(a, 0xffff_ffff, vec![request, ack.clone()]),
            pkt(c, a, vec![reply, route, ack]),
        ];
        let Some(text) = crate::packet::tshark::decode("dsr_ack", &pkts, "ip.check_checksum:TRUE")
        else {
            return;
        };
        for needle in [
            "Target address: 10.0.0.3",
            "Id: 0x004d (77)",
            "Hop list : 10.0.0.2 10.0.0.3",
            "Segments left: 1",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
    }
}
