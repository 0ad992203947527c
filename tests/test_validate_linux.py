"""`tcplab validate linux` and its link emulator on this machine's kernel (root: CI runs as root).

The emulator alone (two namespaces, one emulated link, UDP probes run inside the namespaces):
measured rate within 1 % of the configured rate, RTT within 0.5 ms of the configured delay,
queue drops exactly where the FIFO overflows.  Then a whole short comparison, a run killed midway
that must leave no namespace or emulator behind, and the messages where it cannot run.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tcplab.validate.emulator import Emulator, binary
from tcplab.validate.kernel_tcp import kernel_tcp
from tcplab.validate.linux_run import bring_up_links, configure
from tcplab.validate.netns import Namespaces, ip, list_namespaces, remove_stale
from tcplab.validate.topology import Topology

ROOT = Path(__file__).resolve().parents[1]
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces and TUN devices need root")


def two_nodes(rate: str, delay: str, packets: int) -> dict[str, Any]:
    return {
        "name": "emu",
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [
            {"name": "ab", "a": "a", "b": "b", "rate": rate, "delay": delay, "queue": {"kind": "droptail", "packets": packets}}
        ],
        "flows": [{"name": "f", "app": "bulk_download", "client": "b", "server": "a", "size": "1kB"}],
    }


class Link:
    """One emulated link between two fresh namespaces, with a way to run a script in either."""

    def __init__(self, ns: Namespaces, emu: Emulator, t0: int):
        self.ns, self.emu, self.t0 = ns, emu, t0

    def run(self, node: str, script: str, *args: str, realtime: bool = False) -> subprocess.Popen[str]:
        # realtime: SCHED_FIFO below the emulator's priority (10), so that on a loaded machine a
        # traffic source is not descheduled long enough to let the link's queue run dry.
        prio = ["chrt", "-f", "5"] if realtime else []
        return subprocess.Popen(
            [*self.ns.exec_args(node), *prio, sys.executable, "-I", "-c", script, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


@pytest.fixture
def link(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Link]:
    scenario = two_nodes(*request.param)
    topo = Topology.of(scenario)
    kt = kernel_tcp({})
    with Namespaces(topo.nodes) as ns:
        configure(ns, topo, kt)
        cfg = {
            "scenario": json.dumps(scenario),
            "format": "json",
            "seed": 1,
            "link": "ab",
            "ends": [{"netns": ns.path("a"), "ifname": "l0"}, {"netns": ns.path("b"), "ifname": "l0"}],
        }
        emu = Emulator(cfg, tmp_path, topo.links[0])
        try:
            bring_up_links(ns, topo, kt)
            yield Link(ns, emu, emu.start())
        finally:
            emu.kill()


# ICMP echo (the far kernel answers; no program on that side), timed from just before sendto
# to the kernel's receive timestamp (SO_TIMESTAMPNS), so the probe's own scheduling stays out of
# the RTT; 100-byte IP datagrams, one every 20 ms; prints the RTTs (s).
PING = """
import json, socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMPNS", 35), 1)  # <asm-generic/socket.h>
s.settimeout(2)
def checksum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xFFFF) + (t >> 16)
    return ~t & 0xFFFF
out = []
for seq in range(60):
    body = struct.pack("!BBHHH", 8, 0, 0, 0x7C1A, seq) + bytes(72)
    pkt = body[:2] + struct.pack("!H", checksum(body)) + body[4:]
    sent = time.time_ns()
    s.sendto(pkt, ("10.0.0.2", 0))
    while True:
        data, anc, _, _ = s.recvmsg(2048, 256)
        ihl = (data[0] & 15) * 4
        if data[ihl] == 0 and struct.unpack("!H", data[ihl + 6 : ihl + 8])[0] == seq:
            break
    sec, nsec = struct.unpack("qq", anc[0][2][:16])
    out.append((sec * 10**9 + nsec - sent) / 1e9)
    time.sleep(0.02)
print(json.dumps(out))
"""


@root_only
@pytest.mark.parametrize("link", [("100Mbps", "10ms", 50)], indirect=True)
def test_rtt_is_twice_the_configured_delay(link: Link) -> None:
    ping = link.run("a", PING)
    out, err = ping.communicate(timeout=30)
    assert ping.returncode == 0, err
    rtts = sorted(json.loads(out))
    # 100 B IP datagrams: 8 µs of serialisation each way, plus 10 ms of propagation each way.
    expected = 2 * (0.010 + 100 * 8 / 100e6)
    median = rtts[len(rtts) // 2]
    timing = link.emu.stop()["timing"]
    print(
        f"RTT: configured {expected * 1e3:.3f} ms, median {median * 1e3:.3f} ms, max {rtts[-1] * 1e3:.3f} ms; "
        f"emulator hand-over late by {timing['late_total_ns'] / max(1, timing['delivered']) / 1e3:.1f} µs mean, "
        f"{timing['late_max_ns'] / 1e3:.1f} µs max"
    )
    # Judged on the fastest probe: scheduling delays on a loaded machine only ever add to an RTT,
    # so the minimum shows the delay the emulator applies, independently of this machine's load
    # (the median is printed above).
    assert abs(rtts[0] - expected) < 0.0005, (rtts[0], expected, rtts)


# A sender offering 12 Mb/s of 1000-byte datagrams for 2 s into a 10 Mb/s link, and a receiver
# printing the arrival time of each: the kernel's receive timestamp (SO_TIMESTAMPNS, when the
# emulator's packet reached the socket), not the time this process got to read it, which a loaded
# machine delays by tens of milliseconds.
SINK = """
import socket, struct, json
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux asm-generic/socket.h
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("10.0.0.2", 7001)); s.settimeout(1.0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
print("up", flush=True)
times = []
try:
    while True:
        _, anc, _, _ = s.recvmsg(2048, 64)
        sec, nsec = next(struct.unpack("qq", d[:16]) for lvl, typ, d in anc
                         if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS)
        times.append(sec + nsec * 1e-9)
except socket.timeout:
    pass
print(json.dumps(times))
"""
BLAST = """
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
start, sent, payload = time.monotonic(), 0, bytes(1000 - 28)
while time.monotonic() - start < 2.0:
    if sent * 8000 < (time.monotonic() - start) * 12e6:
        s.sendto(payload, ("10.0.0.2", 7001)); sent += 1
    else:
        time.sleep(0.0005)
print(sent)
"""


@root_only
@pytest.mark.parametrize("link", [("10Mbps", "5ms", 100)], indirect=True)
def test_rate_is_the_configured_rate_and_the_fifo_drops_its_overflow(link: Link) -> None:
    sink = link.run("b", SINK)
    assert sink.stdout is not None and sink.stdout.readline().strip() == "up"
    blast = link.run("a", BLAST, realtime=True)
    sent_out, err = blast.communicate(timeout=30)
    assert blast.returncode == 0, err
    times = json.loads(sink.communicate(timeout=30)[0])
    stats = link.emu.stop()["directions"][0]
    # Under a backlog, arrivals are spaced by one 1000-byte serialisation at 10 Mb/s.
    rate = (len(times) - 1) * 1000 * 8 / (times[-1] - times[0])
    print(f"rate: configured 10 Mb/s, measured {rate / 1e6:.4f} Mb/s over {len(times)} packets")
    assert abs(rate - 10e6) / 10e6 < 0.01, rate
    # 12 Mb/s offered for 2 s into 10 Mb/s: the 100-packet FIFO overflows, and every packet that
    # was not dropped there arrived.
    assert stats["packets_offered"] == int(sent_out)
    assert stats["drops_queue"] > 0
    assert stats["drops_queue"] == stats["packets_offered"] - stats["packets_sent"]
    assert len(times) == stats["packets_sent"]


def pcap_lengths(path: Path) -> list[int]:
    data = path.read_bytes()
    lengths, i = [], 24
    while i + 16 <= len(data):
        caplen, wirelen = struct.unpack_from("<II", data, i + 8)
        lengths.append(wirelen)
        i += 16 + caplen
    return lengths


def tcplab(*args: str, **kw: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tcplab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw
    )


@root_only
def test_validate_linux_prints_both_runs_side_by_side(tmp_path: Path) -> None:
    p = tcplab(
        "validate", "linux", str(ROOT / "examples/wired_bottleneck.toml"), "--set", "flows.download.size=2MB",
        "--set", "links.bottleneck.outage.intervals=[[\"0.5s\", \"1.5s\"]]", "--out", str(tmp_path),
    )  # fmt: skip
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    for row in ("completion time (s)", "goodput (Mb/s)", "retransmissions", "RTOs", "recovery after outage 1 (s)"):
        assert row in out
    assert "Not matched by the real run" in out and "tcp.limited_transmit" in out
    assert (tmp_path / "cwnd.png").stat().st_size > 0
    result = json.loads((tmp_path / "comparison.json").read_text())
    # The outage forces at least one RTO on both sides, and both recover.
    assert result["linux"]["rtos"] >= 1 and result["simulated"]["rtos"] >= 1
    assert None not in result["linux"]["recovery_s"]
    # Offloads off: every packet on the bottleneck is one MSS (1460 B) plus headers at most.
    lengths = pcap_lengths(tmp_path / "linux-bottleneck.pcap")
    assert lengths and max(lengths) <= 1500
    assert not [n for n in list_namespaces() if n.startswith(f"tcplab-{p.pid}-")]


@root_only
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_run_killed_midway_leaves_nothing_behind(tmp_path: Path, sig: signal.Signals) -> None:
    p = tcplab(
        "validate", "linux", str(ROOT / "examples/wired_bottleneck.toml"), "--set", "flows.download.size=100MB",
        "--out", str(tmp_path),
    )  # fmt: skip
    mine = f"tcplab-{p.pid}-"
    # Wait for the real run to be under way: the bottleneck's devices exist in the namespaces.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (tmp_path / "linux-bottleneck.pcap").exists():
        assert p.poll() is None, p.communicate()
        time.sleep(0.05)
    while time.monotonic() < deadline and ip("-n", f"{mine}n2", "link", "show", "l1", check=False).returncode:
        time.sleep(0.05)
    assert [n for n in list_namespaces() if n.startswith(mine)]
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert not [n for n in list_namespaces() if n.startswith(mine)]
    emus = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert not emus


@root_only
def test_namespaces_of_dead_runs_are_removed() -> None:
    # A pid above the kernel's pid_max belongs to no process.
    stale = "tcplab-99999999-n0"
    ip("netns", "add", stale)
    assert stale in remove_stale()
    assert stale not in list_namespaces()


@root_only
def test_without_root_it_stops_with_a_message() -> None:
    p = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m", "tcplab",
         "validate", "linux", str(ROOT / "examples/wired_bottleneck.toml")],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": "/tmp"},
    )  # fmt: skip
    assert p.returncode != 0
    assert "needs root" in p.stderr and "Traceback" not in p.stderr


def test_unsupported_scenarios_are_refused_naming_the_field(tmp_path: Path) -> None:
    s = two_nodes("10Mbps", "1ms", 10)
    s["flows"].append({**s["flows"][0], "name": "g"})
    path = tmp_path / "two.json"
    path.write_text(json.dumps(s))
    p = subprocess.run(
        [sys.executable, "-m", "tcplab", "validate", "linux", str(path)], capture_output=True, text=True, timeout=60
    )
    assert p.returncode != 0
    assert "flows: validate linux runs exactly one flow, this scenario has 2" in p.stderr


def test_the_emulator_is_built() -> None:
    assert os.access(binary(), os.X_OK)
