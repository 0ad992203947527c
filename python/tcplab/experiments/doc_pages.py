"""docs/validation's hand-written pages without hand-typed numbers (issue 39).

A guarded page (``docs/validation/<page>.md`` with a data file ``docs/validation/data/<page>.json``) keeps its prose
by hand, but every measured number in it comes from a committed file:

* A **generated section** lies between ``<!-- generated: KIND | SOURCE | ARG -->`` and ``<!-- /generated -->`` and
  is exactly what :func:`render` writes from SOURCE (a path relative to docs/validation/):

  - ``results | results/<experiment>.tables.json | TITLE`` — the tables of a stored ``tcplab reproduce`` run whose
    title starts with TITLE, rendered by the report's own code (as on the report page);
  - ``side | results/<experiment>.tables.json`` — that run's "ns-2.35, same setup" column
    (:func:`tcplab.experiments.ns2_side.side_markdown`);
  - ``findings | results/<experiment>.tables.json`` — that run's findings, as the report lists them;
  - ``table | data/<page>.json | ID`` — a one-off measurement of the page's data file: its command, date and
    commit, then its table.

* Every **other number of the prose** must be traced: it is a value of the page's data file (a measurement's
  table or ``values``, each measurement naming the command, date and commit it came from, or a ``settings``
  entry naming where that input is set), up to the digits the page prints.  References (RFC 7323, §2.3, Fig. 4,
  Table I, issue 40, 802.11, seeds, dates, commits, code spans) are not quantities and are skipped.

``tests/test_docs_pages.py`` re-renders every generated section and traces every prose number of every guarded
page, and lists the pages not yet guarded.  To regenerate the sections after a new run or measurement:

    .venv/bin/python -m tcplab.experiments.doc_pages --write docs/validation/ack_holding.md ...
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[3] / "docs" / "validation"

#: A generated section; inside a list item its markers and lines carry the item's indent.
BLOCK = re.compile(r"(?P<indent>[ \t]*)<!-- generated: (?P<head>.*?) -->\n(?P<body>.*?)(?P=indent)<!-- /generated -->",
                   re.S | re.M)

#: References, units and names that contain digits but are not quantities (as tests/test_report_prose.py, plus
#: the forms hand-written pages use: issues, sessions, dates, commits, versions, seeds, paths).
_NOT_NUMBERS = re.compile(
    r"(?<![A-Za-z])(RFC|al\.|JCN|Tables?|Figures?|Figs?\.?|§|[Ee]qs?\.|ns-|Section|Algorithm|issues?|stop|sessions?|paper|seeds?|reconstruction|"
    r"check|cause|Linux|pass|case|part|C|S|D|phase|row|rows|IV-[A-C]\.?|Fig\.\s*\d+\([a-z]\)|Jain, Chiu, Hawe)"
    r"\s*[\d.,()–\-]*\d[a-z]?"
    r"|[A-Za-z]+-\d+|\d{4}-\d{2}-\d{2}|\d\d:\d\d|802\.11[a-z]*|\d+\^\d+|core \S+|x\d+(\.\d+)?\s*(?=[−-])|[A-Za-z_]+\d+[A-Za-z\d_]*"
    r"|\b[0-9a-f]{7,40}\b|\d+[a-z_]+\w*|\(\d\)|\((i|ii|iii|iv)\)"
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
_CODE = re.compile(r"```.*?```|`[^`\n]*`|<!--.*?-->|\]\([^)]*\)", re.S)


@dataclasses.dataclass(frozen=True)
class Block:
    kind: str
    source: str
    arg: str
    body: str
    start: int
    end: int
    indent: str = ""


def blocks(text: str) -> list[Block]:
    out = []
    for m in BLOCK.finditer(text):
        parts = [p.strip() for p in m.group("head").split("|")]
        kind, source, arg = (parts + ["", ""])[:3]
        out.append(Block(kind, source, arg, m.group("body"), m.start(), m.end(), m.group("indent")))
    return out


# ----------------------------------------------------------------------------------------------- rendering


def _run(source: Path) -> tuple[dict, list[Any]]:
    from tcplab.experiments.base import TableCell

    doc = json.loads(source.read_text())
    keep = {f.name for f in dataclasses.fields(TableCell)}
    return doc, [TableCell(**{k: v for k, v in c.items() if k in keep}) for c in doc["cells"]]


def _results(source: Path, title: str) -> str:
    from tcplab.experiments import all_experiments
    from tcplab.report import _table_blocks, to_markdown

    doc, cells = _run(source)
    exp = all_experiments()[doc["experiment"]]
    chosen = [c for c in cells if c.table.startswith(title)]
    if not chosen:
        raise ValueError(f"{source.name}: no table starts with {title!r}")
    mode = "quick" if doc["quick"] else "full"
    body = to_markdown(_table_blocks(chosen, bool(getattr(exp, "SIDE_BY_SIDE", False))))
    # The report's headings become bold lines here (the page's own headings stay the page's).
    body = re.sub(r"^## (.*)$", r"**\1**", body, flags=re.M)
    return f"From `{source.relative_to(DOCS)}` ({mode} mode, core `{doc['version']}`):\n\n{body}\n"


def _side(source: Path) -> str:
    from tcplab.experiments.ns2_side import side_markdown

    doc, cells = _run(source)
    mode = "quick" if doc["quick"] else "full"
    return (f"From `{source.relative_to(DOCS)}` ({mode} mode, core `{doc['version']}`):\n\n"
            f"{side_markdown(cells, doc['findings'])}\n")


def _findings(source: Path) -> str:
    from tcplab.experiments.base import Finding
    from tcplab.report import _finding_line, _md_inline

    doc = json.loads(source.read_text())
    mode = "quick" if doc["quick"] else "full"
    lines = [f"- {_md_inline(_finding_line(Finding(**f)))}" for f in doc["findings"]]
    return f"From `{source.relative_to(DOCS)}` ({mode} mode, core `{doc['version']}`):\n\n" + "\n".join(lines) + "\n"


def _table(source: Path, ident: str) -> str:
    m = json.loads(source.read_text())["measurements"][ident]
    head = f"Measured: `{m['command']}` ({m['date']}, {m['commit']})."
    if m.get("note"):
        head += f" {m['note']}"
    if "columns" not in m:
        raise ValueError(f"{source.name}#{ident}: a measurement without columns has no table to render")
    lines = ["| " + " | ".join(m["columns"]) + " |", "|" + "---|" * len(m["columns"])]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in m["rows"]]
    return head + "\n\n" + "\n".join(lines) + "\n"


RENDERERS = {"results": _results, "side": _side, "findings": _findings, "table": _table}


def render(kind: str, source: str, arg: str = "") -> str:
    if kind not in RENDERERS:
        raise ValueError(f"generated section kind {kind!r}: expected one of {sorted(RENDERERS)}")
    path = DOCS / source
    return RENDERERS[kind](path, arg) if kind in ("results", "table") else RENDERERS[kind](path)


def _indented(text: str, indent: str) -> str:
    return "".join(indent + ln if ln.strip() else ln for ln in text.splitlines(keepends=True))


def refreshed(text: str) -> str:
    """``text`` with every generated section rendered again."""
    out, at = [], 0
    for b in blocks(text):
        out.append(text[at:b.start])
        sep = " | ".join(x for x in (b.kind, b.source, b.arg) if x)
        body = _indented(render(b.kind, b.source, b.arg), b.indent)
        out.append(f"{b.indent}<!-- generated: {sep} -->\n{body}{b.indent}<!-- /generated -->")
        at = b.end
    return "".join(out) + text[at:]


def stale_sections(text: str) -> list[str]:
    """The generated sections whose text is not what their source renders (edited by hand, or left behind)."""
    return [f"{b.kind} | {b.source} | {b.arg}" for b in blocks(text)
            if b.body != _indented(render(b.kind, b.source, b.arg), b.indent)]


# ------------------------------------------------------------------------------------------- traced numbers


def prose(text: str) -> str:
    """The page without its generated sections, code, comments and link targets."""
    return _CODE.sub(" ", BLOCK.sub(" ", text))


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(_NOT_NUMBERS.sub(" ", text.replace("\u202f", " ")))


def _values(x: Any) -> Iterator[float | str]:
    if isinstance(x, bool):
        return
    if isinstance(x, (int, float)):
        yield float(x)
    elif isinstance(x, str):
        yield from numbers(x)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _values(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _values(v)


def data_values(data: dict, section: str | None = None) -> tuple[set[str], list[float]]:
    """The numbers a page's section may quote: the values of the data file's entries for that section (an entry's
    ``section`` is the start of the heading it belongs under) and of the entries for no section in particular, as
    printed (strings) and as values (floats).  ``section=None``: every entry."""
    strings, floats = set(), []
    entries = [*data.get("measurements", {}).values(), *data.get("settings", {}).values()]
    for e in entries:
        if section is not None and e.get("section") and not section.startswith(e["section"]):
            continue
        for v in _values({k: x for k, x in e.items() if k != "section"}):
            if isinstance(v, str):
                strings.add(v)
                floats.append(float(v))
            else:
                floats.append(v)
    return strings, floats


def _traced(token: str, strings: set[str], floats: Iterable[float]) -> bool:
    if token in strings:
        return True
    digits = len(token.split(".")[1]) if "." in token and "e" not in token else 0
    x = float(token)
    return any(abs(round(v, digits) - x) < 10 ** -(digits + 3) for v in floats)


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, text) of each part of a page, split at its headings (the part before the first: heading "")."""
    parts = re.split(r"\n(?=#{1,6} )", text)
    return [(p.splitlines()[0] if p.startswith("#") else "", p) for p in parts]


def untraced(text: str, data: dict) -> list[str]:
    """The numbers of the page's prose that are no value of its data file's entries for their section."""
    out = []
    for heading, part in sections(text):
        strings, floats = data_values(data, heading)
        out += [f"{t} (under {heading or 'the title'!r})" for t in numbers(prose(part))
                if not _traced(t, strings, floats)]
    return out


def data_of(page: Path) -> Path:
    return page.parent / "data" / f"{page.stem}.json"


def problems(page: Path) -> list[str]:
    """Everything that makes a guarded page's numbers untraceable (empty: the page is what its data says)."""
    text = page.read_text()
    data = json.loads(data_of(page).read_text())
    out = [f"generated section not what its source renders: {s}" for s in stale_sections(text)]
    for ident, m in data.get("measurements", {}).items():
        missing = [k for k in ("command", "date", "commit") if not m.get(k)]
        if missing:
            out.append(f"measurement {ident}: no {', '.join(missing)} (where its numbers came from)")
    for name, s in data.get("settings", {}).items():
        if not s.get("from"):
            out.append(f"setting {name}: no 'from' (where the input is set)")
    out += [f"number not in {data_of(page).name}: {t}" for t in untraced(text, data)]
    out += [f"{ident}: {v} is no longer quoted under {head!r} (stale)" for ident, head, v in unquoted(text, data)]
    return out


def unquoted(text: str, data: dict) -> list[tuple[str, str, str]]:
    """The prose values of the data file (an entry's ``values``) that their section no longer quotes."""
    parts = sections(text)
    out = []
    for kind in ("measurements", "settings"):
        for ident, e in data.get(kind, {}).items():
            if not e.get("values") or not e.get("section"):
                continue
            # Every part under a heading that starts so (a page may repeat a heading, e.g. "### Tests added").
            part = "\n".join(p for h, p in parts if h.startswith(e["section"]))
            quoted = set(numbers(prose(part)))
            out += [(ident, e["section"], v) for v in e["values"].split() if v not in quoted]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="+", type=Path)
    ap.add_argument("--write", action="store_true", help="render the generated sections again into the pages")
    a = ap.parse_args(argv)
    rc = 0
    for page in a.pages:
        if not page.is_file():
            print(f"error: {page}: no such page", file=sys.stderr)
            return 2
        if a.write:
            page.write_text(refreshed(page.read_text()))
        if data_of(page).is_file():
            for p in problems(page):
                print(f"{page}: {p}")
                rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
