"""``ns`` run on the written script, one seed at a time, in a scratch folder.

``ns`` missing stops before anything runs, with one line saying how to install it.  A run that
exits non-zero, is killed, or leaves no trace is reported with the last lines of its output.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import NsError
from .tcl import Script
from .trace import Parsed, parse

INSTALL_HINT = "ns-2.35 (`ns`) is not installed: `apt-get install ns2` (Debian/Ubuntu), or run `make test`, which installs it"
TAIL_LINES = 15


def ns_binary() -> str:
    path = shutil.which("ns")
    if path is None:
        raise NsError(INSTALL_HINT)
    return path


def run_seed(script_path: Path, script: Script, seed: int, workdir: Path, timeout_s: float) -> Parsed:
    """Run ``ns SCRIPT SEED TRACE`` in ``workdir`` and read its trace."""
    ns = ns_binary()
    trace = workdir / f"seed{seed}.tr"
    try:
        proc = subprocess.run(
            [ns, str(script_path), str(seed), str(trace)],
            cwd=workdir, capture_output=True, text=True, errors="replace", timeout=timeout_s, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise NsError(f"ns ran longer than {timeout_s:g} s on seed {seed} and was stopped") from exc
    output = (proc.stdout or "") + (proc.stderr or "")
    # ns-2 exits 0 from `finish`; a Tcl error also exits 0 or 1 after printing it, so both are read.
    failed = proc.returncode != 0 or "invoked from within" in output or not trace.exists()
    if failed:
        tail = "\n".join(output.strip().splitlines()[-TAIL_LINES:])
        raise NsError(f"ns failed on seed {seed} (exit status {proc.returncode}); its last lines:\n{tail}")
    try:
        return parse(trace, script.flows, script.wireless)
    finally:
        trace.unlink(missing_ok=True)
