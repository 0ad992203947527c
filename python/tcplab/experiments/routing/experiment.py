"""routing: NewReno, ELFN and TCP-pgy over AODV, DSR and DSDV (issue 16), on the 7-hop string and
on 50 nodes moving by random waypoint at 1-20 m/s.

Measures throughput, spurious retransmissions, routing overhead (control packets and bytes) and
route-discovery latency with 95 % CIs over replications, and decides by stated rules: that on the
static string every protocol delivers every byte, the overhead ordering of the protocols, that each
protocol keeps data flowing under mobility, and ELFN's authors' finding over DSR (stand-by with
probing recovers throughput lost to route failures) as a qualitative check.

The networks, senders and every choice are in routing/scenario.py and docs/validation/routing.md.
Every sender and protocol runs each network with the same seeds (the same movement), so senders
over one protocol, and protocols under one sender, are compared seed by seed.

What a replication varies: backoff, routing random draws and, on the mobile network, positions and movement (REPLICATIONS).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tcplab.experiments.routing import scenario as sc
from tcplab.experiments.base import Finding, TableCell
from tcplab.experiments.routing.findings import ElfnRuns, expected_kbps, findings, gain_pct, share_recovered
from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.store import Store

NAME = "routing"
TITLE = "TCP over AODV, DSR and DSDV: NewReno, ELFN and TCP-pgy on a string and under random-waypoint mobility"

#: What a replication varies, for the report page.
REPLICATIONS = (
    "Each replication's seed drives the 802.11 backoff, the routing protocols' random draws and, on the mobile "
    "network, the movers' initial positions, waypoints and speeds (the same for every sender and protocol)."
)

#: No paper prints these numbers; the findings carry the published claims.
PUBLISHED: dict[Any, Any] = {}

NETWORKS = ("string", "mobile")
NETWORK_LABEL = {"string": "7-hop string", "mobile": "50 nodes, random waypoint 1-20 m/s",
                 "single": "one flow across 50 nodes, random waypoint 1-20 m/s"}
#: Routing runs alone this long before the first flow starts (DSDV's tables need ~100 s to converge
#: over 7 hops: each new route is advertised 2·wst0 = 12 s after it is learnt, hop by hop).
WARMUP_S = 120
#: Seconds of traffic after the warm-up.
WINDOW_S = {("string", True): 200, ("string", False): 480, ("mobile", True): 100, ("mobile", False): 300,
            ("single", True): 100, ("single", False): 300, ("ref", True): 100, ("ref", False): 300}
REPS = {("string", True): 2, ("string", False): 6, ("mobile", True): 2, ("mobile", False): 6,
        ("single", True): 2, ("single", False): 10, ("ref", True): 1, ("ref", False): 2}

#: Phrases of the prose that quote inputs (not results): the routing warm-up and DSR's option number for
#: the ACK (tests/test_report_prose.py).
PROSE_CONSTANTS = (f"for {WARMUP_S} s", "DSR option 31")

NOTES = (
    f"Routing runs alone for {WARMUP_S} s before the first flow starts, so throughput measures TCP over converged "
    "routing and not DSDV's start-up.",
    "DSR runs ns-2's preset, promiscuous tap on (overheard route errors and routes, route shortening). Over the "
    "mobile network it answers route requests only at the target (reply_from_cache = false): cached replies hand "
    "out stale routes, and NewReno over DSR then delivers less, also with the tap (docs/validation/routing.md).",
    "ELFN over DSR runs twice on the single flow: told only when no cached route remains (ELFN), and told of every "
    "Route Error as its authors' DSR did (notify_every_error; ELFN, every error); the finding judges the latter.",
    "TCP-pgy = S1 + S2 over AODV (gratuitous RREPs on for every sender) and DSR (the ACK as DSR option 31 on "
    "route requests and replies); over DSDV it is S2 alone: DSDV has no route requests or replies to carry it.",
    "Control packets and bytes count routing messages only; DSR's source routes on data packets are not in them.",
)


def _mode(quick: bool) -> str:
    return "quick" if quick else "full"


def prefix(quick: bool) -> str:
    return f"{NAME}/{_mode(quick)}"


def sweep_name(quick: bool, network: str, protocol: str) -> str:
    return f"{prefix(quick)}/{network}/{protocol}"


def ref_sweep_name(quick: bool, protocol: str, hops: int) -> str:
    return f"{prefix(quick)}/ref/{protocol}/{hops}hops"


def scenario(network: str, protocol: str, quick: bool, hops: int = 0) -> dict[str, Any]:
    """``network`` is "string", "mobile", "single" (the ELFN check's one flow) or "ref" (a static
    string of ``hops`` hops)."""
    duration = f"{WARMUP_S + WINDOW_S[(network, quick)]}s"
    doc = {"string": lambda: sc.string(protocol, quick, duration),
           "mobile": lambda: sc.mobile(protocol, duration),
           "single": lambda: sc.mobile(protocol, duration, flows=1),
           "ref": lambda: sc.reference(protocol, hops, duration)}[network]()
    for i, f in enumerate(doc["flows"]):
        f["start"] = f"{WARMUP_S + i}s"  # flows 1 s apart, as tcp_pgy/scenario.py does
    if network in ("mobile", "single") and protocol == "dsr":
        doc["wlans"][0]["routing"]["reply_from_cache"] = False
    return doc


def sweeps(quick: bool) -> list[Sweep]:
    main = [Sweep(name=sweep_name(quick, n, p), base=scenario(n, p, quick),
                  cells=[sc.sender_cell(s, p) for s in sc.SENDERS], replications=REPS[(n, quick)], seed0=1)
            for n in NETWORKS for p in sc.PROTOCOLS]
    single = [Sweep(name=sweep_name(quick, "single", p), base=scenario("single", p, quick),
                    cells=[sc.sender_cell(s, p) for s in sc.elfn_senders(p)], replications=REPS[("single", quick)],
                    seed0=1)
              for p in sc.PROTOCOLS]
    ref = [Sweep(name=ref_sweep_name(quick, p, h), base=scenario("ref", p, quick, h),
                 cells=[sc.sender_cell("newreno", p)], replications=REPS[("ref", quick)], seed0=1)
           for p in sc.PROTOCOLS for h in sc.REF_HOPS]
    return main + single + ref


# ---------------------------------------------------------------------------------------- analysis


def run_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """One run's metrics: flows summed (throughput kb/s, spurious retransmissions, timeouts, ACKs
    learned by S1), the routing agents' counters summed over nodes, and the mean route-discovery
    latency (ms, NaN when no discovery completed)."""
    flows, nodes = summary["flows"], summary.get("nodes", [])
    done = sum(n["discoveries_completed"] for n in nodes)
    return {
        "kbps": sum(f["goodput_bps"] for f in flows) / 1e3,
        "spurious": float(sum(f["spurious_retransmissions"] for f in flows)),
        "timeouts": float(sum(f["timeouts"] for f in flows)),
        "learned": float(sum(f["acks_learned"] for f in flows)),
        "ctrl_packets": float(sum(n["control_packets"] for n in nodes)),
        "ctrl_kbytes": sum(n["control_bytes"] for n in nodes) / 1e3,
        "discoveries": float(done),
        "discovery_ms": sum(_discovery_latency_s(n) for n in nodes) / done * 1e3 if done else math.nan,
        "bytes": float(sum(f["bytes_delivered"] for f in flows)),
        "completed": float(all(f["completed"] for f in flows)),
        # The time the flows' shortest paths had each length (ad hoc flows), summed over flows.
        "path_s": _path_seconds(flows),
        "partitioned_s": sum(f.get("partitioned_s") or 0.0 for f in flows),
    }


def _discovery_latency_s(node: dict[str, Any]) -> float:
    """A node's summed route-discovery latency (s); summaries stored before it was reported in
    seconds carry ``discovery_latency_ns``."""
    if "discovery_latency_s" in node:
        return float(node["discovery_latency_s"])
    return node.get("discovery_latency_ns", 0) / 1e9


def _path_seconds(flows: list[dict[str, Any]]) -> dict[int, float]:
    out: dict[int, float] = {}
    for f in flows:
        for p in f.get("path_lengths", []):
            out[p["hops"]] = out.get(p["hops"], 0.0) + p["seconds"]
    return out


def runs(store: Store, sweep: str) -> dict[str, dict[int, dict[str, Any]]]:
    """sender -> seed -> the run's metrics (with its status and error)."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for r in store.runs(sweep).iter_rows(named=True):
        ok = r["status"] == "ok"
        m = run_metrics(json.loads(r["summary_json"])) if ok and r["summary_json"] else {}
        out.setdefault(sc.sender_of(json.loads(r["cell"])), {})[int(r["seed"])] = (
            m | {"ok": ok, "error": "" if ok else str(r["error"])})
    return out


#: Tables: (metric, title, unit).
METRICS = (
    ("kbps", "throughput (aggregate over the flows), kb/s", "kb/s"),
    ("spurious", "spurious retransmissions per run", "per run"),
    ("timeouts", "retransmission timeouts per run", "per run"),
    ("learned", "ACKs the sender learned from routing (TCP-pgy S1) per run", "per run"),
    ("ctrl_packets", "routing overhead: control packets sent per run (all nodes)", "packets"),
    ("ctrl_kbytes", "routing overhead: control bytes sent per run (all nodes, IP bytes)", "kB"),
    ("discovery_ms", "route-discovery latency: mean per run, first request to route installed", "ms"),
    ("discoveries", "route discoveries completed per run (all nodes)", "per run"),
)
TE = "ELFN's throughput gain over NewReno, mobile network (paired per seed), %"


def table_title(network: str, title: str) -> str:
    return f"{NETWORK_LABEL[network]}: {title}"


def all_runs(store: Store, quick: bool) -> dict[str, dict[str, dict[str, dict[int, dict[str, Any]]]]]:
    """network -> protocol -> sender -> seed -> metrics."""
    return {n: {p: runs(store, sweep_name(quick, n, p)) for p in sc.PROTOCOLS} for n in NETWORKS}


def elfn_runs(store: Store, quick: bool) -> dict[str, ElfnRuns]:
    """protocol -> the ELFN check's runs: the single flow's (sender -> seed -> metrics) and the
    reference strings' (hops -> seed -> metrics)."""
    return {p: ElfnRuns(runs=runs(store, sweep_name(quick, "single", p)),
                        ref={h: runs(store, ref_sweep_name(quick, p, h)).get("newreno", {}) for h in sc.REF_HOPS})
            for p in sc.PROTOCOLS}


def _elfn_cells(elfn: dict[str, ElfnRuns]) -> list[TableCell]:
    cells: list[TableCell] = []
    ref_title = "ELFN check: T_i, a static i-hop string's NewReno throughput (Holland & Vaidya's reference), kb/s"
    tp = table_title("single", "throughput against Holland & Vaidya's expected throughput, kb/s")
    pct = table_title("single", "throughput as a share of the expected throughput, %")
    share = table_title("single", "share of the throughput lost to route failures that ELFN recovers, %")
    part = table_title("single", "time the endpoints were partitioned, % of the flow's life")
    for p, e in elfn.items():
        label = sc.PROTOCOL_LABEL[p]
        for h in sc.REF_HOPS:
            xs = [r["kbps"] for r in e.ref[h].values() if r["ok"]]
            if xs:
                cells.append(TableCell.of(ref_title, label, f"{h} hops", summarise(xs), "kb/s"))
        expected = expected_kbps(e)
        if expected:
            cells.append(TableCell.of(tp, label, "expected", summarise(expected.values()), "kb/s"))
            cells.append(TableCell.of(part, label, "partitioned", summarise(
                100 * r["partitioned_s"] / (r["partitioned_s"] + sum(r["path_s"].values()))
                for r in e.runs.get("newreno", {}).values() if r["ok"] and r["path_s"]), "%"))
        for s in sc.elfn_senders(p):
            got = {seed: r["kbps"] for seed, r in e.runs.get(s, {}).items() if r["ok"]}
            if got:
                cells.append(TableCell.of(tp, label, sc.LABEL[s], summarise(got.values()), "kb/s"))
            ratio = [100 * got[seed] / x for seed, x in expected.items() if seed in got and x > 0]
            if ratio:
                cells.append(TableCell.of(pct, label, sc.LABEL[s], summarise(ratio), "%"))
        for s in sc.elfn_senders(p)[1:]:
            rec = share_recovered(e, s)
            if rec:
                cells.append(TableCell.of(share, label, sc.LABEL[s], summarise(100 * x for x in rec.values()), "%"))
    return cells


def analyse(store: Store, quick: bool) -> tuple[list[TableCell], list[Finding]]:
    data = all_runs(store, quick)
    elfn = elfn_runs(store, quick)
    cells: list[TableCell] = []
    for n in NETWORKS:
        for metric, title, unit in METRICS:
            for p in sc.PROTOCOLS:
                for s in sc.SENDERS:
                    xs = [r[metric] for r in data[n][p].get(s, {}).values()
                          if r["ok"] and math.isfinite(r[metric])]
                    if xs:
                        cells.append(TableCell.of(table_title(n, title), sc.PROTOCOL_LABEL[p], sc.LABEL[s],
                                                  summarise(xs), unit))
    for p in sc.PROTOCOLS:
        g = gain_pct(data["mobile"][p], "elfn", "newreno")
        if g:
            cells.append(TableCell.of(TE, sc.PROTOCOL_LABEL[p], "ELFN vs NewReno", summarise(g), "%"))
    cells += _elfn_cells(elfn)
    return cells, findings(data, sc.STRING_BYTES[quick], elfn)


def figures(store: Store, outdir: Path, quick: bool = False) -> list[Path]:
    from tcplab.experiments.routing.figures import draw

    return draw(all_runs(store, quick), outdir, elfn_runs(store, quick))
