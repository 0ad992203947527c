"""Single-file outputs (the viewer's page, exports, plots, the store's series files) are written
under a temporary name that says whose it is (``.<name>.tcplab-<pid>-<start ticks>.tmp``) and
renamed into place; one a SIGKILL left is removed by the next tcplab writing into that folder, and
only if its owner is provably gone (issue 38; python/tcplab/_fs.py ``replace_file``)."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

from tcplab._fs import owner_tag, replace_file, temporary_name
from tcplab.store import Store, write_frame

DEAD = "2147483647-5"  # a PID above the kernel's largest pid_max


def test_the_temporary_name_says_whose_it_is(tmp_path: Path) -> None:
    assert temporary_name(tmp_path / "view.html") == tmp_path / f".view.html.tcplab-{owner_tag()}.tmp"


def test_writing_a_file_removes_a_dead_writers_temporary_and_keeps_a_live_ones(tmp_path: Path) -> None:
    dead = tmp_path / f".other.csv.tcplab-{DEAD}.tmp"
    live = tmp_path / f".other.csv.tcplab-{owner_tag()}.tmp"
    users = tmp_path / ".other.csv.12345.tmp"  # not a name tcplab gives now: the user's, for all we know
    for p in (dead, live, users):
        p.write_text("half")
    write_frame(pl.DataFrame({"a": [1]}), tmp_path / "export.csv", "csv")
    assert (tmp_path / "export.csv").read_text() == "a\n1\n"
    assert not dead.exists() and live.exists() and users.exists()


def test_a_failed_write_leaves_neither_the_file_nor_its_temporary(tmp_path: Path) -> None:
    def fails(tmp: Path) -> None:
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        replace_file(tmp_path / "page.html", fails)
    assert list(tmp_path.iterdir()) == []


def test_a_killed_sweeps_series_temporary_goes_at_the_next_sweep(tmp_path: Path) -> None:
    store = Store(tmp_path / "tcplab.db")
    store.series_dir.mkdir()
    dead = store.series_dir / f".abc.parquet.tcplab-{DEAD}.tmp"
    reused = store.series_dir / f".abd.parquet.tcplab-{os.getpid()}-1.tmp"  # our PID, another start
    live = store.series_dir / f".abe.parquet.tcplab-{owner_tag()}.tmp"
    for p in (dead, reused, live):
        p.touch()
    store.remove_stale_temporaries()
    assert not dead.exists() and not reused.exists() and live.exists()
