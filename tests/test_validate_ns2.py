"""``tcplab validate ns2``: the translation pinned (golden scripts, every behaviour-changing field
carried), the trace reader against hand-counted cases, real ns-2.35 runs, and bad input.

ns-2.35 (`ns`) is installed by ``make test`` (the Makefile's ns2 target)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from tcplab.validate.ns2 import Untranslatable
from tcplab.validate.ns2.command import prepare
from tcplab.validate.ns2.tcl import FlowMap
from tcplab.validate.ns2.trace import parse, parse_lines

GOLDEN = ROOT / "tests" / "golden" / "ns2"
#: The examples the translation accepts (the others are refused, see test_examples_outside_the_subset).
TRANSLATED = ["adhoc_break", "adhoc_string", "wired_bottleneck", "wired_lossy", "wired_outage"]
REFUSED = {
    "ack_holding": "`agents = ack_holder`",
    "snoop": "`agents = snoop`",
    "adaptive_tcp_4aps": "`wlans.wlan2",
    "adhoc_mobile": "`wlans.manet.stations.m00.mobility.model = random_waypoint`",
    "wlan_download": "`wlans.bss.phy = hr_dsss`",
    "wlan_saturation": "`wlans.bss.phy = hr_dsss`",
}


def script_of(scenario: dict[str, Any] | Path, overrides: list[tuple[str, str]] | None = None) -> Any:
    if isinstance(scenario, Path):
        return prepare(scenario.read_text(), "toml", overrides or [], scenario.parent)[2]
    return prepare(json.dumps(scenario), "json", overrides or [], ROOT)[2]


# ------------------------------------------------------------------ golden scripts


@pytest.mark.parametrize("name", TRANSLATED)
def test_each_translated_example_writes_its_golden_script(name: str) -> None:
    """Regenerate with TCLAB_REGEN_GOLDEN=1 after a deliberate change of the translation."""
    text = script_of(ROOT / "examples" / f"{name}.toml").text
    golden = GOLDEN / f"{name}.tcl"
    if os.environ.get("TCLAB_REGEN_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_examples_outside_the_subset_are_refused_naming_the_field(name: str) -> None:
    with pytest.raises(Untranslatable, match=REFUSED[name].replace("[", r"\[").replace("…", ".")):
        script_of(ROOT / "examples" / f"{name}.toml")


def test_every_example_is_either_translated_or_refused() -> None:
    names = {p.stem for p in (ROOT / "examples").glob("*.toml")}
    assert names == set(TRANSLATED) | set(REFUSED)


# ------------------------------------------------------------------ every field carried

WIRED: dict[str, Any] = {
    "name": "wired",
    "duration": "20s",
    "tcp": {"variant": "newreno", "mss": 1000, "rcv_buf": "20000B"},
    "nodes": [{"name": "s"}, {"name": "r"}, {"name": "c"}],
    "links": [
        {"name": "access", "a": "s", "b": "r", "rate": "100Mbps", "delay": "1ms"},
        {"name": "neck", "a": "r", "b": "c", "rate": "10Mbps", "delay": "20ms",
         "queue": {"kind": "droptail", "packets": 50}, "loss": {"model": "bernoulli", "p": 0.01}},
    ],
    "flows": [{"name": "f", "app": "bulk", "client": "c", "server": "s", "start": "1s"}],
}

STRING: dict[str, Any] = {
    "name": "string2",
    "duration": "10s",
    "tcp": {"variant": "newreno", "mss": 1000, "rcv_buf": "20000B"},
    "nodes": [{"name": "n0"}, {"name": "n1"}, {"name": "n2"}],
    "wlans": [{
        "name": "manet", "mode": "adhoc", "phy": "ns2_dsss", "rate": "2Mbps",
        "propagation": {"model": "two_ray_ground"}, "routing": {"protocol": "aodv", "preset": "ns2"},
        "stations": [{"node": "n0", "position": ["0m", "0m"]}, {"node": "n1", "position": ["200m", "0m"]},
                     {"node": "n2", "position": ["400m", "0m"]}],
    }],
    "flows": [{"name": "f", "app": "bulk", "client": "n2", "server": "n0"}],
}

MIXED: dict[str, Any] = {
    "name": "mixed",
    "duration": "20s",
    "tcp": {"variant": "reno", "mss": 1000, "rcv_buf": "20000B"},
    "nodes": [{"name": "fh"}, {"name": "bs"}, {"name": "mh"}],
    "links": [{"name": "wired", "a": "fh", "b": "bs", "rate": "10Mbps", "delay": "50ms"}],
    "wlans": [{"name": "cell", "mode": "infrastructure", "phy": "ns2_dsss", "rate": "2Mbps", "ap": "bs",
               "stations": [{"node": "bs", "position": ["0m", "0m"]},
                            {"node": "mh", "position": ["50m", "0m"], "outage": {"intervals": [["5s", "10s"]]}}]}],
    "flows": [{"name": "bulk", "app": "bulk", "client": "mh", "server": "fh"}],
}

# (base scenario, override path, new value): each changes what the simulation does.
PERTURB = [
    (WIRED, "links.neck.rate", '"5Mbps"'),
    (WIRED, "links.neck.delay", '"30ms"'),
    (WIRED, "links.neck.queue.packets", "20"),
    (WIRED, "links.neck.loss.p", "0.02"),
    (WIRED, "links.neck.loss.direction", '"a_to_b"'),
    (WIRED, "links.neck.queue", '{ kind = "red", limit = 50, min_th = 5, max_th = 15 }'),
    (WIRED, "links.neck.outage", '{ intervals = [["5s", "6s"]] }'),
    (WIRED, "tcp.variant", '"reno"'),
    (WIRED, "tcp.variant", '"sack"'),
    (WIRED, "tcp.cc", '"cubic"'),
    (WIRED, "tcp.mss", "500"),
    (WIRED, "tcp.rcv_buf", '"30000B"'),
    (WIRED, "tcp.initial_window", "4"),
    (WIRED, "tcp.rto_min", '"1s"'),
    (WIRED, "tcp.rto_initial", '"1s"'),
    (WIRED, "tcp.timer_tick", '"100ms"'),
    (WIRED, "tcp.dupack_threshold", "4"),
    (WIRED, "tcp.limited_transmit", "false"),
    (WIRED, "tcp.delayed_ack", "true"),
    (WIRED, "flows.f.start", '"2s"'),
    (WIRED, "duration", '"30s"'),
    (STRING, "wlans.manet.rate", '"11Mbps"'),
    (STRING, "wlans.manet.rts_threshold", '"3000B"'),
    (STRING, "wlans.manet.queue", "20"),
    (STRING, "wlans.manet.short_retry_limit", "4"),
    (STRING, "wlans.manet.routing", '{ protocol = "dsr", preset = "ns2" }'),
    (STRING, "wlans.manet.routing", '{ protocol = "dsdv", preset = "ns2" }'),
    (STRING, "wlans.manet.propagation", '{ model = "free_space" }'),
    (STRING, "wlans.manet.propagation", '{ model = "two_ray_ground", rx_thresh_w = 1e-10 }'),
    (STRING, "wlans.manet.stations.1.position", '["150m", "10m"]'),
    (STRING, "wlans.manet.stations.1.loss", '{ model = "bernoulli", p = 0.05 }'),
    (STRING, "wlans.manet.stations.1.outage", '{ intervals = [["2s", "4s"]] }'),
    (STRING, "wlans.manet.stations.2.mobility",
     '{ model = "waypoints", points = [["1s", "400m", "0m"], ["5s", "400m", "100m"]] }'),
    (MIXED, "links.wired.delay", '"20ms"'),
    (MIXED, "wlans.cell.stations.1.position", '["100m", "0m"]'),
    (MIXED, "wlans.cell.stations.1.outage", '{ intervals = [["5s", "6s"]] }'),
    (STRING, "tcp.cc", '"westwood"'),
    (STRING, "tcp.mss", "1460"),
    (STRING, "flows.f.start", '"3s"'),
    (STRING, "duration", '"20s"'),
]


@pytest.mark.parametrize("base,path,value", PERTURB, ids=[f"{b['name']}:{p}={v}" for b, p, v in PERTURB])
def test_a_field_that_changes_behaviour_changes_the_script(base: dict[str, Any], path: str, value: str) -> None:
    before = script_of(base).text
    after = script_of(base, [(path, value)]).text
    assert before != after, f"{path} = {value} is not carried into the ns-2 script"


def test_tcp_fields_not_set_keep_ns2s_defaults() -> None:
    """Only what the scenario sets reaches Agent/TCP; ns-2's own defaults stay otherwise."""
    s = copy.deepcopy(WIRED)
    s["tcp"] = {"variant": "newreno"}
    text = script_of(s).text
    for var in ("packetSize_", "window_", "windowInit_", "minrto_", "tcpTick_", "rtxcur_init_", "singledup_"):
        assert f"$tcp_ set {var}" not in text
    assert "$tcp_ set packetSize_ 1000" in script_of(WIRED).text
    assert "$tcp_ set window_ 20" in script_of(WIRED).text


def test_a_flow_tcp_field_set_by_index_is_carried_like_one_set_by_name() -> None:
    by_name = script_of(WIRED, [("flows.f.tcp.rto_min", '"2s"')]).text
    assert "$tcp_ set minrto_ 2" in by_name
    assert script_of(WIRED, [("flows.0.tcp.rto_min", '"2s"')]).text == by_name


# ------------------------------------------------------------------ the trace reader, by hand

# A 3-node string n0 -> n1 -> n2, TCP from 0:0 to 2:0, 1000-byte packets; every count below is
# counted by hand from these lines.
HAND_TRACE = """\
s 0.100000000 _0_ AGT  --- 1 tcp 1040 [0 0 0 0] ------- [0:0 2:0 32 0] [0 0] 0 0
s 0.100000000 _0_ RTR  --- 0 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] [0x2 1 1 [2 0] [0 4]] (REQUEST)
s 0.100500000 _0_ MAC  --- 0 AODV 106 [0 ffffffff 0 800] ------- [0:255 -1:255 30 0] [0x2 1 1 [2 0] [0 4]] (REQUEST)
s 0.101000000 _1_ RTR  --- 0 AODV 48 [0 ffffffff 0 800] ------- [1:255 -1:255 29 0] [0x2 2 1 [2 0] [0 4]] (REQUEST)
s 0.102000000 _2_ RTR  --- 0 AODV 44 [0 0 0 0] ------- [2:255 0:255 30 1] [0x4 1 [2 4] 10.000000] (REPLY)
f 0.103000000 _1_ RTR  --- 0 AODV 44 [0 0 0 0] ------- [2:255 0:255 30 0] [0x4 2 [2 4] 10.000000] (REPLY)
s 0.200000000 _0_ AGT  --- 2 tcp 1040 [0 0 0 0] ------- [0:0 2:0 32 0] [1 0] 0 0
s 0.210000000 _0_ AGT  --- 3 tcp 1040 [0 0 0 0] ------- [0:0 2:0 32 0] [2 0] 0 0
r 0.300000000 _2_ AGT  --- 1 tcp 1060 [13a 2 1 800] ------- [0:0 2:0 31 2] [0 0] 2 0
s 0.300000000 _2_ AGT  --- 4 ack 40 [0 0 0 0] ------- [2:0 0:0 32 0] [0 0] 0 0
D 0.310000000 _1_ MAC  COL 0 RTS 44 [4b6 2 1 0]
D 0.320000000 _1_ MAC  RET 0 RTS 44 [4b6 2 1 0]
D 0.320000000 _1_ MAC  RET 2 tcp 1060 [13a 2 1 800] ------- [0:0 2:0 31 2] [1 0] 1 0
D 0.320000000 _1_ RTR  CBK 2 tcp 1060 [13a 2 1 800] ------- [0:0 2:0 31 2] [1 0] 1 0
r 0.330000000 _2_ AGT  --- 3 tcp 1060 [13a 2 1 800] ------- [0:0 2:0 31 2] [2 0] 2 0
s 0.330000000 _2_ AGT  --- 5 ack 40 [0 0 0 0] ------- [2:0 0:0 32 0] [0 0] 0 0
r 0.400000000 _0_ AGT  --- 4 ack 60 [13a 0 1 800] ------- [2:0 0:0 31 0] [0 0] 2 0
D 0.410000000 _1_ RTR  NRTE 5 ack 60 [13a 1 2 800] ------- [2:0 0:0 31 0] [0 0] 1 0
s 0.410000000 _1_ RTR  --- 6 AODV 32 [0 0 0 0] ------- [1:255 -1:255 1 0] [0x8 1 [2 0] 0.000000] (ERROR)
s 0.500000000 _0_ AGT  --- 7 tcp 1040 [0 0 0 0] ------- [0:0 2:0 32 0] [1 0] 0 0
r 0.600000000 _2_ AGT  --- 7 tcp 1060 [13a 2 1 800] ------- [0:0 2:0 31 2] [1 0] 2 0
s 0.600000000 _0_ AGT  --- 8 tcp 1040 [0 0 0 0] ------- [0:0 2:0 32 0] [2 0] 0 0
r 0.700000000 _2_ AGT  --- 8 tcp 1060 [13a 2 1 800] ------- [0:0 2:0 31 2] [2 0] 2 0
s 0.710000000 _2_ AGT  --- 9 ack 40 [0 0 0 0] ------- [2:0 0:0 32 0] [2 0] 0 0
D 0.720000000 _1_ IFQ  --- 9 ack 60 [0 0 0 0] ------- [2:0 0:0 31 0] [2 0] 1 0
D 0.730000000 _1_ IFQ  ARP 11 tcp 1060 [0 0 0 0] ------- [0:0 2:0 31 2] [4 0] 1 0
D 0.740000000 _2_ RTR  TTL 12 AODV 48 [0 ffffffff 1 800] ------- [1:255 -1:255 0 0] [0x2 3 5 [2 0] [0 4]] (REQUEST)
s 0.800000000 _0_ AGT  --- 10 tcp 1040 [0 0 0 0] ------- [0:0 2:0 32 0] [3 0] 0 0
0.90000  0  0  2  0  nrexmit_ 1
"""


def test_the_trace_reader_counts_a_hand_counted_trace() -> None:
    f = FlowMap("f", "tcp", 0, 0, 2, 0, 1, 1000, None, 0.0, "Agent/TCP/Newreno")
    p = parse_lines(HAND_TRACE.splitlines(), [f], wireless=True)
    c = p.flows["f"]
    assert c.data_sent == 6  # uids 1 2 3 7 8 10
    assert c.retransmissions == 2  # seqnos 1 and 2 sent twice
    assert c.delivered_packets == 3  # seqnos 0, 1, 2 in order (3 still in flight)
    assert c.duplicates == 1  # seqno 2 arrived twice (uids 3 and 8)
    assert c.rtos == 1
    assert c.acks_sent == 3
    # DATA uid 2: RET then CBK, the last drop counts; uid 10: in flight at the end.
    assert dict(c.data_lost) == {"CBK": 1, "in flight": 1}
    # ACK uid 5: no route at n1; uid 9: n1's interface queue was full.
    assert dict(c.acks_lost) == {"NRTE": 1, "IFQ": 1}
    net = p.net
    assert net.mac_retry_drops == 1  # the RTS's RET is not a packet drop
    assert net.ifq_drops == 1  # the ARP drop at the IFQ is not a full queue
    assert net.routing_sent == {"AODV RREQ": 2, "AODV RREP": 2, "AODV RERR": 1}
    assert net.rreq_originated == 1  # n0's own request; n1's rebroadcast is not
    assert net.drops["NRTE"] == 1 and net.drops["CBK"] == 1 and net.drops["RET"] == 1
    assert net.drops["ARP"] == 1 and net.drops["TTL"] == 0  # an expired RREQ is not a lost packet


WIRED_TRACE = """\
+ 1.0 0 1 tcp 1040 ------- 1 0.0 2.0 0 1
- 1.0 0 1 tcp 1040 ------- 1 0.0 2.0 0 1
r 1.01 0 1 tcp 1040 ------- 1 0.0 2.0 0 1
+ 1.01 1 2 tcp 1040 ------- 1 0.0 2.0 0 1
- 1.01 1 2 tcp 1040 ------- 1 0.0 2.0 0 1
r 1.05 1 2 tcp 1040 ------- 1 0.0 2.0 0 1
+ 1.05 2 1 ack 40 ------- 1 2.0 0.0 0 2
- 1.05 2 1 ack 40 ------- 1 2.0 0.0 0 2
+ 1.1 0 1 tcp 1040 ------- 1 0.0 2.0 1 3
- 1.1 0 1 tcp 1040 ------- 1 0.0 2.0 1 3
r 1.11 0 1 tcp 1040 ------- 1 0.0 2.0 1 3
d 1.11 1 2 tcp 1040 ------- 1 0.0 2.0 1 3
+ 1.115 0 1 tcp 1040 ------- 1 0.0 2.0 2 4
- 1.115 0 1 tcp 1040 ------- 1 0.0 2.0 2 4
r 1.12 0 1 tcp 1040 ------- 1 0.0 2.0 2 4
+ 1.12 1 2 tcp 1040 ------- 1 0.0 2.0 2 4
d 1.12 1 2 tcp 1040 ------- 1 0.0 2.0 2 4
"""


DSR_LINES = """\
s 1.0 _0_ RTR  --- 1 DSR 32 [0 0 0 0] ------- [0:255 7:255 32 0] 1 [1 1] [0 1 0 0->0] [0 0 0 0->0]
f 1.1 _1_ RTR  --- 1 DSR 32 [0 0 0 0] ------- [0:255 7:255 31 0] 2 [1 1] [0 1 0 0->0] [0 0 0 0->0]
s 1.2 _7_ RTR  --- 2 DSR 60 [0 0 0 0] ------- [7:255 0:255 255 6] 8 [0 2] [1 2 8 7->0] [0 0 0 0->0]
s 1.3 _3_ RTR  --- 3 DSR 40 [0 0 0 0] ------- [3:255 0:255 255 2] 4 [0 0] [0 0 0 0->0] [1 1 0 3->4]
"""


def test_dsr_requests_replies_and_errors_are_told_apart() -> None:
    p = parse_lines(DSR_LINES.splitlines(), [], wireless=True)
    assert p.net.routing_sent == {"DSR request": 2, "DSR reply": 1, "DSR error": 1}
    assert p.net.rreq_originated == 1  # n0's own request, not n1's forward


def test_the_wired_trace_reader_tells_queue_drops_from_link_losses() -> None:
    f = FlowMap("f", "tcp", 0, 0, 2, 0, 1, 1000, 3000, 1.0, "Agent/TCP/Newreno")
    p = parse_lines(WIRED_TRACE.splitlines(), [f], wireless=False)
    c = p.flows["f"]
    assert (c.data_sent, c.delivered_packets, c.acks_sent) == (3, 1, 1)
    # uid 3 was dropped by the link's error model before n1's queue traced it; uid 4 was traced
    # into the queue and dropped there; the ACK is in flight.
    assert dict(c.data_lost) == {"link": 1, "queue": 1}
    assert dict(c.acks_lost) == {"in flight": 1}
    assert c.completion_s is None


# ------------------------------------------------------------------ real ns-2.35 runs


def _cli_run(tmp_path: Path, scenario: dict[str, Any], *extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    path = tmp_path / f"{scenario['name']}.json"
    path.write_text(json.dumps(scenario))
    out = tmp_path / "out"
    return run_cli("validate", "ns2", str(path), "--out", str(out), *extra), out


def _hand_run(out: Path, name: str, script: Any, seed: int, tmp_path: Path) -> Any:
    trace = tmp_path / f"hand{seed}.tr"
    subprocess.run(["ns", str(out / f"{name}.tcl"), str(seed), str(trace)], cwd=tmp_path, check=True,
                   capture_output=True, timeout=600)
    return parse(trace, script.flows, script.wireless)


def test_a_two_hop_string_in_ns2_equals_a_run_of_the_written_script_by_hand(tmp_path: Path) -> None:
    proc, out = _cli_run(tmp_path, STRING, "--seeds", "1-2")
    assert proc.returncode == 0, proc.stderr
    assert "goodput (kb/s)" in proc.stdout and "AODV RREQ sent" in proc.stdout
    doc = json.loads((out / "comparison.json").read_text())
    script = script_of(STRING)
    assert (out / "string2.tcl").read_text() == script.text
    for i, seed in enumerate((1, 2)):
        hand = _hand_run(out, "string2", script, seed, tmp_path)
        c = hand.flows["f"]
        assert doc["flows"]["f"]["goodput (kb/s)"]["ns2"][i] == c.delivered_packets * 1000 * 8 / 10 / 1e3
        assert doc["flows"]["f"]["retransmitted segments"]["ns2"][i] == c.retransmissions
        assert doc["network"]["routing packets sent"]["ns2"][i] == sum(hand.net.routing_sent.values())
        assert c.delivered_packets > 100  # a 2-hop string at 2 Mb/s carries well over 80 kb/s
        assert hand.net.rreq_originated >= 1  # the first packet needs a route discovery


def test_a_wired_link_in_ns2(tmp_path: Path) -> None:
    proc, out = _cli_run(tmp_path, WIRED)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "comparison.json").read_text())
    f = doc["flows"]["f"]
    # 1 % Bernoulli loss on both directions of the bottleneck: losses on the link, none in the queue
    # of a window of 20 packets, and the sender retransmits what the link lost.
    assert f["TCP DATA lost"]["ns2"][0] > 0
    assert doc["network"]["link loss and outage drops"]["ns2"][0] > 0
    assert doc["network"]["queue drops"]["ns2"][0] == 0
    assert f["retransmitted segments"]["ns2"][0] >= f["TCP DATA lost"]["ns2"][0] - 20
    assert 1000 < f["goodput (kb/s)"]["ns2"][0] < 10_000


def test_a_relative_out_folder_works(tmp_path: Path) -> None:
    """The default --out is relative (results/validate-ns2); ns runs inside the staging folder, so the
    script's and the trace pipe's paths must not be relative to the user's directory."""
    path = tmp_path / "wired.json"
    path.write_text(json.dumps(WIRED))
    proc = run_cli("validate", "ns2", str(path), "--out", "rel/out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rel" / "out" / "comparison.json").exists()


def test_a_wlan_in_ns2(tmp_path: Path) -> None:
    wlan = copy.deepcopy(STRING)
    wlan["name"] = "bss"
    w = wlan["wlans"][0]
    w.update(mode="infrastructure", ap="n0", rate="11Mbps")
    del w["routing"]
    w["stations"] = [{"node": "n0", "position": ["0m", "0m"]}, {"node": "n1", "position": ["20m", "0m"]},
                     {"node": "n2", "position": ["0m", "20m"]}]
    wlan["flows"] = [{"name": "f", "app": "bulk", "client": "n1", "server": "n0"},
                     {"name": "g", "app": "bulk", "client": "n2", "server": "n0", "start": "1s"}]
    proc, out = _cli_run(tmp_path, wlan)
    assert proc.returncode == 0, proc.stderr
    assert "static routes run as ns-2's DSDV" in proc.stdout
    doc = json.loads((out / "comparison.json").read_text())
    for name in ("f", "g"):
        assert doc["flows"][name]["goodput (kb/s)"]["ns2"][0] > 100


def test_a_wired_path_to_a_wlan_station_with_a_fade_in_ns2(tmp_path: Path) -> None:
    """Paper 001's shape: fixed host -- base station ~ mobile, the mobile unreachable 5-10 s."""
    proc, out = _cli_run(tmp_path, MIXED)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "comparison.json").read_text())
    f = doc["flows"]["bulk"]
    assert f["goodput (kb/s)"]["ns2"][0] > 100
    assert f["RTOs"]["ns2"][0] >= 1  # a 5 s fade times the sender out
    assert f["TCP DATA lost"]["ns2"][0] > 0 and doc["network"]["MAC retry-limit drops"]["ns2"][0] > 0


# ------------------------------------------------------------------ bad input


def test_an_untranslatable_field_exits_2_naming_it(tmp_path: Path) -> None:
    s = copy.deepcopy(STRING)
    s["wlans"][0]["phy"] = "erp_ofdm"
    s["wlans"][0]["rate"] = "54Mbps"
    proc, out = _cli_run(tmp_path, s)
    assert proc.returncode == 2
    assert "`wlans.manet.phy = erp_ofdm`: ns-2.35 has no OFDM PHY" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_ns_missing_says_how_to_install_it(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(STRING))
    env = dict(os.environ, PATH=str(Path(shutil.which("python3") or "/usr/bin/python3").parent.parent / "nonexistent"))
    import sys

    proc = subprocess.run([sys.executable, "-m", "tcplab", "validate", "ns2", str(path), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "apt-get install ns2" in lines[0]
    assert not (tmp_path / "o").exists()


def test_an_ns_crash_shows_its_last_lines_and_leaves_no_output(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ns").write_text("#!/bin/sh\nfor i in $(seq 1 40); do echo \"line $i\"; done\necho 'boom: segmentation fault' >&2\nexit 139\n")
    (fake / "ns").chmod(0o755)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(STRING))
    import sys

    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    proc = subprocess.run([sys.executable, "-m", "tcplab", "validate", "ns2", str(path), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1
    assert "boom: segmentation fault" in proc.stderr and "line 40" in proc.stderr and "line 2\n" not in proc.stderr
    assert not (tmp_path / "o").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".o.")]


def test_an_out_folder_tcplab_did_not_write_is_refused_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    proc, _ = _cli_run(tmp_path, STRING)
    assert proc.returncode == 2 and "refusing to write into it" in proc.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"] and (out / "notes.txt").read_text() == "mine"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


def test_a_second_run_replaces_only_its_own_files(tmp_path: Path) -> None:
    proc, out = _cli_run(tmp_path, WIRED, "--set", "duration=5s")
    assert proc.returncode == 0, proc.stderr
    (out / "notes.txt").write_text("mine")
    (out / "comparison.json").write_text("{}")
    proc, _ = _cli_run(tmp_path, WIRED, "--set", "duration=5s")
    assert proc.returncode == 0, proc.stderr
    assert (out / "notes.txt").read_text() == "mine"
    assert json.loads((out / "comparison.json").read_text())["scenario"] == "wired"


def test_the_seed_list_is_checked() -> None:
    proc = run_cli("validate", "ns2", str(ROOT / "examples" / "adhoc_string.toml"), "--seeds", "5-1")
    assert proc.returncode == 2 and "--seeds" in proc.stderr


def test_setdest_files_are_passed_through_unchanged(tmp_path: Path) -> None:
    moves = tmp_path / "moves.tcl"
    moves.write_text("$node_(0) set X_ 10.0\n$ns_ at 1.0 \"$node_(1) setdest 300.0 5.0 10.0\"\n")
    s = copy.deepcopy(STRING)
    s["wlans"][0]["mobility_file"] = str(moves)
    text = script_of(s).text
    assert f"source {{{moves}}}" in text


def test_the_script_names_ns2s_classes_for_each_choice() -> None:
    wired = script_of(WIRED).text
    assert "$ns_ duplex-link $n(1) $n(2) 10Mb 20ms DropTail" in wired
    assert "$ns_ queue-limit $n(1) $n(2) 50" in wired and "$em_ set rate_ 0.01" in wired
    assert "set tcp_ [new Agent/TCP/Newreno]" in wired and "set sink_ [new Agent/TCPSink]" in wired
    assert '$ns_ at 1 "$app_ start"' in wired and '$ns_ at 20 "finish"' in wired
    sack = script_of(WIRED, [("tcp.variant", '"sack"')]).text
    assert "[new Agent/TCP/Sack1]" in sack and "[new Agent/TCPSink/Sack1]" in sack
    westwood = script_of(STRING, [("tcp.cc", '"westwood"')]).text
    assert "[new Agent/TCP/Linux]" in westwood and '"$tcp_ select_ca westwood"' in westwood
    dsr = script_of(STRING, [("wlans.manet.routing", '{ protocol = "dsr", preset = "ns2" }')]).text
    assert "-adhocRouting DSR" in dsr and "-ifqType CMUPriQueue" in dsr
    string = script_of(STRING).text
    assert "Mac/802_11 set dataRate_ 2Mb" in string and "Mac/802_11 set RTSThreshold_ 0" in string
    assert "$node_(1) set X_ 200" in string and "-adhocRouting AODV" in string
    mixed = script_of(MIXED).text
    assert "set node_(0) [$ns_ node 1.0.0] ;# bs" in mixed and "set n(0) [$ns_ node 0.0.0] ;# fh" in mixed
    assert "$node_(1) base-station [AddrParams addr2id [$node_(0) node-addr]]" in mixed
    assert '$ns_ at 5 "$em_(1,in) set rate_ 1"' in mixed and '$ns_ at 10 "$em_(1,out) set rate_ 0"' in mixed


def test_every_row_of_the_validation_table_translates() -> None:
    """validation/ns2/run.py builds each row from the experiments' builders; none may be refused."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ns2_rows", ROOT / "validation" / "ns2" / "run.py")
    assert spec is not None and spec.loader is not None
    rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows)
    for name, build in rows.ROWS.items():
        script = script_of(build())
        assert script.flows, name


def test_an_initial_ssthresh_is_carried_only_as_the_receive_window_ns2_starts_it_at() -> None:
    """ns-2.35's Agent/TCP starts ssthresh_ at window_: a flow whose initial_ssthresh equals its rcv_buf
    translates (the script sets window_ only); any other value is refused naming the field."""
    ex = ROOT / "examples" / "wired_bottleneck.toml"
    same = script_of(ex, [("tcp.rcv_buf", "100000B"), ("tcp.initial_ssthresh", "100000B")])
    assert "window_ 68" in same.text and "ssthresh_" not in same.text
    with pytest.raises(Untranslatable, match=r"tcp\.initial_ssthresh"):
        script_of(ex, [("tcp.rcv_buf", "100000B"), ("tcp.initial_ssthresh", "50000B")])
