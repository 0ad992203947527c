"""Seed 002's claims, each decided by a stated statistical rule on the paired replications.

Every sender runs a point with the same seeds, so two senders are compared seed by seed (the paired
difference's 95 % Student-t CI, :mod:`tcplab.stats`).  Input: per point label,
``m[label][variant][seed] = {metric: value}`` as :func:`tcp_pgy_points.runs` returns it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tcplab.experiments.base import Finding
from tcplab.experiments.tcp_pgy_scenario import LABEL
from tcplab.stats import FAILS, HOLDS, NOT_CHECKED, Summary, above, paired, summarise

Runs = Mapping[str, Mapping[int, Mapping[str, Any]]]

RULE_GREATER = (
    "paired over seeds; holds when the 95 % CI of the paired difference lies wholly above 0, fails when it "
    "lies wholly at or below 0, not separated otherwise; a claim over several cases fails if one fails and "
    "holds only if all hold"
)
#: ACK losses count as "comparable" to DATA losses when they are at least this share of them.
COMPARABLE = 0.5
RULE_COMPARABLE = (
    f"per seed, ACK segments lost / DATA segments lost; holds when its 95 % CI lies wholly at or above "
    f"{COMPARABLE:g}, fails when wholly below, at every hop count"
)
RULE_CONSERVATION = (
    "the core checks byte conservation at the end of every run (app/conservation.rs; a violation fails the "
    "run); holds when every run of the experiment ended ok, fails when one did not"
)


def paired_diff(runs: Runs, a: str, b: str, metric: str) -> Summary:
    """Per seed a − b of one metric."""
    xa = {s: float(r[metric]) for s, r in runs.get(a, {}).items()}
    xb = {s: float(r[metric]) for s, r in runs.get(b, {}).items()}
    return summarise(x - y for x, y in paired(xa, xb))


def gain_pct(runs: Runs, a: str, b: str, metric: str) -> list[float]:
    """Per seed 100 · (a − b) / b."""
    xa = {s: float(r[metric]) for s, r in runs.get(a, {}).items()}
    xb = {s: float(r[metric]) for s, r in runs.get(b, {}).items()}
    return [100 * (x - y) / y for x, y in paired(xa, xb) if y]


def _greater(text: str, cases: Mapping[str, Runs], a: str, b: str, metric: str, unit: str,
             flip: bool = False) -> Finding:
    """Claim "a's metric > b's" per case (or "<" with ``flip``)."""
    res = []
    for label, runs in cases.items():
        if a not in runs or b not in runs:
            continue
        s = paired_diff(runs, b, a, metric) if flip else paired_diff(runs, a, b, metric)
        op = f"{LABEL[b]} − {LABEL[a]}" if flip else f"{LABEL[a]} − {LABEL[b]}"
        res.append((above(s), f"{label}: {op} = {s.mean:+.1f} ± {s.ci95:.1f} {unit}"))
    return Finding.over_cases(text, res, RULE_GREATER)


def findings(strings: Mapping[int, Runs], multi: Mapping[int, Runs], grid: Mapping[int, Runs],
             random: Mapping[str, Runs], failures: Sequence[str], total: int) -> list[Finding]:
    out: list[Finding] = []
    hop = {f"{h} hops": r for h, r in sorted(strings.items())}

    res = []
    for h, runs in sorted(strings.items()):
        nr = runs.get("newreno", {})
        s = summarise(r["acks_lost"] / r["data_lost"] for r in nr.values() if r["data_lost"])
        res.append((above(s, COMPARABLE, ties=True), f"{h} hops: ACK/DATA lost = {s.mean:.2f} ± {s.ci95:.2f}"))
    out.append(Finding.over_cases("ACK loss is comparable to DATA loss at every hop count (Fig. 1(a), NewReno)",
                        res, RULE_COMPARABLE))

    long = {k: v for k, v in strings.items() if k > 10}
    res = []
    for h, runs in sorted(long.items()):
        nr = runs.get("newreno", {})
        s = summarise(r["acks_lost"] - r["data_lost"] for r in nr.values())
        res.append((above(s), f"{h} hops: ACK − DATA lost = {s.mean:+.0f} ± {s.ci95:.0f} segments"))
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
            s = summarise(x - y for x, y in paired({k: float(r[m]) for k, r in many.items()},
                                                   {k: float(r[m]) for k, r in one.items()}))
            res.append((above(s), f"{what} lost with {most} flows − with 1 flow = {s.mean:+.0f} ± {s.ci95:.0f}"))
    out.append(Finding.over_cases("DATA and ACK losses both grow with the number of flows on the 7-hop string (Fig. 1(b))",
                        res, RULE_GREATER + " (runs of the two networks paired by seed)"))

    verdict = NOT_CHECKED if total == 0 else (HOLDS if not failures else FAILS)
    detail = (f"{total - len(failures)} of {total} runs ended ok"
              + (f"; first failure: {failures[0][:200]}" if failures else ""))
    out.append(Finding.decided("No application byte is lost or duplicated in any run", verdict, detail,
                               RULE_CONSERVATION))
    return out
