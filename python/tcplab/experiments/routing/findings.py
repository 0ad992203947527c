"""The routing comparison's claims, each decided by a stated rule on the paired replications.

Input: ``data[network][protocol][sender][seed] = metrics`` as :func:`tcplab.experiments.routing.runs`
returns them (each with ``ok`` and ``error``), the string download's size in bytes, and the ELFN
check's runs per protocol (:class:`ElfnRuns`).  Every
protocol and sender runs a network with the same seeds (the same movement), so comparisons are
made seed by seed (the paired differences' 95 % Student-t CI, :mod:`tcplab.stats`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tcplab.experiments.base import Finding
from tcplab.experiments.routing.scenario import LABEL, PROTOCOL_LABEL
from tcplab.stats import FAILS, above, never, gain_pct_by_seed, paired_diff, summarise

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
    "one flow across the mobile network, DSR telling the sender of every Route Error (ELFN as its authors built "
    "it), per seed: share = (ELFN − NewReno) / (E − NewReno), with E Holland "
    "& Vaidya's expected throughput of that seed's movement (Σ t_i·T_i / the flow's life: t_i the time the "
    "shortest path had i hops, T_i a static i-hop string's NewReno throughput over DSR, 0 while partitioned); "
    "holds when the 95 % CI of the share over seeds lies wholly above 0, fails when wholly at or below 0, not "
    "separated otherwise. The authors' 'large share' is not quantified in a form a rule can test: the share is "
    "reported, the rule tests that there is one"
)
RULE_OK = ("the core checks byte conservation at the end of every run (app/conservation.rs; a violation fails the "
           "run); holds when every run ended ok, fails when one did not")


def _values(runs: Seeds, metric: str) -> dict[int, float]:
    return {s: float(r[metric]) for s, r in runs.items() if r.get("ok")}


def gain_pct(runs: Mapping[str, Seeds], a: str, b: str, metric: str = "kbps") -> list[float]:
    """Per seed 100 · (a − b) / b (seeds where b is 0 are left out)."""
    return list(gain_pct_by_seed(_values(runs.get(a, {}), metric), _values(runs.get(b, {}), metric)).values())


def _exact(data: Data, size: int) -> Finding:
    bad, total = [], 0
    for p, per in data.get("string", {}).items():
        for s, seeds in per.items():
            for seed, r in seeds.items():
                total += 1
                if not (r.get("ok") and r.get("completed") and r.get("bytes") == size):
                    bad.append(f"{PROTOCOL_LABEL[p]}, {LABEL[s]}, seed {seed}: {r.get('bytes', 0):.0f} B")
    verdict = never(len(bad), total)
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
                d = paired_diff(a, b)
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


@dataclass
class ElfnRuns:
    """One protocol's runs of the ELFN check: the single flow's (sender -> seed -> metrics) and the
    reference strings' (hops -> seed -> metrics)."""

    runs: Mapping[str, Seeds]
    ref: Mapping[int, Seeds] = field(default_factory=dict)


def reference_kbps(e: ElfnRuns) -> dict[int, float]:
    """T_i: hops -> the mean throughput of the static string of that many hops."""
    out = {}
    for h, seeds in e.ref.items():
        xs = [float(r["kbps"]) for r in seeds.values() if r.get("ok")]
        if xs:
            out[h] = sum(xs) / len(xs)
    return out


def uncovered(e: ElfnRuns) -> set[int]:
    """Path lengths the single flow had that no reference string measured."""
    t = reference_kbps(e)
    return {h for r in e.runs.get("newreno", {}).values() if r.get("ok") for h in r.get("path_s", {}) if h not in t}


def expected_kbps(e: ElfnRuns) -> dict[int, float]:
    """seed -> Holland & Vaidya's expected throughput of that seed's movement (MobiCom 1999 §3):
    Σ t_i·T_i over the flow's life, T = 0 while partitioned. Seeds whose path had a length without
    a reference are left out (:func:`uncovered` names them)."""
    t = reference_kbps(e)
    out = {}
    for seed, r in e.runs.get("newreno", {}).items():
        path = r.get("path_s", {})
        life = sum(path.values()) + r.get("partitioned_s", 0.0)
        if r.get("ok") and life > 0 and all(h in t for h in path):
            out[seed] = sum(secs * t[h] for h, secs in path.items()) / life
    return out


def share_recovered(e: ElfnRuns, sender: str = "elfn") -> dict[int, float]:
    """seed -> (ELFN − NewReno) / (expected − NewReno): the share of the throughput NewReno lost to
    route failures that ``sender`` (an ELFN form) recovers (seeds where NewReno lost nothing are
    left out)."""
    exp = expected_kbps(e)
    nr, el = _values(e.runs.get("newreno", {}), "kbps"), _values(e.runs.get(sender, {}), "kbps")
    return {s: (el[s] - nr[s]) / (exp[s] - nr[s]) for s in exp if s in nr and s in el and exp[s] > nr[s]}


def _elfn(elfn: Mapping[str, ElfnRuns]) -> Finding:
    res = []
    e = elfn.get("dsr")
    if e is not None:
        shares = share_recovered(e, "elfn_every")
        if len(shares) >= 2:
            sh = summarise(100 * x for x in shares.values())
            exp, nr = expected_kbps(e), _values(e.runs.get("newreno", {}), "kbps")
            el = _values(e.runs.get("elfn_every", {}), "kbps")
            detail = (f"share recovered {sh.mean:+.0f} ± {sh.ci95:.0f} % over {len(shares)} seeds (expected "
                      f"{summarise(exp.values()).mean:.1f} kb/s, NewReno {summarise(nr.values()).mean:.1f}, "
                      f"ELFN {summarise(el.values()).mean:.1f})")
            if uncovered(e):
                detail += f"; path lengths without a reference string left out: {sorted(uncovered(e))}"
            res.append((above(sh), detail))
    return Finding.over_cases("ELFN over DSR recovers throughput NewReno loses to route failures (Holland & Vaidya: "
                              "stand-by with probing recovers a large share of it)", res, RULE_ELFN)


def _all_ok(data: Data, elfn: Mapping[str, ElfnRuns]) -> Finding:
    groups = [seeds for per in data.values() for senders in per.values() for seeds in senders.values()]
    groups += [seeds for e in elfn.values() for seeds in (*e.runs.values(), *e.ref.values())]
    errors = [r.get("error", "") for seeds in groups for r in seeds.values() if not r.get("ok")]
    total = sum(len(seeds) for seeds in groups)
    verdict = never(len(errors), total)
    detail = f"{total - len(errors)} of {total} runs ended ok" + (f"; first failure: {errors[0][:200]}" if errors else "")
    return Finding.decided("No application byte is lost or duplicated in any run", verdict, detail, RULE_OK)


def findings(data: Data, size: int, elfn: Mapping[str, ElfnRuns]) -> list[Finding]:
    return [_exact(data, size), _order(data), _flowing(data), _elfn(elfn), _all_ok(data, elfn)]
