"""pcap export checked with tshark: every packet parses, checksums verify, and tshark's own TCP
analysis counts the same retransmissions and spurious retransmissions as tcplab.

The capture on the server's side of the access link sees every segment the sender transmits (that
link never drops), so each segment below the highest sequence already seen is a retransmission;
tshark calls one an "out-of-order" segment when it follows the previous one within 3 ms, which on a
sender-side capture is still a retransmission. Spurious retransmissions are compared on the
client's capture, where tshark flags data that was already acknowledged.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import tcplab

ROOT = Path(__file__).resolve().parents[1]
TSHARK = shutil.which("tshark")

# Outside CI a missing tshark skips these tests; in CI (where `make test` installs it) it fails them.
pytestmark = pytest.mark.skipif(TSHARK is None and not os.environ.get("CI"), reason="tshark is installed by `make test`")


def tshark_count(pcap: Path, display_filter: str, *opts: str) -> int:
    out = subprocess.run(
        [TSHARK, "-r", str(pcap), *opts, "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return len(out.split())


@pytest.mark.parametrize("variant", ["reno", "newreno", "sack"])
def test_pcap_is_wellformed_and_agrees_with_our_counts(tmp_path: Path, variant: str) -> None:
    res = tcplab.run(
        ROOT / "examples" / "wired_bottleneck.toml",
        seed=3,
        overrides={
            "tcp.variant": variant,
            "flows.download.size": "2MB",
            "links.bottleneck.loss": {"model": "bernoulli", "p": 0.01, "direction": "a_to_b"},
            "trace.pcap": ["access", "bottleneck"],
        },
        pcap_dir=tmp_path,
    )
    flow = res.summary["flows"][0]
    assert flow["completed"] and flow["retransmissions"] > 0
    sender = tmp_path / "access-server.pcap"
    receiver = tmp_path / "bottleneck-client.pcap"
    for pcap in (sender, receiver, tmp_path / "access-router.pcap", tmp_path / "bottleneck-router.pcap"):
        total = tshark_count(pcap, "frame")
        assert total > 1000
        assert tshark_count(pcap, "_ws.malformed || _ws.expert.severity >= error") == 0
        good = tshark_count(
            pcap,
            "ip.checksum.status == 1 && (tcp.checksum.status == 1 || udp.checksum.status == 1)",
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
        )
        assert good == total, f"{pcap.name}: {total - good} packets with unverified or bad checksums"
    retx = tshark_count(
        sender,
        "ip.src == 10.0.0.1 && tcp.len > 0 && "
        "(tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.out_of_order)",
    )
    assert retx == flow["retransmissions"]
    data = tshark_count(sender, "ip.src == 10.0.0.1 && tcp.len > 0")
    assert data == flow["segments_sent"]
    spurious = tshark_count(receiver, "tcp.analysis.spurious_retransmission")
    assert spurious == flow["spurious_retransmissions"]
