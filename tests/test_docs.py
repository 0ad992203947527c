"""The scenario docs stay true: the reference is generated from the schema and committed current,
and the tutorial's examples are valid."""

from __future__ import annotations

import re

import tcplab
from conftest import ROOT
from tcplab.schema_doc import render

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

TUTORIAL = (ROOT / "docs" / "scenario.md").read_text()
BLOCKS = re.findall(r"```toml\n(.*?)```", TUTORIAL, re.S)


def test_reference_is_generated_from_the_current_schema() -> None:
    committed = (ROOT / "docs" / "scenario-reference.md").read_text()
    assert committed == render(), "regenerate: python -m tcplab.schema_doc > docs/scenario-reference.md"


def test_reference_covers_every_section() -> None:
    ref = render()
    for section in ("## WlanSpec", "## StationSpec", "## AgentSpec", "## TraceSpec", "## FlowSpec", "## TcpConfig"):
        assert section in ref
    for name in tcplab.schema()["properties"]:
        assert f"| `{name}` |" in ref


def test_tutorial_examples_are_valid() -> None:
    assert len(BLOCKS) >= 5
    for block in BLOCKS:
        tomllib.loads(block)  # every snippet is TOML
    first = tcplab.resolve(BLOCKS[0])  # the first is a whole scenario
    assert first["links"][1]["queue"]["packets"] == 50
    assert "[sweep]" in BLOCKS[-1] and "## Sweeps: the sweep file" in TUTORIAL
