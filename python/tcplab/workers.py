"""The local executor's worker processes: ``python -m tcplab.workers``, one run at a time each.

Why not ``concurrent.futures.ProcessPoolExecutor``: its spawned workers re-import the caller's main
module, so a researcher's script calling ``tcplab.sweep()`` without an ``if __name__ ==
"__main__":`` guard starts sweeps recursively and every run fails; and when one worker dies (killed,
out of memory) the whole pool breaks and every pending run fails with it, without saying which run
the dead worker held.  Here each worker is a fresh interpreter that imports only tcplab, and the
driver knows which task every worker holds: a dying worker fails exactly its own run (with its exit
status), is replaced, and the sweep carries on.

Protocol on the worker's stdin/stdout: frames of an 8-byte big-endian length and a pickle; the
driver sends a :class:`~tcplab.runner.Task`, the worker answers with the outcome dict of
:func:`~tcplab.runner.execute`.  The worker moves anything else written to its stdout to stderr, so a
stray print cannot corrupt the protocol.  Waiting on pipe descriptors and starting sessions make this
POSIX-only.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import wait
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcplab.runner import Task

_HEADER = struct.Struct(">Q")


def _write_frame(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_frame(stream: IO[bytes]) -> Any | None:
    """The next object, or None at end of stream (the other side exited, maybe mid-frame)."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    return pickle.loads(data) if len(data) == size else None


class _Worker:
    """One worker process and the task it holds (None when idle)."""

    def __init__(self) -> None:
        # The worker imports tcplab from where this process did (an editable install or a checkout).
        package_root = str(Path(__file__).resolve().parents[1])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        # A session of its own: Ctrl-C in the terminal reaches the driver only, which then stops the
        # workers (a worker interrupted while still importing would print a traceback).
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tcplab.workers", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.task: Task | None = None

    def send(self, task: Task) -> bool:
        """Hand ``task`` to the worker; False if the worker is already gone."""
        self.task = task
        try:
            _write_frame(self.stdin, task)
        except (BrokenPipeError, OSError):
            return False
        return True

    def death(self) -> str:
        """Reap the exited worker and describe how it ended."""
        code = self.proc.wait()
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exited with status {code}"

    def stop(self) -> None:
        """End the worker: close its input (it exits at end of stream), kill it if it is busy."""
        for stream in (self.stdin, self.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if self.task is not None and self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def run_local(tasks: list[Task], workers: int | None) -> Iterator[dict[str, Any]]:
    """Run ``tasks`` on up to ``workers`` processes (default: one per CPU), yielding outcomes as
    they finish.  A worker that dies fails its task with a ``worker process died`` error."""
    if not tasks:
        return
    queue = list(reversed(tasks))
    pool: list[_Worker] = []
    try:
        for _ in range(max(1, min(workers or os.cpu_count() or 1, len(tasks)))):
            pool.append(_Worker())
        # Every worker gets its next task before the finished one is handed on, so whoever sees
        # an outcome (e.g. it is stored) knows the next task is already in a worker.
        lost: list[dict[str, Any]] = []
        for w in pool:
            if not w.send(queue.pop()):
                lost.append(_died(w, pool, queue))
        yield from lost
        while any(w.task is not None for w in pool):
            busy = {w.stdout.fileno(): w for w in pool if w.task is not None}
            for fd in wait(list(busy)):
                w = busy[fd]  # type: ignore[index]  # wait() returns what it was given: fds
                outcome = _read_frame(w.stdout)
                if outcome is None:
                    outcome = _died(w, pool, queue)
                else:
                    w.task = None
                    if queue and not w.send(queue.pop()):
                        yield _died(w, pool, queue)
                yield outcome
    finally:
        for w in pool:
            w.stop()


def _died(w: _Worker, pool: list[_Worker], queue: list[Task]) -> dict[str, Any]:
    """The failed outcome of the task a dead worker held; a new worker takes the next task."""
    assert w.task is not None
    task, how = w.task, w.death()
    w.task = None
    pool.remove(w)
    w.stop()
    if queue:
        fresh = _Worker()
        pool.append(fresh)
        if not fresh.send(queue.pop()):
            raise RuntimeError(f"worker processes cannot start ({fresh.death()})")
    return {
        "key": task.key,
        "status": "failed",
        "error": f"worker process died ({how}) while running this run",
        "summary": None,
        "series": None,
        "wall_time_s": None,
    }


def _exit_with_driver(driver: int) -> None:
    """End this worker as soon as the driver is gone (e.g. killed with SIGKILL), even mid-run: the
    run's result could not be delivered anyway."""
    while os.getppid() == driver:
        time.sleep(1.0)
    os._exit(1)


def main() -> int:
    """The worker loop: read a task, run it, write the outcome, until the driver closes stdin."""
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray writes to stdout go to stderr, never into the protocol stream
    tasks = os.fdopen(0, "rb")
    # The driver's pid comes from the driver: it may have died before this line runs.
    driver = int(sys.argv[1]) if len(sys.argv) > 1 else os.getppid()
    threading.Thread(target=_exit_with_driver, args=(driver,), daemon=True).start()
    from tcplab.runner import execute

    try:
        while (task := _read_frame(tasks)) is not None:
            _write_frame(protocol, execute(task))
    except BrokenPipeError:  # the driver is gone
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
