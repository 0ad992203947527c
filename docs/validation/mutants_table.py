"""Rewrites the per-module table of docs/validation/mutants.md from a cargo-mutants run.

Usage: python mutants_table.py OUTCOMES_JSON REPORT_MD

The table sits between the two marker lines below in the report; the rest of the report (the
missed mutants and why each is equivalent) is written by hand and left untouched.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

BEGIN = "<!-- mutants-table:begin -->"
END = "<!-- mutants-table:end -->"
# cargo-mutants' outcome names and the columns they count in.
COLUMNS = {"CaughtMutant": "caught", "MissedMutant": "missed", "Timeout": "timeout", "Unviable": "unviable"}


def module(path: str) -> str:
    """crates/tcplab-core/src/wifi/mac.rs -> wifi/"""
    rest = path.split("/src/", 1)[-1]
    return rest.split("/", 1)[0] + "/" if "/" in rest else rest


def table(outcomes: dict) -> str:
    counts: dict[str, Counter[str]] = {}
    for o in outcomes["outcomes"]:
        scenario = o["scenario"]
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue  # the baseline
        col = COLUMNS.get(o["summary"], o["summary"])
        counts.setdefault(module(scenario["Mutant"]["file"]), Counter())[col] += 1
    lines = [
        "| module | viable | caught | missed | timeout | caught % |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in sorted(counts):
        c = counts[name]
        viable = c["caught"] + c["missed"] + c["timeout"]
        pct = f"{100 * (c['caught'] + c['timeout']) / viable:.1f}" if viable else "-"
        lines.append(f"| {name} | {viable} | {c['caught']} | {c['missed']} | {c['timeout']} | {pct} |")
    return "\n".join(lines)


def main(outcomes_path: str, report_path: str) -> None:
    report = Path(report_path)
    text = report.read_text()
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        sys.exit(f"{report_path}: the markers {BEGIN} and {END} are missing")
    new = table(json.loads(Path(outcomes_path).read_text()))
    report.write_text(f"{head}{BEGIN}\n{new}\n{END}{tail}")
    print(new)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
