"""wireless-baselines: every wireless TCP scheme of tcplab on the same networks (issue 41).

The wired–BS–802.11 network of seeds 000/001 (``scenario.py``) with (a) random errors on the packets the
mobile receives, 0–10 %, and (b) one scheduled disconnection of 1–30 s; a 2 MB download per run; every
scheme of ``schemes.py`` as a row: Reno, NewReno, SACK, Snoop, I-TCP, M-TCP, M-TCP+, ACK holding,
Freeze-TCP, Westwood+, Veno, Vegas, Adaptive TCP and CUBIC.  Tables: goodput, completion time, and the
FH sender's retransmissions and timeouts, each a mean with a Student-t 95 % CI over seeds (the seed drives
the error draws and the 802.11 backoff).  No paper prints numbers for this network, so there are no
published cells: the literature enters as orderings (``findings.py``), each decided by a stated rule.

What a replication varies: the packet-error draws and the 802.11 backoff; the start, the outage's time and
positions fixed (REPLICATIONS).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tcplab.experiments.base import Finding, TableCell
from tcplab.experiments.wireless_baselines import scenario as sc
from tcplab.experiments.wireless_baselines.claims import CLAIMS  # noqa: F401  (the report reads it)
from tcplab.experiments.wireless_baselines.findings import findings
from tcplab.experiments.wireless_baselines.schemes import LABEL, SCHEMES, runnable, scheme_of
from tcplab.runner import Sweep
from tcplab.stats import summarise
from tcplab.store import Store

NAME = "wireless-baselines"
#: What a replication varies, for the report page.
REPLICATIONS = (
    "Each replication's seed drives the packet-error draws towards the mobile and the 802.11 backoff; the "
    "download's start, the outage's start and length, and the positions are the same in every replication "
    "(the same for every scheme, so schemes are compared seed by seed)."
)

TITLE = "Every wireless TCP scheme on the wired–BS–802.11 network: frame errors and disconnections (issue 41)"

#: No paper prints numbers for this network: the published results are orderings (see findings.py).
PUBLISHED: dict[Any, Any] = {}
#: The report draws each table as a grid, every scheme a line and every level a column.
SIDE_BY_SIDE = True

FAMILY_TITLE = {"fer": "Random errors", "disconnection": "One disconnection"}
METRICS: tuple[tuple[str, str, str], ...] = (
    ("goodput", "goodput", "Mb/s"),
    ("completion", "completion time of the 2 MB download", "s"),
    ("retx", "FH retransmissions", "segments"),
    ("timeouts", "FH timeouts", "timeouts"),
    ("finished", f"downloads finished within the run's {sc.DURATION_S} s", "fraction of runs"),
)

#: Scenario constants the notes quote.
PROSE_CONSTANTS = ("FH –10 Mb/s, 50 ms, DropTail 50– BS ~ns-2 802.11 DSSS 2 Mb/s", "MH at 50 m", "1000-B segments",
                   "window 20", "downloads 2 MB", "t = 5 s", "250 ms ahead", f"({sc.DURATION_S} s)")

NOTES = (
    "Network: FH –10 Mb/s, 50 ms, DropTail 50– BS ~ns-2 802.11 DSSS 2 Mb/s, RTS/CTS~ MH at 50 m (seed 001's, "
    "examples/snoop.toml); ns-2-like senders: 1000-B segments counted in segments, window 20, timestamps, an ACK "
    "per segment; the MH downloads 2 MB from the FH.",
    "Random errors: each packet the mobile receives is lost independently above the MAC (loss_at = packets, an "
    "ns-2 error model over the link layer); with errors on 802.11 frames the MAC's retries hide them "
    "(docs/validation/baselines.md).",
    "Disconnections: one outage of the mobile from t = 5 s, announced 250 ms ahead with its exact duration "
    "(LINK_GOING_DOWN), no errors.",
    "Base TCP per scheme: Reno under Snoop, I-TCP, ACK holding, Freeze-TCP and Vegas; NewReno under M-TCP, "
    "M-TCP+, Westwood+, Veno, Adaptive TCP and CUBIC; retransmissions and timeouts are the FH sender's (I-TCP's "
    "FH connection ends at the BS, so wireless losses never reach it).",
    "M-TCP+, ACK holding and Freeze-TCP act only on a disconnection signal: under random errors they run as "
    "their base TCP (checked exactly, see the findings). M-TCP's supervisor host withholds one byte of every "
    "ACK whether or not a disconnection comes, so it differs from NewReno under errors too.",
    "A download that has not finished when the "
    f"run ends ({sc.DURATION_S} s) has no completion time (the completion table's n counts the finished ones) and "
    "its goodput is the bytes delivered over the whole run; the last table counts them.",
)


def _mode(quick: bool) -> str:
    return "quick" if quick else "full"


def sweep_name(family: str, quick: bool) -> str:
    return f"{NAME}/{family}-{_mode(quick)}"


def replications(quick: bool) -> int:
    return 4 if quick else 20


def conditions(family: str) -> list[dict[str, Any]]:
    if family == "fer":
        return [sc.fer_cell(p) for p in sc.FERS]
    return [sc.outage_cell(d) for d in sc.OUTAGES_S]


def sweeps(quick: bool, schemes: tuple[str, ...] | None = None) -> list[Sweep]:
    """One sweep per family: every runnable scheme x every level, the same seeds for all."""
    return [
        Sweep(
            name=sweep_name(fam, quick),
            base=sc.base(),
            cells=[s.cell() | c for s in runnable(fam, schemes) for c in conditions(fam)],
            replications=replications(quick),
            seed0=1,
        )
        for fam in sc.FAMILIES
    ]


def run_record(cell: dict[str, Any], summary: dict[str, Any], seed: int) -> dict[str, Any]:
    """One run as the findings read it."""
    family, level = sc.condition_of(cell)
    f = summary["flows"][0]
    return {
        "scheme": scheme_of(cell),
        "family": family,
        "level": level,
        "seed": int(seed),
        "goodput": f["goodput_bps"] / 1e6,
        "completion": f["response_time_s"] if f["completed"] else None,
        "retx": f["retransmissions"],
        "timeouts": f["timeouts"],
        "finished": 1.0 if f["completed"] else 0.0,
    }


def runs(store: Store, quick: bool) -> list[dict[str, Any]]:
    out = []
    for fam in sc.FAMILIES:
        for r in store.runs(sweep_name(fam, quick), status="ok").iter_rows(named=True):
            out.append(run_record(json.loads(r["cell"]), json.loads(r["summary_json"]), r["seed"]))
    return out


def level_label(family: str, level: float) -> str:
    return f"FER {100 * level:g} %" if family == "fer" else f"{level:g} s"


def table_title(family: str, metric: str) -> str:
    title = next(t for m, t, _ in METRICS if m == metric)
    return f"{FAMILY_TITLE[family]} — {title}"


def cells_of(rs: Sequence[dict[str, Any]]) -> list[TableCell]:
    out = []
    for fam in sc.FAMILIES:
        levels = list(sc.FERS) if fam == "fer" else [float(d) for d in sc.OUTAGES_S]
        for metric, _, unit in METRICS:
            for s in SCHEMES:
                for lv in levels:
                    sel = [r[metric] for r in rs if r["scheme"] == s.key and r["family"] == fam and r["level"] == lv]
                    if sel:
                        out.append(TableCell.of(table_title(fam, metric), s.label, level_label(fam, lv),
                                                summarise(sel), unit))
    return out


def analyse(store: Store, quick: bool) -> tuple[list[TableCell], list[Finding]]:
    rs = runs(store, quick)
    return cells_of(rs), findings(rs)


def figures(store: Store, outdir: Path, quick: bool = False) -> list[Path]:
    from matplotlib import colormaps

    from tcplab.plots import new_figure, save

    colours = colormaps["tab20"].colors  # 14 schemes: the default cycle's 10 colours would repeat
    rs = runs(store, quick)
    out: list[Path] = []
    for fam, metric, xlabel, fname in (
        ("fer", "goodput", "packet error rate towards the mobile (%)", "goodput_vs_fer.png"),
        ("disconnection", "completion", "disconnection (s)", "completion_vs_outage.png"),
    ):
        fig, ax = new_figure()
        for i, s in enumerate(SCHEMES):
            levels = sorted({r["level"] for r in rs if r["family"] == fam and r["scheme"] == s.key})
            if not levels:
                continue
            st = [summarise(r[metric] for r in rs if r["family"] == fam and r["scheme"] == s.key and r["level"] == lv)
                  for lv in levels]
            xs = [100 * lv if fam == "fer" else lv for lv in levels]
            ax.errorbar(xs, [x.mean for x in st], yerr=[x.ci95 if math.isfinite(x.ci95) else 0.0 for x in st],
                        marker="os^vD<>"[i % 7], ls="-" if i < 7 else "--", capsize=2, label=LABEL[s.key],
                        color=colours[i % len(colours)])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("goodput (Mb/s)" if metric == "goodput" else "completion time of 2 MB (s)")
        ax.set_title(f"{FAMILY_TITLE[fam]}: every scheme (mean, 95 % CI)")
        ax.legend(frameon=False, fontsize=6, ncol=2)
        out.append(save(fig, outdir / fname))
    return out


def notes(cells: Sequence[TableCell]) -> list[str]:
    """The model notes, and which cells had downloads that did not finish (from the run's own cells)."""
    out = list(NOTES)
    # A scheme that cannot run on a family is listed with its reason, never dropped silently.
    left_out = [f"{s.label} on {FAMILY_TITLE[fam].lower()}: {why}" for s in SCHEMES for fam, why in s.cannot_run.items()]
    out.append("Schemes left out of a family of cells: " + "; ".join(left_out) if left_out else
               "Every scheme runs on both families of cells; none is left out.")
    late = [c for c in cells if c.table.endswith("finished within the run's " f"{sc.DURATION_S} s")
            and c.mean is not None and c.mean < 1.0]
    if late:
        out.append(
            "Downloads not finished when the run ended: "
            + "; ".join(f"{c.row} at {c.column} ({FAMILY_TITLE[_family_of(c.table)].lower()}): "
                        f"{100 * c.mean:.0f} % of {c.n} finished" for c in late)
            + ". M-TCP's stalls under random errors (traced while building this experiment): after a lost segment the "
            "FH's snd_una stays one byte below the mobile's rcv_nxt — the byte the supervisor host withholds — and "
            "every timeout retransmits only that one-byte remainder of its segment, which the mobile already has, so the "
            "reduced ACK never advances, the lost segment behind it is never resent and the RTO backs off to its "
            "maximum; an interaction of the M-TCP agent with the sender's retransmission of partial segments, left "
            "for its own issue (docs/validation/wireless_baselines.md)."
        )
    return out


def _family_of(table: str) -> str:
    return next(f for f, t in FAMILY_TITLE.items() if table.startswith(t))
