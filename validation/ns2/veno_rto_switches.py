"""Which sender rule gives tcplab's Veno its timeouts on the 1 % dumbbell where ns-2.35's Agent/TCP/Linux
running tcp_veno has none (docs/validation/baselines.md, "Veno through tcplab validate ns2"): the Linux-like
sender of that comparison, seeds 1-5, and the same with one switch changed at a time. Prints, per setting,
the FH timeouts per run, the retransmissions per run and the goodput (bytes delivered · 8 / duration).

    .venv/bin/python validation/ns2/veno_rto_switches.py [--seeds 5]
"""

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tcplab  # noqa: E402

#: The comparison's sender (`L=...` in docs/validation/baselines.md) and its 1 % random loss.
BASE = {"tcp.cc": "veno", "tcp.variant": "sack", "tcp.timestamps": True, "tcp.rto_rule": "linux",
        "links.bottleneck.loss": {"model": "bernoulli", "p": 0.01, "direction": "a_to_b"}}
SWITCHES = (
    ("as compared (SACK, RFC 6675)", {}),
    ("recovery = rack (finds lost retransmissions)", {"tcp.variant": "rack"}),
    ("recovery = newreno", {"tcp.variant": "newreno"}),
    ("limited_transmit = false", {"tcp.limited_transmit": False}),
    ("dupack_threshold = 2", {"tcp.dupack_threshold": 2}),
    ("dupack_threshold = 4", {"tcp.dupack_threshold": 4}),
    ("initial_ssthresh = 20 segments", {"tcp.initial_ssthresh": "19200B"}),
    ("timestamps = false", {"tcp.timestamps": False}),
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    path = ROOT / "validation" / "ns2" / "dumbbell.toml"
    for label, extra in SWITCHES:
        tos, rtx, good = [], [], []
        for seed in range(1, a.seeds + 1):
            r = tcplab.run(path, seed=seed, overrides=BASE | extra)
            f = r.summary["flows"][0]
            tos.append(f["timeouts"])
            rtx.append(f["retransmissions"])
            good.append(f["bytes_delivered"] * 8 / r.summary["sim_time_s"] / 1e3)
        print(f"{label:48s} RTOs {statistics.mean(tos):5.2f} {tos}  retx {statistics.mean(rtx):6.1f}  "
              f"goodput {statistics.mean(good):7.1f} kb/s")


if __name__ == "__main__":
    main()
