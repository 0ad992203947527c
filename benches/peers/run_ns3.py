#!/usr/bin/env python3
"""tcplab against ns-3 3.44 (Python bindings), whole processes, on the networks of issue 35.

    python3 benches/peers/run_ns3.py --python /path/to/ns3venv/bin/python [--pairs 5] [--no-write]

ns-3 is not a dependency: install it in a throw-away virtualenv outside the repository
(``python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3==3.44.post0``, ~350 MB) and
pass its interpreter.  Networks: the 802.11b 100 MB download (benches/peers/ns3/wlan_download.py,
the project's ns-3 script of examples/wlan_download.toml) and the 7-hop AODV string
(validation/ns3/adhoc_string.py, examples/adhoc_string.toml).  Each script runs from its own
folder (the ns3 wheel refuses to start if the working directory holds a second ns-3 build).
Medians, ratios and peak memory go into docs/validation/performance.md between the
``bench-peers:ns3`` markers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, TCPLAB, Network, load_note, table, write_section  # noqa: E402


def networks(python: str) -> list[Network]:
    run = [str(TCPLAB), "run"]
    ns3_here = ROOT / "benches" / "peers" / "ns3"
    ns3_val = ROOT / "validation" / "ns3"
    return [
        Network("802.11b download, 100 MB", [python, "wlan_download.py", "--bytes", "100000000", "--delack", "2"],
                [*run, "examples/wlan_download.toml", "--json", "--set", "flows.download.size=100MB"],
                peer_cwd=ns3_here),
        Network("7-hop AODV string, NewReno, 600 s", [python, "adhoc_string.py", "--seed", "1", "--aodv", "ns2"],
                [*run, "examples/adhoc_string.toml", "--json"], peer_cwd=ns3_val),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="the interpreter of a virtualenv with ns3==3.44.post0")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    nets = networks(args.python)
    load0 = load_note()
    # validation/ns3/adhoc_string.py appends each run's RESULT line to the validation data beside
    # it (results/adhoc_string.jsonl, summarised in docs/validation/adhoc.md): keep that file as it was.
    kept = ROOT / "validation" / "ns3" / "results" / "adhoc_string.jsonl"
    before = kept.read_bytes() if kept.exists() else None
    try:
        for n in nets:
            n.run_pairs(args.pairs)
    finally:
        if before is not None:
            kept.write_bytes(before)
    body = (
        f"`python3 benches/peers/run_ns3.py --pairs {args.pairs}`: ns-3 3.44 (Python bindings, cppyy start-up "
        f"included) and `tcplab run … --json`, whole processes, alternating, {args.pairs} pairs; medians "
        f"(peak RSS: the largest); load average {load0} at the start, {load_note()} at the end.\n\n"
        + table("ns-3.44", nets)
    )
    print(body)
    if not args.no_write:
        write_section("ns3", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
