"""Seed 004's figures, drawn like the paper's: Figs 4-7 from the functional run (seed 1), Figs 8-12
from the replicated points (mean and 95 % CI)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tcplab.experiments.adaptive_tcp import experiment as exp
from tcplab.experiments.adaptive_tcp.points import ALL, Point, metric, runs
from tcplab.experiments.adaptive_tcp.scenario import LABEL, SEGMENT_B
from tcplab.stats import summarise
from tcplab.store import Store


def _seed1(store: Store, quick: bool) -> dict[str, dict[str, Any]]:
    """Per sender, the functional run of seed 1 (its key and Adaptive TCP's loss events)."""
    return {v: per[1] for v, per in runs(store, exp.functional().name(exp.prefix(quick))).items() if 1 in per}


def _series(store: Store, key: str, name: str) -> tuple[list[float], list[float]]:
    s = store.series(key)
    s = s.filter(s["series"] == name)
    # ssthresh before the first loss is "arbitrarily high": shown as a gap.
    vals = [v / SEGMENT_B if v / SEGMENT_B < 1e4 else math.nan for v in s["value"].to_list()]
    return s["t_s"].to_list(), vals


def _fig4(run: dict[str, Any], outdir: Path) -> Path:
    from tcplab.plots import new_figure, save

    ls = run["losses"]
    fig, ax = new_figure()
    ax.step([e["t_s"] for e in ls], [e["loss_window"] for e in ls], where="post", label="loss window W_LA (packets)")
    ax2 = ax.twinx()
    ax2.plot([e["t_s"] for e in ls], [e["alpha"] for e in ls], "o", ms=3, color="tab:red", label="α")
    ax2.set_ylim(-0.05, 1.05)
    ax2.set_ylabel("congestion estimator α")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("loss window (packets)")
    ax.set_title("Fig. 4: α and the loss window at each loss (Adaptive TCP, FER 1 %)")
    ax.legend(loc="upper left", frameon=False)
    ax2.legend(loc="upper right", frameon=False)
    return save(fig, outdir / "fig4_alpha_loss_window.png")


def _fig5(store: Store, run: dict[str, Any], outdir: Path) -> Path:
    from tcplab.plots import new_figure, save

    adv = [e for e in run["losses"] if e["advanced_ssthresh"] is not None]
    centre = adv[0]["t_s"] if adv else 150.0
    fig, ax = new_figure()
    for name, style in (("cwnd", "-"), ("ssthresh", "--")):
        t, v = _series(store, run["key"], name)
        # From the last sample before the window (the value in force when it opens).
        first = max((i for i, a in enumerate(t) if a <= centre - 3), default=0)
        sel = [(max(a, centre - 3), b) for a, b in zip(t[first:], v[first:]) if a <= centre + 3]
        ax.step([a for a, _ in sel], [b for _, b in sel], style, where="post", label=name)
    for e in adv[:1]:
        ax.plot([e["t_s"]], [e["advanced_ssthresh"]], "o", color="tab:red",
                label=f"ssthresh(adv) = {e['advanced_ssthresh']:g}, W_LA = {e['loss_window']:.1f}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title("Fig. 5: ssthresh advancement around the first favourable slot (FER 1 %)")
    ax.legend(frameon=False)
    return save(fig, outdir / "fig5_ssthresh_advancement.png")


def _traces(store: Store, runs1: dict[str, dict[str, Any]], outdir: Path, names: list[tuple[str, str]],
            title: str, file: str) -> Path:
    from tcplab.plots import new_figure, save

    fig, ax = new_figure()
    for v, series in names:
        if v in runs1:
            t, vals = _series(store, runs1[v]["key"], series)
            ax.step(t, vals, where="post", lw=1, label=f"{LABEL[v]} {series}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title(title)
    ax.legend(frameon=False)
    return save(fig, outdir / file)


#: Below this FER (%) the FER axis is linear, above it logarithmic: Fig. 8's published points sit at 0 and
#: 0.1 % and its measured ones at 0.5, 1, 2, 5 and 10 %, which a linear 0-10 % axis crowds into its first 1 %.
FER_LINTHRESH_PCT = 0.1
FER_LABEL = "FER (%; linear up to 0.1 %, logarithmic above)"


def fer_axis(ax: Any, fers_pct: list[float]) -> None:
    """A symmetric-log FER axis (linear to FER_LINTHRESH_PCT, log above) ticked at the points' own FERs, so that
    0, 0.1, 0.5 and 1 % are as far apart as 1, 2, 5 and 10 %."""
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.set_xscale("symlog", linthresh=FER_LINTHRESH_PCT, linscale=0.5)
    ticks = sorted(set(fers_pct))
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    hi = max(ticks)
    ax.set_xlim(-0.02, hi * 1.15 if hi > 0 else 1.0)


def draw_lines(x: list[float], per_variant: dict[str, tuple[list[float], list[float]]], xlabel: str, ylabel: str,
               title: str, published: dict[str, list[tuple[float, float]]] | None = None,
               fer_x: bool = False) -> Any:
    """One line with 95 % CI bars per sender (``per_variant[v] = (means, ci95s)``) and, in the sender's colour,
    the paper's points as crosses; ``fer_x`` draws x on :func:`fer_axis`."""
    from tcplab.plots import new_figure

    fig, ax = new_figure()
    for v, (means, cis) in per_variant.items():
        line = ax.errorbar(x, means, yerr=cis, marker="o", capsize=3, label=LABEL[v])
        pub = (published or {}).get(v)
        if pub:
            ax.plot(*zip(*pub), "x", ms=9, mew=2, color=line.lines[0].get_color())
    if fer_x:
        fer_axis(ax, list(x) + [a for pts in (published or {}).values() for a, _ in pts])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(frameon=False)
    return fig


def _lines(store: Store, quick: bool, points: list[Point], x: list[float], xlabel: str, metric_name: str,
           ylabel: str, title: str, path: Path, published: bool = False, fer_x: bool = False) -> Path:
    from tcplab.plots import save

    per = [metric(store, p.name(exp.prefix(quick)), metric_name) for p in points]
    per_variant: dict[str, tuple[list[float], list[float]]] = {}
    for v in ALL:
        ss = [summarise(m.get(v, {}).values()) for m in per]
        per_variant[v] = ([s.mean for s in ss], [s.ci95 if math.isfinite(s.ci95) else 0.0 for s in ss])
    pub = {v: published_points(v) for v in ALL} if published else None
    return save(draw_lines(x, per_variant, xlabel, ylabel, title, pub, fer_x), path)


def published_points(variant: str) -> list[tuple[float, float]]:
    """Fig. 8's points printed in the paper's text for ``variant``: (FER %, Mb/s)."""
    return [(100 * fer, p.value) for (kind, fer, var), p in exp.PUBLISHED.items() if kind == "util" and var == variant]


def draw(store: Store, outdir: Path, quick: bool) -> list[Path]:
    out: list[Path] = []
    runs1 = _seed1(store, quick)
    if "adaptive" in runs1:
        out += [_fig4(runs1["adaptive"], outdir), _fig5(store, runs1["adaptive"], outdir),
                _traces(store, runs1, outdir, [("adaptive", "cwnd"), ("adaptive", "ssthresh")],
                        "Fig. 6: cwnd and ssthresh of Adaptive TCP (FER 1 %)", "fig6_cwnd_ssthresh.png"),
                _traces(store, runs1, outdir, [("westwood", "ssthresh"), ("adaptive", "ssthresh")],
                        "Fig. 7: ssthresh, Westwood+ vs Adaptive TCP (FER 1 %)", "fig7_ssthresh_westwood.png")]
    p8 = exp.fig8(quick)
    out.append(_lines(store, quick, p8, [100 * p.fer for p in p8], FER_LABEL, "util", "utilisation (Mb/s)",
                      "Fig. 8: bandwidth utilisation vs FER (x: the paper's numbers)",
                      outdir / "fig8_utilisation_vs_fer.png", published=True, fer_x=True))
    p9 = exp.fig9(quick)
    out.append(_lines(store, quick, p9, [float(p.delay[:-2]) for p in p9], "wired delay D (ms)", "util",
                      "utilisation (Mb/s)", "Fig. 9: utilisation vs wired delay (FER 1 %)", outdir / "fig9_utilisation_vs_delay.png"))
    p10 = exp.fig10(quick)
    out.append(_lines(store, quick, p10, [100 * p.fer for p in p10], FER_LABEL, "util", "utilisation (Mb/s)",
                      "Fig. 10: utilisation with a 5 Mb/s backbone", outdir / "fig10_utilisation_5mbps.png",
                      fer_x=True))
    p11 = [p for p in exp.fig11(quick) if p.fer == exp.MULTI_FERS[quick][-1]]
    out.append(_lines(store, quick, p11, [p.flows for p in p11], "flows over 4 APs", "util", "utilisation (Mb/s)",
                      f"Fig. 11: aggregate utilisation, 4 APs (FER {100 * p11[0].fer:g} %)", outdir / "fig11_multi_flow.png"))
    out.append(_lines(store, quick, p11, [p.flows for p in p11], "flows over 4 APs", "jain", "Jain's index",
                      f"Fig. 12: fairness, 4 APs (FER {100 * p11[0].fer:g} %)", outdir / "fig12_jain.png"))
    return out
