"""Publishing into an existing output folder replaces the whole folder in one step (issue 38):
the new folder is completed beside it, the user's files given a second name in it, and the two are
exchanged by one rename, so that a reader opening the folder finds the old one or the new one,
never a mix; a SIGKILL at any point leaves only what the next publish can prove stale
(python/tcplab/_fs.py ``publish``, ``_swap_in``, ``remove_stale_staging``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import _fs
from tcplab._fs import MANIFEST, owner_tag, publish, remove_stale_staging, staging_dir

from conftest import ROOT

FIRST = {"index.md": "old index", "a/fig.png": "old fig", "b.md": "old only"}
SECOND = {"index.md": "new index", "a/fig.png": "new fig", "c.md": "new only"}
USER = {"notes.txt": "the user's", "a/mine.txt": "the user's too"}

#: A PID no process can have (above the kernel's largest pid_max, 2**22).
DEAD = "2147483647-5"


def _stage(out: Path, files: dict[str, str]) -> Path:
    st = staging_dir(out)
    for name, text in files.items():
        (st / name).parent.mkdir(parents=True, exist_ok=True)
        (st / name).write_text(text)
    return st


def _state(folder: Path) -> dict[str, str] | None:
    """Every file under ``folder`` and its text (None if there is no such folder)."""
    if not folder.is_dir():
        return None
    got = {}
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            p = Path(dirpath) / n
            got[p.relative_to(folder).as_posix()] = p.read_text()
    return got


def _hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A report folder published once, with two files of the user's in it."""
    out = tmp_path / "R"
    publish(_stage(out, FIRST), out, "index.md", "report")
    for name, text in USER.items():
        (out / name).write_text(text)
    return out


def _expected(files: dict[str, str]) -> dict[str, str]:
    return {**files, **USER, MANIFEST: json.dumps({"written_by": "tcplab", "files": sorted(files)}, indent=1) + "\n"}


def test_a_reader_finds_the_old_folder_or_the_new_one_never_a_mix(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After every change publishing makes to the file system, ``out`` (opened by its path, as a
    reader would) holds exactly the old files or exactly the new ones. File by file, the state
    after the first replaced file was a mix (new index.md, old fig.png)."""
    old_state, new_state = _expected(FIRST), _expected(SECOND)
    assert _state(out) == old_state
    seen: list[dict[str, str] | None] = []
    busy = False

    def observed(fn):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal busy
            result = fn(*args, **kwargs)
            if not busy:
                busy = True
                try:
                    seen.append(_state(out))
                finally:
                    busy = False
            return result

        return call

    st = _stage(out, SECOND)
    for name in ("replace", "rename", "link", "unlink", "rmdir", "mkdir", "chmod"):
        monkeypatch.setattr(os, name, observed(getattr(os, name)))
    monkeypatch.setattr(_fs, "_exchange", observed(_fs._exchange))
    publish(st, out, "index.md", "report")
    monkeypatch.undo()

    assert len(seen) > 5  # the hooks saw publishing at work
    mixed = [s for s in seen if s not in (old_state, new_state)]
    assert mixed == [], f"{len(mixed)} of {len(seen)} states were neither: {mixed[0]}"
    assert _state(out) == new_state
    assert _hidden(out.parent) == []  # the old side drained and gone


def test_the_users_files_are_the_same_files_and_the_folder_keeps_its_mode(out: Path) -> None:
    os.chmod(out, 0o750)
    before = {n: (out / n).stat().st_ino for n in USER}
    folder_before = out.stat().st_ino
    publish(_stage(out, SECOND), out, "index.md", "report")
    assert out.stat().st_ino != folder_before  # a new folder took the name
    assert {n: (out / n).stat().st_ino for n in USER} == before  # not copies: the same files
    assert oct(out.stat().st_mode & 0o7777) == oct(0o750)
    assert not (out / "b.md").exists() and (out / "c.md").read_text() == "new only"


def test_a_new_folder_appears_whole_with_the_usual_mode(tmp_path: Path) -> None:
    out = tmp_path / "fresh"
    publish(_stage(out, SECOND), out, "index.md", "report")
    assert _state(out) == {**SECOND, MANIFEST: _expected(SECOND)[MANIFEST]}
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask  # not mkdtemp's private 0700
    assert _hidden(tmp_path) == []


def test_a_file_put_in_while_it_is_replaced_is_moved_into_the_new_folder(
    out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's files are linked before the swap; one written after that lands in the old
    folder. It must not be lost: it is moved to the same place in the new one."""
    real = _fs._exchange

    def late_then_swap(a: Path, b: Path) -> None:
        (b / "late.txt").write_text("written during the publish")
        (b / "a" / "late2.txt").write_text("in a subfolder")
        real(a, b)

    monkeypatch.setattr(_fs, "_exchange", late_then_swap)
    publish(_stage(out, SECOND), out, "index.md", "report")
    assert (out / "late.txt").read_text() == "written during the publish"
    assert (out / "a" / "late2.txt").read_text() == "in a subfolder"
    assert _hidden(out.parent) == []


def test_a_late_file_whose_name_is_taken_is_kept_beside_with_a_warning(
    out: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = _fs._exchange

    def late_then_swap(a: Path, b: Path) -> None:
        (b / "c.md").write_text("the user's c.md")  # the name the new report writes
        real(a, b)

    monkeypatch.setattr(_fs, "_exchange", late_then_swap)
    publish(_stage(out, SECOND), out, "index.md", "report")
    assert (out / "c.md").read_text() == "new only"
    kept = [out.parent / n for n in _hidden(out.parent)]
    assert len(kept) == 1 and (kept[0] / "c.md").read_text() == "the user's c.md"
    # Nothing else is left in it; its manifest stays, so that a later run drains it again (a
    # folder without one would be a staging folder, all tcplab's, removed whole).
    assert sorted(p.name for p in kept[0].iterdir()) == [MANIFEST, "c.md"]
    assert f"kept {kept[0]}" in capsys.readouterr().err


def test_an_interruption_after_the_swap_never_lets_the_callers_clean_up_reach_the_old_side(
    out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Callers remove the staging folder when publishing raises (report.py, validate ns2): after
    the swap that name held the old folder, with any file the user had just put in it."""
    real = _fs._exchange

    def late_then_swap(a: Path, b: Path) -> None:
        (b / "late.txt").write_text("written during the publish")
        real(a, b)

    def interrupted(side: Path, out: Path) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(_fs, "_exchange", late_then_swap)
    monkeypatch.setattr(_fs, "_drain_swapped", interrupted)
    st = _stage(out, SECOND)
    with pytest.raises(KeyboardInterrupt):
        try:
            publish(st, out, "index.md", "report")
        except BaseException:
            import shutil

            shutil.rmtree(st, ignore_errors=True)  # what report.py does
            _fs.remove_staging()  # what the CLI does on its way out
            raise
    assert _state(out) == _expected(SECOND)
    (side,) = [out.parent / n for n in _hidden(out.parent)]
    assert (side / "late.txt").read_text() == "written during the publish"


def test_a_symlinked_folder_is_published_file_by_file_and_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    publish(_stage(real, FIRST), real, "index.md", "report")
    link = tmp_path / "R"
    link.symlink_to(real)
    publish(_stage(link, SECOND), link, "index.md", "report")
    assert link.is_symlink() and (real / "index.md").read_text() == "new index"
    assert not (real / "b.md").exists()


#: Publishes SECOND into argv[1] (holding FIRST and USER), stopping where argv[2] says: it prints
#: "stopped" and waits on stdin, so the test kills it at that point, whatever the machine's speed.
KILLED_PUBLISH = """
import sys
from pathlib import Path
from tcplab import _fs
out, where = Path(sys.argv[1]), sys.argv[2]
def stop(*args, **kwargs):
    print("stopped", flush=True)
    sys.stdin.read()
real = getattr(_fs, where)
def hooked(*args, **kwargs):
    stop()
    return real(*args, **kwargs)
setattr(_fs, where, hooked)
st = _fs.staging_dir(out)
for name, text in %r.items():
    (st / name).parent.mkdir(parents=True, exist_ok=True)
    (st / name).write_text(text)
_fs.publish(st, out, "index.md", "report")
"""


@pytest.mark.parametrize(
    ("where", "then"),
    [("_exchange", "old"), ("_drain_swapped", "new"), ("_link_others", "old")],
    ids=["before the swap", "after the swap", "while linking"],
)
def test_a_publish_killed_mid_way_leaves_what_the_next_one_clears(out: Path, where: str, then: str) -> None:
    """A real SIGKILL (a subprocess stopped at a known point, not a sleep): ``out`` is whole —
    the old folder or the new one — and the staging folder left beside it is cleared by the next
    publish into that parent, which keeps every file of the user's."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.Popen(
        [sys.executable, "-c", KILLED_PUBLISH % (SECOND,), str(out), where],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "stopped"
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert _state(out) == _expected(FIRST if then == "old" else SECOND)
    left = _hidden(out.parent)
    assert len(left) == 1 and left[0].startswith(f".R.tcplab-{p.pid}-"), left

    # The next publish into this parent, of another folder: the dead one's staging goes.
    other = out.parent / "S"
    publish(_stage(other, {"summary.json": "{}"}), other, "summary.json", "run output")
    assert _hidden(out.parent) == []
    assert _state(out) == _expected(FIRST if then == "old" else SECOND)  # untouched, user's files too


def test_stale_staging_and_temporaries_of_any_target_in_the_parent_go(tmp_path: Path) -> None:
    """Whatever a dead tcplab left in the parent (a staging folder of another output, a temporary
    file of a single-file output) goes at the next publish; a live one's, and names that are not
    ours, stay."""
    dead = [tmp_path / f".S.tcplab-{DEAD}.abc12345", tmp_path / f".view.html.tcplab-{DEAD}.tmp"]
    dead[0].mkdir()
    (dead[0] / "summary.json").write_text("{}")
    dead[1].write_text("<html>")
    live = [tmp_path / f".S.tcplab-{owner_tag()}.abc12345", tmp_path / f".view.html.tcplab-{owner_tag()}.tmp"]
    live[0].mkdir()
    live[1].write_text("<html>")
    foreign = [tmp_path / f".notes.tcplab-{DEAD}.txt~", tmp_path / f".view.html.tcplab-{DEAD}.bak"]
    foreign[0].write_text("x")
    foreign[1].mkdir()  # a folder with a temporary file's name: not what we make
    (foreign[1] / "f").write_text("x")
    removed = remove_stale_staging(tmp_path / "R")
    assert sorted(removed) == sorted(dead)
    assert all(p.exists() for p in live + foreign)


def test_the_old_side_of_a_dead_swap_keeps_what_it_cannot_prove_ours(tmp_path: Path) -> None:
    """The old folder of a swap whose process died: files its manifest lists and second names of
    files in the new folder go; a file found nowhere else is moved into the folder (its place is
    free) or, if its place is taken, kept."""
    out = tmp_path / "R"
    out.mkdir()
    (out / "index.md").write_text("new")
    (out / "notes.txt").write_text("the user's")
    side = tmp_path / f".R.tcplab-{DEAD}.abc12345"
    side.mkdir()
    (side / MANIFEST).write_text(json.dumps({"files": ["index.md", "old.md"]}))
    (side / "index.md").write_text("old")
    (side / "old.md").write_text("old")
    os.link(out / "notes.txt", side / "notes.txt")
    (side / "late.txt").write_text("only here")
    assert remove_stale_staging(out) == [side]
    assert sorted(p.name for p in out.iterdir()) == ["index.md", "late.txt", "notes.txt"]
    assert (out / "late.txt").read_text() == "only here"

    side.mkdir()
    (side / MANIFEST).write_text(json.dumps({"files": []}))
    (side / "notes.txt").write_text("another notes.txt, not the same file")
    assert remove_stale_staging(out) == []
    assert (side / "notes.txt").read_text() == "another notes.txt, not the same file"
    assert (out / "notes.txt").read_text() == "the user's"
