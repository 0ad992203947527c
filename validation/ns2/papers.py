"""Markdown for docs/validation/ from the reports of the ns-2 papers' reproductions (001 ack-holding,
002 tcp-pgy, 004 adaptive-tcp), generated from their ``tables.json`` rather than typed by hand.

    # published | tcplab | ns-2.35 of one experiment (its "ns-2.35, same setup" column):
    .venv/bin/python validation/ns2/papers.py side REPORT/tcp-pgy/tables.json
    # how a table moved between two reports (e.g. before / after a settings change):
    .venv/bin/python validation/ns2/papers.py moved BEFORE/tcp-pgy/tables.json AFTER/tcp-pgy/tables.json

``side`` prints the side-by-side table, the papers' numbers ns-2.35 does not give, and each finding
decided on both simulators; ``moved`` prints every tcplab cell present in both reports whose mean or
interval differs, with both values and the change in %, and the findings whose verdict changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tcplab.experiments import ns2_side  # noqa: E402
from tcplab.experiments.base import TableCell  # noqa: E402


def _cells(path: Path) -> tuple[list[TableCell], list[dict]]:
    doc = json.loads(path.read_text())
    keep = {f for f in TableCell.__dataclass_fields__}
    return [TableCell(**{k: v for k, v in c.items() if k in keep}) for c in doc["cells"]], doc["findings"]


def _short(table: str) -> str:
    """A table's title without its parentheses, cut at 60 characters."""
    t = table.split(" (")[0]
    return t if len(t) <= 60 else t[:59] + "…"


def _pm(c: TableCell) -> str:
    if c.mean is None:
        return "–"
    return f"{c.mean:.4g}" if c.ci95 is None else f"{c.mean:.4g} ± {c.ci95:.2g}"


def side(path: Path) -> str:
    cells, findings = _cells(path)
    return ns2_side.side_markdown(cells, findings)


def moved(before: Path, after: Path) -> str:
    a, fa = _cells(before)
    b, fb = _cells(after)
    old = {(c.table, c.row, c.column): c for c in a if not ns2_side.is_ns2(c)}
    out = ["| table | row | column | before | after | change of the mean |", "|---|---|---|---|---|---|"]
    same = 0
    for c in b:
        k = (c.table, c.row, c.column)
        o = old.get(k)
        if o is None or ns2_side.is_ns2(c):
            continue
        if (o.mean, o.ci95) == (c.mean, c.ci95):
            same += 1
            continue
        change = "–" if not o.mean or c.mean is None else f"{100 * (c.mean - o.mean) / abs(o.mean):+.1f} %"
        out.append(f"| {_short(c.table)} | {c.row} | {c.column} | {_pm(o)} | {_pm(c)} | {change} |")
    out += ["", f"{same} cells unchanged; cells only in the later report (new tables, the ns-2.35 column) are not listed."]
    va = {f["text"]: f["verdict"] for f in fa}
    flips = [f"{f['text']}: {va[f['text']]} → {f['verdict']}" for f in fb
             if f["text"] in va and va[f["text"]] != f["verdict"]]
    out += ["", "Findings whose verdict changed: " + ("; ".join(flips) if flips else "none") + "."]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "side":
        print(side(Path(argv[1])))
        return 0
    if len(argv) == 3 and argv[0] == "moved":
        print(moved(Path(argv[1]), Path(argv[2])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
