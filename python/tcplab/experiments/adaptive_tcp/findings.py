"""Seed 004's claims, each decided by a stated statistical rule on the paired replications.

Every sender runs a point with the same seeds, so two senders are compared seed by seed (the paired
difference's 95 % Student-t CI, :mod:`tcplab.stats`).  Input: ``util[label][variant] = {seed: Mb/s}``
and ``fair[label][variant] = {seed: Jain's index}`` per point label, with the FERs of Fig. 8's
points in ``fers`` (label per FER) and the multi-flow points' labels in ``multi``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tcplab.experiments.adaptive_tcp.scenario import LABEL
from tcplab.experiments.base import Finding
from tcplab.stats import above, equivalent, magnitude, paired, paired_diff, paired_gain_pct, summarise

PerPoint = Mapping[str, Mapping[str, Mapping[int, float]]]

#: Equivalence margin for "matches" / "at par" (Fig. 8 at 0 % FER), in % of NewReno's mean.  The
#: smallest difference the paper calls an improvement is Westwood+ → Adaptive TCP at FER 0.1 %
#: (3.81 → 4.78 Mb/s, 25 %); 5 % stays well inside "at par".
EQUAL_PCT = 5.0
#: Equivalence margin for "maintains the Fairness Index": 0.05 of Jain's index (an index between 1/n
#: and 1; with 4–32 flows 0.05 is under a tenth of its range, and the paper shows no difference).
JAIN_BAND = 0.05
#: "about 100 % of throughput improvement" (§4.2.1): read as 100 % ± 20 % ("about" a round figure).
ABOUT_100_MARGIN = 0.2

RULE_OUTPERFORMS = (
    "paired over seeds; holds when the 95 % CI of A − B lies wholly above 0 (an exact tie does not outperform), "
    "fails when it lies wholly at or below 0, not separated otherwise; a claim over several cases fails "
    "if one fails and holds only if all hold"
)
RULE_AT_LEAST = RULE_OUTPERFORMS
RULE_EQUAL = (
    f"paired over seeds; two one-sided tests on A − B: holds when the 90 % CI lies inside ±{EQUAL_PCT:g} % of NewReno's "
    "mean (the margin: the smallest gain the paper calls an improvement is 25 %), fails when the 95 % CI lies wholly "
    "outside"
)
RULE_ABOUT_100 = (
    "paired over seeds, 100·(U_Adaptive − U_other)/U_other per seed; a magnitude: reproduced when our mean lies within "
    f"100 % ± {100 * ABOUT_100_MARGIN:g} points (the margin argued for 'about'), or 100 % lies in our 95 % CI; direction "
    "only when the CI lies wholly above 0; not reproduced otherwise"
)
RULE_MAG = (
    "a magnitude: reproduced when the printed value lies in our 95 % CI (widened by its print resolution), direction "
    "only when the CI lies wholly on its side of 0, not reproduced otherwise"
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
    f"paired over seeds; two one-sided tests on J(Adaptive) − J(NewReno): holds when the 90 % CI lies inside "
    f"±{JAIN_BAND:g}, fails when the 95 % CI lies wholly outside"
)


def residual_reduction(util: Mapping[str, Mapping[int, float]], ref: float) -> list[float]:
    """Per seed (R_NewReno − R_Adaptive) / R_NewReno, residual R = ref − utilisation, in seed order."""
    return list(_residual_by_seed(util, ref).values())


def _residual_by_seed(util: Mapping[str, Mapping[int, float]], ref: float) -> dict[int, float]:
    """:func:`residual_reduction` keyed by seed (a seed whose NewReno residual is ≤ 0 has none), so that two
    points' reductions are paired by seed even where one of them left a seed out."""
    a, n = util["adaptive"], util["newreno"]
    return {k: ((ref - n[k]) - (ref - a[k])) / (ref - n[k]) for k in sorted(set(a) & set(n)) if ref - n[k] > 0}


def _outperforms(where: str, u: Mapping[str, Mapping[int, float]],
                  pairs: Sequence[tuple[str, str]] = (("adaptive", "westwood"), ("adaptive", "newreno"))
                  ) -> list[tuple[str, str]]:
    """The cases "A uses more bandwidth than B" at one point (``u``: sender -> seed -> Mb/s), for the pairs
    whose senders both ran there: paired over seeds, :func:`tcplab.stats.above`."""
    out = []
    for a, b in pairs:
        if a in u and b in u:
            s = paired_diff(u[a], u[b])
            out.append((above(s), f"{where}: {LABEL[a]} − {LABEL[b]} = {s.pm(2)} Mb/s"))
    return out


def findings(util: PerPoint, fair: PerPoint, fers: Mapping[float, str], multi: Sequence[str],
             ref: float, frames: Mapping[float, str], *, delays: Mapping[float, str] | None = None,
             slow: Mapping[float, str] | None = None, multi_util: PerPoint | None = None,
             retx: PerPoint | None = None, residual_pub: Mapping[str, float] | None = None,
             multi_pts: Mapping[str, tuple[int, float]] | None = None, slow_ref: float = 5.0,
             ssthresh: Mapping[str, Mapping[int, float]] | None = None) -> list[Finding]:
    """The paper's claims.  ``util`` per point label; ``fers`` labels Fig. 8's points, ``delays`` Fig. 9's
    (D in ms), ``slow`` Fig. 10's 5 Mb/s points (per FER); ``multi_util`` and ``fair`` Fig. 11's and
    Fig. 12's rows (``multi_pts``: row -> (flows per AP, FER)); ``retx`` retransmissions per point label;
    ``residual_pub`` §4.2.1's printed residual reductions at FER 0.1 % (per compared sender); ``slow_ref`` the
    maximum bandwidth of the 5 Mb/s backbone; ``ssthresh`` per sender the mean ssthresh of each run of Figs 4-7,
    by seed."""
    out: list[Finding] = []
    pos = sorted(f for f in fers if f > 0)
    delays, slow, multi_util, retx = delays or {}, slow or {}, multi_util or {}, retx or {}
    multi_pts, ssthresh = multi_pts or {}, ssthresh or {}

    res = [c for f in pos for c in _outperforms(f"FER {100 * f:g} %", util.get(fers[f], {}),
                                                (("adaptive", "westwood"), ("westwood", "newreno")))]
    out.append(Finding.over_cases("Adaptive TCP > Westwood+ > NewReno in bandwidth utilisation at every FER > 0 (Fig. 8)",
                        res, RULE_OUTPERFORMS))

    res = []
    u0 = util.get(fers.get(0.0, ""), {})
    if "newreno" in u0:
        tol = EQUAL_PCT / 100 * summarise(u0["newreno"].values()).mean
        for a in ("westwood", "adaptive"):
            if a in u0:
                s = paired_diff(u0[a], u0["newreno"])
                res.append((equivalent(s, tol),
                            f"{LABEL[a]} − NewReno = {s.pm(2)} Mb/s (band ±{tol:.2f})"))
    out.append(Finding.over_cases("At 0 % FER the three senders use the same bandwidth (Fig. 8)", res, RULE_EQUAL))

    res = []
    if len(pos) >= 2:
        lo, hi = util.get(fers[pos[0]], {}), util.get(fers[pos[-1]], {})
        if all(v in d for d in (lo, hi) for v in ("adaptive", "newreno")):
            r_lo, r_hi = _residual_by_seed(lo, ref), _residual_by_seed(hi, ref)
            s = paired_diff(r_lo, r_hi)
            res.append((above(s), f"reduction at FER {100 * pos[0]:g} % {100 * summarise(r_lo.values()).mean:.1f} %, "
                                  f"at {100 * pos[-1]:g} % {100 * summarise(r_hi.values()).mean:.1f} %; difference "
                                  f"{100 * s.mean:+.1f} ± {100 * s.ci95:.1f} points"))
    out.append(Finding.over_cases("Adaptive TCP's gain over NewReno shrinks as FER rises (Fig. 8)", res, RULE_SHRINKS))

    res = []
    for label in multi:
        j = fair.get(label, {})
        if "adaptive" in j and "newreno" in j:
            s = paired_diff(j["adaptive"], j["newreno"])
            res.append((equivalent(s, JAIN_BAND), f"{label}: J(Adaptive) − J(NewReno) = {s.pm(3)}"))
    out.append(Finding.over_cases("Adaptive TCP leaves Jain's fairness index unchanged against NewReno (Fig. 12)",
                        res, RULE_FAIR))

    # §4.2.1: "the Adaptive TCP showed about 100% of throughput improvement over TCP NewReno and TCPW for
    # the error rates of 0.5% and 1%" (Fig. 8).
    res = []
    for f in (0.005, 0.01):
        u = util.get(fers.get(f, ""), {})
        for b in ("newreno", "westwood"):
            if "adaptive" in u and b in u:
                s = paired_gain_pct(u["adaptive"], u[b])
                res.append((magnitude(s, 100.0, rel_margin=ABOUT_100_MARGIN),
                            f"FER {100 * f:g} %: over {LABEL[b]} {s.pm(1)} %"))
    out.append(Finding.over_cases("Adaptive TCP gains about 100 % over NewReno and Westwood+ at FER 0.5 % and 1 % (§4.2.1, "
                                  "Fig. 8)", res, RULE_ABOUT_100))

    # §4.2.1: residual-bandwidth reductions at FER 0.1 %: 66 % over NewReno, 47 % over Westwood+.
    res = []
    u = util.get(fers.get(0.001, ""), {})
    for b, pub in sorted((residual_pub or {}).items()):
        if "adaptive" in u and b in u:
            red = residual_reduction({"adaptive": u["adaptive"], "newreno": u[b]}, ref)
            s = summarise(100 * x for x in red)
            res.append((magnitude(s, pub, resolution=1.0), f"over {LABEL[b]}: {s.pm(1, signed=False)} % vs paper {pub:g} %"))
    out.append(Finding.over_cases("Adaptive TCP cuts the residual bandwidth by 66 % vs NewReno and 47 % vs Westwood+ at FER "
                                  "0.1 % (§4.2.1)", res, RULE_MAG + " (printed to 1 %)"))

    # §5 c): "more than 100% of improvement over TCP NewReno ... with transmission losses"; "In terms of
    # reduction in residual bandwidth, the achievement is above 60%" — at the FER where each is largest.
    res = []
    best = [(f, paired_gain_pct(util[fers[f]]["adaptive"], util[fers[f]]["newreno"])) for f in pos
            if {"adaptive", "newreno"} <= set(util.get(fers[f], {}))]
    if best:
        f, s = max(best, key=lambda x: x[1].mean)
        res.append((above(s, 100.0), f"largest gain over NewReno at FER {100 * f:g} %: {s.pm(1)} %"))
    out.append(Finding.over_cases("Adaptive TCP gains more than 100 % over NewReno at some FER > 0 (§5 c)", res,
                                  "paired over seeds, 100·(U_Adaptive − U_NewReno)/U_NewReno; holds when at the FER with "
                                  "the largest mean gain its 95 % CI lies wholly above 100 %, fails when wholly at or below"))
    res = []
    reds = [(f, summarise(100 * x for x in residual_reduction(util[fers[f]], ref))) for f in pos
            if {"adaptive", "newreno"} <= set(util.get(fers[f], {}))]
    if reds:
        f, s = max(reds, key=lambda x: x[1].mean)
        res.append((above(s, 60.0), f"largest reduction over NewReno at FER {100 * f:g} %: {s.pm(1, signed=False)} %"))
    out.append(Finding.over_cases("Adaptive TCP cuts NewReno's residual bandwidth by more than 60 % (§5 c)", res,
                                  "per seed (R_NewReno − R_Adaptive)/R_NewReno; holds when at the FER with the largest mean "
                                  "its 95 % CI lies wholly above 60 %, fails when wholly at or below"))

    # §4.2.2 (Fig. 9): Adaptive TCP outperforms at every D, and every sender's utilisation falls as D grows.
    falls = []
    ds = sorted(delays)
    res = [c for d in ds for c in _outperforms(f"D = {d:g} ms", util.get(delays[d], {}))]
    out.append(Finding.over_cases("Adaptive TCP outperforms NewReno and Westwood+ at every wired delay (Fig. 9, FER 1 %)",
                                  res, RULE_OUTPERFORMS))
    if len(ds) >= 2:
        lo, hi = util.get(delays[ds[0]], {}), util.get(delays[ds[-1]], {})
        for v in ("newreno", "westwood", "adaptive"):
            if v in lo and v in hi:
                s = paired_diff(lo[v], hi[v])
                falls.append((above(s), f"{LABEL[v]}: U(D = {ds[0]:g} ms) − U(D = {ds[-1]:g} ms) = "
                                        f"{s.pm(2)} Mb/s"))
    out.append(Finding.over_cases("Every sender's utilisation falls as the wired delay grows (Fig. 9, FER 1 %)", falls,
                                  RULE_OUTPERFORMS + " (runs at the two delays paired by seed)"))

    # §4.2.3 (Fig. 10, 5 Mb/s backbone): Westwood+ below NewReno at FER 0.1 %; Adaptive TCP superior at every
    # FER > 0; Adaptive TCP "protected performance of the native TCP scheme in absence of link errors".
    res = []
    u = util.get(slow.get(0.001, ""), {})
    if "westwood" in u and "newreno" in u:
        s = paired_diff(u["newreno"], u["westwood"])
        res.append((above(s), f"NewReno − Westwood+ = {s.pm(2)} Mb/s"))
    out.append(Finding.over_cases("On the 5 Mb/s backbone at FER 0.1 % Westwood+ uses less bandwidth than NewReno "
                                  "(§4.2.3, Fig. 10)", res, RULE_OUTPERFORMS))
    res = [c for f in sorted(x for x in slow if x > 0)
           for c in _outperforms(f"FER {100 * f:g} %", util.get(slow[f], {}))]
    out.append(Finding.over_cases("On the 5 Mb/s backbone Adaptive TCP outperforms both at every FER > 0 (§4.2.3, Fig. 10)",
                                  res, RULE_OUTPERFORMS))
    res = []
    u = util.get(slow.get(0.0, ""), {})
    if "adaptive" in u and "newreno" in u:
        tol = EQUAL_PCT / 100 * summarise(u["newreno"].values()).mean
        s = paired_diff(u["adaptive"], u["newreno"])
        res.append((equivalent(s, tol), f"Adaptive TCP − NewReno = {s.pm(2)} Mb/s (margin ±{tol:.2f})"))
    out.append(Finding.over_cases("On the 5 Mb/s backbone at 0 % FER Adaptive TCP matches NewReno (§4.2.3, Fig. 10)",
                                  res, RULE_EQUAL))
    # "With 0.1% FER, about 30% of additional TCP retransmissions for TCPW ... in comparison to ... Adaptive TCP".
    res = []
    r = retx.get(slow.get(0.001, ""), {})
    if "westwood" in r and "adaptive" in r:
        s = paired_gain_pct(r["westwood"], r["adaptive"])
        res.append((magnitude(s, 30.0, rel_margin=1 / 3),
                    f"Westwood+ retransmits {s.pm(1)} % more than Adaptive TCP"))
    out.append(Finding.over_cases("On the 5 Mb/s backbone at FER 0.1 % Westwood+ retransmits about 30 % more than Adaptive "
                                  "TCP (§4.2.3)", res, RULE_MAG + "; 'about 30 %' read as 20–40 % (relative margin 1/3)"))

    # §4.2.4 (Fig. 11): "In all cases, Adaptive TCP outperformed TCP NewReno and TCPW."
    res = [c for row, u in multi_util.items() for c in _outperforms(row, u)]
    out.append(Finding.over_cases("With 4 APs and several flows Adaptive TCP outperforms NewReno and Westwood+ (Fig. 11)",
                                  res, RULE_OUTPERFORMS))

    # §4.2.1: "all TCP schemes showed degradation for aggregate BW utilization with increase in FER" (Fig. 8).
    res = []
    if pos and 0.0 in fers:
        hi_u = util.get(fers[pos[-1]], {})
        for v in ("newreno", "westwood", "adaptive"):
            if v in u0 and v in hi_u:
                s = paired_diff(u0[v], hi_u[v])
                res.append((above(s), f"{LABEL[v]}: U(0 %) − U({100 * pos[-1]:g} %) = {s.pm(2)} Mb/s"))
    out.append(Finding.over_cases("Every sender's utilisation falls as FER rises (§4.2.1, Fig. 8)", res,
                                  RULE_OUTPERFORMS + " (runs at the two FERs paired by seed)"))

    # §4.2.3: "for a specific FER, improvement for residual BW using Adaptive TCP is seen larger with 5 Mbps
    # compared to that observed with 100 Mbps" (Fig. 10).
    res = []
    for f in sorted(x for x in slow if x > 0 and x in fers):
        fast_u, slow_u = util.get(fers[f], {}), util.get(slow[f], {})
        if all(v in d for d in (fast_u, slow_u) for v in ("adaptive", "newreno")):
            r5, r100 = _residual_by_seed(slow_u, slow_ref), _residual_by_seed(fast_u, ref)
            s = summarise(100 * (x - y) for x, y in paired(r5, r100))
            res.append((above(s), f"FER {100 * f:g} %: reduction over NewReno at 5 Mb/s − at 100 Mb/s = "
                                  f"{s.pm(1)} points"))
    out.append(Finding.over_cases("Adaptive TCP's residual-bandwidth reduction is larger on the 5 Mb/s backbone than on "
                                  "100 Mb/s (§4.2.3, Fig. 10)", res,
                                  f"per seed (R_NewReno − R_Adaptive)/R_NewReno with R = maximum − utilisation (maximum "
                                  f"{slow_ref:g} Mb/s on the 5 Mb/s backbone, the PHY's bound on 100 Mb/s); holds when the "
                                  "95 % CI of the difference lies wholly above 0, fails when wholly at or below"))

    # §4.2.4: "with the increase in number of active APs, a much higher utilization of backbone capacity is
    # observed" (4 APs with one flow each vs Fig. 8's one AP at the same FER); "the overall network BW
    # utilization also degraded with increase in FER" (Fig. 11).
    res, deg = [], []
    for row, (k, f) in sorted(multi_pts.items()):
        u4, u1 = multi_util.get(row, {}), util.get(fers.get(f, ""), {})
        if k == 1:
            for v in ("newreno", "westwood", "adaptive"):
                if v in u4 and v in u1:
                    s = paired_diff(u4[v], u1[v])
                    res.append((above(s), f"FER {100 * f:g} %, {LABEL[v]}: 4 APs − 1 AP = {s.pm(2)} Mb/s"))
        if f > 0:
            zero = next((r for r, (k2, f2) in multi_pts.items() if k2 == k and f2 == 0.0), None)
            for v in ("newreno", "westwood", "adaptive"):
                if zero and v in multi_util.get(zero, {}) and v in u4:
                    s = paired_diff(multi_util[zero][v], u4[v])
                    deg.append((above(s), f"{row}, {LABEL[v]}: U(FER 0) − U(FER {100 * f:g} %) = {s.pm(2)} Mb/s"))
    out.append(Finding.over_cases("More APs use more of the backbone (§4.2.4: 4 APs vs 1 AP, one flow each)", res,
                                  RULE_OUTPERFORMS + " (runs of the two networks paired by seed)"))
    out.append(Finding.over_cases("With 4 APs the aggregate utilisation falls as FER rises (§4.2.4, Fig. 11)", deg,
                                  RULE_OUTPERFORMS + " (runs at the two FERs paired by seed)"))

    # §3.3 (Fig. 7): "a much higher estimate for ssthresh is observed using the Adaptive TCP" than TCPW.
    res = []
    if ssthresh.get("adaptive") and ssthresh.get("westwood"):
        s = paired_diff(ssthresh["adaptive"], ssthresh["westwood"])
        res.append((above(s), f"mean ssthresh Adaptive TCP − Westwood+ = {s.pm(1)} packets"))
    out.append(Finding.over_cases("Adaptive TCP holds a higher ssthresh than Westwood+ (Fig. 7, FER 1 %)", res,
                                  RULE_OUTPERFORMS + " (time-weighted mean ssthresh over 100-200 s, runs paired by seed)"))

    res = []
    for f, label in sorted(frames.items()):
        for v, per in sorted(util.get(label, {}).items()):
            s = summarise(FRAME_COST - (1 - x / y) for x, y in paired(dict(per), dict(u0.get(v, {}))) if y)
            res.append((above(s), f"FER {100 * f:g} % on frames, {LABEL[v]}: loses "
                                  f"{100 * (FRAME_COST - s.mean):.1f} ± {100 * s.ci95:.1f} % of its 0 % utilisation"))
    out.append(Finding.over_cases("With the errors on 802.11 frames the MAC's retries hide them: each sender keeps its 0 % FER "
                        "utilisation (the issue's reason for errors above the MAC)", res, RULE_HIDDEN))
    return out


#: The baseline half of Fig. 8's order, decided on ns-2.35's WLAN by tcplab and by ns-2.35 (experiments/ns2_side.py).
BASELINE_ORDER = "On ns-2.35's WLAN, Westwood+ uses more bandwidth than NewReno at every FER > 0 (Fig. 8's baseline order)"


def baseline_order(util: Mapping[float, Mapping[str, Mapping[int, float]]], prefix: str = "") -> Finding:
    """Westwood+ > NewReno at each FER > 0 of ``util`` (FER -> sender -> seed -> Mb/s), paired over seeds;
    ``prefix`` marks the finding decided on ns-2.35's runs."""
    cases = [c for fer, u in sorted(util.items()) if fer > 0
             for c in _outperforms(f"FER {100 * fer:g} %", u, (("westwood", "newreno"),))]
    return Finding.over_cases(prefix + BASELINE_ORDER, cases, RULE_OUTPERFORMS)
