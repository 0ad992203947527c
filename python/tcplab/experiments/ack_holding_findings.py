"""Seed 001's claims, each decided by a stated statistical rule on the paired replications.

ACK holding and plain Reno (and every predictor factor) run with the same seeds, so they are compared
seed by seed.  Input: run records as built by ``ack_holding._runs`` — dicts with ``seed``, ``fade``
("one" or "two"), ``scheme`` ("holding" or "reno"), ``factor``, ``packets`` and ``timeouts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tcplab.experiments.base import Finding
from tcplab.stats import FAILS, HOLDS, NOT_CHECKED, above, paired, summarise, within

Run = dict[str, Any]

FADES = ("one", "two")
FADE_TEXT = {"one": "one fade", "two": "two fades"}
#: Table I's improvement (ratio x 100) per fade case.
PUBLISHED_RATIO = {"one": 120.9, "two": 791.5}
#: The tolerance on a published ratio: the report's "within 25 %" band.
RATIO_TOLERANCE = 0.25

RULE_COUNT = "counted over every replication: holds when no run has an FH timeout, fails otherwise"
RULE_ABOVE = "paired over seeds; holds when the 95 % CI of the ratio x 100 lies wholly above 100, fails when wholly at or below"
RULE_RATIO = (
    f"paired over seeds; holds when the 95 % CI of the ratio lies inside the published ratio ±{100 * RATIO_TOLERANCE:g} %, "
    "fails when it lies wholly outside"
)
RULE_OVER_UNDER = (
    "paired over seeds; holds when the 95 % CI of gain(over) − gain(under) lies wholly above 0, fails when "
    "wholly at or below 0, not separated otherwise"
)


def _select(runs: Sequence[Run], **kw: Any) -> list[Run]:
    return [r for r in runs if all(r[k] == v for k, v in kw.items())]


def _packets(runs: Sequence[Run]) -> dict[int, float]:
    return {int(r["seed"]): float(r["packets"]) for r in runs}


def ratios(hold: Sequence[Run], reno: Sequence[Run]) -> list[float]:
    """Per-seed throughput ratio x 100 (paired on the seed; a Reno run with 0 packets has none)."""
    return [100.0 * h / r for h, r in paired(_packets(hold), _packets(reno)) if r]


def findings(table: Sequence[Run], predictor: Sequence[Run], factors: Sequence[float]) -> list[Finding]:
    hold, reno = _select(table, scheme="holding"), _select(table, scheme="reno")
    out: list[Finding] = []

    exact = hold + [r for r in predictor if abs(r["factor"] - 1.0) < 1e-9]
    n_to = sum(r["timeouts"] for r in exact)
    verdict = NOT_CHECKED if not exact else HOLDS if n_to == 0 else FAILS
    out.append(Finding.decided(
        "With an exact predictor the FH never times out under ACK holding (both fade cases)", verdict,
        f"{n_to} timeouts in {len(exact)} runs; plain Reno: {sum(r['timeouts'] for r in reno)} in {len(reno)} runs",
        RULE_COUNT))

    res = []
    for f in FADES:
        s = summarise(ratios(_select(hold, fade=f), _select(reno, fade=f)))
        res.append((above(s, 100.0), f"{FADE_TEXT[f]}: ratio {s.mean:.1f} ± {s.ci95:.1f} % (n = {s.n})"))
    out.append(Finding.over_cases("ACK holding delivers more than plain Reno in both fade cases", res, RULE_ABOVE))

    res = []
    for f in FADES:
        s = summarise(ratios(_select(hold, fade=f), _select(reno, fade=f)))
        pub = PUBLISHED_RATIO[f]
        lo, hi = pub * (1 - RATIO_TOLERANCE), pub * (1 + RATIO_TOLERANCE)
        res.append((within(s, lo, hi), f"{FADE_TEXT[f]}: {s.mean:.1f} ± {s.ci95:.1f} % vs paper {pub} % "
                                       f"(band {lo:.0f}–{hi:.0f} %)"))
    out.append(Finding.over_cases("ACK holding's gain is the paper's: x1.21 with one fade and x7.9 with two (Table I)",
                        res, RULE_RATIO))

    pairs = [(k, u) for k in factors if k > 1.0 for u in factors if abs(u * k - 1.0) < 1e-9]
    if pairs:
        res = []
        for f in FADES:
            base = _packets(_select(reno, fade=f))
            for over, under in pairs:
                g_over = _packets(_select(predictor, fade=f, factor=over))
                g_under = _packets(_select(predictor, fade=f, factor=under))
                # Gains are relative to the same seed's Reno run, so the difference of gains is the
                # difference of holding's packets over Reno's.
                seeds = sorted(set(g_over) & set(g_under) & set(base))
                s = summarise(100.0 * (g_over[k] - g_under[k]) / base[k] for k in seeds if base[k])
                res.append((above(s), f"{FADE_TEXT[f]}: x{over:g} − x{under:g} = {s.mean:+.1f} ± {s.ci95:.1f} points"))
        out.append(Finding.over_cases("Over-estimating the outage costs less than under-estimating it by the same factor "
                            "(the paper's advice)", res, RULE_OVER_UNDER))
    return out
