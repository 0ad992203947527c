"""``tcplab.run(..., pcap_dir=...)``: the folder the user named, created if its parent exists and
can be written to; otherwise, or when the captures cannot be written there, a ScenarioError naming
``pcap_dir`` — never an OSError, never the core's ``trace.pcap``, and nothing left behind
(issue 38; python/tcplab/_capture.py).  The folder is the user's: tcplab replaces only the
captures its manifest lists, never a file it did not write there (harden5)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import tcplab
from tcplab import _fs

CAPS = ["bottleneck-client.pcap", "bottleneck-router.pcap"]

SHORT = {"duration": "1s"}


def _refused(scenario: Any, pcap_dir: Any) -> tcplab.ScenarioError:
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(scenario, overrides=SHORT, pcap_dir=pcap_dir)
    assert [e["loc"] for e in info.value.errors()] == ["pcap_dir"], info.value.errors()
    return info.value


def _listed(folder: Path) -> list[str]:
    return json.loads((folder / _fs.MANIFEST).read_text())["files"]


def test_a_new_folder_in_an_existing_one_is_created_and_filled(tmp_path: Path, wired: dict[str, Any]) -> None:
    tcplab.run(wired, overrides=SHORT, pcap_dir=tmp_path / "caps")
    assert sorted(p.name for p in (tmp_path / "caps").iterdir()) == [_fs.MANIFEST, *CAPS]
    assert _listed(tmp_path / "caps") == CAPS


def test_a_file_of_a_captures_name_that_tcplab_did_not_write_is_refused_before_the_run(
    tmp_path: Path, wired: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the user's file was overwritten by the capture (the API had no manifest there).
    A capture of an older tcplab (no manifest) cannot be told from the user's: refused too."""
    caps = tmp_path / "caps"
    caps.mkdir()
    (caps / "bottleneck-router.pcap").write_text("the user's own capture")
    (caps / "notes.txt").write_text("mine")
    monkeypatch.setattr(tcplab._core, "run", lambda *a: pytest.fail("the run started"))
    err = _refused(wired, caps)
    assert "bottleneck-router.pcap" in str(err) and "did not write" in str(err)
    assert (caps / "bottleneck-router.pcap").read_text() == "the user's own capture"
    assert sorted(p.name for p in caps.iterdir()) == ["bottleneck-router.pcap", "notes.txt"]


def test_its_own_captures_are_replaced_and_nothing_else_is_touched(tmp_path: Path, wired: dict[str, Any]) -> None:
    """A second run into the folder replaces the captures the manifest lists; the user's files
    stay, and so do captures of another scenario run there before (the folder collects them)."""
    caps = tmp_path / "caps"
    other = dict(wired, trace={"pcap": ["access"]})
    tcplab.run(other, overrides=SHORT, pcap_dir=caps)
    (caps / "notes.txt").write_text("mine")
    tcplab.run(wired, overrides=SHORT, pcap_dir=caps)
    first = {n: (caps / n).read_bytes() for n in CAPS}
    tcplab.run(wired, seed=2, overrides=SHORT, pcap_dir=caps)
    assert any((caps / n).read_bytes() != first[n] for n in CAPS)  # replaced by the seed-2 run
    names = sorted(p.name for p in caps.iterdir())
    assert "notes.txt" in names and (caps / "notes.txt").read_text() == "mine"
    assert set(_listed(caps)) == {n for n in names if n.endswith(".pcap")} and len(_listed(caps)) == 4


def test_a_name_taken_during_the_run_is_not_overwritten(
    tmp_path: Path, wired: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user makes a file of a capture's name while the run goes on: the captures are not
    moved in (all or none), the user's file is untouched, nothing of the run is left."""
    caps = tmp_path / "caps"
    caps.mkdir()
    real = tcplab._core.run

    def run_then_take(*a: Any) -> Any:
        raw = real(*a)
        (caps / "bottleneck-client.pcap").write_text("made meanwhile")
        return raw

    monkeypatch.setattr(tcplab._core, "run", run_then_take)
    err = _refused(wired, caps)
    assert "bottleneck-client.pcap" in str(err)
    assert sorted(p.name for p in caps.iterdir()) == ["bottleneck-client.pcap"]
    assert (caps / "bottleneck-client.pcap").read_text() == "made meanwhile"


def test_the_last_instant_race_is_refused_by_the_link_not_replaced(
    tmp_path: Path, wired: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the check and the move (simulated: the check finds nothing): a new capture's name
    is claimed by a hard link, which never replaces, so the user's file survives."""
    caps = tmp_path / "caps"
    caps.mkdir()
    real_claim = _fs._claim

    def claim_after_the_user(src: Path, dst: Path) -> None:
        if dst.name == "bottleneck-router.pcap":
            dst.write_text("made at the last instant")
        real_claim(src, dst)

    monkeypatch.setattr(_fs, "_claim", claim_after_the_user)
    err = _refused(wired, caps)
    assert "bottleneck-router.pcap" in str(err)
    assert (caps / "bottleneck-router.pcap").read_text() == "made at the last instant"
    # The capture moved before the clash is tcplab's, and listed; no staging folder is left.
    assert sorted(p.name for p in caps.iterdir()) == [_fs.MANIFEST, *CAPS]
    assert _listed(caps) == ["bottleneck-client.pcap"]


def test_a_run_that_fails_leaves_no_capture(tmp_path: Path, wired: dict[str, Any]) -> None:
    """A simulation error after the captures began (the event limit): none of them appears, no
    temporary file or staging folder is left, and the user's files are as they were."""
    caps = tmp_path / "caps"
    caps.mkdir()
    (caps / "notes.txt").write_text("mine")
    with pytest.raises(tcplab.SimulationError):
        tcplab.run(wired, overrides={"max_events": 100}, pcap_dir=caps)
    assert sorted(p.name for p in caps.iterdir()) == ["notes.txt"]


def test_a_missing_parent_is_refused_and_nothing_is_created(tmp_path: Path, wired: dict[str, Any]) -> None:
    err = _refused(wired, tmp_path / "no" / "caps")
    assert "does not exist" in str(err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs /sys")
def test_a_folder_that_cannot_be_created_is_named_not_an_oserror(wired: dict[str, Any]) -> None:
    """/sys takes no new folders, for root either (before: PermissionError from mkdir)."""
    err = _refused(wired, "/sys/tcplab-captures")
    assert "cannot be" in str(err)
    assert not Path("/sys/tcplab-captures").exists()


def test_an_unwritable_parent_is_refused_before_the_run(
    tmp_path: Path, wired: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a user, ``pcap_dir="/nonexistent"`` (``/`` is root's): refused before anything runs.
    (Simulated: root may write anywhere, so ``os.access`` is made to say no for ``tmp_path``.)"""
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == tmp_path else real(p, mode, **kw))
    monkeypatch.setattr(tcplab._core, "run", lambda *a: pytest.fail("the run started"))
    err = _refused(wired, tmp_path / "caps")
    assert f"the folder {tmp_path} cannot be written to" in str(err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_a_folder_that_takes_no_files_is_named_pcap_dir(wired: dict[str, Any]) -> None:
    """/proc exists and root may enter it, but no file can be created there: the core's error
    (``trace.pcap: cannot create /proc/…`` once per interface) becomes one naming the argument."""
    err = _refused(wired, "/proc")
    assert "the captures cannot be written into /proc" in str(err)


def test_a_name_taken_by_a_folder_leaves_no_capture_behind(tmp_path: Path, wired: dict[str, Any]) -> None:
    """The core creates one capture file and fails on the next (a folder of that name): the one
    it created, empty of packets, goes; the user's folder stays."""
    caps = tmp_path / "caps"
    (caps / "bottleneck-router.pcap").mkdir(parents=True)
    (caps / "notes.txt").write_text("mine")
    err = _refused(wired, caps)
    assert "bottleneck-router.pcap" in str(err)
    assert sorted(p.name for p in caps.iterdir()) == ["bottleneck-router.pcap", "notes.txt"]


def test_a_run_refused_after_the_folder_was_made_takes_it_away(
    tmp_path: Path, wired: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal only the built run finds (the memory estimate): the folder made for it goes."""
    monkeypatch.setenv("TCPLAB_MEMORY_LIMIT", "1KiB")
    with pytest.raises(tcplab.ScenarioError, match="memory"):
        tcplab.run(wired, overrides=SHORT, pcap_dir=tmp_path / "caps")
    assert list(tmp_path.iterdir()) == []
    # An existing folder is the user's: it stays, empty or not.
    (tmp_path / "mine").mkdir()
    with pytest.raises(tcplab.ScenarioError, match="memory"):
        tcplab.run(wired, overrides=SHORT, pcap_dir=tmp_path / "mine")
    assert (tmp_path / "mine").is_dir()
