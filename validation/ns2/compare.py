"""tcplab vs ns-2.35 on the dumbbell of dumbbell.tcl/.toml, or (--network wlan) on the wired–BS–
802.11 path of wlan_path.tcl/.toml (docs/validation/baselines.md).

Runs each (scheme, loss) cell for the given seeds in both simulators and prints the goodput in
Mb/s of 1000-byte packets (the packets both put on the wire: ns-2's packetSize_ 1000, tcplab's
960-byte payload + 40 bytes of headers), with the mean over seeds and the relative difference.

    .venv/bin/python validation/ns2/compare.py [--network dumbbell|wlan] [--seeds 10] [--duration 60]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TCPLAB = ROOT / ".venv" / "bin" / "tcplab"
# A sender set up as ns-2.35's Linux TCP (Agent/TCP/Linux): SACK recovery, timestamps, Linux's RTO.
LINUX = ["tcp.variant=sack", "tcp.timestamps=true", "tcp.rto_rule=linux"]
# (row name, ns-2 agent, tcplab [tcp] overrides)
SCHEMES = [
    ("vegas vs Agent/TCP/Vegas", "Vegas", ["tcp.cc=vegas"]),
    ("reno vs Agent/TCP/Reno", "Reno", ["tcp.cc=reno"]),
    ("veno vs Agent/TCP/Linux veno", "Linux/veno", ["tcp.cc=veno", *LINUX]),
    ("reno+sack vs Agent/TCP/Linux reno", "Linux/reno", ["tcp.cc=reno", *LINUX]),
]


def tcplab(net: str, overrides: list[str], p: float, seed: int, duration: int) -> float:
    toml = HERE / ("dumbbell.toml" if net == "dumbbell" else "wlan_path.toml")
    args = [str(TCPLAB), "run", str(toml), "--json", "--seed", str(seed)]
    args += ["--set", f"duration={duration}s"]
    for o in overrides:
        args += ["--set", o]
    if p > 0:
        args += ["--set", f'links.bottleneck.loss={{model="bernoulli",p={p},direction="a_to_b"}}']
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    segments = out["flows"][0]["bytes_delivered"] / 960
    return segments * 1000 * 8 / duration / 1e6


def ns2(net: str, agent: str, p: float, seed: int, duration: int) -> float:
    if net == "dumbbell":
        args = ["ns", str(HERE / "dumbbell.tcl"), agent, str(p), str(duration), str(seed)]
    else:
        args = ["ns", str(HERE / "wlan_path.tcl"), agent, str(duration), str(seed)]
    line = subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()
    return float(line[line.index("goodput_mbps") + 1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=int, default=60)
    ap.add_argument("--only", help="run only the rows whose name contains this")
    ap.add_argument("--network", default="dumbbell", choices=["dumbbell", "wlan"])
    a = ap.parse_args()
    print("| scheme | loss | tcplab Mb/s (mean ± sd) | ns-2.35 Mb/s (mean ± sd) | difference |")
    print("|---|---|---|---|---|")
    for name, agent, over in SCHEMES:
        if a.only and a.only not in name:
            continue
        if a.network == "wlan" and agent.startswith("Linux/"):
            continue  # the wired-cum-wireless script runs the one-way agents only
        for p in (0.0, 0.01) if a.network == "dumbbell" else (0.0,):
            seeds = range(1, a.seeds + 1)
            t = [tcplab(a.network, over, p, s, a.duration) for s in seeds]
            n = [ns2(a.network, agent, p, s, a.duration) for s in seeds]
            mt, mn = statistics.mean(t), statistics.mean(n)
            sd = lambda xs: statistics.stdev(xs) if len(xs) > 1 else 0.0  # noqa: E731
            print(
                f"| {name} | {p:.0%} | {mt:.3f} ± {sd(t):.3f} | {mn:.3f} ± {sd(n):.3f} "
                f"| {100 * (mt - mn) / mn:+.1f} % |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
