"""A sweep whose axes or values the scenario refuses is refused before anything runs or is stored,
naming the sweep field, the value and what is allowed (exit 2); a run that fails while running
is listed by ``tcplab sweep`` with its reason (issue 38, docs/validation/robustness.md)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import tcplab

from conftest import WIRED, WIRED_TOML, run_cli


def _sweep_file(tmp_path: Path, grid: str, extra: str = "") -> Path:
    (tmp_path / "wired.toml").write_text(WIRED_TOML)
    f = tmp_path / "sweep.toml"
    f.write_text(f'[sweep]\nname = "s"\nbase = "wired.toml"\nreplications = 2\n{extra}[sweep.grid]\n{grid}')
    return f


@pytest.mark.parametrize(
    ("grid", "phrases"),
    [
        ('"links.bottlenek.rate" = ["5Mbps", "10Mbps"]',
         ['sweep.grid."links.bottlenek.rate": \'5Mbps\', \'10Mbps\'', "no entry named 'bottlenek' in 'links'",
          "names: access, bottleneck"]),
        ('"links.bottleneck.rate" = ["5mbps", "10Mbps"]',
         ['sweep.grid."links.bottleneck.rate": \'5mbps\' →', "allowed: bps, kbps, Mbps"]),
        ('"links.bottleneck.queue.kind" = ["droptail", "codel"]',
         ['sweep.grid."links.bottleneck.queue.kind": \'codel\'', "allowed: droptail, red"]),
    ],
    ids=["axis naming no entry", "value without a known unit", "value not allowed"],
)
def test_cli_sweep_with_a_bad_axis_is_refused_before_anything_runs(
    tmp_path: Path, grid: str, phrases: list[str]
) -> None:
    f = _sweep_file(tmp_path, grid)
    r = run_cli("sweep", str(f), "--store", str(tmp_path / "st" / "db.sqlite"), "--workers", "1")
    assert r.returncode == 2, r.stderr  # was 1, with only "… N failed"
    for p in phrases:
        assert p in r.stderr, r.stderr
    assert "sweep s not run: nothing was simulated or stored" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "st").exists()  # was: a store holding every run as failed


def test_api_sweep_with_a_bad_axis_raises_before_the_store_is_made(tmp_path: Path) -> None:
    store = tmp_path / "st" / "db.sqlite"
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.sweep(WIRED, grid={"links.bottlenek.rate": ["5Mbps"]}, store=store, progress=False)
    (err,) = e.value.errors()
    assert err["loc"] == 'sweep.grid."links.bottlenek.rate"'
    assert "no entry named 'bottlenek'" in err["msg"] and "names: access, bottleneck" in err["msg"]
    assert not store.parent.exists()


@pytest.mark.parametrize(
    ("kwargs", "loc", "phrase"),
    [
        ({"variants": ["reno", "bogus"]}, "sweep.variants", "allowed: reno, newreno"),
        ({"cells": [{}, {"tcp.variant": "bogus"}]}, 'sweep.cells[1]."tcp.variant"', "allowed: reno, newreno"),
        ({"grid": {"tcp.variant": ["reno"], "tcp.rto_min": ["1 fortnight"]}}, 'sweep.grid."tcp.rto_min"',
         "allowed: ns, us, ms, s, min, h"),
        # The error names the link (links.bottleneck.rate), the axis its index.
        ({"grid": {"tcp.variant": ["reno"], "links[1].rate": ["1 fortnight"]}}, 'sweep.grid."links[1].rate"',
         "allowed: bps, kbps, Mbps"),
    ],
    ids=["variants", "explicit cell", "second axis", "axis by index"],
)
def test_each_refusal_names_the_sweep_field_that_gave_the_value(
    tmp_path: Path, kwargs: dict[str, Any], loc: str, phrase: str
) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.sweep(WIRED, store=tmp_path / "db.sqlite", progress=False, **kwargs)
    errs = e.value.errors()
    assert [x["loc"] for x in errs] == [loc], errs
    assert "'bogus'" in errs[0]["msg"] or "fortnight" in errs[0]["msg"]
    assert phrase in errs[0]["msg"], errs
    assert not (tmp_path / "db.sqlite").exists()


def test_a_broken_base_scenario_is_named_as_the_base(tmp_path: Path) -> None:
    base = copy.deepcopy(WIRED)
    base["links"][1]["rate"] = "fast"
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.sweep(base, grid={"tcp.variant": ["reno", "sack"]}, store=tmp_path / "db.sqlite", progress=False, name="s")
    (err,) = e.value.errors()
    assert err["loc"] == "sweep.base" and err["msg"].startswith("links.bottleneck.rate: ")


def test_cli_sweep_prints_the_reason_of_each_run_that_failed_while_running(tmp_path: Path) -> None:
    f = _sweep_file(tmp_path, "max_events = [10, 100000000]\n")
    r = run_cli("sweep", str(f), "--store", str(tmp_path / "db.sqlite"), "--workers", "1")
    assert r.returncode == 1, r.stderr
    assert "4 runs, 0 already stored, 4 executed, 2 failed" in r.stderr
    for seed in (1, 2):
        assert f"  failed: max_events=10 seed {seed}: SimulationError: event limit of 10 events reached" in r.stderr
    assert "max_events=100000000 seed" not in r.stderr


def test_cli_sweep_lists_ten_failed_runs_and_counts_the_rest(tmp_path: Path) -> None:
    f = _sweep_file(tmp_path, "max_events = [10]\n", extra="").read_text().replace("replications = 2", "replications = 12")
    (tmp_path / "many.toml").write_text(f)
    r = run_cli("sweep", str(tmp_path / "many.toml"), "--store", str(tmp_path / "db.sqlite"), "--workers", "2")
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("  failed: max_events=10 seed ") == 10
    assert "… and 2 more failed runs (tcplab results --store" in r.stderr
