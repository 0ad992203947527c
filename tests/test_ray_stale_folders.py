"""A driver killed with SIGKILL leaves its private Ray folder (``tcplab-ray-XXXXXXXX``: Ray's
session logs, sockets, spilled objects); the next tcplab that starts a Ray removes it, and only
folders that are provably a dead tcplab driver's (issue 38; python/tcplab/runner.py
``remove_stale_ray_folders``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tcplab import runner
from tcplab._fs import owner_tag
from tcplab.runner import RAY_OWNER_FILE, _private_files, remove_stale_ray_folders

#: A PID no process can have (above the kernel's largest pid_max, 2**22).
DEAD_PID = 2147483647


def _folder(top: Path, suffix: str, owner: str | None) -> Path:
    d = top / f"tcplab-ray-{suffix}"
    (d / "session_2026-11-27_20-00-00_000000_1" / "sockets").mkdir(parents=True)
    (d / "session_2026-11-27_20-00-00_000000_1" / "logs.txt").write_text("ray's log")
    if owner is not None:
        (d / RAY_OWNER_FILE).write_text(owner)
    return d


def _dead_tag() -> str:
    """The tag of a process that ran and ended (a real PID, now free, with its real start time)."""
    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    tag = owner_tag(p.pid)
    p.communicate(b"")
    return tag


def test_only_the_dead_drivers_folders_go(tmp_path: Path) -> None:
    mine = owner_tag()
    dead = [
        _folder(tmp_path, "dead0001", f"tcplab-ray {DEAD_PID}-12345\n"),  # no such PID
        _folder(tmp_path, "dead0002", f"tcplab-ray {_dead_tag()}\n"),  # a process that ran and ended
        _folder(tmp_path, "dead0003", f"tcplab-ray {os.getpid()}-1\n"),  # our PID, another start: reused
    ]
    kept = [
        _folder(tmp_path, "live0001", f"tcplab-ray {mine}\n"),  # this process: alive
        _folder(tmp_path, "nomarker", None),  # not provably tcplab's
        _folder(tmp_path, "badmark1", "ray 2147483647-5\n"),  # not our marker's form
        _folder(tmp_path, "badmark2", "tcplab-ray 2147483647\n"),  # no start time
        _folder(tmp_path, "dead000x-longer", f"tcplab-ray {DEAD_PID}-5\n"),  # not a name we make
        _folder(tmp_path, "Dead0004", f"tcplab-ray {DEAD_PID}-5\n"),  # mkdtemp never makes capitals
    ]
    # A marker that is a symlink (to a file saying "dead") does not count.
    linked = _folder(tmp_path, "linkmark", None)
    (tmp_path / "elsewhere").write_text(f"tcplab-ray {DEAD_PID}-5\n")
    (linked / RAY_OWNER_FILE).symlink_to(tmp_path / "elsewhere")
    # A symlink named like a dead folder, pointing at a folder of the user's.
    users = _folder(tmp_path / "user", "dead0009", f"tcplab-ray {DEAD_PID}-5\n")
    (tmp_path / "tcplab-ray-dead0009").symlink_to(users)

    removed = remove_stale_ray_folders(tmp_path)

    assert sorted(removed) == sorted(dead)
    assert not any(d.exists() for d in dead)
    for d in [*kept, linked, users]:
        assert (d / "session_2026-11-27_20-00-00_000000_1" / "logs.txt").is_file(), d
    assert (tmp_path / "tcplab-ray-dead0009").is_symlink()


def test_another_users_folder_is_kept(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a folder to another user")
    d = _folder(tmp_path, "other001", f"tcplab-ray {DEAD_PID}-5\n")
    os.chown(d, 65534, 65534)
    assert remove_stale_ray_folders(tmp_path) == []
    assert d.is_dir()


def test_starting_a_ray_removes_a_dead_drivers_folder_and_marks_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the ray executor does before ``ray.init``: the stale folder goes, the live one stays,
    and the new folder carries this process's marker (so that it too can be proven stale)."""
    top = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))  # short: Ray's folder stays in it
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(top))
        dead = _folder(top, "dead0001", f"tcplab-ray {DEAD_PID}-5\n")
        live = _folder(top, "live0001", f"tcplab-ray {owner_tag()}\n")
        with _private_files(None) as scratch:
            assert Path(scratch).parent == top
            assert (Path(scratch) / RAY_OWNER_FILE).read_text() == f"tcplab-ray {owner_tag()}\n"
            assert not dead.exists() and live.is_dir()
            # The new folder is not stale while this process runs.
            assert remove_stale_ray_folders(top) == []
        assert not Path(scratch).exists()
        assert sorted(p.name for p in top.iterdir()) == [live.name]
    finally:
        import shutil

        shutil.rmtree(top)


def test_the_folder_regex_matches_what_mkdtemp_makes(tmp_path: Path) -> None:
    for _ in range(20):
        name = Path(tempfile.mkdtemp(prefix=runner.RAY_FOLDER_PREFIX, dir=tmp_path)).name
        assert runner._RAY_FOLDER.match(name), name
