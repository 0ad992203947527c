"""The routing comparison's claims, each decided by a stated rule on the paired replications.

Input: ``data[network][protocol][sender][seed] = metrics`` as :func:`tcplab.experiments.routing.runs`
returns them (each with ``ok`` and ``error``), and the string download's size in bytes.  Every
protocol and sender runs a network with the same seeds (the same movement), so comparisons are
made seed by seed (the paired differences' 95 % Student-t CI, :mod:`tcplab.stats`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tcplab.experiments.base import Finding
from tcplab.experiments.routing_scenario import LABEL, PROTOCOL_LABEL
from tcplab.stats import FAILS, HOLDS, NOT_CHECKED, above, paired, summarise

Seeds = Mapping[int, Mapping[str, Any]]
Data = Mapping[str, Mapping[str, Mapping[str, Seeds]]]

#: The claimed overhead order, least first: DSR's forwarders and targets learn routes from the
#: packets they carry and ask only when they must; DSDV's periodic dumps cost the same whatever
#: the traffic; AODV floods a request for every route it lacks and its routes expire unused.
OVERHEAD_ORDER = ("dsr", "dsdv", "aodv")

RULE_EXACT = ("every run of the string (each protocol, each sender): status ok, the download completed and "
              "delivered exactly its size (the run's conservation oracle checks the bytes themselves)")
RULE_ORDER = (
    "NewReno's runs, paired over seeds; for each neighbouring pair in the claimed order the 95 % CI of "
    "(later − earlier) control packets, and of control bytes, must lie wholly above 0; fails when one lies "
    "wholly at or below 0, not separated otherwise; both networks"
)
RULE_FLOWING = (
    "per protocol, NewReno's aggregate throughput on the mobile network over seeds; holds when its 95 % CI lies "
    "wholly above 0 kb/s for every protocol, fails when one protocol's lies at 0"
)
RULE_ELFN = (
    "mobile network, DSR, paired over seeds: the 95 % CI of ELFN − NewReno aggregate throughput must lie wholly "
    "above 0 (holds) or wholly at or below 0 (fails); the share recovered is not tested (no reference "
    "throughput without route failures), only the direction, and the gain is reported"
)
RULE_OK = ("the core checks byte conservation at the end of every run (app/conservation.rs; a violation fails the "
           "run); holds when every run ended ok, fails when one did not")


def _values(runs: Seeds, metric: str) -> dict[int, float]:
    return {s: float(r[metric]) for s, r in runs.items() if r.get("ok")}


def gain_pct(runs: Mapping[str, Seeds], a: str, b: str, metric: str = "kbps") -> list[float]:
    """Per seed 100 · (a − b) / b (seeds where b is 0 are left out)."""
    return [100 * (x - y) / y for x, y in paired(_values(runs.get(a, {}), metric), _values(runs.get(b, {}), metric))
            if y]


def _exact(data: Data, size: int) -> Finding:
    bad, total = [], 0
    for p, per in data.get("string", {}).items():
        for s, seeds in per.items():
            for seed, r in seeds.items():
                total += 1
                if not (r.get("ok") and r.get("completed") and r.get("bytes") == size):
                    bad.append(f"{PROTOCOL_LABEL[p]}, {LABEL[s]}, seed {seed}: {r.get('bytes', 0):.0f} B")
    verdict = NOT_CHECKED if total == 0 else (FAILS if bad else HOLDS)
    detail = f"{total} runs, each delivered {size} B" if not bad else f"{len(bad)} of {total}: " + "; ".join(bad[:6])
    return Finding.decided("On the static 7-hop string all three protocols deliver every byte, with every sender",
                           verdict, detail, RULE_EXACT)


def _order(data: Data) -> Finding:
    res = []
    for net, per in data.items():
        for metric, unit in (("ctrl_packets", "packets"), ("ctrl_kbytes", "kB")):
            for lo, hi in zip(OVERHEAD_ORDER, OVERHEAD_ORDER[1:]):
                a = _values(per.get(hi, {}).get("newreno", {}), metric)
                b = _values(per.get(lo, {}).get("newreno", {}), metric)
                if not a or not b:
                    continue
                d = summarise(x - y for x, y in paired(a, b))
                res.append((above(d), f"{net}: {PROTOCOL_LABEL[hi]} − {PROTOCOL_LABEL[lo]} = "
                                      f"{d.mean:+.0f} ± {d.ci95:.0f} {unit}"))
    text = "Routing overhead, least first: " + " < ".join(PROTOCOL_LABEL[p] for p in OVERHEAD_ORDER)
    return Finding.over_cases(text + " (control packets and bytes, string and mobile)", res, RULE_ORDER)


def _flowing(data: Data) -> Finding:
    res = []
    for p, per in data.get("mobile", {}).items():
        xs = _values(per.get("newreno", {}), "kbps")
        if xs:
            s = summarise(xs.values())
            verdict = above(s) if s.mean > 0 else FAILS
            res.append((verdict, f"{PROTOCOL_LABEL[p]}: {s.mean:.1f} ± {s.ci95:.1f} kb/s"))
    return Finding.over_cases("Under mobility each protocol repairs routes and keeps data flowing (NewReno)",
                              res, RULE_FLOWING)


def _elfn(data: Data) -> Finding:
    runs = data.get("mobile", {}).get("dsr", {})
    res = []
    a, b = _values(runs.get("elfn", {}), "kbps"), _values(runs.get("newreno", {}), "kbps")
    if a and b:
        d = summarise(x - y for x, y in paired(a, b))
        g = summarise(gain_pct(runs, "elfn", "newreno"))
        res.append((above(d), f"ELFN − NewReno = {d.mean:+.1f} ± {d.ci95:.1f} kb/s ({g.mean:+.0f} ± {g.ci95:.0f} %)"))
    return Finding.over_cases("ELFN over DSR recovers throughput NewReno loses to route failures (Holland & Vaidya: "
                              "stand-by with probing recovers a large share of it)", res, RULE_ELFN)


def _all_ok(data: Data) -> Finding:
    errors = [r.get("error", "") for per in data.values() for senders in per.values() for seeds in senders.values()
              for r in seeds.values() if not r.get("ok")]
    total = sum(len(seeds) for per in data.values() for senders in per.values() for seeds in senders.values())
    verdict = NOT_CHECKED if total == 0 else (HOLDS if not errors else FAILS)
    detail = f"{total - len(errors)} of {total} runs ended ok" + (f"; first failure: {errors[0][:200]}" if errors else "")
    return Finding.decided("No application byte is lost or duplicated in any run", verdict, detail, RULE_OK)


def findings(data: Data, size: int) -> list[Finding]:
    return [_exact(data, size), _order(data), _flowing(data), _elfn(data), _all_ok(data)]
