"""The tcp-pgy experiment (Kim & Yoo, seed 002): interface, networks, the per-flow loss and S1
counters, and the finding checks (each holds on paper-like numbers and fails on a counter-example)."""

from __future__ import annotations

import pytest
from conftest import holds_then_fails
import tcplab
from tcplab.experiments import all_experiments
from tcplab.experiments.tcp_pgy import experiment as exp
from tcplab.experiments.tcp_pgy import findings as pf
from tcplab.experiments.tcp_pgy import scenario as sc
from tcplab.stats import DIRECTION_ONLY, FAILS, HOLDS, NOT_CHECKED, NOT_REPRODUCED, REPRODUCED


def test_registered_with_the_interface() -> None:
    assert all_experiments()["tcp-pgy"] is exp
    for quick in (True, False):
        names = [s.name for s in exp.sweeps(quick)]
        assert len(names) == len(set(names))
    assert {p.hops for p in exp.string_points(False)} >= {4, 14}
    assert [p.flows for p in exp.grid_points(False)] == [2, 4, 6, 8, 10]
    assert exp.PUBLISHED[("grid_gain", 6)].value == 58.4


def test_networks_follow_table_1() -> None:
    s = sc.string(4)
    assert s["duration"] == "600s" and len(s["nodes"]) == 5
    w = s["wlans"][0]
    assert (w["phy"], w["rate"], w["queue"]) == ("ns2_dsss", "2Mbps", 50)
    assert w["routing"] == {"protocol": "aodv", "preset": "ns2", "gratuitous_rrep": True}
    assert [st["position"][0] for st in w["stations"]] == ["0m", "200m", "400m", "600m", "800m"]
    g = sc.grid(10)
    assert len(g["nodes"]) == 49 and len(g["flows"]) == 10
    # Every grid flow crosses 6 hops along a row or a column, and no two share endpoints.
    ends = [(f["server"], f["client"]) for f in g["flows"]]
    assert len({e for pair in ends for e in pair}) == 20
    r = sc.random(5, 20.0)
    movers = [st for st in r["wlans"][0]["stations"] if "mobility" in st]
    assert len(r["nodes"]) == 50 and len(movers) == 40
    assert movers[0]["mobility"]["min_speed"] == "2m/s"
    cells = sc.variant_cells(("newreno", "pgy"))
    assert [sc.variant_of(c) for c in cells] == ["newreno", "pgy"]


def test_s1_counters_and_losses_reach_the_summary() -> None:
    s = sc.string(7, duration="120s")
    pgy = tcplab.run(s, seed=2, overrides=sc.variant_cells(("pgy",))[0]).summary["flows"][0]
    nr = tcplab.run(s, seed=2, overrides=sc.variant_cells(("newreno",))[0]).summary["flows"][0]
    assert nr["acks_learned"] == 0 and "acks_learned_at" not in nr
    assert pgy["acks_learned"] == len(pgy["acks_learned_at"]) > 0
    assert all(0 < t < 120 for t, _ in pgy["acks_learned_at"])
    assert nr["data_lost"] > 0 and nr["acks_lost"] > 0


SEEDS = range(1, 7)


def _run(kbps: float, spurious: float, timeouts: float, data: float, acks: float, s: int) -> dict[str, float]:
    j = 1 + 0.01 * (s - 3)
    return {"kbps": kbps * j, "spurious": spurious * j, "timeouts": timeouts * j, "fast": 10.0,
            "data_lost": data * j, "acks_lost": acks * j, "learned": 0.0}


def _point(nr: tuple, pgy: tuple, s1: tuple | None = None, s2: tuple | None = None) -> dict:
    out = {"newreno": {s: _run(*nr, s) for s in SEEDS}, "pgy": {s: _run(*pgy, s) for s in SEEDS}}
    out |= {"s1": {s: _run(*s1, s) for s in SEEDS}} if s1 else {}
    out |= {"s2": {s: _run(*s2, s) for s in SEEDS}} if s2 else {}
    return out


def _data() -> tuple:
    # Paper-like: ACK loss comparable (larger beyond 10 hops), TCP-pgy better everywhere.
    strings = {h: _point((200 - 10 * h, 100, 50, 100, 90 if h <= 10 else 130), (220 - 10 * h, 40, 45, 100, 90),
                         (210 - 10 * h, 45, 50, 100, 90), (205 - 10 * h, 95, 40, 100, 90)) for h in (4, 7, 12)}
    multi = {3: _point((100, 100, 50, 200, 150), (110, 40, 45, 200, 150))}
    grid = {n: _point((100 + n, 300, 50 + n, 100, 90), (130 + n, 100, 50, 100, 90)) for n in (2, 10)}
    rand = {"5 flows, 5 m/s": _point((60, 50, 80, 100, 90), (90, 30, 60, 100, 90))}
    return strings, multi, grid, rand


def _verdict(fragment: str, strings: dict, multi: dict, grid: dict, rand: dict) -> str:
    (f,) = [f for f in pf.findings(strings, multi, grid, rand, [], 10) if fragment in f.text]
    return f.verdict


def _scale(point: dict, variant: str, metric: str, k: float) -> None:
    for r in point[variant].values():
        r[metric] *= k


COUNTER = {
    "comparable to DATA": lambda s, m, g, r: _scale(s[4], "newreno", "acks_lost", 0.2),
    "Beyond 10 hops": lambda s, m, g, r: _scale(s[12], "newreno", "acks_lost", 0.5),
    "string throughput": lambda s, m, g, r: _scale(s[7], "pgy", "kbps", 0.8),
    "spurious retransmissions in strings": lambda s, m, g, r: _scale(s[7], "pgy", "spurious", 3.0),
    "spurious retransmissions in the grid": lambda s, m, g, r: _scale(g[10], "pgy", "spurious", 4.0),
    "throughput in the grid": lambda s, m, g, r: _scale(g[2], "pgy", "kbps", 0.5),
    "random mobile": lambda s, m, g, r: _scale(r["5 flows, 5 m/s"], "pgy", "kbps", 0.5),
    "S1 alone": lambda s, m, g, r: _scale(s[4], "s1", "spurious", 3.0),
    "S2 alone": lambda s, m, g, r: _scale(s[4], "s2", "timeouts", 2.0),
    "grow with the number of flows": lambda s, m, g, r: _scale(m[3], "newreno", "data_lost", 0.2),
}


def test_every_finding_holds_on_paper_like_numbers() -> None:
    verdicts = {f.text: f.verdict for f in pf.findings(*_data(), [], 10)}
    # Without the printed magnitudes (and one random speed) those findings are not checked.
    assert set(verdicts.values()) == {HOLDS, NOT_CHECKED}, verdicts
    assert all(v == HOLDS for t, v in verdicts.items() if not any(k in t for k in ("%", "speed", "more flows"))), verdicts


def test_the_string_gain_is_a_magnitude() -> None:
    strings, multi, grid, rand = _data()
    strings[14] = _point((60, 100, 50, 100, 130), (60 * 1.216, 40, 45, 100, 90))
    pub = {("string_gain", 14): 21.6}

    def verdict() -> str:
        (f,) = [f for f in pf.findings(strings, multi, grid, rand, [], 10, pub) if "21.6" in f.text]
        return f.verdict

    assert verdict() == REPRODUCED
    _scale(strings[14], "pgy", "kbps", 1.005 / 1.216)  # +0.5 %: the direction, not the value
    assert verdict() == DIRECTION_ONLY
    _scale(strings[14], "pgy", "kbps", 0.9)
    assert verdict() == NOT_REPRODUCED


def test_comparable_losses_are_an_equivalence_within_a_factor_of_two() -> None:
    strings, multi, grid, rand = _data()
    _scale(strings[4], "newreno", "acks_lost", 3.0)  # 2.7 x the DATA losses: not "as much as"
    assert _verdict("comparable to DATA", strings, multi, grid, rand) == FAILS


@pytest.mark.parametrize("fragment", sorted(COUNTER))
def test_each_finding_fails_on_a_counter_example(fragment: str) -> None:
    holds_then_fails(lambda *d: _verdict(fragment, *d), _data(), COUNTER[fragment])


def test_a_failed_run_fails_the_conservation_finding() -> None:
    (ok,) = [f for f in pf.findings(*_data(), [], 10) if "byte" in f.text]
    (bad,) = [f for f in pf.findings(*_data(), ["conservation: flow f1 delivered byte 17 twice"], 10)
              if "byte" in f.text]
    assert (ok.verdict, bad.verdict) == (HOLDS, "fails")
