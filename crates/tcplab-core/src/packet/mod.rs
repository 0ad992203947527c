//! Packets: header structs with byte-exact sizes; payloads are lengths only.
//!
//! Sequence and acknowledgement numbers are carried *unwrapped* (u64, starting at the ISN) inside
//! the simulator, so no comparison ever has to reason about wrap-around; they are reduced modulo
//! 2^32 only when a header is serialised (pcap). Windows are carried in bytes, and the window
//! field's scaling (RFC 7323 §2) is applied when the size on the wire or the pcap bytes are
//! computed.

pub mod aodv;
pub mod arp;
pub mod dsdv;
pub mod dsr;
pub mod icmp;
pub mod tcp;
#[cfg(test)]
pub(crate) mod tshark;

pub use aodv::{AckSeq, AodvMsg, Rerr, Rrep, Rreq, AODV_PORT};
pub use arp::{ArpMsg, ArpOp, ARP_LEN};
pub use dsdv::{Advert, DsdvUpdate, DSDV_PORT};
pub use dsr::{DsrHeader, DsrOption, DsrPacket, IPPROTO_DSR};
pub use icmp::IcmpUnreachable;
pub use tcp::{SackBlocks, TcpFlags, TcpHeader};

/// IPv4 address as a host-order u32.
pub type Addr = u32;

/// ECN codepoints of the IPv4 header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    Ce = 3,
}

pub const IPV4_HEADER_LEN: u32 = 20;
pub const UDP_HEADER_LEN: u32 = 8;

/// IPv4 header fields that the simulator uses (no options; 20 bytes on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    pub src: Addr,
    pub dst: Addr,
    pub ttl: u8,
    pub ecn: Ecn,
    pub ident: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpHeader {
    pub sport: u16,
    pub dport: u16,
}

/// The transport part of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
    Icmp(IcmpUnreachable),
    /// An AODV message in a UDP datagram from port 654 to port 654 (RFC 3561 §4); the packet's
    /// `payload` is 0, the message is the UDP payload.
    Aodv(AodvMsg),
    /// A DSR Options header (RFC 4728 §6, IP protocol 48) and the transport it carries, if
    /// any; the packet's `payload` belongs to that transport.
    Dsr(Box<DsrPacket>),
    /// A DSDV advertisement in a UDP datagram on port 255 (packet/dsdv.rs).
    Dsdv(DsdvUpdate),
    /// An ARP message (packet/arp.rs): not an IP datagram; the packet's `ip` header is not on
    /// the wire and its `ip_len` is the message's 28 bytes.
    Arp(ArpMsg),
}

impl Transport {
    /// Bytes of the transport headers on the wire (without the payload).
    pub fn header_len(&self) -> u32 {
        match self {
            Transport::Tcp(h) => h.header_len(),
            Transport::Udp(_) => UDP_HEADER_LEN,
            Transport::Icmp(m) => m.wire_len(),
            Transport::Aodv(m) => UDP_HEADER_LEN + m.len(),
            Transport::Dsdv(u) => UDP_HEADER_LEN + u.len(),
            Transport::Arp(_) => ARP_LEN - IPV4_HEADER_LEN,
            Transport::Dsr(d) => d.hdr.len() + d.inner.as_ref().map_or(0, |t| t.header_len()),
        }
    }

    /// The transport under any DSR header (itself when there is none; a DSR control packet
    /// has none).
    pub fn innermost(&self) -> Option<&Transport> {
        match self {
            Transport::Dsr(d) => d.inner.as_ref(),
            t => Some(t),
        }
    }

    /// IP protocol number (RFC 790 / IANA).
    pub fn proto(&self) -> u8 {
        match self {
            Transport::Tcp(_) => 6,
            Transport::Udp(_) | Transport::Aodv(_) | Transport::Dsdv(_) => 17,
            Transport::Icmp(_) => 1,
            Transport::Dsr(_) => IPPROTO_DSR,
            // No IP protocol: ARP is its own ethertype (0x0806).
            Transport::Arp(_) => 0,
        }
    }
}

/// A packet in flight: headers as structs, payload as a byte count.
#[derive(Clone, Debug)]
pub struct Packet {
    pub ip: Ipv4Header,
    pub l4: Transport,
    pub payload: u32,
    /// Which flow this packet belongs to (for counters); not on the wire.
    pub flow: u32,
}

impl Packet {
    /// Size of the IP datagram in bytes (IP header + transport header + payload).
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER_LEN + self.l4.header_len() + self.payload
    }

    pub fn aodv(&self) -> Option<&AodvMsg> {
        match &self.l4 {
            Transport::Aodv(m) => Some(m),
            _ => None,
        }
    }

    /// The TCP header, also under a DSR header.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match self.l4.innermost() {
            Some(Transport::Tcp(h)) => Some(h),
            _ => None,
        }
    }

    pub fn dsr(&self) -> Option<&DsrPacket> {
        match &self.l4 {
            Transport::Dsr(d) => Some(d),
            _ => None,
        }
    }
}

/// Writes an RFC 791 header without options, with its checksum.
pub fn emit_ipv4_header(ip: &Ipv4Header, total: u32, proto: u8, buf: &mut Vec<u8>) {
    let start = buf.len();
    buf.extend_from_slice(&[0x45, ip.ecn as u8]);
    buf.extend_from_slice(&(total as u16).to_be_bytes());
    buf.extend_from_slice(&ip.ident.to_be_bytes());
    buf.extend_from_slice(&[0x40, 0x00]); // DF, offset 0
    buf.extend_from_slice(&[ip.ttl, proto, 0, 0]);
    buf.extend_from_slice(&ip.src.to_be_bytes());
    buf.extend_from_slice(&ip.dst.to_be_bytes());
    let c = checksum_finish(checksum_add(0, &buf[start..start + 20]));
    buf[start + 10..start + 12].copy_from_slice(&c.to_be_bytes());
}

/// The Internet checksum (RFC 1071) over `data`, continuing from `sum`.
pub fn checksum_add(mut sum: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        sum += (*b as u32) << 8;
    }
    sum
}

pub fn checksum_finish(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Serialises the packet to real bytes (IPv4 + transport header with correct checksums, the
/// payload as zeros). Used only for pcap export. `caplen` bytes are written (the payload is
/// truncated when `caplen` is smaller than the packet).
pub fn emit(p: &Packet, buf: &mut Vec<u8>) {
    if let Transport::Arp(m) = &p.l4 {
        m.emit(buf); // no IP header: the frame's payload is the ARP message
        return;
    }
    emit_ipv4_header(&p.ip, p.ip_len(), p.l4.proto(), buf);
    emit_transport(&p.l4, &p.ip, p.payload, buf);
}

/// Writes a transport (and under a DSR header, RFC 4728 §6.1, the transport it carries) with
/// its checksum, then the payload as zeros.
fn emit_transport(l4: &Transport, ip: &Ipv4Header, payload: u32, buf: &mut Vec<u8>) {
    let proto = l4.proto();
    match l4 {
        Transport::Icmp(m) => {
            // ICMP has no pseudo-header: its checksum covers the message alone.
            m.emit(buf);
            return;
        }
        Transport::Dsr(d) => {
            // The checksum of the transport inside covers that transport alone (its
            // pseudo-header names its own protocol, not 48).
            d.hdr.emit(
                d.inner.as_ref().map_or(dsr::NO_NEXT_HEADER, |t| t.proto()),
                buf,
            );
            match &d.inner {
                Some(t) => emit_transport(t, ip, payload, buf),
                None => buf.resize(buf.len() + payload as usize, 0),
            }
            return;
        }
        _ => {}
    }
    let l4_start = buf.len();
    match l4 {
        Transport::Tcp(h) => h.emit(buf),
        Transport::Udp(u) => emit_udp_header(buf, u.sport, u.dport, payload),
        Transport::Aodv(m) => {
            emit_udp_header(buf, AODV_PORT, AODV_PORT, m.len() + payload);
            m.emit(buf);
        }
        Transport::Dsdv(u) => {
            emit_udp_header(buf, DSDV_PORT, DSDV_PORT, u.len() + payload);
            u.emit(buf);
        }
        Transport::Icmp(_) | Transport::Dsr(_) | Transport::Arp(_) => {
            unreachable!("returned above")
        }
    }
    buf.resize(buf.len() + payload as usize, 0);
    let l4_len = (buf.len() - l4_start) as u32;
    // Pseudo-header (RFC 9293 §3.1, RFC 768): src, dst, zero, proto, length.
    let mut sum = checksum_add(0, &ip.src.to_be_bytes());
    sum = checksum_add(sum, &ip.dst.to_be_bytes());
    sum += proto as u32 + l4_len;
    sum = checksum_add(sum, &buf[l4_start..]);
    let mut c = checksum_finish(sum);
    let off = match l4 {
        Transport::Tcp(_) => 16,
        _ => {
            if c == 0 {
                c = 0xffff; // RFC 768: a computed zero is sent as all ones
            }
            6
        }
    };
    buf[l4_start + off..l4_start + off + 2].copy_from_slice(&c.to_be_bytes());
}

/// RFC 768 header; the checksum is filled in once the whole datagram is written.
fn emit_udp_header(buf: &mut Vec<u8>, sport: u16, dport: u16, data_len: u32) {
    buf.extend_from_slice(&sport.to_be_bytes());
    buf.extend_from_slice(&dport.to_be_bytes());
    buf.extend_from_slice(&((UDP_HEADER_LEN + data_len) as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verify(bytes: &[u8]) {
        // The IP header checksum verifies to zero.
        assert_eq!(checksum_finish(checksum_add(0, &bytes[..20])), 0);
        let proto = bytes[9];
        let l4 = &bytes[20..];
        let mut sum = checksum_add(0, &bytes[12..20]);
        sum += proto as u32 + l4.len() as u32;
        sum = checksum_add(sum, l4);
        assert_eq!(checksum_finish(sum), 0, "transport checksum");
    }

    #[test]
    fn emitted_tcp_has_valid_checksums_and_length() {
        let mut h = TcpHeader::new(5001, 80, 1_000, 2_000, TcpFlags::ACK, 65535);
        h.ts = Some((123, 456));
        h.sack.push(3000, 4460);
        let p = Packet {
            ip: Ipv4Header {
                src: 0x0a000001,
                dst: 0x0a000002,
                ttl: 64,
                ecn: Ecn::Ect0,
                ident: 7,
            },
            l4: Transport::Tcp(h),
            payload: 1001,
            flow: 0,
        };
        let mut b = Vec::new();
        emit(&p, &mut b);
        assert_eq!(b.len() as u32, p.ip_len());
        assert_eq!(u16::from_be_bytes([b[2], b[3]]) as usize, b.len());
        verify(&b);
    }

    #[test]
    fn emitted_udp_has_valid_checksums() {
        let p = Packet {
            ip: Ipv4Header {
                src: 0x0a000001,
                dst: 0x0a000003,
                ttl: 64,
                ecn: Ecn::NotEct,
                ident: 1,
            },
            l4: Transport::Udp(UdpHeader { sport: 9, dport: 9 }),
            payload: 333,
            flow: 0,
        };
        let mut b = Vec::new();
        emit(&p, &mut b);
        assert_eq!(b.len(), 20 + 8 + 333);
        verify(&b);
    }
}
