"""The networks of the ns-2 papers, each run by `tcplab validate ns2` over seeds 1-5, and the table
of docs/validation/ns2.md built from the results.

    .venv/bin/python validation/ns2/run.py                 # every row (hours on two cores)
    .venv/bin/python validation/ns2/run.py string4 p001_one  # some rows
    .venv/bin/python validation/ns2/run.py --list          # the rows
    .venv/bin/python validation/ns2/run.py --table         # the markdown table from what has run
    .venv/bin/python validation/ns2/run.py --reuse-ns2 ROW [--set PATH=VALUE --tag T]
        # tcplab's side only; ns-2's numbers from the row's stored comparison.json
    .venv/bin/python validation/ns2/run.py --settle 2.5 ROW  # ns-2's schedule after DSDV's start-up (ROW@settle2.5)

With --reuse-ns2 only tcplab runs: the row's ns-2.35 script is translated again and must equal
the stored one (up to where the checkout keeps the setdest files), so ns-2's runs -- the same
script and seeds, deterministic -- would give the stored numbers; they are kept and tcplab's
are replaced.  --set overrides a scenario field (a routing switch, to measure its effect) and
--tag names the copy written (results/validate-ns2/ROW@TAG/comparison.json).

Each row's scenario is written to results/validate-ns2/scenarios/ROW.json and run with
`tcplab validate ns2 FILE --seeds 1-5 --out results/validate-ns2/ROW`.  The scenarios are built
from the experiments' own builders (python/tcplab/experiments/*_scenario.py), changed only where
ns-2.35 as shipped has no equivalent (each change is named in ROWS and in docs/validation/ns2.md):

* strings and grids (paper 002): tcp_pgy_scenario's string/grid, NewReno, 600 s; AODV as ns-2.35
  ships it (gratuitous RREPs compiled out: the builder's gratuitous_rrep = true is dropped);
* the single-AP WLAN (paper 004): adaptive_tcp_scenario's one AP without its initial_ssthresh (ns-2 starts
  a wireless sender's ssthresh_ at window_'s default 20 whatever window_ the script sets later), Westwood+
  with SACK recovery (as ns-2's Agent/TCP/Linux recovers), on ns2_dsss at 11 Mb/s with
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
import re
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
    # ns-2.35 as the paper's scripts run it: reset() sets ssthresh_ = window_ when the agent is created, from
    # window_'s default 20, before the script's window_ 1000 -- so slow start ends at 20 packets (the profile's
    # own initial_ssthresh); the builder's 1000-packet initial_ssthresh is not what such a script runs.
    s["tcp"].pop("initial_ssthresh", None)
    if cc == "westwood":
        # ns-2.35's Agent/TCP/Linux (the translation of Westwood+) recovers with its SACK scoreboard against a
        # TCPSink/Sack1; the builder's Westwood+ recovers as NewReno (3-4 RTOs per run where ns-2 has none).
        s["tcp"]["recovery"] = "sack"
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


def run_row(name: str, seeds: str, settle: float = 0.0, tag: str | None = None) -> int:
    """The row by ``tcplab validate ns2``; ``settle`` > 0 runs ns-2's schedule that much later (its
    ``--settle``) into ROW@TAG (default tag ``settleS``)."""
    scen = OUT / "scenarios" / f"{name}.json"
    scen.parent.mkdir(parents=True, exist_ok=True)
    scen.write_text(json.dumps(ROWS[name](), indent=1) + "\n")
    if settle and not tag:
        tag = f"settle{settle:g}"
    out = OUT / (f"{name}@{tag}" if tag else name)
    cmd = [sys.executable, "-m", "tcplab", "validate", "ns2", str(scen), "--seeds", seeds, "--out", str(out)]
    if settle:
        cmd += ["--settle", f"{settle:g}"]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False).returncode


#: comparison.json metric -> how it is read from one tcplab summary (flow dict or whole summary).
_FLOW_KEYS = {
    "goodput (kb/s)": lambda x: x["goodput_bps"] / 1e3 if x["goodput_bps"] is not None else None,
    "RTOs": lambda x: x["timeouts"],
    "retransmitted segments": lambda x: x["retransmissions"],
    "duplicates at the receiver": lambda x: x["spurious_retransmissions"],
    "TCP DATA lost": lambda x: x["data_lost"],
    "TCP ACKs lost": lambda x: x["acks_lost"],
}


def _net_keys() -> dict[str, Callable[[dict[str, Any]], float]]:
    def nodes(*keys: str) -> Callable[[dict[str, Any]], float]:
        return lambda s: float(sum(n.get(k, 0) for n in s.get("nodes") or [] for k in keys))

    def wifi(key: str) -> Callable[[dict[str, Any]], float]:
        return lambda s: float(sum(n.get(key, 0) for n in s.get("wifi") or []))

    return {
        "MAC retry-limit drops": wifi("drops_retry_limit"),
        "interface-queue drops": wifi("drops_queue"),
        "ARP drops": wifi("drops_arp"),
        "no-route drops (NRTE)": nodes("drops_no_route", "drops_discovery_failed"),
        "link-break drops (tcplab) / routing callback (CBK)": nodes("drops_link_broken"),
        "routing-buffer drops": nodes("drops_buffer_full", "drops_buffer_timeout"),
        "TTL drops": nodes("drops_ttl"),
        "routing packets sent": nodes("control_packets"),
        "AODV RREQ sent": nodes("route_requests"), "AODV RREP sent": nodes("route_replies"),
        "AODV RERR sent": nodes("route_errors"), "DSR request sent": nodes("route_requests"),
        "DSR reply sent": nodes("route_replies"), "DSR error sent": nodes("route_errors"),
        "route discoveries (ns-2: RREQs originated)": nodes("discoveries"),
    }


#: Agent/TCP variables at ns-2.35's own default values (subset.NS2_TCP_DEFAULTS, read from ns itself).
#: Rows stored before the builders moved to ``profile = "ns2"`` set them explicitly; a line that sets a
#: variable to its default changes nothing ns does, so :func:`_same_script` ignores it.
_NS2_DEFAULT_SETS = {
    "packetSize_": "1000", "window_": "20", "windowInitOption_": "1", "windowInit_": "2", "tcpTick_": "0.01",
    "minrto_": "0.2", "maxrto_": "60", "rtxcur_init_": "3", "numdupacks_": "3", "singledup_": "1",
    "timestamps_": "false",
}


def _same_script(a: str, b: str) -> bool:
    """The two ns-2 scripts are equal but for the folder the setdest files are read from and lines that set
    an Agent/TCP variable to ns-2's default (:data:`_NS2_DEFAULT_SETS`)."""

    def norm(t: str) -> list[str]:
        out = []
        for ln in t.splitlines():
            m = re.fullmatch(r"\$tcp_ set (\w+) (\S+)", ln)
            if m and _NS2_DEFAULT_SETS.get(m.group(1)) == m.group(2):
                continue
            out.append(re.sub(r"source \{.*/validation/ns2/moves/", "source {MOVES/", ln))
        return out

    return norm(a) == norm(b)


def rerun_tcplab(name: str, seeds: list[int], sets: list[str], tag: str | None) -> int:
    """tcplab's side of a row again, ns-2's kept from the row's stored comparison.json."""
    from concurrent.futures import ThreadPoolExecutor

    from tcplab import _core
    from tcplab.result import Result
    from tcplab.scenario import parse_set
    from tcplab.validate.ns2.command import prepare

    stored = OUT / name / "comparison.json"
    if not stored.exists():
        print(f"{name}: no stored comparison.json to take ns-2's numbers from", file=sys.stderr)
        return 2
    doc = json.loads(stored.read_text())
    if doc["seeds"] != seeds:
        print(f"{name}: stored seeds {doc['seeds']} differ from {seeds}", file=sys.stderr)
        return 2
    text = json.dumps(ROWS[name](), indent=1) + "\n"
    overrides = [parse_set(x) for x in sets]
    # The ns-2 script is the row's own: a switch of tcplab's preset is not carried into ns-2.
    _, _, script = prepare(text, "json", [], ROOT)
    tcl_old = (OUT / name / f"{name}.tcl").read_text()
    if not _same_script(script.text, tcl_old):
        print(f"{name}: the ns-2 script differs from the stored one; run the row in full", file=sys.stderr)
        return 2
    print(f"$ tcplab run ({name}{''.join(' --set ' + x for x in sets)}) seeds {seeds}, ns-2 kept", flush=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        sims = list(pool.map(lambda sd: Result.from_raw(_core.run(text, "json", sd, overrides, None)).summary, seeds))
    for fname, metrics in doc["flows"].items():
        flows = [next(x for x in s["flows"] if x["name"] == fname) for s in sims]
        for metric, get in _FLOW_KEYS.items():
            if metric in metrics:
                metrics[metric] = {**metrics[metric], "tcplab": [get(x) for x in flows]}
    for metric, get in _net_keys().items():
        # ARP drops: also where the stored row predates tcplab's ARP (its tcplab side was not counted).
        if metric in doc["network"] and (doc["network"][metric]["tcplab"][0] is not None or metric == "ARP drops"):
            doc["network"][metric] = {**doc["network"][metric], "tcplab": [get(s) for s in sims]}
    for part in [*doc["flows"].values(), doc["network"]]:
        for metric, m in part.items():
            a = mean_ci(m["tcplab"]) if m["tcplab"][0] is not None else None
            m["tcplab_mean"], m["tcplab_ci95"] = (a[0], a[1]) if a else (None, None)
    doc["tcplab_version"] = _core.version()
    doc["tcplab_sets"] = sets
    doc["ns2_from"] = "stored (--reuse-ns2)"
    out = OUT / (f"{name}@{tag}" if tag else name)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{out / 'comparison.json'}")
    return 0


def _total(doc: dict[str, Any], section: str, metric: str, side: str) -> list[float] | None:
    """Per seed, the metric summed over the flows (network metrics as they are)."""
    if section == "network":
        m = doc["network"].get(metric)
        return None if m is None or any(v is None for v in m[side]) else [float(v) for v in m[side]]
    per_flow = [f[metric][side] for f in doc["flows"].values() if metric in f]
    if not per_flow or any(v is None for col in per_flow for v in col):
        return None
    return [float(sum(col[i] for col in per_flow)) for i in range(len(per_flow[0]))]


def table(names: list[str] | None = None) -> str:
    head = "| row | " + " | ".join(f"{c} tcplab | {c} ns-2 | ratio" for c, _, _ in COLUMNS) + " |"
    lines = [head, "|" + "---|" * (1 + 3 * len(COLUMNS))]
    for name in names or ROWS:
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
    ap.add_argument("--table", action="store_true", help="the table (of ROWS, or of every row; ROW@TAG for a tagged copy)")
    ap.add_argument("--reuse-ns2", action="store_true", help="run tcplab only, keep the stored ns-2 numbers")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help="with --reuse-ns2: override a field")
    ap.add_argument("--tag", help="write ROW@TAG instead of ROW")
    ap.add_argument("--settle", type=float, default=0.0, metavar="SECONDS",
                    help="without --reuse-ns2: ns-2 runs every scheduled event this much later (validate ns2 --settle; "
                         "writes ROW@settleS unless --tag)")
    args = ap.parse_args()
    if args.list:
        print("\n".join(ROWS))
        return 0
    if args.table:
        print(table(args.rows or None))
        return 0
    bad = [r for r in args.rows if r not in ROWS]
    if bad:
        print(f"unknown rows: {', '.join(bad)}; --list shows them", file=sys.stderr)
        return 2
    if args.reuse_ns2:
        from tcplab.validate.ns2.command import seed_range

        failed = [r for r in (args.rows or list(ROWS)) if rerun_tcplab(r, seed_range(args.seeds), args.set, args.tag) != 0]
        return 1 if failed else 0
    failed = [r for r in (args.rows or list(ROWS)) if run_row(r, args.seeds, args.settle, args.tag) != 0]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
