"""The simulated and the real run in the same terms, side by side, and the cwnd figure.

Both sides are reduced to one :class:`Side`: completion time, goodput, retransmissions, RTOs
and the time of each, recovery time after each outage, and cwnd over time in segments.  Times
count from the scenario's time zero (the simulator's start; the emulators' ``start``).

How an RTO is seen:
* real: every increase of ``tcpi_backoff`` in the sender's ``TCP_INFO`` samples (the kernel
  increments it at each retransmission timeout and clears it on new data acknowledged), checked
  against the namespace's exact ``TcpExtTCPTimeouts`` count;
* simulated: every doubling of the ``rto`` series (RFC 6298 (5.5)) at which cwnd is one segment
  (RFC 5681 (4)), checked against the summary's ``timeouts``; a timeout at ``rto_max`` does not
  double and is missing from the times (the count stays exact).
Recovery after an outage: from the outage's end to the first byte delivered in order after it.
Where the first slow start ended: on Linux the first ``TCP_INFO`` sample with an ssthresh, and
which HyStart test fired from the namespace's ``TcpExtTCPHystart*`` counters; in the simulator
the summary's ``hystart_exits`` (none shown when a loss ended it).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from .. import plots
from ..result import Result
from .linux_run import RealRun
from .units import seconds, size_bytes


@dataclass
class Side:
    completion_s: float | None
    goodput_bps: float | None
    retransmissions: int
    rtos: int
    rto_times_s: list[float]
    recovery_s: list[float | None]
    cwnd: tuple[list[float], list[float]]  # (t_s, segments)
    notes: list[str] = field(default_factory=list)
    # (t_s, cwnd in segments, "ack_train" | "delay" | "loss") where the first slow start ended.
    slow_start_exit: tuple[float, float, str] | None = None


def outages(resolved: dict[str, Any], until_s: float) -> list[tuple[float, float]]:
    """Every outage interval of every link that ends before ``until_s``, in time order."""
    out: set[tuple[float, float]] = set()
    for link in resolved.get("links") or []:
        o = link.get("outage") or {}
        for start, end in o.get("intervals") or []:
            out.add((seconds(start), seconds(end)))
        if o.get("every") and o.get("down"):
            every, down = seconds(o["every"]), seconds(o["down"])
            t = seconds(o.get("start", "0s"))
            while every > 0 and t < until_s:
                out.add((t, t + down))
                t += every
    return sorted(iv for iv in out if iv[1] < until_s)


def recovery_times(progress: list[tuple[float, float]], windows: list[tuple[float, float]]) -> list[float | None]:
    """For each outage, the time from its end to the first in-order progress after it."""
    result: list[float | None] = []
    for _, end in windows:
        before = max((b for t, b in progress if t <= end), default=0.0)
        after = next((t for t, b in progress if t > end and b > before), None)
        result.append(None if after is None else after - end)
    return result


def simulated(result: Result, resolved: dict[str, Any]) -> Side:
    flow = result.summary["flows"][0]
    mss = size_bytes(resolved["flows"][0]["tcp"].get("mss", "1460B"))
    bytes_unit = resolved["flows"][0]["tcp"].get("window_unit", "bytes") == "bytes"
    s = result.series

    def series(name: str) -> tuple[list[float], list[float]]:
        f = s.filter(pl.col("series") == name).sort("t_s")
        return f["t_s"].to_list(), f["value"].to_list()

    ct, cv = series("cwnd")
    cwnd_segments = [v / mss for v in cv] if bytes_unit else cv
    rt, rv = series("rto")
    rto_times = []
    for i in range(1, len(rt)):
        if rv[i] >= 1.99 * rv[i - 1] and _value_at(ct, cwnd_segments, rt[i]) <= 1.0:
            rto_times.append(rt[i])
    end = flow["response_time_s"] or result.summary["sim_time_s"]
    nt, nv = series("rcv_nxt")
    side = Side(
        completion_s=flow["response_time_s"],
        goodput_bps=flow["goodput_bps"] if flow["completed"] else None,
        retransmissions=flow["retransmissions"],
        rtos=flow["timeouts"],
        rto_times_s=rto_times,
        recovery_s=recovery_times(list(zip(nt, nv)), outages(resolved, end)),
        cwnd=(ct, cwnd_segments),
    )
    if len(rto_times) != side.rtos:
        side.notes.append(f"simulated: {side.rtos} RTOs, {len(rto_times)} of them timed (at rto_max the RTO no longer doubles)")
    exits = flow.get("hystart_exits") or []
    if exits:
        side.slow_start_exit = (exits[0]["t_s"], exits[0]["cwnd_segments"], exits[0]["test"])
    return side


def _value_at(ts: list[float], vs: list[float], t: float) -> float:
    """The step series' value at ``t`` (the last change at or before it; infinite before the first)."""
    i = bisect.bisect_right(ts, t)
    return vs[i - 1] if i else math.inf


def real(run: RealRun, resolved: dict[str, Any]) -> Side:
    t0 = run.t0_ns
    c, s = run.client, run.server
    size = size_bytes(resolved["flows"][0]["size"])
    done = bool(c) and c.get("bytes") == size
    completion = (c["t_done_ns"] - c["t_syn_ns"]) / 1e9 if done else None
    fields = s.get("fields") or []
    rows = [dict(zip(fields, r)) for r in s.get("samples") or []]
    rto_times, prev = [], 0
    for r in rows:
        if r["backoff"] > prev:
            rto_times += [(r["t_ns"] - t0) / 1e9] * (r["backoff"] - prev)
        prev = r["backoff"]
    end = (c["t_done_ns"] - t0) / 1e9 if c else 0.0
    progress = [((t - t0) / 1e9, float(b)) for t, b in c.get("progress") or []]
    side = Side(
        completion_s=completion,
        goodput_bps=size * 8 / completion if completion else None,
        retransmissions=int((s.get("final") or {}).get("total_retrans", 0)),
        rtos=int(s.get("timeouts", 0)),
        rto_times_s=rto_times,
        recovery_s=recovery_times(progress, outages(resolved, end)),
        cwnd=([(r["t_ns"] - t0) / 1e9 for r in rows], [float(r["snd_cwnd"]) for r in rows]),
    )
    side.slow_start_exit = _linux_slow_start_exit(rows, t0, s.get("hystart") or {})
    if not run.finished:
        side.notes.append("Linux: the download did not finish within the time limit")
    if len(rto_times) != side.rtos:
        side.notes.append(f"Linux: {side.rtos} RTOs counted by the kernel, {len(rto_times)} seen in TCP_INFO samples")
    return side


# ssthresh before the first congestion event (TCP_INFSTHRESH = 0x7fffffff).
_INFINITE_SSTHRESH = 0x7FFFFFFF


def _linux_slow_start_exit(rows: list[dict[str, int]], t0: int, hystart: dict[str, int]) -> tuple[float, float, str] | None:
    """The first sample with an ssthresh: HyStart's exit if its counters moved, else a loss."""
    first = next((r for r in rows if r["snd_ssthresh"] < _INFINITE_SSTHRESH), None)
    if first is None:
        return None
    if hystart.get("TCPHystartTrainDetect"):
        return ((first["t_ns"] - t0) / 1e9, float(hystart["TCPHystartTrainCwnd"]), "ack_train")
    if hystart.get("TCPHystartDelayDetect"):
        return ((first["t_ns"] - t0) / 1e9, float(hystart["TCPHystartDelayCwnd"]), "delay")
    return ((first["t_ns"] - t0) / 1e9, float(first["snd_cwnd"]), "loss")


def _exit(e: tuple[float, float, str] | None) -> str:
    return "—" if e is None else f"{e[1]:.0f} seg. at {e[0]:.3f} s ({e[2]})"


def _fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _diff(sim: float | None, lin: float | None) -> str:
    if sim is None or lin is None or lin == 0:
        return "—"
    return f"{(sim - lin) / lin * 100:+.1f} %"


def rows(sim: Side, lin: Side) -> list[tuple[str, str, str, str]]:
    """The side-by-side table: (metric, simulated, Linux, simulated vs Linux)."""
    out = [
        ("completion time (s)", _fmt(sim.completion_s), _fmt(lin.completion_s), _diff(sim.completion_s, lin.completion_s)),
        (
            "goodput (Mb/s)",
            _fmt(sim.goodput_bps and sim.goodput_bps / 1e6),
            _fmt(lin.goodput_bps and lin.goodput_bps / 1e6),
            _diff(sim.goodput_bps, lin.goodput_bps),
        ),
        ("retransmissions", str(sim.retransmissions), str(lin.retransmissions), _diff(sim.retransmissions, lin.retransmissions)),
        ("RTOs", str(sim.rtos), str(lin.rtos), _diff(sim.rtos, lin.rtos)),
        (
            "RTO times (s)",
            " ".join(_fmt(t, 2) for t in sim.rto_times_s) or "—",
            " ".join(_fmt(t, 2) for t in lin.rto_times_s) or "—",
            "",
        ),
    ]
    if sim.slow_start_exit or lin.slow_start_exit:
        out.append(("slow start ended", _exit(sim.slow_start_exit), _exit(lin.slow_start_exit), ""))
    for i, (a, b) in enumerate(zip(sim.recovery_s, lin.recovery_s)):
        out.append((f"recovery after outage {i + 1} (s)", _fmt(a), _fmt(b), _diff(a, b)))
    return out


def cwnd_figure(sim: Side, lin: Side, windows: list[tuple[float, float]], path: Path, title: str) -> Path:
    fig, ax = plots.new_figure()
    ax.step(*sim.cwnd, where="post", label="simulated", linewidth=1.0)
    ax.step(*lin.cwnd, where="post", label="Linux (TCP_INFO)", linewidth=1.0, alpha=0.8)
    for k, (a, b) in enumerate(windows):
        ax.axvspan(a, b, color="grey", alpha=0.2, label="outage" if k == 0 else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    # A cwnd that grows without limiting anything (the classic model under a receive-window
    # limit) would flatten the other curve: cut the axis and say so.
    top_sim, top_lin = max(sim.cwnd[1], default=0.0), max(lin.cwnd[1], default=0.0)
    if top_lin > 0 and top_sim > 4 * top_lin:
        ax.set_ylim(0, 2 * top_lin)
        title += f" (axis cut: simulated cwnd reaches {top_sim:.0f})"
    ax.set_title(title)
    ax.legend()
    return plots.save(fig, path)
