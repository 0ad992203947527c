"""``tcplab.run(..., pcap_dir=...)``: the folder the user named, created if its parent exists and
can be written to; otherwise, or when the captures cannot be written there, a ScenarioError naming
``pcap_dir`` — never an OSError, never the core's ``trace.pcap``, and nothing left behind
(issue 38; python/tcplab/_capture.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import tcplab

SHORT = {"duration": "1s"}


def _refused(scenario: Any, pcap_dir: Any) -> tcplab.ScenarioError:
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(scenario, overrides=SHORT, pcap_dir=pcap_dir)
    assert [e["loc"] for e in info.value.errors()] == ["pcap_dir"], info.value.errors()
    return info.value


def test_a_new_folder_in_an_existing_one_is_created_and_filled(tmp_path: Path, wired: dict[str, Any]) -> None:
    tcplab.run(wired, overrides=SHORT, pcap_dir=tmp_path / "caps")
    assert sorted(p.name for p in (tmp_path / "caps").iterdir()) == ["bottleneck-client.pcap", "bottleneck-router.pcap"]


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
