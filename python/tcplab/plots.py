"""Matplotlib set-up shared by every experiment's figures.

Figures are built as bare ``matplotlib.figure.Figure`` objects rendered by the Agg canvas, never
through pyplot: that works headless (servers, CI) without touching the global backend of a user's
notebook, and leaves no pyplot state to leak between figures.  One house style keeps the report's
figures alike.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure


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
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
