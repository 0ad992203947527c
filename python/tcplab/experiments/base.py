"""What an experiment module provides, and the records its analysis returns.

An experiment reproduces one paper's tables and figures (or one of our own validation studies).  It is
a plain module rather than a class so that a reader finds the scenario, the sweep grid, the published
numbers and the analysis in one file, top to bottom.  ``report.py`` only relies on the attributes of
:class:`Experiment`; each analysis produces :class:`TableCell` and :class:`Finding` records, which the
report renders and also writes verbatim to ``tables.json`` for machine checking.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from tcplab.runner import Sweep
from tcplab.stats import (
    DIRECTION_ONLY,
    FAILS,
    HOLDS,
    NOT_CHECKED,
    NOT_REPRODUCED,
    NOT_SEPARATED,
    PAPER_CONTRADICTS,
    REPRODUCED,
    VERDICTS,
    Summary,
    combine,
)
from tcplab.store import Store


#: The ns-2-like TCP the ns-2 papers' experiments copied by hand before issue 34 moved them to
#: ``profile = "ns2"`` (docs/validation/ns2_papers.md): 3 s initial RTO, minrto 0.2 s, maxrto 60 s, 10 ms tick,
#: no abort, over the classic (RFC) rules.  Kept only for the studies built on those papers' networks
#: (routing on tcp-pgy's, wireless-baselines on ack-holding's), whose results the switch must not change.
LEGACY_NS2_TCP: dict[str, Any] = {
    "mss": 1000,
    "window_unit": "segments",
    "ca_mode": "per_ack",
    "initial_window": 2,
    "rcv_buf": "20000B",
    "sack": False,
    "delayed_ack": False,
    "rto_initial": "3s",
    "rto_min": "200ms",
    "rto_max": "60s",
    "clock_granularity": "10ms",
    "timer_tick": "10ms",
    "max_retransmissions": 1000,
}


#: The text a finding decided on ns-2.35's runs starts with (experiments/ns2_side.py FINDING_PREFIX).
NS2_FINDING_PREFIX = "On ns-2.35 (same setup): "


@dataclass(frozen=True)
class Published:
    """A number printed in a paper (or an analytic reference), with where it comes from."""

    value: float
    ref: str  # e.g. "Table 3" or "Fig. 5" or "Mathis et al. 1997, eq. (3)"


@dataclass(frozen=True)
class TableCell:
    """One cell of a reproduced table: our replicated measurement next to the published value.

    ``diff`` is ``mean - published`` in ``unit``; ``diff_pct`` is that relative to ``published``.
    Both are None when there is no published value or no measurement.
    """

    table: str
    row: str
    column: str
    published: float | None
    mean: float | None
    ci95: float | None
    n: int
    unit: str
    ref: str = ""

    @classmethod
    def of(
        cls, table: str, row: str, column: str, stat: Summary, unit: str, published: Published | None = None
    ) -> TableCell:
        """Build a cell from a replication summary (NaN becomes None so it serialises as JSON null)."""
        return cls(
            table=table,
            row=row,
            column=column,
            published=published.value if published else None,
            mean=_finite(stat.mean),
            ci95=_finite(stat.ci95),
            n=stat.n,
            unit=unit,
            ref=published.ref if published else "",
        )

    @property
    def diff(self) -> float | None:
        if self.published is None or self.mean is None:
            return None
        return self.mean - self.published

    @property
    def diff_pct(self) -> float | None:
        if self.diff is None or not self.published:
            return None
        return 100.0 * self.diff / self.published

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"diff": self.diff, "diff_pct": self.diff_pct}


@dataclass(frozen=True)
class Finding:
    """A qualitative claim checked against our results (e.g. "SACK >= NewReno at p = 1 %").

    ``verdict`` is one of :data:`tcplab.stats.VERDICTS`; ``holds`` is true only for "holds".
    ``rule`` states the statistical rule that decided it.  Build one with :meth:`decided`; the
    older ``Finding(text, holds, detail)`` form gives "holds" or "fails".
    """

    text: str
    holds: bool
    detail: str
    verdict: str = ""
    rule: str = ""
    #: The same rule run on the paper's own published numbers (``[verdict] detail``), when it has them.
    paper: str = ""

    def __post_init__(self) -> None:
        if not self.verdict:
            object.__setattr__(self, "verdict", HOLDS if self.holds else FAILS)
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r}: expected one of {VERDICTS}")
        if self.holds != (self.verdict == HOLDS):
            raise ValueError(f"holds={self.holds} contradicts verdict {self.verdict!r}")

    @classmethod
    def decided(cls, text: str, verdict: str, detail: str, rule: str) -> Finding:
        return cls(text=text, holds=verdict == HOLDS, detail=detail, verdict=verdict, rule=rule)

    @classmethod
    def over_cases(cls, text: str, results: Sequence[tuple[str, str]], rule: str) -> Finding:
        """A claim made for several cases, each ``(verdict, detail)``: decided by
        :func:`tcplab.stats.combine`, the details listed with their own verdicts."""
        return cls.decided(text, combine(v for v, _ in results),
                           "; ".join(f"[{v}] {d}" for v, d in results) or "no runs", rule)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


#: Seeds under which a published number is entered as data: two identical replications, so the rule
#: sees the number itself with a zero-width confidence interval.
PAPER_SEEDS: tuple[int, int] = (0, 1)


def against_paper(ours: Sequence[Finding], paper: Sequence[Finding]) -> list[Finding]:
    """Each of our findings beside the same rule run on the paper's own numbers (``paper``, matched by
    text, built from the published values with zero-width intervals).

    Where the paper's own numbers fail the rule (or, for a magnitude, do not reproduce the printed value
    they were computed from), the reading contradicts the paper itself: the finding
    becomes "paper contradicts itself" (shown, with both details, and not counted as the paper's
    finding), whatever our runs say.  Elsewhere the paper's verdict is recorded beside ours.  A paper
    finding whose text is none of ours is a programming error (ValueError): it would drop that check.
    """
    by_text = {f.text: f for f in paper}
    stray = sorted(set(by_text) - {f.text for f in ours})
    if stray:
        raise ValueError(f"paper findings {stray} match none of our findings")
    out = []
    for f in ours:
        p = by_text.get(f.text)
        if p is None:
            out.append(f)
            continue
        # A detail over several cases already tags each case with its verdict.
        record = p.detail if p.detail.startswith("[") else f"[{p.verdict}] {p.detail}"
        if p.verdict in (FAILS, NOT_REPRODUCED, DIRECTION_ONLY):
            out.append(replace(f, holds=False, verdict=PAPER_CONTRADICTS, paper=record,
                               detail=f"paper contradicts itself: on its own numbers {record}; ours: "
                                      f"[{f.verdict}] {f.detail}"))
        else:
            out.append(replace(f, paper=record))
    return out


def span(cells: Sequence[TableCell], table: str, rows: Sequence[str] = (), column: str = "", *, digits: int = 0,
         value: str = "mean") -> str:
    """"lo–hi" of the cells of a table (title prefix), optionally restricted to rows and a column prefix, for
    prose that quotes the run's numbers; ``value`` is "mean" or "diff_pct" (|diff %|).  "no data" when none."""
    xs = []
    for c in cells:
        if c.table.startswith(table) and (not rows or c.row in rows) and c.column.startswith(column):
            x = c.mean if value == "mean" else (abs(c.diff_pct) if c.diff_pct is not None else None)
            if x is not None and math.isfinite(x):
                xs.append(x)
    if not xs:
        return "no data"
    lo, hi = f"{min(xs):.{digits}f}", f"{max(xs):.{digits}f}"
    return lo if lo == hi else f"{lo}–{hi}"


def cell_mean(cells: Sequence[TableCell], table: str, row: str, column: str) -> float | None:
    """The mean of one cell (table title prefix, row, column prefix), or None."""
    for c in cells:
        if c.table.startswith(table) and c.row == row and c.column.startswith(column):
            return c.mean
    return None


@dataclass(frozen=True)
class Claim:
    """One quantitative or comparative sentence of a paper's text, and how we check it.

    Exactly one of ``finding`` (a fragment of the text of the finding that decides it), ``cells``
    (published cells, ``(table title prefix, row, column)``, each judged by whether the printed value lies
    in our 95 % CI) or ``reason`` (why it is not checked) says how.
    """

    quote: str
    section: str
    check: str
    finding: str = ""
    cells: tuple[tuple[str, str, str], ...] = ()
    reason: str = ""

    def __post_init__(self) -> None:
        if sum(map(bool, (self.finding, self.cells, self.reason))) != 1:
            raise ValueError(f"claim {self.quote[:40]!r}: give exactly one of finding, cells or reason")


def claim_verdict(claim: Claim, findings: Sequence[Finding], cells: Sequence[TableCell]) -> tuple[str, str]:
    """The verdict of a claim and a note saying what decided it.

    A claim checked by a finding takes the finding's verdict; by published cells, "reproduced" when every
    printed value lies in our 95 % CI (widened by half its print resolution, 0.1), "not reproduced" when
    one lies outside, "not separated" without an interval; an unchecked claim is "not checked" with its
    reason.  A fragment matching no finding or several is a programming error (ValueError).
    """
    if claim.reason:
        return NOT_CHECKED, claim.reason
    if claim.finding:
        # A claim is the paper's and is decided on tcplab's runs; the same claim decided on ns-2.35's runs
        # (experiments/ns2_side.py) is shown beside it in the findings, not a second match.
        hits = [f for f in findings if claim.finding in f.text and not f.text.startswith(NS2_FINDING_PREFIX)]
        if len(hits) != 1:
            raise ValueError(f"claim {claim.quote[:40]!r}: finding fragment {claim.finding!r} matches {len(hits)} findings")
        f = hits[0]
        if f.verdict == NOT_CHECKED:  # the reason: the finding detail's first clause ("it rests on Table 4, ...")
            return NOT_CHECKED, f"finding: {f.text}; {f.detail.split(' (', 1)[0]}"
        return f.verdict, f"finding: {f.text}"
    verdicts: list[str] = []
    notes: list[str] = []
    for table, row, column in claim.cells:
        hits = [c for c in cells if c.table.startswith(table) and c.row == row and c.column == column]
        if len(hits) > 1 or (hits and hits[0].published is None):
            raise ValueError(f"claim {claim.quote[:40]!r}: cell {(table, row, column)} matches {len(hits)} published cells")
        if not hits:  # a point this mode does not run (quick mode runs fewer)
            verdicts.append(NOT_CHECKED)
            notes.append(f"{row}, {column}: not run in this mode")
            continue
        c = hits[0]
        if c.mean is None:
            verdicts.append(NOT_CHECKED)
        elif c.ci95 is None:
            verdicts.append(NOT_SEPARATED)
        else:
            inside = c.mean - c.ci95 - 0.05 <= c.published <= c.mean + c.ci95 + 0.05
            verdicts.append(REPRODUCED if inside else NOT_REPRODUCED)
        ours = "–" if c.mean is None else f"{c.mean:.4g} ± {c.ci95:.2g}" if c.ci95 is not None else f"{c.mean:.4g}"
        notes.append(f"{row}, {column}: paper {c.published:g}, ours {ours} {c.unit}")
    return combine(verdicts), "cells: " + "; ".join(notes)


class Experiment(Protocol):
    """The module-level attributes an experiment defines (checked by the registry's tests)."""

    NAME: str
    TITLE: str
    PUBLISHED: Any  # published numbers as data, each with its table/figure reference

    def sweeps(self, quick: bool) -> Sequence[Sweep]: ...

    def analyse(self, store: Store, quick: bool) -> tuple[list[TableCell], list[Finding]]: ...

    def figures(self, store: Store, outdir: Path, quick: bool = False) -> list[Path]: ...


def _finite(x: float) -> float | None:
    return x if x is not None and math.isfinite(x) else None
