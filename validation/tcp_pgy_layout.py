"""TCP-pgy's layout switches in full mode, alone: the grid's six-flow point and the random topologies' 5-flow, 5 m/s
point (NewReno and TCP-pgy), and every setting of tcp_pgy/causes.py, then the switches' cells and the cause texts.

    .venv/bin/python validation/tcp_pgy_layout.py STORE [--workers N]

The sweeps are the experiment's own (same names, networks and seeds as `tcplab reproduce tcp-pgy`, only the two
senders the gains compare), so a later full reproduce into the same store reuses these runs.  A full reproduce of
tcp-pgy (hundreds of 600 s runs, ns-2.35's beside them) is what the report page needs; this is the targeted
measurement of the causes alone.
"""

from __future__ import annotations

import argparse

from tcplab.experiments.tcp_pgy import causes
from tcplab.experiments.tcp_pgy import experiment as e
from tcplab.experiments.tcp_pgy import scenario as sc
from tcplab.experiments.tcp_pgy.points import PAIR, runs, starts_per_seed
from tcplab.runner import Sweep, run_sweep
from tcplab.store import Store


def sweeps() -> list[Sweep]:
    pre = e.prefix(False)
    out = []
    for p in e.grid_points(False) + e.random_points(False):
        if (p.kind == "grid" and p.flows == causes.GRID_FLOWS) or (p.kind == "random" and (p.flows, p.speed) == causes.RANDOM_POINT):
            reps = e.GRID_REPS[False] if p.kind == "grid" else e.RANDOM_REPS[False]
            out.append(Sweep(name=p.name(pre), base=p.scenario(), cells=sc.variant_cells(PAIR), replications=reps, seed0=1,
                             per_seed=starts_per_seed(p.flows)))
    return out + causes.sweeps(pre, e.DURATION[False], e.GRID_REPS[False], e.RANDOM_REPS[False])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    pre = e.prefix(False)
    rkey = f"{causes.RANDOM_POINT[0]} flows, {causes.RANDOM_POINT[1]:g} m/s"
    with Store(a.store) as store:
        for sw in sweeps():
            r = run_sweep(sw, store, workers=a.workers)
            print(f"{sw.name}: {r.total} runs, {len(r.executed)} executed, {len(r.failed)} failed")
        grid6 = runs(store, f"{pre}/grid/flows={causes.GRID_FLOWS}")
        rand = runs(store, f"{pre}/random/flows={causes.RANDOM_POINT[0]},vmax={causes.RANDOM_POINT[1]:g}")

        def runs_of(s: causes.Setting) -> dict:
            if s.ours:
                return grid6 if s.switch != "endpoints" else rand
            return runs(store, causes.sweep_name(pre, s))

        grid_pub = e.PUBLISHED[("grid_gain", causes.GRID_FLOWS)].value
        rand_pub = e.PUBLISHED[("random_gain", rkey)].value
        cells = causes.cells(runs_of, {"grid": grid_pub, "random": rand_pub})
    print("\n| table | setting | column | mean ± 95 % CI | n |\n|---|---|---|---|---|")
    for c in cells:
        print(f"| {c.table} | {c.row} | {c.column} | {c.mean:.2f} ± {c.ci95:.2f} | {c.n} |")
    print()
    print(causes.cause(causes.GRID_TABLE, causes.GRID_SETTINGS, grid_pub, cells, "grid's flow placement and size"))
    print(causes.cause(causes.RANDOM_TABLE, causes.RANDOM_SETTINGS, rand_pub, cells, "random topologies' TCP endpoints"))


if __name__ == "__main__":
    main()
