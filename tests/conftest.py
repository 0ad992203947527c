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



# ------------------------------------------------------------------ pytest-xdist (opt-in)
# `make test PYTEST_WORKERS=2` runs this suite on two pytest-xdist workers (`-n 2 --dist loadfile
# --no-loadscope-reorder`): one test process rarely keeps both cores busy (the core, tshark and ns-2
# are single-threaded). Each file is one work unit (its module fixtures run once) and the units are
# handed out longest first, so that no long one is left for the end. Not the default yet: the files
# that start Ray should share one unit (two local Rays at once see each other's folders in /tmp, which
# test_ray_files.py checks are left clean), and xdist 3.8's `loadgroup` does not group under pytest 9
# (it renames `item._nodeid`, which pytest 9 no longer reads). A run in one process keeps file order.
FIRST = ("test_reproduce_quick.py", "test_captures.py", "test_fuzz_front_door.py", "test_pcap.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:  # the workers collect; their order is the units' order
        return
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda it: rank.get(it.path.name, len(FIRST)))  # stable: the rest keep their order
