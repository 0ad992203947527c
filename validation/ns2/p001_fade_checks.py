"""Issue 40's done-when checks on paper 001's network (docs/validation/ack_holding.md), measured:

    .venv/bin/python validation/ns2/p001_fade_checks.py            # seeds 1-3
    .venv/bin/python validation/ns2/p001_fade_checks.py --seeds 5

(i)  one fade 10-20 s, tcpTick_ 0.1, wired 50 ms: tcplab (profile ns2) vs ns-2.35, packets delivered in order;
(ii) fades 2-12 and 14-24 s, wired 10 ms, 2 Mb/s last hop, tcpTick_ 0.1: the same, and then tcplab with one
     rule of the ns-2 profile switched back to the classic rule at a time, to show which rule carries the gap.

Each cell is the ack-holding experiment's fade-timing cell (python/tcplab/experiments/ack_holding/fade_timing.py),
run by tcplab's core and by `ns` through validate-ns2's translator and trace reader.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tcplab import _core  # noqa: E402
from tcplab.experiments.ack_holding import experiment, fade_timing as ft  # noqa: E402
from tcplab.result import Result  # noqa: E402
from tcplab.stats import summarise  # noqa: E402

CHECKS = {
    "(i) one fade, tick 0.1, wired 50 ms": {ft.OUTAGE_PATH: ft.READINGS["one"], ft.TICK_PATH: "100ms", ft.DELAY_PATH: "50ms"},
    "(ii) fades 2-12 + 14-24 s, tick 0.1, wired 10 ms": {ft.OUTAGE_PATH: ft.READINGS["early"], ft.TICK_PATH: "100ms",
                                                        ft.DELAY_PATH: "10ms"},
}
#: One rule of the ns-2 profile at a time set back to the classic profile's (tcplab only).
SWITCHES = {
    "profile ns2 (all rules)": [],
    "rto_rule = rfc6298": [("tcp.rto_rule", "rfc6298")],
    "rto_ssthresh = keep_in_recovery": [("tcp.rto_ssthresh", "keep_in_recovery")],
    "open = handshake": [("tcp.open", "handshake")],
    "open = none": [("tcp.open", "none")],
}


def tcplab_packets(cell: dict, seeds: range, overrides: list[tuple[str, str]]) -> tuple[list[float], list[int]]:
    text = json.dumps(ft.cell_scenario(experiment.scenario(), cell))
    pk, to = [], []
    for seed in seeds:
        flow = Result.from_raw(_core.run(text, "json", seed, overrides, None)).summary["flows"][0]
        pk.append(flow["bytes_delivered"] / 1000)
        to.append(flow["timeouts"])
    return pk, to


def ns2_packets(cell: dict, seeds: range) -> tuple[list[float], list[int]]:
    script = ft.ns2_script(experiment.scenario(), cell)
    pk, to = [], []
    for seed in seeds:
        c = ft.run_ns2_seed(script, seed)
        pk.append(float(c.delivered_packets))
        to.append(c.rtos)
    return pk, to


def rto_at_fade(cell: dict, seeds: range, overrides: list[tuple[str, str]]) -> list[tuple[int, float, float, float | None, float]]:
    """Per seed (tcplab): SRTT and the RTO just before the first fade, when snd_una next advances, packets."""
    s = ft.cell_scenario(experiment.scenario(), cell)
    s["trace"] = {"series": ["rto", "srtt", "snd_una"], "interval": "10ms"}
    start = float(cell[ft.OUTAGE_PATH][0][0][:-1])
    out = []
    for seed in seeds:
        r = Result.from_raw(_core.run(json.dumps(s), "json", seed, overrides, None))
        rto = r.series.filter(r.series["series"] == "rto")
        una = r.series.filter(r.series["series"] == "snd_una")
        before = rto.filter(rto["t_s"] < start)["value"].to_list()[-1]
        srtt = r.series.filter((r.series["series"] == "srtt") & (r.series["t_s"] < start))["value"].to_list()[-1]
        t, v = una["t_s"].to_list(), una["value"].to_list()
        resume = next((t[i] for i in range(1, len(t)) if v[i] > v[i - 1] and t[i] > start + 0.5), None)
        out.append((seed, srtt, before, resume, r.summary["flows"][0]["bytes_delivered"] / 1000))
    return out


def ns2_rto_at_fade(cell: dict, seeds: range) -> list[tuple[int, float, float]]:
    """Per seed (ns-2.35): srtt_ and rttvar_ as Agent/TCP traces them (seconds) at their last change
    before the first fade; its RTO is srtt_ + 4·rttvar_ (tcp.cc rtt_timeout, before minrto_/backoff).
    The translated script is changed only to trace these variables into a file of their own."""
    script = ft.ns2_script(experiment.scenario(), cell)
    text = script.text.replace("$tcp_ attach $tf\n", "set vt [open vars.tr w]\n$tcp_ attach $vt\n")
    text = text.replace("$tcp_ trace nrexmit_\n", "foreach v {srtt_ rttvar_} { $tcp_ trace $v }\n")
    assert text != script.text, "the script's agent trace lines changed; update ns2_rto_at_fade"
    start = float(cell[ft.OUTAGE_PATH][0][0][:-1])
    out = []
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "cell.tcl"
            path.write_text(text)
            subprocess.run(["ns", str(path), str(seed), "/dev/null"], cwd=tmp, check=True, capture_output=True)
            last: dict[str, float] = {}
            for line in (Path(tmp) / "vars.tr").read_text().splitlines():
                tok = line.split()
                if len(tok) >= 7 and float(tok[0]) < start and tok[5] in ("srtt_", "rttvar_"):
                    last[tok[5]] = float(tok[6])
        out.append((seed, last["srtt_"], last["rttvar_"]))
    return out


def show(xs: list[float]) -> str:
    """Mean ± 95 % CI, then each seed's packets (ns-2's and tcplab's seeds are not paired)."""
    s = summarise(xs)
    return f"{s.mean:.0f} ± {0 if s.ci95 != s.ci95 else s.ci95:.0f} ({', '.join(f'{x:.0f}' for x in xs)})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    seeds = range(1, args.seeds + 1)
    print(f"seeds 1-{args.seeds}; packets delivered in order in 40 s (mean ± 95 % CI, then per seed), RTOs per run (mean)\n")
    print("| check | tcplab setting | tcplab packets | tcplab RTOs | ns-2.35 packets | ns-2.35 RTOs | tcplab / ns-2 |")
    print("|---|---|---|---|---|---|---|")
    for name, cell in CHECKS.items():
        npk, nto = ns2_packets(cell, seeds)
        for sw, ov in SWITCHES.items():
            if sw != "profile ns2 (all rules)" and name.startswith("(i)"):
                continue
            tpk, tto = tcplab_packets(cell, seeds, ov)
            ratio = summarise(tpk).mean / summarise(npk).mean
            print(f"| {name} | {sw} | {show(tpk)} | {sum(tto) / len(tto):.1f} | {show(npk)} | {sum(nto) / len(nto):.1f} "
                  f"| {ratio:.2f} |", flush=True)
    cell = CHECKS["(ii) fades 2-12 + 14-24 s, tick 0.1, wired 10 ms"]
    print("\n(ii), tcplab per seed: SRTT and RTO just before the first fade, when snd_una next advances, packets")
    for sw in ("profile ns2 (all rules)", "rto_rule = rfc6298"):
        for seed, srtt, rto, resume, pk in rto_at_fade(cell, seeds, SWITCHES[sw]):
            when = f"{resume:.2f} s" if resume is not None else "not before the end"
            print(f"  {sw}, seed {seed}: SRTT {srtt:.3f} s, RTO {rto:.3f} s, resumes {when}, {pk:.0f} packets")
    print("(ii), ns-2.35 per seed: srtt_ and rttvar_ before the first fade, RTO = srtt_ + 4·rttvar_")
    for seed, srtt, rttvar in ns2_rto_at_fade(cell, seeds):
        print(f"  seed {seed}: srtt_ {srtt:.3f} s, rttvar_ {rttvar:.3f} s, RTO {srtt + 4 * rttvar:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
