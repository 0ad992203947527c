"""Reno, Reno + Snoop and Reno split by I-TCP on the wired–BS–802.11 network of
examples/snoop.toml, with errors on what the mobile receives (docs/validation/baselines.md).

For each error rate and seed the runs share the scenario and the seed; prints the mean goodput
(Mb/s) with a Student-t 95 % CI over the seeds, the mean number of the FH's retransmissions and
timeouts, Snoop's local retransmissions and I-TCP's largest count of bytes acknowledged to the FH
but not delivered.

    .venv/bin/python validation/baselines_wlan.py [--seeds 5] [--loss-at packets|frames]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tomllib
from pathlib import Path

import tcplab
from tcplab.stats import summarise

ROOT = Path(__file__).resolve().parents[1]


def ci(xs: list[float]) -> str:
    """Mean ± Student-t 95 % CI half-width (the mean alone for one seed)."""
    s = summarise(xs)
    return f"{s.mean:.3f}" if s.n < 2 else f"{s.mean:.3f} ± {s.ci95:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--loss-at", default="packets", choices=["packets", "frames"])
    a = ap.parse_args()
    base = tomllib.loads((ROOT / "examples" / "snoop.toml").read_text())
    base["wlans"][0]["stations"][1]["loss_at"] = a.loss_at
    print(f"loss_at = {a.loss_at}, {a.seeds} seeds, {base['duration']} per run")
    print(
        "| FER | Reno Mb/s | Reno+Snoop Mb/s | I-TCP Mb/s | FH retx / RTOs: Reno, Snoop, I-TCP "
        "| Snoop local retx | I-TCP acked, not delivered (max, kB) |"
    )
    print("|---|---|---|---|---|---|---|")
    for fer in (0.0, 0.01, 0.02, 0.05, 0.10):
        rows = {}
        for agent in (None, "snoop", "itcp"):
            sc = {k: v for k, v in base.items() if k != "agents"}
            if agent:
                sc["agents"] = [dict(kind=agent, node="bs", mobile="mh")]
            sc["wlans"] = [dict(base["wlans"][0])]
            sc["wlans"][0]["stations"] = [dict(s) for s in base["wlans"][0]["stations"]]
            sc["wlans"][0]["stations"][1]["loss"] = dict(
                model="bernoulli", p=fer, direction="b_to_a"
            )
            good, retx, rtos, extra = [], [], [], []
            for seed in range(1, a.seeds + 1):
                r = tcplab.run(sc, seed=seed)
                f = r.summary["flows"][0]
                good.append(f["goodput_bps"] / 1e6)
                retx.append(f["retransmissions"])
                rtos.append(f["timeouts"])
                if agent == "snoop":
                    st = r.summary["agents"][0]["stats"]
                    extra.append(st["local_retransmits_dupack"] + st["local_retransmits_timeout"])
                elif agent == "itcp":
                    extra.append(r.summary["agents"][0]["stats"]["acked_not_delivered_max"] / 1e3)
            rows[agent] = (good, retx, rtos, extra)
        m = statistics.mean
        fh = ", ".join(f"{m(rows[k][1]):.0f} / {m(rows[k][2]):.1f}" for k in (None, "snoop", "itcp"))
        print(
            f"| {fer:.0%} | {ci(rows[None][0])} | {ci(rows['snoop'][0])} | {ci(rows['itcp'][0])} "
            f"| {fh} | {m(rows['snoop'][3]):.0f} | {m(rows['itcp'][3]):.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
