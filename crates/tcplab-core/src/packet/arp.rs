//! ARP messages (RFC 826) as ns-2.35 sends them over 802.11 (mac/arp.cc): a request broadcast
//! for a next hop's hardware address, and a unicast reply. An ARP frame carries no IP header;
//! its [`crate::packet::Packet`] keeps one only so that every packet has the same shape (its
//! `ip_len` is the ARP message's 28 bytes, ns-2.35 arp.h `ARP_HDR_LEN`).

use super::Addr;

/// Bytes of an ARP message for IPv4 over a 48-bit hardware address (RFC 826; ns-2.35 arp.h
/// `ARP_HDR_LEN` 28).
pub const ARP_LEN: u32 = 28;

/// RFC 826 `ar$op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArpOp {
    Request = 1,
    Reply = 2,
}

/// One ARP message: the sender's and the target's hardware and protocol addresses (the target's
/// hardware address is zero in a request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArpMsg {
    pub op: ArpOp,
    pub sha: [u8; 6],
    pub spa: Addr,
    pub tha: [u8; 6],
    pub tpa: Addr,
}

impl ArpMsg {
    /// The 28 bytes on the wire (RFC 826: Ethernet hardware type 1, protocol 0x0800).
    pub fn emit(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&1u16.to_be_bytes());
        buf.extend_from_slice(&0x0800u16.to_be_bytes());
        buf.extend_from_slice(&[6, 4]);
        buf.extend_from_slice(&(self.op as u16).to_be_bytes());
        buf.extend_from_slice(&self.sha);
        buf.extend_from_slice(&self.spa.to_be_bytes());
        buf.extend_from_slice(&self.tha);
        buf.extend_from_slice(&self.tpa.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arp_message_is_28_bytes_in_rfc_826_order() {
        let m = ArpMsg {
            op: ArpOp::Reply,
            sha: [2, 0, 10, 0, 0, 2],
            spa: 0x0a00_0002,
            tha: [2, 0, 10, 0, 0, 1],
            tpa: 0x0a00_0001,
        };
        let mut b = Vec::new();
        m.emit(&mut b);
        assert_eq!(b.len() as u32, ARP_LEN);
        assert_eq!(&b[..8], &[0, 1, 8, 0, 6, 4, 0, 2]);
        assert_eq!(&b[8..14], &[2, 0, 10, 0, 0, 2]);
        assert_eq!(&b[14..18], &[10, 0, 0, 2]);
        assert_eq!(&b[24..28], &[10, 0, 0, 1]);
    }
}
