"""Long runs release the GIL (other Python threads keep running) and honour Ctrl-C.

Neither test depends on the machine's speed: the run is far longer than any test (10^15 B at 10 Mb/s,
10^6 hours, 10^13 events: days of work), so it is still running whenever the test acts, and each
test waits on a state ("the run has been entered", "the other thread has ticked") instead of a
fixed sleep.  A profile hook sees the call into ``_core.run`` itself, after the scenario is loaded.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import tcplab
from tcplab import _core

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "examples" / "wired_bottleneck.toml"
ENDLESS = {"flows.download.size": "1000000GB", "duration": "1000000h", "max_events": 10**13, "trace.pcap": []}


def on_entering_core_run(callback: object) -> None:
    """Call ``callback()`` when this thread calls ``_core.run`` (a ``c_call`` profile event)."""

    def hook(frame: object, event: str, arg: object) -> None:
        if event == "c_call" and arg is _core.run:
            sys.setprofile(None)
            callback()  # type: ignore[operator]

    sys.setprofile(hook)


def test_run_releases_the_gil() -> None:
    """Another thread ticks 50 times while the run is inside the core, then interrupts it.

    Were the GIL held for the run, the ticker could not tick before the run ended; the event
    limit here (3·10^8 events, tens of seconds of work, still far beyond the 50 ticks) makes that
    end in an error, so the test fails instead of hanging.
    """
    entered, returned = threading.Event(), threading.Event()
    ticks = 0

    def ticker() -> None:
        nonlocal ticks
        entered.wait()
        if returned.is_set():  # the run failed at once; nothing to interrupt
            return
        for _ in range(50):
            ticks += 1
            threading.Event().wait(0.001)  # releases the GIL like any blocking call
        if not returned.is_set():
            signal.raise_signal(signal.SIGINT)  # handled by the main thread, between two slices

    t = threading.Thread(target=ticker)
    t.start()
    on_entering_core_run(entered.set)
    try:
        tcplab.run(SCENARIO, overrides={**ENDLESS, "max_events": 3 * 10**8})
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    finally:
        sys.setprofile(None)
        returned.set()
        entered.set()
        t.join()
    assert interrupted and ticks == 50


CHILD = f"""
import sys
import tcplab
from tcplab import _core

def hook(frame, event, arg):
    if event == "c_call" and arg is _core.run:
        sys.setprofile(None)
        print("running", flush=True)

sys.setprofile(hook)
try:
    tcplab.run({str(SCENARIO)!r}, overrides={ENDLESS!r})
except KeyboardInterrupt:
    sys.exit(42)
sys.exit(0)
"""


def test_ctrl_c_interrupts_a_long_run() -> None:
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    try:
        # The child says when it calls into the core; the signal then lands during the run (or
        # just before its first slice, where it is honoured at the first check).
        assert p.stdout is not None and p.stdout.readline() == "running\n"
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=300)  # a safety net only: the run itself would take days
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert rc == 42, "the run must stop with KeyboardInterrupt"
