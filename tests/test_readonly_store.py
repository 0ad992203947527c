"""A results store that cannot be written (read-only file, read-only folder) can still be read:
``tcplab results`` and ``tcplab.results`` open it read-only (issue 38).

root ignores file modes, so when the tests run as root the reading commands run as the user
``nobody`` (setpriv); the store's files and folders are world-readable for that."""

from __future__ import annotations

import copy
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import tcplab

from conftest import WIRED

ROOT_USER = os.geteuid() == 0
pytestmark = pytest.mark.skipif(ROOT_USER and shutil.which("setpriv") is None, reason="needs setpriv as root")


def _as_reader(*args: str) -> subprocess.CompletedProcess[str]:
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if ROOT_USER else []
    env = dict(os.environ, COLUMNS="200", HOME="/tmp", MPLCONFIGDIR="/tmp")
    return subprocess.run([*drop, sys.executable, *args], capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture
def store() -> Path:
    top = Path(tempfile.mkdtemp(prefix="tcplab-ro-"))  # not under pytest's root-only tmp folder
    folder = top / "results"
    base = copy.deepcopy(WIRED)
    base["duration"] = "1s"
    tcplab.sweep(base, replications=2, store=folder / "tcplab.db", name="ro", workers=1)
    for p in [top, *folder.rglob("*"), folder]:
        p.chmod(0o555 if p.is_dir() else 0o444)  # read-only files and folders, readable by all
    yield folder / "tcplab.db"
    for p in [top, folder, *folder.rglob("*")]:
        p.chmod(stat.S_IRWXU)
    shutil.rmtree(top)


def test_cli_results_reads_a_readonly_store(store: Path) -> None:
    assert not (store.parent / "tcplab.db-wal").exists()
    for extra in ([], ["--summary", "goodput_bps"]):
        r = _as_reader("-m", "tcplab", "results", "--store", str(store), *extra)
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
    assert "2 runs: 2 ok, 0 failed" in _as_reader("-m", "tcplab", "results", "--store", str(store)).stdout
    assert sorted(p.name for p in store.parent.iterdir()) == ["series", "tcplab.db"]  # nothing written


def test_api_results_reads_a_readonly_store(store: Path) -> None:
    code = f"import tcplab; r = tcplab.results({str(store)!r}); print(r.ok.height, r.series(r.ok['key'][0]).height > 0)"
    r = _as_reader("-c", code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "True"]
