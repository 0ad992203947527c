//! ICMP destination unreachable (RFC 792, type 3): what a router sends back to a packet's source
//! when it has no route for it.

use super::{emit_ipv4_header, Ipv4Header, Packet, Transport, IPV4_HEADER_LEN, UDP_HEADER_LEN};

/// ICMP message header (type, code, checksum, unused) before the quoted datagram.
const ICMP_HEADER_LEN: u32 = 8;
/// RFC 792: the original datagram's IP header plus its first 64 bits of data.
const QUOTED_DATA_LEN: usize = 8;

/// Code 1, host unreachable (RFC 792; RFC 1812 §5.2.7.1 for a router without a route).
pub const HOST_UNREACHABLE: u8 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IcmpUnreachable {
    pub code: u8,
    /// The undeliverable datagram's IP header, its protocol and total length.
    pub orig_ip: Ipv4Header,
    pub orig_proto: u8,
    pub orig_len: u16,
    /// The first 8 bytes of its transport header (ports first, for TCP and UDP alike).
    pub orig_head: [u8; QUOTED_DATA_LEN],
}

impl IcmpUnreachable {
    /// The message that reports `p` as undeliverable.
    pub fn about(p: &Packet, code: u8) -> IcmpUnreachable {
        let mut head = [0u8; QUOTED_DATA_LEN];
        // A DSR-routed datagram is quoted by the transport it carries (its ports name the
        // socket); a DSR control packet by its protocol alone.
        let proto = match p.l4.innermost().unwrap_or(&p.l4) {
            Transport::Tcp(h) => {
                head[0..2].copy_from_slice(&h.sport.to_be_bytes());
                head[2..4].copy_from_slice(&h.dport.to_be_bytes());
                head[4..8].copy_from_slice(&(h.seq as u32).to_be_bytes());
                6
            }
            Transport::Aodv(m) => {
                head[0..2].copy_from_slice(&super::AODV_PORT.to_be_bytes());
                head[2..4].copy_from_slice(&super::AODV_PORT.to_be_bytes());
                head[4..6].copy_from_slice(&((UDP_HEADER_LEN + m.len()) as u16).to_be_bytes());
                17
            }
            Transport::Udp(u) => {
                head[0..2].copy_from_slice(&u.sport.to_be_bytes());
                head[2..4].copy_from_slice(&u.dport.to_be_bytes());
                head[4..6].copy_from_slice(&((UDP_HEADER_LEN + p.payload) as u16).to_be_bytes());
                17
            }
            Transport::Icmp(_) => 1,
            Transport::Dsr(_) => super::IPPROTO_DSR,
            // Never quoted: ARP frames are not routed (world/arp.rs hands them to the table).
            Transport::Arp(_) => 0,
            Transport::Dsdv(u) => {
                head[0..2].copy_from_slice(&super::DSDV_PORT.to_be_bytes());
                head[2..4].copy_from_slice(&super::DSDV_PORT.to_be_bytes());
                head[4..6].copy_from_slice(&((UDP_HEADER_LEN + u.len()) as u16).to_be_bytes());
                17
            }
        };
        IcmpUnreachable {
            code,
            orig_ip: p.ip,
            orig_proto: proto,
            orig_len: p.ip_len() as u16,
            orig_head: head,
        }
    }

    /// (source port, destination port) of the quoted datagram.
    pub fn orig_ports(&self) -> (u16, u16) {
        let h = &self.orig_head;
        (
            u16::from_be_bytes([h[0], h[1]]),
            u16::from_be_bytes([h[2], h[3]]),
        )
    }

    /// Bytes of the ICMP message (header and quoted datagram).
    pub fn wire_len(&self) -> u32 {
        ICMP_HEADER_LEN + IPV4_HEADER_LEN + QUOTED_DATA_LEN as u32
    }

    /// Writes the message with its checksum (RFC 792: over the whole ICMP message).
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let start = buf.len();
        buf.extend_from_slice(&[3, self.code, 0, 0, 0, 0, 0, 0]);
        emit_ipv4_header(&self.orig_ip, self.orig_len as u32, self.orig_proto, buf);
        buf.extend_from_slice(&self.orig_head);
        let c = super::checksum_finish(super::checksum_add(0, &buf[start..]));
        buf[start + 2..start + 4].copy_from_slice(&c.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{checksum_add, checksum_finish, emit, Ecn, TcpFlags, TcpHeader};

    #[test]
    fn unreachable_quotes_the_datagram_and_checksums_verify() {
        let tcp = Packet {
            ip: Ipv4Header {
                src: 0x0a00_0003,
                dst: 0x0a00_0001,
                ttl: 63,
                ecn: Ecn::NotEct,
                ident: 9,
            },
            l4: Transport::Tcp(TcpHeader::new(
                49152,
                5001,
                0x1_2345_6789,
                0,
                TcpFlags::SYN,
                65535,
            )),
            payload: 0,
            flow: 0,
        };
        let m = IcmpUnreachable::about(&tcp, HOST_UNREACHABLE);
        assert_eq!(m.orig_ports(), (49152, 5001));
        let p = Packet {
            ip: Ipv4Header {
                src: 0x0a00_0002,
                dst: 0x0a00_0003,
                ttl: 64,
                ecn: Ecn::NotEct,
                ident: 1,
            },
            l4: Transport::Icmp(m),
            payload: 0,
            flow: 0,
        };
        let mut b = Vec::new();
        emit(&p, &mut b);
        assert_eq!(b.len() as u32, p.ip_len());
        assert_eq!(b.len(), 20 + 8 + 20 + 8);
        assert_eq!(checksum_finish(checksum_add(0, &b[..20])), 0, "IP header");
        assert_eq!(b[9], 1, "protocol ICMP");
        assert_eq!((b[20], b[21]), (3, 1), "type 3 code 1");
        assert_eq!(
            checksum_finish(checksum_add(0, &b[20..])),
            0,
            "ICMP checksum"
        );
        // The quoted header is the original's, with its own valid checksum, then 8 bytes.
        let quoted = &b[28..48];
        assert_eq!(checksum_finish(checksum_add(0, quoted)), 0);
        assert_eq!(&quoted[12..16], &0x0a00_0003u32.to_be_bytes());
        assert_eq!(&b[48..52], &[0xc0, 0x00, 0x13, 0x89], "ports 49152 → 5001");
        assert_eq!(&b[52..56], &0x2345_6789u32.to_be_bytes(), "seq mod 2^32");
    }
}
