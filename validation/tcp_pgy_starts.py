"""TCP-pgy: how the flows' per-replication start offsets move the results (issue 39).

The paper states neither when its flows start nor what its 100 runs vary, so the width of the start offset each
replication draws (tcp_pgy/scenario.py ``START_JITTER_S``) is our choice.  This sweeps it at the two multi-flow
points whose flows compete from the start — the grid with six crossing flows (the published 58.4 % point) and the
7-hop string with three flows — NewReno and TCP-pgy on the same seeds, and writes the cells as the measurement
``start_offsets`` of docs/validation/data/tcp_pgy.json, which docs/validation/tcp_pgy.md's "Flow start offsets"
table is rendered from (tests/test_docs_pages.py checks the page against it).

    .venv/bin/python validation/tcp_pgy_starts.py STORE [--jitters 0 2 10] [--seeds 5] [--duration 600s]
        [--json docs/validation/data/tcp_pgy.json] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import date
from pathlib import Path

from tcplab import _core
from tcplab.experiments.tcp_pgy import scenario as sc
from tcplab.experiments.tcp_pgy.points import PAIR, metric, starts_per_seed
from tcplab.runner import Sweep, run_sweep
from tcplab.stats import gain_pct_by_seed, summarise
from tcplab.store import Store

#: The points swept: label -> (scenario builder, number of flows).
POINTS = {
    "grid, 6 crossing flows": (lambda d: sc.grid(6, d), 6),
    "7-hop string, 3 flows": (lambda d: sc.string(7, 3, d), 3),
}


def sweep(point: str, jitter: float, seeds: int, duration: str) -> Sweep:
    build, flows = POINTS[point]
    name = f"tcp-pgy/starts/{point.replace(' ', '')}/{duration}/jitter={jitter:g}"
    return Sweep(name=name, base=build(duration), cells=sc.variant_cells(PAIR), replications=seeds, seed0=1,
                 per_seed=starts_per_seed(flows, jitter))


def _cell(values) -> dict:
    s = summarise(values)
    return {"mean": s.mean, "ci95": s.ci95, "n": s.n}


def _pm(c: dict, signed: bool = False) -> str:
    """mean ± 95 % CI half-width, to 0.1 (a gain with its sign)."""
    return f"{c['mean']:+.1f} ± {c['ci95']:.1f}" if signed else f"{c['mean']:.1f} ± {c['ci95']:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("--jitters", type=float, nargs="+", default=[0.0, 2.0, 10.0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", default="600s")
    ap.add_argument("--json", type=Path, default=Path("docs/validation/data/tcp_pgy.json"))
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args(argv)
    rows = []
    with Store(a.store) as store:
        for point in POINTS:
            for j in a.jitters:
                sw = sweep(point, j, a.seeds, a.duration)
                r = run_sweep(sw, store, workers=a.workers)
                print(f"{sw.name}: {r.total} runs, {len(r.executed)} executed, {len(r.failed)} failed", flush=True)
                kb = metric(store, sw.name, "kbps")
                gain = gain_pct_by_seed(kb["pgy"], kb["newreno"])
                rows.append({"point": point, "jitter_s": j, "newreno_kbps": _cell(kb["newreno"].values()),
                             "pgy_kbps": _cell(kb["pgy"].values()), "gain_pct": _cell(gain.values())})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    args = argv if argv is not None else sys.argv[1:]
    measurement = {
        "command": " ".join([".venv/bin/python validation/tcp_pgy_starts.py", *args]),
        "date": date.today().isoformat(),
        "commit": f"{commit}, core {_core.version()}",
        "note": (f"{a.duration} runs, seeds 1–{a.seeds}, NewReno and TCP-pgy on the same seeds; mean ± 95 % CI; "
                 "offsets uniform in [0, width) s per flow, drawn from the seed."),
        "columns": ["point", "start offset width", "NewReno AAT, kb/s", "TCP-pgy AAT, kb/s", "TCP-pgy's gain (paired), %"],
        "rows": [[r["point"], f"{r['jitter_s']:g} s" + (" (fixed starts)" if r["jitter_s"] == 0 else ""),
                  _pm(r["newreno_kbps"]), _pm(r["pgy_kbps"]), _pm(r["gain_pct"], signed=True)] for r in rows],
        "cells": rows,
    }
    doc = json.loads(a.json.read_text()) if a.json.is_file() else {"measurements": {}}
    doc.setdefault("measurements", {})["start_offsets"] = measurement | (
        {"section": doc["measurements"]["start_offsets"]["section"]}
        if "section" in doc["measurements"].get("start_offsets", {}) else {})
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
