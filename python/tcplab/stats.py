"""Replication statistics: mean, standard deviation and Student-t confidence intervals.

Every number in a report is a mean over independent replications with a 95 % confidence interval
half-width ``t(0.975, n-1) * s / sqrt(n)``.  SciPy is deliberately not a dependency, so the Student t
quantile is computed here: the CDF from the regularised incomplete beta function (continued fraction,
DLMF 8.17.22, evaluated with the modified Lentz method) and the quantile by bisection, which is
robust for every degree of freedom and accurate to ~1e-12.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

_EPS = 1e-15
_TINY = 1e-300


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the regularised incomplete beta function (modified Lentz)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            return h
    raise ArithmeticError("incomplete beta continued fraction did not converge")


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not 0.0 <= x <= 1.0:
        raise ValueError("x must be in [0, 1]")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t distribution with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t: the ``t`` with ``t_cdf(t, df) == p`` (e.g. t_ppf(0.975, 9) = 2.2622)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if p < 0.5:
        return -t_ppf(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Summary:
    """Mean, sample standard deviation, 95 % CI half-width and count of a set of replications.

    ``std`` and ``ci95`` are NaN when fewer than two values exist; ``mean`` is NaN for none.
    """

    mean: float
    std: float
    ci95: float
    n: int

    def pm(self, digits: int, signed: bool = True) -> str:
        """"mean ± ci95" to ``digits`` decimals, as the findings' details print a summary; ``signed`` gives
        the mean its sign (a difference or a gain: "+1.25 ± 0.40")."""
        return f"{self.mean:{'+' if signed else ''}.{digits}f} ± {self.ci95:.{digits}f}"


def summarise(values: Iterable[float], confidence: float = 0.95) -> Summary:
    """Summarise replication values with a Student-t confidence interval at ``confidence``."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return Summary(math.nan, math.nan, math.nan, 0)
    mean = math.fsum(xs) / n
    if n == 1:
        return Summary(mean, math.nan, math.nan, 1)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_ppf(0.5 + confidence / 2.0, n - 1) * std / math.sqrt(n)
    return Summary(mean, std, half, n)


def summary_frame(frame: pl.DataFrame, metric: str, by: Sequence[str]) -> pl.DataFrame:
    """Summarise column ``metric`` of ``frame`` per group of the ``by`` columns.

    One row per distinct combination of ``by`` (sorted by them: numbers and quantities such as
    ``"50ms"`` by magnitude, see :mod:`tcplab.quantities`), with ``mean``, ``ci95`` (the
    half-width of the 95 % Student-t interval, as :func:`summarise`), ``std`` and ``n``.
    Null and NaN values are left out of a group (a failed run has no metric), so ``n`` counts the
    values actually averaged.  Raises ``ValueError`` naming the allowed columns when ``metric`` is
    not a numeric column or a ``by`` column does not exist.
    """
    numeric = [c for c, t in frame.schema.items() if t.is_numeric()]
    if metric not in frame.columns or metric not in numeric:
        raise ValueError(f"metric {metric!r} is not a numeric column; expected one of {numeric}")
    by = list(by)
    missing = [c for c in by if c not in frame.columns]
    if missing:
        raise ValueError(f"cannot group by {missing}: no such column; expected some of {frame.columns}")
    if metric in by:
        raise ValueError(f"metric {metric!r} cannot also be a grouping column")
    if not by:  # one group: the whole frame
        groups = [((), frame[metric].to_list())]
    else:
        from tcplab.quantities import sort_key

        grouped = frame.group_by(by, maintain_order=True).agg(pl.col(metric))
        groups = [(tuple(row[c] for c in by), row[metric]) for row in grouped.iter_rows(named=True)]
        # Quantities by magnitude ("5ms" before "50ms"), not as text.
        groups.sort(key=lambda g: [sort_key(v) for v in g[0]])
    rows = []
    for key, values in groups:
        s = summarise(values)
        rows.append(dict(zip(by, key, strict=True)) | {"mean": s.mean, "ci95": s.ci95, "std": s.std, "n": s.n})
    schema: dict[str, Any] = {c: frame.schema[c] for c in by}
    schema |= {"mean": pl.Float64, "ci95": pl.Float64, "std": pl.Float64, "n": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


# ------------------------------------------------------------------ verdicts on the replications

#: The verdicts a finding can have.  A comparative or equivalence finding "holds" or "fails" only
#: under a stated statistical rule on the replications; "not separated" when the data do not decide.
#: A magnitude ("+21.6 %") is "reproduced" when the published value lies in our 95 % CI (or within a
#: stated relative margin), "direction only" when only its sign / ordering holds, "not reproduced"
#: when neither.  "paper contradicts itself" marks a reading that fails on the paper's own published
#: numbers (it is shown, not counted as the paper's finding); "not checked" when the data needed is
#: missing (or rests on a table the model does not reproduce).
HOLDS, FAILS, NOT_SEPARATED, NOT_CHECKED = "holds", "fails", "not separated", "not checked"
REPRODUCED, DIRECTION_ONLY, NOT_REPRODUCED = "reproduced", "direction only", "not reproduced"
PAPER_CONTRADICTS = "paper contradicts itself"
VERDICTS: tuple[str, ...] = (
    HOLDS, FAILS, NOT_SEPARATED, REPRODUCED, DIRECTION_ONLY, NOT_REPRODUCED, PAPER_CONTRADICTS, NOT_CHECKED,
)
#: Verdicts of a comparison / equivalence / range rule, and of a magnitude rule.
COMPARATIVE: frozenset[str] = frozenset({HOLDS, FAILS})
MAGNITUDE: frozenset[str] = frozenset({REPRODUCED, DIRECTION_ONLY, NOT_REPRODUCED})
#: The verdicts that count as the paper's finding being confirmed.
CONFIRMED: frozenset[str] = frozenset({HOLDS, REPRODUCED})


def exact(value: float) -> Summary:
    """A published number treated as data: its own mean with a zero-width interval (used to run a
    finding's rule on the paper's own numbers)."""
    return Summary(float(value), 0.0, 0.0, 1)


def paired(a: Mapping[Any, float], b: Mapping[Any, float]) -> list[tuple[float, float]]:
    """The (a, b) value pairs of the replications both have (keyed by seed), in seed order."""
    return [(a[k], b[k]) for k in sorted(set(a) & set(b))]


def paired_diff(a: Mapping[Any, float], b: Mapping[Any, float]) -> Summary:
    """Summary of the per-seed differences ``a − b`` over the seeds both have (the paired comparison
    every "A beats B" rule is run on)."""
    return summarise(x - y for x, y in paired(a, b))


def gain_pct_by_seed(a: Mapping[Any, float], b: Mapping[Any, float]) -> dict[Any, float]:
    """Per seed both have, the gain of ``a`` over ``b`` in % of ``b``, ``100 · (a − b) / b``, keyed by seed in
    seed order; a seed where ``b`` is 0 has none.  Keyed, so that gains from two networks are paired by
    seed even where one of them left a seed out."""
    return {k: 100 * (a[k] - b[k]) / b[k] for k in sorted(set(a) & set(b)) if b[k]}



def paired_gain_pct(a: Mapping[Any, float], b: Mapping[Any, float]) -> Summary:
    """Summary of the per-seed gains ``100 · (a − b) / b`` over the seeds both have (:func:`gain_pct_by_seed`;
    the relative form of :func:`paired_diff`)."""
    return summarise(gain_pct_by_seed(a, b).values())

def interval(s: Summary, confidence: float = 0.95) -> tuple[float, float]:
    """The ``confidence`` interval of a summary's mean (95 %: ``mean ± ci95``); zero width when all
    values agree.  A single replication has no interval (NaN bounds, which no rule accepts as
    deciding) unless its spread is known to be zero (:func:`exact`)."""
    if s.std == 0.0 or s.ci95 == 0.0:
        return (s.mean, s.mean)
    if confidence == 0.95:
        return (s.mean - s.ci95, s.mean + s.ci95)
    if s.n < 2 or not math.isfinite(s.std):
        return (math.nan, math.nan)
    half = t_ppf(0.5 + confidence / 2.0, s.n - 1) * s.std / math.sqrt(s.n)
    return (s.mean - half, s.mean + half)


def _bounds(s: Summary, confidence: float = 0.95) -> tuple[float, float] | str:
    """The interval, or the verdict when there is none to decide with."""
    if s.n == 0 or math.isnan(s.mean):
        return NOT_CHECKED
    lo, hi = interval(s, confidence)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return NOT_SEPARATED
    return lo, hi


def above(s: Summary, threshold: float = 0.0) -> str:
    """Rule "greater" ("outperforms", "higher"): HOLDS when the 95 % CI lies wholly above
    ``threshold``, FAILS when wholly at or below it, NOT_SEPARATED when it straddles it (or has fewer
    than two replications).  An exact tie fails: a tie is not "more"."""
    b = _bounds(s)
    if isinstance(b, str):
        return b
    lo, hi = b
    if lo > threshold:
        return HOLDS
    if hi <= threshold:
        return FAILS
    return NOT_SEPARATED


def equivalent(s: Summary, margin: float, centre: float = 0.0) -> str:
    """Rule "similar" / "same" / "comparable": a two one-sided test (TOST, alpha = 0.05 each side)
    that the quantity lies within ``centre ± margin``.  HOLDS when the 90 % CI lies inside the margin
    (both one-sided tests reject), FAILS when the 95 % CI lies wholly outside it (the difference is
    shown to exceed the margin), NOT_SEPARATED otherwise.  The margin is part of the claim's reading
    and is stated beside the finding."""
    if not margin > 0:
        raise ValueError(f"equivalence margin must be positive, got {margin}")
    b90 = _bounds(s, 0.90)
    if isinstance(b90, str):
        return b90
    lo90, hi90 = b90
    if centre - margin < lo90 and hi90 < centre + margin:
        return HOLDS
    lo, hi = interval(s)
    if lo > centre + margin or hi < centre - margin:
        return FAILS
    return NOT_SEPARATED


def at_least(s: Summary, margin: float) -> str:
    """Rule "better or tied" ("the lowest, ties included"): HOLDS when the 95 % CI lies wholly
    above 0 (better) or the TOST of :func:`equivalent` shows a tie within ``margin``; FAILS when the
    95 % CI lies wholly below ``-margin`` (worse by more than a tie); NOT_SEPARATED otherwise."""
    b = _bounds(s)
    if isinstance(b, str):
        return b
    lo, hi = b
    if lo > 0 or equivalent(s, margin) == HOLDS:
        return HOLDS
    if hi < -margin:
        return FAILS
    return NOT_SEPARATED


def within(s: Summary, low: float, high: float) -> str:
    """Rule "within a range" ("2–15 %", both ends as printed): HOLDS when the 95 % CI lies inside
    [low, high], FAILS when it lies wholly outside, NOT_SEPARATED when it overlaps an edge (or has
    fewer than two replications)."""
    if not low <= high:
        raise ValueError(f"range [{low}, {high}] is empty")
    b = _bounds(s)
    if isinstance(b, str):
        return b
    lo, hi = b
    if low <= lo and hi <= high:
        return HOLDS
    if hi < low or lo > high:
        return FAILS
    return NOT_SEPARATED


def magnitude(s: Summary, published: float, rel_margin: float | None = None, resolution: float = 0.0) -> str:
    """Rule for a published magnitude (an effect such as "+21.6 %"): REPRODUCED when ``published``
    lies in our 95 % CI (widened by half the ``resolution`` the paper printed it with: 120.9 stands for
    [120.85, 120.95]), or within ``rel_margin`` · |published| of our mean when a margin is argued
    for the claim; DIRECTION_ONLY when the value is not reproduced but the CI lies wholly on the
    published value's side of 0 (the sign / ordering holds); NOT_REPRODUCED otherwise.  A single
    replication decides only through the margin (NOT_SEPARATED otherwise)."""
    if s.n == 0 or math.isnan(s.mean):
        return NOT_CHECKED
    if rel_margin is not None and abs(s.mean - published) <= rel_margin * abs(published):
        return REPRODUCED
    b = _bounds(s)
    if isinstance(b, str):
        return b
    lo, hi = b
    if lo - resolution / 2 <= published <= hi + resolution / 2:
        return REPRODUCED
    if (published > 0 and lo > 0) or (published < 0 and hi < 0):
        return DIRECTION_ONLY
    return NOT_REPRODUCED


def never(bad: int, total: int) -> str:
    """Rule "never" / "in every run" over counted cases: HOLDS when none of ``total`` is bad, FAILS when
    one is, NOT_CHECKED when there is no case."""
    if total == 0:
        return NOT_CHECKED
    return HOLDS if bad == 0 else FAILS


def all_or_none(hits: int, total: int) -> str:
    """Rule "every replication does it" against "none does": HOLDS when all ``total`` cases are hits,
    FAILS when none is, NOT_SEPARATED when mixed, NOT_CHECKED when there is no case."""
    if total == 0:
        return NOT_CHECKED
    return HOLDS if hits == total else FAILS if hits == 0 else NOT_SEPARATED


def combine(verdicts: Iterable[str]) -> str:
    """A claim made for several cases.  Comparative cases: FAILS if any case fails, HOLDS only if
    every checked case holds.  Magnitude cases: NOT_REPRODUCED if any case is, REPRODUCED only if
    every checked case is, DIRECTION_ONLY when every checked case keeps at least the direction.
    NOT_CHECKED if no case was checked, NOT_SEPARATED otherwise.  Cases not checked (no data, or
    where the claim could not fail) do not decide; the caller lists them in the finding's detail.
    Mixing comparative and magnitude verdicts in one claim is refused (they answer different
    questions)."""
    checked = [v for v in verdicts if v != NOT_CHECKED]
    unknown = set(checked) - set(VERDICTS)
    if unknown:
        raise ValueError(f"unknown verdict(s) {sorted(unknown)}; expected some of {VERDICTS}")
    if set(checked) & COMPARATIVE and set(checked) & MAGNITUDE:
        raise ValueError(f"cannot combine comparative and magnitude verdicts: {sorted(set(checked))}")
    if not checked:
        return NOT_CHECKED
    if FAILS in checked:
        return FAILS
    if NOT_REPRODUCED in checked:
        return NOT_REPRODUCED
    if all(v == HOLDS for v in checked):
        return HOLDS
    if all(v == REPRODUCED for v in checked):
        return REPRODUCED
    if all(v in (REPRODUCED, DIRECTION_ONLY) for v in checked):
        return DIRECTION_ONLY
    return NOT_SEPARATED


def ordered(gaps: Iterable[Summary]) -> str:
    """Rule for a published ordering ("A above B above C"), given the paired differences of each
    adjacent pair (better − worse, per seed; the caller orients them so that positive means the
    published order): REPRODUCED when every difference's 95 % CI lies wholly above 0 (each step is
    separated); DIRECTION_ONLY when every mean difference is above 0 but some CI reaches 0; NOT_REPRODUCED
    when some mean difference is at or below 0 (a tie or a reversal).  NOT_CHECKED without data."""
    gs = list(gaps)
    if not gs or any(g.n == 0 or math.isnan(g.mean) for g in gs):
        return NOT_CHECKED
    if all(above(g) == HOLDS for g in gs):
        return REPRODUCED
    if all(g.mean > 0 for g in gs):
        return DIRECTION_ONLY
    return NOT_REPRODUCED


# ------------------------------------------------------------------ deviation causes by a switch

#: What a measured switch says of a deviation (:func:`cause_verdict`).
ACCOUNTS, MOVES_TOWARD, CAUSE_NOT_FOUND = "accounts for", "moves toward", "cause not found"
#: The equivalence margin of :func:`cause_verdict` as a share of the paper's value: the report's own
#: deviation threshold (a cell within 10 % of the paper's is not listed as a deviation).
CAUSE_MARGIN = 0.10
RULE_CAUSE = (
    "a switch setting accounts for the paper's value when that value lies in the setting's 95 % CI (widened by half "
    "the paper's print resolution) and a two one-sided test shows the setting within ±10 % of it (its 90 % CI "
    "inside the margin); else it moves toward it when its mean is nearer the paper's than our setting's and the two "
    "95 % CIs do not overlap; else cause not found"
)


def from_cell(mean: float | None, ci95: float | None, n: int) -> Summary:
    """The :class:`Summary` of a stored table cell (mean, 95 % half-width, count): the standard deviation
    is recovered from the half-width (``ci95 = t(0.975, n − 1) · std / √n``) so that other intervals of the
    same replications can be drawn."""
    if mean is None or n == 0:
        return Summary(math.nan, math.nan, math.nan, 0)
    if n < 2 or ci95 is None:
        return Summary(float(mean), math.nan, math.nan, n)
    std = float(ci95) * math.sqrt(n) / t_ppf(0.975, n - 1)
    return Summary(float(mean), std, float(ci95), n)


def cause_verdict(switched: Summary, published: float, ours: Summary | None = None,
                  margin: float = CAUSE_MARGIN, resolution: float = 0.0) -> str:
    """Rule for "this switch setting accounts for the deviation" (:data:`RULE_CAUSE`), on the switched
    setting's replications against the paper's value:

    * ACCOUNTS when ``published`` lies in the setting's 95 % CI (widened by half ``resolution``) **and**
      :func:`equivalent` shows the setting within ``± margin · |published|`` of it — a mean that matches
      with a CI excluding the value does not account for it, nor does a CI so wide that it holds the value
      by being uninformative;
    * MOVES_TOWARD when not, but the setting's mean is nearer ``published`` than ``ours`` (the setting the
      experiment uses) and their 95 % CIs do not overlap (the move is larger than both runs' noise);
    * CAUSE_NOT_FOUND otherwise, and whenever either interval is missing (a single replication decides
      nothing)."""
    lo_hi = _bounds(switched)
    if isinstance(lo_hi, str):
        return CAUSE_NOT_FOUND
    lo, hi = lo_hi
    inside = lo - resolution / 2 <= published <= hi + resolution / 2
    if inside and published and equivalent(switched, margin * abs(published), centre=published) == HOLDS:
        return ACCOUNTS
    if ours is None:
        return CAUSE_NOT_FOUND
    o = _bounds(ours)
    if isinstance(o, str):
        return CAUSE_NOT_FOUND
    nearer = abs(switched.mean - published) < abs(ours.mean - published)
    apart = hi < o[0] or lo > o[1]
    return MOVES_TOWARD if nearer and apart else CAUSE_NOT_FOUND
