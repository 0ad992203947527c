#!/usr/bin/env python3
"""Digests of run summaries, to show that a core change leaves every result as it was.

    python3 benches/check_identical.py target/release/examples/run > after.txt
    python3 benches/check_identical.py /tmp/base/run > before.txt
    diff before.txt after.txt

Runs the core's `run` example (no Python module needed) on every `examples/*.toml` with seeds
1-3 and on the `benches/peers/scenarios` networks (some shortened with `duration=`), and prints
one line per run: the sha256 of its summary as sorted-key JSON with `events` and `wall_time_s`
removed (the only fields a speed change may move), then the event count on its own column, and
a last line with the digest of all lines' summary digests. Summaries must be equal line by line;
event counts may differ only where events were merged.
"""

import hashlib
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCEN = ROOT / "benches" / "peers" / "scenarios"

# (label, scenario file, seed, overrides, working directory)
CASES = []
for f in sorted((ROOT / "examples").glob("*.toml")):
    for seed in (1, 2, 3):
        CASES.append((f.name, f, seed, [], ROOT))
for seed in (1, 2, 3):
    CASES.append(("grid7 100s", SCEN / "grid7.toml", seed, ["duration=100s"], SCEN))
    CASES.append(("wlan_fer 100s", SCEN / "wlan_fer.toml", seed, ["duration=100s"], SCEN))
    CASES.append(("wlan_download_ap", SCEN / "wlan_download_ap.toml", seed, [], SCEN))
CASES.append(("adhoc100 60s", SCEN / "adhoc100.toml", 1, ["duration=60s"], SCEN))
CASES.append(("adhoc1000 10s", SCEN / "adhoc1000.toml", 1, ["duration=10s"], SCEN))
for proto in ("aodv", "dsr", "dsdv"):
    CASES.append(
        (
            f"mobile50 {proto} 100s",
            SCEN / "mobile50.toml",
            1,
            ["duration=100s", f"wlans.manet.routing.protocol={proto}"],
            SCEN,
        )
    )


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = pathlib.Path(sys.argv[1]).resolve()
    total = hashlib.sha256()
    for label, path, seed, sets, cwd in CASES:
        out = subprocess.run(
            [str(binary), str(path), str(seed), *sets],
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            print(f"{label} seed {seed}: exit {out.returncode}: {out.stderr.strip()}")
            total.update(b"error")
            continue
        summary = json.loads(out.stdout)
        events = summary.pop("events", None)
        summary.pop("wall_time_s", None)
        digest = hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()
        total.update(digest.encode())
        print(f"{label:24} seed {seed}  {digest[:16]}  events {events}", flush=True)
    print(f"all {len(CASES)} runs  {total.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
