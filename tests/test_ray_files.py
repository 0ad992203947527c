"""A Ray instance started by tcplab writes no file outside tcplab's own temporary folder (issue
38): not Ray's session folder (``$TMPDIR/ray`` or ``/tmp/ray``, kept by Ray after the run), not
the authentication token Ray >= 2.5x saves as ``~/.ray/auth_token``; and the environment
variables Ray sets in the driver are restored (python/tcplab/runner.py ``_private_files``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import WIRED_TOML
from tcplab.runner import _private_files

CHILD = r"""
import json, os, sys, tcplab
res = tcplab.sweep(sys.argv[1], grid={"duration": ["1s"]}, replications=2, executor="ray",
                   workers=1, store=sys.argv[2], name="files", progress=False)
runs = res.runs
print(json.dumps({"ok": int((runs["status"] == "ok").sum()), "runs": runs.height,
                  "env": {k: os.environ.get(k) for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_MODE")}}))
"""


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_local_ray_leaves_no_file_in_home_or_tmpdir(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    home, tmp, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "work"
    for d in (home, tmp, work):
        d.mkdir()
    scenario = work / "wired.toml"
    scenario.write_text(WIRED_TOML)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env |= {"HOME": str(home), "TMPDIR": str(tmp)}
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(scenario), str(work / "db.sqlite")],
        capture_output=True, text=True, env=env, cwd=work, timeout=900,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["ok"] == got["runs"] == 2  # Ray ran them: the check below would otherwise prove nothing
    assert _tree(home) == [], "written in HOME"  # was: .ray/auth_token
    assert _tree(tmp) == [], "left in TMPDIR"  # was: ray/session_<date>_…/ (logs, sockets)
    assert got["env"] == {"RAY_AUTH_TOKEN": None, "RAY_AUTH_MODE": None}  # was: RAY_AUTH_MODE=token


def test_the_private_folder_goes_and_the_environment_is_restored_on_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # the user's own setting
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    import tempfile

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
