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
        let proto = match &p.l4 {
            Transport::Tcp(h) => {
                head[0..2].copy_from_slice(&h.sport.to_be_bytes());
                head[2..4].copy_from_slice(&h.dport.to_be_bytes());
                head[4..8].copy_from_slice(&(h.seq as u32).to_be_bytes());
                6
            }
            Transport::Udp(u) => {
                head[0..2].copy_from_slice(&u.sport.to_be_bytes());
                head[2..4].copy_from_slice(&u.dport.to_be_bytes());
                head[4..6].copy_from_slice(&((UDP_HEADER_LEN + p.payload) as u16).to_be_bytes());
                17
            }
            Transport::Icmp(_) => 1,
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
