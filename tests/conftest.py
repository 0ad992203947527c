"""Shared fixtures: a small wired scenario that runs in milliseconds, and a CLI runner.

The tests drive the real compiled core (``tcplab._core``); scenarios are kept short so the whole
suite stays within a few minutes on two cores.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

WIRED: dict[str, Any] = {
    "name": "wired_tiny",
    "duration": "10s",
    "tcp": {"variant": "newreno", "rcv_buf": "64KiB"},
    "nodes": [{"name": "server"}, {"name": "router"}, {"name": "client"}],
    "links": [
        {"name": "access", "a": "server", "b": "router", "rate": "100Mbps", "delay": "1ms"},
        {
            "name": "bottleneck",
            "a": "router",
            "b": "client",
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"kind": "droptail", "packets": 50},
            "loss": {"model": "bernoulli", "p": 0.01},
        },
    ],
    "flows": [{"name": "download", "app": "bulk_download", "client": "client", "server": "server", "size": "200KB"}],
    "trace": {"series": ["cwnd"], "interval": "100ms", "pcap": ["bottleneck"]},
}

WIRED_TOML = """\
name = "wired_tiny"
duration = "10s"
[tcp]
variant = "newreno"
rcv_buf = "64KiB"
[[nodes]]
name = "server"
[[nodes]]
name = "router"
[[nodes]]
name = "client"
[[links]]
name = "access"
a = "server"
b = "router"
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
a = "router"
b = "client"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", packets = 50 }
loss = { model = "bernoulli", p = 0.01 }
[[flows]]
name = "download"
app = "bulk_download"
client = "client"
server = "server"
size = "200KB"
[trace]
series = ["cwnd"]
interval = "100ms"
pcap = ["bottleneck"]
"""


@pytest.fixture
def wired() -> dict[str, Any]:
    """A fresh copy of the small wired scenario as a dict (tests may modify it)."""
    return copy.deepcopy(WIRED)


@pytest.fixture
def wired_toml(tmp_path: Path) -> Path:
    """The small wired scenario as a TOML file."""
    path = tmp_path / "wired.toml"
    path.write_text(WIRED_TOML)
    return path


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tcplab ARGS`` as a user would, capturing stdout and stderr.

    ``timeout`` is a safety net against a hung command, far above any run's time on a loaded machine.
    """
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout
    )


def holds_then_fails(verdict: Any, data: Any, counter: Any) -> None:
    """A finding check that can fail: ``verdict(*data)`` holds on the paper-like ``data`` and fails
    once ``counter(*data)`` has edited it into a counter-example."""
    from tcplab.stats import FAILS, HOLDS

    assert verdict(*data) == HOLDS
    counter(*data)
    assert verdict(*data) == FAILS


def ns2_first_ack_at_node0(script: str, settle_s: float, folder: Path) -> float | None:
    """Runs an ns-2 script (seed 1) in ``folder`` and returns the seconds from the (settled) start of
    the transfer to the first ACK that wired node 0, the sender, receives; None if none arrives."""
    path = folder / f"first_ack{settle_s:g}.tcl"
    path.write_text(script)
    subprocess.run(["ns", str(path), "1", "out.tr"], cwd=folder, check=True, capture_output=True, timeout=300)
    for line in (folder / "out.tr").read_text().splitlines():
        tok = line.split()
        if len(tok) > 4 and tok[0] == "r" and tok[3] == "0" and tok[4] == "ack":
            return float(tok[1]) - settle_s
    return None


# ------------------------------------------------------------------ make test's two pytest workers
# `make test` runs this suite with pytest-xdist on two workers (`-n 2 --dist loadgroup
# --no-loadscope-reorder`, Makefile py-test): one test process rarely keeps both cores busy (the core,
# tshark and ns-2 are single-threaded), so one worker alone left a core idle for most of the suite.
# Each file is one work unit (its module fixtures run once), the units are handed out in the order
# below, the longest first so that no long one is left for the end, and the files that start Ray
# share one unit: two local Rays at once would see each other's folders in /tmp, which
# test_ray_files.py checks are left clean. Without xdist the order is the same and the marks are unused.
FIRST = ("test_reproduce_quick.py", "test_captures.py", "RAY", "test_pcap.py")
RAY = {
    "test_fuzz_front_door.py",
    "test_ray_files.py",
    "test_ray_localhost.py",
    "test_ray_stale_folders.py",
    "test_sweep.py",
    "test_sweep_api.py",
    "test_sweep_executors.py",
}


def _unit(item: pytest.Item) -> str:
    name = item.path.name
    return "RAY" if name in RAY else name


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {u: i for i, u in enumerate(FIRST)}
    items.sort(key=lambda it: rank.get(_unit(it), len(FIRST)))  # stable: the rest keep their order
    for it in items:
        it.add_marker(pytest.mark.xdist_group(_unit(it)))
