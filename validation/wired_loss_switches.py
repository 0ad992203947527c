"""Switches behind the wired-loss deviations from the Mathis et al. model (issue 39): the experiment's own
scenario, one setting changed at a time, goodput against the model.

    .venv/bin/python validation/wired_loss_switches.py [--seeds 10] [--duration 120] [--json OUT]

Candidates: delayed ACKs (the model's sqrt(3/2) is for an ACK per segment; with an ACK per two segments Mathis et
al. give sqrt(3/4)), the cost of a timeout (rto_min 1 s vs ns-2/Linux's 0.2 s), and both.  Prints mean ± 95 % CI of
goodput (Mb/s) and its difference from the model (%) per switch, variant and p.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import tcplab  # noqa: E402
from tcplab.experiments.wired_loss.experiment import LOSS_PATH, PUBLISHED, scenario  # noqa: E402
from tcplab.stats import summarise  # noqa: E402

SWITCHES = {
    "as the experiment": {},
    "delayed_ack = false": {"tcp.delayed_ack": False},
    "rto_min = 0.2s": {"tcp.rto_min": "0.2s"},
    "both": {"tcp.delayed_ack": False, "tcp.rto_min": "0.2s"},
}
LOSSES = (0.005, 0.01, 0.02, 0.05)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=int, default=120)
    ap.add_argument("--variants", default="reno,newreno,sack")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rows = []
    for variant in a.variants.split(","):
        for p in LOSSES:
            for name, over in SWITCHES.items():
                vals = []
                for seed in range(1, a.seeds + 1):
                    s = scenario(a.duration)
                    r = tcplab.run(s, seed=seed, overrides={LOSS_PATH: p, "tcp.variant": variant, **over})
                    vals.append(r.flows.row(0, named=True)["goodput_bps"] / 1e6)
                sm = summarise(vals)
                model = PUBLISHED[p].value
                row = [variant, f"{p:g}", name, f"{sm.mean:.3f} ± {sm.ci95:.3f}", f"{100 * (sm.mean - model) / model:+.1f}"]
                rows.append(row)
                print(" | ".join(row), flush=True)
    if a.json:
        a.json.write_text(json.dumps({"columns": ["variant", "p", "switch", "goodput (Mb/s)", "vs model (%)"],
                                      "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
