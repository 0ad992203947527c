"""Switches behind Adaptive TCP Fig. 8's FER 0 % deviation (issue 39): the paper prints 5.99 Mb/s, our closest PHY
preset bounds one flow at 6.04 Mb/s and NewReno / Adaptive TCP reach about 4.9.  The experiment's own Fig. 8 cell
(1 flow, D = 45 ms, R = 100 Mb/s, FER 0, 100 s), one setting changed at a time:

    .venv/bin/python validation/adaptive_tcp_fig8_switches.py [--seeds 5] [--json OUT]

Candidates: the interface queues (50 packets, on the WLAN and the wired links; cwnd, up to 1000 packets, outgrows
them), and the receiver's window (1000 packets).  Prints goodput mean ± 95 % CI, drops and timeouts per switch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import tcplab  # noqa: E402
from tcplab.experiments.adaptive_tcp.experiment import DURATION  # noqa: E402
from tcplab.experiments.adaptive_tcp.scenario import VARIANTS, scenario  # noqa: E402
from tcplab.stats import summarise  # noqa: E402

QUEUES = (50, 100, 200, 1000)


def cell(queue: int, window: int | None) -> dict:
    s = scenario(duration=DURATION)
    for w in s["wlans"]:
        w["queue"] = queue
    for link in s["links"]:
        link["queue"]["packets"] = queue
    if window is not None:
        s["tcp"]["rcv_buf"] = f"{window * 1000}B"
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--variants", default="newreno,adaptive")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rows = []
    switches = [(f"queues {q} packets", q, None) for q in QUEUES] + [("queues 50, receiver window 40 packets", 50, 40)]
    for variant in a.variants.split(","):
        for name, q, w in switches:
            good, timeouts, retx = [], [], []
            for seed in range(1, a.seeds + 1):
                over = {f"tcp.{k}": v for k, v in VARIANTS[variant].items()}
                r = tcplab.run(cell(q, w), seed=seed, overrides=over)
                f = r.flows.row(0, named=True)
                good.append(f["goodput_bps"] / 1e6)
                timeouts.append(f["timeouts"])
                retx.append(f["retransmissions"])
            g = summarise(good)
            row = [variant, name, f"{g.mean:.3f} ± {g.ci95:.3f}", f"{sum(retx) / len(retx):.1f}",
                   f"{sum(timeouts) / len(timeouts):.1f}"]
            rows.append(row)
            print(" | ".join(row), flush=True)
    if a.json:
        a.json.write_text(json.dumps({"columns": ["sender", "switch", "goodput (Mb/s)", "retransmissions per run",
                                                  "timeouts per run"], "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
