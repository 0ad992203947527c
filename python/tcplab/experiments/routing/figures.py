"""The routing comparison's figures: per network, throughput and control bytes of every sender over
every protocol (mean and 95 % CI over the replications); and the ELFN check, each movement's
NewReno and ELFN throughput against its expected throughput (Holland & Vaidya's Fig. style: one
point per mobility pattern)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tcplab.experiments.routing import scenario as sc
from tcplab.stats import summarise

PANELS = (("kbps", "throughput (kb/s)"), ("ctrl_kbytes", "control bytes (kB)"))


def _bars(ax: Any, per: dict[str, Any], metric: str) -> None:
    width = 0.8 / len(sc.SENDERS)
    for k, s in enumerate(sc.SENDERS):
        stats = [summarise(r[metric] for r in per[p].get(s, {}).values() if r["ok"] and math.isfinite(r[metric]))
                 for p in sc.PROTOCOLS]
        xs = [i + (k - len(sc.SENDERS) / 2 + 0.5) * width for i in range(len(sc.PROTOCOLS))]
        ax.bar(xs, [x.mean if x.n else 0.0 for x in stats], width,
               yerr=[x.ci95 if x.n > 1 else 0.0 for x in stats], label=sc.LABEL[s], capsize=2)
    ax.set_xticks(range(len(sc.PROTOCOLS)), [sc.PROTOCOL_LABEL[p] for p in sc.PROTOCOLS])
    ax.grid(True, alpha=0.3, axis="y")


def _elfn(elfn: dict[str, Any], outdir: Path) -> Path:
    from matplotlib.figure import Figure

    from tcplab.experiments.routing.findings import expected_kbps
    from tcplab.plots import save

    fig = Figure(figsize=(7.0, 3.0), dpi=110, layout="constrained")
    for ax, p in zip(fig.subplots(1, len(sc.PROTOCOLS), sharey=True), sc.PROTOCOLS):
        exp = expected_kbps(elfn[p])
        seeds = sorted(exp, key=exp.get)
        ax.plot(range(len(seeds)), [exp[s] for s in seeds], "k-_", lw=1, label="expected")
        for s_, marker in zip(sc.elfn_senders(p), "ox+"):
            runs = elfn[p].runs.get(s_, {})
            ax.plot(range(len(seeds)), [runs[s]["kbps"] if s in runs and runs[s]["ok"] else math.nan for s in seeds],
                    marker, ms=4, ls="none", label=sc.LABEL[s_])
        ax.set_title(sc.PROTOCOL_LABEL[p], fontsize=9)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.grid(True, alpha=0.3)
    fig.supxlabel("movements (one per seed), by expected throughput", fontsize=8)
    fig.axes[0].set_ylabel("throughput (kb/s)")
    fig.axes[0].legend(frameon=False, fontsize=7)
    fig.suptitle("One flow across 50 moving nodes: throughput against Holland & Vaidya's expected throughput",
                 fontsize=9)
    return save(fig, outdir / "elfn.png")


def draw(data: dict[str, Any], outdir: Path, elfn: dict[str, Any] | None = None) -> list[Path]:
    from matplotlib.figure import Figure

    from tcplab.experiments.routing.experiment import NETWORK_LABEL
    from tcplab.plots import save

    paths = []
    for net, per in data.items():
        fig = Figure(figsize=(7.0, 3.4), dpi=110, layout="constrained")
        for ax, (metric, label) in zip(fig.subplots(1, len(PANELS)), PANELS):
            _bars(ax, per, metric)
            ax.set_ylabel(label)
        fig.axes[0].legend(frameon=False, fontsize=8)
        fig.suptitle(f"{NETWORK_LABEL[net]}: mean ± 95 % CI", fontsize=9)
        paths.append(save(fig, outdir / f"{net}.png"))
    if elfn:
        paths.append(_elfn(elfn, outdir))
    return paths
