"""What the peer benchmarks share: timing a whole process, alternating pairs, and writing the table.

Each benchmark runs the peer simulator and ``tcplab run … --json`` on the same network, one after
the other, ``pairs`` times (the order flips every pair so that neither always runs second on a
machine another job has just woken up), and reports per network the median wall time, the median
CPU time (user + system: less sensitive to other jobs on a shared machine than wall time) and the
largest peak resident set size of each, and the ratios peer / tcplab of the medians.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "validation" / "performance.md"
TCPLAB = ROOT / ".venv" / "bin" / "tcplab"


@dataclass
class Sample:
    wall_s: float
    cpu_s: float
    peak_mib: float
    out: str


def measure(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Sample:
    """Run ``argv`` to completion: wall time, CPU time and peak RSS of that process (wait4's rusage)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}:\n{out[-2000:]}")
    return Sample(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, out)


@dataclass
class Network:
    name: str
    peer: list[str]
    tcplab: list[str]
    peer_cwd: Path | None = None
    peer_env: dict[str, str] | None = None
    peer_runs: list[Sample] = field(default_factory=list)
    tcplab_runs: list[Sample] = field(default_factory=list)

    def run_pairs(self, pairs: int, log: bool = True) -> None:
        for i in range(pairs):
            order = ("peer", "tcplab") if i % 2 == 0 else ("tcplab", "peer")
            for who in order:
                if who == "peer":
                    s = measure(self.peer, self.peer_cwd, self.peer_env)
                    self.peer_runs.append(s)
                else:
                    s = measure(self.tcplab, ROOT)
                    self.tcplab_runs.append(s)
                if log:
                    print(f"  {self.name} pair {i + 1} {who}: {s.wall_s:.3f} s wall, {s.cpu_s:.3f} s CPU, "
                          f"{s.peak_mib:.1f} MiB", flush=True)


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def table(peer: str, nets: list[Network]) -> str:
    """A markdown table: medians of wall and CPU time, peak RSS, ratios."""
    lines = [
        f"| network | {peer} wall | tcplab wall | ratio (wall) | {peer} CPU | tcplab CPU | ratio (CPU) "
        f"| {peer} peak RSS | tcplab peak RSS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n in nets:
        pw, tw = med([s.wall_s for s in n.peer_runs]), med([s.wall_s for s in n.tcplab_runs])
        pc, tc = med([s.cpu_s for s in n.peer_runs]), med([s.cpu_s for s in n.tcplab_runs])
        pm, tm = max(s.peak_mib for s in n.peer_runs), max(s.peak_mib for s in n.tcplab_runs)
        lines.append(
            f"| {n.name} | {pw:.3f} s | {tw:.3f} s | {pw / tw:.1f}× | {pc:.3f} s | {tc:.3f} s | {pc / tc:.1f}× "
            f"| {pm:.1f} MiB | {tm:.1f} MiB |"
        )
    return "\n".join(lines)


def write_section(key: str, body: str) -> None:
    """Replace the text between ``<!-- bench-peers:KEY begin -->`` and ``… end -->`` in performance.md
    (appended at the end the first time)."""
    begin, end = f"<!-- bench-peers:{key} begin -->", f"<!-- bench-peers:{key} end -->"
    text = DOC.read_text(encoding="utf-8")
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(text, encoding="utf-8")


def load_note() -> str:
    with open("/proc/loadavg", encoding="ascii") as f:
        return f.read().split()[0]
