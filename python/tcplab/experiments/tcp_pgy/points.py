"""Seed 002's measurement points as sweeps, and their runs read back from the store.

A point is one network (a string of some hops with some flows, the grid with some flows, or the
random network at one speed with some flows); its sweep runs every compared sender on it with the
same seeds, so senders are compared seed by seed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import Any

from tcplab.experiments.tcp_pgy import scenario as sc
from tcplab.runner import Sweep
from tcplab.store import Store

ALL = tuple(sc.VARIANTS)
PAIR = ("newreno", "pgy")


@dataclass(frozen=True)
class Point:
    kind: str  # "string" | "grid" | "random"
    hops: int = 7
    flows: int = 1
    speed: float = 0.0
    variants: tuple[str, ...] = PAIR
    duration: str = "600s"
    #: extra overrides applied to every variant, e.g. (("wlans.manet.routing.gratuitous_rrep", False),)
    extra: tuple[tuple[str, Any], ...] = ()
    #: record the sender's and receiver's sequence series every 10 ms (the time-sequence figures)
    trace: bool = False

    @property
    def label(self) -> str:
        if self.kind == "string":
            parts = [f"hops={self.hops}", f"flows={self.flows}"]
        elif self.kind == "grid":
            parts = [f"flows={self.flows}"]
        else:
            parts = [f"flows={self.flows}", f"vmax={self.speed:g}"]
        parts += [f"{k.rsplit('.', 1)[-1]}={v}" for k, v in self.extra]
        if self.trace:
            parts.append(f"trace,{self.duration}")
        return ",".join(parts)

    def name(self, prefix: str) -> str:
        return f"{prefix}/{self.kind}/{self.label}"

    def scenario(self) -> dict[str, Any]:
        if self.kind == "string":
            series = ("snd_una", "snd_nxt", "rcv_nxt", "cwnd") if self.trace else ()
            return sc.string(self.hops, self.flows, self.duration, series)
        if self.kind == "grid":
            return sc.grid(self.flows, self.duration)
        return sc.random(self.flows, self.speed, self.duration)

    def sweep(self, prefix: str, replications: int) -> Sweep:
        cells = [c | dict(self.extra) for c in sc.variant_cells(self.variants)]
        return Sweep(name=self.name(prefix), base=self.scenario(), cells=cells, replications=replications, seed0=1,
                     per_seed=starts_per_seed(self.flows))


def starts_per_seed(flows: int, jitter_s: float = sc.START_JITTER_S) -> Any:
    """The Sweep.per_seed that starts ``flows`` flows at each replication's drawn times (scenario.starts_of_seed)."""
    return partial(sc.starts_of_seed, flows, jitter_s=jitter_s)


#: Per-run metrics, summed over the run's flows: aggregate goodput (kb/s), spurious
#: retransmissions, timeouts, fast retransmits, DATA and ACK segments lost in the network, ACKs
#: learned by S1, fast retransmits S2 started before three duplicates arrived.
METRICS = ("kbps", "spurious", "timeouts", "fast", "data_lost", "acks_lost", "learned", "early")


def runs(store: Store, sweep: str) -> dict[str, dict[int, dict[str, Any]]]:
    """variant -> seed -> the run's metrics and store key."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for r in store.runs(sweep, status="ok").iter_rows(named=True):
        flows = json.loads(r["summary_json"])["flows"]
        out.setdefault(sc.variant_of(json.loads(r["cell"])), {})[int(r["seed"])] = {
            "key": r["key"],
            "kbps": sum(f["goodput_bps"] for f in flows) / 1e3,
            "spurious": sum(f["spurious_retransmissions"] for f in flows),
            "timeouts": sum(f["timeouts"] for f in flows),
            "fast": sum(f["fast_retransmissions"] for f in flows),
            "data_lost": sum(f["data_lost"] for f in flows),
            "acks_lost": sum(f["acks_lost"] for f in flows),
            "learned": sum(f["acks_learned"] for f in flows),
            "learned_at": flows[0].get("acks_learned_at", []),
            "early": sum(f["early_fast_retransmits"] for f in flows),
            "early_at": flows[0].get("early_fast_retransmits_at", []),
        }
    return out


def metric(store: Store, sweep: str, name: str) -> dict[str, dict[int, float]]:
    """variant -> seed -> one metric of a point."""
    return {v: {s: float(r[name]) for s, r in per.items()} for v, per in runs(store, sweep).items()}


def failed(store: Store, sweep: str) -> list[str]:
    """Errors of the point's runs that did not end ok (a byte-conservation violation is one)."""
    return [str(r["error"]) for r in store.runs(sweep).iter_rows(named=True) if r["status"] != "ok"]


def ns2_sweep_name(prefix: str, point: Point) -> str:
    """The point's NewReno runs in ns-2.35 (experiments/ns2_side.py)."""
    return f"{point.name(prefix)}/ns2"


def ns2_scenario(point: Point, seed: int) -> dict[str, Any]:
    """The point's NewReno cell as ns-2.35 runs it: the same network and TCP, AODV as ns-2.35 ships it
    (gratuitous RREPs compiled out: RREQ_GRAT_RREP not compiled in, so the builder's
    ``gratuitous_rrep = true`` is dropped, as in validation/ns2/run.py), no ack_seq extension (S1's), no series."""
    s = sc.with_starts(point.scenario(), seed)  # the seed's flow starts, as tcplab's runs of that seed
    s["wlans"][0]["routing"] = {"protocol": "aodv", "preset": "ns2"}
    s.pop("trace", None)
    return s


def ns2_job(point: Point) -> Any:
    from tcplab.experiments import ns2_side

    return ns2_side.Job(sc.variant_cells(("newreno",))[0], lambda seed: ns2_scenario(point, seed))


def ns2_runs(store: Store, sweep: str) -> dict[str, dict[int, dict[str, Any]]]:
    """``{"newreno": seed -> metrics}`` of a point's ns-2.35 runs, with the metrics ns-2 counts (METRICS but
    S1's and S2's counters and fast retransmits), summed over the flows."""
    from tcplab.experiments import ns2_side

    out: dict[int, dict[str, Any]] = {}
    for _, seed, summ in ns2_side.runs(store, sweep):
        flows = summ["flows"]
        out[seed] = {
            "kbps": sum(f["goodput_bps"] or 0.0 for f in flows) / 1e3,
            "spurious": sum(f["spurious_retransmissions"] for f in flows),
            "timeouts": sum(f["timeouts"] for f in flows),
            "data_lost": sum(f["data_lost"] for f in flows),
            "acks_lost": sum(f["acks_lost"] for f in flows),
        }
    return {"newreno": out} if out else {}
