"""Seed 004's claims, each decided by a stated statistical rule on the paired replications.

Every sender runs a point with the same seeds, so two senders are compared seed by seed (the paired
difference's 95 % Student-t CI, :mod:`tcplab.stats`).  Input: ``util[label][variant] = {seed: Mb/s}``
and ``fair[label][variant] = {seed: Jain's index}`` per point label, with the FERs of Fig. 8's
points in ``fers`` (label per FER) and the multi-flow points' labels in ``multi``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tcplab.experiments.adaptive_tcp_scenario import LABEL
from tcplab.experiments.base import Finding
from tcplab.stats import Summary, above, paired, summarise, within

PerPoint = Mapping[str, Mapping[str, Mapping[int, float]]]

#: Relative band within which two senders count as equal (paired difference / NewReno's mean).
EQUAL_PCT = 5.0
#: Band within which Jain's index counts as unchanged.
JAIN_BAND = 0.05

RULE_AT_LEAST = (
    "paired over seeds; holds when the 95 % CI of A − B lies wholly at or above 0 (a tie included), "
    "fails when it lies wholly below 0, not separated otherwise; a claim over several cases fails "
    "if one fails and holds only if all hold"
)
RULE_EQUAL = (
    f"paired over seeds; holds when the 95 % CI of A − B lies inside ±{EQUAL_PCT:g} % of NewReno's mean, "
    "fails when it lies wholly outside"
)
RULE_SHRINKS = (
    "per seed, the reduction of residual bandwidth by Adaptive TCP over NewReno, "
    "(R_NewReno − R_Adaptive) / R_NewReno with R = the PHY's one-flow bound − utilisation; holds when the "
    "95 % CI of reduction(lowest FER > 0) − reduction(highest FER) lies wholly above 0, fails when "
    "wholly at or below"
)
#: Largest share of its 0 % FER utilisation a sender may lose to errors on frames (retries' air time).
FRAME_COST = 0.15
RULE_HIDDEN = (
    "paired over seeds; per sender and FER, the relative loss 1 − U(FER on frames) / U(0 %); holds when "
    f"its 95 % CI lies wholly below {100 * FRAME_COST:g} %, fails when wholly at or above"
)
RULE_FAIR = (
    f"paired over seeds; holds when the 95 % CI of J(Adaptive) − J(NewReno) lies inside ±{JAIN_BAND:g}, "
    "fails when it lies wholly outside"
)


def diff(a: Mapping[int, float], b: Mapping[int, float]) -> Summary:
    return summarise(x - y for x, y in paired(dict(a), dict(b)))


def residual_reduction(util: Mapping[str, Mapping[int, float]], ref: float) -> list[float]:
    """Per seed (R_NewReno − R_Adaptive) / R_NewReno, residual R = ref − utilisation."""
    return [((ref - n) - (ref - a)) / (ref - n) for a, n in paired(dict(util["adaptive"]), dict(util["newreno"]))
            if ref - n > 0]


def findings(util: PerPoint, fair: PerPoint, fers: Mapping[float, str], multi: Sequence[str],
             ref: float, frames: Mapping[float, str]) -> list[Finding]:
    out: list[Finding] = []
    pos = sorted(f for f in fers if f > 0)

    res = []
    for f in pos:
        u = util.get(fers[f], {})
        for a, b in (("adaptive", "westwood"), ("westwood", "newreno")):
            if a in u and b in u:
                s = diff(u[a], u[b])
                res.append((above(s, ties=True),
                            f"FER {100 * f:g} %: {LABEL[a]} − {LABEL[b]} = {s.mean:+.2f} ± {s.ci95:.2f} Mb/s"))
    out.append(Finding.over_cases("Adaptive TCP ≥ Westwood+ ≥ NewReno in bandwidth utilisation at every FER > 0 (Fig. 8)",
                        res, RULE_AT_LEAST))

    res = []
    u0 = util.get(fers.get(0.0, ""), {})
    if "newreno" in u0:
        tol = EQUAL_PCT / 100 * summarise(u0["newreno"].values()).mean
        for a in ("westwood", "adaptive"):
            if a in u0:
                s = diff(u0[a], u0["newreno"])
                res.append((within(s, -tol, tol),
                            f"{LABEL[a]} − NewReno = {s.mean:+.2f} ± {s.ci95:.2f} Mb/s (band ±{tol:.2f})"))
    out.append(Finding.over_cases("At 0 % FER the three senders use the same bandwidth (Fig. 8)", res, RULE_EQUAL))

    res = []
    if len(pos) >= 2:
        lo, hi = util.get(fers[pos[0]], {}), util.get(fers[pos[-1]], {})
        if all(v in d for d in (lo, hi) for v in ("adaptive", "newreno")):
            r_lo, r_hi = residual_reduction(lo, ref), residual_reduction(hi, ref)
            s = summarise(x - y for x, y in zip(r_lo, r_hi))
            res.append((above(s), f"reduction at FER {100 * pos[0]:g} % {100 * summarise(r_lo).mean:.1f} %, "
                                  f"at {100 * pos[-1]:g} % {100 * summarise(r_hi).mean:.1f} %; difference "
                                  f"{100 * s.mean:+.1f} ± {100 * s.ci95:.1f} points"))
    out.append(Finding.over_cases("Adaptive TCP's gain over NewReno shrinks as FER rises (Fig. 8)", res, RULE_SHRINKS))

    res = []
    for label in multi:
        j = fair.get(label, {})
        if "adaptive" in j and "newreno" in j:
            s = diff(j["adaptive"], j["newreno"])
            res.append((within(s, -JAIN_BAND, JAIN_BAND), f"{label}: J(Adaptive) − J(NewReno) = {s.mean:+.3f} ± {s.ci95:.3f}"))
    out.append(Finding.over_cases("Adaptive TCP leaves Jain's fairness index unchanged against NewReno (Fig. 12)",
                        res, RULE_FAIR))

    res = []
    for f, label in sorted(frames.items()):
        for v, per in sorted(util.get(label, {}).items()):
            s = summarise(FRAME_COST - (1 - x / y) for x, y in paired(dict(per), dict(u0.get(v, {}))) if y)
            res.append((above(s), f"FER {100 * f:g} % on frames, {LABEL[v]}: loses "
                                  f"{100 * (FRAME_COST - s.mean):.1f} ± {100 * s.ci95:.1f} % of its 0 % utilisation"))
    out.append(Finding.over_cases("With the errors on 802.11 frames the MAC's retries hide them: each sender keeps its 0 % FER "
                        "utilisation (the issue's reason for errors above the MAC)", res, RULE_HIDDEN))
    return out
