"""Seed 003's figures: cwnd and sequence number vs time for base TCP and modified ATCP in every Table 2
case (seed 1, like the paper's single traces), original ATCP's weakness on a congested relay, and all
the senders side by side on the mobile and disconnected cases (mean and 95 % CI)."""

from __future__ import annotations

from pathlib import Path

from tcplab.experiments.atcp import experiment as exp
from tcplab.experiments.atcp.scenario import LABEL, MAX_CWND, MSS
from tcplab.stats import summarise
from tcplab.store import Store

TRACED = ("base", "atcp_mod", "atcp_orig")


def _series(store: Store, key: str, name: str) -> tuple[list[float], list[float]]:
    s = store.series(key)
    s = s.filter((s["series"] == name) & (s["flow"] == "file"))
    return s["t_s"].to_list(), s["value"].to_list()


def _traces(store: Store, case: exp.Case, outdir: Path, quick: bool) -> Path:
    from matplotlib.figure import Figure

    from tcplab.plots import save

    per = exp.runs(store, exp.plot_name(exp.prefix(quick), case))
    fig = Figure(figsize=(6.4, 6.0), dpi=110, layout="constrained")
    ax_c, ax_s = fig.subplots(2, 1, sharex=True)
    for v in TRACED:
        run = per.get(v, {}).get(1)
        if run is None:
            continue
        t, w = _series(store, run["key"], "cwnd")
        # cwnd keeps growing while the receive window limits the sender: the window in force is shown.
        ax_c.step(t, [min(x / MSS, MAX_CWND) for x in w], where="post", label=LABEL[v], lw=1)
        t, una = _series(store, run["key"], "snd_una")
        base = una[0] if una else 0.0
        ax_s.plot(t, [(x - base) / 1e6 for x in una], label=LABEL[v], lw=1)
    for ax in (ax_c, ax_s):
        ax.grid(True, alpha=0.3)
        ax.legend(frameon=False, fontsize=8)
    ax_c.set_ylabel("min(cwnd, rwnd) (segments)")
    ax_s.set_ylabel("acknowledged (MB)")
    ax_s.set_xlabel("time (s)")
    ax_c.set_title(f"{case.label} (seed 1)", fontsize=10)
    name = f"trace_{case.hops}hop_{case.motion}_{case.size_mb}MB.png"
    return save(fig, outdir / name)


def _compare(store: Store, outdir: Path, quick: bool) -> Path:
    from tcplab.plots import new_figure, save

    cases = [c for c in exp.CASES if c.motion != "static"]
    fig, ax = new_figure()
    width = 0.8 / len(exp.ALL)
    for k, v in enumerate(exp.ALL):
        means, cis = [], []
        for c in cases:
            s = summarise(exp.transfer_times(store, c.name(exp.prefix(quick))).get(v, {}).values())
            means.append(s.mean)
            cis.append(s.ci95 if s.n > 1 else 0.0)
        xs = [i + (k - len(exp.ALL) / 2 + 0.5) * width for i in range(len(cases))]
        ax.bar(xs, means, width, yerr=cis, label=LABEL[v], capsize=2)
    ax.set_xticks(range(len(cases)), [c.label for c in cases], fontsize=7)
    ax.set_ylabel("transfer time (s), mean ± 95 % CI")
    ax.set_title("Every sender on the mobile and disconnected cases")
    ax.legend(frameon=False, fontsize=7, ncol=2)
    return save(fig, outdir / "compare_senders.png")


def _congestion(store: Store, outdir: Path, quick: bool) -> Path:
    from matplotlib.figure import Figure

    from tcplab.plots import save

    stats = exp.congestion_stats(store, f"{exp.prefix(quick)}/congestion")
    fig = Figure(figsize=(6.4, 3.6), dpi=110, layout="constrained")
    axes = fig.subplots(1, 3)
    for ax, metric, unit in zip(axes, ("goodput", "retransmissions", "relay drops"), ("Mb/s", "segments", "packets")):
        vs = [v for v in exp.CONGESTION if v in stats]
        ss = [summarise(stats[v].get(metric, {}).values()) for v in vs]
        ax.bar(range(len(vs)), [s.mean for s in ss], yerr=[s.ci95 if s.n > 1 else 0.0 for s in ss], capsize=3)
        ax.set_xticks(range(len(vs)), [LABEL[v].replace(" (NewReno)", "") for v in vs], rotation=30, fontsize=7)
        ax.set_title(f"{metric} ({unit})", fontsize=9)
        ax.grid(True, alpha=0.3, axis="y")
    fig.suptitle("4 lossy flows through one relay, 60 s: whole-window retransmissions congest it", fontsize=9)
    return save(fig, outdir / "original_atcp_congests.png")


def draw(store: Store, outdir: Path, quick: bool) -> list[Path]:
    paths = [_traces(store, c, outdir, quick) for c in exp.CASES]
    paths.append(_compare(store, outdir, quick))
    paths.append(_congestion(store, outdir, quick))
    return paths
