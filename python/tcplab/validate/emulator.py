"""One ``tcplab-emu`` process per link (crates/tcplab-emu): started, clocked, stopped, read.

The emulator reads the link from the scenario itself (the same text, format, overrides and seed
the simulator gets), creates a TUN device ``l<k>`` in each end's namespace and prints ``ready``;
``start`` on its stdin sets its time zero (the outage schedule counts from there) and it answers
``started <CLOCK_MONOTONIC ns>``; closing stdin stops it and it prints its counters as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from . import ValidateError
from .topology import Link

# The workspace's release build, where `make build` puts it (python/tcplab/validate/ → repo root).
_REPO_BINARY = Path(__file__).resolve().parents[3] / "target" / "release" / "tcplab-emu"


def binary() -> str:
    """The emulator's path: $TCPLAB_EMU, the workspace's release build, or on PATH."""
    for candidate in (os.environ.get("TCPLAB_EMU"), str(_REPO_BINARY), shutil.which("tcplab-emu")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise ValidateError(
        "the link emulator tcplab-emu is not built: run `make build` (or `cargo build --release -p tcplab-emu`), "
        "or point TCPLAB_EMU at it"
    )


class Emulator:
    def __init__(self, config: dict[str, Any], workdir: Path, link: Link):
        self.link = link
        path = workdir / f"emu-{link.ifname}.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        self.proc = subprocess.Popen(
            [binary(), str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self._line()
        if line != "ready":
            err = self.proc.stderr.read() if self.proc.stderr else ""
            self.proc.wait()
            raise ValidateError(f"link {link.name}: the emulator did not start: {err.strip() or line}")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def start(self) -> int:
        """Starts the link's clock; returns its time zero (CLOCK_MONOTONIC, ns)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("start\n")
        self.proc.stdin.flush()
        word, _, t0 = self._line().partition(" ")
        if word != "started":
            raise ValidateError(f"link {self.link.name}: the emulator did not start its clock")
        return int(t0)

    def stop(self) -> dict[str, Any]:
        """Stops the emulator and returns its counters."""
        out, err = self.proc.communicate(timeout=10)
        if self.proc.returncode != 0:
            raise ValidateError(f"link {self.link.name}: the emulator failed: {err.strip()}")
        return json.loads(out.strip().splitlines()[-1])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
