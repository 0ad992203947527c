"""The event trace (``[trace] events``, docs/trace.md): Parquet and ``result.events``, the ns-2
format read by an awk script written for ns-2 traces (tests/ns2/trace_counts.awk) giving the
summary's numbers, and its lines set beside a trace the installed ns-2.35 writes for the same
2-hop network (same columns per packet type, event letters, layers and drop reasons)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

import tcplab
from tcplab.validate.ns2.command import prepare
from tcplab.validate.ns2.trace import REASONS, parse

AWK = ROOT / "tests" / "ns2" / "trace_counts.awk"

#: A 2-hop AODV string with ns-2's 802.11 preset, frame errors at the relay and a CBR flow that
#: overflows the interface queues: retry-limit, queue, collision, frame-error and link-break drops.
TWO_HOP: dict[str, Any] = {
    "name": "two_hop",
    "duration": "20s",
    "tcp": {"variant": "newreno", "mss": 1000, "rcv_buf": "20000B"},
    "nodes": [{"name": "n0"}, {"name": "n1"}, {"name": "n2"}],
    "wlans": [{
        "name": "manet", "mode": "adhoc", "phy": "ns2_dsss", "rate": "2Mbps",
        "propagation": {"model": "two_ray_ground"}, "routing": {"protocol": "aodv", "preset": "ns2"},
        "stations": [{"node": "n0", "position": ["0m", "0m"]},
                     {"node": "n1", "position": ["200m", "0m"], "loss": {"model": "bernoulli", "p": 0.1}},
                     {"node": "n2", "position": ["400m", "0m"]}],
    }],
    "flows": [{"name": "f", "app": "bulk", "client": "n2", "server": "n0"},
              {"name": "u", "app": "cbr", "src": "n0", "dst": "n2", "rate": "600kbps", "packet_size": "512B",
               "start": "5s", "stop": "8s"}],
}


def _awk(trace: Path, src: int, dst: int) -> tuple[tuple[int, int, float], Counter[str]]:
    out = subprocess.run(["awk", "-v", f"src={src}", "-v", f"dst={dst}", "-f", str(AWK), str(trace)],
                         check=True, capture_output=True, text=True).stdout
    drops: Counter[str] = Counter()
    received = (0, 0, 0.0)
    for line in out.splitlines():
        tok = line.split()
        if tok[0] == "received":
            received = (int(tok[1]), int(tok[2]), float(tok[3]))
        else:
            drops[f"{tok[1]} {tok[2]}"] = int(tok[3])
    return received, drops


@pytest.fixture(scope="module")
def ns2_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[tcplab.Result, Path]:
    d = tmp_path_factory.mktemp("events")
    trace = d / "two_hop.tr"
    return tcplab.run(TWO_HOP, seed=1, trace_events=trace), trace


def test_an_awk_script_for_ns2_traces_gives_the_summarys_numbers(ns2_run: tuple[tcplab.Result, Path]) -> None:
    r, trace = ns2_run
    s = r.summary
    (packets, nbytes, thr), drops = _awk(trace, src=0, dst=2)
    f = s["flows"][0]  # server n0 -> client n2: the data direction's flow statistics
    u = s["cbr"][0]
    assert packets == f["packets_received"] + u["packets_received"]
    assert nbytes == f["ip_bytes_received"] + u["ip_bytes_received"]
    # The TCP flow alone, through the same script, is its IP throughput.
    tcp_only = trace.with_name("tcp_only.tr")
    tcp_only.write_text("".join(line for line in trace.open() if " cbr " not in line))
    (_, tcp_bytes, tcp_thr), _ = _awk(tcp_only, src=0, dst=2)
    assert tcp_bytes == f["ip_bytes_received"]
    assert tcp_thr == pytest.approx(f["ip_throughput_bps"], rel=1e-6)
    assert thr > 0
    wifi = lambda k: sum(w[k] for w in s["wifi"])  # noqa: E731
    nodes = lambda k: sum(n[k] for n in s["nodes"])  # noqa: E731
    assert drops["IFQ ---"] == wifi("drops_queue") > 0
    assert drops["MAC RET"] == wifi("drops_retry_limit") > 0
    assert drops["MAC COL"] == wifi("collisions") > 0
    assert drops["MAC ERR"] == wifi("frame_errors") > 0
    assert drops["RTR CBK"] == nodes("drops_link_broken")
    assert drops["RTR NRTE"] == nodes("drops_no_route") + nodes("drops_discovery_failed")
    assert drops["RTR TTL"] == nodes("drops_ttl")
    assert sum(drops.values()) == sum(
        [wifi("drops_queue"), wifi("drops_retry_limit"), wifi("collisions"), wifi("frame_errors"),
         wifi("drops_outage"), nodes("drops_link_broken"), nodes("drops_no_route"), nodes("drops_discovery_failed"),
         nodes("drops_ttl"), nodes("drops_buffer_full"), nodes("drops_buffer_timeout")])


def _shape(line: str) -> tuple[int, ...]:
    """Where a line's brackets open and close among its tokens: its column layout."""
    return tuple(i for i, t in enumerate(line.split()) if t.startswith("[") or t.endswith("]"))


@pytest.mark.skipif(shutil.which("ns") is None and not os.environ.get("CI"), reason="ns-2.35 is installed by `make test`")
def test_lines_are_those_of_a_trace_ns2_writes_for_the_same_network(
        ns2_run: tuple[tcplab.Result, Path], tmp_path: Path) -> None:
    r, ours = ns2_run
    script = prepare(json.dumps(TWO_HOP), "json", [], ROOT)[2]
    (tmp_path / "two_hop.tcl").write_text(script.text)
    real = tmp_path / "real.tr"
    subprocess.run(["ns", "two_hop.tcl", "1", str(real)], cwd=tmp_path, check=True, capture_output=True,
                   timeout=600)

    def table(path: Path) -> tuple[dict[tuple[str, str, str], tuple[int, ...]], set[str]]:
        shapes: dict[tuple[str, str, str], tuple[int, ...]] = {}
        reasons = set()
        for line in path.open():
            tok = line.split()
            if len(tok) < 8 or not tok[2].startswith("_"):
                continue  # ns-2's own TCP variable lines
            key = (tok[0], tok[3], tok[6])
            shapes.setdefault(key, _shape(line))
            reasons.add(tok[4])
        return shapes, reasons

    ns2_shapes, ns2_reasons = table(real)
    our_shapes, our_reasons = table(ours)
    letters = {k[0] for k in our_shapes}
    layers = {k[1] for k in our_shapes}
    assert letters == {"s", "r", "f", "D"} and letters <= {k[0] for k in ns2_shapes}
    assert layers == {"AGT", "RTR", "IFQ", "MAC"} and layers <= {k[1] for k in ns2_shapes}
    assert our_reasons <= set(REASONS) | {"---", "TOUT"}, our_reasons
    assert {"---", "RET", "COL", "ERR"} <= our_reasons
    # Every (event, layer, type) both traces have is laid out in the same columns.
    common = set(ns2_shapes) & set(our_shapes)
    assert len(common) >= 15, sorted(common)
    for key in sorted(common):
        assert our_shapes[key] == ns2_shapes[key], (key, our_shapes[key], ns2_shapes[key])
    # validate-ns2's reader of ns-2 traces reads ours: its network counters are our summary's.
    parsed = parse(ours, script.flows, script.wireless)
    wifi = lambda k: sum(w[k] for w in r.summary["wifi"])  # noqa: E731
    assert parsed.net.ifq_drops == wifi("drops_queue")
    assert parsed.net.mac_retry_drops == wifi("drops_retry_limit")
    assert sum(parsed.net.routing_sent.values()) == sum(n["control_packets"] for n in r.summary["nodes"])


def test_parquet_and_result_events(tmp_path: Path) -> None:
    path = tmp_path / "ev.parquet"
    sc = copy.deepcopy(TWO_HOP)
    sc["duration"] = "3s"
    sc["trace"] = {"events": {"layers": ["agt", "rtr"], "nodes": ["n1", "n2"]}}
    r = tcplab.run(sc, seed=1, trace_events=path)
    import polars as pl

    df = pl.read_parquet(path)
    assert df.equals(r.events)
    assert set(df["layer"].unique()) == {"agt", "rtr"}
    assert set(df["node"].unique()) == {"n1", "n2"}
    fwd = df.filter((pl.col("event") == "forward") & (pl.col("kind") == "tcp"))
    assert fwd.height > 0 and set(fwd["node"]) == {"n1"}
    # The relay forwards the server's segments to the client, the client's request to the server.
    assert (fwd["dst"] == fwd["peer"]).all() and set(fwd["peer"]) == {"n0", "n2"}
    got = df.filter((pl.col("event") == "receive") & (pl.col("layer") == "agt") & (pl.col("flow") == "f"))
    assert got.height == r.summary["flows"][0]["packets_received"] > 0  # the data direction, at n2
    # Without a trace nothing is recorded.
    assert tcplab.run(sc | {"trace": {}}, seed=1).raw_events is None


def test_cli_writes_the_trace_and_refuses_a_bad_path(tmp_path: Path) -> None:
    sc = copy.deepcopy(TWO_HOP)
    sc["duration"] = "2s"
    scen = tmp_path / "s.json"
    scen.write_text(json.dumps(sc))
    out = tmp_path / "e.parquet"
    proc = run_cli("run", str(scen), "--trace-events", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    import polars as pl

    assert pl.read_parquet(out).height > 100
    tr = tmp_path / "e.tr"
    proc = run_cli("run", str(scen), "--trace-events", str(tr), "--json")
    assert proc.returncode == 0, proc.stderr
    assert tr.read_text().startswith(("s ", "r ", "D "))
    missing = tmp_path / "nowhere" / "e.parquet"
    proc = run_cli("run", str(scen), "--trace-events", str(missing))
    assert proc.returncode == 2 and "--trace-events" in proc.stderr and "Traceback" not in proc.stderr
    assert not missing.parent.exists()
    proc = run_cli("run", str(scen), "--set", 'trace.events={ layers = ["phy"] }')
    assert proc.returncode == 2 and "trace.events.layers" in proc.stderr
    proc = run_cli("run", str(scen), "--set", 'trace.events={ nodes = ["n9"] }')
    assert proc.returncode == 2 and "trace.events.nodes[0]" in proc.stderr and "n9" in proc.stderr


def test_the_cores_parquet_file_is_the_frame_polars_wrote(tmp_path: Path) -> None:
    """The core writes the Parquet trace while the run goes, one row group per batch of 131,072 rows,
    and keeps no rows; read with polars, the file is the frame the Python front wrote with polars
    before (``events_frame`` of the rows a run keeps in memory, written by ``write_parquet``): the
    same columns, types (each ``Enum``'s categories included), values and nulls."""
    import polars as pl
    import pyarrow.parquet as pq
    from polars.testing import assert_frame_equal

    scenario = ROOT / "examples" / "adhoc_string.toml"
    core = tmp_path / "core.parquet"
    streamed = tcplab.run(scenario, seed=1, overrides={"duration": "60s"}, trace_events=core)
    kept = tcplab.run(scenario, seed=1, overrides={"duration": "60s", "trace.events": "{}"})
    assert "columns" not in streamed.raw_events and "columns" in kept.raw_events
    by_polars = tmp_path / "polars.parquet"
    tcplab.events.write_parquet(kept.events, by_polars)
    got = pl.read_parquet(core)
    assert_frame_equal(got, pl.read_parquet(by_polars))
    assert_frame_equal(got, kept.events)
    assert_frame_equal(streamed.events, got)
    assert got.height == streamed.raw_events["rows"] > 131_072
    assert pq.ParquetFile(core).metadata.num_row_groups == -(-got.height // 131_072)
    assert got.schema["node"] == pl.Enum([f"n{i}" for i in range(8)])
    assert got["seq"].null_count() > 0 and got["reason"].null_count() > 0


def test_a_run_that_fails_leaves_no_trace_file(tmp_path: Path) -> None:
    """The core writes a temporary name beside the file; a run that stops with an error (here its
    event limit) removes it and leaves nothing."""
    out = tmp_path / "ev.parquet"
    with pytest.raises(tcplab.SimulationError):
        tcplab.run(TWO_HOP | {"max_events": 5000}, seed=1, trace_events=out)
    assert list(tmp_path.iterdir()) == []


def test_the_ns2_text_keeps_the_layer_and_node_selection(tmp_path: Path) -> None:
    """The text form, streamed by the core, holds only the chosen layers and nodes."""
    sc = copy.deepcopy(TWO_HOP)
    sc["duration"] = "3s"
    sc["trace"] = {"events": {"layers": ["agt", "mac"], "nodes": ["n1", "n2"], "format": "ns2"}}
    out = tmp_path / "sel.txt"
    tcplab.run(sc, seed=1, trace_events=out)
    lines = out.read_text().splitlines()
    assert len(lines) > 100
    assert {ln.split()[2] for ln in lines} == {"_1_", "_2_"}
    assert {ln.split()[3] for ln in lines} == {"AGT", "MAC"}
