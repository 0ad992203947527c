"""Write one experiment's `tcplab reproduce` report from a store whose tcplab sweeps are complete, without its
ns-2.35 side: for a full run stopped in its ns-2.35 phase (session 16: the full ns-2.35 runs of tcp-pgy and
adaptive-tcp take hours on the shared machine).

    .venv/bin/python validation/report_without_ns2.py EXPERIMENT STORE OUT [--full|--quick]

STORE is copied (beside OUT, as OUT.db) and the copy's ns-2.35 runs are dropped, so the report's ns-2.35 column reads
"(not run)" rather than a mean over the few seeds that ran; no ns-2.35 run is started.  Every tcplab sweep still
runs what the store lacks (e.g. a sweep added since), as `tcplab reproduce` would.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from tcplab.experiments import all_experiments, ns2_side  # noqa: E402
from tcplab.report import reproduce  # noqa: E402
from tcplab.store import Store  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("store", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    exps = all_experiments()
    if a.experiment not in exps:
        print(f"error: experiment {a.experiment!r}: expected one of {', '.join(exps)}", file=sys.stderr)
        return 2
    if not a.store.is_file():
        print(f"error: store {a.store}: no such file", file=sys.stderr)
        return 2
    copy = a.out.with_suffix(".db")
    with sqlite3.connect(a.store) as src:
        src.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(a.store, copy)
    with sqlite3.connect(copy) as db:
        db.execute("DELETE FROM sweep_runs WHERE key LIKE 'ns2-%'")
        db.execute("DELETE FROM runs WHERE key LIKE 'ns2-%'")
    ns2_side.run = lambda *args, **kw: 0  # no ns-2.35 run (see the docstring)
    with Store(copy) as store:
        index, _ = reproduce([exps[a.experiment]], store, a.out, quick=a.quick, workers=a.workers, progress=False)
    print(index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
