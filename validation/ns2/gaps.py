"""Longest gap between TCP data deliveries per flow of the 50-node rows (flows n0->n3, n1->n4,
n2->n5 from 0, 1, 2 s; 300 s), from an ns-2 wireless trace -- ns-2's own or tcplab's ns-2-format
event trace: `r` lines at AGT of TCP data (over 100 bytes) at the flow's sink.

    python3 validation/ns2/gaps.py TRACE...
"""
import re, sys
FLOWS = {(0, 3): "f1", (1, 4): "f2", (2, 5): "f3"}
START = {"f1": 0.0, "f2": 1.0, "f3": 2.0}
END = 300.0
pat = re.compile(r"^r (\S+) _(\d+)_ AGT .*? tcp (\d+) .*?\[(\d+):\d+ (\d+):\d+")
times = {f: [] for f in FLOWS.values()}
for path in sys.argv[1:]:
    for f in times: times[f] = []
    with open(path, errors="replace") as fh:
        for ln in fh:
            if not ln.startswith("r ") or " AGT " not in ln or " tcp " not in ln:
                continue
            m = pat.match(ln)
            if not m:
                continue
            t, node, size, s, d = float(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5])
            f = FLOWS.get((s, d))
            if f and node == d and size > 100:
                times[f].append(t)
    out = []
    for f, ts in times.items():
        pts = [START[f]] + sorted(ts) + [END]
        gaps = [(b - a, a) for a, b in zip(pts, pts[1:])]
        g, at = max(gaps)
        out.append(f"{f}: {len(ts)} pkts, longest gap {g:.1f} s from {at:.1f} s")
    print(path, "|", "; ".join(out))
