//! The TCP header (RFC 9293 §3.1) with the options tcplab models: MSS (RFC 9293 §3.7.1), window
//! scale (RFC 7323 §2), SACK-permitted and SACK blocks (RFC 2018), timestamps (RFC 7323 §3), and a
//! room for experimental options (the TCP-pgy dup_count, RFC 6994 experimental option kind 253).
//!
//! Option layout on the wire follows common practice (NOP-padded to 32-bit words): timestamps take
//! 12 bytes, SACK 4 + 8n bytes, MSS 4, window scale 4 (NOP + 3), SACK-permitted 4 (NOP NOP + 2)
//! unless it shares a word. `header_len()` is the exact size that `emit()` writes.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);

    #[inline]
    pub fn has(self, f: TcpFlags) -> bool {
        self.0 & f.0 == f.0
    }
    #[inline]
    pub fn set(&mut self, f: TcpFlags) {
        self.0 |= f.0;
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | o.0)
    }
}

/// Up to four SACK blocks `[start, end)` in unwrapped sequence space (RFC 2018 §3: at most four
/// fit; three when timestamps are used).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlocks {
    pub n: u8,
    pub blocks: [(u64, u64); 4],
}

impl SackBlocks {
    pub fn push(&mut self, start: u64, end: u64) {
        if (self.n as usize) < 4 {
            self.blocks[self.n as usize] = (start, end);
            self.n += 1;
        }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.n as usize]
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    pub sport: u16,
    pub dport: u16,
    /// Unwrapped sequence number (ISN-based).
    pub seq: u64,
    /// Unwrapped acknowledgement number (valid when the ACK flag is set).
    pub ack: u64,
    pub flags: TcpFlags,
    /// The receive window in bytes, before scaling.
    pub window: u32,
    /// The shift used to encode `window` on the wire (0 on SYN segments, RFC 7323 §2.2).
    pub wscale_applied: u8,
    pub mss: Option<u16>,
    /// Window scale option (shift count), SYN segments only.
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    pub sack: SackBlocks,
    /// Timestamps option (TSval, TSecr), RFC 7323 §3.
    pub ts: Option<(u32, u32)>,
    /// TCP-pgy S2's duplicate count (experimental option, 4 + 2 bytes padded to 8).
    pub dup_count: Option<u16>,
}

impl TcpHeader {
    pub fn new(sport: u16, dport: u16, seq: u64, ack: u64, flags: TcpFlags, window: u32) -> Self {
        TcpHeader {
            sport,
            dport,
            seq,
            ack,
            flags,
            window,
            wscale_applied: 0,
            mss: None,
            wscale: None,
            sack_permitted: false,
            sack: SackBlocks::default(),
            ts: None,
            dup_count: None,
        }
    }

    fn options_len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.wscale.is_some() {
            n += 4;
        }
        if self.sack_permitted {
            n += 4;
        }
        if self.ts.is_some() {
            n += 12;
        }
        if !self.sack.is_empty() {
            n += 4 + 8 * self.sack.n as u32;
        }
        if self.dup_count.is_some() {
            n += 8;
        }
        n
    }

    /// Header length in bytes including options (a multiple of 4, at most 60).
    pub fn header_len(&self) -> u32 {
        20 + self.options_len()
    }

    /// The 16-bit window field as sent.
    pub fn window_field(&self) -> u16 {
        (self.window >> self.wscale_applied).min(65535) as u16
    }

    /// Writes the header (checksum field zero; the caller fills it in).
    pub fn emit(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&self.sport.to_be_bytes());
        buf.extend_from_slice(&self.dport.to_be_bytes());
        buf.extend_from_slice(&(self.seq as u32).to_be_bytes());
        let ack = if self.flags.has(TcpFlags::ACK) {
            self.ack as u32
        } else {
            0
        };
        buf.extend_from_slice(&ack.to_be_bytes());
        let words = (self.header_len() / 4) as u8;
        buf.extend_from_slice(&[words << 4, self.flags.0]);
        buf.extend_from_slice(&self.window_field().to_be_bytes());
        buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
        if let Some(mss) = self.mss {
            buf.extend_from_slice(&[2, 4]);
            buf.extend_from_slice(&mss.to_be_bytes());
        }
        if let Some(ws) = self.wscale {
            buf.extend_from_slice(&[1, 3, 3, ws]);
        }
        if self.sack_permitted {
            buf.extend_from_slice(&[1, 1, 4, 2]);
        }
        if let Some((val, ecr)) = self.ts {
            buf.extend_from_slice(&[1, 1, 8, 10]);
            buf.extend_from_slice(&val.to_be_bytes());
            buf.extend_from_slice(&ecr.to_be_bytes());
        }
        if !self.sack.is_empty() {
            buf.extend_from_slice(&[1, 1, 5, 2 + 8 * self.sack.n]);
            for &(s, e) in self.sack.as_slice() {
                buf.extend_from_slice(&(s as u32).to_be_bytes());
                buf.extend_from_slice(&(e as u32).to_be_bytes());
            }
        }
        if let Some(dc) = self.dup_count {
            // RFC 6994 experimental option: kind 253, length 6, ExID 0x7067 ("pg"), value.
            buf.extend_from_slice(&[253, 6, 0x70, 0x67]);
            buf.extend_from_slice(&dc.to_be_bytes());
            buf.extend_from_slice(&[1, 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_len_matches_emit() {
        let mut h = TcpHeader::new(1, 2, 0, 0, TcpFlags::SYN, 8760);
        h.mss = Some(1460);
        h.wscale = Some(5);
        h.sack_permitted = true;
        h.ts = Some((1, 0));
        let mut b = Vec::new();
        h.emit(&mut b);
        assert_eq!(b.len() as u32, h.header_len());
        assert_eq!(h.header_len(), 44);

        let mut a = TcpHeader::new(1, 2, 0, 0, TcpFlags::ACK, 8760);
        assert_eq!(a.header_len(), 20);
        a.sack.push(10, 20);
        a.sack.push(30, 40);
        a.dup_count = Some(3);
        let mut b = Vec::new();
        a.emit(&mut b);
        assert_eq!(b.len() as u32, a.header_len());
        assert_eq!(a.header_len(), 20 + 4 + 16 + 8);
    }

    #[test]
    fn window_field_is_scaled_and_capped() {
        let mut h = TcpHeader::new(1, 2, 0, 0, TcpFlags::ACK, 1 << 20);
        assert_eq!(h.window_field(), 65535);
        h.wscale_applied = 5;
        assert_eq!(h.window_field(), (1u32 << 15) as u16);
    }
}
