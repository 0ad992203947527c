#!/usr/bin/env python3
"""tcplab against ns-2.35 (Debian's ``ns``), whole processes, on the networks of issue 35.

    python3 benches/peers/run_ns2.py [--pairs 5] [--only NAME ...] [--no-write]

Each network runs as ``ns benches/peers/ns2/<script>.tcl …`` and as ``tcplab run <scenario> --json``
(scenarios in examples/ and benches/peers/scenarios/, built to match the Tcl scripts: same nodes,
positions, movement, radio, queue, TCP and flows; see each file's header), alternately, ``pairs``
times; the medians, ratios and peak memory go into docs/validation/performance.md between the
``bench-peers:ns2`` markers.  ``make bench-peers`` runs it (not part of ``make test``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, TCPLAB, Network, load_note, table, write_section  # noqa: E402

NS2 = ROOT / "benches" / "peers" / "ns2"
SCN = ROOT / "benches" / "peers" / "scenarios"

# The grid's flows, as ns-2 node indices (row r, column c = r * 7 + c): rows 3, 1, 5 west to east,
# columns 3, 1, 5 north to south, flow j from j s (benches/peers/scenarios/grid7.toml).
GRID_FLOWS = "21:27:0,3:45:1,7:13:2,1:43:3,35:41:4,5:47:5"
MOBILE = f"file:50:1500:300:{NS2 / 'mobile50.ns_movements'}"
MOBILE_FLOWS = "0:10:1,1:11:2,2:12:3"


def networks() -> list[Network]:
    ns = shutil.which("ns") or "ns"
    adhoc, wlan = str(NS2 / "adhoc.tcl"), str(NS2 / "wlan.tcl")
    run = [str(TCPLAB), "run"]
    # Cheapest first, so that a run cut short still has most rows.
    nets = [
        Network("7-hop AODV string, NewReno, 600 s", [ns, adhoc, "AODV", "600", "string:7", "0:7:0"],
                [*run, "examples/adhoc_string.toml", "--json"]),
        Network("saturated 10-station WLAN, 60 s", [ns, wlan, "saturation", "60"],
                [*run, "examples/wlan_saturation.toml", "--json"]),
        Network("single AP, FER 1 %, 500 s", [ns, wlan, "fer", "500"],
                [*run, str(SCN / "wlan_fer.toml"), "--json"]),
        Network("802.11b download, 100 MB", [ns, wlan, "download", "100000000"],
                [*run, str(SCN / "wlan_download_ap.toml"), "--json"]),
    ]
    for rp in ("DSDV", "AODV", "DSR"):
        nets.append(Network(
            f"50 nodes, setdest, 3 flows, 300 s, {rp}", [ns, adhoc, rp, "300", MOBILE, MOBILE_FLOWS],
            [*run, str(SCN / "mobile50.toml"), "--json", "--set", f"wlans.manet.routing.protocol={rp.lower()}"]))
    nets.append(Network("7×7 grid, 6 flows, AODV, 600 s", [ns, adhoc, "AODV", "600", "grid:7", GRID_FLOWS],
                        [*run, str(SCN / "grid7.toml"), "--json"]))
    return nets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--only", nargs="*", help="networks whose name contains one of these")
    ap.add_argument("--no-write", action="store_true", help="print the table, do not edit performance.md")
    args = ap.parse_args()
    if shutil.which("ns") is None:
        print("ns (ns-2.35) not found: apt-get install ns2", file=sys.stderr)
        return 2
    nets = [n for n in networks() if not args.only or any(o in n.name for o in args.only)]
    load0 = load_note()
    done: list[Network] = []
    for n in nets:  # the table is rewritten after each network, so an interrupted run keeps its part
        n.run_pairs(args.pairs)
        done.append(n)
        body = (
            f"`python3 benches/peers/run_ns2.py --pairs {args.pairs}` (`make bench-peers`): ns-2.35 (Debian's "
            f"`ns`) and `tcplab run … --json`, whole processes, alternating, {args.pairs} pairs per network; "
            f"medians (peak RSS: the largest); load average {load0} at the start, {load_note()} after the "
            f"last network.\n\n" + table("ns-2.35", done)
        )
        if not args.no_write:
            write_section("ns2", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
