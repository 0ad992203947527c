"""``ns`` run on the written script, one seed at a time, in a scratch folder.

The trace goes through a named pipe and is read while ns writes it: nothing the size of a
600-s wireless trace (~90 MB for a 7-hop string) reaches the disk, and reading overlaps the run.
ns's own output goes to a log; a run that exits non-zero, prints a Tcl error, or is stopped is
reported with the log's last lines.  ``ns`` missing stops before anything runs, with one line
saying how to install it.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
from pathlib import Path

from . import NsError
from .tcl import Script
from .trace import Parsed, parse

_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()

INSTALL_HINT = "ns-2.35 (`ns`) is not installed: `apt-get install ns2` (Debian/Ubuntu), or run `make test`, which installs it"
TAIL_LINES = 15


def ns_binary() -> str:
    path = shutil.which("ns")
    if path is None:
        raise NsError(INSTALL_HINT)
    return path


def run_seed(script_path: Path, script: Script, seed: int, workdir: Path, timeout_s: float) -> Parsed:
    """Run ``ns SCRIPT SEED PIPE`` in ``workdir`` and read its trace from the pipe."""
    ns = ns_binary()
    # ns runs in ``workdir``: a relative --out (the default, results/validate-ns2) must not be read from there.
    workdir, script_path = workdir.resolve(), script_path.resolve()
    fifo = workdir / f"seed{seed}.trace"
    log_path = workdir / f"seed{seed}.log"
    os.mkfifo(fifo)
    stopped = threading.Event()
    with open(log_path, "w+", encoding="utf-8", errors="replace") as log:
        proc = subprocess.Popen([ns, str(script_path), str(seed), str(fifo)], cwd=workdir, stdout=log,
                                stderr=subprocess.STDOUT)
        with _LIVE_LOCK:
            _LIVE.add(proc)

        def watch() -> None:
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                stopped.set()
                proc.kill()
                proc.wait()
            # If ns ended without opening the pipe, the reader still waits in open(): let it go.
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError as exc:
                if exc.errno not in (errno.ENXIO, errno.ENOENT):
                    raise

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            parsed = parse(fifo, script.flows, script.wireless)
        finally:
            watcher.join()
            fifo.unlink(missing_ok=True)
            with _LIVE_LOCK:
                _LIVE.discard(proc)
        log.seek(0)
        output = log.read()
    log_path.unlink(missing_ok=True)
    if stopped.is_set():
        raise NsError(f"ns ran longer than {timeout_s:g} s on seed {seed} and was stopped")
    # A Tcl error in the script makes ns print its trace-back and exit (sometimes with status 0).
    if proc.returncode != 0 or "invoked from within" in output:
        tail = "\n".join(output.strip().splitlines()[-TAIL_LINES:])
        raise NsError(f"ns failed on seed {seed} (exit status {proc.returncode}); its last lines:\n{tail}")
    return parsed


def stop_all() -> None:
    """Kill every ns still running (an interrupted validation leaves none behind)."""
    with _LIVE_LOCK:
        for proc in _LIVE:
            proc.kill()
