"""Captures are complete and exact, on every example, read back with tshark (docs/trace.md).

A packet is in an interface's IP-level capture once when the interface sends it (a station: its
first DATA frame, whatever RTS attempts or retries surround it) and once when it receives it. Three
checks, each of which fails when a send path skips the capture:

1. Every data packet (TCP, application UDP, ICMP) a node received is in the capture of a node that
   sent it: matched by (IP source, IP identification, protocol, TTL), a sent record being one the
   node originated or forwarded (its capture also holds the copy it received, one hop's TTL
   earlier).
2. Each station's capture holds exactly its first DATA frames and its deliveries to IP, counted by
   the MAC: frames_sent − data_retries + delivered − packet_errors.
3. Each TCP sender's capture holds the data segments its socket sent, less those its node dropped
   before they left it or still held when the run ended, and Wireshark's retransmission analysis
   finds tcplab's retransmissions less those whose first copy never left: exactly when the
   sender's node dropped nothing and nothing was in flight at the end, within those otherwise.

The 802.11 captures are checked on the ad hoc string (RTS/CTS for every unicast frame): tshark
decodes RTS, CTS, DATA and ACK with correct FCS, radiotap's rate is the WLAN's, and each station's
frames with the Retry bit are its `data_retries`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import tcplab

ROOT = Path(__file__).resolve().parents[1]
TSHARK = shutil.which("tshark")
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
# Shortened so the suite stays quick; each keeps its structure (as in test_examples.py).
SHORTER = {
    "wired_bottleneck.toml": {"flows.download.size": "2MB"},
    "wired_outage.toml": {"flows.download.size": "20MB"},
    "wired_lossy.toml": {"duration": "20s"},
    "wlan_download.toml": {"flows.download.size": "2MB"},
    "wlan_saturation.toml": {"duration": "3s"},
    "adaptive_tcp_4aps.toml": {"duration": "5s"},
    "adhoc_string.toml": {"duration": "20s"},
    "adhoc_mobile.toml": {"duration": "20s"},
    "adhoc_break.toml": {"duration": "40s"},
    "ack_holding.toml": {"duration": "20s"},
}

# Outside CI a missing tshark skips these tests; in CI (where `make test` installs it) it fails them.
pytestmark = pytest.mark.skipif(TSHARK is None and not os.environ.get("CI"), reason="tshark is installed by `make test`")


# The packets check 1 follows hop by hop: TCP, UDP datagrams of applications, ICMP. Routing agents
# re-originate the control packets they pass on (AODV's RREP, DSR's flood) with their own IP
# identification and TTL, so those cannot be matched by IP fields.
DATA = "ip && (tcp || icmp || (udp && !aodv && udp.port != 255))"


def tshark_fields(pcap: Path, display_filter: str, *fields: str, opts: tuple[str, ...] = ()) -> list[list[str]]:
    # The first occurrence of a field: an ICMP error quotes another IP header.
    args = [TSHARK, "-r", str(pcap), *opts, "-Y", display_filter, "-T", "fields", "-E", "occurrence=f"]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def tshark_count(pcap: Path, display_filter: str, opts: tuple[str, ...] = ()) -> int:
    return len(tshark_fields(pcap, display_filter, "frame.number", opts=opts))


def addr(resolved: dict, node: str) -> str:
    """The IPv4 address of `node`: 10.0.0.1 for the first node of the scenario, and so on."""
    i = [n["name"] for n in resolved["nodes"]].index(node)
    return f"10.0.0.{i + 1}"


def node_of(pcap: Path, resolved: dict) -> str:
    """The node of `<link or wlan>-<node>.pcap` (node names may contain '-')."""
    stem = pcap.stem
    names = sorted((n["name"] for n in resolved["nodes"]), key=len, reverse=True)
    return next(n for n in names if stem.endswith("-" + n))


def drops_at(summary: dict, node: str) -> int:
    """Packets `node` dropped before they left it: its network layer's drops, its stations' queue
    and retry-limit drops, and its wired interfaces' queue drops (an upper bound on the packets of
    one flow lost there before their first transmission)."""
    n = next((x for x in summary.get("nodes", []) if x["node"] == node), None)
    total = 0
    if n is not None:
        total += sum(v for k, v in n.items() if k.startswith("drops_"))
    for w in summary.get("wifi", []):
        if w["node"] == node:
            total += w["drops_queue"] + w["drops_retry_limit"] + w["drops_outage"]
    for ln in summary.get("links", []):
        if ln["direction"].split("->")[0] == node:
            total += ln["drops_queue"]
    return total


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_packet_is_captured_once_by_its_sender_and_its_receiver(tmp_path: Path, path: Path) -> None:
    # Every interface (an empty trace.pcap with pcap_dir captures them all).
    ov = SHORTER.get(path.name, {}) | {"trace.pcap": []}
    # ARP off (docs/models/arp.md): the IP captures hold no ARP frames and the summary does not
    # count the ARP frames a station's MAC hands up, so the counts below have no ARP term.
    for w in tcplab.resolve(path, ov).get("wlans", []):
        ov[f"wlans.{w['name']}.arp"] = False
    resolved = tcplab.resolve(path, ov)
    res = tcplab.run(path, seed=5, overrides=ov, pcap_dir=tmp_path)
    s = res.summary
    pcaps = sorted(p for p in tmp_path.glob("*.pcap") if not p.stem.endswith("-80211"))
    assert pcaps, "pcap_dir alone captures every interface"

    # 1. Every received packet was captured as sent by another node.
    sent: dict[str, set[tuple[str, ...]]] = {}
    received: dict[str, list[tuple[str, ...]]] = {}
    by_node: dict[str, Counter] = {}
    for pcap in pcaps:  # a node's interfaces together: a router receives on one, sends on another
        rows = tshark_fields(pcap, DATA, "ip.src", "ip.id", "ip.proto", "ip.ttl")
        keys = by_node.setdefault(node_of(pcap, resolved), Counter())
        keys.update((src, ident, proto, int(ttl)) for src, ident, proto, ttl in rows)
    for node, keys in by_node.items():
        me = addr(resolved, node)
        for src, ident, proto, ttl in keys:
            forwarded = (src, ident, proto, ttl + 1) in keys
            if src == me or forwarded:
                sent.setdefault(node, set()).add((src, ident, proto, str(ttl)))
            else:
                received.setdefault(node, []).append((src, ident, proto, str(ttl)))
    total_received = 0
    for node, keys_ in received.items():
        others = set().union(*(v for n, v in sent.items() if n != node))
        missing = [k for k in keys_ if k not in others]
        assert not missing, f"{path.stem}: {len(missing)} packets received by {node} are in no sender's capture"
        total_received += len(keys_)
    delivered = sum(f["packets_received"] for f in s["flows"] + s["cbr"])
    assert (total_received > 0) == (delivered > 0)

    # 2. Each station's capture: its first DATA frames and its deliveries, as its MAC counted them.
    for w in s.get("wifi", []):
        pcap = tmp_path / f"{w['wlan']}-{w['node']}.pcap"
        expected = w["frames_sent"] - w["data_retries"] + w["delivered"] - w["packet_errors"]
        assert tshark_count(pcap, "frame") == expected, f"{path.stem}: {pcap.name}"

    # 3. Each TCP sender's data segments, and Wireshark's retransmissions.
    for spec, flow in zip(resolved["flows"], s["flows"]):
        if spec["app"] not in ("bulk", "bulk_download"):
            continue
        server = spec["server"]
        src = addr(resolved, server)
        data, retx = 0, 0
        for pcap in pcaps:
            if node_of(pcap, resolved) != server:
                continue
            sel = f"ip.src == {src} && ip.dst == {addr(resolved, spec['client'])} && tcp.len > 0"
            data += tshark_count(pcap, sel)
            retx += tshark_count(
                pcap,
                f"{sel} && (tcp.analysis.retransmission || tcp.analysis.fast_retransmission "
                "|| tcp.analysis.out_of_order)",
            )
        # Missing from the sender's capture: segments dropped at its node, or still queued there
        # when the run ended (counted in flight).
        bound = drops_at(s, server) + flow["packets_in_flight"]
        assert flow["segments_sent"] - bound <= data <= flow["segments_sent"], (path.stem, flow["name"], bound)
        assert flow["retransmissions"] - bound <= retx <= flow["retransmissions"], (path.stem, flow["name"], bound)
        if bound == 0:
            assert data == flow["segments_sent"]
            assert retx == flow["retransmissions"]


def test_the_adhoc_string_sender_is_exact_within_its_link_breaks(tmp_path: Path) -> None:
    """The issue's case: n0 of the 7-hop string (RTS/CTS for every unicast frame). Every data
    segment n0's TCP sent is in its capture but those AODV dropped at n0 for a broken link before
    their first DATA frame (purged from the queue, or failed at the RTS retry limit). The run ends at
    78 s, when nothing is in flight: a segment AODV still holds at n0 for a local repair when the run
    ends (the ns2 preset holds them) is neither captured nor dropped."""
    path = ROOT / "examples" / "adhoc_string.toml"
    # ARP off: the sums below have no term for a segment ARP holds or drops (docs/models/arp.md);
    # the end is an instant with nothing in flight in the run without ARP: 55 s (stop 43) until the ns2
    # profile restarted the timer at a fast retransmit (session 16: then 4 segments in flight at 55 s);
    # 78 s is the first such instant after it (1342 segments sent, 50 dropped for a broken link).
    res = tcplab.run(path, seed=1, overrides={"duration": "78s", "wlans.manet.arp": False}, pcap_dir=tmp_path)
    flow = res.summary["flows"][0]
    n0 = next(n for n in res.summary["nodes"] if n["node"] == "n0")
    st = next(w for w in res.summary["wifi"] if w["node"] == "n0")
    data = tshark_count(tmp_path / "manet-n0.pcap", "ip.src == 10.0.0.1 && tcp.len > 0")
    assert flow["segments_sent"] > 1000 and st["retries"] > 100
    assert st["drops_queue"] == 0 and n0["drops_no_route"] == 0 and flow["packets_in_flight"] == 0
    assert data == flow["segments_sent"] - n0["drops_link_broken"]


@pytest.mark.parametrize("access", ["rts_cts", "basic"])
def test_80211_captures_show_rts_cts_data_ack_and_the_retry_bit(tmp_path: Path, access: str) -> None:
    # The example's preset sends RTS/CTS before every unicast frame: DATA frames are then rarely
    # sent again (RTS frames are, without a Retry bit). Basic access (no RTS) retries DATA often.
    path = ROOT / "examples" / "adhoc_string.toml"
    ov = {"duration": "20s"}
    if access == "basic":
        ov["wlans.manet.rts_threshold"] = "3000B"
    res = tcplab.run(path, seed=2, overrides=ov, pcap_dir=tmp_path, pcap_80211=True)
    stations = res.summary["wifi"]
    assert sum(w["retries"] for w in stations) > 0
    if access == "basic":
        assert sum(w["data_retries"] for w in stations) > 50
    for i, w in enumerate(stations):
        pcap = tmp_path / f"manet-{w['node']}-80211.pcap"
        mac = f"02:00:0a:00:00:{i + 1:02x}"
        rows = tshark_fields(pcap, "frame", "wlan.fc.type_subtype", "wlan.ra", "radiotap.datarate", "wlan.ta")
        kinds = Counter(int(r[0], 0) for r in rows)
        # RTS 0x1b, CTS 0x1c, ACK 0x1d, DATA 0x20.
        expected = {0x1B, 0x1C, 0x1D, 0x20} if access == "rts_cts" else {0x1D, 0x20}
        assert expected <= set(kinds), f"{w['node']}: {kinds}"
        unicast = {r[2] for r in rows if int(r[0], 0) == 0x20 and r[1] != "ff:ff:ff:ff:ff:ff"}
        assert unicast == {"2"}, "unicast DATA frames at the WLAN's 2 Mb/s (broadcasts at the 1 Mb/s basic rate)"
        assert {r[2] for r in rows} <= {"1", "2"}
        assert tshark_count(pcap, "_ws.malformed || _ws.expert.severity >= error") == 0
        bad_fcs = tshark_count(pcap, "wlan.fcs.status != 1", opts=("-o", "wlan.check_checksum:TRUE"))
        assert bad_fcs == 0
        # Frames this station sent: RTS and DATA carry its address as TA.
        retried = tshark_count(pcap, f"wlan.ta == {mac} && wlan.fc.retry == 1")
        assert retried == w["data_retries"], w["node"]
        data_sent = tshark_count(pcap, f"wlan.ta == {mac} && wlan.fc.type_subtype == 0x20")
        assert data_sent == w["frames_sent"], w["node"]
        # The IP packet inside a DATA frame decodes.
        # (an ARP request or reply, with ns2_dsss's ARP on, is a DATA frame holding ARP)
        assert tshark_count(pcap, "wlan.fc.type_subtype == 0x20 && (ip || arp)") == kinds[0x20]
        assert tshark_count(pcap, "wlan.fc.type_subtype == 0x20 && arp") > 0


def test_pcap_dir_captures_every_interface_and_creates_its_folder(tmp_path: Path) -> None:
    out = tmp_path / "new"
    # The example names only the bottleneck in trace.pcap; without a list every interface is captured.
    ov = {"flows.download.size": "200KB", "trace.pcap": []}
    tcplab.run(ROOT / "examples" / "wired_bottleneck.toml", overrides=ov, pcap_dir=out)
    names = sorted(p.name for p in out.glob("*.pcap"))
    assert names == [
        "access-router.pcap",
        "access-server.pcap",
        "bottleneck-client.pcap",
        "bottleneck-router.pcap",
    ]
    with pytest.raises(ValueError, match="does not exist"):
        tcplab.run(ROOT / "examples" / "wired_bottleneck.toml", pcap_dir=tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()
    with pytest.raises(ValueError, match="pcap_80211: needs pcap_dir"):
        tcplab.run(ROOT / "examples" / "wired_bottleneck.toml", pcap_80211=True)


# A one-way start (ns-2's, issue 33) that scales its window: 1 MB of rcv_buf is shift 4, a window
# field of 62500 for a window of 1000000 bytes. No loss: the receiver's window is its whole buffer.
ONE_WAY = {"tcp.window_scaling": True, "tcp.rcv_buf": "1000000B", "links.bottleneck.loss.p": 0.0, "duration": "3s"}


def _shift_named(notes: list[str]) -> int:
    """The shift tcplab names for the captures (``tshark -o tcp.default_window_scaling:N``)."""
    named = [n for n in notes if "tcp.default_window_scaling:" in n]
    assert len(named) == 1, notes
    return int(named[0].split("tcp.default_window_scaling:")[1].split("`")[0])


def _windows(pcap: Path, opts: tuple[str, ...] = ()) -> dict[str, set[int]]:
    """The windows tshark reads in the segments other than SYNs, by IP source (one tshark run)."""
    out: dict[str, set[int]] = {}
    for src, win in tshark_fields(pcap, "tcp.flags.syn == 0", "ip.src", "tcp.window_size", opts=opts):
        out.setdefault(src, set()).add(int(win))
    return out


@pytest.mark.parametrize("open_", ["none", "sender_syn"])
def test_a_one_way_starts_windows_read_with_the_shift_tcplab_names(
    tmp_path: Path, wired: dict, open_: str
) -> None:
    """Wireshark reads a one-way start's window field unscaled (no SYN option says the shift);
    with the shift tcplab names it reads the windows tcplab sent: both ends advertise their whole
    1000000-byte buffer (the receiver reads every byte at once, nothing is lost). With
    ``sender_syn`` its bare SYNs say "not scaled" and must be left out first (docs/trace.md)."""
    res = tcplab.run(wired, overrides={**ONE_WAY, "tcp.open": open_}, pcap_dir=tmp_path / "caps")
    assert res.summary["flows"][0]["completed"]
    shift = _shift_named(res.warnings)
    assert shift == 4
    pcap = tmp_path / "caps" / "bottleneck-client.pcap"
    pref = ("-o", f"tcp.default_window_scaling:{shift}")
    # The receiver's ACKs (10.0.0.3) and the sender's data segments (10.0.0.1).
    unscaled, scaled = {"10.0.0.3": {62500}, "10.0.0.1": {62500}}, {"10.0.0.3": {1_000_000}, "10.0.0.1": {1_000_000}}
    if open_ == "sender_syn":
        # The SYNs that were sent, without any option (window scale is option kind 3).
        assert tshark_fields(pcap, "tcp.flags.syn == 1", "tcp.flags.syn", "tcp.option_kind") == [["1", ""]] * 2
        # The preference alone does not help: the bare SYNs fix the streams' scale at "none".
        assert _windows(pcap, pref) == unscaled
        nosyn = tmp_path / "nosyn.pcap"
        subprocess.run([TSHARK, "-r", str(pcap), "-Y", "not tcp.flags.syn == 1", "-w", str(nosyn)], check=True,
                       capture_output=True)
        pcap = nosyn
    else:
        assert _windows(pcap) == unscaled
    assert _windows(pcap, pref) == scaled


def test_the_cli_names_the_shift_only_when_the_window_is_scaled_without_an_option(wired_toml: Path) -> None:
    from conftest import run_cli

    out = wired_toml.parent
    sets = [a for k, v in ONE_WAY.items() for a in ("--set", f"{k}={json.dumps(v) if not isinstance(v, str) else v}")]
    r = run_cli("run", str(wired_toml), *sets, "--set", "tcp.open=none", "--out", str(out / "A"), "--pcap")
    assert r.returncode == 0, r.stderr
    note = [ln for ln in r.stderr.splitlines() if ln.startswith("note: trace.pcap: flow download")]
    assert len(note) == 1 and "tcp.default_window_scaling:4" in note[0], r.stderr
    assert any("tcp.default_window_scaling:4" in w for w in json.loads((out / "A" / "summary.json").read_text())["warnings"])
    # The same window with the handshake: the SYNs carry the option, nothing needs saying.
    r = run_cli("run", str(wired_toml), *sets, "--out", str(out / "B"), "--pcap")
    assert r.returncode == 0 and "note:" not in r.stderr, r.stderr
    # One-way with a window that needs no scale (60000 B fits the 16-bit field): nothing either.
    r = run_cli("run", str(wired_toml), "--set", "tcp.open=none", "--set", "tcp.window_scaling=true",
                "--set", "tcp.rcv_buf=60000B", "--out", str(out / "C"), "--pcap")
    assert r.returncode == 0 and "note:" not in r.stderr, r.stderr
