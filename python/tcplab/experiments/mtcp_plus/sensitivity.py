"""Seed 000: how the published cells move with the settings the paper leaves open.

Each sweep varies one unstated setting around the documented choice and measures NewReno and
M-TCP+ (delayed ACK on, the paper's recommended case) on the scenarios that setting affects.  The
report shows one table per setting; docs/validation/mtcp_plus.md records the choice and why.

* phase — when in each cycle the outage starts (10, 30 and 180 s disconnections);
* size — "100 MB" as 10^8 bytes or as 100 · 2^20 bytes;
* rate — the 802.11b data rate (the one calibrated parameter);
* congestion — the competing traffic: CBR/UDP at several loads, or a bulk TCP download, through
  the same IH.

Small by design (two seeds, one in quick mode where only NewReno runs): it shows direction and
size of each effect, not a precise surface.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from tcplab.experiments.base import TableCell
from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.store import Store

OUTAGE_START = "wlans.bss.stations.1.outage.start"

#: setting -> (title, [(scenario, override path, values)], how a value is shown)
SETTINGS: dict[str, tuple[str, list[tuple[str, str, list[Any]]]]] = {
    "phase": (
        "outage phase: start of the outage within each cycle (documented choice: the cycle's end)",
        [("10s", OUTAGE_START, ["0s", "20s", "40s", "50s"]), ("30s", OUTAGE_START, ["0s", "15s", "30s"]),
         ("180s", OUTAGE_START, ["0s", "60s", "120s"])],
    ),
    "size": (
        "file size: 100 MB read as 10^8 bytes (documented choice) or 100 · 2^20 bytes",
        [(sc, "flows.ftp.size", ["100MB", "100MiB"]) for sc in ("none", "10s")],
    ),
    "rate": (
        "802.11b data rate (documented choice: 5.5 Mb/s, calibrated on Table 2)",
        [(sc, "wlans.bss.rate", ["2Mbps", "5.5Mbps", "11Mbps"]) for sc in ("none", "10s")],
    ),
    "congestion": (
        "congestion traffic through the IH (documented choice: 2 Mb/s CBR/UDP)",
        [("congestion", "flows.background", [
            {"name": "background", "app": "cbr", "src": "fh2", "dst": "wh2", "rate": r, "packet_size": "1000B"}
            for r in ("1Mbps", "2Mbps", "3Mbps")
        ] + [{"name": "background", "app": "bulk", "client": "wh2", "server": "fh2"}])],
    ),
}
VARIANTS = ("newreno", "mtcp_plus")


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return f"{value['rate']} CBR/UDP" if value["app"] == "cbr" else "bulk TCP download"
    return str(value)


def _variants(quick: bool) -> tuple[str, ...]:
    return VARIANTS[:1] if quick else VARIANTS


def sweep_name(prefix: str, setting: str, variant: str, scenario: str) -> str:
    return f"{prefix}/sensitivity/{setting}/{variant}/{scenario}"


def sweeps(prefix: str, quick: bool, scenario_of: Any) -> list[Sweep]:
    """One sweep per (setting, variant, scenario); ``scenario_of(variant, scenario)`` builds the base."""
    out = []
    for setting, (_, axes) in SETTINGS.items():
        for sc, path, values in axes:
            for v in _variants(quick):
                base = scenario_of(v, sc)
                base["trace"] = {"series": []}
                out.append(Sweep(
                    name=sweep_name(prefix, setting, v, sc),
                    base=base,
                    cells=[{path: value} for value in values],
                    replications=1 if quick else 2,
                    seed0=128,
                ))
    return out


def cells(store: Store, prefix: str, quick: bool, published: dict[tuple[str, str], float], label: dict[str, str]) -> list[TableCell]:
    """A table per setting: response time per value, one column per (variant, scenario) with the
    paper's value in its heading (``published[(variant, scenario)]``, delayed ACK on).  The cells
    carry no published value of their own, so they are not counted as reproduced cells."""
    out = []
    for setting, (title, axes) in SETTINGS.items():
        table = f"Sensitivity — {title}: response time (s), delayed ACK on, 0 = not completed"
        for sc, path, values in axes:
            for v in _variants(quick):
                flows = store.flows(sweep_name(prefix, setting, v, sc), status="ok")
                if flows.is_empty():
                    continue
                flows = flows.filter(pl.col("flow") == "ftp")
                runs = store.runs(sweep_name(prefix, setting, v, sc), status="ok")
                cell_of = dict(zip(runs["key"].to_list(), runs["cell"].to_list(), strict=True))
                pub = published.get((v, sc))
                column = f"{label[v]}, {sc}" + (f" (paper {pub:g} s)" if pub is not None else "")
                for value in values:
                    vals = [
                        float(r["response_time_s"]) if r["completed"] else 0.0
                        for r in flows.iter_rows(named=True)
                        if _cell_value(cell_of[r["key"]], path) == value
                    ]
                    out.append(TableCell.of(table, _shown(value), column, summarise(vals), "s"))
    return out


def _cell_value(cell_json: str, path: str) -> Any:
    return json.loads(cell_json).get(path)
