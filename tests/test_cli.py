"""The ``tcplab`` command as a user (or script) sees it: output formats, exit codes, files."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from conftest import ROOT, run_cli

JSON_KEYS = {"scenario", "seed", "sim_time_s", "wall_time_s", "events", "flows", "links", "cbr", "byte_conservation_checked"}
FLOW_KEYS = {
    "name",
    "variant",
    "completed",
    "aborted",
    "bytes_delivered",
    "response_time_s",
    "goodput_bps",
    "segments_sent",
    "retransmissions",
    "timeout_retransmissions",
    "fast_retransmissions",
    "timeouts",
    "spurious_retransmissions",
    "retransmission_ratio_pct",
}


def test_run_json_prints_one_object(wired_toml: Path) -> None:
    proc = run_cli("run", str(wired_toml), "--seed", "7", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # exactly one JSON document, nothing else on stdout
    # The scenario traces cwnd: the series come with the summary (columns, docs/trace.md).
    assert set(doc) == JSON_KEYS | {"series"}
    assert set(doc["series"]) == {"flow", "at", "series", "t_s", "value"} and set(doc["series"]["series"]) == {"cwnd"}
    assert doc["seed"] == 7
    assert FLOW_KEYS <= set(doc["flows"][0])


def test_run_table_output(wired_toml: Path) -> None:
    proc = run_cli("run", str(wired_toml))
    assert proc.returncode == 0, proc.stderr
    assert "download" in proc.stdout and "newreno" in proc.stdout


def test_set_overrides(wired_toml: Path) -> None:
    proc = run_cli("run", str(wired_toml), "--json", "--set", "tcp.variant=sack", "--set", "flows.download.size=50KB")
    assert proc.returncode == 0, proc.stderr
    flow = json.loads(proc.stdout)["flows"][0]
    assert flow["variant"] == "sack" and flow["bytes_delivered"] == 50_000


def test_out_writes_summary_atomically(wired_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_cli("run", str(wired_toml), "--seed", "2", "--out", str(out), "--pcap")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 2 and summary["flows"]
    assert any(p.suffix == ".pcap" for p in out.iterdir()), sorted(out.iterdir())
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left
    # The scenario traces cwnd, so the series file must be there (and hold that series).
    series = pl.read_parquet(out / "series.parquet")
    assert series.columns == ["flow", "at", "series", "t_s", "value"]
    assert series.height > 0 and set(series["series"]) == {"cwnd"}


def test_bad_input_exits_2_and_writes_nothing(wired_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_cli(
        "run", str(wired_toml), "--out", str(out), "--set", "tcp.variant=bogus", "--set", "links.bottleneck.rate=fast"
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) >= 2 and all(": " in line for line in lines)
    assert any("variant" in line for line in lines) and any("rate" in line for line in lines)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["wired.toml"]


def test_bad_arguments_exit_2(wired_toml: Path, tmp_path: Path) -> None:
    assert run_cli("run", str(tmp_path / "missing.toml")).returncode == 2
    assert run_cli("run", str(wired_toml), "--set", "no-equals-sign").returncode == 2
    assert run_cli("run", str(wired_toml), "--pcap").returncode == 2
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    proc = run_cli("run", str(broken))
    assert proc.returncode == 2 and proc.stderr


def test_schema_is_json() -> None:
    proc = run_cli("schema")
    assert proc.returncode == 0
    schema = json.loads(proc.stdout)
    assert isinstance(schema, dict) and ("properties" in schema or "$schema" in schema)


def test_out_never_clobbers_foreign_folders(wired_toml: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    proc = run_cli("run", str(wired_toml), "--out", str(foreign))
    assert proc.returncode == 2 and (foreign / "notes.txt").read_text() == "keep me"
    # A previous run's output folder is replaced whole.
    out = tmp_path / "out"
    assert run_cli("run", str(wired_toml), "--seed", "1", "--out", str(out)).returncode == 0
    assert run_cli("run", str(wired_toml), "--seed", "2", "--out", str(out)).returncode == 0
    assert json.loads((out / "summary.json").read_text())["seed"] == 2


BAD_FILES = {
    # case: (edit of the example file, text the error must contain)
    "unknown field": (lambda t: t.replace('delay = "20ms"', 'delay = "20ms"\nlatency = "5ms"'), "latency"),
    "negative rate": (lambda t: t.replace('rate = "10Mbps"', 'rate = "-10Mbps"'), "links.bottleneck.rate"),
    "unknown node in a link": (lambda t: t.replace('b = "client"', 'b = "clinet"'), "links.bottleneck.b"),
    "missing unit": (lambda t: t.replace('delay = "20ms"', 'delay = "20"'), "links.bottleneck.delay"),
    "malformed TOML": (lambda t: t.replace('name = "wired_bottleneck"', 'name = "wired_bottleneck'), "TOML"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_scenario_files_name_the_field_and_write_nothing(case: str, tmp_path: Path) -> None:
    edit, expected = BAD_FILES[case]
    text = (ROOT / "examples" / "wired_bottleneck.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(edit(text))
    assert bad.read_text() != text
    out = tmp_path / "out"
    proc = run_cli("run", str(bad), "--out", str(out), "--pcap")
    assert proc.returncode != 0
    assert expected in proc.stderr, proc.stderr
    assert not out.exists()
