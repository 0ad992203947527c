"""Files the Rust core writes itself — pcap captures and the ns-2 text trace — appear whole or not
at all: the core writes ``.<name>.tcplab-<pid>-<start ticks>.tmp`` beside the target (the name
python/tcplab/_fs.py gives its own temporaries) and renames it once complete; a failed write
leaves neither file, and the target as it was; what a SIGKILL leaves is removed by the next
tcplab writing there (issue 38, harden5; crates/tcplab-core/src/trace/owned_file.rs)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import tcplab
from tcplab import _fs

ENDLESS = {"duration": "1000000h", "max_events": 10**13, "flows.download.size": "1000GB"}
DEAD = "2147483647-5"  # a PID above the kernel's largest pid_max


def _child(code: str, *, fsize: int | None = None) -> subprocess.Popen[str]:
    def limit() -> None:
        if fsize is not None:  # a write past `fsize` bytes fails (EFBIG) instead of killing
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=limit)


def test_a_killed_runs_captures_are_temporaries_the_next_run_removes(tmp_path: Path, wired: dict[str, Any]) -> None:
    """SIGKILL while the captures are being written: no capture appears under its name (before:
    truncated pcaps in ``pcap_dir``), the temporaries carry the killed process's owner tag, and
    the next run into the folder removes them."""
    caps = tmp_path / "caps"
    p = _child(f"import tcplab; tcplab.run({json.dumps(wired)}, overrides={ENDLESS!r}, pcap_dir={str(caps)!r})")
    try:
        tag = _fs.owner_tag(p.pid)
        deadline = time.monotonic() + 120
        temps: list[Path] = []
        while p.poll() is None and time.monotonic() < deadline and len(temps) < 2:
            temps = [t for t in caps.glob(".captures.tcplab-*/.*.pcap.tcplab-*.tmp") if t.stat().st_size > 24]
            time.sleep(0.02)
        assert len(temps) == 2, (p.poll(), list(caps.rglob("*")))
    finally:
        p.kill()
        p.wait()
    assert {t.name for t in temps} == {f".bottleneck-{n}.pcap.tcplab-{tag}.tmp" for n in ("client", "router")}
    assert (temps[0].parent.name.startswith(f".captures.tcplab-{tag}."))
    assert not list(caps.glob("*.pcap"))  # nothing under a capture's name
    tcplab.run(wired, overrides={"duration": "1s"}, pcap_dir=caps)
    assert sorted(p.name for p in caps.iterdir()) == [_fs.MANIFEST, "bottleneck-client.pcap", "bottleneck-router.pcap"]


def test_a_failed_ns2_trace_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, wired: dict[str, Any]) -> None:
    """The ns-2 text trace fails half-way (a 64 KiB file-size limit: EFBIG): before, a truncated
    trace replaced the file; now the old file stays and nothing else is left."""
    tr = tmp_path / "run.tr"
    tr.write_text("the previous trace\n")
    code = (f"import tcplab\ntry:\n    tcplab.run({json.dumps(wired)}, trace_events={str(tr)!r})\n"
            "except tcplab.SimulationError as e:\n    print('SimulationError', e); raise SystemExit(3)\n")
    p = _child(code, fsize=64 << 10)
    out, err = p.communicate(timeout=300)
    # The core writes the trace as the run goes: the failed write ends the run, naming the field.
    assert p.returncode == 3 and "File too large" in out and "trace.events" in out, (out, err)
    assert tr.read_text() == "the previous trace\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["run.tr"]


def test_a_failed_capture_write_leaves_no_capture(tmp_path: Path, wired: dict[str, Any]) -> None:
    """A capture that cannot be written to the end (64 KiB limit) fails the run: no capture
    appears, nothing is left in the folder."""
    caps = tmp_path / "caps"
    caps.mkdir()
    code = (f"import tcplab\ntry:\n    tcplab.run({json.dumps(wired)}, pcap_dir={str(caps)!r})\n"
            "except tcplab.SimulationError as e:\n    print('SimulationError', e); raise SystemExit(3)\n")
    p = _child(code, fsize=64 << 10)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 3 and "File too large" in out, (out, err)
    assert list(caps.iterdir()) == []


def test_the_ns2_trace_appears_whole_and_a_dead_writers_temporary_goes(tmp_path: Path, wired: dict[str, Any]) -> None:
    tr = tmp_path / "run.tr"
    dead = tmp_path / f".run.tr.tcplab-{DEAD}.tmp"
    dead.write_text("half a trace of a killed run")
    tcplab.run(wired, overrides={"duration": "2s"}, trace_events=tr)
    assert len(tr.read_text().splitlines()) > 10
    assert sorted(x.name for x in tmp_path.iterdir()) == ["run.tr"]


def test_the_temporary_is_never_an_existing_name(tmp_path: Path, wired: dict[str, Any]) -> None:
    """A symlink planted at the temporary name is not followed (the file is created with O_EXCL)."""
    tr = tmp_path / "run.tr"
    victim = tmp_path / "victim"
    victim.write_text("keep")
    os.symlink(victim, _fs.temporary_name(tr))
    with pytest.raises(OSError, match="exists"):
        tcplab.run(wired, overrides={"duration": "2s"}, trace_events=tr)
    assert victim.read_text() == "keep" and not tr.exists()
