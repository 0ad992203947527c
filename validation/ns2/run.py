"""The networks of the ns-2 papers, each run by `tcplab validate ns2` over seeds 1-5, and the table
of docs/validation/ns2.md built from the results.

    .venv/bin/python validation/ns2/run.py                 # every row (hours on two cores)
    .venv/bin/python validation/ns2/run.py string4 p001_one  # some rows
    .venv/bin/python validation/ns2/run.py --list          # the rows
    .venv/bin/python validation/ns2/run.py --table         # the markdown table from what has run

Each row's scenario is written to results/validate-ns2/scenarios/ROW.json and run with
`tcplab validate ns2 FILE --seeds 1-5 --out results/validate-ns2/ROW`.  The scenarios are built
from the experiments' own builders (python/tcplab/experiments/*_scenario.py), changed only where
ns-2.35 as shipped has no equivalent (each change is named in ROWS and in docs/validation/ns2.md):

* strings and grids (paper 002): tcp_pgy_scenario's string/grid, NewReno, 600 s; AODV as ns-2.35
  ships it (gratuitous RREPs compiled out: the builder's gratuitous_rrep = true is dropped);
* the single-AP WLAN (paper 004): adaptive_tcp_scenario's one AP, on ns2_dsss at 11 Mb/s with
  two-ray ground (ns-2 has no ERP-OFDM and no unit disk), Bernoulli frame errors on every frame
  the station sends and receives (ns-2's error hook sits below the MAC; the builder's
  Gilbert-Elliott errors above the MAC have no ns-2 counterpart), NewReno and Westwood+;
* 50 nodes in 1500 m x 300 m (papers 002, 003): every node moves by the setdest files in
  validation/ns2/moves/ (setdest -v 2, speeds uniform in [v/10, v], pause 0, 300 s), three flows
  n0->n3, n1->n4, n2->n5 starting 0, 1, 2 s, AODV / DSR / DSDV with ns-2's presets;
* paper 001's path: ack_holding's fixed host -- base station ~ mobile, Reno, 40 s, without the
  ACK holder and its link signals (ns-2 has neither), one fade (10-20 s) or two (10-20, 25-35 s).
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

# The experiments' builders (experiments/<paper>/scenario.py).
from tcplab.experiments.ack_holding import experiment as ack_holding  # noqa: E402
from tcplab.experiments.adaptive_tcp import scenario as atcp  # noqa: E402
from tcplab.experiments.tcp_pgy import scenario as pgy  # noqa: E402
from tcplab.validate.ns2.compare import mean_ci, seed_span, show  # noqa: E402

OUT = ROOT / "results" / "validate-ns2"
MOVES = Path(__file__).resolve().parent / "moves"
FERS = (0.0, 0.001, 0.01, 0.05, 0.1)


def _shipped_aodv(s: dict[str, Any]) -> dict[str, Any]:
    s["wlans"][0]["routing"] = {"protocol": "aodv", "preset": "ns2"}
    s.pop("trace", None)
    return s


def string(hops: int) -> dict[str, Any]:
    return _shipped_aodv(pgy.string(hops))


def grid(flows: int) -> dict[str, Any]:
    return _shipped_aodv(pgy.grid(flows))


def wlan004(fer: float, cc: str) -> dict[str, Any]:
    s = atcp.scenario(fer=fer, loss_at="phy")
    s["name"] = f"wlan004_{cc}_fer{fer:g}"
    s["tcp"] |= atcp.VARIANTS[cc]
    w = s["wlans"][0]
    w.update(phy="ns2_dsss", rate="11Mbps", propagation={"model": "two_ray_ground"})
    for st in w["stations"]:
        if "loss" in st:
            st["loss"] = {"model": "bernoulli", "p": fer}
    s.pop("trace", None)
    return s


def mobile(speed: int, protocol: str) -> dict[str, Any]:
    nodes = [f"n{i}" for i in range(50)]
    tcp = pgy.tcp()
    return {
        "name": f"mobile50_v{speed}_{protocol}",
        "duration": "300s",
        "tcp": tcp,
        "nodes": [{"name": n} for n in nodes],
        "wlans": [{
            "name": "manet", "mode": "adhoc", "phy": "ns2_dsss", "rate": "2Mbps", "queue": pgy.QUEUE,
            "propagation": {"model": "two_ray_ground"}, "routing": {"protocol": protocol, "preset": "ns2"},
            "mobility_file": str(MOVES / f"rwp_v{speed}.tcl"),
            # The file's initial positions replace these.
            "stations": [{"node": n, "position": ["0m", "0m"]} for n in nodes],
        }],
        "flows": [{"name": f"f{i + 1}", "app": "bulk", "server": f"n{i}", "client": f"n{i + 3}", "start": f"{i}s"}
                  for i in range(3)],
    }


def p001(fades: str) -> dict[str, Any]:
    s = copy.deepcopy(ack_holding.scenario())
    s["name"] = f"p001_{fades}_fade"
    s.pop("agents")
    s.pop("trace", None)
    w = s["wlans"][0]
    w.pop("signals")
    w["stations"][1]["outage"] = {"intervals": ack_holding.FADES[fades]}
    return s


ROWS: dict[str, Callable[[], dict[str, Any]]] = {
    **{f"string{h}": (lambda h=h: string(h)) for h in (4, 7, 10, 14)},
    **{f"grid{n}": (lambda n=n: grid(n)) for n in (2, 6)},
    **{f"wlan004_{cc}_fer{fer:g}": (lambda fer=fer, cc=cc: wlan004(fer, cc)) for cc in ("newreno", "westwood") for fer in FERS},
    **{f"mobile50_v{v}_{p}": (lambda v=v, p=p: mobile(v, p)) for v in (5, 20) for p in ("aodv", "dsr", "dsdv")},
    **{f"p001_{f}_fade": (lambda f=f: p001(f)) for f in ("one", "two")},
}

#: (column, section, metric name in comparison.json)
COLUMNS = [
    ("goodput kb/s", "flows", "goodput (kb/s)"),
    ("RTOs", "flows", "RTOs"),
    ("DATA lost", "flows", "TCP DATA lost"),
    ("ACKs lost", "flows", "TCP ACKs lost"),
    ("MAC retry drops", "network", "MAC retry-limit drops"),
    ("routing pkts", "network", "routing packets sent"),
]


def run_row(name: str, seeds: str) -> int:
    scen = OUT / "scenarios" / f"{name}.json"
    scen.parent.mkdir(parents=True, exist_ok=True)
    scen.write_text(json.dumps(ROWS[name](), indent=1) + "\n")
    cmd = [str(ROOT / ".venv" / "bin" / "tcplab"), "validate", "ns2", str(scen), "--seeds", seeds, "--out", str(OUT / name)]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False).returncode


def _total(doc: dict[str, Any], section: str, metric: str, side: str) -> list[float] | None:
    """Per seed, the metric summed over the flows (network metrics as they are)."""
    if section == "network":
        m = doc["network"].get(metric)
        return None if m is None or any(v is None for v in m[side]) else [float(v) for v in m[side]]
    per_flow = [f[metric][side] for f in doc["flows"].values() if metric in f]
    if not per_flow or any(v is None for col in per_flow for v in col):
        return None
    return [float(sum(col[i] for col in per_flow)) for i in range(len(per_flow[0]))]


def table() -> str:
    head = "| row | " + " | ".join(f"{c} tcplab | {c} ns-2 | ratio" for c, _, _ in COLUMNS) + " |"
    lines = [head, "|" + "---|" * (1 + 3 * len(COLUMNS))]
    for name in ROWS:
        path = OUT / name / "comparison.json"
        if not path.exists():
            lines.append(f"| {name} | " + " | ".join(["not measured yet", "", ""] * len(COLUMNS)) + " |")
            continue
        doc = json.loads(path.read_text())
        cells = []
        for _, section, metric in COLUMNS:
            a = mean_ci(_total(doc, section, metric, "tcplab") or [])
            b = mean_ci(_total(doc, section, metric, "ns2") or [])
            ratio = f"{a[0] / b[0]:.2f}" if a and b and b[0] else "–"
            cells += [show(a), show(b), ratio]
        lines.append(f"| {name} (seeds {seed_span(doc['seeds'])}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="*", help="rows to run (default: all)")
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--table", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(ROWS))
        return 0
    if args.table:
        print(table())
        return 0
    bad = [r for r in args.rows if r not in ROWS]
    if bad:
        print(f"unknown rows: {', '.join(bad)}; --list shows them", file=sys.stderr)
        return 2
    failed = [r for r in (args.rows or list(ROWS)) if run_row(r, args.seeds) != 0]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
