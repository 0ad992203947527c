"""The reproduction report: for each experiment, tables with published vs. our numbers, findings
and figures, as Markdown and as self-contained HTML.

Layout written under the output folder::

    index.md / index.html                 overview: every experiment, findings that hold, failures
    <name>/index.md / index.html          tables, findings, figures, failed runs
    <name>/tables.json                    every table cell and finding, for machine checking
    <name>/*.png                          figures

Both formats are rendered from one small document model (headings, paragraphs, tables, images,
lists) so they cannot drift apart, and the HTML needs no Markdown library or external assets.
"""

from __future__ import annotations

import html
import json
import math
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from types import ModuleType

from tcplab import _core
from tcplab._fs import OutputError, check_out, inside, publish, staging_dir, write_text
from tcplab.experiments import all_experiments
from tcplab.experiments.base import Claim, Finding, TableCell, claim_verdict
from tcplab.runner import SweepReport, run_sweep
from tcplab.stats import NOT_CHECKED, NOT_SEPARATED, PAPER_CONTRADICTS, VERDICTS
from tcplab.store import Store

# ------------------------------------------------------------------ document model


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Link:
    text: str
    href: str


@dataclass(frozen=True)
class Bullets:
    items: Sequence[str | Link]


@dataclass(frozen=True)
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[str | Link]]


@dataclass(frozen=True)
class Image:
    src: str
    alt: str


Block = Heading | Para | Bullets | Table | Image


def _md_inline(item: str | Link) -> str:
    if isinstance(item, Link):
        return f"[{item.text}]({item.href})"
    return item.replace("|", "\\|")


def to_markdown(blocks: Sequence[Block]) -> str:
    """Render the document model as GitHub-flavoured Markdown."""
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {b.text}")
        elif isinstance(b, Para):
            out.append(b.text)
        elif isinstance(b, Bullets):
            out.append("\n".join(f"- {_md_inline(i)}" for i in b.items))
        elif isinstance(b, Table):
            lines = ["| " + " | ".join(b.header) + " |", "|" + "---|" * len(b.header)]
            lines += ["| " + " | ".join(_md_inline(c) for c in row) + " |" for row in b.rows]
            out.append("\n".join(lines))
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.src})")
    return "\n\n".join(out) + "\n"


def _html_inline(item: str | Link) -> str:
    if isinstance(item, Link):
        return f'<a href="{html.escape(item.href)}">{html.escape(item.text)}</a>'
    return html.escape(item)


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
    "table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .6rem;"
    "text-align:right}th{background:#f4f4f4}td:first-child,td:nth-child(2){text-align:left}"
    "img{max-width:100%}"
)


def to_html(blocks: Sequence[Block], title: str) -> str:
    """Render the document model as one self-contained HTML page (inline CSS, relative images)."""
    body: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            body.append(f"<h{b.level}>{html.escape(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            body.append(f"<p>{html.escape(b.text)}</p>")
        elif isinstance(b, Bullets):
            body.append("<ul>" + "".join(f"<li>{_html_inline(i)}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, Table):
            head = "".join(f"<th>{html.escape(h)}</th>" for h in b.header)
            rows = "".join("<tr>" + "".join(f"<td>{_html_inline(c)}</td>" for c in r) + "</tr>" for r in b.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif isinstance(b, Image):
            body.append(f'<p><img src="{html.escape(b.src)}" alt="{html.escape(b.alt)}"></p>')
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _page(folder: Path, blocks: Sequence[Block], title: str) -> None:
    write_text(folder / "index.md", to_markdown(blocks))
    write_text(folder / "index.html", to_html(blocks, title))


# ------------------------------------------------------------------ content


def fmt(x: float | None, digits: int = 4) -> str:
    """A number with ``digits`` significant digits, or an en dash when missing."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}g}"


@dataclass
class ExperimentSection:
    """What the report learned about one experiment (used for the overview page)."""

    name: str
    title: str
    cells: list[TableCell]
    findings: list[Finding]
    runs_ok: int
    runs_failed: int
    figures: list[Path] = field(default_factory=list)
    claims: list[dict[str, str]] = field(default_factory=list)


def _matrix_block(rows: list[TableCell]) -> Table:
    """A table without published values as a grid: one line per row, one column per column, each cell
    "mean ± 95 % CI" (the experiment asks for it with ``SIDE_BY_SIDE = True``: schemes side by side)."""
    columns = list(dict.fromkeys(c.column for c in rows))
    by = {(c.row, c.column): c for c in rows}
    lines = []
    for r in dict.fromkeys(c.row for c in rows):
        line = [r]
        for col in columns:
            c = by.get((r, col))
            line.append("–" if c is None or c.mean is None else f"{fmt(c.mean)} ± {fmt(c.ci95, 2)}")
        lines.append(line)
    return Table(["", *columns], lines)


def _table_blocks(cells: list[TableCell], side_by_side: bool = False) -> list[Block]:
    blocks: list[Block] = []
    for table in dict.fromkeys(c.table for c in cells):
        rows = [c for c in cells if c.table == table]
        blocks.append(Heading(2, table))
        if side_by_side and all(c.published is None for c in rows):
            blocks.append(_matrix_block(rows))
            ns = sorted({c.n for c in rows})
            n_text = str(ns[0]) if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
            blocks.append(Para(f"Unit: {', '.join(sorted({c.unit for c in rows}))}; mean ± 95 % CI over n = {n_text} "
                               "replications per cell. Published column: none."))
            continue
        blocks.append(
            Table(
                ["row", "column", "published", "ours (mean ± 95 % CI)", "n", "diff", "diff %"],
                [
                    [
                        c.row,
                        c.column,
                        fmt(c.published),
                        f"{fmt(c.mean)} ± {fmt(c.ci95, 2)}" if c.mean is not None else "–",
                        str(c.n),
                        fmt(c.diff, 3),
                        fmt(c.diff_pct, 3),
                    ]
                    for c in rows
                ],
            )
        )
        refs = sorted({c.ref for c in rows if c.ref})
        units = sorted({c.unit for c in rows})
        blocks.append(Para(f"Unit: {', '.join(units)}. Published column: {'; '.join(refs) or 'none'}."))
    return blocks


#: Cells whose mean differs from the published value by more than this (in %) are listed with a cause.
DEVIATION_PCT = 10.0


#: Bands a published cell falls in, by |diff %|; "not reproduced" for a table the experiment declares
#: it cannot reproduce (``NOT_REPRODUCED``: table title -> reason) or a cell without a measurement.
WITHIN_10, WITHIN_25, BEYOND_25, NOT_REPRODUCED = "within 10 %", "10–25 %", "beyond 25 %", "not reproduced"
BANDS: tuple[str, ...] = (WITHIN_10, WITHIN_25, BEYOND_25, NOT_REPRODUCED)


def _not_reproduced(exp: ModuleType) -> dict[str, str]:
    return dict(getattr(exp, "NOT_REPRODUCED", {}))


def band(cell: TableCell, not_reproduced: dict[str, str]) -> str | None:
    """The band of a cell with a published value (None for cells without one).

    A published 0 (an aborted download) is matched only by a 0; anything else is beyond 25 %.
    """
    if cell.published is None:
        return None
    if cell.table in not_reproduced or cell.mean is None:
        return NOT_REPRODUCED
    if cell.published == 0:
        return WITHIN_10 if cell.mean == 0 else BEYOND_25
    pct = abs(cell.diff_pct or 0.0)
    return WITHIN_10 if pct <= DEVIATION_PCT else WITHIN_25 if pct <= 25.0 else BEYOND_25


def band_counts(exp: ModuleType, cells: list[TableCell]) -> dict[str, int]:
    nr = _not_reproduced(exp)
    bands = [band(c, nr) for c in cells]
    return {b: bands.count(b) for b in BANDS}


def verdict_counts(findings: list[Finding]) -> dict[str, int]:
    return {v: sum(f.verdict == v for f in findings) for v in VERDICTS}


def claim_counts(rows: Sequence[dict[str, str]]) -> dict[str, int]:
    """How many claims (rows of :func:`claim_rows`) have each verdict."""
    return {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}


def _count_text(counts: dict[str, int]) -> str:
    """"2 holds, 1 not checked": the verdicts that occur, in VERDICTS order."""
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n)


def _deviations(exp: ModuleType, cells: list[TableCell]) -> list[dict[str, Any]]:
    """Cells off by more than DEVIATION_PCT (or published as 0 and measured otherwise, and vice versa),
    each with the experiment's explanation (``deviation_cause(cell)``, optional).  Cells of a table
    that is not reproduced are left out: the table's reason covers them."""
    cause = getattr(exp, "deviation_cause", None)
    nr = _not_reproduced(exp)
    return [
        c.to_json() | {"cause": cause(c, cells) if cause else "not analysed"}
        for c in cells
        if band(c, nr) in (WITHIN_25, BEYOND_25)
    ]


def _cause_notes(deviations: list[dict[str, Any]]) -> tuple[list[str], dict[str, str]]:
    """Each distinct cause once, numbered (C1, C2, ...), and the number of every cause text."""
    causes = list(dict.fromkeys(d["cause"] for d in deviations))
    ids = {c: f"C{i + 1}" for i, c in enumerate(causes)}
    return [f"{ids[c]}: {c}" for c in causes], ids


def _summary_blocks(exp: ModuleType, cells: list[TableCell], findings: list[Finding]) -> list[Block]:
    bands, verdicts = band_counts(exp, cells), verdict_counts(findings)
    published = sum(bands.values())
    blocks: list[Block] = [
        Heading(2, "Summary"),
        Table(
            ["published cells", *BANDS],
            [[str(published), *(str(bands[b]) for b in BANDS)]],
        ),
        Table(["findings", *VERDICTS], [[str(len(findings)), *(str(verdicts[v]) for v in VERDICTS)]]),
        Para(
            "Comparisons and equivalences hold or fail; magnitudes are reproduced (the printed value in our 95 % CI), "
            "direction only or not reproduced; a reading that fails on the paper's own published numbers is shown as "
            f"'{PAPER_CONTRADICTS}' and not counted as the paper's finding."
        ),
    ]
    nr = _not_reproduced(exp)
    if nr:
        blocks.append(Para("Not reproduced (the cells are shown but not counted as matching or deviating):"))
        by_reason: dict[str, list[str]] = {}
        for table, why in nr.items():
            by_reason.setdefault(why, []).append(table)
        blocks.append(Bullets([f"{'; '.join(tables)}: {why}" for why, tables in by_reason.items()]))
    return blocks


def claim_rows(exp: ModuleType, findings: list[Finding], cells: list[TableCell]) -> list[dict[str, str]]:
    """Every claim of the paper's text the experiment lists (``CLAIMS``), with its verdict."""
    rows = []
    for c in getattr(exp, "CLAIMS", ()):
        assert isinstance(c, Claim)
        verdict, note = claim_verdict(c, findings, cells)
        rows.append({"quote": c.quote, "section": c.section, "check": c.check, "verdict": verdict, "note": note})
    return rows


def _claim_blocks(rows: list[dict[str, str]]) -> list[Block]:
    if not rows:
        return []
    return [
        Heading(2, "Claims of the paper"),
        Para(
            f"Every quantitative or comparative sentence of the paper's text ({len(rows)}), how we check it and the "
            "verdict; 'not checked' gives the reason. "
            + _count_text(claim_counts(rows)) + "."
        ),
        Table(
            ["#", "section", "claim (quoted)", "how we check it", "verdict"],
            # A table's numbers are not a sentence: shown in brackets, not in quotation marks.
            [[str(i + 1), r["section"], r["quote"] if r["quote"].startswith("[") else f"“{r['quote']}”", r["check"],
              r["verdict"] + (f" ({r['note']})" if r["verdict"] == NOT_CHECKED else "")]
             for i, r in enumerate(rows)],
        ),
    ]


def _finding_line(f: Finding) -> str:
    rule = f" Rule: {f.rule}." if f.rule else ""
    paper = f" On the paper's own numbers: {f.paper}." if f.paper and f.verdict != PAPER_CONTRADICTS else ""
    return f"{f.verdict.upper()}: {f.text} ({f.detail}).{rule}{paper}"


def wide_intervals(findings: Sequence[Finding]) -> list[str]:
    """The findings (or cases of a finding) our replications could not decide: "not separated" means the
    95 % CI is wider than the distance between the effect and the value it is judged against (or that
    one replication has no interval).  Quick mode runs few replications, so it flags these."""
    out = []
    for f in findings:
        cases = f.detail.count(f"[{NOT_SEPARATED}]")
        if f.verdict == NOT_SEPARATED or cases:
            out.append(f"{f.text}: {cases or 1} case(s) not separated")
    return out


def model_notes(exp: ModuleType, cells: Sequence[TableCell]) -> list[str]:
    """The experiment's model notes: ``notes(cells)`` when it quotes the run's numbers, else ``NOTES``."""
    fn = getattr(exp, "notes", None)
    return list(fn(cells)) if callable(fn) else list(getattr(exp, "NOTES", ()) or ())


def _ns2_blocks(cells: Sequence[TableCell]) -> list[Block]:
    """Published | tcplab | ns-2.35 for the cells an experiment also ran in ns-2.35 (experiments/ns2_side.py),
    and which of the paper's numbers ns-2.35 itself does not give; nothing for an experiment without them."""
    from tcplab.experiments import ns2_side

    header, rows = ns2_side.side_by_side(cells)
    if not rows:
        return []
    missing = ns2_side.not_given(cells)
    return [
        Heading(2, "Published, tcplab and ns-2.35 side by side"),
        Para("The senders ns-2.35 has (Reno, NewReno, Westwood+ through Agent/TCP/Linux) run by ns-2.35 on the same "
             "setup, written by validate-ns2's translator and stored with this run; mean ± 95 % CI over seeds (ns-2's "
             "and tcplab's seeds are not paired). 'gives it': the paper's value lies in ns-2.35's interval."),
        Table(header, rows),
        Para("Numbers of the paper that ns-2.35 itself does not give: " + ("; ".join(missing) if missing else "none")
             + "."),
    ]


def experiment_blocks(exp: ModuleType, cells: list[TableCell], findings: list[Finding], quick: bool, ok: int,
                      failed_rows: Sequence[dict[str, Any]], figures: Sequence[str]) -> list[Block]:
    """The page of one experiment from its analysis (no store access: tests render it from fixtures)."""
    sweeps = exp.sweeps(quick)
    blocks: list[Block] = [
        Heading(1, exp.TITLE),
        Para(
            f"Experiment {exp.NAME} ({'quick' if quick else 'full'} mode): {ok} runs ok, {len(failed_rows)} failed "
            f"(a run shared by two sweeps counts in each); {len(sweeps)} sweeps; tcplab core {_core.version()}."
        ),
    ]
    notes = model_notes(exp, cells)
    if notes:
        blocks += [Heading(2, "Model notes"), Bullets(notes)]
    replications = getattr(exp, "REPLICATIONS", "")
    if replications:
        blocks += [Heading(2, "What a replication varies"), Para(replications)]
    warnings = wide_intervals(findings)
    if warnings:
        blocks += [Heading(2, "Warning: confidence intervals wider than the effects they judge"), Bullets(warnings)]
    deviations = _deviations(exp, cells)
    claims = claim_rows(exp, findings, cells)
    blocks += [
        *_summary_blocks(exp, cells, findings),
        *_claim_blocks(claims),
        Heading(2, "Findings"),
        Bullets([_finding_line(f) for f in findings] or ["none"]),
        *_table_blocks(cells, bool(getattr(exp, "SIDE_BY_SIDE", False))),
        *_ns2_blocks(cells),
    ]
    if deviations:
        notes, ids = _cause_notes(deviations)
        blocks.append(Heading(2, f"Deviations above {DEVIATION_PCT:g} % from the published values"))
        blocks.append(Para("Causes, each written once and referenced by its number in the table:"))
        blocks.append(Bullets(notes))
        blocks.append(
            Table(
                ["table", "row", "column", "published", "ours", "diff %", "cause"],
                [
                    [d["table"], d["row"], d["column"], fmt(d["published"]), fmt(d["mean"]), fmt(d["diff_pct"], 3), ids[d["cause"]]]
                    for d in deviations
                ],
            )
        )
    if figures:
        blocks.append(Heading(2, "Figures"))
        blocks += [Image(f, Path(f).stem.replace("_", " ")) for f in figures]
    if failed_rows:
        blocks.append(Heading(2, "Failed runs"))
        blocks.append(
            Table(
                ["key", "cell", "seed", "error"],
                [[r["key"][:12], r["cell"], str(r["seed"]), r["error"] or ""] for r in failed_rows],
            )
        )
    return blocks


def write_experiment(exp: ModuleType, store: Store, outdir: Path, quick: bool) -> ExperimentSection:
    """Analyse one experiment's stored runs and write its page, figures and ``tables.json``."""
    folder = outdir / exp.NAME
    folder.mkdir(parents=True, exist_ok=True)
    cells, findings = exp.analyse(store, quick)
    figures = exp.figures(store, folder, quick)
    runs = [store.runs(s.name) for s in exp.sweeps(quick)]
    ok = sum(int((r["status"] == "ok").sum()) for r in runs)
    failed_rows = [row for r in runs for row in r.filter(r["status"] == "failed").iter_rows(named=True)]
    blocks = experiment_blocks(exp, cells, findings, quick, ok, failed_rows,
                               [p.relative_to(folder).as_posix() for p in figures])
    deviations = _deviations(exp, cells)
    claims = claim_rows(exp, findings, cells)
    _page(folder, blocks, exp.TITLE)
    doc = {
        "experiment": exp.NAME,
        "title": exp.TITLE,
        "quick": quick,
        "version": _core.version(),
        "cells": [c.to_json() for c in cells],
        "findings": [f.to_json() for f in findings],
        "deviations": deviations,
        "claims": claims,
        "summary": {"cells": band_counts(exp, cells), "findings": verdict_counts(findings),
                    "claims": claim_counts(claims)},
        "not_reproduced": _not_reproduced(exp),
    }
    write_text(folder / "tables.json", json.dumps(doc, indent=2, allow_nan=False) + "\n")
    return ExperimentSection(exp.NAME, exp.TITLE, cells, findings, ok, len(failed_rows), figures, claims)


def quick_warnings(outdir: Path) -> int:
    """How many findings of a written report are not separated by their replications (read back from
    every experiment's ``tables.json``)."""
    n = 0
    for path in sorted(Path(outdir).glob("*/tables.json")):
        doc = json.loads(path.read_text())
        n += len(wide_intervals([Finding(**f) for f in doc.get("findings", [])]))
    return n


def write_report(experiments: Sequence[ModuleType], store: Store, outdir: Path, quick: bool) -> Path:
    """Write every experiment's section and the overview; returns the overview's ``index.md``."""
    outdir.mkdir(parents=True, exist_ok=True)
    sections = [write_experiment(e, store, outdir, quick) for e in experiments]
    modules = {e.NAME: e for e in experiments}
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    blocks: list[Block] = [
        Heading(1, "tcplab reproduction report"),
        Para(f"Generated {stamp} by tcplab core {_core.version()}, {'quick' if quick else 'full'} mode."),
        Para(
            "Published cells by |ours − published| / published, and findings by verdict (each decided by the "
            "rule stated beside it on the experiment's page)."
        ),
        Table(
            ["experiment", "title", *(f"cells {b}" for b in BANDS), *(f"findings {v}" for v in VERDICTS),
             "runs ok", "runs failed"],
            [
                [
                    Link(s.name, f"{s.name}/index.html"),
                    s.title,
                    *(str(n) for n in band_counts(modules[s.name], s.cells).values()),
                    *(str(n) for n in verdict_counts(s.findings).values()),
                    str(s.runs_ok),
                    str(s.runs_failed),
                ]
                for s in sections
            ],
        ),
    ]
    for s in sections:
        blocks.append(Heading(2, s.name))
        if s.claims:
            counts = _count_text(claim_counts(s.claims))
            blocks.append(Para(f"Claims of the paper's text: {len(s.claims)} — {counts}."))
        verdicts = [f"{f.verdict.upper()}: {f.text}" for f in s.findings]
        blocks.append(Bullets(verdicts or ["no findings"]))
    _page(outdir, blocks, "tcplab reproduction report")
    return outdir / "index.md"


def reproduce(
    experiments: Sequence[ModuleType],
    store: Store,
    outdir: Path,
    quick: bool,
    executor: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool | None = None,
) -> tuple[Path, list[SweepReport]]:
    """Run every sweep of ``experiments`` (resuming from the store), then write the report.

    The report covers ``experiments`` and every other registered experiment that already has
    results in the store, so reproducing one paper does not drop the others from the report.

    The report is built in a temporary folder beside ``outdir`` and published into it at the end
    (:func:`tcplab._fs.publish`): an interrupted ``reproduce`` never leaves a half-written report,
    and only files an earlier report wrote there are replaced or removed.  A store inside ``outdir``
    is refused before any run (raises :class:`~tcplab._fs.OutputError`, a ValueError).
    """
    outdir = Path(outdir)
    check_report_folder(outdir, store.path)
    reports = [
        run_sweep(sweep, store, executor=executor, workers=workers, address=address, progress=progress)
        for exp in experiments
        for sweep in exp.sweeps(quick)
    ]
    # Runs of another simulator an experiment stores beside its sweeps (e.g. ns-2.35), resumed likewise.
    for exp in experiments:
        external = getattr(exp, "external_runs", None)
        if callable(external):
            external(store, quick)
    # Experiments not asked for this time stay in the report if the store has their results.
    chosen = {e.NAME for e in experiments}
    included = [
        e
        for e in all_experiments().values()
        if e.NAME in chosen or any(store.runs(s.name).height for s in e.sweeps(quick))
    ]
    staging = staging_dir(outdir)
    try:
        write_report(included, store, staging, quick)
        publish(staging, outdir, REPORT_MARKER, "report")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return outdir / "index.md", reports


#: The file whose presence marks a report folder written before manifests existed.
REPORT_MARKER = "index.md"


def check_report_folder(outdir: Path, store: Path) -> None:
    """Refuse, before any run, a report folder that holds the results store (``store``, its
    ``series/`` folder) or that is not a report: replacing the report must never touch results."""
    for part in (store, store.parent / "series"):
        if inside(part, outdir) or inside(outdir, part):
            raise OutputError(
                f"--store {store} lies inside the report folder {outdir} (or the report inside the "
                "store's files); keep them apart, e.g. --store results/tcplab.db --out report"
            )
    check_out(outdir, REPORT_MARKER, "report")
