"""The ack-holding experiment (Bhutani's ACK pacing paper): interface, analytic schedule, and a small end-to-end run."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conftest import holds_then_fails
import tcplab
from tcplab import _core
from tcplab.experiments.ack_holding import experiment as exp
from tcplab.experiments.ack_holding import findings as af
from tcplab.experiments import all_experiments
from tcplab.runner import run_sweep
from tcplab.stats import DIRECTION_ONLY, FAILS, HOLDS, NOT_REPRODUCED, NOT_SEPARATED, REPRODUCED
from tcplab.store import Store


def test_registered_with_the_interface() -> None:
    assert all_experiments()["ack-holding"] is exp
    quick = exp.sweeps(True)
    assert [s.name for s in quick][:2] == [
        "ack-holding/table1-quick",
        "ack-holding/predictor-quick",
    ]
    # Then one sensitivity sweep per (unstated setting, fade case), and the fade-timing sweep last.
    assert {s.name.split("/")[3] for s in quick[2:-1]} == set(exp.sensitivity.SETTINGS)
    assert quick[-1].name == "ack-holding/quick/fade-timing"
    assert len(quick[0].expand()) == 4  # 2 fade cases x 2 schemes
    assert set(exp.PUBLISHED) == {
        (f, c) for f in ("one", "two") for c in ("holding", "reno", "ratio")
    }
    assert exp.PUBLISHED[("two", "ratio")].value == 791.5


def test_fig2_literal_search_vs_feasible_optimum() -> None:
    r = _core.ack_schedule(1000.0, 30, 1.0, 0.3, None, 0.0)
    assert r["n_paper"] == 0  # the published search, taken literally
    assert r["n_feasible"] == 9
    assert r["final_rto"] == pytest.approx(34.97, abs=0.01)
    assert sum(r["gaps"]) == pytest.approx(1000.0)
    # No gap exceeds the RTO the FH has when it starts (r["rto"][i] is the RTO before gap i + 1).
    assert all(g <= rto * (1 + 1e-12) for g, rto in zip(r["gaps"], r["rto"]))


@pytest.mark.parametrize("t", [500.0, 250.0])
def test_figs_5_to_8_schedules_are_feasible(t: float) -> None:
    r = _core.ack_schedule(t, 20, 1.0, 0.3, None, 0.0)
    n = r["n_feasible"]
    gaps = r["gaps"]
    assert len(gaps) == 20 and sum(gaps) == pytest.approx(t)
    # Phase 1 grows, phase 2 is flat and below the last phase-1 gap (the paper's Figs 5 and 7).
    assert all(a < b for a, b in itertools.pairwise(gaps[:n]))
    assert max(gaps[n:]) - min(gaps[n:]) < 1e-9
    assert r["rto"][-1] < max(r["rto"])


def _short(scheme: str, factor: float = 1.0) -> dict:
    s = exp.scenario()
    s["duration"] = "16s"
    s["wlans"][0]["stations"][1]["outage"] = {"intervals": [["4s", "10s"]]}
    s["wlans"][0]["signals"]["duration_factor"] = factor
    if scheme == "reno":
        s["agents"] = []
    return s


def test_holding_beats_reno_without_fh_timeouts() -> None:
    h = tcplab.run(_short("holding"), seed=1)
    r = tcplab.run(_short("reno"), seed=1)
    fh, fr = h.flows.row(0, named=True), r.flows.row(0, named=True)
    assert fh["timeouts"] == 0 and fr["timeouts"] >= 1
    assert fh["bytes_delivered"] > fr["bytes_delivered"]
    assert fh["spurious_retransmissions"] == 0
    stats = h.summary["agents"][0]["stats"]
    assert stats["acks_released"] >= 10 and stats["infeasible_schedules"] == 0


def test_quick_table_sweep_and_analysis(tmp_path: Path) -> None:
    table = exp.sweeps(True)[0]
    with Store(tmp_path / "db.sqlite") as store:
        run_sweep(table, store, workers=1, progress=False)
        stats = exp.table_stats(store, True)
        assert stats[("one", "holding")].n == 3
        assert stats[("one", "ratio")].mean > 100.0
        assert stats[("two", "ratio")].mean > 100.0


# ---- the finding checks: each holds on Table I's own numbers and fails on a counter-example ----

SEEDS = (1, 2, 3, 4)
FACTORS = (0.5, 1.0, 2.0)


def _paper_runs() -> tuple[list[dict], list[dict]]:
    """Table I as replications (a small per-seed spread), and a predictor sweep where over-estimating
    the outage (x2) keeps more of the gain than under-estimating it (x0.5)."""
    table, pred = [], []
    packets = {("one", "holding"): 7688, ("one", "reno"): 6361, ("two", "holding"): 3981, ("two", "reno"): 503}
    for s in SEEDS:
        jit = 1.0 + 0.002 * (s - 2)
        for (fade, scheme), p in packets.items():
            table.append({"seed": s, "fade": fade, "scheme": scheme, "factor": 1.0, "packets": p * jit, "timeouts": 0})
        for fade in ("one", "two"):
            for k, share in zip(FACTORS, (0.5, 1.0, 0.9), strict=True):
                p = packets[(fade, "reno")] + share * (packets[(fade, "holding")] - packets[(fade, "reno")])
                pred.append({"seed": s, "fade": fade, "scheme": "holding", "factor": k, "packets": p * jit, "timeouts": 0})
    return table, pred


def _verdict(fragment: str, table: list[dict], pred: list[dict]) -> str:
    (f,) = [f for f in af.findings(table, pred, FACTORS) if fragment in f.text]
    return f.verdict


def _edit(runs: list[dict], scale: float, **match: object) -> None:
    for r in runs:
        if all(r[k] == v for k, v in match.items()):
            r["packets"] *= scale


COUNTER = {
    "never times out": lambda t, p: t[0].__setitem__("timeouts", 1),
    "delivers more than plain Reno": lambda t, p: _edit(t, 0.8, fade="one", scheme="holding"),
    "over 7.5 times": lambda t, p: _edit(t, 1.1, fade="two", scheme="reno"),
    "Over-estimating the outage": lambda t, p: _edit(p, 0.5, factor=2.0),
}


def test_every_finding_holds_on_table_one() -> None:
    table, pred = _paper_runs()
    verdicts = {f.text: f.verdict for f in af.findings(table, pred, FACTORS)}
    gain = [t for t in verdicts if "gain is the paper's" in t]
    assert [verdicts.pop(t) for t in gain] == [REPRODUCED]
    assert set(verdicts.values()) == {HOLDS}


def test_the_gain_is_a_magnitude_with_three_verdicts() -> None:
    table, pred = _paper_runs()
    # Reno's two-fade count doubled: holding still wins (direction) but not by x7.9.
    _edit(table, 2.0, fade="two", scheme="reno")
    assert _verdict("gain is the paper's", table, pred) == DIRECTION_ONLY
    # Holding below Reno with two fades: the gain's sign is lost.
    _edit(table, 10.0, fade="two", scheme="reno")
    assert _verdict("gain is the paper's", table, pred) == NOT_REPRODUCED


@pytest.mark.parametrize("fragment", sorted(COUNTER))
def test_each_finding_fails_on_a_counter_example(fragment: str) -> None:
    holds_then_fails(lambda t, p: _verdict(fragment, t, p), _paper_runs(), COUNTER[fragment])


def test_overlapping_over_and_under_estimates_are_not_separated() -> None:
    # The case the issue quotes: gains of about 113.5 vs 111.6 with seed-to-seed spread of several
    # points; the paired difference's CI straddles 0.
    table, pred = _paper_runs()
    for r in pred:
        if r["factor"] != 1.0:
            noise = {1: 300.0, 2: -250.0, 3: 200.0, 4: -240.0}[r["seed"]] * (1 if r["factor"] > 1 else -1)
            r["packets"] = 7200.0 + noise if r["fade"] == "one" else 3500.0 + noise
    assert _verdict("Over-estimating the outage", table, pred) == NOT_SEPARATED


def test_schedule_findings_follow_the_figures_shapes() -> None:
    def sched(gaps: list[float], rto: list[float]) -> dict:
        return {"gaps": gaps, "rto": rto}

    paper5 = sched([1, 2, 3, 4, 5, 3, 2, 2, 2], [1, 2, 4, 8, 6, 5, 4, 4])
    fs = {f.text[:30]: f.verdict for f in af.schedule_findings(paper5, sched([1], [1, 4.2]))}
    assert list(fs.values()) == [REPRODUCED, HOLDS, HOLDS]
    # Rising for 8 gaps: the shape, not the count; never rising: not even that.
    fs = [f.verdict for f in af.schedule_findings(sched([1, 2, 3, 4, 5, 6, 7, 8, 3, 3], [1, 9, 2]), sched([1], [1, 9]))]
    assert fs[0] == DIRECTION_ONLY and fs[2] == FAILS  # final RTO x4.5 with T halved
    fs = [f.verdict for f in af.schedule_findings(sched([5, 4, 3, 3], [9, 2, 1]), sched([1], [1, 1]))]
    assert fs[:2] == [NOT_REPRODUCED, FAILS]


def test_fig4_window_axis_keeps_renos_collapse_visible() -> None:
    """Fig. 4 as our runs draw it: both windows climb past 1000 segments before the first fade (the receiver
    window of 20 limits what is sent, not cwnd) and the holder's reaches 2500.  The main axis stays bounded
    near the receiver window, so Reno's collapse to 1 segment and its recovery are visible (20 segments is at
    least half its height), and a log panel above shows both full series.  Autoscaling put 20 at < 1 % of the height."""
    t = [0.1 * i for i in range(400)]
    holding = [min(2.0 + 125 * x, 1250.0) if x < 20 else 1250.0 + 60 * (x - 20) for x in t]
    reno = [min(2.0 + 125 * x, 1250.0) if x < 10 else 1.0 if 10 <= x < 22 or 25 <= x < 35 else 2.0 ** (x - 22)
            if x < 25 else 2.0 ** (x - 35) for x in t]
    fig = exp.draw_cwnd({"holding": (t, holding), "reno": (t, reno)}, "two", 4)
    full, ax = fig.axes
    lo, hi = ax.get_ylim()
    assert ax.get_yscale() == "linear" and lo == 0 and 20 / hi >= 0.5
    assert full.get_yscale() == "log"
    flo, fhi = full.get_ylim()
    assert flo <= 1.0 and fhi >= max(holding)
