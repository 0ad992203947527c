"""Experiments registry and report generation on a tiny version of the wired-loss sweep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tcplab import _core
from tcplab.experiments import all_experiments, select
from tcplab.experiments.wired_loss import experiment as wired_loss
from tcplab.experiments.base import TableCell
from tcplab.report import reproduce
from tcplab.runner import Sweep
from tcplab.scenario import cell_pairs, load
from tcplab.store import Store

CELL_KEYS = {"table", "row", "column", "published", "mean", "ci95", "n", "unit", "diff"}
FINDING_KEYS = {"text", "holds", "detail"}


def test_registry_modules_define_the_interface() -> None:
    registry = all_experiments()
    assert "wired-loss" in registry
    for name, exp in registry.items():
        assert exp.NAME == name and exp.TITLE
        assert exp.PUBLISHED is not None
        for quick in (True, False):
            sweeps = exp.sweeps(quick)
            assert sweeps and all(isinstance(s, Sweep) for s in sweeps)
            assert len({s.name for s in sweeps}) == len(sweeps)
        assert {s.name for s in exp.sweeps(True)}.isdisjoint(s.name for s in exp.sweeps(False))
        assert callable(exp.analyse) and callable(exp.figures)
    with pytest.raises(KeyError):
        select(["no-such-paper"])


def test_reproduce_help_lists_every_experiment() -> None:
    from conftest import run_cli

    from tcplab.experiments import names

    assert names() == tuple(all_experiments())
    out = run_cli("reproduce", "--help").stdout
    assert all(n in out for n in names()), out


@pytest.mark.parametrize("name", sorted(all_experiments()))
def test_every_experiment_cell_is_a_valid_scenario(name: str) -> None:
    for quick in (True, False):
        for sweep in all_experiments()[name].sweeps(quick):
            src = load(sweep.base)
            for cell in sweep.expand():
                _core.resolve(src.text, src.format, cell_pairs(cell))


def test_mathis_reference() -> None:
    # (MSS/RTT) * sqrt(3/(2p)) with MSS = 1460 B, RTT = 43.355 ms, p = 1 %: 3.2995 Mb/s
    assert wired_loss.RTT_S == pytest.approx(0.0433552)
    assert wired_loss.mathis_bps(0.01) == pytest.approx(1460 * 8 / 0.0433552 * (150**0.5), rel=1e-9)
    assert wired_loss.PUBLISHED[0.01].value == pytest.approx(3.2995, abs=1e-4)


def test_table_cell_diff() -> None:
    from tcplab.stats import summarise

    cell = TableCell.of("t", "r", "c", summarise([1.0, 3.0]), "Mb/s", wired_loss.PUBLISHED[0.01])
    assert cell.diff == pytest.approx(2.0 - wired_loss.PUBLISHED[0.01].value)
    assert CELL_KEYS <= set(cell.to_json())


def test_report_on_a_tiny_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loss = (0.0, 0.01)
    monkeypatch.setattr(wired_loss, "LOSS_P", loss)

    def tiny_sweeps(quick: bool) -> list[Sweep]:
        return [
            Sweep(
                name=wired_loss.sweep_name(quick),
                base=wired_loss.scenario(3),
                grid={wired_loss.LOSS_PATH: list(loss)},
                variants=wired_loss.VARIANTS,
                replications=2,
            )
        ]

    monkeypatch.setattr(wired_loss, "sweeps", tiny_sweeps)
    out = tmp_path / "report"
    with Store(tmp_path / "results" / "tcplab.db") as store:
        index, reports = reproduce([wired_loss], store, out, quick=True, workers=2, progress=False)
    assert index == out / "index.md"
    assert reports[0].total == 12 and not reports[0].failed
    for page in ("index.md", "index.html", "wired-loss/index.md", "wired-loss/index.html"):
        assert (out / page).stat().st_size > 0, page
    assert (out / "wired-loss" / "goodput_vs_loss.png").read_bytes().startswith(b"\x89PNG")
    assert "wired-loss/index.html" in (out / "index.md").read_text()

    doc = json.loads((out / "wired-loss" / "tables.json").read_text())
    goodput = [c for c in doc["cells"] if c["table"] == wired_loss.TABLE]
    assert len(goodput) == len(loss) * len(wired_loss.VARIANTS)
    for cell in goodput:
        assert CELL_KEYS <= set(cell)
        assert cell["n"] == 2 and cell["mean"] > 0 and cell["published"] > 0
    shares = [c for c in doc["cells"] if c["table"] == wired_loss.TIMEOUT_TABLE]
    assert len(shares) == len(wired_loss.VARIANTS) and all(c["published"] is None for c in shares)
    assert sum(doc["summary"]["cells"].values()) == len(goodput)
    assert len(doc["findings"]) == 2
    for finding in doc["findings"]:
        assert FINDING_KEYS <= set(finding) and isinstance(finding["holds"], bool)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []

    # A second report into the same folder replaces its own files only (issue 38: the whole
    # folder used to be replaced, deleting whatever else the user kept there).
    (out / "mine.txt").write_text("kept")
    (out / "wired-loss" / "note.txt").write_text("kept")
    with Store(tmp_path / "results" / "tcplab.db") as store:
        reproduce([wired_loss], store, out, quick=True, workers=2, progress=False)
    assert (out / "mine.txt").read_text() == "kept" and (out / "wired-loss" / "note.txt").read_text() == "kept"
    owned = json.loads((out / ".tcplab-manifest.json").read_text())["files"]
    assert "index.md" in owned and "wired-loss/tables.json" in owned and "mine.txt" not in owned
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_bands_and_repeated_causes_written_once() -> None:
    from types import SimpleNamespace

    from tcplab.report import BEYOND_25, NOT_REPRODUCED, WITHIN_10, WITHIN_25, _cause_notes, band, band_counts
    from tcplab.stats import summarise

    def cell(table: str, published: float, mean: float) -> TableCell:
        return TableCell.of(table, "r", "c", summarise([mean, mean]), "s", wired_loss.Published(published, "T"))

    nr = {"T4": "cannot be produced by these parameters"}
    assert band(cell("T2", 100.0, 109.0), nr) == WITHIN_10
    assert band(cell("T2", 100.0, 80.0), nr) == WITHIN_25
    assert band(cell("T2", 100.0, 130.0), nr) == BEYOND_25
    assert band(cell("T2", 0.0, 130.0), nr) == BEYOND_25  # published abort, ours completes
    assert band(cell("T4", 1.0, 1.0), nr) == NOT_REPRODUCED  # even where it happens to match
    exp = SimpleNamespace(NOT_REPRODUCED=nr)
    counts = band_counts(exp, [cell("T2", 100.0, 101.0), cell("T4", 1.0, 5.0)])  # type: ignore[arg-type]
    assert counts == {WITHIN_10: 1, WITHIN_25: 0, BEYOND_25: 0, NOT_REPRODUCED: 1}
    notes, ids = _cause_notes([{"cause": "a"}, {"cause": "b"}, {"cause": "a"}])
    assert notes == ["C1: a", "C2: b"] and ids == {"a": "C1", "b": "C2"}


def test_a_finding_carries_a_verdict_consistent_with_holds() -> None:
    from tcplab.experiments.base import Finding
    from tcplab.stats import FAILS, HOLDS, NOT_SEPARATED

    assert Finding("t", True, "d").verdict == HOLDS and Finding("t", False, "d").verdict == FAILS
    f = Finding.decided("t", NOT_SEPARATED, "d", "rule")
    assert not f.holds and f.to_json()["verdict"] == NOT_SEPARATED and f.to_json()["rule"] == "rule"
    with pytest.raises(ValueError, match="contradicts"):
        Finding("t", True, "d", verdict=FAILS)
    with pytest.raises(ValueError, match="expected one of"):
        Finding("t", False, "d", verdict="probably")


def test_against_paper_marks_a_reading_the_papers_numbers_fail() -> None:
    from tcplab.experiments.base import Finding, against_paper
    from tcplab.stats import FAILS, HOLDS, NOT_SEPARATED, PAPER_CONTRADICTS

    ours = [Finding.decided("A", HOLDS, "a", "r"), Finding.decided("B", NOT_SEPARATED, "b", "r"),
            Finding.decided("C", HOLDS, "c", "r")]
    paper = [Finding.decided("A", HOLDS, "pa", "r"), Finding.decided("B", FAILS, "pb", "r")]
    a, b, c = against_paper(ours, paper)
    assert (a.verdict, a.detail, a.paper) == (HOLDS, "a", "[holds] pa")
    assert (b.verdict, b.holds, b.paper) == (PAPER_CONTRADICTS, False, "[fails] pb")
    assert b.detail == "paper contradicts itself: on its own numbers [fails] pb; ours: [not separated] b"
    assert c == ours[2]  # no paper numbers for it
    # A paper finding matching none of ours (a typo in its text) would silently drop its check.
    with pytest.raises(ValueError, match="match none"):
        against_paper(ours, [Finding.decided("D", FAILS, "pd", "r")])


# ---- the claims of the papers' text ----

PAPERS = ("mtcp-plus", "ack-holding", "tcp-pgy", "atcp", "adaptive-tcp")


@pytest.mark.parametrize("quick", [True, False])
def test_every_paper_lists_its_claims_and_each_resolves(tmp_path: Path, quick: bool) -> None:
    from tcplab.report import claim_rows
    from tcplab.stats import NOT_CHECKED

    registry = all_experiments()
    with Store(tmp_path / "empty.db") as store:
        for name in PAPERS:
            exp = registry[name]
            assert exp.CLAIMS, name
            cells, findings = exp.analyse(store, quick)
            rows = claim_rows(exp, findings, cells)  # raises when a claim names no finding or several
            assert len(rows) == len(exp.CLAIMS)
            # An unchecked claim always says why.
            assert all(r["note"] for r in rows if r["verdict"] == NOT_CHECKED), name


def test_claim_verdicts_come_from_the_finding_or_the_cells() -> None:
    from tcplab.experiments.base import Claim, Finding, claim_verdict
    from tcplab.stats import HOLDS, NOT_CHECKED, NOT_REPRODUCED, REPRODUCED

    fs = [Finding.decided("A beats B (Fig. 1)", HOLDS, "d", "r"), Finding.decided("A beats C", HOLDS, "d", "r")]
    # (table, row, column, published, mean, ci95, n, unit): 5.99 inside 5.9 ± 0.12; 4.0 outside it.
    cells = [TableCell("Fig. 8: x", "FER 0 %", "A", 5.99, 5.9, 0.12, 3, "Mb/s"),
             TableCell("Fig. 8: x", "FER 1 %", "A", 4.0, 5.9, 0.12, 3, "Mb/s")]
    assert claim_verdict(Claim("q", "§1", "c", finding="beats B"), fs, cells)[0] == HOLDS
    with pytest.raises(ValueError):
        claim_verdict(Claim("q", "§1", "c", finding="A beats"), fs, cells)  # ambiguous
    with pytest.raises(ValueError):
        claim_verdict(Claim("q", "§1", "c", finding="D beats"), fs, cells)  # none
    assert claim_verdict(Claim("q", "§1", "c", cells=(("Fig. 8", "FER 0 %", "A"),)), fs, cells)[0] == REPRODUCED
    assert claim_verdict(Claim("q", "§1", "c", cells=(("Fig. 8", "FER 1 %", "A"),)), fs, cells)[0] == NOT_REPRODUCED
    assert claim_verdict(Claim("q", "§1", "c", cells=(("Fig. 8", "FER 9 %", "A"),)), fs, cells)[0] == NOT_CHECKED
    assert claim_verdict(Claim("q", "§1", "c", reason="why"), fs, cells) == (NOT_CHECKED, "why")
    with pytest.raises(ValueError):
        Claim("q", "§1", "c", finding="x", reason="y")


def test_quick_mode_flags_intervals_wider_than_the_effect(tmp_path: Path) -> None:
    from tcplab.experiments.base import Finding
    from tcplab.report import quick_warnings, wide_intervals
    from tcplab.stats import HOLDS, NOT_SEPARATED

    fs = [
        Finding.over_cases("A beats B", [(HOLDS, "x"), (NOT_SEPARATED, "y = +0.1 ± 0.5")], "r"),
        Finding.decided("C ties D", HOLDS, "all hold", "r"),
        Finding.decided("E beats F", NOT_SEPARATED, "one replication", "r"),
    ]
    assert wide_intervals(fs) == ["A beats B: 1 case(s) not separated", "E beats F: 1 case(s) not separated"]
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "tables.json").write_text(json.dumps({"findings": [f.to_json() for f in fs]}))
    assert quick_warnings(tmp_path) == 2


def test_every_page_says_what_a_replication_varies(tmp_path: Path) -> None:
    """Each experiment states what its replications vary (docstring and page); ack-holding's fade shift is
    drawn from the seed, in its stated range, and the same for both schemes of a seed."""
    from tcplab.experiments import all_experiments
    from tcplab.experiments.ack_holding import experiment as ah
    from tcplab.report import Heading, Para, experiment_blocks
    from tcplab.store import Store

    for name, exp in all_experiments().items():
        assert exp.REPLICATIONS and "What a replication varies" in (exp.__doc__ or ""), name
        with Store(tmp_path / f"{name}.db") as store:
            cells, findings = exp.analyse(store, False)
        blocks = experiment_blocks(exp, cells, findings, False, 0, [], [])
        i = next(k for k, b in enumerate(blocks) if isinstance(b, Heading) and b.text == "What a replication varies")
        assert isinstance(blocks[i + 1], Para) and blocks[i + 1].text == exp.REPLICATIONS
    offsets = [ah.fade_offset(s) for s in range(1, 41)]
    assert all(abs(o) <= ah.FADE_JITTER_S for o in offsets) and len(set(offsets)) == 40
    assert min(offsets) < -1 and max(offsets) > 1  # spread over the range, not bunched
    cell = {ah.OUTAGE_PATH: ah.FADES["two"]}
    o = ah.fade_offset(3)
    assert ah.fades_of_seed(cell, 3) == ah.fades_of_seed(cell | {"agents": []}, 3)
    assert ah.fades_of_seed(cell, 3)[ah.OUTAGE_PATH] == [[f"{10 + o:.3f}s", f"{20 + o:.3f}s"],
                                                          [f"{25 + o:.3f}s", f"{35 + o:.3f}s"]]
    assert [s.per_seed for s in ah.sweeps(True)[:2]] == [ah.fades_of_seed] * 2


def test_quick_mode_warning_reaches_the_page_and_the_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The CI-wider-than-the-effect warning where a verdict is shown: a heading on the experiment's page, and a
    line on the console after `reproduce --quick` (never without --quick, never when every finding is decided)."""
    import tcplab.report as report
    from tcplab import cli
    from tcplab.experiments.base import Finding
    from tcplab.report import Heading, experiment_blocks
    from tcplab.runner import SweepReport
    from tcplab.stats import HOLDS, NOT_SEPARATED

    wide = [Finding.over_cases("A beats B", [(HOLDS, "x"), (NOT_SEPARATED, "y = +0.1 ± 0.5")], "r")]
    decided = [Finding.decided("C beats D", HOLDS, "all hold", "r")]
    heading = "Warning: confidence intervals wider than the effects they judge"
    for fs, shown in ((wide, True), (decided, False)):
        texts = [b.text for b in experiment_blocks(wired_loss, [], fs, True, 0, [], []) if isinstance(b, Heading)]
        assert (heading in texts) == shown

    for fs, quick, shown in ((wide, True, True), (wide, False, False), (decided, True, False)):
        out = tmp_path / f"r{len(fs)}{quick}{shown}"

        def fake(experiments, store, outdir, q, **kw):  # type: ignore[no-untyped-def]
            (outdir / "wired-loss").mkdir(parents=True)
            (outdir / "wired-loss" / "tables.json").write_text(json.dumps({"findings": [f.to_json() for f in fs]}))
            return outdir / "index.md", [SweepReport("s", 1, 1, (), ())]

        monkeypatch.setattr(report, "reproduce", fake)
        argv = ["reproduce", "wired-loss", "--out", str(out), "--store", str(tmp_path / f"{out.name}.db")]
        assert cli.main(argv + (["--quick"] if quick else [])) == 0
        err = capsys.readouterr().err
        assert ("warning: quick mode: 1 finding(s) have a 95 % CI wider than the effect" in err) == shown, err
