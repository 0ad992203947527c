"""atcp: ATCP and its modifications, ELFN, TCP-F, Freeze-TCP and SACK over 1- and 2-hop 802.11b with
AODV (Sridhara & Subramanya, seed 003).

Reproduces Table 2 (transfer times of base NewReno vs the paper's modified ATCP: 1, 10, 30 MB static,
30 MB with the receiver walking, 1 MB over two hops with the receiver walking, 30 MB with a one-minute
disconnection) with original ATCP, ELFN, TCP-F, Freeze-TCP and SACK as extra rows, the cwnd- and
sequence-vs-time plots, the paper's critique of the original ATCP (whole-window retransmissions in
Loss) on a relay shared by four lossy flows, and the paper's findings decided by stated rules.

The network, the movement and every unstated choice are in atcp/scenario.py, docs/validation/atcp.md
and docs/models/adhoc_tcp.md.  Every sender runs every case with the same seeds (the same losses and
paths).  Transfer time = the flow's response time (client's SYN to the last byte delivered in order).

What a replication varies: backoff, AODV's random draws and the walking receiver's losses; paths fixed (REPLICATIONS).
"""

from __future__ import annotations

from collections.abc import Sequence
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab.experiments.atcp import causes as causes
from tcplab.experiments.atcp.findings import findings
from tcplab.experiments.atcp.scenario import LABEL, VARIANTS, congested, scenario, variant_cells, variant_of
from tcplab.experiments.atcp.claims import CLAIMS  # noqa: F401  (the report reads it)
from tcplab.experiments.base import PAPER_SEEDS, Finding, Published, TableCell, against_paper
from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.store import Store

NAME = "atcp"
TITLE = "ATCP, ELFN, TCP-F and Freeze-TCP over 802.11b ad hoc links (Sridhara & Subramanya)"

#: What a replication varies, for the report page.
REPLICATIONS = (
    "Each replication's seed drives the 802.11 backoff, AODV's random draws and the Gilbert–Elliott losses of the "
    "walking receiver; the movement paths are fixed (the paper's testbed walks one path), the same for every sender."
)

REPS = {True: 3, False: 10}
ALL = tuple(VARIANTS)
#: The paper's two rows; the congestion study's senders.
PAPER2 = ("base", "atcp_mod")
CONGESTION = ("base", "atcp_orig", "atcp_mod", "sack")


@dataclass(frozen=True)
class Case:
    """One row pair of Table 2."""

    hops: int
    motion: str  # static | mobile | disconnect
    size_mb: int
    base: float  # the paper's transfer times (s)
    modified: float

    @property
    def label(self) -> str:
        extra = {"static": "static", "mobile": "receiver walking", "disconnect": "1-min disconnection"}[self.motion]
        return f"{self.hops} hop{'s' if self.hops > 1 else ''}, {extra}, {self.size_mb} MB"

    def name(self, prefix: str) -> str:
        return f"{prefix}/t2/{self.hops}hop-{self.motion}-{self.size_mb}MB"

    def doc(self, series: bool = False) -> dict[str, Any]:
        return scenario(hops=self.hops, size_mb=self.size_mb, motion=self.motion, series=series)


CASES = (
    Case(1, "static", 1, 1.69, 1.47),
    Case(1, "static", 10, 21.3, 17.0),
    Case(1, "static", 30, 60.0, 54.7),
    Case(1, "mobile", 30, 153.0, 92.1),
    Case(2, "mobile", 1, 30.8, 15.4),
    Case(1, "disconnect", 30, 198.0, 151.0),
)


def case_label(hops: int, motion: str, size_mb: int) -> str:
    """The Table 2 row label of a case (hops, motion, size)."""
    return next(c.label for c in CASES if (c.hops, c.motion, c.size_mb) == (hops, motion, size_mb))


PUBLISHED: dict[tuple[str, str], Published] = {
    (c.label, v): Published(t, "Table 2") for c in CASES for v, t in (("base", c.base), ("atcp_mod", c.modified))
}

T2 = "Table 2: transfer time, s"
TC = "Original ATCP's whole-window retransmissions: 4 lossy flows (2 % packet loss) through one relay, 60 s"
TP = "Table 2 cases: retransmitted segments per run"

#: Phrases of the prose that quote scenario parameters (inputs, not results): absorbed timeouts, the walking
#: receiver's rate steps (Mb/s), RED's max_th (the paper's maximum cwnd) (tests/test_report_prose.py).
PROSE_CONSTANTS = ("after 3 absorbed timeouts", "rate steps 11/5.5/2/1 Mb/s", "max_th = 45",
                   causes.TOST_PHRASE,
                   *dict.fromkeys(s.shown(v).removesuffix(" (ours)") for s in causes.SWITCHES for v in s.values),
                   # Table 2's own reductions, quoted beside each switch's (published, derived from the paper's times).
                   *dict.fromkeys(f"a reduction of {100 * (1 - c.modified / c.base):.1f} %" for c in CASES
                                  if any((c.hops, c.motion, c.size_mb) in s.cases for s in causes.SWITCHES)))

NOTES = (
    "Every sender runs each case with the same seeds: the same packet losses and the same paths.",
    "Modified ATCP = the paper's three changes (only the lost segment in Loss, each on its partial ACK; control "
    "back to TCP after 3 absorbed timeouts; linear probe back-off) plus the routing's route-failure notice taken "
    "as the host unreachable the paper asks routing to send (§6).",
    "The walking receiver loses 2 % of its packets above the MAC (Gilbert–Elliott, bursts of 2), standing for the "
    "fading of a moving laptop; rate steps 11/5.5/2/1 Mb/s follow its distance.",
    "RED marks ECN-capable packets when the instantaneous queue reaches max_th = 45 (the paper's maximum cwnd).",
)


def _mode(quick: bool) -> str:
    return "quick" if quick else "full"


def prefix(quick: bool) -> str:
    return f"{NAME}/{_mode(quick)}"


def _sweep(name: str, base: dict[str, Any], variants: tuple[str, ...], reps: int) -> Sweep:
    return Sweep(name=name, base=base, cells=variant_cells(variants), replications=reps, seed0=1)


def plot_name(prefix_: str, c: Case) -> str:
    return c.name(prefix_).replace("/t2/", "/plots/")


def sweeps(quick: bool) -> list[Sweep]:
    pre, reps = prefix(quick), REPS[quick]
    out = [_sweep(c.name(pre), c.doc(), ALL, reps) for c in CASES]
    # The plots: seed 1 of every case with its time series.
    out += [_sweep(plot_name(pre, c), c.doc(series=True), ALL, 1) for c in CASES]
    out.append(_sweep(f"{pre}/congestion", congested(), CONGESTION, reps))
    # The deviations' switches (atcp/causes.py): base TCP and modified ATCP with Table 2's seeds.
    out += [_sweep(name, base, PAPER2, reps) for name, base in causes.sweep_specs(pre)]
    return out


# ---------------------------------------------------------------------------------------- analysis


def runs(store: Store, sweep: str) -> dict[str, dict[int, dict[str, Any]]]:
    """variant -> seed -> the run's flows, wifi stations and key."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for r in store.runs(sweep).iter_rows(named=True):
        summary = json.loads(r["summary_json"]) if r["summary_json"] else {"flows": [], "wifi": []}
        out.setdefault(variant_of(json.loads(r["cell"])), {})[int(r["seed"])] = {
            "key": r["key"],
            "status": r["status"],
            "flows": summary["flows"],
            "wifi": summary.get("wifi", []),
        }
    return out


def transfer_times(store: Store, sweep: str) -> dict[str, dict[int, float]]:
    """variant -> seed -> transfer time (s) of the completed downloads."""
    return {v: {s: r["flows"][0]["response_time_s"] for s, r in per.items()
                if r["status"] == "ok" and r["flows"] and r["flows"][0]["completed"]}
            for v, per in runs(store, sweep).items()}


def analyse(store: Store, quick: bool) -> tuple[list[TableCell], list[Finding]]:
    pre = prefix(quick)
    cells: list[TableCell] = []
    times: dict[str, dict[str, dict[int, float]]] = {}
    conserved: list[tuple[str, str, bool]] = []
    for c in CASES:
        per = runs(store, c.name(pre))
        times[c.label] = transfer_times(store, c.name(pre))
        for v in ALL:
            cells.append(TableCell.of(T2, c.label, LABEL[v], summarise(times[c.label].get(v, {}).values()), "s",
                                      PUBLISHED.get((c.label, v))))
            retx = [r["flows"][0]["retransmissions"] for r in per.get(v, {}).values() if r["flows"]]
            cells.append(TableCell.of(TP, c.label, LABEL[v], summarise(retx), "segments"))
            for r in per.get(v, {}).values():
                f = r["flows"][0] if r["flows"] else {}
                ok = r["status"] == "ok" and f.get("completed") and f.get("bytes_delivered") == c.size_mb * 1_000_000
                conserved.append((c.label, v, bool(ok)))
    cong = congestion_stats(store, f"{pre}/congestion")
    for metric, unit in (("goodput", "Mb/s"), ("retransmissions", "segments"), ("relay drops", "packets"),
                         ("relay ECN marks", "packets")):
        for v in CONGESTION:
            cells.append(TableCell.of(TC, metric, LABEL[v], summarise(cong.get(v, {}).get(metric, {}).values()), unit))
    cells += causes.cells(lambda sweep: transfer_times(store, sweep), pre, case_label, PUBLISHED)
    motion = {c.label: c.motion for c in CASES}
    return cells, against_paper(findings(times, motion, cong, conserved, published_gain()),
                                findings(paper_times(), motion, {}, [], published_gain()))


def published_gain() -> dict[str, float]:
    """Table 2's reduction per case, 100·(1 − modified / base), in % (rounded as the paper would print it)."""
    return {c.label: round(100 * (1 - c.modified / c.base), 1) for c in CASES}


def paper_times() -> dict[str, dict[str, dict[int, float]]]:
    """Table 2 entered as data (each time twice, so with a zero-width interval)."""
    return {c.label: {"base": dict.fromkeys(PAPER_SEEDS, c.base), "atcp_mod": dict.fromkeys(PAPER_SEEDS, c.modified)}
            for c in CASES}


def congestion_stats(store: Store, sweep: str) -> dict[str, dict[str, dict[int, float]]]:
    """Per sender, per metric, per seed of the runs that ended ok (in seed order): aggregate goodput,
    retransmissions, the relay's drops and marks.  Keyed by seed, so that two senders are paired by seed
    even where one of them lost a run."""
    out: dict[str, dict[str, dict[int, float]]] = {}
    for v, per in runs(store, sweep).items():
        acc: dict[str, dict[int, float]] = {}
        for seed, r in sorted(per.items()):
            if r["status"] != "ok":
                continue
            relay = next((w for w in r["wifi"] if w["node"] == "m"), {})
            acc.setdefault("goodput", {})[seed] = sum(f["goodput_bps"] for f in r["flows"]) / 1e6
            acc.setdefault("retransmissions", {})[seed] = sum(f["retransmissions"] for f in r["flows"])
            acc.setdefault("relay drops", {})[seed] = relay.get("drops_queue", 0)
            acc.setdefault("relay ECN marks", {})[seed] = relay.get("ecn_marks", 0)
        out[v] = acc
    return out


def deviation_cause(cell: TableCell, cells: Sequence[TableCell] = ()) -> str:
    """Why a published cell is off by more than 10 % (the report lists these): written from the cell's switch
    (atcp/causes.py), the numbers this run's."""
    return causes.cause(cell, cells, case_label, PUBLISHED)


def figures(store: Store, outdir: Path, quick: bool = False) -> list[Path]:
    from tcplab.experiments.atcp.figures import draw

    return draw(store, outdir, quick)
