//! 802.11 frames as a monitor-mode capture shows them: a radiotap header (data rate, channel,
//! received signal) and the MAC frame with its FCS, for the per-station 802.11 captures
//! (`trace.pcap_80211`, LINKTYPE_IEEE802_11_RADIOTAP).
//!
//! Formats: radiotap per <https://www.radiotap.org> (fields Flags, Rate, Channel, dBm antenna
//! signal, in that order, each aligned to its size); MAC frames per IEEE 802.11-2020 9.3.1.2
//! (RTS), 9.3.1.3 (CTS), 9.3.1.4 (ACK) and 9.3.2.1 (Data), with the payload in LLC/SNAP
//! (RFC 1042) carrying the IPv4 datagram.

/// An IEEE 802 MAC address.
pub type MacAddr = [u8; 6];

pub const BROADCAST_MAC: MacAddr = [0xff; 6];

/// What the radio knew of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radio {
    pub rate_bps: u64,
    pub freq_mhz: u16,
    /// OFDM (802.11a/g rates) rather than DSSS/CCK.
    pub ofdm: bool,
    /// Received power (dBm); None for a frame the station sent, or when the propagation
    /// model has no power (unit disk).
    pub signal_dbm: Option<f64>,
}

/// The distribution-system bits of a data frame (9.2.4.1.4, Table 9-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ds {
    /// Ad hoc (IBSS): A1 = DA, A2 = SA, A3 = BSSID.
    None,
    /// Station to AP: A1 = BSSID, A2 = SA, A3 = DA.
    ToDs,
    /// AP to station: A1 = DA, A2 = BSSID, A3 = SA.
    FromDs,
}

/// One MPDU. Durations are the Duration/ID field in microseconds.
#[derive(Clone, Copy, Debug)]
pub enum Mpdu<'a> {
    Rts {
        duration_us: u16,
        ra: MacAddr,
        ta: MacAddr,
    },
    Cts {
        duration_us: u16,
        ra: MacAddr,
    },
    Ack {
        duration_us: u16,
        ra: MacAddr,
    },
    Data {
        duration_us: u16,
        a1: MacAddr,
        a2: MacAddr,
        a3: MacAddr,
        ds: Ds,
        retry: bool,
        seq: u16,
        /// The IPv4 datagram, or an ARP message when `arp`.
        ip: &'a [u8],
        /// The payload is ARP (ethertype 0x0806) rather than IPv4.
        arp: bool,
    },
}

/// Radiotap `present` bits: Flags (1), Rate (2), Channel (3), dBm antenna signal (5).
const PRESENT_FLAGS: u32 = 1 << 1;
const PRESENT_RATE: u32 = 1 << 2;
const PRESENT_CHANNEL: u32 = 1 << 3;
const PRESENT_SIGNAL: u32 = 1 << 5;
/// Radiotap Flags: the frame ends with its FCS.
const FLAG_FCS: u8 = 0x10;
/// Radiotap Channel flags: CCK, OFDM, 2 GHz, 5 GHz.
const CHAN_CCK: u16 = 0x0020;
const CHAN_OFDM: u16 = 0x0040;
const CHAN_2GHZ: u16 = 0x0080;
const CHAN_5GHZ: u16 = 0x0100;
/// RFC 1042 LLC/SNAP header for an IPv4 payload (ethertype 0x0800).
const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00];
/// The same for an ARP message (ethertype 0x0806).
const LLC_SNAP_ARP: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x06];

/// Appends the radiotap header and the MPDU (FCS included) to `buf`.
pub fn write(buf: &mut Vec<u8>, radio: &Radio, mpdu: &Mpdu<'_>) {
    let mut present = PRESENT_FLAGS | PRESENT_RATE | PRESENT_CHANNEL;
    if radio.signal_dbm.is_some() {
        present |= PRESENT_SIGNAL;
    }
    // 8-byte header; Flags (u8) at 8, Rate (u8) at 9, Channel (2 × u16, 2-aligned) at 10,
    // signal (s8) at 14.
    let len: u16 = if radio.signal_dbm.is_some() { 15 } else { 14 };
    buf.extend_from_slice(&[0, 0]); // version 0, pad
    buf.extend_from_slice(&len.to_le_bytes());
    buf.extend_from_slice(&present.to_le_bytes());
    buf.push(FLAG_FCS);
    // Rate in 500 kb/s units.
    buf.push((radio.rate_bps / 500_000).min(255) as u8);
    buf.extend_from_slice(&radio.freq_mhz.to_le_bytes());
    let band = if radio.freq_mhz >= 4000 {
        CHAN_5GHZ
    } else {
        CHAN_2GHZ
    };
    let modulation = if radio.ofdm { CHAN_OFDM } else { CHAN_CCK };
    buf.extend_from_slice(&(band | modulation).to_le_bytes());
    if let Some(dbm) = radio.signal_dbm {
        buf.push(dbm.round().clamp(-128.0, 127.0) as i8 as u8);
    }
    let start = buf.len();
    match *mpdu {
        Mpdu::Rts {
            duration_us,
            ra,
            ta,
        } => {
            buf.extend_from_slice(&[0xb4, 0x00]); // control, subtype 11
            buf.extend_from_slice(&duration_us.to_le_bytes());
            buf.extend_from_slice(&ra);
            buf.extend_from_slice(&ta);
        }
        Mpdu::Cts { duration_us, ra } | Mpdu::Ack { duration_us, ra } => {
            let fc0 = if matches!(mpdu, Mpdu::Cts { .. }) {
                0xc4 // control, subtype 12
            } else {
                0xd4 // control, subtype 13
            };
            buf.extend_from_slice(&[fc0, 0x00]);
            buf.extend_from_slice(&duration_us.to_le_bytes());
            buf.extend_from_slice(&ra);
        }
        Mpdu::Data {
            duration_us,
            a1,
            a2,
            a3,
            ds,
            retry,
            seq,
            ip,
            arp,
        } => {
            let mut fc1 = match ds {
                Ds::None => 0x00,
                Ds::ToDs => 0x01,
                Ds::FromDs => 0x02,
            };
            if retry {
                fc1 |= 0x08;
            }
            buf.extend_from_slice(&[0x08, fc1]); // data, subtype 0
            buf.extend_from_slice(&duration_us.to_le_bytes());
            buf.extend_from_slice(&a1);
            buf.extend_from_slice(&a2);
            buf.extend_from_slice(&a3);
            // Sequence Control: fragment number 0, 12-bit sequence number (9.2.4.4).
            buf.extend_from_slice(&((seq & 0x0fff) << 4).to_le_bytes());
            if arp {
                buf.extend_from_slice(&LLC_SNAP_ARP);
            } else {
                buf.extend_from_slice(&LLC_SNAP_IPV4);
            }
            buf.extend_from_slice(ip);
        }
    }
    let fcs = crc32(&buf[start..]);
    buf.extend_from_slice(&fcs.to_le_bytes());
}

/// The FCS: CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320), as 802.11 9.2.4.8 uses.
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *e = c;
        }
        t
    });
    let mut c = !0u32;
    for &b in data {
        c = t[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_the_standard_check_string() {
        // The CRC-32 check value of "123456789" (the catalogue of parametrised CRCs).
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn an_ack_is_14_bytes_after_a_14_byte_radiotap_header() {
        let mut b = Vec::new();
        let radio = Radio {
            rate_bps: 2_000_000,
            freq_mhz: 2412,
            ofdm: false,
            signal_dbm: None,
        };
        let ra = [2, 0, 10, 0, 0, 1];
        write(&mut b, &radio, &Mpdu::Ack { duration_us: 0, ra });
        assert_eq!(b.len(), 14 + 14);
        assert_eq!(&b[2..4], &14u16.to_le_bytes());
        assert_eq!(b[9], 4, "2 Mb/s in 500 kb/s units");
        assert_eq!(&b[14..16], &[0xd4, 0x00]);
        assert_eq!(&b[18..24], &ra);
    }
}
