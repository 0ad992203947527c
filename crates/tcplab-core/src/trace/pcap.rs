//! pcap capture per interface, nanosecond timestamps: LINKTYPE_RAW (IPv4 without a link header)
//! for the IP-level captures, LINKTYPE_IEEE802_11_RADIOTAP for the 802.11 ones (`radiotap`).
//! Packets are serialised with real headers and checksums (see `packet::emit`).
//!
//! A capture is written under an owner-tagged temporary name and appears under its own name only
//! when [`PcapWriter::finish`] succeeds (`owned_file`): a run that fails or is interrupted leaves
//! no truncated capture, and an existing file of that name is untouched until then.

use std::io::{self, Write};
use std::path::Path;

use super::owned_file::OwnedFile;
use crate::packet::{emit, Packet};
use crate::time::SimTime;

/// LINKTYPE_RAW: the packet begins with an IPv4 or IPv6 header.
pub const LINKTYPE_RAW: u32 = 101;
/// LINKTYPE_IEEE802_11_RADIOTAP: a radiotap header, then the 802.11 frame.
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;
/// Magic number of the nanosecond-resolution pcap format.
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;

pub struct PcapWriter {
    out: OwnedFile,
    snaplen: u32,
    buf: Vec<u8>,
    error: Option<io::Error>,
}

impl PcapWriter {
    pub fn create(path: &Path, snaplen: u32) -> io::Result<PcapWriter> {
        PcapWriter::create_linktype(path, snaplen, LINKTYPE_RAW)
    }

    /// A capture of another link type (the records are written with `record_bytes`).
    pub fn create_linktype(path: &Path, snaplen: u32, linktype: u32) -> io::Result<PcapWriter> {
        let mut out = OwnedFile::create(path, 1 << 16)?;
        out.write_all(&MAGIC_NANOS.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?; // version 2.4
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // thiszone
        out.write_all(&0u32.to_le_bytes())?; // sigfigs
        out.write_all(&snaplen.to_le_bytes())?;
        out.write_all(&linktype.to_le_bytes())?;
        Ok(PcapWriter {
            out,
            snaplen,
            buf: Vec::with_capacity(2048),
            error: None,
        })
    }

    pub fn record(&mut self, now: SimTime, p: &Packet) {
        // An IP capture holds IP datagrams: an ARP frame is in the 802.11 capture only.
        if self.error.is_some() || matches!(p.l4, crate::packet::Transport::Arp(_)) {
            return;
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        emit(p, &mut buf);
        self.record_bytes(now, &buf);
        self.buf = buf;
    }

    /// Records a packet already in wire form (an IPv4 datagram), as the Linux validation's
    /// emulator captures what real kernels send.
    pub fn record_bytes(&mut self, now: SimTime, packet: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let orig = packet.len() as u32;
        let cap = orig.min(self.snaplen);
        let r = (|| {
            self.out
                .write_all(&((now.0 / 1_000_000_000) as u32).to_le_bytes())?;
            self.out
                .write_all(&((now.0 % 1_000_000_000) as u32).to_le_bytes())?;
            self.out.write_all(&cap.to_le_bytes())?;
            self.out.write_all(&orig.to_le_bytes())?;
            self.out.write_all(&packet[..cap as usize])
        })();
        if let Err(e) = r {
            self.error = Some(e);
        }
    }

    /// Completes the capture: it appears under its name (replacing any file there). On an
    /// error nothing appears and the temporary file is removed.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.publish()
    }
}
