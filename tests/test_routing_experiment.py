"""The routing experiment (issue 16): interface, networks and senders, the per-run metrics (the new
route-discovery latency counter among them), and the finding checks (each holds on constructed
numbers and fails on a counter-example)."""

from __future__ import annotations

import copy
import math

import pytest
from conftest import holds_then_fails

import tcplab
from tcplab.experiments import all_experiments
from tcplab.experiments.routing import experiment as exp
from tcplab.experiments.routing import findings as rf
from tcplab.experiments.routing import scenario as sc
from tcplab.stats import HOLDS


def test_registered_with_the_interface() -> None:
    assert all_experiments()["routing"] is exp
    refs = len(sc.PROTOCOLS) * len(sc.REF_HOPS)
    for quick in (True, False):
        sweeps = exp.sweeps(quick)
        assert len({s.name for s in sweeps}) == len(sweeps) == 6 + 3 + refs
        # The comparison's three senders; the ELFN check's two (three over DSR); NewReno alone on
        # the references.
        elfn = [len(sc.elfn_senders(p)) for p in sc.PROTOCOLS]
        assert [len(s.cells) for s in sweeps] == [3] * 6 + elfn + [1] * refs
        assert sorted(elfn) == [2, 2, 3]


def test_networks_and_senders() -> None:
    s = exp.scenario("string", "dsdv", quick=True)
    assert len(s["nodes"]) == 8 and s["wlans"][0]["routing"]["protocol"] == "dsdv"
    (f,) = s["flows"]
    assert (f["app"], f["size"], f["start"]) == ("bulk_download", "300000B", f"{exp.WARMUP_S}s")
    m = exp.scenario("mobile", "dsr", quick=False)
    movers = [st for st in m["wlans"][0]["stations"] if "mobility" in st]
    assert len(m["nodes"]) == 50 and len(movers) == 44
    assert (movers[0]["mobility"]["min_speed"], movers[0]["mobility"]["max_speed"]) == ("1m/s", "20m/s")
    assert m["wlans"][0]["routing"] == {"protocol": "dsr", "preset": "ns2", "reply_from_cache": False}
    # S1 rides only where the protocol carries it; the cell names its sender back.
    for p in ("aodv", "dsr"):
        assert sc.sender_cell("pgy", p)["wlans.manet.routing.ack_piggyback"] is True
    assert sc.sender_cell("pgy", "dsdv") == {"tcp.extensions": ["dup_count"]}
    for p in sc.PROTOCOLS:
        senders = (*sc.SENDERS, *sc.elfn_senders(p))
        assert [sc.sender_of(sc.sender_cell(s, p)) for s in senders] == list(senders)
    # Over DSR the ELFN check also runs the form whose DSR tells the sender of every Route Error.
    assert sc.elfn_senders("dsr")[-1] == "elfn_every" and "elfn_every" not in sc.elfn_senders("aodv")
    assert sc.sender_cell("elfn_every", "dsr")["wlans.manet.routing.notify_every_error"] is True


def test_a_short_string_run_gives_every_metric() -> None:
    doc = exp.scenario("string", "dsr", quick=True)
    doc["duration"] = "160s"
    m = exp.run_metrics(tcplab.run(doc, seed=1, overrides=sc.sender_cell("newreno", "dsr")).summary)
    assert m["completed"] == 1.0 and m["bytes"] == 300_000
    assert m["ctrl_packets"] > 0 and m["ctrl_kbytes"] > 0
    # The route-discovery latency counter: at least one discovery, each longer than one hop.
    assert m["discoveries"] >= 1 and 1.0 < m["discovery_ms"] < 10_000


SEEDS = range(1, 6)


def _run(kbps: float, pkts: float, kb: float, s: int, ok: bool = True) -> dict:
    j = 1 + 0.01 * (s - 3)
    return {"ok": ok, "error": "", "kbps": kbps * j, "ctrl_packets": pkts * j, "ctrl_kbytes": kb * j,
            "bytes": 1000.0, "completed": 1.0}


def _data() -> dict:
    # Protocol -> (kbps NewReno, kbps ELFN, control packets, control kB); overhead DSR < DSDV < AODV.
    shape = {"aodv": (100, 110, 600, 30), "dsr": (80, 120, 150, 8), "dsdv": (60, 60, 450, 22)}
    return {net: {p: {s: {seed: _run(nr if s != "elfn" else el, pk, kb, seed) for seed in SEEDS}
                      for s in sc.SENDERS}
                  for p, (nr, el, pk, kb) in shape.items()}
            for net in ("string", "mobile")}


def _elfn() -> dict:
    # T_7 = 180, T_8 = 175 kb/s; each seed's path: 200 s at 7 hops, 100 s at 8, none partitioned
    # (expected 178.3 kb/s); NewReno 60, ELFN 120 kb/s (both forms; the finding judges DSR's
    # "elfn_every"): ELFN recovers about half of what is lost.
    def run(kbps: float, s: int) -> dict:
        return {"ok": True, "error": "", "kbps": kbps * (1 + 0.01 * (s - 3)), "path_s": {7: 200.0, 8: 100.0},
                "partitioned_s": 0.0}

    ref = {7: {1: {"ok": True, "kbps": 180.0}}, 8: {1: {"ok": True, "kbps": 175.0}}}
    return {p: rf.ElfnRuns(runs={"newreno": {s: run(60, s) for s in SEEDS}}
                           | {e: {s: run(120, s) for s in SEEDS} for e in sc.elfn_senders(p)[1:]},
                           ref=copy.deepcopy(ref))
            for p in sc.PROTOCOLS}


def _verdict(fragment: str, data: dict, elfn: dict | None = None) -> str:
    (f,) = [f for f in rf.findings(data, 1000, _elfn() if elfn is None else elfn) if fragment in f.text]
    return f.verdict


def _set(data: dict, net: str, proto: str, sender: str, metric: str, k: float) -> None:
    for r in data[net][proto][sender].values():
        r[metric] *= k


COUNTER = {
    "deliver every byte": lambda d: d["string"]["dsdv"]["elfn"][2].update(bytes=999.0),
    "Routing overhead": lambda d: _set(d, "mobile", "dsdv", "newreno", "ctrl_packets", 2.0),
    "keeps data flowing": lambda d: _set(d, "mobile", "dsdv", "newreno", "kbps", 0.0),
    "No application byte": lambda d: d["mobile"]["aodv"]["pgy"][1].update(ok=False, error="conservation"),
}
#: Counter-examples on the ELFN check's runs: ELFN below NewReno; a reference string's run failed.
ELFN_COUNTER = {
    "ELFN over DSR": lambda e: [r.update(kbps=r["kbps"] * 0.4) for r in e["dsr"].runs["elfn_every"].values()],
    "No application byte": lambda e: e["dsdv"].ref[8][1].update(ok=False, error="conservation"),
}


def test_every_finding_holds_on_constructed_numbers() -> None:
    verdicts = {f.text: f.verdict for f in rf.findings(_data(), 1000, _elfn())}
    assert len(verdicts) == len(COUNTER) + 1 and set(verdicts.values()) == {HOLDS}, verdicts


@pytest.mark.parametrize("fragment", sorted(COUNTER))
def test_each_finding_fails_on_a_counter_example(fragment: str) -> None:
    holds_then_fails(lambda d: _verdict(fragment, d), (_data(),), COUNTER[fragment])


@pytest.mark.parametrize("fragment", sorted(ELFN_COUNTER))
def test_each_finding_fails_on_a_counter_example_in_the_elfn_runs(fragment: str) -> None:
    holds_then_fails(lambda e: _verdict(fragment, _data(), e), (_elfn(),), ELFN_COUNTER[fragment])


def test_expected_throughput_and_the_share_recovered() -> None:
    e = _elfn()["dsr"]
    r = e.runs["newreno"][3]
    r["path_s"], r["partitioned_s"] = {7: 150.0, 8: 90.0}, 60.0
    # Holland & Vaidya: Σ t_i·T_i over the flow's life, nothing while partitioned.
    want = (150 * 180 + 90 * 175) / 300
    assert rf.expected_kbps(e)[3] == pytest.approx(want)
    assert rf.share_recovered(e)[3] == pytest.approx((120 - 60) / (want - 60))
    e.runs["elfn_every"][3]["kbps"] = 90.0
    assert rf.share_recovered(e, "elfn_every")[3] == pytest.approx((90 - 60) / (want - 60))
    # A path length no reference string measured leaves the seed out, and is named.
    r["path_s"][9] = 1.0
    assert 3 not in rf.expected_kbps(e) and rf.uncovered(e) == {9}
    (f,) = [f for f in rf.findings(_data(), 1000, {"dsr": e}) if "ELFN" in f.text]
    assert "without a reference string" in f.detail and "[9]" in f.detail


def test_no_runs_is_not_a_pass() -> None:
    empty = copy.deepcopy(_data())
    for per in empty.values():
        for senders in per.values():
            for seeds in senders.values():
                seeds.clear()
    assert all(f.verdict != HOLDS for f in rf.findings(empty, 1000, {}))


def test_the_single_flow_logs_its_path_over_its_whole_life() -> None:
    doc = exp.scenario("single", "dsr", quick=True)
    doc["duration"] = f"{exp.WARMUP_S + 20}s"
    m = exp.run_metrics(tcplab.run(doc, seed=1, overrides=sc.sender_cell("newreno", "dsr")).summary)
    # The endpoints are 1500 m apart: at least 6 hops of 250 m; the flow lives 20 s.
    assert m["path_s"] and min(m["path_s"]) >= 6
    assert sum(m["path_s"].values()) + m["partitioned_s"] == pytest.approx(20.0)


def test_a_run_without_discoveries_has_no_latency() -> None:
    summary = {"flows": [], "nodes": [{"control_packets": 3, "control_bytes": 90, "discoveries_completed": 0,
                                      "discovery_latency_s": 0.0}]}
    assert math.isnan(exp.run_metrics(summary)["discovery_ms"])


def test_the_discovery_latency_is_read_in_seconds_and_from_older_stored_summaries() -> None:
    node = {"control_packets": 3, "control_bytes": 90, "discoveries_completed": 2}
    new = {"flows": [], "nodes": [node | {"discovery_latency_s": 0.05}]}
    old = {"flows": [], "nodes": [node | {"discovery_latency_ns": 50_000_000}]}
    assert exp.run_metrics(new)["discovery_ms"] == pytest.approx(25.0)
    assert exp.run_metrics(old)["discovery_ms"] == pytest.approx(25.0)
