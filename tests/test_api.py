"""The Python API over the real core: inputs, Result frames, determinism, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tcplab
from conftest import WIRED_TOML
from tcplab.store import summary_text


def same_run(a: tcplab.Result, b: tcplab.Result) -> bool:
    """Equal results apart from wall-clock time."""
    return summary_text(a.summary) == summary_text(b.summary) and a.series.equals(b.series)


def test_run_accepts_dict_path_and_toml_text(wired: dict[str, Any], wired_toml: Path) -> None:
    from_dict = tcplab.run(wired, seed=3)
    from_path = tcplab.run(wired_toml, seed=3)
    from_str_path = tcplab.run(str(wired_toml), seed=3)
    from_text = tcplab.run(WIRED_TOML, seed=3)
    assert same_run(from_dict, from_path)
    assert same_run(from_dict, from_str_path)
    assert same_run(from_dict, from_text)


def test_result_shape(wired: dict[str, Any]) -> None:
    res = tcplab.run(wired, seed=1)
    s = res.summary
    assert {"scenario", "seed", "sim_time_s", "wall_time_s", "events", "flows", "links"} <= set(s)
    assert "series" not in s
    assert s["seed"] == 1 and s["scenario"] == "wired_tiny" and s["events"] > 0
    assert res.flows.height == 1 and res.flows["name"][0] == "download"
    flow = res.flows.row(0, named=True)
    assert flow["completed"] and flow["bytes_delivered"] == 200_000
    assert flow["goodput_bps"] > 0 and flow["response_time_s"] > 0
    assert res.flows.schema["response_time_s"] == pl.Float64
    assert res.links.height >= 2
    assert res.series.columns == ["flow", "at", "series", "t_s", "value"]
    assert json.loads(res.to_json())["flows"][0]["name"] == "download"


def test_same_seed_is_deterministic(wired: dict[str, Any]) -> None:
    a, b = tcplab.run(wired, seed=42), tcplab.run(wired, seed=42)
    assert same_run(a, b)
    assert a.summary["wall_time_s"] >= 0


def test_different_seeds_differ_under_random_loss(wired: dict[str, Any]) -> None:
    wired["links"][1]["loss"]["p"] = 0.05
    events = {tcplab.run(wired, seed=s).summary["events"] for s in (1, 2, 3)}
    assert len(events) > 1


def test_overrides_change_the_run(wired: dict[str, Any]) -> None:
    res = tcplab.run(wired, seed=1, overrides={"tcp.variant": "sack", "flows.download.size": "100KB"})
    flow = res.flows.row(0, named=True)
    assert flow["variant"] == "sack" and flow["bytes_delivered"] == 100_000
    assert tcplab.resolve(wired, {"links.bottleneck.rate": "5Mbps"}) != tcplab.resolve(wired)


def test_resolve_fills_defaults_and_roundtrips(wired: dict[str, Any]) -> None:
    resolved = tcplab.resolve(wired)
    assert json.loads(json.dumps(resolved)) == resolved
    # A resolved scenario is itself a valid scenario that resolves to itself and runs the same.
    assert tcplab.resolve(resolved) == resolved
    assert same_run(tcplab.run(resolved, seed=5), tcplab.run(wired, seed=5))


def test_scenario_error_lists_every_problem(wired: dict[str, Any]) -> None:
    wired["tcp"]["variant"] = "bogus"
    wired["links"][1]["rate"] = "fast"
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(wired)
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, tcplab.TcplabError)
    locs = [e["loc"] for e in err.errors()]
    assert any("variant" in loc for loc in locs) and any("rate" in loc for loc in locs)
    assert all(e["msg"] for e in err.errors())


def test_bad_override_is_a_scenario_error(wired: dict[str, Any]) -> None:
    with pytest.raises(tcplab.ScenarioError):
        tcplab.run(wired, overrides={"links.nonexistent.rate": "5Mbps"})


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        tcplab.run(tmp_path / "missing.toml")


def test_schema_and_version() -> None:
    schema = tcplab.schema()
    assert isinstance(schema, dict) and schema
    assert isinstance(tcplab.__version__, str) and tcplab.__version__


@pytest.mark.parametrize(("seed", "error"), [(-1, tcplab.ScenarioError), (2**64, tcplab.ScenarioError),
                                             (1.5, TypeError), (True, TypeError), ("1", TypeError)])
def test_api_refuses_a_bad_seed_by_name(seed: object, error: type) -> None:
    with pytest.raises(error, match="^seed: "):
        tcplab.run("examples/wired_bottleneck.toml", seed=seed)  # type: ignore[arg-type]
