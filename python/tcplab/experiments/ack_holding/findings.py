"""Seed 001's claims, each decided by a stated statistical rule on the paired replications.

ACK holding and plain Reno (and every predictor factor) run with the same seeds, so they are compared
seed by seed.  Input: run records as built by ``ack_holding._runs`` — dicts with ``seed``, ``fade``
("one" or "two"), ``scheme`` ("holding" or "reno"), ``factor``, ``packets`` and ``timeouts``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from tcplab.experiments.base import Finding
from tcplab.stats import FAILS, HOLDS, above, equivalent, exact, magnitude, never, paired, summarise

Run = dict[str, Any]

FADES = ("one", "two")
FADE_TEXT = {"one": "one fade", "two": "two fades"}
#: Table I's improvement (ratio x 100) per fade case.
PUBLISHED_RATIO = {"one": 120.9, "two": 791.5}
#: §VI and §VII: "achieves throughput over 7.5 times that of the current TCP" (the two-fade case).
OVER_TIMES = 7.5

RULE_COUNT = "counted over every replication: holds when no run has an FH timeout, fails otherwise"
RULE_ABOVE = "paired over seeds; holds when the 95 % CI of the ratio x 100 lies wholly above 100, fails when wholly at or below"
RULE_RATIO = (
    "paired over seeds, the ratio x 100 per seed; a magnitude: reproduced when the published ratio (printed to 0.1) "
    "lies in our 95 % CI, direction only when the CI lies wholly above 100 (holding wins) but away from the published value, not "
    "reproduced otherwise"
)
RULE_OVER = (
    f"paired over seeds (two fades); holds when the 95 % CI of the ratio lies wholly above {OVER_TIMES:g} x 100, fails "
    "when wholly at or below"
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

    exact_runs = hold + [r for r in predictor if abs(r["factor"] - 1.0) < 1e-9]
    n_to = sum(r["timeouts"] for r in exact_runs)
    out.append(Finding.decided(
        "With an exact predictor the FH never times out under ACK holding (both fade cases)",
        never(n_to, len(exact_runs)),
        f"{n_to} timeouts in {len(exact_runs)} runs; plain Reno: {sum(r['timeouts'] for r in reno)} in {len(reno)} runs",
        RULE_COUNT))

    ratio = {f: summarise(ratios(_select(hold, fade=f), _select(reno, fade=f))) for f in FADES}
    res = []
    for f in FADES:
        s = ratio[f]
        res.append((above(s, 100.0), f"{FADE_TEXT[f]}: ratio {s.pm(1, signed=False)} % (n = {s.n})"))
    out.append(Finding.over_cases("ACK holding delivers more than plain Reno in both fade cases", res, RULE_ABOVE))

    res = []
    for f in FADES:
        s = ratio[f]
        pub = PUBLISHED_RATIO[f]
        # The magnitude is the gain over 100 %: its sign is holding's advantage.
        gain = dataclasses.replace(s, mean=s.mean - 100.0)
        res.append((magnitude(gain, pub - 100.0, resolution=0.1), f"{FADE_TEXT[f]}: {s.pm(1, signed=False)} % vs paper {pub} %"))
    out.append(Finding.over_cases("ACK holding's gain is the paper's: 120.9 % with one fade and 791.5 % with two (Table I)",
                        res, RULE_RATIO))

    s = ratio["two"]
    out.append(Finding.over_cases(f"ACK holding achieves over {OVER_TIMES:g} times Reno's throughput (two fades, §VI, §VII)",
                                  [(above(s, 100.0 * OVER_TIMES), f"two fades: ratio {s.pm(1, signed=False)} %")]
                                  if s.n else [], RULE_OVER))

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
                res.append((above(s), f"{FADE_TEXT[f]}: x{over:g} − x{under:g} = {s.pm(1)} points"))
        out.append(Finding.over_cases("Over-estimating the outage costs less than under-estimating it by the same factor "
                            "(the paper's advice)", res, RULE_OVER_UNDER))
    return out


#: §VII: "the final values of RTO do not vary considerably even for large changes in values of T"
#: (Figs 6 and 8: T = 500 s and 250 s).  T halves; "not considerably" is read as final RTOs within a
#: quarter of each other (|ln ratio| < ln 1.25), a quarter of the change in T.
RTO_STABLE_FACTOR = 1.25
RULE_SHAPE = "the closed-form schedule (eqs. (1)-(11)), exact: holds when the printed shape is the schedule's, fails otherwise"
RULE_COUNT_SHAPE = (
    "the closed-form schedule, exact: the number of rising inter-ACK gaps is a magnitude — reproduced when it is the "
    "paper's 5, direction only when the gaps rise then fall to a constant but over another count, not reproduced "
    "when they do not rise first"
)
RULE_RTO_STABLE = (
    f"the closed-form schedule, exact; equivalence on ln(final RTO at T = 500 s / at T = 250 s) with margin ln "
    f"{RTO_STABLE_FACTOR:g} (a quarter of the factor 2 in T)"
)


def schedule_findings(s500: dict[str, Any], s250: dict[str, Any]) -> list[Finding]:
    """Figs 5-8's claims on the schedule of 20 ACKs over T = 500 s and 250 s (``_core.ack_schedule``'s
    ``gaps`` and ``rto``)."""
    out: list[Finding] = []
    gaps = list(s500["gaps"])
    rising = next((i for i in range(1, len(gaps)) if gaps[i] <= gaps[i - 1]), len(gaps))
    tail = gaps[rising:]
    # The shape: gaps rise, then never rise again and end on a constant.
    flat_end = len(tail) >= 2 and abs(tail[-1] - tail[-2]) < 1e-9
    falls = bool(tail) and all(b <= a + 1e-9 for a, b in zip(tail, tail[1:]))
    shape = rising >= 2 and falls and flat_end
    # The count is the magnitude; a schedule without the shape keeps not even the direction.
    verdict = magnitude(exact(float(rising) if shape else -1.0), 5.0)
    out.append(Finding.over_cases(
        "The inter-ACK time rises for the first 5 ACKs, then falls to a small constant (Fig. 5, T = 500 s, 20 ACKs)",
        [(verdict, f"rises over {rising} gaps ({', '.join(f'{g:.2f}' for g in gaps[:rising + 1])} s), then "
                   f"{'falls to' if falls else 'does not fall to'} {tail[-1]:.2f} s" if tail else "never falls")],
        RULE_COUNT_SHAPE))

    rto = list(s500["rto"])
    peak = max(range(len(rto)), key=lambda i: rto[i])
    ok = 0 < peak < len(rto) - 1 and rto[0] < rto[peak] and rto[-1] < rto[peak]
    out.append(Finding.over_cases(
        "The FH's RTO first rises, then falls to a lower value (Fig. 6, T = 500 s)",
        [(HOLDS if ok else FAILS, f"RTO {rto[0]:.2f} s → peak {rto[peak]:.2f} s (ACK {peak}) → final {rto[-1]:.2f} s")],
        RULE_SHAPE))

    a, b = float(s500["rto"][-1]), float(s250["rto"][-1])
    ratio = math.log(a / b) if a > 0 and b > 0 else math.inf
    out.append(Finding.over_cases(
        "The final RTO hardly varies with T (§VII, Figs 6 and 8: T = 500 s vs 250 s)",
        [(equivalent(exact(ratio), math.log(RTO_STABLE_FACTOR)), f"final RTO {a:.2f} s (T = 500 s) vs {b:.2f} s "
                                                                 f"(T = 250 s): ratio {a / b:.2f}")],
        RULE_RTO_STABLE))
    return out
