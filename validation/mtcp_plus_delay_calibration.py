"""The rejected calibration of seed 000 (docs/validation/mtcp_plus.md): 802.11b at 11 Mb/s and the wired delay
set so that Table 2's delayed-ACK NewReno download takes 261 s.  Prints, as a Markdown table, the response
time (s; 0 = not completed) of every variant and scenario with delayed ACK on and off, seed 128, one run each
— the table docs/validation/mtcp_plus.md shows.  Run from the repository root::

    .venv/bin/python validation/mtcp_plus_delay_calibration.py [--delay 9.27ms] [--seed 128]
"""

from __future__ import annotations

import argparse

import tcplab
from tcplab.experiments.mtcp_plus import experiment as exp


def response(variant: str, sc: str, delack: bool, delay: str, seed: int) -> float:
    s = exp.scenario(variant, sc)
    s["trace"] = {"series": []}
    r = tcplab.run(s, seed=seed, overrides={"wlans.bss.rate": "11Mbps", "links.ethernet.delay": delay,
                                            exp.DELACK_PATH: delack})
    f = next(x for x in r.summary["flows"] if x["name"] == "ftp")
    return float(f["response_time_s"]) if f["completed"] else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--delay", default="9.27ms", help="one-way FH-IH delay (default: the value that gives 261 s)")
    ap.add_argument("--seed", type=int, default=128)
    a = ap.parse_args()
    print(f"| delayed ACK | scenario | {' | '.join(exp.LABEL[v] for v in exp.VARIANTS)} |")
    print("|---|---|" + "---|" * len(exp.VARIANTS))
    for d in exp.DELACK:
        for sc in exp.SCENARIOS:
            row = [f"{response(v, sc, d, a.delay, a.seed):.1f}" for v in exp.VARIANTS]
            print(f"| {'on' if d else 'off'} | {sc} | {' | '.join(row)} |", flush=True)


if __name__ == "__main__":
    main()
