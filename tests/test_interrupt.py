"""Long runs release the GIL (other Python threads keep running) and honour Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import tcplab

ROOT = Path(__file__).resolve().parents[1]
LONG = {"flows.download.size": "30GB", "trace.pcap": []}  # ~15 s of simulation work


def test_run_releases_the_gil() -> None:
    ticks = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    try:
        t0 = time.perf_counter()
        tcplab.run(ROOT / "examples" / "wired_bottleneck.toml", overrides={"flows.download.size": "200MB"})
        elapsed = time.perf_counter() - t0
    finally:
        stop.set()
        t.join()
    # A thread sleeping 1 ms per tick gets most of its ticks while the simulation runs.
    assert ticks > 0.3 * elapsed * 1000, (ticks, elapsed)


def test_ctrl_c_interrupts_a_long_run() -> None:
    code = (
        "import tcplab, sys\n"
        "try:\n"
        f"    tcplab.run({str(ROOT / 'examples' / 'wired_bottleneck.toml')!r}, overrides={LONG!r})\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(42)\n"
        "sys.exit(0)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code])
    time.sleep(1.5)  # import, build, then well into a run that takes several seconds
    t0 = time.perf_counter()
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=30)
    assert rc == 42, "the run must stop with KeyboardInterrupt"
    assert time.perf_counter() - t0 < 2.0, "and promptly"
