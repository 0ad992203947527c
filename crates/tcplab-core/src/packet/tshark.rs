//! Test helper: what Wireshark's tshark makes of packets we wrote, to check that our headers are
//! byte-exact (tests only).

use super::Packet;
use crate::time::SimTime;
use crate::trace::pcap::PcapWriter;

const TSHARK: &str = "/usr/bin/tshark";

/// Writes `pkts` (1 ms apart) to a temporary pcap and returns tshark's verbose decode with the
/// preference `pref` (e.g. "udp.check_checksum:TRUE"). None, after saying so, when tshark is not
/// installed; panics with tshark's error output if it fails.
pub(crate) fn decode(name: &str, pkts: &[Packet], pref: &str) -> Option<String> {
    if !std::path::Path::new(TSHARK).exists() {
        eprintln!("tshark not installed: decode check skipped");
        return None;
    }
    let path = std::env::temp_dir().join(format!("tcplab-{name}-{}.pcap", std::process::id()));
    let mut w = PcapWriter::create(&path, 65535).unwrap();
    for (i, p) in pkts.iter().enumerate() {
        w.record(SimTime::from_millis(i as u64), p);
    }
    w.finish().unwrap();
    let out = std::process::Command::new(TSHARK)
        .args(["-o", pref, "-r"])
        .arg(&path)
        .arg("-V")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}
