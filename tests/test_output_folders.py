"""Output folders: tcplab writes only inside ``--out``, replaces only the files it wrote there (its
manifest), never deletes a file it did not write, keeps the results store out of a report folder,
and leaves no staging folder behind when terminated (docs/validation/robustness.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tcplab._fs import MANIFEST, OutputError, publish, staging_dir

from conftest import ROOT, run_cli

ENDLESS = ["--set", "flows.download.size=1000000GB", "--set", "duration=1000000h", "--set", "max_events=10000000000000"]


def _staging_left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_store_inside_the_report_folder_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    r = run_cli("reproduce", "wired-loss", "--quick", "--out", "R", "--store", "R/db.sqlite", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "--store R/db.sqlite lies inside the report folder R" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "R").exists()  # not even the store was created


def test_report_folder_inside_the_store_series_is_refused(tmp_path: Path) -> None:
    r = run_cli("reproduce", "wired-loss", "--quick", "--out", "res/series/rep", "--store", "res/db", cwd=tmp_path)
    assert r.returncode == 2 and "keep them apart" in r.stderr
    assert not (tmp_path / "res").exists()


def test_run_out_keeps_files_it_did_not_write(tmp_path: Path, wired_toml: Path) -> None:
    out = tmp_path / "R"
    out.mkdir()
    (out / "summary.json").write_text("{}")  # a folder of an older tcplab (no manifest) ...
    (out / "notes.txt").write_text("mine")  # ... with the user's own file in it
    r = run_cli("run", str(wired_toml), "--out", str(out), "--pcap")
    assert r.returncode == 0, r.stderr
    assert (out / "notes.txt").read_text() == "mine"
    owned = json.loads((out / MANIFEST).read_text())["files"]
    assert "summary.json" in owned and "notes.txt" not in owned
    assert any(f.endswith(".pcap") for f in owned)
    # Again without pcaps: the pcaps of the first run were ours and go; the user's file stays.
    r = run_cli("run", str(wired_toml), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST, "notes.txt", "series.parquet", "summary.json"])


def test_run_out_refuses_to_overwrite_a_file_it_did_not_write(tmp_path: Path, wired_toml: Path) -> None:
    out = tmp_path / "R"
    assert run_cli("run", str(wired_toml), "--out", str(out)).returncode == 0
    victim = out / "bottleneck-router.pcap"
    victim.write_text("the user's capture")
    r = run_cli("run", str(wired_toml), "--out", str(out), "--pcap")
    assert r.returncode == 2, r.stderr
    assert "bottleneck-router.pcap, which tcplab did not write there" in r.stderr
    assert victim.read_text() == "the user's capture"
    assert _staging_left(tmp_path) == []


def test_run_out_refuses_a_foreign_folder(tmp_path: Path, wired_toml: Path) -> None:
    out = tmp_path / "photos"
    out.mkdir()
    (out / "a.jpg").write_text("x")
    r = run_cli("run", str(wired_toml), "--out", str(out))
    assert r.returncode == 2 and "refusing to write into it" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a.jpg"]


def test_reproduce_out_refuses_a_foreign_folder_before_the_store_is_made(tmp_path: Path) -> None:
    """The issue's other half of the row above: ``reproduce --out ~/photos`` replaced (deleted)
    the folder; it is refused before anything is simulated or stored (harden5: only ``run`` was
    tested)."""
    out = tmp_path / "photos"
    out.mkdir()
    (out / "a.jpg").write_text("x")
    store = tmp_path / "st" / "db.sqlite"
    r = run_cli("reproduce", "wired-loss", "--quick", "--out", str(out), "--store", str(store))
    assert r.returncode == 2 and "refusing to write into it" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a.jpg"] and not store.parent.exists()


def test_publish_replaces_only_listed_files_in_subfolders(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    for files in ({"index.md": "1", "a/index.md": "1", "a/fig.png": "1"}, {"index.md": "2", "b/index.md": "2"}):
        st = staging_dir(out)
        for name, text in files.items():
            (st / name).parent.mkdir(parents=True, exist_ok=True)
            (st / name).write_text(text)
        publish(st, out, "index.md", "report")
        (out / "a").mkdir(exist_ok=True)
        (out / "a" / "user.txt").write_text("kept")
    assert (out / "index.md").read_text() == "2" and (out / "b" / "index.md").read_text() == "2"
    assert not (out / "a" / "fig.png").exists() and not (out / "a" / "index.md").exists()
    assert (out / "a" / "user.txt").read_text() == "kept"
    assert json.loads((out / MANIFEST).read_text())["files"] == ["b/index.md", "index.md"]
    assert _staging_left(tmp_path) == []


def test_publish_refuses_before_moving_anything(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"files": ["index.md"]}))
    (out / "other.md").write_text("user")
    st = staging_dir(out)
    (st / "index.md").write_text("new")
    (st / "other.md").write_text("new")
    with pytest.raises(OutputError, match="other.md"):
        publish(st, out, "index.md", "report")
    assert (out / "other.md").read_text() == "user" and not (out / "index.md").exists()


def test_manifest_entries_outside_the_folder_are_ignored(tmp_path: Path) -> None:
    """A manifest edited to name ../x or /x must not make tcplab delete those files."""
    outside = tmp_path / "precious.txt"
    outside.write_text("keep")
    out = tmp_path / "R"
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"files": ["../precious.txt", str(outside)]}))
    st = staging_dir(out)
    (st / "summary.json").write_text("{}")
    publish(st, out, "summary.json", "run output")
    assert outside.read_text() == "keep"


#: ``python -m tcplab``, except that the core's ``run`` first says on stderr that it was entered: by
#: then ``tcplab run --out`` has created its staging folder, so the test can wait for that line.
STARTED = "test: the core's run was entered"
CLI_SAYING_WHEN_IT_RUNS = f"""
import sys
from tcplab import _core, cli
real_run = _core.run
def run(*args):
    print({STARTED!r}, file=sys.stderr, flush=True)
    return real_run(*args)
_core.run = run
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_terminated_run_leaves_no_staging_folder(tmp_path: Path, wired_toml: Path, sig: signal.Signals) -> None:
    """The run is endless (days of work): the signal always arrives while it runs, whatever the
    machine's speed; the test waits for the run to be entered (a line on stderr), not for a time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.Popen(
        [sys.executable, "-c", CLI_SAYING_WHEN_IT_RUNS, "run", str(wired_toml), "--out", str(tmp_path / "R"), *ENDLESS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert p.stderr is not None
        first = p.stderr.readline()  # blocks until the run is entered, or the process ends (EOF)
        assert first.rstrip("\n") == STARTED and _staging_left(tmp_path), f"the run never started: {first}"
        p.send_signal(sig)
        _, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert "Traceback" not in err
    assert _staging_left(tmp_path) == [] and not (tmp_path / "R").exists()


def test_a_killed_runs_staging_folder_is_removed_by_the_next_run(tmp_path: Path, wired_toml: Path) -> None:
    """SIGKILL cannot be caught: the staging folder stays. Its name holds the dead run's PID and
    start time, so the next run into the same --out proves it stale and removes it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = tmp_path / "R"
    p = subprocess.Popen(
        [sys.executable, "-c", CLI_SAYING_WHEN_IT_RUNS, "run", str(wired_toml), "--out", str(out), *ENDLESS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert p.stderr is not None
        first = p.stderr.readline()
        assert first.rstrip("\n") == STARTED, f"the run never started: {first}"
        p.kill()
        p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    left = _staging_left(tmp_path)
    assert left and all(n.startswith(f".R.tcplab-{p.pid}-") for n in left), left
    r = run_cli("run", str(wired_toml), "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _staging_left(tmp_path) == [] and (out / "summary.json").is_file()


def test_a_live_or_foreign_staging_folder_is_kept(tmp_path: Path) -> None:
    """A staging folder of a process still running (this one), and hidden folders whose names do
    not prove they are tcplab's, are left alone."""
    from tcplab._fs import _staging_prefix, remove_stale_staging

    out = tmp_path / "R"
    mine = tmp_path / (_staging_prefix(out, os.getpid()) + "abc")
    mine.mkdir()
    foreign = [tmp_path / ".R.tcplab-x-1.abc", tmp_path / ".R.other", tmp_path / ".R.tcplab-99999999"]
    for f in foreign:
        f.mkdir()
    # A dead owner: a PID that cannot exist (above the kernel's pid_max).
    dead = tmp_path / ".R.tcplab-2147483647-5.abc12345"  # mkdtemp's 8-character suffix
    dead.mkdir()
    (dead / "summary.json").write_text("{}")
    assert remove_stale_staging(out) == [dead]
    assert mine.is_dir() and all(f.is_dir() for f in foreign) and not dead.exists()
