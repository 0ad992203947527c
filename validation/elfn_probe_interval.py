"""ELFN's probe interval swept on the routing experiment's ELFN check (docs/validation/routing.md).

Holland & Vaidya found that the interval between stand-by probes moves TCP-ELFN's throughput a
great deal, and the interval they ran is not certain (ALGORITHMS.md §5.3 records 2 s as believed,
not confirmed); tcplab's default is 2 s. This runs the check's one flow across the 50-node mobile
network over DSR, with DSR telling the sender of every Route Error (``notify_every_error``, ELFN as
its authors built it), for each interval and seed, and reports throughput and the share of
NewReno's loss recovered against the expected throughput.

The expected throughput and NewReno's runs come from the store of a full
``tcplab reproduce routing`` run (the same movements: same scenario, same seeds). Run from the
repository root::

    .venv/bin/tcplab reproduce routing --out /tmp/routing/report --store /tmp/routing/store.db
    .venv/bin/python validation/elfn_probe_interval.py /tmp/routing/store.db
"""

import argparse

import tcplab
from tcplab.experiments.routing import experiment as exp
from tcplab.experiments.routing import scenario as sc
from tcplab.experiments.routing.findings import expected_kbps
from tcplab.stats import summarise
from tcplab.store import Store

INTERVALS = ("0.5s", "1s", "2s", "4s")


def fmt(xs) -> str:
    m = summarise(xs)
    return f"{m.mean:.1f} ± {m.ci95:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="the store of a full `tcplab reproduce routing` run")
    ap.add_argument("--seeds", type=int, default=exp.REPS[("single", False)])
    args = ap.parse_args()
    e = exp.elfn_runs(Store(args.store), quick=False)["dsr"]
    expected = expected_kbps(e)
    newreno = {s: r["kbps"] for s, r in e.runs.get("newreno", {}).items() if r["ok"]}
    seeds = [s for s in range(1, args.seeds + 1) if s in expected and s in newreno]
    if not seeds:
        raise SystemExit(f"{args.store}: no full ELFN-check runs over DSR (run `tcplab reproduce routing` first)")
    print(f"DSR, one flow, {len(seeds)} seeds: expected {fmt(expected[s] for s in seeds)} kb/s, "
          f"NewReno {fmt(newreno[s] for s in seeds)} kb/s (mean ± 95 % CI)")
    print("probe interval | throughput, kb/s | share recovered, %")
    for iv in INTERVALS:
        kbps = {}
        for s in seeds:
            cell = sc.sender_cell("elfn_every", "dsr") | {"tcp.elfn.probe_interval": iv}
            run = tcplab.run(exp.scenario("single", "dsr", quick=False), seed=s, overrides=cell)
            kbps[s] = exp.run_metrics(run.summary)["kbps"]
        share = [100 * (kbps[s] - newreno[s]) / (expected[s] - newreno[s]) for s in seeds
                 if expected[s] > newreno[s]]
        print(f"{iv} | {fmt(kbps.values())} | {fmt(share)}", flush=True)


if __name__ == "__main__":
    main()
