//! DSDV route advertisements, in ns-2.35's layout (`dsdv/dsdv.cc` `makeUpdate`): a count octet,
//! then per destination its address (4 B), metric (1 B) and sequence number (4 B), carried in a
//! UDP datagram on port [`DSDV_PORT`] (ns-2's ROUTER_PORT 0xff). DSDV has no RFC and Wireshark
//! has no dissector for it: our pcaps show these as UDP to port 255.

use super::Addr;

/// The UDP port of DSDV advertisements (ns-2 `ROUTER_PORT`).
pub const DSDV_PORT: u16 = 255;
/// The infinite metric (ns-2 `BIG`).
pub const INFINITE_METRIC: u8 = 250;

/// One advertised route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Advert {
    pub dst: Addr,
    pub metric: u8,
    pub seq: u32,
}

/// A full dump or an incremental update (the packet does not say which).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DsdvUpdate {
    pub routes: Vec<Advert>,
}

impl DsdvUpdate {
    /// Bytes of the UDP payload.
    pub fn len(&self) -> u32 {
        1 + 9 * self.routes.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    pub fn emit(&self, buf: &mut Vec<u8>) {
        buf.push(self.routes.len().min(255) as u8);
        for r in self.routes.iter().take(255) {
            buf.extend_from_slice(&r.dst.to_be_bytes());
            buf.push(r.metric);
            buf.extend_from_slice(&r.seq.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let u = DsdvUpdate {
            routes: vec![Advert {
                dst: 0x0a00_0003,
                metric: 2,
                seq: 7,
            }],
        };
        let mut b = Vec::new();
        u.emit(&mut b);
        assert_eq!(b.len() as u32, u.len());
        assert_eq!(b, vec![1, 10, 0, 0, 3, 2, 0, 0, 0, 7]);
    }

    /// Wireshark has no DSDV dissector: it shows UDP to port 255 with a good checksum.
    #[test]
    fn tshark_sees_udp_with_a_good_checksum() {
        use crate::packet::{Ecn, Ipv4Header, Packet, Transport};
        let p = Packet {
            ip: Ipv4Header {
                src: 0x0a00_0002,
                dst: 0xffff_ffff,
                ttl: 1,
                ecn: Ecn::NotEct,
                ident: 1,
            },
            l4: Transport::Dsdv(DsdvUpdate {
                routes: vec![Advert {
                    dst: 0x0a00_0002,
                    metric: 0,
                    seq: 4,
                }],
            }),
            payload: 0,
            flow: u32::MAX,
        };
        let Some(text) = crate::packet::tshark::decode("dsdv", &[p], "udp.check_checksum:TRUE")
        else {
            return;
        };
        for needle in [
            "Destination Port: 255",
            "[Checksum Status: Good]",
            "Length: 18",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
    }
}
