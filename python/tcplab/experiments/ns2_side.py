"""The "ns-2.35, same setup" side of an experiment: its cells run by ns-2.35 and stored beside tcplab's.

The papers 001, 002 and 004 were simulated in ns-2, so their reproductions show, for the senders
ns-2.35 has (Reno, NewReno, Westwood+ through Agent/TCP/Linux), what ns-2.35 itself gives on the
same network.  An experiment lists :class:`Job`\\ s — a cell (its overrides as the tcplab sweep
stores them) and the whole scenario of a seed as ns-2.35 can run it — and :func:`run` does the rest
with validate-ns2's parts: the translator writes the Tcl (refusing what ns-2 cannot carry), its
runner runs ``ns`` with the trace read from a pipe, its reader counts the trace.  Each seed's
counters are stored as a run of the experiment's ns-2 sweep (version ``ns-2.35``), keyed by the
script and the seed: a rerun resumes, a changed translation runs again.  Nothing runs when ``ns``
is not installed; the report's column then says so (:func:`heading`), and nothing fails.

The stored summary uses tcplab's field names where ns-2 counts the same thing (compare.py says how
each is counted): per flow ``bytes_delivered`` (in-order packets × packetSize_), ``goodput_bps``
(that × 8 over the run, a download: its size over its completion time), ``timeouts`` (nrexmit_),
``retransmissions``, ``spurious_retransmissions`` (DATA packets the sink got twice), ``data_lost``
and ``acks_lost`` (sent by the agent, never reached the peer agent); per network
``mac_retry_drops`` and ``routing_sent``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab.experiments.base import NS2_FINDING_PREFIX, TableCell
from tcplab.store import RunRecord, Store
from tcplab.validate.units import seconds

NS2_VERSION = "ns-2.35"
#: A seed of ns-2 that runs longer than this is stopped (stored as failed).
NS2_TIMEOUT_S = 600.0
#: The ns-2 column's heading when ``ns`` is missing (its cells stay empty; nothing fails).
NOT_INSTALLED = "ns-2.35 not installed"
COLUMN = "ns-2.35, same setup"


@dataclass(frozen=True)
class Job:
    """One cell to run in ns-2.35: the cell as the tcplab sweep stores it, and the whole scenario of a seed."""

    cell: dict[str, Any]
    scenario: Callable[[int], dict[str, Any]]
    #: Every event ns-2 schedules runs this much later (validate-ns2's ``settle``, :func:`script`).
    settle_s: float = 0.0


def ns_installed() -> bool:
    return shutil.which("ns") is not None


def script(scenario: dict[str, Any], settle_s: float = 0.0) -> Any:
    """The scenario as an ns-2.35 Tcl script (validate-ns2's translator; raises ``Untranslatable``), every
    scheduled event ``settle_s`` later (its ``settle``: static routes, which ns-2 runs as DSDV, are in place
    before traffic)."""
    from tcplab.validate.ns2.command import prepare

    return prepare(json.dumps(scenario), "json", [], Path.cwd(), settle_s)[2]


def run_seed(script_: Any, seed: int) -> Any:
    """One run of a script in a scratch folder: validate-ns2's parsed trace (``Parsed``); raises ``NsError``."""
    from tcplab.validate.ns2 import run as ns_run

    with tempfile.TemporaryDirectory(prefix="tcplab-ns2-") as tmp:
        path = Path(tmp) / "cell.tcl"
        path.write_text(script_.text, encoding="utf-8")
        return ns_run.run_seed(path, script_, seed, Path(tmp), NS2_TIMEOUT_S)


def summary(script_: Any, parsed: Any, duration_s: float) -> dict[str, Any]:
    """A parsed ns-2 run in the stored summary's terms (module docstring)."""
    flows = []
    for f in script_.flows:
        if f.kind != "tcp":
            continue
        c = parsed.flows[f.name]
        delivered = c.delivered_packets * f.payload
        if f.size is not None:
            goodput = f.size * 8 / c.completion_s if c.completion_s else None
        else:
            goodput = delivered * 8 / duration_s  # compare.py: over the run's duration
        flows.append({
            "name": f.name, "bytes_delivered": delivered, "goodput_bps": goodput, "timeouts": c.rtos,
            "retransmissions": c.retransmissions, "spurious_retransmissions": c.duplicates,
            # "in flight" at the end is neither lost nor delivered (compare.py leaves it out too).
            "data_lost": sum(v for r, v in c.data_lost.items() if r != "in flight"),
            "acks_lost": sum(v for r, v in c.acks_lost.items() if r != "in flight"),
        })
    return {"simulator": NS2_VERSION, "flows": flows,
            "network": {"mac_retry_drops": parsed.net.mac_retry_drops,
                        "routing_sent": sum(parsed.net.routing_sent.values())}}


def key(script_text: str, seed: int) -> str:
    """The store key of one ns-2 run: the script and the seed (nothing else changes what ns does)."""
    return "ns2-" + hashlib.sha256(f"{script_text}\n{seed}".encode()).hexdigest()[:40]


def run(store: Store, sweep: str, jobs: Sequence[Job], seeds: Sequence[int],
        summarise: Callable[[Any, Any, float], dict[str, Any]] = summary) -> int:
    """Run every job x seed in ns-2.35 that the store does not hold yet, as runs of ``sweep``; returns how
    many ran.  0 when ``ns`` is not installed.  A failed ns run is stored as failed with its error (the
    next reproduce tries it again), not raised: one crash does not lose the rest of the report."""
    if not ns_installed():
        return 0
    from tcplab.validate.ns2 import NsError

    ran = 0
    for job in jobs:
        cell_json = json.dumps(job.cell, sort_keys=True, separators=(",", ":"))
        for seed in seeds:
            scen = job.scenario(seed)
            scr = script(scen, job.settle_s)
            k = key(scr.text, seed)
            if store.ok_keys([k]):
                store.add_members([(sweep, cell_json, seed, k)])
                continue
            try:
                parsed = run_seed(scr, seed)
            except NsError as exc:
                store.record(RunRecord(key=k, sweep=sweep, cell=cell_json, scenario_json=scr.text, seed=seed,
                                       version=NS2_VERSION, status="failed", error=str(exc), summary=None,
                                       series=None, wall_time_s=None))
                continue
            store.record(RunRecord(key=k, sweep=sweep, cell=cell_json, scenario_json=scr.text, seed=seed,
                                   version=NS2_VERSION, status="ok", error=None,
                                   summary=summarise(scr, parsed, seconds(scen["duration"])), series=None,
                                   wall_time_s=None))
            ran += 1
    return ran


def runs(store: Store, sweep: str) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    """The ok ns-2 runs of ``sweep``: (cell, seed, summary)."""
    return [(json.loads(r["cell"]), int(r["seed"]), json.loads(r["summary_json"]))
            for r in store.runs(sweep, status="ok").iter_rows(named=True)]


def heading(ns_available: bool, measured: bool) -> str:
    """The ns-2 column's heading: the column, or why it is empty."""
    if measured:
        return COLUMN
    return NOT_INSTALLED if not ns_available else f"{COLUMN} (not run)"


# ---------------------------------------------------------------------------------------- the column


#: Between a tcplab cell's column and the ns-2 column's heading in the ns-2 cell's column
#: ("TCP Reno · ns-2.35, same setup"): how the report pairs the two.
SEP = " · "
#: The text an ns-2 finding starts with (the same claim decided on ns-2.35's runs).
FINDING_PREFIX = NS2_FINDING_PREFIX


def cell(ours: Any, stat: Any, heading_: str) -> Any:
    """The ns-2 cell beside tcplab's cell ``ours`` (a TableCell): same table, row and unit, the column
    ``"<ours.column> · <heading>"``.  It carries no published value, so it counts in none of the
    paper's bands; the report's side-by-side table takes the paper's value from ``ours``."""
    return TableCell.of(ours.table, ours.row, f"{ours.column}{SEP}{heading_}", stat, ours.unit)


def is_ns2(c: Any) -> bool:
    return SEP in c.column and c.column.split(SEP, 1)[1].startswith(("ns-2.35", NOT_INSTALLED))


def pairs(cells: Sequence[Any]) -> list[tuple[Any, Any]]:
    """(tcplab cell, its ns-2 cell) for every ns-2 cell of ``cells``, in their order."""
    by = {(c.table, c.row, c.column): c for c in cells}
    out = []
    for c in cells:
        if is_ns2(c):
            ours = by.get((c.table, c.row, c.column.split(SEP, 1)[0]))
            if ours is not None:
                out.append((ours, c))
    return out


def gives(published: float, c: Any) -> str:
    """Whether ns-2.35's cell gives the paper's value: "gives it" when the value lies in its 95 % CI (widened
    by half the print resolution, 0.05, as for our cells), "does not give it" outside, "one seed" without a CI,
    "not measured" without runs."""
    if c.mean is None:
        return "not measured"
    if c.ci95 is None:
        return "one seed"
    return "gives it" if c.mean - c.ci95 - 0.05 <= published <= c.mean + c.ci95 + 0.05 else "does not give it"


def not_given(cells: Sequence[Any]) -> list[str]:
    """One sentence per published value the ns-2.35 column does not give (measured, outside its CI)."""
    out = []
    for ours, theirs in pairs(cells):
        if ours.published is not None and gives(ours.published, theirs) == "does not give it":
            out.append(f"{ours.table.split(':')[0]}, {ours.row}, {ours.column}: paper {ours.published:g}, ns-2.35 "
                       f"{_pm(theirs)} {ours.unit} — ns-2.35 itself does not give the paper's number")
    return out


def _pm(c: Any) -> str:
    if c.mean is None:
        return "–"
    return f"{c.mean:.4g}" if c.ci95 is None else f"{c.mean:.4g} ± {c.ci95:.2g}"


def side_by_side(cells: Sequence[Any]) -> tuple[list[str], list[list[str]]]:
    """The report's table of the ns-2 column: header and rows ``table | row | column | published | tcplab |
    ns-2.35 | ns-2.35 vs the paper``, each value "mean ± 95 % CI"."""
    rows = []
    for ours, theirs in pairs(cells):
        col = theirs.column.split(SEP, 1)[1]
        verdict = "–" if ours.published is None else gives(ours.published, theirs)
        if col != COLUMN:
            verdict = col  # not installed / not run: say so in the row
        rows.append([ours.table.split(":")[0], ours.row, ours.column,
                     "–" if ours.published is None else f"{ours.published:g}", _pm(ours), _pm(theirs), verdict])
    return ["table", "row", "column", "published", "tcplab", COLUMN, "ns-2.35 vs the paper"], rows


def side_markdown(cells: Sequence[Any], findings: Sequence[Mapping[str, Any]]) -> str:
    """Markdown of one report's ns-2.35 column (docs/validation/ns2_papers.md, validation/ns2/papers.py side): the
    published | tcplab | ns-2.35 table, the papers' numbers ns-2.35 does not give, and each NewReno-baseline
    finding decided on both simulators (``findings``: the report's tables.json findings)."""
    header, rows = side_by_side(cells)
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    missing = not_given(cells)
    out += ["", "Published numbers ns-2.35 itself does not give: " + ("; ".join(missing) if missing else "none") + "."]
    both = [f for f in findings if f["text"].startswith(FINDING_PREFIX)]
    if both:
        out += ["", "| finding (NewReno baseline) | tcplab | ns-2.35, same setup |", "|---|---|---|"]
        by = {f["text"]: f for f in findings}
        for f in both:
            text = f["text"].removeprefix(FINDING_PREFIX)
            ours = by.get(text)
            out.append(f"| {text} | {ours['verdict'] + ': ' + ours['detail'] if ours else '–'} | "
                       f"{f['verdict']}: {f['detail']} |")
    return "\n".join(out)
