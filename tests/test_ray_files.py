"""A Ray instance started by tcplab writes no file outside tcplab's own temporary folder (issue
38): not Ray's session folder (``$TMPDIR/ray`` or ``/tmp/ray``, kept by Ray after the run), not
the authentication token Ray >= 2.5x saves as ``~/.ray/auth_token``; and the environment
variables Ray sets in the driver are restored (python/tcplab/runner.py ``_private_files``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import WIRED_TOML
from tcplab.runner import _private_files

CHILD = r"""
import json, os, sys, tcplab
res = tcplab.sweep(sys.argv[1], grid={"duration": ["1s"]}, replications=2, executor="ray",
                   workers=1, store=sys.argv[2], name="files", progress=False)
runs = res.runs
print(json.dumps({"ok": int((runs["status"] == "ok").sum()), "runs": runs.height, "pid": os.getpid(),
                  "env": {k: os.environ.get(k) for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_MODE")}}))
"""


def _owned_by(folder: Path, pid: int) -> bool:
    """Whether ``folder``'s owner file (``tcplab-ray <pid>-<start ticks>``) names process ``pid``."""
    try:
        return (folder / ".tcplab-owner").read_text().split()[1].split("-")[0] == str(pid)
    except (OSError, IndexError):
        return False


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("tmpdir_kind", ["short", "long"])
def test_a_local_ray_leaves_no_file_in_home_or_tmpdir(tmp_path: Path, tmpdir_kind: str) -> None:
    """A short TMPDIR holds tcplab's Ray folder while the sweep runs; a long one (pytest's) would
    make Ray's socket paths exceed 107 bytes (before: Ray's OSError and a traceback, exit 1), so
    the folder goes to /tmp instead. Either way nothing is left, in HOME, TMPDIR or /tmp."""
    pytest.importorskip("ray")
    home, work = tmp_path / "home", tmp_path / "work"
    tmp = Path(tempfile.mkdtemp(prefix="t", dir="/tmp")) if tmpdir_kind == "short" else tmp_path / "tmp"
    try:
        for d in (home, tmp, work):
            d.mkdir(exist_ok=True)
        scenario = work / "wired.toml"
        scenario.write_text(WIRED_TOML)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env |= {"HOME": str(home), "TMPDIR": str(tmp)}
        ours_before = set(Path("/tmp").glob("tcplab-ray-*"))
        p = subprocess.run(
            [sys.executable, "-c", CHILD, str(scenario), str(work / "db.sqlite")],
            capture_output=True, text=True, env=env, cwd=work, timeout=900,
        )
        assert p.returncode == 0, p.stderr[-3000:]
        got = json.loads(p.stdout.strip().splitlines()[-1])
        assert got["ok"] == got["runs"] == 2  # Ray ran them: the checks below would otherwise prove nothing
        assert _tree(home) == [], "written in HOME"  # was: .ray/auth_token
        assert _tree(tmp) == [], "left in TMPDIR"  # was: ray/session_<date>_…/ (logs, sockets)
        # Only the child's own folder counts: other tcplab processes on the machine may be making theirs.
        left = [d for d in set(Path("/tmp").glob("tcplab-ray-*")) - ours_before if _owned_by(d, got["pid"])]
        assert left == [], "left in /tmp"
        assert got["env"] == {"RAY_AUTH_TOKEN": None, "RAY_AUTH_MODE": None}  # was: RAY_AUTH_MODE=token
    finally:
        if tmpdir_kind == "short":
            shutil.rmtree(tmp, ignore_errors=True)


def test_the_private_folder_goes_and_the_environment_is_restored_on_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # the user's own setting
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    with pytest.raises(RuntimeError, match="boom"), _private_files(None) as scratch:
        # In TMPDIR, or in /tmp when TMPDIR is too long for Ray's socket paths (as tmp_path is).
        assert Path(scratch).parent in (tmp_path, Path("/tmp")) and Path(scratch).name.startswith("tcplab-ray-")
        assert len(scratch) <= 40 and Path(scratch).is_dir()
        token = os.environ["RAY_AUTH_TOKEN"]
        assert len(token) == 64 and int(token, 16) >= 0  # 256 bits, hex
        (Path(scratch) / "session").mkdir()
        os.environ["RAY_AUTH_MODE"] = "token"  # what Ray's ray.init does in the driver
        raise RuntimeError("boom")
    assert not Path(scratch).exists() and _tree(tmp_path) == []
    assert "RAY_AUTH_TOKEN" not in os.environ and os.environ["RAY_AUTH_MODE"] == "disabled"


def test_a_ray_that_fails_to_start_is_a_runtime_error_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ray's start-up errors are plain Exceptions (seen on the loaded machine: "The current node
    timed out during startup"), which reached the user as a traceback; now a RuntimeError naming
    what failed (the CLI prints it, exit 1), and the private folder and environment are undone."""
    ray = pytest.importorskip("ray")
    from tcplab.runner import Task, _run_ray

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    import tempfile as tf

    monkeypatch.setattr(tf, "tempdir", None)
    seen: dict[str, object] = {}

    def init(**kwargs: object) -> None:
        seen.update(kwargs, token=os.environ.get("RAY_AUTH_TOKEN"))
        raise Exception("The current node timed out during startup.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    ours_before = set(Path("/tmp").glob("tcplab-ray-*"))
    with pytest.raises(RuntimeError, match="the ray executor could not start a local Ray: The current node timed out"):
        list(_run_ray([Task("k", "", "toml", (), 1)], 1, None))
    assert seen["address"] == "local" and seen["_node_ip_address"] == "127.0.0.1"
    assert isinstance(seen["token"], str) and not Path(str(seen["_temp_dir"])).exists()
    assert _tree(tmp_path) == [] and set(Path("/tmp").glob("tcplab-ray-*")) <= ours_before
    assert "RAY_AUTH_TOKEN" not in os.environ and "RAY_AUTH_MODE" not in os.environ
