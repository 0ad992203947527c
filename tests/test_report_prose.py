"""The stale-number test: every number in a report page's prose comes from the run's data.

Each experiment's page is rendered twice from fixtures — the experiment's own cells with two different
sets of synthetic measurements — and the numbers of its prose (model notes, deviation causes, summary
paragraphs; not the tables or the findings' generated details) are compared.  A number that moves with
the data is generated from it.  A number that stays put must be a declared constant: a published value,
a scenario parameter quoted in one of the phrases the module lists in ``PROSE_CONSTANTS`` (the phrase
exempts its own numbers only where it occurs, so a declared "2 Mb/s" does not excuse a stale "2 %"
elsewhere, and a phrase the prose no longer contains is itself stale), or the report's own (the 95 % CI
level).  A number typed by hand into the prose (the old "231.0 s baseline") stays put and is none of these.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tcplab.experiments import all_experiments
from tcplab.experiments.base import TableCell
from tcplab.report import Bullets, Heading, Para, experiment_blocks
from tcplab.store import Store

#: References, units and names that contain digits but are not quantities.
_NOT_NUMBERS = re.compile(
    r"(RFC|Tables?|Figs?\.?|§|eqs?\.|ns-|Section|Algorithm|Jain, Chiu, Hawe|DEC-TR-|seed|C)\s*[\d.,()–\-]*\d[a-z]?"
    r"|802\.11[a-z]*|\d+\^\d+|\d+(\.\d+)+(?=[-\w]*\))|core \S+|x\d+(\.\d+)?\s*(?=[−-])|[A-Za-z]+\d+[A-Za-z\d]*"
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: The report's own constants: the CI level, and zero (no failed runs in the fixture).
_REPORT = (95.0, 0.0)


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(_NOT_NUMBERS.sub(" ", text))


def _prose(blocks: list) -> list[str]:
    """The prose of a page: paragraphs and bullet lists, except what code formats from the analysis
    itself (the findings' details, the claims' verdict counts, the tables' unit and reference captions)."""
    out, section = [], ""
    for b in blocks:
        if isinstance(b, Heading):
            section = b.text
        elif isinstance(b, Para) and section != "Claims of the paper" and not b.text.startswith("Unit: "):
            out.append(b.text)
        elif isinstance(b, Bullets) and section != "Findings":
            out += [str(i) for i in b.items]
    return out


def _fill(cells: list[TableCell], k: float) -> list[TableCell]:
    """Synthetic measurements: every cell k times its published value (or an arbitrary base), with a CI."""
    out = []
    for i, c in enumerate(cells):
        base = c.published if c.published else 3.0 + (i % 7)
        mean = base * k + 0.0137 * (i % 11)
        out.append(dataclasses.replace(c, mean=mean, ci95=0.02 * abs(mean), n=3))
    return out


def _template(text: str) -> str:
    """A paragraph with its numbers blanked: the same sentence rendered from other data has the same one."""
    return _NUMBER.sub("#", text)


def _counterparts(page: list[str], other: list[str]) -> list[set[str]]:
    """For each paragraph of ``page``, the numbers of the same paragraph on the ``other`` rendering: the
    one with the same template (in order), else every number of ``other`` (a paragraph only one
    rendering has, e.g. a deviation cause, is compared with the whole other page, never skipped)."""
    pool: dict[str, list[str]] = {}
    for t in other:
        pool.setdefault(_template(t), []).append(t)
    everything = {n for t in other for n in numbers(t)}
    out = []
    for t in page:
        same = pool.get(_template(t))
        out.append(set(numbers(same.pop(0))) if same else everything)
    return out


def _without(text: str, phrases: tuple[str, ...]) -> str:
    for p in phrases:
        text = text.replace(p, " ")
    return text


def _matches(token: str, values: set[float]) -> bool:
    decimals = len(token.split(".")[1]) if "." in token else 0
    x = float(token)
    return any(round(v, decimals) == x or (decimals == 0 and abs(v - x) < 0.5) for v in values)


@pytest.mark.parametrize("name", sorted(all_experiments()))
def test_every_number_in_the_prose_comes_from_the_data(tmp_path: Path, name: str) -> None:
    exp = all_experiments()[name]
    with Store(tmp_path / "empty.db") as store:
        cells, findings = exp.analyse(store, False)
    phrases: tuple[str, ...] = getattr(exp, "PROSE_CONSTANTS", ())
    pages = []
    for k, ok in ((1.37, 11), (0.55, 23)):
        pages.append(_prose(experiment_blocks(exp, _fill(cells, k), findings, False, ok, [], [])))
    unused = [p for p in phrases if not any(p in t for t in pages[0])]
    assert not unused, f"{name}: PROSE_CONSTANTS phrases the prose no longer contains: {unused}"
    allowed = {float(c.published) for c in cells if c.published is not None}
    allowed |= set(_REPORT) | {float(len(exp.sweeps(False)))}
    pages = [[_without(t, phrases) for t in page] for page in pages]
    stale = []
    for text, other in zip(pages[0], _counterparts(pages[0], pages[1]), strict=True):
        for tok in numbers(text):
            if tok in other and not _matches(tok, allowed):
                stale.append((tok, text[:160]))
    assert not stale, f"{name}: numbers typed into the prose (neither data nor declared constants): {stale}"


def test_the_prose_check_catches_a_typed_number() -> None:
    # The M-TCP+ page's old baseline ("ours 231.0 s") is a typed number; the filter finds it.
    assert "231.0" in numbers("Table 2's 261.0 s (ours 231.0 s; 11 Mb/s gives 152.4 s), RFC 6298, 802.11b")
    assert numbers("Fig. 8, §4.2.1, Table 2, eq. (3), C1") == []
    assert not _matches("231.0", {261.0, 5.5}) and _matches("261", {261.0})


def test_a_declared_phrase_exempts_only_itself() -> None:
    # "DSSS 2 Mb/s" declares the 2 where it stands; a "2 %" elsewhere is still checked.
    assert numbers(_without("DSSS 2 Mb/s; a stale 2 %", ("DSSS 2 Mb/s",))) == ["2"]


def test_paragraphs_are_compared_with_the_same_sentence_of_the_other_rendering() -> None:
    # A paragraph present in one rendering only (a deviation cause) shifts the others: each is compared
    # with its own sentence, not with the one at its index, so a typed 7 stays found.
    page = ["cut 12.5 %", "typed 7 here"]
    other = ["extra 3.1", "cut 4.5 %", "typed 7 here"]
    assert _counterparts(page, other) == [{"4.5"}, {"7"}]
    assert _counterparts(["gone 9"], ["x 1"]) == [{"1"}]
