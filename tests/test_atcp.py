"""The atcp experiment (Sridhara & Subramanya, seed 003): interface, network, movement, and the
finding checks (each holds on paper-like numbers and fails on a counter-example)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import holds_then_fails

import tcplab
from tcplab.experiments import all_experiments
from tcplab.experiments.atcp import experiment as exp
from tcplab.experiments.atcp import findings as af
from tcplab.experiments.atcp import scenario as sc
from tcplab.experiments.base import against_paper
from tcplab.stats import DIRECTION_ONLY, FAILS, HOLDS, NOT_REPRODUCED, PAPER_CONTRADICTS, REPRODUCED


def test_registered_with_the_interface() -> None:
    assert all_experiments()["atcp"] is exp
    names = [s.name for s in exp.sweeps(True)]
    assert len(names) == len(set(names))
    assert exp.PUBLISHED[(exp.CASES[3].label, "atcp_mod")].value == 92.1
    # Every sender is one cell, and the cells map back to their senders.
    assert [sc.variant_of(c) for c in sc.variant_cells(exp.ALL)] == list(exp.ALL)


def test_out_of_range_intervals_follow_the_walk() -> None:
    # 50 m → 400 m from 20 s to 55 s (10 m/s), back from 85 s to 120 s: beyond 250 m from 40 s to 100 s.
    assert sc.out_of_range(sc.DISCONNECT, 0.0) == [pytest.approx((40.0, 100.0))]
    walk = sc._walk(*sc.WALK_2HOP, 200.0, sc.WALK_2HOP_START)
    gone = sc.out_of_range([(t, 200.0 + d) for t, d in walk], 200.0)
    assert gone[0] == pytest.approx((20 / 3, 20 / 3 + 24 / 3))
    assert all(b - a == pytest.approx(8.0) for a, b in gone)


def test_the_movement_and_the_losses_are_the_same_for_every_sender() -> None:
    docs = []
    for v in exp.ALL:
        d = sc.scenario(hops=2, size_mb=1, motion="mobile")
        d["tcp"] |= sc.VARIANTS[v]
        docs.append(d)
    assert all(d["wlans"] == docs[0]["wlans"] for d in docs)
    r = docs[0]["wlans"][0]["stations"][2]
    assert r["mobility"]["model"] == "waypoints" and r["outage"]["intervals"] and r["loss"]["mean"] == 0.02


def test_bad_extension_parameters_are_named() -> None:
    d = sc.scenario(hops=1, size_mb=1, motion="static")
    d["tcp"] |= {"extensions": ["atcp"], "atcp": {"timeout_threshold": 500}}
    with pytest.raises(tcplab.ScenarioError, match=r"tcp\.atcp\.timeout_threshold.*allowed 0"):
        tcplab.run(d, seed=1)
    d["tcp"]["atcp"] = {"loss_retransmit": "everything"}
    with pytest.raises(tcplab.ScenarioError, match="loss_retransmit"):
        tcplab.run(d, seed=1)
    d["tcp"] |= {"extensions": ["atcp_plus"], "atcp": {}}
    with pytest.raises(tcplab.ScenarioError, match="extensions"):
        tcplab.run(d, seed=1)


def test_red_marks_on_the_shared_relay() -> None:
    d = sc.congested()
    d["duration"] = "15s"
    d["tcp"] |= sc.VARIANTS["atcp_orig"]
    r = tcplab.run(d, seed=1)
    relay = next(w for w in r.summary["wifi"] if w["node"] == "m")
    # RFC 3168 end to end: the relay marks CE, the senders cut their windows on the echoes.
    assert relay["ecn_marks"] > 0
    assert all(f["bytes_delivered"] > 0 for f in r.summary["flows"])


def _times(base: float, mod: float, n: int = 4) -> dict[str, dict[int, float]]:
    return {"base": {s: base + 0.1 * s for s in range(n)}, "atcp_mod": {s: mod + 0.1 * s for s in range(n)}}


def _finding(fs: list, fragment: str):
    (f,) = [f for f in fs if fragment in f.text]
    return f


def test_gain_finding_holds_inside_the_printed_range_and_fails_outside_it() -> None:
    # 39.8 % walking and 29.3 % (not the paper's 23.7 %) disconnected: inside 25–50 %.
    times: dict[str, Any] = {"walk": _times(153.0, 92.1), "off": _times(198.0, 140.0)}
    motion = {"walk": "mobile", "off": "disconnect"}

    def verdict(t: dict[str, Any]) -> str:
        return _finding(af.findings(t, motion, {}, [("x", "base", True)]), "25–50 % under mobility and disconnection").verdict

    def counter(t: dict[str, Any]) -> None:
        t["walk"] = _times(153.0, 150.0)

    holds_then_fails(verdict, (times,), counter)
    # The ceiling counts: a 60 % cut is outside "25 – 50 %" (the old rule had no ceiling).
    times["walk"] = _times(153.0, 61.2)
    assert verdict(times) == FAILS


def test_readings_the_papers_own_table_contradicts_are_marked_not_counted() -> None:
    motion = {c.label: c.motion for c in exp.CASES}
    paper = af.findings(exp.paper_times(), motion, {}, [], exp.published_gain())
    # Our data equal to the paper's: the contradicted readings are flagged, not holding or failing.
    ours = against_paper(af.findings(exp.paper_times(), motion, {}, [], exp.published_gain()), paper)
    flagged = {f.text for f in ours if f.verdict == PAPER_CONTRADICTS}
    assert flagged == {
        "Modified ATCP shortens every trial of Table 2 by 25–50 % (§9)",
        "Modified ATCP shortens transfers by 25–50 % under mobility and disconnection (§9, the narrower reading)",
        "Static: modified ATCP and base TCP take similar times (the issue's reading of Table 2)",
    }
    assert "8.8" in _finding(ours, "every trial of Table 2").detail
    assert _finding(ours, "faster than base TCP in every trial").verdict == HOLDS
    assert _finding(ours, "Each trial's reduction is the paper's").verdict == REPRODUCED


def test_each_trials_reduction_is_a_magnitude() -> None:
    motion = {c.label: c.motion for c in exp.CASES}
    t = exp.paper_times()
    walk = "1 hop, receiver walking, 30 MB"
    t[walk] = _times(153.0, 140.0)  # 8.5 %: faster, but not the paper's 39.8 %
    assert _finding(af.findings(t, motion, {}, [], exp.published_gain()), "reduction is the paper's").verdict == DIRECTION_ONLY
    t[walk] = _times(153.0, 160.0)  # slower: not even the direction
    assert _finding(af.findings(t, motion, {}, [], exp.published_gain()), "reduction is the paper's").verdict == NOT_REPRODUCED


def test_congestion_finding_needs_more_retransmissions_and_less_goodput() -> None:
    cong: dict[str, Any] = {
        "atcp_orig": {"retransmissions": {1: 2000.0, 2: 2300.0, 3: 2100.0}, "goodput": {1: 0.5, 2: 0.6, 3: 0.55}},
        "atcp_mod": {"retransmissions": {1: 200.0, 2: 250.0, 3: 230.0}, "goodput": {1: 0.9, 2: 1.0, 3: 0.95}},
    }

    def verdict(c: dict[str, Any]) -> str:
        return _finding(af.findings({}, {}, c, []), "congest a shared relay").verdict

    def counter(c: dict[str, Any]) -> None:
        c["atcp_orig"]["goodput"] = {1: 1.5, 2: 1.6, 3: 1.55}

    holds_then_fails(verdict, (cong,), counter)


def test_congestion_runs_are_paired_by_seed() -> None:
    # Modified ATCP lost seed 1's run.  Per seed it retransmits 100 fewer segments and delivers 0.1 Mb/s
    # more; paired by position (seed 2 with seed 1, ...) original would look better in both.
    cong: dict[str, Any] = {
        "atcp_orig": {"retransmissions": {1: 500.0, 2: 1000.0, 3: 1500.0, 4: 2000.0},
                      "goodput": {1: 2.0, 2: 1.5, 3: 1.0, 4: 0.5}},
        "atcp_mod": {"retransmissions": {2: 900.0, 3: 1400.0, 4: 1900.0}, "goodput": {2: 1.6, 3: 1.1, 4: 0.6}},
    }
    assert _finding(af.findings({}, {}, cong, []), "congest a shared relay").verdict == HOLDS


def test_exactness_finding_fails_on_one_short_run() -> None:
    def verdict(runs: list[tuple[str, str, bool]]) -> str:
        return _finding(af.findings({}, {}, {}, runs), "No application byte").verdict

    holds_then_fails(verdict, ([("c", "base", True), ("c", "elfn", True)],),
                     lambda runs: runs.append(("c", "sack", False)))


def test_the_mobile_and_static_gains_are_paired_by_seed() -> None:
    # Static reductions 10, 20, 30 % (seeds 1-3); the walking case lost seed 1 (base time 0, no reduction)
    # and reduces 19 and 29 % on seeds 2 and 3: 1 point below static on the same seed, so "larger under
    # mobility" fails.  Paired by position (19 with seed 1's 10, 29 with seed 2's 20) it would hold.
    times = {"static": {"base": {1: 10.0, 2: 10.0, 3: 10.0}, "atcp_mod": {1: 9.0, 2: 8.0, 3: 7.0}},
             "walk": {"base": {1: 0.0, 2: 10.0, 3: 10.0}, "atcp_mod": {1: 5.0, 2: 8.1, 3: 7.1}}}
    f = _finding(af.findings(times, {"static": "static", "walk": "walking"}, {}, []), "larger under mobility")
    assert f.verdict == FAILS, f.detail
