"""Paper 004 (adaptive-tcp) on the ns2 profile's own one-way start against the handshake workaround it
used before issue 33 part 1 (``open = "handshake"``, ``window_scaling = true``, because the one-way start
capped ns-2's window_ of 1000 packets at 65535 B): Fig. 8's single-flow cells at FER 0, 1 and 5 %, Fig. 9's
D = 15 ms at FER 1 %, and Fig. 11's 4 APs x 2 flows at FER 1 %, for NewReno, Westwood+ and Adaptive TCP,
seeds 1-2. Prints utilisation (Mb/s, all flows) and timeouts per seed for each start.

    .venv/bin/python validation/ns2/p004_one_way_start.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import tcplab
from tcplab.experiments.adaptive_tcp.points import PAPER3, Point
from tcplab.experiments.adaptive_tcp.scenario import VARIANTS

POINTS = [Point("fig8", 0.0), Point("fig8", 0.01), Point("fig8", 0.05), Point("fig9", 0.01, delay="15ms"),
          Point("fig11", 0.01, aps=4, flows_per_ap=2, duration="60s")]
STARTS = {"one-way (profile)": {}, "handshake (before)": {"tcp.open": "handshake"}}
SEEDS = (1, 2)

for p in POINTS:
    base = p.sweep("p004", 1).base
    for v in PAPER3:
        row = []
        for label, extra in STARTS.items():
            ov = {f"tcp.{k}": x for k, x in VARIANTS[v].items()} | extra
            cells = []
            for seed in SEEDS:
                r = tcplab.run(base, seed=seed, overrides=ov)
                fl = r.summary["flows"]
                util = sum((f["goodput_bps"] or 0.0) for f in fl) / 1e6
                cells.append(f"{util:.3f}/{sum(f['timeouts'] for f in fl)}")
            row.append(f"{label}: {' '.join(cells)}")
        print(f"{p.fig} {p.label} {v:9s} | " + " | ".join(row), flush=True)
