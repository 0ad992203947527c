"""Issue 40's done-when checks on paper 001's network (docs/validation/ack_holding.md), measured:

    .venv/bin/python validation/ns2/p001_fade_checks.py            # seeds 1-3
    .venv/bin/python validation/ns2/p001_fade_checks.py --seeds 5

(i)  one fade 10-20 s, tcpTick_ 0.1, wired 50 ms: tcplab (profile ns2) vs ns-2.35, packets delivered in order;
(ii) fades 2-12 and 14-24 s, wired 10 ms, 2 Mb/s last hop, tcpTick_ 0.1: the same, and then tcplab with one
     rule of the ns-2 profile switched back to the classic rule at a time, to show which rule carries the gap.

ns-2 runs each cell twice: as validate-ns2 translates it, and with every scheduled event NS2_SETTLE_S later so
that DSDV (the translation's stand-in for tcplab's static routes) has its routes before the SYN
(fade_timing.ns2_script says why; validate-ns2's settle); then, per seed, when ns-2's SYN was ACKed and its estimator before the fade.

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


def ns2_packets(cell: dict, seeds: range, settle_s: float) -> tuple[list[float], list[int]]:
    script = ft.ns2_script(experiment.scenario(), cell, settle_s)
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


#: Polls Agent/TCP's bound t_rtt_/t_srtt_/t_rttvar_ (ticks, x8, x4: tcp.cc binds rtt_, srtt_, rttvar_ to
#: them) every 0.5 ms and writes each change; the traced srtt_/rttvar_ are truncated to whole ticks.
POLL = """
set pf_ [open poll.tr w]
set last_ ""
proc poll_ {} {
    global ns_ tcp_ pf_ last_
    set v "[$tcp_ set rtt_] [$tcp_ set srtt_] [$tcp_ set rttvar_]"
    if {$v != $last_} { puts $pf_ "[$ns_ now] $v"; set last_ $v }
    if {[$ns_ now] < %(until)s} { $ns_ at [expr [$ns_ now] + 0.0005] "poll_" } else { close $pf_ }
}
$ns_ at 0.0 "poll_"
"""


def ns2_rto_at_fade(cell: dict, seeds: range, settle_s: float) -> list[tuple[int, float | None, float, float, float]]:
    """Per seed (ns-2.35): when the SYN's ACK reached the sender after the transfer's start (None: never;
    the wired trace's first ACK at node 0), and t_srtt_/8, t_rttvar_/4 and the RTO before backoff,
    ⌊(8·t_rttvar_ + t_srtt_)/8⌋ ticks (tcp.cc rtt_update), at their last change before the first fade.
    The script is changed only to poll those variables into a file of their own."""
    script = ft.ns2_script(experiment.scenario(), cell, settle_s)
    start = float(cell[ft.OUTAGE_PATH][0][0][:-1]) + settle_s
    tick = float(cell[ft.TICK_PATH][:-2]) / 1000
    text = script.text.replace('$ns_ run\n', POLL % {"until": start} + '$ns_ run\n')
    assert text != script.text, "the script no longer ends with `$ns_ run`; update ns2_rto_at_fade"
    out = []
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "cell.tcl"
            path.write_text(text)
            subprocess.run(["ns", str(path), str(seed), "out.tr"], cwd=tmp, check=True, capture_output=True)
            syn_ack = None
            with open(Path(tmp) / "out.tr") as tr:
                for line in tr:
                    tok = line.split()
                    if len(tok) > 4 and tok[0] == "r" and tok[3] == "0" and tok[4] == "ack":
                        syn_ack = float(tok[1]) - settle_s
                        break
            rows = [ln.split() for ln in (Path(tmp) / "poll.tr").read_text().splitlines()]
            _, rtt, srtt, rttvar = max((r for r in rows if float(r[0]) < start), key=lambda r: float(r[0]))
            ticks = ((int(rttvar) << 3) + int(srtt)) >> 3
        out.append((seed, syn_ack, int(srtt) / 8 * tick, int(rttvar) / 4 * tick, ticks * tick))
    return out


def show(xs: list[float]) -> str:
    """Mean ± 95 % CI, then each seed's packets (ns-2's and tcplab's seeds are not paired)."""
    s = summarise(xs)
    return f"{s.mean:.0f} ± {0 if s.ci95 != s.ci95 else s.ci95:.0f} ({', '.join(f'{x:.0f}' for x in xs)})"


#: ns-2's two runs of each cell: the translation as is, and with every event after DSDV's start-up
#: (fade_timing.ns2_script; the experiment's ns-2 column uses the second).
NS2_SIDES = {"as translated": 0.0, f"DSDV settled (+{ft.NS2_SETTLE_S:g} s)": ft.NS2_SETTLE_S}


def table(seeds: range) -> int:
    """The experiment's fade-timing table (docs/validation/ack_holding.md) without a store: each cell's
    packets on tcplab and on ns-2.35 (the experiment's settled script), then the report's deviation text."""
    st: dict[str, dict] = {"tcplab": {}, "ns2": {}}
    reading_of = {json.dumps(v): k for k, v in ft.READINGS.items()}
    print(f"seeds 1-{seeds[-1]}; packets delivered in order in 40 s, mean ± 95 % CI (per seed)\n")
    print("| fades | tcpTick | wired | tcplab | ns-2.35 |")
    print("|---|---|---|---|---|")
    for cell in ft.cells():
        key = (reading_of[json.dumps(cell[ft.OUTAGE_PATH])], cell[ft.TICK_PATH], cell[ft.DELAY_PATH])
        tpk, _ = tcplab_packets(cell, seeds, [])
        npk, _ = ns2_packets(cell, seeds, ft.NS2_SETTLE_S)
        st["tcplab"][key], st["ns2"][key] = summarise(tpk), summarise(npk)
        print(f"| {ft.READING_TEXT[key[0]]} | {key[1]} | {key[2]} | {show(tpk)} | {show(npk)} |", flush=True)
    published = experiment.PUBLISHED[("two", "reno")].value
    print("\nDeviation (fade_timing.cause):", ft.cause(ft.table_cells(st, True, published), published))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N (default 3)")
    ap.add_argument("--table", action="store_true",
                    help="instead: every fade-timing cell on both simulators (ns-2 settled, as the experiment runs it) "
                         "and the two-fade deviation the report writes from them")
    args = ap.parse_args()
    seeds = range(1, args.seeds + 1)
    if args.table:
        return table(seeds)
    print(f"seeds 1-{args.seeds}; packets delivered in order in 40 s (mean ± 95 % CI, then per seed), RTOs per run (mean)\n")
    print("| check | ns-2.35 run | tcplab setting | tcplab packets | tcplab RTOs | ns-2.35 packets | ns-2.35 RTOs "
          "| tcplab / ns-2 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, cell in CHECKS.items():
        tcplab = {sw: tcplab_packets(cell, seeds, ov) for sw, ov in SWITCHES.items()
                  if sw == "profile ns2 (all rules)" or name.startswith("(ii)")}
        for side, settle in NS2_SIDES.items():
            npk, nto = ns2_packets(cell, seeds, settle)
            for sw, (tpk, tto) in tcplab.items():
                if sw != "profile ns2 (all rules)" and settle == 0.0:
                    continue
                ratio = summarise(tpk).mean / summarise(npk).mean
                print(f"| {name} | {side} | {sw} | {show(tpk)} | {sum(tto) / len(tto):.1f} | {show(npk)} "
                      f"| {sum(nto) / len(nto):.1f} | {ratio:.2f} |", flush=True)
    cell = CHECKS["(ii) fades 2-12 + 14-24 s, tick 0.1, wired 10 ms"]
    print("\n(ii), tcplab per seed: SRTT and RTO just before the first fade, when snd_una next advances, packets")
    for sw in ("profile ns2 (all rules)", "rto_rule = rfc6298"):
        for seed, srtt, rto, resume, pk in rto_at_fade(cell, seeds, SWITCHES[sw]):
            when = f"{resume:.2f} s" if resume is not None else "not before the end"
            print(f"  {sw}, seed {seed}: SRTT {srtt:.3f} s, RTO {rto:.3f} s, resumes {when}, {pk:.0f} packets")
    print("(ii), ns-2.35 per seed: the SYN's ACK after the start; t_srtt_/8, t_rttvar_/4 and the RTO before the first fade")
    for side, settle in NS2_SIDES.items():
        for seed, syn_ack, srtt, rttvar, rto in ns2_rto_at_fade(cell, seeds, settle):
            when = f"{syn_ack:.3f} s" if syn_ack is not None else "never"
            print(f"  {side}, seed {seed}: SYN ACKed at {when}, SRTT {srtt:.4f} s, RTTVAR {rttvar:.4f} s, RTO {rto:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
