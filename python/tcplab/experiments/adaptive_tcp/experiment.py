"""adaptive-tcp: Adaptive TCP vs Westwood+ and NewReno over an 802.11 WLAN (Dalal et al., seed 004).

Reproduces Figs 4-7 (α, loss window and ssthresh of one flow at FER 1 %, traffic 100-200 s), Fig. 8
(bandwidth utilisation and residual bandwidth vs FER 0-10 %), Fig. 9 (wired delay D = 15-75 ms at
FER 1 %), Fig. 10 (wired rate R = 5 and 100 Mb/s), Fig. 11 (4 APs, 4/8/16/32 flows) and Fig. 12
(Jain's index), with CUBIC as an extra row, the paper's numbers side by side, its findings decided
by stated rules, one sensitivity sweep per reconstructed equation, and the errors' point of action
(frames seen by the MAC vs packets above it).

The network and every unstated choice are in adaptive_tcp/scenario.py and
docs/validation/adaptive_tcp.md.  Runs last 100 s (60 s with 4 APs) instead of the paper's 500 s so
that the whole experiment runs in under 5 minutes here: steady state is reached within the first
seconds, and the replications give the confidence intervals.  Utilisation is the goodput of all
flows together (bytes delivered in order x 8 / run time).

What a replication varies: the frame-error draws and the 802.11 backoff; flow starts fixed (REPLICATIONS).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tcplab.experiments.adaptive_tcp import sensitivity as sensitivity
from tcplab.experiments.adaptive_tcp.findings import baseline_order, findings, residual_reduction
from tcplab.experiments import ns2_side
from tcplab.experiments.adaptive_tcp.points import ALL, PAPER3, Point, metric, ns2_runs, ns2_scenario, runs
from tcplab.experiments.adaptive_tcp.scenario import variant_cells
from tcplab.experiments.adaptive_tcp.scenario import (
    BURST,
    DEFAULT_DELAY,
    DEFAULT_RATE,
    LABEL,
    PHY_BOUND_MBPS,
    QUEUE,
    RATE,
    RWND_SEGMENTS,
    SEGMENT_B,
)
from tcplab.experiments.adaptive_tcp.claims import CLAIMS  # noqa: F401  (the report reads it)
from tcplab.experiments.base import PAPER_SEEDS, Finding, Published, TableCell, against_paper, cell_mean
from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.store import Store

NAME = "adaptive-tcp"
TITLE = "Adaptive TCP vs Westwood+ and NewReno over 802.11 with frame errors (Dalal et al.)"

#: What a replication varies, for the report page.
REPLICATIONS = (
    "Each replication's seed drives the frame-error draws of every station's Gilbert–Elliott chain (the paper's "
    "errors) and the 802.11 backoff; flow start times are fixed."
)

DURATION = "100s"
MULTI_DURATION = "60s"
FERS = {True: (0.0, 0.01), False: (0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1)}
DELAYS = {True: ("15ms", "45ms"), False: ("15ms", "30ms", "45ms", "60ms", "75ms")}
SLOW_FERS = {True: (0.0, 0.01), False: (0.0, 0.001, 0.01, 0.05)}
FLOWS_PER_AP = {True: (1, 2), False: (1, 2, 4, 8)}
MULTI_FERS = {True: (0.01,), False: (0.0, 0.01)}
FRAME_FERS = {True: (0.05,), False: (0.01, 0.05, 0.1)}
REPS = {True: 2, False: 6}
MULTI_REPS = {True: 2, False: 3}

PAPER_MAX = 5.99
#: §4.2.1: the maximum at 0 % FER and the three senders at FER 0.1 % (Mb/s); the residual-bandwidth
#: reductions by Adaptive TCP it prints for FER 0.1 % (%).
PUBLISHED: dict[tuple[str, float, str], Published] = {
    **{("util", 0.0, v): Published(PAPER_MAX, "§4.2.1, Fig. 8 (maximum at 0 % FER)") for v in PAPER3},
    ("util", 0.001, "newreno"): Published(2.92, "§4.2.1, Fig. 8"),
    ("util", 0.001, "westwood"): Published(3.81, "§4.2.1, Fig. 8"),
    ("util", 0.001, "adaptive"): Published(4.78, "§4.2.1, Fig. 8"),
    ("residual", 0.001, "newreno"): Published(66.0, "§4.2.1"),
    ("residual", 0.001, "westwood"): Published(47.0, "§4.2.1"),
}

T8 = "Fig. 8: bandwidth utilisation vs FER (1 flow, D = 45 ms, R = 100 Mb/s), Mb/s"
T8R = "Fig. 8: reduction of residual bandwidth by Adaptive TCP, (R_other − R_Adaptive) / R_other, %"
T9 = "Fig. 9: bandwidth utilisation vs wired delay D (1 flow, FER 1 %), Mb/s"
T10 = "Fig. 10: bandwidth utilisation with a 5 Mb/s wired backbone (1 flow, D = 45 ms), Mb/s"
T11 = "Fig. 11: aggregate utilisation, 4 APs sharing the backbone, Mb/s"
T12 = "Fig. 12: Jain's fairness index, 4 APs"
TF = "Figs 4-7: one flow at FER 1 %, traffic 100-200 s (per run)"
#: Issue 39: the switch behind Fig. 8's FER 0 % deviation (every interface queue 50 -> 1000 packets).
QUEUE_SWITCH = 1000
TQ = (f"Switch behind Fig. 8's 0 % FER deviation: every interface queue {QUEUE_SWITCH} packets instead of {QUEUE} "
      "(1 flow, D = 45 ms, R = 100 Mb/s, FER 0 %), utilisation, Mb/s")
TA = "Point of action: utilisation with the errors on 802.11 frames (MAC retries), Mb/s"
TN = ("Fig. 8 on ns-2.35's WLAN (802.11 DSSS 11 Mb/s, two-ray ground, Bernoulli errors on every frame below the "
      "MAC): utilisation, Mb/s")

def _paper_residuals() -> tuple[float, float, float, float, float]:
    """§4.2.1's own numbers recomputed: residuals of NewReno, Westwood+, Adaptive TCP at FER 0.1 % (Mb/s) and
    Adaptive TCP's reductions over NewReno and Westwood+ (%)."""
    nr, ww, ad = (PAPER_MAX - PUBLISHED[("util", 0.001, v)].value for v in ("newreno", "westwood", "adaptive"))
    return nr, ww, ad, 100 * (nr - ad) / nr, 100 * (ww - ad) / ww


def notes(cells: Sequence[TableCell]) -> list[str]:
    """Model notes shown at the top of the report page; measured numbers are this run's cells."""
    nr, ww, ad, red_nr, red_ww = _paper_residuals()
    best0 = max((c.mean for c in cells if c.table == T8 and c.row == "FER 0 %" and c.mean is not None), default=None)
    return [
        "Errors act above the MAC (loss_at = \"packets\"): each packet the MAC delivered is lost with the "
        f"Gilbert–Elliott chain of its station (mean FER, bursts of {BURST:g} packet on average), and TCP must repair "
        "it. With errors on the 802.11 frames (the point-of-action table) the MAC's retries hide them.",
        f"802.11g ERP-OFDM, long slot, {RATE[:-4]} Mb/s (the preset and rate whose one-station bound, "
        f"{PHY_BOUND_MBPS:g} Mb/s, is closest to the paper's {PAPER_MAX:g} Mb/s; the paper's '802.11g at 11 Mb/s' "
        f"cannot carry {PAPER_MAX:g} Mb/s with an ACK per packet).",
        "Residual bandwidth = the maximum bandwidth availability − utilisation; the paper's maximum is its "
        f"{PAPER_MAX:g} Mb/s at 0 % FER, ours the one-flow bound of our PHY, {PHY_BOUND_MBPS:g} Mb/s (our measured "
        f"0 % maximum, {'not run' if best0 is None else f'{best0:.2f} Mb/s'}, can be exceeded by a sender at a low "
        "FER, which would make its residual ≤ 0). The paper's 66 % and 47 % at FER 0.1 % do not recompute from its "
        f"own numbers: ({nr:.2f} − {ad:.2f})/{nr:.2f} = {red_nr:.1f} % and ({ww:.2f} − {ad:.2f})/{ww:.2f} = "
        f"{red_ww:.1f} %.",
        f"{DURATION[:-1]} s runs ({MULTI_DURATION[:-1]} s with 4 APs) instead of 500 s; D = {DEFAULT_DELAY[:-2]} ms and "
        f"R = {DEFAULT_RATE[:-4]} Mb/s by default (not stated).",
    ]


def _prose_constants() -> tuple[str, ...]:
    nr, ww, ad, red_nr, red_ww = _paper_residuals()
    return (f"bursts of {BURST:g}", f"long slot, {RATE[:-4]} Mb/s", f"{PHY_BOUND_MBPS:g} Mb/s", "802.11g at 11 Mb/s",
            f"({nr:.2f} − {ad:.2f})/{nr:.2f}", f"({ww:.2f} − {ad:.2f})/{ww:.2f}", f"{red_nr:.1f} %", f"{red_ww:.1f} %",
            f"{DURATION[:-1]} s runs", f"{MULTI_DURATION[:-1]} s with 4 APs", "instead of 500 s",
            f"D = {DEFAULT_DELAY[:-2]} ms", f"R = {DEFAULT_RATE[:-4]} Mb/s",
            f"every interface queue at {QUEUE_SWITCH} packets instead of {QUEUE}",
            f"up to {RWND_SEGMENTS} packets, outgrows {QUEUE}", f"the {QUEUE}-packet queues",
            "FER 0.1 %", "a loss every ~1000 packets", "802.11 DSSS 11 Mb/s", "ns-2 802.11 at 11 Mb/s")


#: Phrases of the prose that quote inputs (not results: our PHY's rate and bound, the paper's 802.11g rate and
#: run length, the interface queue, the packets per loss at FER 0.1 %) and the paper's own numbers recomputed
#: (tests/test_report_prose.py).
PROSE_CONSTANTS = _prose_constants()


def _mode(quick: bool) -> str:
    return "quick" if quick else "full"


def prefix(quick: bool) -> str:
    return f"{NAME}/{_mode(quick)}"


def fig8(quick: bool) -> list[Point]:
    return [Point("fig8", f, duration=DURATION) for f in FERS[quick]]


def fig9(quick: bool) -> list[Point]:
    # D = 45 ms at FER 1 % is Fig. 8's point (same scenario: the store runs it once).
    return [Point("fig9", 0.01, delay=d, duration=DURATION) for d in DELAYS[quick]]


def fig10(quick: bool) -> list[Point]:
    return [Point("fig10", f, rate="5Mbps", duration=DURATION) for f in SLOW_FERS[quick]]


def fig11(quick: bool) -> list[Point]:
    return [Point("fig11", f, aps=4, flows_per_ap=k, duration=MULTI_DURATION)
            for f in MULTI_FERS[quick] for k in FLOWS_PER_AP[quick]]


def frames(quick: bool) -> list[Point]:
    return [Point("frames", f, loss_at="frames", variants=PAPER3, duration=DURATION) for f in FRAME_FERS[quick]]


def queue_points() -> list[Point]:
    """Fig. 8's FER 0 % point with every interface queue at QUEUE_SWITCH packets (the deviation's switch)."""
    return [Point("queue", 0.0, variants=PAPER3, duration=DURATION, queue=QUEUE_SWITCH)]


def functional() -> Point:
    return Point("functional", 0.01, variants=PAPER3, duration="200s", start="100s", series=("cwnd", "ssthresh"))


#: The senders ns-2.35 has (Westwood+ through Agent/TCP/Linux's westwood module).
NS2_SENDERS = ("newreno", "westwood")


def ns2_points(quick: bool) -> list[Point]:
    """Fig. 8's FERs on the WLAN as ns-2.35 runs it (scenario.NS2_PHY), for tcplab and ns-2.35 alike."""
    return [Point("ns2phy", f, variants=NS2_SENDERS, duration=DURATION, ns2_phy=True) for f in FERS[quick]]


def ns2_sweep_name(quick: bool, p: Point) -> str:
    return f"{p.name(prefix(quick))}/ns2"


def external_runs(store: Store, quick: bool) -> int:
    """After the sweeps: the ns2phy points' NewReno and Westwood+ in ns-2.35 (when ``ns`` is installed)."""
    return sum(
        ns2_side.run(store, ns2_sweep_name(quick, p),
                     [ns2_side.Job(c, lambda seed, v=v, p=p: ns2_scenario(p, v))
                      for v, c in zip(NS2_SENDERS, variant_cells(NS2_SENDERS))],
                     range(1, REPS[quick] + 1))
        for p in ns2_points(quick))


def sweeps(quick: bool) -> list[Sweep]:
    pre, reps = prefix(quick), REPS[quick]
    single = (fig8(quick) + fig9(quick) + fig10(quick) + frames(quick) + [functional()] + ns2_points(quick)
              + queue_points())
    return (
        [p.sweep(pre, reps) for p in single]
        + [p.sweep(pre, MULTI_REPS[quick]) for p in fig11(quick)]
        + [p.sweep(pre, reps) for p in sensitivity.points(quick, DURATION) + sensitivity.burst_points(quick, DURATION)]
    )


# ---------------------------------------------------------------------------------------- analysis


def _util(store: Store, quick: bool, points: list[Point]) -> dict[str, dict[str, dict[int, float]]]:
    return {p.label: metric(store, p.name(prefix(quick)), "util") for p in points}


def _rows(table: str, row: str, per: dict[str, dict[int, float]], unit: str,
          pub: dict[str, Published] | None = None, variants: tuple[str, ...] = ALL) -> list[TableCell]:
    return [TableCell.of(table, row, LABEL[v], summarise(per.get(v, {}).values()), unit, (pub or {}).get(v))
            for v in variants]


def functional_stats(store: Store, quick: bool) -> dict[str, dict[str, dict[int, float]]]:
    """Per sender, per metric, per seed: loss events, mean α, share of losses with α > 0, ssthresh
    advancements and the time-weighted mean ssthresh (packets) over 100-200 s.  Keyed by seed, so that two
    senders are paired by seed even where one of them lost a run."""
    out: dict[str, dict[str, dict[int, float]]] = {}
    for v, per in runs(store, functional().name(prefix(quick))).items():
        acc: dict[str, dict[int, float]] = {}
        for seed, r in sorted(per.items()):
            s = store.series(r["key"])
            ss = s.filter(s["series"] == "ssthresh")
            t, val = ss["t_s"].to_list(), ss["value"].to_list()
            # Before the first loss ssthresh is "arbitrarily high" (RFC 5681): left out of the mean.
            spans = [(t2 - t1, x / SEGMENT_B) for t1, t2, x in zip(t, t[1:] + [200.0], val)
                     if t1 >= 100.0 and x / SEGMENT_B <= RWND_SEGMENTS]
            total = sum(d for d, _ in spans)
            acc.setdefault("mean ssthresh (packets)", {})[seed] = sum(d * x for d, x in spans) / total if total else 0.0
            acc.setdefault("timeouts", {})[seed] = r["timeouts"]
            if v == "adaptive":
                ls = r["losses"]
                acc.setdefault("loss events", {})[seed] = len(ls)
                acc.setdefault("mean α at a loss", {})[seed] = sum(e["alpha"] for e in ls) / len(ls) if ls else 0.0
                acc.setdefault("losses with α > 0 (%)", {})[seed] = (
                    100 * sum(e["alpha"] > 0 for e in ls) / len(ls) if ls else 0.0)
                acc.setdefault("ssthresh advancements", {})[seed] = sum(e["advanced_ssthresh"] is not None for e in ls)
        out[v] = acc
    return out


def analyse(store: Store, quick: bool) -> tuple[list[TableCell], list[Finding]]:
    pre = prefix(quick)
    u8 = _util(store, quick, fig8(quick))
    ref = PHY_BOUND_MBPS
    cells: list[TableCell] = []
    for p in fig8(quick):
        pub = {v: PUBLISHED[k] for v in ALL if (k := ("util", p.fer, v)) in PUBLISHED}
        cells += _rows(T8, f"FER {100 * p.fer:g} %", u8[p.label], "Mb/s", pub)
    for p in fig8(quick)[1:]:
        u = u8[p.label]
        red_nr = residual_reduction(u, ref) if {"adaptive", "newreno"} <= set(u) else []
        red_ww = residual_reduction({"adaptive": u.get("adaptive", {}), "newreno": u.get("westwood", {})}, ref)
        row = f"FER {100 * p.fer:g} %"
        cells += [
            TableCell.of(T8R, row, "over NewReno", summarise(100 * x for x in red_nr), "%",
                         PUBLISHED.get(("residual", p.fer, "newreno"))),
            TableCell.of(T8R, row, "over Westwood+", summarise(100 * x for x in red_ww), "%",
                         PUBLISHED.get(("residual", p.fer, "westwood"))),
        ]
    for p in fig9(quick):
        cells += _rows(T9, f"D = {p.delay}", metric(store, p.name(pre), "util"), "Mb/s")
    for p in fig10(quick):
        cells += _rows(T10, f"FER {100 * p.fer:g} %", metric(store, p.name(pre), "util"), "Mb/s")
    fair: dict[str, dict[str, dict[int, float]]] = {}
    for p in fig11(quick):
        row = f"{p.flows} flows, FER {100 * p.fer:g} %"
        cells += _rows(T11, row, metric(store, p.name(pre), "util"), "Mb/s")
        fair[row] = metric(store, p.name(pre), "jain")
        cells += _rows(T12, row, fair[row], "index")
    uf = _util(store, quick, frames(quick))
    fs = functional_stats(store, quick)
    for p in frames(quick):
        cells += _rows(TA, f"FER {100 * p.fer:g} % on frames", uf[p.label], "Mb/s", variants=PAPER3)
    for v, acc in fs.items():
        cells += [TableCell.of(TF, name, LABEL[v], summarise(xs.values()), "as the row") for name, xs in acc.items()]
    heading = None
    order: dict[str, dict[float, dict[str, dict[int, float]]]] = {"tcplab": {}, "ns2": {}}
    for p in ns2_points(quick):
        theirs = ns2_runs(store, ns2_sweep_name(quick, p))
        order["tcplab"][p.fer] = metric(store, p.name(pre), "util")
        order["ns2"][p.fer] = {v: {seed: r["util"] for seed, r in per.items()} for v, per in theirs.items()}
        if heading is None:
            measured = any(ns2_runs(store, ns2_sweep_name(quick, q)) for q in ns2_points(quick))
            heading = ns2_side.heading(ns2_side.ns_installed(), measured)
        row = f"FER {100 * p.fer:g} %"
        pub = {v: PUBLISHED[k] for v in NS2_SENDERS if (k := ("util", p.fer, v)) in PUBLISHED}
        pub = {v: Published(x.value, x.ref + " (on ns-2.35's WLAN)") for v, x in pub.items()}
        ours = _rows(TN, row, metric(store, p.name(pre), "util"), "Mb/s", pub, variants=NS2_SENDERS)
        cells += ours
        cells += [ns2_side.cell(c, summarise(x["util"] for x in theirs.get(v, {}).values()), heading)
                  for v, c in zip(NS2_SENDERS, ours)]
    zero = next(p for p in fig8(quick) if p.fer == 0.0)
    cells += _rows(TQ, f"queues {QUEUE} packets (Fig. 8's runs)", u8[zero.label], "Mb/s", variants=PAPER3)
    for p in queue_points():
        cells += _rows(TQ, f"queues {p.queue} packets", metric(store, p.name(pre), "util"), "Mb/s", variants=PAPER3)
    cells += sensitivity.cells(store, pre, quick, DURATION)
    cells += sensitivity.burst_cells(store, pre, quick, DURATION)

    fers = {p.fer: p.label for p in fig8(quick)}
    frame_labels = {p.fer: p.label for p in frames(quick)}
    u9 = _util(store, quick, fig9(quick))
    u10 = _util(store, quick, fig10(quick))
    r10 = {p.label: metric(store, p.name(pre), "retx") for p in fig10(quick)}
    multi_util = {f"{p.flows} flows, FER {100 * p.fer:g} %": metric(store, p.name(pre), "util") for p in fig11(quick)}
    multi_pts = {f"{p.flows} flows, FER {100 * p.fer:g} %": (p.flows_per_ap, p.fer) for p in fig11(quick)}
    # Fig. 9's D = 45 ms point is Fig. 8's FER 1 % (same label, same runs): Fig. 8's entries win.
    ours = findings(u9 | u10 | uf | u8, fair, fers, list(fair), ref, frame_labels,
                    delays={_ms(p.delay): p.label for p in fig9(quick)}, slow={p.fer: p.label for p in fig10(quick)},
                    multi_util=multi_util, retx=r10, residual_pub=RESIDUAL_PUB, multi_pts=multi_pts,
                    slow_ref=SLOW_MAX, ssthresh={v: acc.get("mean ssthresh (packets)", {}) for v, acc in fs.items()})
    ours = against_paper(ours, paper_findings())
    # The baseline's order on ns-2.35's WLAN, by tcplab and (when it ran) by ns-2.35, each verdict shown.
    ours.append(baseline_order(order["tcplab"]))
    if any(order["ns2"].values()):
        ours.append(baseline_order(order["ns2"], ns2_side.FINDING_PREFIX))
    return cells, ours


#: §4.2.3: "With 5 Mbps wireline datarate and 0% FER, the maximum BW availability for a single TCP flow is
#: limited to 5 Mbps" — the reference of residual bandwidth on the slow backbone.
SLOW_MAX = 5.0
#: §4.2.1's printed residual-bandwidth reductions at FER 0.1 %, per compared sender (%).
RESIDUAL_PUB = {v: PUBLISHED[("residual", 0.001, v)].value for v in ("newreno", "westwood")}


def _ms(delay: str) -> float:
    return float(delay.removesuffix("ms"))


def paper_findings() -> list[Finding]:
    """The findings' rules run on the paper's own printed numbers (§4.2.1: 5.99 Mb/s for all three at 0 % FER;
    2.92, 3.81 and 4.78 Mb/s at FER 0.1 %; its maximum 5.99 Mb/s as the reference), each entered twice so with
    a zero-width interval.  Claims whose numbers the paper only draws are not checked there."""
    util = {f"paper fer={f:g}": {v: dict.fromkeys(PAPER_SEEDS, PUBLISHED[("util", f, v)].value) for v in PAPER3}
            for f in (0.0, 0.001)}
    fers = {0.0: "paper fer=0", 0.001: "paper fer=0.001"}
    # §5 c)'s "more than 100 %" rests on the FERs the paper only draws (0.5 %, 1 %): with FER 0.1 % alone the
    # rule would judge another FER than the paper's, so it is left out here.
    return [f for f in findings(util, {}, fers, [], PAPER_MAX, {}, residual_pub=RESIDUAL_PUB)
            if "more than 100 %" not in f.text]


def deviation_cause(cell: TableCell, cells: Sequence[TableCell] = ()) -> str:
    """Why a published cell is off by more than 10 % (the report lists these); measured numbers are this run's."""
    _, _, _, red_nr, red_ww = _paper_residuals()
    if cell.table == TN:
        theirs = next((t for o, t in ns2_side.pairs(cells) if (o.table, o.row, o.column) == (TN, cell.row, cell.column)),
                      None)
        said = ("ns-2.35 not run" if theirs is None or theirs.mean is None else
                f"ns-2.35 gives {theirs.mean:.2f} ± {0.0 if theirs.ci95 is None else theirs.ci95:.2f} Mb/s on the same "
                f"WLAN, and {ns2_side.gives(cell.published, theirs)} (paper {cell.published:g})")  # type: ignore[arg-type]
        return (f"the paper's ns-2 802.11 at 11 Mb/s cannot carry {PAPER_MAX:g} Mb/s with an ACK per packet; {said} "
                "(the side-by-side table)")
    if cell.table == T8R:
        ad = cell_mean(cells, T8, "FER 0.1 %", LABEL["adaptive"])
        ww = cell_mean(cells, T8, "FER 0.1 %", LABEL["westwood"])
        order = ("Westwood+ beats Adaptive TCP, so the reduction over it is negative" if ad is not None and ww is not None
                 and ww > ad else "see the utilisation cells")
        return (
            f"follows the utilisation cells at FER 0.1 % (here {order}) and our maximum (the PHY bound "
            f"{PHY_BOUND_MBPS:g} Mb/s); the paper's percentages do not recompute from its own numbers either "
            f"({red_nr:.1f} % and {red_ww:.1f} %)"
        )
    if cell.row == "FER 0 %":
        ww0 = cell_mean(cells, T8, "FER 0 %", LABEL["westwood"])
        big = cell_mean(cells, TQ, f"queues {QUEUE_SWITCH} packets", cell.column)
        head = (f"the paper's {PAPER_MAX:g} Mb/s is its ns-2 PHY's output; our closest preset bounds one flow at "
                f"{PHY_BOUND_MBPS:g} Mb/s, and Westwood+ reaches {'–' if ww0 is None else f'{ww0:.2f}'} Mb/s on the "
                "same WLAN")
        if big is None:
            return f"{head}; the queue switch did not run: cause not found"
        # Issue 39: the cause shown by a switch of the scenario, its measured effect quoted from this run.
        return (f"{head}; switch measured: with every interface queue at {QUEUE_SWITCH} packets instead of {QUEUE} "
                f"(cwnd, up to {RWND_SEGMENTS} packets, outgrows {QUEUE}), {cell.column} goes from {cell.mean:.2f} to "
                f"{big:.2f} Mb/s against the paper's {PAPER_MAX:g} (switch table): the {QUEUE}-packet queues' overflow "
                "losses are the cause")
    return (
        f"at FER 0.1 % (a loss every ~1000 packets, bursts of {BURST:g}) Westwood+ and Adaptive TCP lose little here "
        "and NewReno less than in the paper; the paper's error model (burstiness, where it acted) and its default D "
        "are not given (see the point-of-action and sensitivity tables, and Fig. 9 for D); cause not found"
    )


def figures(store: Store, outdir: Path, quick: bool = False) -> list[Path]:
    from tcplab.experiments.adaptive_tcp.figures import draw

    return draw(store, outdir, quick)
