"""Seed 003's claims, each decided by a stated statistical rule on the paired replications.

Every sender runs a case with the same seeds, so two senders are compared seed by seed (the paired
values' 95 % Student-t CI, :mod:`tcplab.stats`).  Input: ``times[case][variant] = {seed: s}``, each
case's motion, the congestion study's per-seed metrics, and (case, variant, delivered exactly) per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tcplab.experiments.atcp_scenario import LABEL
from tcplab.experiments.base import Finding
from tcplab.stats import FAILS, HOLDS, above, combine, paired, summarise, within

Times = Mapping[str, Mapping[str, Mapping[int, float]]]

#: The paper's range of improvement (§9: "an improvement of 25 – 50 %").  Its own Table 2 gives 39.8 % (walking),
#: 50 % (two hops) and 23.7 % (disconnection): the floor the rule tests is 20 %, below the smallest of them.
GAIN_LOW, GAIN_HIGH = 20.0, 50.0
#: Band within which two transfer times count as similar (relative to base TCP's mean).
SIMILAR_PCT = 10.0

RULE_GAIN = (
    "paired over seeds; per case the reduction 100·(1 − T_modified / T_base) per seed; holds when its 95 % CI lies "
    f"wholly at or above {GAIN_LOW:g} % (the paper's own rows give 23.7–50 %), fails when wholly below; a claim over "
    "several cases fails if one fails and holds only if all hold"
)
RULE_SIMILAR = (
    f"paired over seeds; holds when the 95 % CI of T_modified − T_base lies inside ±{SIMILAR_PCT:g} % of base TCP's "
    "mean, fails when it lies wholly outside"
)
RULE_CONGESTS = (
    "paired over seeds; holds when the 95 % CIs of retransmissions(original − modified) and of aggregate "
    "goodput(modified − original) both lie wholly above 0, fails when either lies wholly at or below 0"
)
RULE_EXACT = "every run: status ok, download completed, bytes delivered = file size (the run's conservation oracle)"


def reduction_pct(mod: Mapping[int, float], base: Mapping[int, float]) -> list[float]:
    return [100.0 * (1.0 - m / b) for m, b in paired(dict(mod), dict(base)) if b > 0]


def findings(times: Times, motion: Mapping[str, str], cong: Mapping[str, Mapping[str, list[float]]],
             conserved: Sequence[tuple[str, str, bool]]) -> list[Finding]:
    out: list[Finding] = []

    res = []
    for case, t in times.items():
        if motion[case] == "static" or not {"atcp_mod", "base"} <= set(t):
            continue
        s = summarise(reduction_pct(t["atcp_mod"], t["base"]))
        res.append((above(s, GAIN_LOW, ties=True),
                    f"{case}: {s.mean:+.1f} ± {s.ci95:.1f} % (paper: 25–{GAIN_HIGH:g} %)"))
    out.append(Finding.over_cases("Modified ATCP shortens transfers by 25–50 % under mobility and disconnection (§9)",
                        res, RULE_GAIN))

    res = []
    for case, t in times.items():
        if motion[case] != "static" or not {"atcp_mod", "base"} <= set(t):
            continue
        tol = SIMILAR_PCT / 100 * summarise(t["base"].values()).mean
        s = summarise(m - b for m, b in paired(dict(t["atcp_mod"]), dict(t["base"])))
        res.append((within(s, -tol, tol), f"{case}: {s.mean:+.3f} ± {s.ci95:.3f} s (band ±{tol:.2f} s)"))
    out.append(Finding.over_cases("Static: modified ATCP and base TCP take similar times (the issue's reading of Table 2)",
                        res, RULE_SIMILAR))

    res = []
    orig, mod = cong.get("atcp_orig", {}), cong.get("atcp_mod", {})
    if orig and mod:
        n = min(len(orig.get("goodput", [])), len(mod.get("goodput", [])))
        rx = summarise(o - m for o, m in zip(orig["retransmissions"][:n], mod["retransmissions"][:n]))
        gp = summarise(m - o for o, m in zip(orig["goodput"][:n], mod["goodput"][:n]))
        vr, vg = above(rx), above(gp)
        verdict = combine([vr, vg])
        res.append((verdict, f"retransmissions original − modified = {rx.mean:+.0f} ± {rx.ci95:.0f}; goodput "
                             f"modified − original = {gp.mean:+.3f} ± {gp.ci95:.3f} Mb/s"))
    out.append(Finding.over_cases("Original ATCP's whole-window retransmissions in Loss congest a shared relay: more "
                        "retransmissions and less goodput than modified ATCP (§6)", res, RULE_CONGESTS))

    bad = [(c, v) for c, v, ok in conserved if not ok]
    verdict = HOLDS if conserved and not bad else FAILS
    detail = (f"{len(conserved)} runs, all exact" if not bad
              else "; ".join(f"{c}, {LABEL[v]}" for c, v in bad[:10]) + f" ({len(bad)} of {len(conserved)} runs)")
    out.append(Finding.decided("No application byte lost or duplicated, and every download completes",
                               verdict, detail, RULE_EXACT))
    return out
