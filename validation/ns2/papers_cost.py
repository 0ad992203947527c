"""CPU cost of the ns-2.35 side of the ns-2 papers' reproductions (docs/validation/ns2_papers.md): each
experiment's ``external_runs`` into a fresh store, the children's CPU (``ns``) and our own (reading the traces)
from getrusage. Quick mode unless ``--full``; all three experiments unless some are named.

    .venv/bin/python validation/ns2/papers_cost.py STORE [--full] [EXPERIMENT ...]   # STORE must not exist yet
"""
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from tcplab.store import Store
from tcplab.experiments import select
args = sys.argv[1:]
full = "--full" in args
names = [a for a in args[1:] if a != "--full"] or ["ack-holding", "tcp-pgy", "adaptive-tcp"]
if Path(args[0]).exists():
    sys.exit(f"{args[0]} exists: give a fresh store")
with Store(args[0]) as store:
    for e in select(names):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN); s0 = resource.getrusage(resource.RUSAGE_SELF)
        n = e.external_runs(store, not full)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN); s1 = resource.getrusage(resource.RUSAGE_SELF)
        ns = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
        py = (s1.ru_utime + s1.ru_stime) - (s0.ru_utime + s0.ru_stime)
        print(f"{e.NAME} ({'full' if full else 'quick'}): {n} ns-2 runs, ns CPU {ns:.1f} s, reading the traces (python) {py:.1f} s", flush=True)
