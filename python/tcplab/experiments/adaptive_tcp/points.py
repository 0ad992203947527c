"""Seed 004's measurement points: which network settings each figure runs, as sweeps, and reading
their runs back from the store.

A point is one network setting (FER, wired delay D and rate R, APs and flows, where errors act,
extra [tcp] fields); its sweep runs every compared sender on it with the same seeds.  The store keys
runs by the resolved scenario, so a point two figures share (Fig. 8's FER 1 % is Fig. 9's D = 45 ms)
runs once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tcplab.experiments.adaptive_tcp.scenario import (
    BURST,
    QUEUE,
    DEFAULT_DELAY,
    DEFAULT_RATE,
    VARIANTS,
    scenario,
    variant_cells,
    variant_of,
)
from tcplab.runner import Sweep
from tcplab.store import Store

ALL = tuple(VARIANTS)
PAPER3 = ("newreno", "westwood", "adaptive")


@dataclass(frozen=True)
class Point:
    fig: str
    fer: float
    delay: str = DEFAULT_DELAY
    rate: str = DEFAULT_RATE
    aps: int = 1
    flows_per_ap: int = 1
    loss_at: str = "packets"
    burst: float = BURST
    variants: tuple[str, ...] = ALL
    #: extra [tcp] fields, e.g. (("adaptive_rtt", "sample"),)
    tcp: tuple[tuple[str, Any], ...] = ()
    duration: str = "100s"
    start: str = "0s"
    series: tuple[str, ...] = ()
    #: the WLAN as ns-2.35 runs it (scenario.NS2_PHY), for the ns-2.35 column
    ns2_phy: bool = False
    #: every interface queue's length in packets (scenario.QUEUE by default; a switch of Fig. 8's deviation)
    queue: int = QUEUE

    @property
    def label(self) -> str:
        parts = [f"fer={self.fer:g}", f"d={self.delay}", f"r={self.rate}"]
        if self.aps > 1 or self.flows_per_ap > 1:
            parts.append(f"aps={self.aps}x{self.flows_per_ap}")
        if self.loss_at != "packets":
            parts.append(f"at={self.loss_at}")
        if self.burst != BURST:
            parts.append(f"burst={self.burst:g}")
        parts += [f"{k}={v}" for k, v in self.tcp]
        if self.ns2_phy:
            parts.append("phy=ns2_dsss")
        if self.queue != QUEUE:
            parts.append(f"queue={self.queue}")
        return ",".join(parts)

    @property
    def flows(self) -> int:
        return self.aps * self.flows_per_ap

    def name(self, prefix: str) -> str:
        """The point's sweep name in the store."""
        return f"{prefix}/{self.fig}/{self.label}"

    def sweep(self, prefix: str, replications: int) -> Sweep:
        base = scenario(aps=self.aps, flows_per_ap=self.flows_per_ap, fer=self.fer, delay=self.delay,
                        rate=self.rate, duration=self.duration, start=self.start, loss_at=self.loss_at,
                        burst=self.burst, series=self.series, ns2_phy=self.ns2_phy, queue=self.queue)
        base["tcp"] |= dict(self.tcp)
        return Sweep(name=self.name(prefix), base=base, cells=variant_cells(self.variants),
                     replications=replications, seed0=1)


def jain(xs: list[float]) -> float:
    """Jain's fairness index (Jain, Chiu, Hawe, DEC-TR-301; the paper's second eq. (6))."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq > 0 else float("nan")


def runs(store: Store, sweep: str) -> dict[str, dict[int, dict[str, Any]]]:
    """variant -> seed -> {util (Mb/s, all flows), jain, timeouts, retx, losses, key} of a point."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for r in store.runs(sweep, status="ok").iter_rows(named=True):
        flows = json.loads(r["summary_json"])["flows"]
        goodput = [f["goodput_bps"] / 1e6 for f in flows]
        out.setdefault(variant_of(json.loads(r["cell"])), {})[int(r["seed"])] = {
            "key": r["key"],
            "util": sum(goodput),
            "jain": jain(goodput),
            "timeouts": sum(f["timeouts"] for f in flows),
            "retx": sum(f["retransmissions"] for f in flows),
            "losses": flows[0].get("adaptive_losses", []),
        }
    return out


def metric(store: Store, sweep: str, name: str) -> dict[str, dict[int, float]]:
    """variant -> seed -> one metric of a point."""
    return {v: {s: float(r[name]) for s, r in per.items()} for v, per in runs(store, sweep).items()}


def ns2_scenario(point: Point, variant: str) -> dict[str, Any]:
    """A sender's cell of an ``ns2_phy`` point as ns-2.35 runs it: the tcplab scenario of that cell, without
    the series and the explicit initial ssthresh (ns-2's reset sets ssthresh_ = window_ itself, the same value;
    the translation carries no ssthresh)."""
    s = point.sweep("ns2", 1).base
    s["tcp"] |= VARIANTS[variant]
    s["tcp"].pop("initial_ssthresh", None)  # what ns-2 has without a setting (tcp())
    s.pop("trace", None)
    return s


def ns2_runs(store: Store, sweep: str) -> dict[str, dict[int, dict[str, Any]]]:
    """variant -> seed -> {util (Mb/s), timeouts} of a point's ns-2.35 runs."""
    from tcplab.experiments import ns2_side

    out: dict[str, dict[int, dict[str, Any]]] = {}
    for cell, seed, summ in ns2_side.runs(store, sweep):
        flows = summ["flows"]
        out.setdefault(variant_of(cell), {})[seed] = {
            "util": sum((f["goodput_bps"] or 0.0) for f in flows) / 1e6,
            "timeouts": sum(f["timeouts"] for f in flows),
        }
    return out
