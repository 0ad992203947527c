"""Seed 001: how Table I moves with the settings the paper leaves open.

The paper gives "ns-2, TCP Reno, 40 s transfer, 10 s fades" and nothing else.  Each sweep varies one
unstated setting around the documented choice (ack_holding.py) and measures both schemes with one
and with two fades; the report shows one table per setting, docs/validation/ack_holding.md the choice.

* fades — where the 10 s fades fall within the 40 s run;
* wired delay, wired rate, wireless rate — the path the paper does not describe;
* unit — Table I's bare numbers read as packets delivered in order (the choice), as segments the
  FH sent (retransmissions included), or as kb/s of goodput; no new runs, the table sweep's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.experiments.base import TableCell
from tcplab.store import Store

OUTAGE_PATH = "wlans.cell.stations.1.outage.intervals"


def _fades(*starts: int) -> list[list[str]]:
    return [[f"{s}s", f"{s + 10}s"] for s in starts]


#: setting -> (title, fade case -> (path, values))
SETTINGS: dict[str, tuple[str, dict[str, tuple[str, list[Any]]]]] = {
    "fades": (
        "fade positions within the 40 s run (documented choice: 10–20 s; 10–20 s and 25–35 s)",
        {
            "one": (OUTAGE_PATH, [_fades(s) for s in (5, 10, 15, 20, 25)]),
            "two": (OUTAGE_PATH, [_fades(5, 20), _fades(10, 25), _fades(10, 28), _fades(15, 28)]),
        },
    ),
    "wired-delay": (
        "one-way delay of the wired FH–BS link (documented choice: 50 ms)",
        {f: ("links.wired.delay", ["10ms", "50ms", "100ms"]) for f in ("one", "two")},
    ),
    "wired-rate": (
        "rate of the wired FH–BS link (documented choice: 10 Mb/s)",
        {f: ("links.wired.rate", ["2Mbps", "10Mbps", "100Mbps"]) for f in ("one", "two")},
    ),
    "wireless-rate": (
        "ns-2 802.11 data rate (documented choice: 2 Mb/s)",
        {f: ("wlans.cell.rate", ["1Mbps", "2Mbps"]) for f in ("one", "two")},
    ),
}


def sweep_name(prefix: str, setting: str, fade: str) -> str:
    return f"{prefix}/sensitivity/{setting}/{fade}"


def sweeps(prefix: str, quick: bool, base: dict[str, Any], fades: dict[str, Any]) -> list[Sweep]:
    out = []
    for setting, (_, per_fade) in SETTINGS.items():
        for fade, (path, values) in per_fade.items():
            cells = [
                ({OUTAGE_PATH: fades[fade]} if path != OUTAGE_PATH else {}) | {path: value}
                | ({} if scheme == "holding" else {"agents": []})
                for value in values
                for scheme in ("holding", "reno")
            ]
            b = dict(base) | {"trace": {"series": []}}
            out.append(Sweep(name=sweep_name(prefix, setting, fade), base=b, cells=cells,
                             replications=2 if quick else 5, seed0=1))
    return out


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return " + ".join(f"{a}–{b}" for a, b in value)
    return str(value)


def cells(
    store: Store, prefix: str, published: dict[tuple[str, str], float], row_of: dict[str, str],
    ratios: Callable[[list[dict[str, Any]], list[dict[str, Any]]], list[float]],
) -> list[TableCell]:
    """A table per setting: packets and the ratio per value and fade case (paper's value in the
    column heading; the cells carry no published value, so they are not counted as reproduced)."""
    out = []
    for setting, (title, per_fade) in SETTINGS.items():
        table = f"Sensitivity — {title}: packets delivered in order, and ACK holding / Reno (x100)"
        for fade, (path, values) in per_fade.items():
            runs = store.runs(sweep_name(prefix, setting, fade), status="ok")
            recs = []
            for r in runs.iter_rows(named=True):
                cell = json.loads(r["cell"])
                flow = json.loads(r["summary_json"])["flows"][0]
                recs.append({"seed": r["seed"], "value": cell.get(path), "packets": flow["bytes_delivered"] / 1000,
                             "scheme": "reno" if cell.get("agents") == [] else "holding"})
            for value in values:
                sel = [r for r in recs if r["value"] == value]
                hold = [r for r in sel if r["scheme"] == "holding"]
                reno = [r for r in sel if r["scheme"] == "reno"]
                for col, stat in (
                    ("holding", summarise(r["packets"] for r in hold)),
                    ("reno", summarise(r["packets"] for r in reno)),
                    ("ratio", summarise(ratios(hold, reno))),
                ):
                    column = f"{row_of[fade]}: {col} (paper {published[(fade, col)]:g})"
                    out.append(TableCell.of(table, _shown(value), column, stat, "packets" if col != "ratio" else "%"))
    return out


#: Table I's bare numbers under each reading of the unit: (name, value of one run's flow summary).
UNITS: dict[str, Callable[[dict[str, Any]], float]] = {
    "packets of 1000 B delivered in order (choice)": lambda f: f["bytes_delivered"] / 1000,
    "segments sent by the FH, retransmissions included": lambda f: float(f["segments_sent"]),
    "goodput in kb/s over 40 s": lambda f: f["bytes_delivered"] * 8 / 40 / 1000,
}


def unit_cells(store: Store, table_sweep: str, published: dict[tuple[str, str], float], row_of: dict[str, str],
               fade_of: Callable[[dict[str, Any]], str]) -> list[TableCell]:
    """Table I's holding and Reno cells under each reading of the unit (from the table sweep's runs)."""
    table = "Sensitivity — counting unit of Table I (no unit printed): our Table I cells under each reading"
    runs = [
        (fade_of(json.loads(r["cell"])), "reno" if json.loads(r["cell"]).get("agents") == [] else "holding",
         json.loads(r["summary_json"])["flows"][0])
        for r in store.runs(table_sweep, status="ok").iter_rows(named=True)
    ]
    return [
        TableCell.of(table, unit, f"{row_of[fade]}: {scheme} (paper {published[(fade, scheme)]:g})",
                     summarise(value(f) for fa, sc, f in runs if fa == fade and sc == scheme), "as the row")
        for unit, value in UNITS.items()
        for fade in ("one", "two")
        for scheme in ("holding", "reno")
    ]
