"""Seed 004: how Adaptive TCP's utilisation moves with each reconstructed equation form, and how
the three senders move with the burstiness of the errors (the paper gives only the FER).

The paper's equations (1)-(6) are images lost from the text; each form rebuilt from the prose has a
[tcp] switch (docs/models/tcp.md).  One sweep per switch runs Adaptive TCP with the alternative
form on Fig. 8's network at a few FERs, with the seeds of Fig. 8's runs of the default form, and
the report shows both side by side with the paired difference.
"""

from __future__ import annotations

from tcplab.experiments.adaptive_tcp.points import PAPER3, Point, metric
from tcplab.experiments.adaptive_tcp.scenario import LABEL
from tcplab.experiments.base import TableCell
from tcplab.stats import paired_diff, summarise
from tcplab.store import Store

#: switch -> (alternative value, what it changes; default form first)
SWITCHES: dict[str, tuple[str, str]] = {
    "adaptive_rtt": ("sample", "estimated RTT: SRTT (default) vs raw samples"),
    "adaptive_loss_window": ("max", "Eq. (2): W_LN + α·(cwnd − W_LN) (default) vs max(W_LN, α·cwnd)"),
    "adaptive_advance": ("ratio", "Eqs. (5)-(6): K as a slope in packets/s (default) vs a ratio cwnd(n)/W_LA(n−1)"),
    "adaptive_slot_start": ("recovery_end", "T(n−1): the loss detection (default) vs the end of its recovery"),
    "adaptive_serial_timeout": ("same_segment", "serial timeouts: any with the RTO backed off (default) vs only "
                                "the same segment timing out again"),
}
FERS_FULL = (0.001, 0.01, 0.05)
FERS_QUICK = (0.01,)
#: Mean Gilbert–Elliott burst lengths (packets) beside the default 1, at these FERs.
BURSTS = {True: (4.0,), False: (4.0, 16.0)}
BURST_FERS = {True: (0.01,), False: (0.001, 0.01)}
BURST_TABLE = "Sensitivity — error burstiness (mean Gilbert–Elliott burst, packets; default 1): utilisation (Mb/s)"


def points(quick: bool, duration: str) -> list[Point]:
    return [
        Point("sensitivity", fer, variants=("adaptive",), tcp=((switch, alt),), duration=duration)
        for switch, (alt, _) in SWITCHES.items()
        for fer in (FERS_QUICK if quick else FERS_FULL)
    ]


def burst_points(quick: bool, duration: str) -> list[Point]:
    return [Point("burst", fer, burst=b, variants=PAPER3, duration=duration)
            for fer in BURST_FERS[quick] for b in BURSTS[quick]]


def burst_cells(store: Store, prefix: str, quick: bool, duration: str) -> list[TableCell]:
    """The three senders' utilisation per FER and burst length, the default (1) from Fig. 8's runs."""
    out = []
    for fer in BURST_FERS[quick]:
        for p in [Point("fig8", fer, duration=duration)] + [q for q in burst_points(quick, duration) if q.fer == fer]:
            per = metric(store, p.name(prefix), "util")
            out += [TableCell.of(BURST_TABLE, f"FER {100 * fer:g} %, burst {p.burst:g}", LABEL[v],
                                 summarise(per.get(v, {}).values()), "Mb/s") for v in PAPER3]
    return out


def cells(store: Store, prefix: str, quick: bool, duration: str) -> list[TableCell]:
    """Per switch: utilisation with the default form (Fig. 8's runs), with the alternative, and the
    paired difference, per FER (no published values: these are our forms, not the paper's)."""
    out = []
    for p in points(quick, duration):
        switch, alt = p.tcp[0]
        default = metric(store, Point("fig8", p.fer, duration=duration).name(prefix), "util").get("adaptive", {})
        other = metric(store, p.name(prefix), "util").get("adaptive", {})
        table = f"Sensitivity — {SWITCHES[switch][1]}: Adaptive TCP's utilisation (Mb/s)"
        row = f"FER {100 * p.fer:g} %"
        out += [
            TableCell.of(table, row, "default form", summarise(default.values()), "Mb/s"),
            TableCell.of(table, row, f"{switch} = {alt}", summarise(other.values()), "Mb/s"),
            TableCell.of(table, row, "difference (paired)",
                         paired_diff(other, default), "Mb/s"),
        ]
    return out
