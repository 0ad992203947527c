"""Rewrites the per-module table of docs/validation/mutants.md from cargo-mutants runs.

Usage:
  python mutants_table.py OUTCOMES_JSON [OUTCOMES_JSON ...] REPORT_MD
      One table from the given runs (the `make mutants` case: one full run).
  python mutants_table.py --ledger LEDGER_JSON REPORT_MD
      One table from every run recorded in LEDGER_JSON (docs/validation/mutants_runs.json), which
      keeps each partial run's per-file counts, the commit it ran on, and what became of each
      missed mutant; the runs' own outcomes.json files live in target/ and do not last.
  python mutants_table.py --summarize OUTCOMES_JSON [VERIFY_OUTCOMES_JSON ...]
      Prints one run's per-file counts as ledger entries (JSON); a later run of the same mutants
      (a verification after new tests) marks the missed ones it caught as killed.

A mutant counted in several runs is counted once, from its first run ("missed before"); its
fate after the tests written for it is the ledger's `after` (or a verifying run's outcome).
A run whose files were later run again whole, on code that had changed since, carries
`superseded_by` (the later run) and is left out of the table, so no mutant counts twice; so is
a run that `verifies` lines another run counts (an `--in-diff` check of code changed since).
"Missed after" includes the mutants shown equivalent: cargo-mutants cannot tell them apart
from a missing test, and the percentage is the share of viable mutants a test catches.

The table sits between the two marker lines below in the report; the rest of the report (the
missed mutants and why each is equivalent) is written by hand and left untouched.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

BEGIN = "<!-- mutants-table:begin -->"
END = "<!-- mutants-table:end -->"
# cargo-mutants' outcome names and the columns they count in.
COLUMNS = {"CaughtMutant": "caught", "MissedMutant": "missed", "Timeout": "timeout", "Unviable": "unviable"}
# The protocol core issue 20 asks about; other modules are reported if a run covered them.
CORE = ("tcp/", "wifi/", "agents/", "link/", "sim/")
# A missed mutant's fate: killed by a test checked to fail with it, equivalent, a test written for
# it but never run against it ("unconfirmed"), or still open.
FATES = ("killed", "equivalent", "unconfirmed", "open")
# The ledger columns summed per module.
SUMMED = ("mutants", "viable", "caught", "missed", "after", "equivalent", "unconfirmed")


def src_path(path: str) -> str:
    """crates/tcplab-core/src/wifi/mac.rs -> wifi/mac.rs"""
    return path.split("/src/", 1)[-1]


def module(path: str) -> str:
    """crates/tcplab-core/src/wifi/mac.rs -> wifi/"""
    rest = src_path(path)
    return rest.split("/", 1)[0] + "/" if "/" in rest else rest


def mutants(outcomes: dict) -> dict[str, tuple[str, str]]:
    """Mutant name -> (file under src/, column) for every mutant of one run (not the baseline)."""
    out = {}
    for o in outcomes["outcomes"]:
        scenario = o["scenario"]
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue
        m = scenario["Mutant"]
        out[m["name"]] = (src_path(m["file"]), COLUMNS.get(o["summary"], o["summary"]))
    return out


def summarize(first: dict, verifying: list[dict]) -> dict[str, dict]:
    """Per-file ledger counts of a run; `after` from the verifying runs where they reran a miss."""
    later: dict[str, str] = {}
    for v in verifying:
        later.update({name: col for name, (_, col) in mutants(v).items()})
    files: dict[str, dict] = {}
    for name, (path, col) in mutants(first).items():
        f = files.setdefault(path, {"mutants": 0, "unviable": 0, "caught": 0, "timeout": 0, "missed": {}})
        f["mutants"] += 1
        if col == "missed":
            again = later.get(name)
            f["missed"][name.split("/src/", 1)[-1]] = "killed" if again in ("caught", "timeout") else "open"
        else:
            f[col] += 1
    return files


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def code_changed(path: str, commit: str) -> bool:
    """Whether `path`'s code outside its `mod tests` changed between `commit` and HEAD."""
    full = f"crates/tcplab-core/src/{path}"
    try:
        old = git("show", f"{commit}:{full}")
        diff = git("diff", "-U0", commit, "HEAD", "--", full)
    except (subprocess.CalledProcessError, FileNotFoundError):
        return True  # the file did not exist then (moved or split since)
    lines = old.splitlines()
    starts = (i + 1 for i, ln in enumerate(lines) if ln.startswith("mod tests") and "cfg(test)" in lines[i - 1])
    tests = next(starts, len(lines) + 1)
    return any(int(m.group(1)) < tests for m in re.finditer(r"^@@ -(\d+)", diff, re.M))


def ledger_rows(ledger: dict) -> list[dict]:
    """One row per (run, file), each mutant counted in its first run only."""
    rows = []
    for run in ledger["runs"]:
        if run.get("superseded_by") or run.get("verifies"):
            # Its files were run again whole on newer code, or it re-ran lines an earlier run
            # counts (a check of changed code): counting both would count those mutants twice.
            continue
        for path, f in run["files"].items():
            missed = f["missed"]
            if isinstance(missed, dict):
                fates = Counter(missed.values())
                bad = set(fates) - set(FATES)
                if bad:
                    sys.exit(f"{run['run']} {path}: unknown fate {bad}; use one of {FATES}")
                n_missed = len(missed)
            else:  # an early run recorded as counts only
                fates = Counter({k: f["after"][k] for k in FATES if k in f["after"]})
                n_missed = missed
            rows.append(
                {
                    "run": run["run"],
                    "commit": run["commit"],
                    "file": path,
                    "mutants": f["mutants"],
                    "viable": f["caught"] + f["timeout"] + n_missed,
                    "caught": f["caught"] + f["timeout"],
                    "missed": n_missed,
                    "after": fates["open"] + fates["equivalent"] + fates["unconfirmed"],
                    "equivalent": fates["equivalent"],
                    "unconfirmed": fates["unconfirmed"],
                    "changed": code_changed(path, run["commit"]),
                }
            )
    return rows


def ledger_table(ledger: dict, listed: dict[str, int] | None) -> str:
    rows = ledger_rows(ledger)
    by_module: dict[str, Counter] = {}
    files: dict[str, set] = {}
    for r in rows:
        m = module(r["file"])
        by_module.setdefault(m, Counter()).update({k: r[k] for k in SUMMED})
        files.setdefault(m, set()).add(r["file"] + (" (code changed since)" if r["changed"] else ""))
    lines = [
        "| module | viable | caught before | missed before | missed after (equivalent, unconfirmed) "
        "| caught % before → after | mutants run / in the module now | files run |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name in sorted(set(by_module) | set(CORE)):
        c = by_module.get(name, Counter())
        v = c["viable"]
        pct = f"{100 * c['caught'] / v:.1f} → {100 * (v - c['after']) / v:.1f}" if v else "-"
        total = f"{c['mutants']} / {listed.get(name, 0)}" if listed else str(c["mutants"])
        run = ", ".join(sorted(files.get(name, []))) or "none"
        lines.append(
            f"| {name} | {v} | {c['caught']} | {c['missed']} "
            f"| {c['after']} ({c['equivalent']}, {c['unconfirmed']}) | {pct} | {total} | {run} |"
        )
    lines += [
        "",
        "| run | commit | file | viable | caught | missed before | missed after |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        flag = " (code changed since)" if r["changed"] else ""
        lines.append(
            f"| {r['run']} | {r['commit']} | {r['file']}{flag} "
            f"| {r['viable']} | {r['caught']} | {r['missed']} | {r['after']} |"
        )
    return "\n".join(lines)


def table(runs: list[dict]) -> str:
    """The table of one or more complete outcomes.json files (a mutant's first run counts)."""
    seen: dict[str, tuple[str, str]] = {}
    for outcomes in runs:
        for name, v in mutants(outcomes).items():
            seen.setdefault(name, v)
    counts: dict[str, Counter[str]] = {}
    for path, col in seen.values():
        counts.setdefault(module(path), Counter())[col] += 1
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


def listed_per_module() -> dict[str, int] | None:
    """Mutants cargo-mutants would make in each module today (`cargo mutants --list`, no build)."""
    try:
        listed = ["cargo", "mutants", "-p", "tcplab-core", "--list", "--json"]
        out = subprocess.run(listed, capture_output=True, text=True, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    return dict(Counter(module(m["file"]) for m in json.loads(out)))


def write(report_path: str, new: str) -> None:
    report = Path(report_path)
    text = report.read_text()
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        sys.exit(f"{report_path}: the markers {BEGIN} and {END} are missing")
    report.write_text(f"{head}{BEGIN}\n{new}\n{END}{tail}")
    print(new)


def main(args: list[str]) -> None:
    if len(args) >= 2 and args[0] == "--summarize":
        first, *verifying = (json.loads(Path(p).read_text()) for p in args[1:])
        print(json.dumps(summarize(first, verifying), indent=2))
    elif len(args) == 3 and args[0] == "--ledger":
        write(args[2], ledger_table(json.loads(Path(args[1]).read_text()), listed_per_module()))
    elif len(args) >= 2 and not args[0].startswith("--"):
        write(args[-1], table([json.loads(Path(p).read_text()) for p in args[:-1]]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
