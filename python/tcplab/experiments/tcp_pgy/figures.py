"""Seed 002's figures: Fig. 1 and Figs 6, 7, 10, 11, 12 from the replicated points (mean and 95 %
CI), and the time-sequence diagrams of Fig. 8 from the traced 7-hop runs (seed 1)."""

from __future__ import annotations

import bisect
import math
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from tcplab.experiments.tcp_pgy import experiment as exp
from tcplab.experiments.tcp_pgy.points import ALL, Point, runs
from tcplab.experiments.tcp_pgy.scenario import LABEL, SEGMENT_B
from tcplab.stats import summarise
from tcplab.store import Store


def _errorbar(ax: Any, x: list[float], per: list[dict[int, dict[str, Any]]], metric: str, label: str) -> None:
    ss = [summarise(r[metric] for r in m.values()) for m in per]
    ax.errorbar(x, [s.mean for s in ss], yerr=[s.ci95 if math.isfinite(s.ci95) else 0.0 for s in ss],
                marker="o", capsize=3, label=label)


def _by_variant(store: Store, quick: bool, points: list[Point], x: list[float], metric: str, xlabel: str,
                ylabel: str, title: str, path: Path) -> Path:
    from tcplab.plots import new_figure, save

    fig, ax = new_figure()
    data = [runs(store, p.name(exp.prefix(quick))) for p in points]
    for v in ALL:
        if all(v in d for d in data):
            _errorbar(ax, x, [d[v] for d in data], metric, LABEL[v])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(frameon=False)
    return save(fig, path)


def _losses(store: Store, quick: bool, points: list[Point], x: list[float], xlabel: str, title: str,
            path: Path) -> Path:
    from tcplab.plots import new_figure, save

    fig, ax = new_figure()
    data = [runs(store, p.name(exp.prefix(quick))).get("newreno", {}) for p in points]
    _errorbar(ax, x, data, "data_lost", "TCP DATA")
    _errorbar(ax, x, data, "acks_lost", "TCP ACK")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("segments lost per run")
    ax.set_title(title)
    ax.legend(frameon=False)
    return save(fig, path)


def _series(store: Store, key: str) -> dict[str, tuple[list[float], list[float]]]:
    s = store.series(key)
    out = {}
    for name in ("snd_una", "snd_nxt", "rcv_nxt"):
        part = s.filter(s["series"] == name)
        out[name] = (part["t_s"].to_list(), [v / SEGMENT_B for v in part["value"].to_list()])
    return out


def _at(series: tuple[list[float], list[float]], t: float) -> float:
    """The value a step series holds at time ``t`` (its first value before it starts)."""
    ts, vs = series
    i = bisect.bisect_right(ts, t) - 1
    return vs[max(i, 0)] if vs else math.nan


def _timeouts(seq: dict[str, tuple[list[float], list[float]]]) -> list[tuple[float, float, float]]:
    """(time, segments the receiver held beyond snd_una, rise of snd_una over the 2 s before) at each
    go-back-N: snd_nxt falling back by more than a segment."""
    t, nxt = seq["snd_nxt"]
    out = []
    for i in range(1, len(t)):
        if nxt[i] < nxt[i - 1] - 1:
            una = _at(seq["snd_una"], t[i])
            out.append((t[i], _at(seq["rcv_nxt"], t[i]) - una, una - _at(seq["snd_una"], t[i] - 2.0)))
    return out


def _fig8(store: Store, key: str, at: float, title: str, path: Path,
          learned: Sequence[tuple[float, float]] = ()) -> Path:
    from tcplab.plots import new_figure, save

    seq = _series(store, key)
    fig, ax = new_figure()
    near = [(t, b / SEGMENT_B) for t, b in learned if at - 4 <= t <= at + 4]
    if near:
        ax.plot(*zip(*near), "v", color="tab:red", ms=7, label="ACK learned from an RREQ / GRAT_RREP (S1)")
    for name, label in (("snd_nxt", "sender: next to send"), ("snd_una", "sender: highest ACK (snd_una)"),
                        ("rcv_nxt", "receiver: cumulative ACK (rcv_nxt)")):
        t, v = seq[name]
        sel = [(a, b) for a, b in zip(t, v) if at - 4 <= a <= at + 4]
        ax.step([a for a, _ in sel], [b for _, b in sel], where="post", lw=1.2, label=label)
    ax.axvline(at, color="grey", ls=":", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence (segments)")
    ax.set_title(title)
    ax.legend(frameon=False, fontsize="small")
    return save(fig, path)


def draw(store: Store, outdir: Path, quick: bool) -> list[Path]:
    out: list[Path] = []
    sp = exp.string_points(quick)
    hops = [float(p.hops) for p in sp]
    out.append(_losses(store, quick, sp, hops, "hops", "Fig. 1(a): segments lost per run, one flow (NewReno)",
                       outdir / "fig1a_losses_by_hops.png"))
    seven = [p for p in sp if p.hops == 7]
    mp = seven + exp.multi_points(quick)
    out.append(_losses(store, quick, mp, [float(p.flows) for p in mp], "flows",
                       "Fig. 1(b): segments lost per run, 7-hop string (NewReno)", outdir / "fig1b_losses_by_flows.png"))
    out.append(_by_variant(store, quick, sp, hops, "kbps", "hops", "throughput (kb/s)",
                           "Fig. 6: string throughput", outdir / "fig6_string_throughput.png"))
    out.append(_by_variant(store, quick, sp, hops, "spurious", "hops", "spurious retransmissions per run",
                           "Fig. 7: spurious retransmissions, strings", outdir / "fig7_string_spurious.png"))
    gp = exp.grid_points(quick)
    gx = [float(p.flows) for p in gp]
    out.append(_by_variant(store, quick, gp, gx, "kbps", "flows", "AAT (kb/s)",
                           "Fig. 10: grid, average aggregate throughput", outdir / "fig10_grid_aat.png"))
    out.append(_by_variant(store, quick, gp, gx, "spurious", "flows", "spurious retransmissions per run",
                           "Fig. 11: grid, spurious retransmissions", outdir / "fig11_grid_spurious.png"))
    for n in exp.RANDOM_FLOWS[quick]:
        rp = [p for p in exp.random_points(quick) if p.flows == n]
        out.append(_by_variant(store, quick, rp, [p.speed for p in rp], "kbps", "maximum speed (m/s)", "AAT (kb/s)",
                               f"Fig. 12: random topologies, {n} flows", outdir / f"fig12_random_{n}flows.png"))
    traced = runs(store, exp.trace_points(quick)[0].name(exp.prefix(quick)))
    if 1 in traced.get("newreno", {}):
        key = traced["newreno"][1]["key"]
        events = _timeouts(_series(store, key))
        if events:
            t, gap, _ = max(events, key=lambda e: e[1])
            out.append(_fig8(store, key, t, f"Fig. 8(a): NewReno, timeout at {t:.2f} s: {gap:.0f} spurious "
                             "resends", outdir / "fig8a_newreno_spurious.png"))
    if 1 in traced.get("s1", {}):
        run = traced["s1"][1]
        learned = [(t, float(b)) for t, b in run["learned_at"]]
        events = _timeouts(_series(store, run["key"]))
        # The go-back-N that follows a learned ACK most closely (within 4 s).
        after = [(t - max((lt for lt, _ in learned if lt <= t), default=-1e9), t) for t, _, _ in events]
        after = [x for x in after if x[0] <= 4.0]
        if after:
            _, t = min(after)
            out.append(_fig8(store, run["key"], t, f"Fig. 8(b): S1, go-back-N at {t:.2f} s starts at the learned ACK",
                             outdir / "fig8b_s1_learned.png", learned))
    if 1 in traced.get("newreno", {}):
        key = traced["newreno"][1]["key"]
        # A timeout after a real loss (the receiver held nothing beyond snd_una): the wait S2 cuts.
        real = [e for e in _timeouts(_series(store, key)) if e[1] <= 0]
        if real:
            t = real[len(real) // 2][0]
            out.append(_fig8(store, key, t, f"Fig. 9(a): NewReno waits for the timeout at {t:.2f} s",
                             outdir / "fig9a_newreno_timeout.png"))
    if 1 in traced.get("s2", {}):
        run = traced["s2"][1]
        if run["early_at"]:
            t, seen = run["early_at"][0]
            out.append(_fig8(store, run["key"], t, f"Fig. 9(b): S2 fast-retransmits at {t:.2f} s after {seen} "
                             "duplicate ACK(s)", outdir / "fig9b_s2_fast_retransmit.png"))
    return out
