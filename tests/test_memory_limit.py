"""Scenarios that cannot fit in memory are refused before the run, with the estimate (issue 38):
10^5 nodes used to abort the process (memory allocation failed, exit 134)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import tcplab

from conftest import run_cli


def _chain(n: int) -> dict:
    return {
        "name": "many",
        "duration": "10ms",
        "nodes": [{"name": f"n{i}"} for i in range(n)],
        "links": [{"a": "n0", "b": "n1", "rate": "10Mbps", "delay": "1ms"}],
        "flows": [{"name": "f", "app": "bulk", "client": "n0", "server": "n1"}],
    }


def test_100k_nodes_are_refused_with_the_estimate(tmp_path: Path) -> None:
    scen = tmp_path / "many.json"
    scen.write_text(json.dumps(_chain(100_000)))
    env_limit = {"TCPLAB_MEMORY_LIMIT": "8GB"}  # the machine's memory must not decide the test
    old = {k: os.environ.get(k) for k in env_limit}
    os.environ.update(env_limit)
    try:
        with pytest.raises(tcplab.ScenarioError) as e:
            tcplab.run(scen)
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    (err,) = e.value.errors()
    assert err["loc"] == "nodes"
    assert err["msg"].startswith("100000 nodes need about 120.4 GB of memory")
    assert "limit of 8.0 GB (TCPLAB_MEMORY_LIMIT=8GB)" in err["msg"]


def test_cli_refuses_by_the_machine_limit_and_the_variable_overrides(tmp_path: Path) -> None:
    scen = tmp_path / "many.json"
    scen.write_text(json.dumps(_chain(100_000)))  # 120 GB: beyond this machine's memory
    r = run_cli("run", str(scen))
    assert r.returncode == 2, r.stderr
    assert "nodes: 100000 nodes need about 120.4 GB" in r.stderr and "available" in r.stderr
    assert "Traceback" not in r.stderr
    small = tmp_path / "small.json"
    small.write_text(json.dumps(_chain(3)))
    os.environ["TCPLAB_MEMORY_LIMIT"] = "1KB"
    try:
        r = run_cli("run", str(small))
        assert r.returncode == 2 and "limit of 0.0 GB (TCPLAB_MEMORY_LIMIT=1KB)" in r.stderr
        os.environ["TCPLAB_MEMORY_LIMIT"] = "lots"
        r = run_cli("run", str(small))
        assert r.returncode == 2 and "TCPLAB_MEMORY_LIMIT:" in r.stderr
        os.environ["TCPLAB_MEMORY_LIMIT"] = "none"
        assert run_cli("run", str(small)).returncode == 0
    finally:
        del os.environ["TCPLAB_MEMORY_LIMIT"]
