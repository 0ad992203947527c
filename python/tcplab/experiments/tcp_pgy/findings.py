"""Seed 002's claims, each decided by a stated statistical rule on the paired replications.

Every sender runs a point with the same seeds, so two senders are compared seed by seed (the paired
difference's 95 % Student-t CI, :mod:`tcplab.stats`).  Input: per point label,
``m[label][variant][seed] = {metric: value}`` as :func:`tcp_pgy.points.runs` returns it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from dataclasses import replace

from tcplab.experiments.base import NS2_FINDING_PREFIX, Finding
from tcplab.experiments.tcp_pgy.scenario import LABEL
from tcplab.stats import above, equivalent, gain_pct_by_seed, magnitude, never, paired_diff, paired_gain_pct, summarise

Runs = Mapping[str, Mapping[int, Mapping[str, Any]]]

RULE_GREATER = (
    "paired over seeds; holds when the 95 % CI of the paired difference lies wholly above 0, fails when it "
    "lies wholly at or below 0, not separated otherwise; a claim over several cases fails if one fails and "
    "holds only if all hold"
)
#: "ACK loss occurs as much as DATA loss" (§III-A, Fig. 1(a)) while "a difference ... can be seen": read
#: as equal within a factor of 2 either way, the equivalence margin on ln(ACK lost / DATA lost).
COMPARABLE_FACTOR = 2.0
RULE_COMPARABLE = (
    f"per seed, ln(ACK segments lost / DATA segments lost); two one-sided tests: holds when the 90 % CI lies inside "
    f"±ln {COMPARABLE_FACTOR:g} (equal within a factor of {COMPARABLE_FACTOR:g}: the paper says 'as much as' while a "
    "difference can be seen), fails when the 95 % CI lies wholly outside, at every hop count"
)
RULE_MAGNITUDE = (
    "a magnitude, per seed 100·(TCP-pgy − NewReno)/NewReno (or the stated growth); reproduced when the printed value "
    "(to 0.1 %) lies in our 95 % CI, direction only when the CI lies wholly on its side of 0, not reproduced otherwise"
)
RULE_CONSERVATION = (
    "the core checks byte conservation at the end of every run (app/conservation.rs; a violation fails the "
    "run); holds when every run of the experiment ended ok, fails when one did not"
)


def gain_pct(runs: Runs, a: str, b: str, metric: str) -> list[float]:
    """Per seed 100 · (a − b) / b, in seed order."""
    return list(_gains(runs, a, b, metric).values())


def _gains(runs: Runs, a: str, b: str, metric: str) -> dict[int, float]:
    return gain_pct_by_seed(_metric(runs, a, metric), _metric(runs, b, metric))


def _greater(text: str, cases: Mapping[str, Runs], a: str, b: str, metric: str, unit: str,
             flip: bool = False) -> Finding:
    """Claim "a's metric > b's" per case (or "<" with ``flip``)."""
    res = []
    for label, runs in cases.items():
        if a not in runs or b not in runs:
            continue
        xa, xb = _metric(runs, a, metric), _metric(runs, b, metric)
        s = paired_diff(xb, xa) if flip else paired_diff(xa, xb)
        op = f"{LABEL[b]} − {LABEL[a]}" if flip else f"{LABEL[a]} − {LABEL[b]}"
        res.append((above(s), f"{label}: {op} = {s.pm(1)} {unit}"))
    return Finding.over_cases(text, res, RULE_GREATER)


def _speed_flows(label: str) -> tuple[int, float]:
    """(flows, speed) of a random-topology label "5 flows, 5 m/s"."""
    m = re.fullmatch(r"(\d+) flows, ([\d.]+) m/s", label)
    if not m:
        raise ValueError(f"random point label {label!r}: expected 'N flows, V m/s'")
    return int(m.group(1)), float(m.group(2))


def _metric(runs: Runs, v: str, m: str) -> dict[int, float]:
    return {s: float(r[m]) for s, r in runs.get(v, {}).items()}


def _magnitude(text: str, pub: float | None, values: list[float], what: str) -> Finding:
    if pub is None or not values:
        return Finding.over_cases(text, [], RULE_MAGNITUDE)
    s = summarise(values)
    return Finding.over_cases(text, [(magnitude(s, pub, resolution=0.1), f"{what}: {s.pm(1)} % vs "
                                                                          f"paper {pub:g} %")], RULE_MAGNITUDE)


def findings(strings: Mapping[int, Runs], multi: Mapping[int, Runs], grid: Mapping[int, Runs],
             random: Mapping[str, Runs], failures: Sequence[str], total: int,
             published: Mapping[tuple[str, int | str], float] | None = None) -> list[Finding]:
    """The paper's claims; ``published`` holds its printed magnitudes (tcp_pgy.PUBLISHED's keys)."""
    out: list[Finding] = []
    pub = published or {}
    hop = {f"{h} hops": r for h, r in sorted(strings.items())}

    res = []
    for h, runs in sorted(strings.items()):
        nr = runs.get("newreno", {})
        s = summarise(math.log(r["acks_lost"] / r["data_lost"]) for r in nr.values() if r["data_lost"] and r["acks_lost"])
        res.append((equivalent(s, math.log(COMPARABLE_FACTOR)),
                    f"{h} hops: ACK/DATA lost = {math.exp(s.mean):.2f} (ln {s.pm(2)})"))
    out.append(Finding.over_cases("ACK loss is comparable to DATA loss at every hop count (Fig. 1(a), NewReno)",
                        res, RULE_COMPARABLE))

    long = {k: v for k, v in strings.items() if k > 10}
    res = []
    for h, runs in sorted(long.items()):
        nr = runs.get("newreno", {})
        s = summarise(r["acks_lost"] - r["data_lost"] for r in nr.values())
        res.append((above(s), f"{h} hops: ACK − DATA lost = {s.pm(0)} segments"))
    out.append(Finding.over_cases("Beyond 10 hops more ACK than DATA segments are lost (Fig. 1(a), NewReno)",
                        res, RULE_GREATER))

    out.append(_greater("TCP-pgy improves string throughput at every hop count (Fig. 6)",
                        hop, "pgy", "newreno", "kbps", "kb/s"))
    out.append(_greater("TCP-pgy makes fewer spurious retransmissions in strings (Fig. 7)",
                        hop, "pgy", "newreno", "spurious", "per run", flip=True))
    gcases = {f"{n} flows": r for n, r in sorted(grid.items())}
    out.append(_greater("TCP-pgy makes fewer spurious retransmissions in the grid (Fig. 11)",
                        gcases, "pgy", "newreno", "spurious", "per run", flip=True))
    out.append(_greater("TCP-pgy has a higher average aggregate throughput in the grid (Fig. 10)",
                        gcases, "pgy", "newreno", "kbps", "kb/s"))
    out.append(_greater("TCP-pgy has a higher average aggregate throughput in random mobile topologies "
                        "(Fig. 12)", random, "pgy", "newreno", "kbps", "kb/s"))
    out.append(_greater("Ablation: S1 alone makes fewer spurious retransmissions than NewReno in strings",
                        hop, "s1", "newreno", "spurious", "per run", flip=True))
    out.append(_greater("Ablation: S2 alone takes fewer timeouts than NewReno in strings",
                        hop, "s2", "newreno", "timeouts", "per run", flip=True))

    res = []
    one = strings.get(7, {}).get("newreno", {})
    if multi and one:
        most = max(multi)
        many = multi[most].get("newreno", {})
        for m, what in (("data_lost", "DATA"), ("acks_lost", "ACK")):
            s = paired_diff({k: float(r[m]) for k, r in many.items()}, {k: float(r[m]) for k, r in one.items()})
            res.append((above(s), f"{what} lost with {most} flows − with 1 flow = {s.pm(0)}"))
    out.append(Finding.over_cases("DATA and ACK losses both grow with the number of flows on the 7-hop string (Fig. 1(b))",
                        res, RULE_GREATER + " (runs of the two networks paired by seed)"))

    # The printed magnitudes (§IV-B, §IV-C).
    h14 = strings.get(14, {})
    out.append(_magnitude("TCP-pgy improves throughput by up to 21.6 % at 14 hops (§IV-B, Fig. 6)",
                          pub.get(("string_gain", 14)), gain_pct(h14, "pgy", "newreno", "kbps"), "14 hops"))
    g6 = grid.get(6, {})
    out.append(_magnitude("TCP-pgy raises the grid's AAT by 58.4 % with six flows (§IV-C.1, Fig. 10)",
                          pub.get(("grid_gain", 6)), gain_pct(g6, "pgy", "newreno", "kbps"), "6 flows"))
    g10 = grid.get(10, {})
    out.append(_magnitude("TCP-pgy cuts spurious retransmissions by 70.8 % with ten flows (§IV-C.1, Fig. 11)",
                          pub.get(("grid_spurious_cut", 10)),
                          [-x for x in gain_pct(g10, "pgy", "newreno", "spurious")], "10 flows"))
    res = []
    if 2 in grid and 10 in grid:
        for v in ("newreno", "pgy"):
            p = pub.get(("grid_spurious_growth", v))
            s = paired_gain_pct(_metric(grid[10], v, "spurious"), _metric(grid[2], v, "spurious"))
            if p is not None and s.n:
                res.append((magnitude(s, p, resolution=0.1), f"{LABEL[v]}: {s.pm(1)} % vs paper {p:g} %"))
    out.append(Finding.over_cases("From 2 to 10 grid flows spurious retransmissions grow by 232.8 % (NewReno) and 87.3 % "
                                  "(TCP-pgy) (§IV-C.1)", res, RULE_MAGNITUDE + "; runs of the two grids paired by seed"))
    out.append(_magnitude("TCP-pgy raises the AAT by 71.5 % with five flows at 5 m/s (§IV-C.2, Fig. 12(b))",
                          pub.get(("random_gain", "5 flows, 5 m/s")),
                          gain_pct(random.get("5 flows, 5 m/s", {}), "pgy", "newreno", "kbps"), "5 flows, 5 m/s"))

    # §IV-B: "as the hop-distance increases, the throughput decreases" (Fig. 6).
    res = []
    if len(strings) >= 2:
        lo, hi = min(strings), max(strings)
        for v in ("newreno", "pgy"):
            s = paired_diff(_metric(strings[lo], v, "kbps"), _metric(strings[hi], v, "kbps"))
            res.append((above(s), f"{LABEL[v]}: {lo} − {hi} hops = {s.pm(1)} kb/s"))
    out.append(Finding.over_cases("Throughput falls as the hop count grows (§IV-B, Fig. 6)", res,
                                  RULE_GREATER + " (runs of the two strings paired by seed)"))

    # §IV-C.1: "As the number of cross TCP flows grows ... AATs of both TCP-pgy and standard TCP increase" (Fig. 10).
    res = []
    if len(grid) >= 2:
        lo, hi = min(grid), max(grid)
        for v in ("newreno", "pgy"):
            s = paired_diff(_metric(grid[hi], v, "kbps"), _metric(grid[lo], v, "kbps"))
            res.append((above(s), f"{LABEL[v]}: {hi} − {lo} flows = {s.pm(1)} kb/s"))
    out.append(Finding.over_cases("The grid's AAT grows with the number of flows for both senders (§IV-C.1, Fig. 10)", res,
                                  RULE_GREATER + " (runs of the two grids paired by seed)"))

    # §IV-C.1: "in standard TCP, when the number of TCP flows increases, TCP senders experience a larger number
    # of timeouts" (Fig. 11).
    res = []
    if len(grid) >= 2:
        lo, hi = min(grid), max(grid)
        s = paired_diff(_metric(grid[hi], "newreno", "timeouts"), _metric(grid[lo], "newreno", "timeouts"))
        res.append((above(s), f"NewReno timeouts, {hi} − {lo} flows = {s.pm(1)} per run"))
    out.append(Finding.over_cases("NewReno takes more timeouts as grid flows grow (§IV-C.1)", res,
                                  RULE_GREATER + " (runs of the two grids paired by seed)"))

    # §IV-C.2: "as mobility increases ... each AAT of both TCPs decreases" and "the frequency of spurious
    # retransmissions decreases" (Fig. 12(a)); TCP-pgy's gain larger with five flows than three (Fig. 12(b)).
    by_flows: dict[int, dict[float, Runs]] = {}
    for label, r in random.items():
        n, v = _speed_flows(label)
        by_flows.setdefault(n, {})[v] = r
    aat, spur = [], []
    for n, per in sorted(by_flows.items()):
        if len(per) < 2:
            continue
        slow_, fast_ = per[min(per)], per[max(per)]
        for v in ("newreno", "pgy"):
            s = paired_diff(_metric(slow_, v, "kbps"), _metric(fast_, v, "kbps"))
            aat.append((above(s), f"{n} flows, {LABEL[v]}: {min(per):g} − {max(per):g} m/s = {s.pm(1)} kb/s"))
            s = paired_diff(_metric(slow_, v, "spurious"), _metric(fast_, v, "spurious"))
            spur.append((above(s), f"{n} flows, {LABEL[v]}: {min(per):g} − {max(per):g} m/s = {s.pm(1)}"))
    out.append(Finding.over_cases("The AAT falls as node speed grows (§IV-C.2, Fig. 12(a))", aat,
                                  RULE_GREATER + " (runs at the two speeds paired by seed)"))
    out.append(Finding.over_cases("Spurious retransmissions fall as node speed grows (§IV-C.2, Fig. 12(a))", spur,
                                  RULE_GREATER + " (runs at the two speeds paired by seed)"))
    res = []
    if len(by_flows) >= 2:
        few, many = by_flows[min(by_flows)], by_flows[max(by_flows)]
        for v in sorted(set(few) & set(many)):
            s = paired_diff(_gains(many[v], "pgy", "newreno", "kbps"), _gains(few[v], "pgy", "newreno", "kbps"))
            res.append((above(s), f"{v:g} m/s: gain({max(by_flows)} flows) − gain({min(by_flows)} flows) = "
                                  f"{s.pm(1)} points"))
    out.append(Finding.over_cases("TCP-pgy's gain is larger with more flows in random topologies (§IV-C.2, Fig. 12(b))", res,
                                  RULE_GREATER + " (gains paired by seed)"))

    verdict = never(len(failures), total)
    detail = (f"{total - len(failures)} of {total} runs ended ok"
              + (f"; first failure: {failures[0][:200]}" if failures else ""))
    out.append(Finding.decided("No application byte is lost or duplicated in any run", verdict, detail,
                               RULE_CONSERVATION))
    return out


#: The findings about the NewReno baseline alone: decided on ns-2.35's runs of the same networks too
#: (ns-2.35 has no TCP-pgy; the findings that compare TCP-pgy with NewReno are tcplab's only).
BASELINE = (
    "ACK loss is comparable to DATA loss at every hop count (Fig. 1(a), NewReno)",
    "Beyond 10 hops more ACK than DATA segments are lost (Fig. 1(a), NewReno)",
    "DATA and ACK losses both grow with the number of flows on the 7-hop string (Fig. 1(b))",
    "NewReno takes more timeouts as grid flows grow (§IV-C.1)",
)


def baseline_findings(strings: Mapping[int, Runs], multi: Mapping[int, Runs], grid: Mapping[int, Runs]) -> list[Finding]:
    """The BASELINE findings decided by the same rules on other NewReno runs (ns-2.35's), each text prefixed
    with NS2_FINDING_PREFIX so that the report shows it beside tcplab's verdict."""
    decided = findings(strings, multi, grid, {}, [], 0)
    return [replace(f, text=NS2_FINDING_PREFIX + f.text) for f in decided if f.text in BASELINE]
