"""Orderings from the literature, each decided by a stated rule on the paired replications.

Every scheme runs a cell with the same seeds, so schemes are compared seed by seed.  Input: run records
as built by ``experiment.runs`` — dicts with ``scheme`` (a key of ``schemes.SCHEMES``), ``family``
("fer" or "disconnection"), ``level`` (the error rate, or the outage in seconds), ``seed``, ``goodput``
(Mb/s), ``completion`` (s), ``retx`` and ``timeouts`` (the FH sender's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tcplab.experiments.base import Finding
from tcplab.experiments.wireless_baselines.schemes import BY_KEY, LABEL, SCHEMES
from tcplab.stats import FAILS, HOLDS, NOT_CHECKED, ordered, paired, summarise, within

Run = dict[str, Any]

RULE_ORDER = (
    "paired over seeds, per level: for each adjacent pair of the published order the per-seed difference "
    "(better − worse; goodput, or completion time reversed); reproduced when every difference's 95 % CI lies "
    "wholly above 0 at every level, direction only when every mean difference is above 0 but some CI reaches "
    "0, not reproduced when a mean difference is at or below 0 at some level (stats.ordered)"
)
RULE_ZERO = "counted over every replication of every outage: holds when no run has an FH timeout, fails otherwise"
RULE_RANGE = (
    "paired over seeds, per outage: the reduction of completion time 100·(NewReno − M-TCP+)/NewReno; holds when "
    "its 95 % CI lies inside [2, 15] % at every outage, fails when wholly outside at one (stats.within)"
)
RULE_SAME = (
    "exact, per seed: holds when every run of the scheme delivers, retransmits and completes exactly as its "
    "base TCP's run with the same seed, fails otherwise"
)
#: Seed 000 §4 (Table 3): "The M-TCP⁺ algorithm reduces download response time by 2%–15%."
MTCP_PLUS_RANGE = (2.0, 15.0)


def _by(runs: Sequence[Run], **kw: Any) -> list[Run]:
    return [r for r in runs if all(r[k] == v for k, v in kw.items())]


def _levels(runs: Sequence[Run], family: str, positive: bool) -> list[float]:
    return sorted({r["level"] for r in runs if r["family"] == family and (r["level"] > 0 or not positive)})


def _metric(runs: Sequence[Run], scheme: str, family: str, level: float, metric: str) -> dict[int, float]:
    return {int(r["seed"]): float(r[metric]) for r in _by(runs, scheme=scheme, family=family, level=level)
            if r[metric] is not None}


def _fmt_level(family: str, level: float) -> str:
    return f"FER {100 * level:g} %" if family == "fer" else f"{level:g} s outage"


def ordering(runs: Sequence[Run], chain: Sequence[str], family: str, metric: str, *, pairs: Sequence[tuple[str, str]] = ()
             ) -> list[tuple[str, str]]:
    """Per level of a family (FER > 0, or every outage): the verdict of ``stats.ordered`` on the adjacent
    pairs of ``chain`` (best first), or on the given ``pairs`` (better, worse), with a detail.  ``metric`` is
    "goodput" (higher is better) or "completion" (lower is better)."""
    steps = list(pairs) or list(zip(chain, chain[1:]))
    sign = 1.0 if metric == "goodput" else -1.0
    out = []
    for lv in _levels(runs, family, positive=family == "fer"):
        gaps, parts = [], []
        for a, b in steps:
            d = [sign * (x - y) for x, y in paired(_metric(runs, a, family, lv, metric), _metric(runs, b, family, lv, metric))]
            s = summarise(d)
            gaps.append(s)
            parts.append(f"{LABEL[a]} − {LABEL[b]} {sign * s.mean:+.3g} ± {s.ci95:.2g}")
        unit = "Mb/s" if metric == "goodput" else "s"
        out.append((ordered(gaps), f"{_fmt_level(family, lv)}: {'; '.join(parts)} {unit} (n = {gaps[0].n if gaps else 0})"))
    return out


def findings(runs: Sequence[Run]) -> list[Finding]:
    """Every finding, always (a finding without the runs it needs is "not checked")."""
    out: list[Finding] = []
    # Balakrishnan et al. 1997 (IEEE/ACM ToN 5(6)), abstract: "a reliable link-layer protocol that is TCP-aware
    # provides very good performance. Furthermore, it is possible to achieve good performance without splitting
    # the end-to-end connection at the base station. We also demonstrate that selective acknowledgments and
    # explicit loss notifications result in significant performance improvements." Its comparison (as the
    # Yale CS633 review summarises it): LL-TCP-AWARE noticeably above SPLIT-SMART, 1.75-2x E2E-SMART, ~9x Reno.
    out.append(Finding.over_cases(
        "Under random errors a TCP-aware link layer (Snoop) gives more goodput than a split connection (I-TCP) "
        "and than end-to-end Reno, at every FER above 0 (Balakrishnan et al. 1997)",
        ordering(runs, (), "fer", "goodput", pairs=[("snoop", "itcp"), ("snoop", "reno")]), RULE_ORDER))
    out.append(Finding.over_cases(
        "End-to-end TCP with selective acknowledgements lies between: Snoop > SACK > Reno in goodput under random "
        "errors, at every FER above 0 (Balakrishnan et al. 1997)",
        ordering(runs, ("snoop", "sack", "reno"), "fer", "goodput"), RULE_ORDER))
    out.append(Finding.over_cases(
        "Snoop gives more goodput than the split connection and every end-to-end TCP of that comparison "
        "(I-TCP, SACK, NewReno, Reno) under random errors (seed 001 §II after Balakrishnan et al. 1997)",
        ordering(runs, (), "fer", "goodput", pairs=[("snoop", k) for k in ("itcp", "sack", "newreno", "reno")]), RULE_ORDER))
    out.append(Finding.over_cases(
        "With several losses per window SACK recovers better than NewReno, and NewReno better than Reno "
        "(Fall & Floyd 1996): goodput SACK > NewReno > Reno under random errors",
        ordering(runs, ("sack", "newreno", "reno"), "fer", "goodput"), RULE_ORDER))
    out.append(Finding.over_cases(
        "Adaptive TCP > Westwood+ > NewReno in goodput at every FER above 0 (seed 004, §4.2.1-4.2.2, Fig. 8)",
        ordering(runs, ("adaptive", "westwood", "newreno"), "fer", "goodput"), RULE_ORDER))
    out.append(Finding.over_cases(
        "Veno's goodput is above Reno's under random (non-congestion) loss (Fu & Liew 2003)",
        ordering(runs, ("veno", "reno"), "fer", "goodput"), RULE_ORDER))
    out.append(Finding.over_cases(
        "M-TCP+ has the lowest download time of M-TCP+, M-TCP, NewReno and SACK at every disconnection "
        "(seed 000 §4, Table 3)",
        ordering(runs, (), "disconnection", "completion", pairs=[("mtcp_plus", k) for k in ("mtcp", "newreno", "sack")]), RULE_ORDER))
    res = []
    for lv in _levels(runs, "disconnection", positive=False):
        pairs_ = paired(_metric(runs, "mtcp_plus", "disconnection", lv, "completion"),
                        _metric(runs, "newreno", "disconnection", lv, "completion"))
        s = summarise(100.0 * (n - p) / n for p, n in pairs_ if n)
        res.append((within(s, *MTCP_PLUS_RANGE), f"{lv:g} s outage: {s.mean:.1f} ± {s.ci95:.1f} %"))
    out.append(Finding.over_cases(
        "M-TCP+ reduces the download time by 2–15 % (seed 000 §4, Table 3; here over NewReno)", res, RULE_RANGE))
    out.append(Finding.over_cases(
        "ACK holding completes the download sooner than plain Reno after a disconnection (seed 001, Table I)",
        ordering(runs, ("ack_holding", "reno"), "disconnection", "completion"), RULE_ORDER))
    hold = _by(runs, scheme="ack_holding", family="disconnection")
    n_to = sum(r["timeouts"] for r in hold)
    out.append(Finding.decided(
        "ACK holding prevents any timeout at the FH during a disconnection (seed 001 §VI)",
        NOT_CHECKED if not hold else HOLDS if n_to == 0 else FAILS,
        f"{n_to} FH timeouts in {len(hold)} runs; plain Reno: "
        f"{sum(r['timeouts'] for r in _by(runs, scheme='reno', family='disconnection'))}", RULE_ZERO))
    out.append(Finding.over_cases(
        "Freeze-TCP completes the download sooner than Reno after a disconnection (Goff et al. 2000)",
        ordering(runs, ("freeze", "reno"), "disconnection", "completion"), RULE_ORDER))
    out.append(same_as_base(runs))
    return out


def same_as_base(runs: Sequence[Run]) -> Finding:
    """Model check: a scheme that acts only on a disconnection signal is its base TCP under frame errors."""
    res = []
    for s in SCHEMES:
        if not s.signal_only or s.key not in {r["scheme"] for r in runs}:
            continue
        base = {(r["level"], r["seed"]): r for r in _by(runs, scheme=s.signal_only, family="fer")}
        mine = _by(runs, scheme=s.key, family="fer")
        keys = ("goodput", "completion", "retx", "timeouts")
        diff = [r for r in mine if (b := base.get((r["level"], r["seed"]))) is None or any(r[k] != b[k] for k in keys)]
        verdict = NOT_CHECKED if not mine else HOLDS if not diff else FAILS
        res.append((verdict, f"{s.label} vs {BY_KEY[s.signal_only].label}: {len(mine) - len(diff)} of {len(mine)} runs identical"))
    return Finding.over_cases(
        "Model check: without a disconnection signal, M-TCP+, ACK holding and Freeze-TCP run exactly as their base TCP",
        res, RULE_SAME)
