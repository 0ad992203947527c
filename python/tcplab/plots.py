"""Matplotlib set-up shared by every experiment's figures.

Figures are built as bare ``matplotlib.figure.Figure`` objects rendered by the Agg canvas, never
through pyplot: that works headless (servers, CI) without touching the global backend of a user's
notebook, and leaves no pyplot state to leak between figures.  One house style keeps the report's
figures alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from tcplab.quantities import sorted_values


def new_figure() -> tuple[Figure, Axes]:
    """A fresh figure with one axes in the house style (light grid, no top/right frame)."""
    # Constrained layout fits titles, labels and legends on any figure (multi-axes ones included)
    # without tight_layout's warnings.
    fig = Figure(figsize=(6.4, 4.0), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    ax.grid(True, alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def save(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as PNG to ``path``, creating folders."""
    from tcplab._fs import replace_file

    return replace_file(path, lambda tmp: fig.savefig(tmp, format="png"))


def metric_axis(metric: str) -> tuple[str, float]:
    """Axis label and divisor for a metric column: bit rates in Mb/s, times in s, ratios in %."""
    if metric.endswith("_bps"):
        return f"{metric.removesuffix('_bps').replace('_', ' ')} (Mb/s)", 1e6
    for suffix, unit in (("_s", "s"), ("_pct", "%")):
        if metric.endswith(suffix):
            return f"{metric.removesuffix(suffix).replace('_', ' ')} ({unit})", 1.0
    return metric.replace("_", " "), 1.0


def summary_figure(
    summary: pl.DataFrame,
    metric: str,
    by: Sequence[str],
    x: str | None = None,
    hue: str | None = None,
    *,
    band: bool = False,
    logx: bool = False,
    logy: bool = False,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Plot a summary table (``by`` columns, ``mean``, ``ci95``, ``n``; see
    :func:`tcplab.stats.summary_frame`): mean of ``metric`` against ``x`` with the 95 % confidence
    interval as error bars (or a shaded ``band``), one line per value of ``hue``.

    ``x`` defaults to the only grouping column, or the only numeric one.  ``hue`` defaults to the
    other grouping columns together (one line per combination); when ``hue`` is given, every other
    grouping column must hold a single value.  A non-numeric ``x`` is drawn as categories.
    Raises ValueError naming the allowed columns.
    """
    by = list(by)
    if x is None:
        numeric = [c for c in by if summary.schema[c].is_numeric()]
        candidates = by if len(by) == 1 else numeric
        if len(candidates) != 1:
            raise ValueError(f"x: name the column for the x axis, one of {by}")
        x = candidates[0]
    if x not in by:
        raise ValueError(f"x: {x!r} is not a grouping column of the summary; expected one of {by}")
    others = [c for c in by if c != x]
    if hue is not None:
        if hue not in others:
            raise ValueError(f"hue: {hue!r} is not a grouping column other than x; expected one of {others}")
        varying = [c for c in others if c != hue and summary[c].n_unique() > 1]
        if varying:
            raise ValueError(
                f"hue: {varying} also vary, so lines would mix their values; summarise by {[x, hue]} "
                f"(filtering the runs first), or leave hue unset for one line per combination"
            )
    lines = [hue] if hue is not None else others
    label, scale = metric_axis(metric)
    numeric_x = summary.schema[x].is_numeric()
    # Quantities ("5ms", "50ms", "1s") by magnitude, not as text.
    categories = sorted_values(summary[x].drop_nulls().unique().to_list())

    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure  # type: ignore[assignment]
    groups = summary.group_by(lines, maintain_order=True) if lines else [((), summary)]
    for key, group in sorted(groups, key=lambda kv: [str(k) for k in kv[0]]):
        group = group.filter(pl.col(x).is_not_null())
        group = group.sort(x) if numeric_x else group[sorted(range(group.height), key=lambda i: categories.index(group[x][i]))]
        xs = group[x].to_list() if numeric_x else [categories.index(v) for v in group[x].to_list()]
        means = [m / scale for m in group["mean"].to_list()]
        # One replication has no interval: draw no bar rather than a misleading zero-width one.
        errs = [e / scale if e is not None and math.isfinite(e) else 0.0 for e in group["ci95"].to_list()]
        name = ", ".join(str(k) if len(lines) == 1 else f"{c}={k}" for c, k in zip(lines, key, strict=True))
        if band:
            (line,) = ax.plot(xs, means, marker="o", label=name or None)
            low = [m - e for m, e in zip(means, errs, strict=True)]
            high = [m + e for m, e in zip(means, errs, strict=True)]
            ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
        else:
            # Categories have no order between them: markers only, no connecting line.
            style = "-" if numeric_x else "none"
            ax.errorbar(xs, means, yerr=errs, marker="o", linestyle=style, capsize=3, label=name or None)
    if not numeric_x:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    if logx and numeric_x:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())  # 2, 4, 6 rather than 2 x 10^0
        ax.yaxis.set_minor_formatter(ScalarFormatter())
    ax.set_xlabel(x)
    ax.set_ylabel(label)
    counts = sorted(set(summary["n"].to_list()))
    n_text = f"n = {counts[0]}" if len(counts) == 1 else f"n = {counts[0]}–{counts[-1]}"
    interval = "shaded band" if band else "error bars"
    ax.set_title(f"{title or f'{label} vs. {x}'}\nmean, {interval}: 95 % CI over {n_text} runs", fontsize="medium")
    if lines:
        ax.legend(title=", ".join(lines), frameon=False)
    return fig


def series_figure(
    frame: pl.DataFrame, series: str, *, at: str | None = None, title: str | None = None, ax: Axes | None = None
) -> Figure:
    """Draw time series ``series`` of a run's series frame (flow, at, series, t_s, value), one line
    per flow (TCP series) or per interface/node (``at``; only that one if ``at`` is given).  Counts
    per interval are drawn as steps over their interval, levels as points joined by lines.
    Raises ValueError naming the recorded series or elements."""
    names = sorted(set(frame["series"].to_list()))
    if series not in names:
        raise ValueError(f"series: {series!r} was not recorded; recorded: {names}")
    rows = frame.filter(pl.col("series") == series)
    owner = pl.coalesce("flow", "at") if "at" in rows.columns else pl.col("flow")
    rows = rows.with_columns(owner.alias("_owner"))
    owners = sorted(set(rows["_owner"].to_list()))
    if at is not None:
        if at not in owners:
            raise ValueError(f"at: {series} has no {at!r}; expected one of {owners}")
        owners = [at]
    label, scale = metric_axis(series)
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure  # type: ignore[assignment]
    # A sampled count or rate holds over the interval that ends at its time.
    steps = series not in ("queue_len",) and rows["flow"].null_count() == rows.height
    for name in owners:
        part = rows.filter(pl.col("_owner") == name).sort("t_s")
        t, v = part["t_s"].to_list(), [x / scale for x in part["value"].to_list()]
        if steps:
            ax.step([0.0, *t], [v[0] if v else 0.0, *v], where="pre", label=name)
        else:
            ax.plot(t, v, marker="." if len(t) < 200 else None, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(label)
    ax.set_title(title or series, fontsize="medium")
    if len(owners) > 1:
        ax.legend(frameon=False, fontsize="small")
    return fig
