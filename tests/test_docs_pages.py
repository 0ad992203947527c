"""docs/validation's hand-written pages carry no hand-typed number (issue 39): each guarded page's generated sections
are what their committed sources render, and every other number of its prose is a value of its data file
(docs/validation/data/<page>.json) for that section, each measurement there naming its command, date and commit.
Pages not yet guarded are listed by name, so a new page cannot slip past."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tcplab.experiments import doc_pages as dp

VALIDATION = dp.DOCS
GUARDED = sorted(p for p in VALIDATION.glob("*.md") if dp.data_of(p).is_file())
#: Hand-written pages with typed numbers and no data file yet (issue 39: each is still to be guarded). Empty since
#: session 16 guarded ns2 and performance; a new page must get its data file or be listed here.
NOT_YET_GUARDED: set[str] = set()


def test_the_pages_reproductions_rely_on_are_guarded():
    assert {p.stem for p in GUARDED} >= {"ack_holding", "adaptive_tcp", "atcp", "mtcp_plus", "ns2_papers", "tcp_pgy"}


def test_every_page_is_guarded_or_listed_as_not_yet():
    pages = {p.stem for p in VALIDATION.glob("*.md")}
    guarded = {p.stem for p in GUARDED}
    assert not (guarded & NOT_YET_GUARDED), "a guarded page is still listed as not guarded"
    assert pages == guarded | NOT_YET_GUARDED, f"pages neither guarded nor listed: {pages - guarded - NOT_YET_GUARDED}"


@pytest.mark.parametrize("page", GUARDED, ids=lambda p: p.stem)
def test_a_guarded_page_is_what_its_data_says(page: Path):
    bad = dp.problems(page)
    assert not bad, f"{page.name}: {bad[:8]}"


@pytest.mark.parametrize("page", GUARDED, ids=lambda p: p.stem)
def test_every_data_entry_is_used(page: Path):
    # An entry no section quotes any more is itself stale (its page moved on without it).
    data = json.loads(dp.data_of(page).read_text())
    text = page.read_text()
    heads = [h for h, _ in dp.sections(text)]
    for kind in ("measurements", "settings"):
        for ident, e in data.get(kind, {}).items():
            if "columns" in e:
                assert f"| {ident} -->" in text, f"{ident}: its table is on no generated section"
            elif e.get("section"):
                assert any(h.startswith(e["section"]) for h in heads), f"{ident}: section {e['section']!r} is gone"


def _guarded_copy(tmp_path: Path, page: str) -> Path:
    """A guarded page and its data file copied under tmp_path (docs/validation/ layout, its sources linked)."""
    (tmp_path / "data").mkdir()
    out = tmp_path / f"{page}.md"
    out.write_text((VALIDATION / f"{page}.md").read_text())
    (tmp_path / "data" / f"{page}.json").write_text(dp.data_of(VALIDATION / f"{page}.md").read_text())
    return out


def _tables_only(text: str) -> str:
    """``text`` without its generated sections other than the data file's tables (those need the run's files)."""
    for b in reversed(dp.blocks(text)):
        if b.kind != "table":
            text = text[:b.start] + text[b.end:]
    return text


def test_a_number_typed_into_the_prose_is_caught(tmp_path: Path):
    page = _guarded_copy(tmp_path, "ack_holding")
    text = page.read_text()
    assert not dp.untraced(text, json.loads(dp.data_of(page).read_text()))
    # The old hand-typed Table I mean, and a figure changed in one-off prose, are no value of the data file.
    typed = text.replace("## Replications: the fade position drawn from the seed (issue 39)\n",
                         "## Replications: the fade position drawn from the seed (issue 39)\nHolding gave 3846 packets.\n")
    assert any(t.startswith("3846 ") for t in dp.untraced(typed, json.loads(dp.data_of(page).read_text())))
    edited = text.replace("1492, 1478 and 1722", "1492, 1478 and 1723")
    assert edited != text and dp.untraced(edited, json.loads(dp.data_of(page).read_text()))


def test_a_number_is_traced_only_within_its_section():
    # 34.97 s is the Fig. 2 schedule's (section "Analytic figures"); quoted under Scenario it is untraced.
    text = "## Scenario (x)\nThe RTO was 34.97 s.\n\n## Analytic figures\nfinal RTO 34.97 s.\n"
    data = {"measurements": {"schedule": {"section": "## Analytic figures", "command": "c", "date": "d", "commit": "e",
                                          "final_rto_s": 34.97}}}
    assert dp.untraced(text, data) == ["34.97 (under '## Scenario (x)')"]


def test_a_generated_section_edited_by_hand_is_caught():
    text = (VALIDATION / "ack_holding.md").read_text()
    b = next(b for b in dp.blocks(text) if b.kind == "results" and b.arg.startswith("Table I"))
    assert not dp.stale_sections(text)
    row = next(ln for ln in b.body.splitlines() if ln.startswith("| Single interval of 10 s | ACK holding |"))
    cells = row.split(" | ")
    cells[3] = "3846 ± 7"  # the page's old typed mean
    assert dp.stale_sections(text.replace(row, " | ".join(cells)))


def test_a_measurement_changed_in_the_data_file_makes_its_section_stale(tmp_path: Path, monkeypatch):
    page = _guarded_copy(tmp_path, "ack_holding")
    monkeypatch.setattr(dp, "DOCS", tmp_path)
    text = _tables_only(page.read_text())
    assert not dp.stale_sections(text)
    data = json.loads(dp.data_of(page).read_text())
    data["measurements"]["fade_jitter_quick"]["rows"][0][1] = "3849.8 ± 3.8"
    dp.data_of(page).write_text(json.dumps(data))
    assert dp.stale_sections(text) == ["table | data/ack_holding.json | fade_jitter_quick"]


def test_a_measurement_without_its_command_is_refused(tmp_path: Path):
    page = _guarded_copy(tmp_path, "ack_holding")
    page.write_text(_tables_only(page.read_text()))
    data = json.loads(dp.data_of(page).read_text())
    del data["measurements"]["issue40_checks"]["command"]
    dp.data_of(page).write_text(json.dumps(data))
    assert any("issue40_checks: no command" in p for p in dp.problems(page))


def test_the_ack_holding_schedule_numbers_are_the_closed_forms():
    # The Analytic figures section quotes Fig. 2's schedule; the core recomputes it here.
    from tcplab import _core

    fig2 = json.loads(dp.data_of(VALIDATION / "ack_holding.md").read_text())["measurements"]["schedule"]["fig2"]
    r = _core.ack_schedule(float(fig2["t_s"]), fig2["n_acks"], float(fig2["mu0_s"]), float(fig2["sigma0_s"]), None, 0.0)
    assert r["n_paper"] == fig2["n_paper"] and r["n_feasible"] == fig2["n_feasible"]
    assert round(r["final_rto"], 2) == fig2["final_rto_s"] and round(r["rto"][0], 1) == fig2["first_rto_s"]
    assert round(fig2["t_s"] / fig2["n_acks"], 1) == fig2["gap_at_n_paper_s"]


def test_references_are_not_quantities():
    assert dp.numbers("RFC 7323 §2.3, Fig. 4, Figs 5–8, Table I, issue 40, 802.11, ns-2.35, seeds 1–5, 2026-11-27, "
                      "core `x`, commit d61f605, SHA-256") == []
    assert dp.numbers("3846 ± 7 packets, 113.7 %") == ["3846", "7", "113.7"]
    # A word that merely ends like a reference word (BS, RED) does not hide the number after it.
    assert dp.numbers("FH–BS 10 Mb/s, RED 45") == ["10", "45"]


def test_the_regenerating_command_rewrites_a_stale_section(tmp_path: Path, monkeypatch):
    page = _guarded_copy(tmp_path, "ack_holding")
    monkeypatch.setattr(dp, "DOCS", tmp_path)
    head = _tables_only(page.read_text())
    page.write_text(head.replace("1564.0 ± 340.4", "1564.0 ± 340.5"))
    assert dp.stale_sections(page.read_text())
    dp.main(["--write", str(page)])
    assert not dp.stale_sections(page.read_text()) and "1564.0 ± 340.4" in page.read_text()
    assert dp.main([str(tmp_path / "nope.md")]) == 2


def test_a_value_the_page_no_longer_quotes_is_stale(tmp_path: Path):
    # Data that outlives its prose is caught too: the per-seed Reno packets dropped from the page.
    page = _guarded_copy(tmp_path, "ack_holding")
    text = _tables_only(page.read_text())
    page.write_text(text)
    assert not dp.problems(page)
    page.write_text(text.replace("1492, 1478 and 1722", "three counts"))
    assert any("1722 is no longer quoted" in p for p in dp.problems(page))


@pytest.mark.parametrize("page", ["wireless_baselines", "robustness", "baselines", "mutants", "ns2", "performance"])
def test_a_number_changed_in_a_newly_guarded_page_is_caught(tmp_path: Path, page: str):
    # Each page guarded in session 16: its prose as committed traces; one of its data values changed in the prose
    # (the first number of the last measurement that has values) no longer does.
    copy = _guarded_copy(tmp_path, page)
    text = _tables_only(copy.read_text())
    data = json.loads(dp.data_of(copy).read_text())
    assert not dp.untraced(text, data)
    ident, entry = [(k, e) for k, e in data["measurements"].items() if e.get("values")][-1]
    heading, part = next((h, p) for h, p in dp.sections(text) if h.startswith(entry["section"]))
    token = dp.numbers(dp.prose(part[len(heading):]))[0]  # the first number below the heading
    changed = str(int(float(token)) + 7919) if "." not in token else token + "7"
    start = text.index(part) + len(heading)
    # The token where it stands alone (not the "4" inside "step 4's" or a longer number).
    i = next(m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(token)}(?![\w.])", text[start:]) ) + start
    edited = text[:i] + changed + text[i + len(token):]
    assert edited != text
    bad = dp.untraced(edited, data)
    assert any(b.startswith(changed + " ") for b in bad), (ident, token, bad[:3])
