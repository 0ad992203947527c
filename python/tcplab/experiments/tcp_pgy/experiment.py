"""tcp-pgy: TCP-pgy (S1: ACK sequence piggybacked on AODV; S2: dup_count) vs NewReno over multi-hop
802.11 ad hoc networks (Kim & Yoo, JCN 2008, seed 002).

Reproduces Fig. 1 (DATA vs ACK segments lost, by hop count and by number of flows), Figs 6-7
(string throughput and spurious retransmissions, 4-14 hops), Figs 10-11 (grid with 2-10 crossing
flows: average aggregate throughput and spurious retransmissions), Fig. 12 (50 nodes, random
waypoint, 3 and 5 flows, maximum speed 1-20 m/s) and the time-sequence diagrams of Figs 8-9 from
our own traces, with S1 alone and S2 alone as an ablation, the gratuitous-RREP choice as a
sensitivity, the paper's printed numbers side by side and its findings decided by stated rules.

The networks and every unstated choice are in tcp_pgy/scenario.py and docs/validation/tcp_pgy.md.
The paper prints no table; its numbers are the percentages in the text (§IV), compared here with
the same percentages of our runs.  "Spurious retransmissions" are data segments the receiver
already held when they arrived again; throughput is the bytes delivered in order over the run.

What a replication varies: backoff, AODV's random draws and each flow's start offset; in the random topologies
also positions, waypoints and speeds (REPLICATIONS).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tcplab.experiments.tcp_pgy.claims import CLAIMS  # noqa: F401  (the report reads it)
from tcplab.experiments.base import Finding, Published, TableCell
from tcplab.experiments import ns2_side
from tcplab.experiments.tcp_pgy import causes
from tcplab.experiments.tcp_pgy.findings import baseline_findings, findings, gain_pct
from tcplab.experiments.tcp_pgy.points import ALL, PAIR, Point, failed, ns2_job, ns2_runs, ns2_sweep_name, runs
from tcplab.experiments.tcp_pgy import scenario as sc
from tcplab.experiments.tcp_pgy.scenario import LABEL
from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.store import Store

NAME = "tcp-pgy"
TITLE = "TCP-pgy (ACK sequence piggybacked on AODV, dup_count) vs NewReno in multi-hop ad hoc networks (Kim & Yoo)"

#: The flows' start rule as the report quotes it (a scenario input: scenario.START_JITTER_S).
START_PHRASE = f"flow i at i s plus uniform [0, {sc.START_JITTER_S:g}) s"
#: What a replication varies, for the report page.
REPLICATIONS = (
    "Each replication's seed drives the 802.11 backoff and AODV's random draws, and starts each flow at an offset "
    f"drawn from the seed ({START_PHRASE}, the same for every sender; the "
    "paper states neither its start times nor what its averaged runs vary); in the random topologies also the movers' "
    "initial positions, waypoints and speeds, as the paper's random topologies vary them. The strings and the "
    "grid are otherwise fixed networks."
)

DURATION = {True: "100s", False: "600s"}
HOPS = {True: (4, 7, 14), False: (4, 6, 7, 8, 10, 12, 14)}
STRING_FLOWS = {True: (3,), False: (2, 3, 4, 5)}
GRID = {True: (2, 6), False: (2, 4, 6, 8, 10)}
SPEEDS = {True: (5.0,), False: (1.0, 5.0, 10.0, 20.0)}
RANDOM_FLOWS = {True: (5,), False: (3, 5)}
REPS = {True: 2, False: 8}
GRID_REPS = {True: 2, False: 5}
RANDOM_REPS = {True: 2, False: 4}
#: Where the ablation (S1 alone, S2 alone) also runs outside the strings.
ABLATION_GRID = 6
ABLATION_RANDOM = (5, 5.0)

#: The numbers the paper prints (§IV text; its figures carry no values).
PUBLISHED: dict[tuple[str, int | str], Published] = {
    ("string_gain", 14): Published(21.6, "§IV-B, Fig. 6 (throughput gain, 14 hops)"),
    ("grid_gain", 6): Published(58.4, "§IV-C.1, Fig. 10 (AAT gain, 6 flows)"),
    ("grid_spurious_cut", 10): Published(70.8, "§IV-C.1, Fig. 11 (fewer spurious retransmissions, 10 flows)"),
    ("grid_spurious_growth", "newreno"): Published(232.8, "§IV-C.1 (spurious retransmissions, 2 → 10 flows)"),
    ("grid_spurious_growth", "pgy"): Published(87.3, "§IV-C.1 (spurious retransmissions, 2 → 10 flows)"),
    ("random_gain", "5 flows, 5 m/s"): Published(71.5, "§IV-C.2, Fig. 12(b) (AAT gain, 5 flows, 5 m/s)"),
}

T1A = "Fig. 1(a): segments lost in the network per run, one flow, by hop count (NewReno)"
T1B = "Fig. 1(b): segments lost in the network per run, 7-hop string, by number of flows (NewReno)"
T6 = "Fig. 6: string throughput, kb/s"
T6G = "Fig. 6: throughput gain of TCP-pgy over NewReno (paired per seed), %"
T7 = "Fig. 7: spurious retransmissions per run, strings"
T10 = "Fig. 10: grid, average aggregate throughput (AAT), kb/s"
T10G = "Fig. 10: AAT gain of TCP-pgy over NewReno (paired per seed), %"
T11 = "Fig. 11: grid, spurious retransmissions per run"
T11R = "Fig. 11: spurious retransmissions, reduction by TCP-pgy and growth from 2 flows, %"
T12 = "Fig. 12: random topologies (50 nodes, 1500 m × 300 m), AAT, kb/s"
T12G = "Fig. 12: AAT gain of TCP-pgy over NewReno (paired per seed), %"
TX = ("Mechanism counters per run (timeouts, fast retransmits, ACKs learned from routing by S1, "
      "early = fast retransmits S2 started before three duplicate ACKs arrived)")
TS = "Sensitivity: gratuitous RREPs (the paper's ns-2 build needs them for S1), 7-hop string"

NOTES = (
    "Gratuitous RREPs are on for every sender (S1 needs ns-2's RREQ_GRAT_RREP compiled in) and the ack_seq "
    "extension (10 bytes on RREQs and gratuitous RREPs) only where S1 runs; the sensitivity table turns "
    "gratuitous RREPs off.",
    "ns-2 NewReno defaults (windows in packets, initial window 2, ACK per packet, window_ = 20 packets).",
    "The grid (7 × 7, 200 m, flows along the inner rows and columns, 6 hops each) and the random network's endpoints and speed range "
    "([max/10, max]) are our choices; the paper gives neither.",
)


def _mode(quick: bool) -> str:
    return "quick" if quick else "full"


def prefix(quick: bool) -> str:
    return f"{NAME}/{_mode(quick)}"


def string_points(quick: bool) -> list[Point]:
    return [Point("string", hops=h, variants=ALL, duration=DURATION[quick]) for h in HOPS[quick]]


def multi_points(quick: bool) -> list[Point]:
    return [Point("string", hops=7, flows=n, variants=("newreno",), duration=DURATION[quick])
            for n in STRING_FLOWS[quick]]


def grid_points(quick: bool) -> list[Point]:
    return [Point("grid", flows=n, variants=ALL if n == ABLATION_GRID else PAIR, duration=DURATION[quick])
            for n in GRID[quick]]


def random_points(quick: bool) -> list[Point]:
    return [Point("random", flows=n, speed=v, duration=DURATION[quick],
                  variants=ALL if (n, v) == ABLATION_RANDOM else PAIR)
            for n in RANDOM_FLOWS[quick] for v in SPEEDS[quick]]


def trace_points(quick: bool) -> list[Point]:
    """One run per sender with sequence series, for the time-sequence diagrams (Figs 8-9)."""
    return [Point("string", hops=7, variants=ALL, duration=DURATION[quick], trace=True)]


def sensitivity_points(quick: bool) -> list[Point]:
    return [Point("string", hops=7, variants=("newreno", "s1"), duration=DURATION[quick],
                  extra=(("wlans.manet.routing.gratuitous_rrep", False),))]


def sweeps(quick: bool) -> list[Sweep]:
    pre = prefix(quick)
    return ([p.sweep(pre, REPS[quick]) for p in string_points(quick) + multi_points(quick)
             + sensitivity_points(quick)]
            + [p.sweep(pre, 1) for p in trace_points(quick)]
            + [p.sweep(pre, GRID_REPS[quick]) for p in grid_points(quick)]
            + [p.sweep(pre, RANDOM_REPS[quick]) for p in random_points(quick)]
            # The layout switches behind the grid's and random topologies' gains (tcp_pgy/causes.py).
            + causes.sweeps(pre, DURATION[quick], GRID_REPS[quick], RANDOM_REPS[quick]))


def ns2_points(quick: bool) -> list[Point]:
    """The points ns-2.35 also runs (NewReno only): strings, the multi-flow string and the grid.  The random
    topologies are left out: their movers' random waypoints are drawn by tcplab per run, which the
    translation refuses (ns-2 would need setdest files of the same motion)."""
    return string_points(quick) + multi_points(quick) + grid_points(quick)


def _ns2_reps(p: Point, quick: bool) -> int:
    return GRID_REPS[quick] if p.kind == "grid" else REPS[quick]


def external_runs(store: Store, quick: bool) -> int:
    """After the sweeps: NewReno on the strings and grids in ns-2.35 (when ``ns`` is installed), stored beside them."""
    pre = prefix(quick)
    return sum(ns2_side.run(store, ns2_sweep_name(pre, p), [ns2_job(p)], range(1, _ns2_reps(p, quick) + 1))
               for p in ns2_points(quick))


# ---------------------------------------------------------------------------------------- analysis


def _cell(table: str, row: str, col: str, xs, unit: str, pub: Published | None = None) -> TableCell:
    return TableCell.of(table, row, col, summarise(xs), unit, pub)


def _per_variant(table: str, row: str, r: dict, metric: str, unit: str) -> list[TableCell]:
    return [_cell(table, row, LABEL[v], (x[metric] for x in r[v].values()), unit) for v in ALL if v in r]


def _growth(a: dict, b: dict) -> float:
    """Relative growth (%) of the mean spurious retransmissions from runs ``a`` to runs ``b``."""
    ma = summarise(x["spurious"] for x in a.values()).mean
    mb = summarise(x["spurious"] for x in b.values()).mean
    return 100 * (mb - ma) / ma if ma else float("nan")


def analyse(store: Store, quick: bool) -> tuple[list[TableCell], list[Finding]]:
    pre = prefix(quick)
    strings = {p.hops: runs(store, p.name(pre)) for p in string_points(quick)}
    multi = {p.flows: runs(store, p.name(pre)) for p in multi_points(quick)}
    grid = {p.flows: runs(store, p.name(pre)) for p in grid_points(quick)}
    rand = {f"{p.flows} flows, {p.speed:g} m/s": runs(store, p.name(pre)) for p in random_points(quick)}
    cells: list[TableCell] = []

    def losses(table: str, row: str, r: dict) -> list[TableCell]:
        nr = r.get("newreno", {}).values()
        return [_cell(table, row, "DATA lost", (x["data_lost"] for x in nr), "segments"),
                _cell(table, row, "ACK lost", (x["acks_lost"] for x in nr), "segments")]

    for h, r in strings.items():
        cells += losses(T1A, f"{h} hops", r)
    for n, r in {1: strings.get(7, {}), **multi}.items():
        cells += losses(T1B, f"{n} flows", r)
    for h, r in strings.items():
        row = f"{h} hops"
        cells += _per_variant(T6, row, r, "kbps", "kb/s")
        cells.append(_cell(T6G, row, "TCP-pgy vs NewReno", gain_pct(r, "pgy", "newreno", "kbps"), "%",
                           PUBLISHED.get(("string_gain", h))))
        cells += _per_variant(T7, row, r, "spurious", "per run")
        for m in ("timeouts", "fast", "learned", "early"):
            cells += _per_variant(TX, f"{row}: {m}", r, m, "per run")
    for n, r in grid.items():
        row = f"{n} flows"
        cells += _per_variant(T10, row, r, "kbps", "kb/s")
        cells.append(_cell(T10G, row, "TCP-pgy vs NewReno", gain_pct(r, "pgy", "newreno", "kbps"), "%",
                           PUBLISHED.get(("grid_gain", n))))
        cells += _per_variant(T11, row, r, "spurious", "per run")
        cut = [-x for x in gain_pct(r, "pgy", "newreno", "spurious")]
        cells.append(_cell(T11R, row, "reduction by TCP-pgy", cut, "%", PUBLISHED.get(("grid_spurious_cut", n))))
    if grid:
        lo, hi = min(grid), max(grid)
        for v in PAIR:
            if v in grid[lo] and v in grid[hi]:
                pub = PUBLISHED[("grid_spurious_growth", v)] if (lo, hi) == (2, 10) else None
                cells.append(TableCell(T11R, f"{lo} → {hi} flows", f"growth of the mean, {LABEL[v]}",
                                       pub.value if pub else None, _growth(grid[lo][v], grid[hi][v]), None, 1, "%",
                                       pub.ref if pub else ""))
    for row, r in rand.items():
        cells += _per_variant(T12, row, r, "kbps", "kb/s")
        cells.append(_cell(T12G, row, "TCP-pgy vs NewReno", gain_pct(r, "pgy", "newreno", "kbps"), "%",
                           PUBLISHED.get(("random_gain", row))))
    for p in sensitivity_points(quick):
        r = runs(store, p.name(pre))
        base = strings.get(7, {})
        for v in p.variants:
            for grat, src in (("on", base), ("off", r)):
                for m, unit in (("kbps", "kb/s"), ("spurious", "per run"), ("learned", "per run")):
                    cells.append(_cell(TS, f"{LABEL[v]}, gratuitous RREP {grat}", m,
                                       (x[m] for x in src.get(v, {}).values()), unit))

    # The layout switches (causes.py): our setting is the experiment's own point.
    rkey = f"{causes.RANDOM_POINT[0]} flows, {causes.RANDOM_POINT[1]:g} m/s"

    def runs_of(st: causes.Setting) -> dict:
        if st.ours:
            return grid.get(causes.GRID_FLOWS, {}) if st.switch != "endpoints" else rand.get(rkey, {})
        return runs(store, causes.sweep_name(pre, st))

    cells += causes.cells(runs_of, {"grid": PUBLISHED[("grid_gain", causes.GRID_FLOWS)].value,
                                    "random": PUBLISHED[("random_gain", rkey)].value})

    # ns-2.35's NewReno beside tcplab's, in the baseline's tables (ns2_side.cell), and the baseline findings on it.
    ns2 = {(p.kind, p.hops if p.kind == "string" else 0, p.flows): ns2_runs(store, ns2_sweep_name(pre, p))
           for p in ns2_points(quick)}
    heading = ns2_side.heading(ns2_side.ns_installed(), any(ns2.values()))
    ns2_strings = {h: ns2[("string", h, 1)] for h in strings}
    ns2_multi = {n: ns2[("string", 7, n)] for n in multi}
    ns2_grid = {n: ns2[("grid", 0, n)] for n in grid}
    ns2_by_row = {T1A: {f"{h} hops": r for h, r in ns2_strings.items()},
                  T1B: {f"{n} flows": r for n, r in {1: ns2_strings.get(7, {}), **ns2_multi}.items()},
                  T6: {f"{h} hops": r for h, r in ns2_strings.items()}, T7: {f"{h} hops": r for h, r in ns2_strings.items()},
                  T10: {f"{n} flows": r for n, r in ns2_grid.items()}, T11: {f"{n} flows": r for n, r in ns2_grid.items()}}
    column_metric = {"DATA lost": "data_lost", "ACK lost": "acks_lost"}
    table_metric = {T6: "kbps", T7: "spurious", T10: "kbps", T11: "spurious"}
    for c in list(cells):
        if c.table not in ns2_by_row or (c.table in table_metric and c.column != LABEL["newreno"]):
            continue
        m = table_metric.get(c.table) or column_metric[c.column]
        r = ns2_by_row[c.table].get(c.row, {}).get("newreno", {})
        cells.append(ns2_side.cell(c, summarise(x[m] for x in r.values()), heading))
    for c in list(cells):
        if c.table == T11R and c.column == f"growth of the mean, {LABEL['newreno']}" and grid:
            lo, hi = min(grid), max(grid)
            a, b = ns2_grid.get(lo, {}).get("newreno", {}), ns2_grid.get(hi, {}).get("newreno", {})
            cells.append(TableCell(c.table, c.row, f"{c.column}{ns2_side.SEP}{heading}", None,
                                   _growth(a, b) if a and b else None, None, 1 if a and b else 0, c.unit))

    names = [p.name(pre) for p in string_points(quick) + multi_points(quick) + grid_points(quick)
             + random_points(quick) + sensitivity_points(quick) + trace_points(quick)]
    names += [causes.sweep_name(pre, st) for st in causes.GRID_SETTINGS + causes.RANDOM_SETTINGS if not st.ours]
    failures = [e for n in names for e in failed(store, n)]
    total = sum(len(store.runs(n)) for n in names)
    ours = findings(strings, multi, grid, rand, failures, total, {k: p.value for k, p in PUBLISHED.items()})
    if any(ns2.values()):
        theirs = {f.text.removeprefix(ns2_side.FINDING_PREFIX): f for f in baseline_findings(ns2_strings, ns2_multi, ns2_grid)}
        # Each ns-2 verdict right after tcplab's on the same claim.
        ours = [g for f in ours for g in ([f, theirs[f.text]] if f.text in theirs else [f])]
    return cells, ours


#: Phrases of the prose that quote scenario parameters (inputs, not results): the ack_seq extension's size,
#: ns-2's initial window and window_, the grid's side, spacing and hops, the random speeds' range
#: (tests/test_report_prose.py).
PROSE_CONSTANTS = ("(10 bytes on RREQs", "initial window 2", "window_ = 20 packets", "7 × 7", "200 m", "6 hops each",
                   "[max/10, max]", "5 × 5 grid", "9 × 9 grid", causes.RULE_PHRASE, START_PHRASE)


def deviation_cause(cell: TableCell, cells: Sequence[TableCell] = ()) -> str:
    """Why a published cell is off by more than 10 % (the report lists these), written from this run's cells: the
    grid's and the random topologies' published gains from their layout switches (causes.py), by the cause rule;
    elsewhere no switch runs and the text says "cause not found"."""
    if cell.table == T10G and cell.row == f"{causes.GRID_FLOWS} flows" and cell.published is not None:
        return causes.cause(causes.GRID_TABLE, causes.GRID_SETTINGS, cell.published, cells,
                            "grid's flow placement and size")
    rkey = f"{causes.RANDOM_POINT[0]} flows, {causes.RANDOM_POINT[1]:g} m/s"
    if cell.table == T12G and cell.row == rkey and cell.published is not None:
        return causes.cause(causes.RANDOM_TABLE, causes.RANDOM_SETTINGS, cell.published, cells,
                            "random topologies' TCP endpoints")
    if cell.table == T6G:
        nr = next((c.mean for c in cells if c.table == T7 and c.row == cell.row and c.column == LABEL["newreno"]), None)
        pg = next((c.mean for c in cells if c.table == T7 and c.row == cell.row and c.column == LABEL["pgy"]), None)
        spur = ("" if nr is None or pg is None else
                f"; S1 cuts the spurious retransmissions here from {nr:.0f} to {pg:.0f} per run (the table of Fig. 7)")
        return ("the strings' layout is the paper's own (nodes 200 m apart, one flow end to end), so no layout switch "
                f"applies{spur}; no switch of ours moves this gain toward the paper's: cause not found")
    return ("the layout switches run at the published six-flow grid point and the random topologies' published point "
            "only, not at this cell: cause not found")


def figures(store: Store, outdir: Path, quick: bool = False) -> list[Path]:
    from tcplab.experiments.tcp_pgy.figures import draw

    return draw(store, outdir, quick)
