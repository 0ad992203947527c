"""The adaptive-tcp experiment (Dalal et al., seed 004): interface, network, loss-event export, and
the finding checks (each holds on paper-like numbers and fails on a counter-example)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import holds_then_fails
import tcplab
from tcplab.experiments.adaptive_tcp import experiment as exp
from tcplab.experiments.adaptive_tcp import findings as af
from tcplab.experiments import all_experiments
from tcplab.experiments.adaptive_tcp.points import Point, jain, metric
from tcplab.experiments.adaptive_tcp.scenario import scenario
from tcplab.runner import run_sweep
from tcplab.experiments.base import against_paper
from tcplab.stats import DIRECTION_ONLY, FAILS, HOLDS, NOT_CHECKED, NOT_REPRODUCED, PAPER_CONTRADICTS, REPRODUCED
from tcplab.store import Store


def test_registered_with_the_interface() -> None:
    assert all_experiments()["adaptive-tcp"] is exp
    names = [s.name for s in exp.sweeps(True)]
    assert len(names) == len(set(names))
    figs = {n.split("/")[2] for n in names}
    assert figs == {"fig8", "fig9", "fig10", "fig11", "frames", "functional", "sensitivity", "burst", "ns2phy", "queue"}
    # One sensitivity sweep per reconstructed-equation switch (at the quick FER).
    assert {n.split("/")[3].split(",")[-1].split("=")[0] for n in names if "/sensitivity/" in n} == set(
        exp.sensitivity.SWITCHES
    )
    assert exp.PUBLISHED[("util", 0.001, "adaptive")].value == 4.78
    # Fig. 11's points are 4 APs with 4/8/16/32 flows in full mode.
    assert sorted({p.flows for p in exp.fig11(False)}) == [4, 8, 16, 32]


def test_jains_index() -> None:
    assert jain([2.0, 2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert jain([4.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)


def test_four_aps_share_the_backbone() -> None:
    s = scenario(aps=4, flows_per_ap=2, fer=0.01, duration="5s")
    assert len(s["wlans"]) == 4 and len(s["flows"]) == 8
    assert all(st.get("loss_at") == "packets" for w in s["wlans"] for st in w["stations"][1:])
    r = tcplab.run(s, seed=1)
    assert all(f["bytes_delivered"] > 0 for f in r.summary["flows"])
    backbone = [lk for lk in r.summary["links"] if lk["name"] == "backbone" and lk["direction"] == "router->ftp"]
    # Every delivered packet of the eight flows crossed the one backbone link.
    delivered = sum(f["bytes_delivered"] for f in r.summary["flows"]) // 1000
    assert delivered <= backbone[0]["packets_sent"] <= sum(f["segments_sent"] for f in r.summary["flows"]) + 8


def test_adaptive_loss_events_are_exported() -> None:
    s = scenario(fer=0.01, duration="20s")
    s["tcp"]["cc"] = "adaptive"
    losses = tcplab.run(s, seed=1).summary["flows"][0]["adaptive_losses"]
    assert len(losses) > 10
    assert all(0.0 <= e["alpha"] <= 1.0 and e["kind"] in ("frr", "rto") for e in losses)
    assert all(e["loss_window"] >= 1 and e["ssthresh"] >= 2 for e in losses)
    assert any(e["advanced_ssthresh"] is not None for e in losses)
    assert [e["t_s"] for e in losses] == sorted(e["t_s"] for e in losses)
    # Other controllers carry none.
    s["tcp"]["cc"] = "reno"
    assert "adaptive_losses" not in tcplab.run(s, seed=1).summary["flows"][0]


def test_errors_above_the_mac_separate_the_senders_and_frame_errors_do_not(tmp_path: Path) -> None:
    # The point of action decides the result: 1 % of packets lost above the MAC reaches TCP (and
    # Westwood+'s bandwidth estimate keeps it far above NewReno); the same FER on frames is
    # retried by the MAC and NewReno loses nothing.
    with Store(tmp_path / "db.sqlite") as store:
        pts = [Point("t", 0.01, variants=("newreno", "westwood"), duration="30s", loss_at=at)
               for at in ("packets", "frames")]
        for p in pts:
            run_sweep(p.sweep("t", 2), store, workers=1, progress=False)
        above, frames = (metric(store, p.name("t"), "util") for p in pts)
    assert min(above["westwood"].values()) > 1.5 * max(above["newreno"].values())
    assert min(frames["newreno"].values()) > 2 * max(above["newreno"].values())


# ---- the finding checks ----

SEEDS = (1, 2, 3, 4)
FERS = {0.0: "f0", 0.001: "f1", 0.1: "f10"}
FRAMES = {0.01: "fr1"}
#: Paper-like means (Mb/s): equal at 0 %, Adaptive > Westwood+ > NewReno with errors, the gain
#: shrinking as FER rises; all alike with errors on frames.
MEANS = {
    "f0": {"newreno": 5.99, "westwood": 5.99, "adaptive": 5.99},
    "f1": {"newreno": 2.92, "westwood": 3.81, "adaptive": 4.78},
    "f10": {"newreno": 0.50, "westwood": 0.55, "adaptive": 0.60},
    "fr1": {"newreno": 5.80, "westwood": 5.82, "adaptive": 5.81},
}


def _data() -> tuple[dict, dict]:
    util = {lab: {v: {s: m * (1 + 0.002 * (s - 2)) for s in SEEDS} for v, m in per.items()}
            for lab, per in MEANS.items()}
    fair = {"4 flows": {v: {s: 0.98 + 0.001 * s for s in SEEDS} for v in ("newreno", "adaptive")}}
    return util, fair


def _verdict(fragment: str, util: dict, fair: dict) -> str:
    (f,) = [f for f in af.findings(util, fair, FERS, ["4 flows"], 5.99, FRAMES) if fragment in f.text]
    return f.verdict


def _scale(util: dict, label: str, variant: str, k: float) -> None:
    util[label][variant] = {s: x * k for s, x in util[label][variant].items()}


COUNTER = {
    "Adaptive TCP > Westwood+ > NewReno": lambda u, f: _scale(u, "f1", "adaptive", 0.7),
    "more than 60 %": lambda u, f: _scale(u, "f1", "adaptive", 0.8),
    "At 0 % FER": lambda u, f: _scale(u, "f0", "adaptive", 1.2),
    "shrinks as FER rises": lambda u, f: _scale(u, "f10", "adaptive", 9.0),
    "Jain's fairness": lambda u, f: f["4 flows"].__setitem__("adaptive", {s: 0.7 for s in SEEDS}),
    "on 802.11 frames": lambda u, f: _scale(u, "fr1", "westwood", 0.5),
}


def test_every_finding_holds_on_paper_like_numbers() -> None:
    util, fair = _data()
    verdicts = {f.text: f.verdict for f in af.findings(util, fair, FERS, ["4 flows"], 5.99, FRAMES)}
    # Paper-like numbers at FER 0.1 % and 10 % only: the gain over NewReno peaks at 63.7 %, short of
    # §5 c)'s "more than 100 %"; the points of Figs 9-11 are not in this data.
    assert verdicts.pop("Adaptive TCP gains more than 100 % over NewReno at some FER > 0 (§5 c)") == FAILS
    assert set(verdicts.values()) <= {HOLDS, NOT_CHECKED}
    assert [t for t, v in verdicts.items() if v == HOLDS] == [
        t for t in verdicts if any(k in t for k in ("> Westwood+ >", "At 0 %", "shrinks", "Jain", "more than 60", "on 802.11 frames", "Every sender's utilisation falls as FER"))]


def test_an_exact_tie_does_not_outperform() -> None:
    util, fair = _data()
    util["f1"]["adaptive"] = dict(util["f1"]["westwood"])
    assert _verdict("Adaptive TCP > Westwood+ > NewReno", util, fair) == FAILS


def test_about_100_percent_is_a_magnitude_with_a_stated_margin() -> None:
    util, fair = _data()
    fers = FERS | {0.005: "f05", 0.01: "f1pc"}
    util["f05"] = {"newreno": {s: 2.0 for s in SEEDS}, "westwood": {s: 2.1 for s in SEEDS},
                   "adaptive": {s: 4.0 + 0.01 * s for s in SEEDS}}
    util["f1pc"] = {"newreno": {s: 1.5 for s in SEEDS}, "westwood": {s: 1.6 for s in SEEDS},
                    "adaptive": {s: 3.0 + 0.01 * s for s in SEEDS}}

    def verdict() -> str:
        (f,) = [f for f in af.findings(util, fair, fers, [], 5.99, {}) if "about 100 %" in f.text]
        return f.verdict

    assert verdict() == REPRODUCED
    util["f1pc"]["adaptive"] = {s: 1.6 + 0.01 * s for s in SEEDS}  # +7 %: only the direction
    assert verdict() == DIRECTION_ONLY
    util["f1pc"]["adaptive"] = {s: 1.2 + 0.01 * s for s in SEEDS}  # below NewReno (ours at 1 %: -17 %)
    assert verdict() == NOT_REPRODUCED


def test_westwood_below_newreno_on_the_slow_backbone_is_checked() -> None:
    util, fair = _data()
    util["s1"] = {"newreno": {s: 3.20 + 0.01 * s for s in SEEDS}, "westwood": {s: 4.57 + 0.01 * s for s in SEEDS},
                  "adaptive": {s: 4.6 + 0.01 * s for s in SEEDS}}
    fs = af.findings(util, fair, FERS, [], 5.99, {}, slow={0.001: "s1"})
    (f,) = [f for f in fs if "Westwood+ uses less bandwidth than NewReno" in f.text]
    assert f.verdict == FAILS  # ours: the reverse of the paper's


def test_the_papers_own_residual_percentages_contradict_its_utilisations() -> None:
    fs = {f.text: f for f in against_paper(exp.paper_findings(), exp.paper_findings())}
    (f,) = [f for t, f in fs.items() if "66 %" in t]
    assert f.verdict == PAPER_CONTRADICTS and "60.6" in f.detail
    assert all(f.verdict in (HOLDS, NOT_CHECKED, PAPER_CONTRADICTS) for f in fs.values())


@pytest.mark.parametrize("fragment", sorted(COUNTER))
def test_each_finding_fails_on_a_counter_example(fragment: str) -> None:
    holds_then_fails(lambda u, f: _verdict(fragment, u, f), _data(), COUNTER[fragment])


def test_residual_reduction_recomputes_the_papers_own_numbers() -> None:
    # §4.2.1 prints 66 % and 47 %; its own numbers give 60.6 % and 44.5 %.
    one = {1: 0.0}
    assert af.residual_reduction({"adaptive": {1: 4.78}, "newreno": {1: 2.92}}, 5.99)[0] == pytest.approx(0.606, abs=1e-3)
    assert af.residual_reduction({"adaptive": {1: 4.78}, "newreno": {1: 3.81}}, 5.99)[0] == pytest.approx(0.445, abs=1e-3)
    assert af.residual_reduction({"adaptive": one, "newreno": {1: 5.99}}, 5.99) == []


def test_the_shrinking_gain_pairs_the_two_fers_by_seed() -> None:
    # Residual reductions over NewReno (maximum 6 Mb/s): at the lowest FER seed 1 has none (NewReno above
    # the maximum) and seeds 2, 3 reduce 42 and 52 %; at the highest FER 40, 45 and 55 %.  On the same seed
    # the reduction grows by 3 points, so "shrinks" fails; paired by position (42 with seed 1's 40) it would not.
    util = {"lo": {"newreno": {1: 6.5, 2: 3.0, 3: 3.0}, "adaptive": {1: 6.6, 2: 4.26, 3: 4.56}},
            "hi": {"newreno": {1: 2.0, 2: 2.0, 3: 2.0}, "adaptive": {1: 3.6, 2: 3.8, 3: 4.2}}}
    fs = af.findings(util, {}, {0.001: "lo", 0.01: "hi"}, [], 6.0, {})
    f = next(f for f in fs if "shrinks as FER rises" in f.text)
    assert f.verdict == FAILS, f.detail


def test_the_ssthresh_finding_pairs_the_senders_by_seed() -> None:
    # Westwood+ lost seed 1's run.  On every seed Adaptive TCP holds 2 packets more; paired by position
    # (Adaptive TCP's seed 1 with Westwood+'s seed 2, ...) it would hold 3 fewer.
    ss = {"adaptive": {1: 10.0, 2: 15.0, 3: 20.0, 4: 25.0}, "westwood": {2: 13.0, 3: 18.0, 4: 23.0}}
    fs = af.findings({}, {}, {}, [], 6.0, {}, ssthresh=ss)
    f = next(f for f in fs if "higher ssthresh than Westwood+" in f.text)
    assert f.verdict == HOLDS, f.detail


def test_fig8_fer_axis_separates_every_published_and_measured_point() -> None:
    """Fig. 8's FER axis: the paper's points (0 and 0.1 %) and ours (0-10 %) at least 6 % of the axis width
    apart.  A linear 0-10 % axis puts 0, 0.1, 0.5 and 1 % within its first tenth (0.1 % apart by 1 %)."""
    from tcplab.experiments.adaptive_tcp import figures as af_fig

    x = [100 * p.fer for p in exp.fig8(False)]
    assert x[:4] == [0.0, 0.1, 0.5, 1.0]
    per = {v: ([1.0] * len(x), [0.1] * len(x)) for v in ("newreno", "westwood", "adaptive")}
    pub = {v: af_fig.published_points(v) for v in per}
    assert {a for pts in pub.values() for a, _ in pts} == {0.0, 0.1}
    fig = af_fig.draw_lines(x, per, af_fig.FER_LABEL, "Mb/s", "t", pub, fer_x=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "symlog"
    xs = sorted(set(x) | {a for pts in pub.values() for a, _ in pts})
    lo, hi = ax.get_xlim()
    assert lo <= 0.0 and hi >= 10.0
    frac = [ax.transAxes.inverted().transform(ax.transData.transform((a, 1.0)))[0] for a in xs]
    assert min(b - a for a, b in zip(frac, frac[1:])) > 0.06, list(zip(xs, frac))
    assert [float(t) for t in ax.get_xticks()] == xs
