"""Re-runnable battery of issue 38's tries: runs tcplab as a careless or hostile user would and
checks the done-when properties mechanically (docs/validation/robustness.md § The battery).

    PYTHONPATH=python .venv/bin/python validation/robustness/tries.py [--fast] [--no-ray]

For every try: no traceback on stderr; exit code in {0, 1, 2, 130, 143} (a SIGKILL's -9 is the
kill's, not tcplab's); no file written outside the --out (and --store) it names — the sandbox tree
is snapshot before and after; no file deleted that tcplab did not write; no line of an input
file's content echoed on stdout or stderr; and, while a Ray-backed sweep runs, no listening socket
of its process tree on an address other than 127.0.0.1 / ::1 (read from /proc/net/tcp*).
Prints one table row per try and a summary; exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import hashlib
import ipaddress
import os
import re
import shutil
import uuid
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OK_CODES = {0, 1, 2, 130, 143}

WIRED = """
name = "w"
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "{link}"
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"
[[flows]]
name = "f"
app = "bulk"
client = "b"
server = "a"
"""

ADHOC = """
name = "m"
duration = "2s"
[[nodes]]
name = "{n1}"
[[nodes]]
name = "n2"
[[wlans]]
name = "{wlan}"
mode = "adhoc"
phy = "ns2_dsss"
rate = "2Mbps"
routing = {{ protocol = "aodv", preset = "ns2" }}
{extra}
[[wlans.stations]]
node = "{n1}"
position = ["0m", "0m"]
[[wlans.stations]]
node = "n2"
position = ["100m", "0m"]
[[flows]]
name = "f"
app = "bulk"
client = "n2"
server = "{n1}"
"""

ENDLESS = ["--set", "duration=1000000h", "--set", "max_events=10000000000000"]  # app = "bulk" never ends


@dataclass
class Try:
    category: str
    name: str
    argv: list[str]
    out: list[str] = field(default_factory=list)  # sandbox-relative paths tcplab may write
    secrets: list[Path] = field(default_factory=list)  # input files whose lines must not be echoed
    kill: signal.Signals | None = None  # sent once the run has started (after `after` seconds)
    after: float = 3.0
    ray: bool = False
    api: str | None = None  # a Python snippet run instead of the CLI
    expect_rc: int | None = None  # the exit code this try must give, where one is right
    expect_err: str | None = None  # text stderr must hold (e.g. the exception and the argument named)
    kill_when: Callable[[int], bool] | None = None  # kill once this holds of the PID (a state, not a time; 600 s at most)
    never: list[str] = field(default_factory=list)  # absolute paths outside the sandbox that must not appear
    clears: Callable[[], set[str]] | None = None  # what a killed try left, which this try must remove


@dataclass
class Outcome:
    t: Try
    rc: int
    problems: list[str]
    err: str = ""  # the try's whole stderr (kept with --log)


def snapshot(root: Path) -> dict[str, str]:
    snap = {}
    for dirpath, dirs, files in os.walk(root):
        for n in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            p = Path(dirpath) / n
            rel = p.relative_to(root).as_posix()
            try:
                snap[rel] = "link" if p.is_symlink() else hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError:
                snap[rel] = "?"
    return snap


def under(rel: str, prefixes: list[str]) -> bool:
    """``rel`` is ``p`` or inside it; a prefix ending in ``.`` (``.K.``) covers every name it starts
    (the staging folders ``.K.tcplab-<pid>-<ticks>.xxxxxxxx`` of ``K`` and their files)."""
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") or rel.startswith(p + "-")
               or (p.endswith(".") and rel.startswith(p)) for p in prefixes)


def tree_pids(pid: int) -> set[int]:
    """pid and its descendants (from /proc/*/stat)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = {pid}, [pid]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in found:
                found.add(c)
                todo.append(c)
    return found


def socket_inodes(pids: set[int]) -> set[str]:
    inodes = set()
    for p in pids:
        try:
            for fd in Path(f"/proc/{p}/fd").iterdir():
                t = os.readlink(fd)
                if t.startswith("socket:["):
                    inodes.add(t[8:-1])
        except OSError:
            pass
    return inodes


def listening(inodes: set[str]) -> set[str]:
    """Local addresses of LISTEN sockets (state 0A) among ``inodes``, from /proc/net/tcp and tcp6."""
    addrs = set()
    for name in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] != "0A" or f[9] not in inodes:
                continue
            # The kernel prints the address as 32-bit words in host (little-endian) order.
            raw = bytes.fromhex(f[1].split(":")[0])
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            addr = ipaddress.ip_address(raw)
            if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
                addr = addr.ipv4_mapped
            addrs.add(str(addr))
    return addrs


def ray_scratch(owner: int | None = None) -> set[str]:
    """tcplab's Ray folders in /tmp (used instead of TMPDIR when TMPDIR is too long for Ray's
    socket paths, as the sandbox's is): each must be gone when its sweep ends.  With ``owner``,
    only those whose owner file names that PID: other tcplab runs on a shared machine (a test
    suite running in parallel) make and remove folders of their own meanwhile."""
    found = set()
    for p in Path("/tmp").glob("tcplab-ray-*"):
        if owner is not None:
            try:
                word, _, tag = (p / ".tcplab-owner").read_text().strip().partition(" ")
            except OSError:
                continue
            if word != "tcplab-ray" or tag.split("-")[0] != str(owner):
                continue
        found.add(str(p))
    return found


#: A staging folder's or temporary file's name (python/tcplab/_fs.py ``_OWNED_NAME``).
STAGING_NAME = re.compile(r"^\..+\.tcplab-[0-9]+-[0-9]+\.")

#: Staging folders, temporary files and Ray folders the SIGKILL tries left (sandbox-relative or /tmp paths).
KILLED: set[str] = set()


def staging_names(box: Path) -> set[str]:
    """tcplab's staging folders and temporary files in the sandbox (``.<name>.tcplab-…``), by
    sandbox-relative path; TMPDIR and HOME are not looked into (Ray's own files live there)."""
    found = set()
    for dirpath, dirs, files in os.walk(box):
        rel = Path(dirpath).relative_to(box)
        if rel.parts[:1] in ((".tmp",), (".home",)):
            dirs[:] = []
            continue
        for n in dirs + files:
            if STAGING_NAME.match(n):
                found.add((rel / n).as_posix())
    return found


def killed_leftovers(prefix: str) -> Callable[[], set[str]]:
    """What the SIGKILL tries left whose name starts with ``prefix``, for a later try to clear."""
    return lambda: {n for n in KILLED if n.startswith(prefix)}


def run_try(t: Try, box: Path, env: dict[str, str]) -> Outcome:
    before = snapshot(box)
    scratch_before = ray_scratch()
    problems: list[str] = []
    argv = [sys.executable, "-c", t.api] if t.api else [sys.executable, "-m", "tcplab", *t.argv]
    p = subprocess.Popen(argv, cwd=box, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace", start_new_session=True)
    bound: set[str] = set()
    never_before = {n for n in t.never if os.path.lexists(n)}
    staging_before = staging_names(box)
    if t.kill is not None or t.ray:
        timed = t.kill is not None and t.kill_when is None
        deadline = time.monotonic() + (t.after if timed else 600)
        while p.poll() is None and time.monotonic() < deadline:
            if t.ray:
                bound |= listening(socket_inodes(tree_pids(p.pid)))
            if t.kill_when is not None and t.kill_when(p.pid) and (bound or not t.ray):
                break
            time.sleep(0.2)
        if t.kill is not None:
            if p.poll() is None:
                p.send_signal(t.kill)
            else:
                problems.append("ended before the kill (the try tested nothing)")
    try:
        out, err = p.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        problems.append("timed out")
    if t.ray or t.kill is not None:
        try:  # Ray's workers may outlive the driver for a moment: end the session we started
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
    rc = p.returncode
    if "Traceback" in err:
        problems.append("traceback: " + err.strip().splitlines()[-1][:80])
    if rc not in OK_CODES and not (t.kill == signal.SIGKILL and rc == -9):
        problems.append(f"exit {rc}")
    after = snapshot(box)
    allowed = t.out + [".tmp"]
    written = [f for f in after if (f not in before or after[f] != before[f]) and not under(f, allowed)]
    deleted = [f for f in before if f not in after and not under(f, t.out)]
    if written:
        problems.append(f"written outside --out: {written[:3]}")
    # Temporary files are tcplab's (or Ray's) to remove before it ends; only a SIGKILL excuses them.
    left = [f for f in after if under(f, [".tmp"]) and f not in before]
    left += sorted(ray_scratch(p.pid) - scratch_before)
    if left and t.kill != signal.SIGKILL:
        problems.append(f"left in TMPDIR: {left[:3]}")
    if t.expect_rc is not None and rc != t.expect_rc:
        problems.append(f"exit {rc}, expected {t.expect_rc}")
    if t.expect_err is not None and t.expect_err not in err:
        problems.append(f"stderr lacks {t.expect_err!r}: {err.strip()[-120:]!r}")
    appeared = [n for n in t.never if os.path.lexists(n) and n not in never_before]
    if appeared:
        problems.append(f"written outside the sandbox: {appeared}")
    # A staging folder or temporary file (empty ones too, which the snapshot cannot see) may stay
    # only after a SIGKILL; the next publish into its parent must then remove it.
    staged = sorted(staging_names(box) - staging_before)
    if staged and t.kill != signal.SIGKILL:
        problems.append(f"staging left: {staged[:3]}")
    if t.kill == signal.SIGKILL:
        KILLED.update(staging_names(box) - staging_before)
        if t.ray:
            KILLED.update(ray_scratch(p.pid) - scratch_before)
    if t.clears is not None:
        cleared = t.clears()
        if not cleared:
            problems.append("nothing to clear: the kill before it left nothing (the try tested nothing)")
        still = sorted(n for n in cleared if os.path.lexists(box / n) or os.path.lexists(n))
        if still:
            problems.append(f"a killed run's leftovers not removed: {still[:3]}")
    if deleted:
        problems.append(f"deleted: {deleted[:3]}")
    for s in t.secrets:
        try:
            lines = [ln.strip() for ln in s.read_text(errors="replace").splitlines() if len(ln.strip()) >= 8]
        except OSError:
            lines = []
        echoed = [ln for ln in lines if ln in out or ln in err]
        if echoed:
            problems.append(f"echoed a line of {s}: {echoed[0][:40]!r}")
    wide = {a for a in bound if not ipaddress.ip_address(a).is_loopback}
    if wide:
        problems.append(f"listening on {sorted(wide)}")
    if t.ray and not bound:
        problems.append("no listening socket seen (Ray did not start?)")
    if problems and err.strip():
        problems.append("stderr ends: " + err.strip().splitlines()[-1][:200])
    return Outcome(t, rc, problems, err)


def api_call(call: str) -> str:
    """A script making one API call: exit 2 with the exception's class and text if it is refused."""
    return ("import sys, tcplab\ntry:\n    " + call + "\nexcept (tcplab.ScenarioError, TypeError, OSError) as e:\n"
            "    print(type(e).__name__, e, file=sys.stderr); sys.exit(2)\n")


#: ``tcplab run wired.toml --out K2`` that, on reaching ``tcplab._fs.<where>`` (before the folder
#: swap, or after it before the old side is drained), makes the file ``stop`` and waits forever.
STOPPING_RUN = """
import sys, time
from pathlib import Path
from tcplab import _fs, cli
real = _fs.{where}
def stopped(*args, **kwargs):
    Path({stop!r}).touch()
    while True:
        time.sleep(60)
_fs.{where} = stopped
sys.exit(cli.main(["run", "wired.toml", "--out", "K2"]))
"""


def ray_session_started(pid: int) -> bool:
    """The Ray of driver ``pid`` has made its session in /tmp (the sandbox's TMPDIR is too long for it)."""
    return any((Path(d) / "session_latest").exists() for d in ray_scratch(pid))


def tries(box: Path, fast: bool, ray: bool) -> list[Try]:
    (box / "wired.toml").write_text(WIRED.format(link="bottleneck"))
    secret = box / "secret.txt"
    secret.write_text("CANARY line one of a private file\nDB_PASSWORD=hunter2-canary\n")
    (box / "victim").mkdir()
    (box / "victim" / "clobber-router.pcap").write_text("user's own capture")
    (box / "R").mkdir()
    (box / "R" / "notes.txt").write_text("the user's notes in R")
    T: list[Try] = []
    # Bad scenarios (the audit of tests/test_messages.py, through the CLI).
    for i, (path, value) in enumerate([
        ("links.bottleneck.rate", "5mbps"), ("links.bottleneck.rate", "fast"), ("duration", "-1s"),
        ("duration", "0s"), ("links.bottleneck.bandwidth", "5Mbps"), ("flows.f.client", "ghost"),
        ("tcp.variant", "NewReno"), ("links.bottleneck.loss.p", "nan"), ("links.bottleneck.delay", "inf"),
        ("seed", "18446744073709551616"), ("nodes", "5"), ("links[9].rate", "1Mbps"),
    ]):
        T.append(Try("bad scenario", f"--set {path}={value}", ["run", "wired.toml", "--set", f"{path}={value}", "--out", f"bad{i}"], [f"bad{i}"]))
    T.append(Try("bad scenario", "not TOML", ["run", "secret.txt"], secrets=[secret]))
    T.append(Try("bad scenario", "scenario = /dev/zero", ["run", "/dev/zero"]))
    T.append(Try("bad scenario", "scenario = /etc/passwd", ["run", "/etc/passwd"], secrets=[Path("/etc/passwd")]))
    # Input files named by the scenario.
    for name, f, sec in [("/etc/passwd", "/etc/passwd", [Path("/etc/passwd")]), ("/dev/zero", "/dev/zero", []),
                         ("/proc/self/environ", "/proc/self/environ", []), ("a private text file", str(secret), [secret])]:
        sc = box / f"mob{len(T)}.toml"
        sc.write_text(ADHOC.format(n1="n1", wlan="w", extra=f'mobility_file = "{f}"'))
        T.append(Try("input file", f"mobility_file = {name}", ["run", sc.name], secrets=sec))
    # Hostile names with --pcap.
    for i, bad in enumerate(["../victim/clobber", "/tmp/tcplab-abs-escape", "..", "a/b", ".hidden", "x\\ny"]):
        sc = box / f"hostile{i}.toml"
        sc.write_text(WIRED.format(link=bad.replace("\\", "\\\\")))
        T.append(Try("hostile name", f"link named {bad!r} --pcap", ["run", sc.name, "--pcap", "--out", f"P{i}"], [f"P{i}"]))
        sa = box / f"hostile_w{i}.toml"
        sa.write_text(ADHOC.format(n1="n1", wlan=bad.replace("\\", "\\\\"), extra=""))
        T.append(Try("hostile name", f"WLAN named {bad!r} --pcap-80211", ["run", sa.name, "--pcap-80211", "--out", f"Q{i}"], [f"Q{i}"]))
    sn = box / "hostile_node.toml"
    sn.write_text(ADHOC.format(n1="../../victim/node", wlan="w", extra=""))
    T.append(Try("hostile name", "node named '../../victim/node' --pcap-80211", ["run", sn.name, "--pcap-80211", "--out", "N"], ["N"]))
    # Output folders.
    T.append(Try("output folder", "--out into a folder with the user's notes.txt", ["run", "wired.toml", "--out", "R"], ["R"]))
    T.append(Try("output folder", "--out is an existing file", ["run", "wired.toml", "--out", "secret.txt"], secrets=[secret]))
    T.append(Try("output folder", "--out a foreign folder", ["run", "wired.toml", "--out", "victim"]))
    # Sweeps and stores.
    sw = box / "sweep.toml"
    sw.write_text('[sweep]\nname = "s"\nbase = "wired.toml"\nreplications = 2\nvariants = ["reno", "sack"]\n'
                  '[sweep.grid]\n"links.bottleneck.rate" = ["5Mbps", "10Mbps"]\n')
    T.append(Try("sweep", "a small sweep", ["sweep", sw.name, "--store", "st/db.sqlite", "--workers", "1"], ["st"]))
    big = box / "bigseed.toml"
    big.write_text(sw.read_text().replace("replications = 2", "replications = 2\nseed0 = 18446744073709551614"))
    T.append(Try("sweep", "seeds up to 2^64 - 1", ["sweep", big.name, "--store", "st/db.sqlite", "--workers", "1"], ["st"]))
    over = box / "overseed.toml"
    over.write_text(sw.read_text().replace("replications = 2", "replications = 3\nseed0 = 18446744073709551614"))
    T.append(Try("sweep", "seeds beyond 2^64 - 1", ["sweep", over.name, "--store", "st/db.sqlite"], ["st"]))
    axis = box / "badaxis.toml"
    axis.write_text(sw.read_text().replace('"links.bottleneck.rate"', '"links.bottlenek.rate"'))
    T.append(Try("sweep", "a grid axis naming no link", ["sweep", axis.name, "--store", "axis/db.sqlite"],
                 expect_rc=2))  # refused before the store is made: nothing may be written
    rt = box / "runtime.toml"
    rt.write_text(sw.read_text().replace('"links.bottleneck.rate" = ["5Mbps", "10Mbps"]', "max_events = [10, 100000000]"))
    T.append(Try("sweep", "runs failing while running", ["sweep", rt.name, "--store", "rt/db.sqlite", "--workers", "1"],
                 ["rt"], expect_rc=1))
    longray = box / "longray.toml"
    longray.write_text(sw.read_text().replace("replications = 2", "replications = 200") + '"duration" = ["60s"]\n')
    T.append(Try("store", "results of a corrupted store", ["results", "--store", "secret.txt"], secrets=[secret]))
    ro = box / "ro"
    T.append(Try("store", "results of a read-only store", ["results", "--store", "ro/db.sqlite", "--summary", "goodput_bps"], ["ro/db.sqlite"]))
    T.append(Try("store", "reproduce --out R2 --store R2/db.sqlite", ["reproduce", "wired-loss", "--quick", "--out", "R2", "--store", "R2/db.sqlite"], ["R2"]))
    # Bad API calls.
    for call in ['tcplab.run("wired.toml", overrides=["duration"])', 'tcplab.run("wired.toml", seed=2**64)',
                 'tcplab.run({"nodes": [{"name": 1}]})',
                 'tcplab.sweep("wired.toml", grid={"x": 5})', 'tcplab.results("secret.txt")',
                 'tcplab.run("wired.toml", overrides={"links.bottleneck.loss.p": float("nan")})']:
        T.append(Try("bad API call", call, [], api=api_call(call), secrets=[secret]))
    # pcap_dir, the folder the user names (harden4). Was `pcap_dir="/nonexistent"`: as root `/` is
    # writable, so it made /nonexistent and filled it (exit 0, outside the sandbox, unnoticed);
    # as a user it raised PermissionError. Each must now be a ScenarioError naming pcap_dir, with
    # nothing made, except where the folder can be made.
    missing = f"/tcplab-tries-missing-{uuid.uuid4().hex[:8]}"  # a parent that does not exist
    assert not os.path.lexists(missing)
    for call, never in [(f'tcplab.run("wired.toml", pcap_dir="{missing}/caps")', [missing]),
                        ('tcplab.run("wired.toml", pcap_dir="/sys/tcplab-caps")', ["/sys/tcplab-caps"]),
                        ('tcplab.run("wired.toml", pcap_dir="/proc")', []),
                        ('tcplab.run("wired.toml", pcap_dir="nofolder/caps")', [])]:
        T.append(Try("pcap_dir", call, [], api=api_call(call), never=never, expect_rc=2,
                     expect_err="ScenarioError pcap_dir:"))
    T.append(Try("pcap_dir", 'tcplab.run("wired.toml", pcap_dir="caps")', [], ["caps"],
                 api=api_call('tcplab.run("wired.toml", pcap_dir="caps")'), expect_rc=0))
    # harden5: a folder holding a file of a capture's name that tcplab did not write: refused before
    # the run (it was overwritten), nothing written anywhere (no manifest either).
    (box / "capsu").mkdir()
    (box / "capsu" / "bottleneck-a.pcap").write_text("the user's own capture")
    T.append(Try("pcap_dir", 'pcap_dir holding the user\'s bottleneck-a.pcap', [],
                 api=api_call('tcplab.run("wired.toml", pcap_dir="capsu")'), expect_rc=2,
                 expect_err="ScenarioError pcap_dir:"))
    # Kills mid-run and mid-sweep.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        T.append(Try("kill", f"{sig.name} during run --out K", ["run", "wired.toml", "--out", "K", *ENDLESS], ["K", ".K."], kill=sig))
        longsw = box / f"long{sig.name}.toml"
        longsw.write_text(sw.read_text().replace("replications = 2", "replications = 200") + '"duration" = ["60s"]\n')
        T.append(Try("kill", f"{sig.name} mid-sweep", ["sweep", longsw.name, "--store", f"k{sig.name}/db.sqlite", "--workers", "1"], [f"k{sig.name}"], kill=sig, after=6))
    T.append(Try("kill", "next run into K after the kills", ["run", "wired.toml", "--out", "K"], ["K", ".K."],
                 clears=killed_leftovers(".K.")))
    # harden4: a SIGKILL in the middle of publishing, at a known point (the hook tells, the try
    # waits for that state): K2 must be whole (old or new), and the next run into the same parent
    # (another folder) must clear what was left — the staging folder or the swap's old side.
    (box / "K2").mkdir()  # a run folder of an older tcplab (no manifest), with the user's notes
    (box / "K2" / "summary.json").write_text("{}\n")
    (box / "K2" / "notes.txt").write_text("the user's notes in K2")
    for where in ("_exchange", "_drain_swapped"):
        stop = box / ".tmp" / f"stopped{where}"
        T.append(Try("kill", f"SIGKILL publishing run --out K2, at {where}", [], ["K2", ".K2."], kill=signal.SIGKILL,
                     api=STOPPING_RUN.format(where=where, stop=str(stop)), kill_when=lambda _pid, stop=stop: stop.exists()))
        T.append(Try("kill", f"next run into K3 (same parent) after the kill at {where}", ["run", "wired.toml", "--out", "K3"],
                     ["K3", ".K2.", ".K3."], clears=killed_leftovers(".K2.")))
    # harden5: a SIGKILL of an API run writing captures into KC once the core's temporary capture
    # files exist: nothing under a capture's name; the next run into KC removes the staging folder.
    endless = 'tcplab.run("wired.toml", pcap_dir="KC", overrides={"duration": "1000000h", "max_events": 10**13})'
    T.append(Try("kill", "SIGKILL an API run writing captures into KC", [], ["KC/.captures."], kill=signal.SIGKILL,
                 api=api_call(endless), kill_when=lambda _pid: any((box / "KC").glob(".captures.tcplab-*/.*.pcap.tcplab-*.tmp"))))
    T.append(Try("kill", "next API run into KC after the kill", [], ["KC"], expect_rc=0,
                 api=api_call('tcplab.run("wired.toml", pcap_dir="KC")'), clears=killed_leftovers("KC/.captures.")))
    if ray:
        T.append(Try("ray", "sweep with a local Ray", ["sweep", sw.name, "--executor", "ray", "--workers", "2", "--store", "ray/db.sqlite"], ["ray"], ray=True, expect_rc=0))
        # harden4: a driver killed with SIGKILL once its Ray session exists leaves its private folder; the
        # next sweep that starts a Ray must remove it (its owner is gone), and leave nothing itself.
        T.append(Try("ray", "SIGKILL a Ray sweep's driver", ["sweep", longray.name, "--executor", "ray", "--workers", "1",
                     "--store", "rk/db.sqlite"], ["rk"], ray=True, kill=signal.SIGKILL, kill_when=ray_session_started))
        T.append(Try("ray", "next Ray sweep after the kill", ["sweep", sw.name, "--executor", "ray", "--workers", "1",
                     "--store", "ray2/db.sqlite"], ["ray2"], ray=True, expect_rc=0, clears=killed_leftovers("/tmp/tcplab-ray-")))
    if fast:
        T = [t for t in T if t.category not in ("kill", "ray") and "reproduce" not in t.name]
    return T


def prepare_readonly_store(box: Path, env: dict[str, str]) -> None:
    ro = box / "ro"
    subprocess.run([sys.executable, "-m", "tcplab", "sweep", "sweep.toml", "--store", "ro/db.sqlite", "--workers", "1"],
                   cwd=box, env=env, capture_output=True, check=True)
    for dirpath, dirs, files in os.walk(ro):
        for f in files:
            os.chmod(Path(dirpath) / f, 0o444)
        for d in dirs:
            os.chmod(Path(dirpath) / d, 0o555)
    os.chmod(ro, 0o555)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fast", action="store_true", help="skip kills, Ray and reproduce (about 30 s)")
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray-backed sweep")
    ap.add_argument("--only", metavar="TEXT", help="run only the tries whose category or name holds TEXT")
    ap.add_argument("--log", metavar="DIR", type=Path, help="keep each failed try's whole stderr in DIR")
    a = ap.parse_args(argv)
    box = Path(tempfile.mkdtemp(prefix="tcplab-tries-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), TMPDIR=str(box / ".tmp"), HOME=str(box / ".home"))
    (box / ".tmp").mkdir()
    (box / ".home").mkdir()
    outcomes = []
    try:
        ts = tries(box, a.fast, not a.no_ray)
        if a.only:
            ts = [t for t in ts if a.only in t.category or a.only in t.name]
        prepare_readonly_store(box, env)
        for t in ts:
            o = run_try(t, box, env)
            outcomes.append(o)
            if a.log is not None and o.problems:
                a.log.mkdir(parents=True, exist_ok=True)
                slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{t.category} {t.name}")[:80]
                (a.log / f"{len(outcomes):02d}-{slug}.stderr").write_text(
                    f"argv: {t.argv or t.api}\nexit: {o.rc}\nproblems: {o.problems}\n\n{o.err}")
            print(f"| {t.category} | {t.name} | {o.rc} | {'ok' if not o.problems else '; '.join(o.problems)} |", flush=True)
    finally:
        for dirpath, dirs, _ in os.walk(box):
            for d in dirs:
                try:
                    os.chmod(Path(dirpath) / d, 0o755)
                except OSError:
                    pass
        shutil.rmtree(box, ignore_errors=True)
        if Path("/tmp/tcplab-abs-escape-router.pcap").exists():
            print("ESCAPED: /tmp/tcplab-abs-escape-router.pcap was written")
    bad = [o for o in outcomes if o.problems]
    cats: dict[str, list[int]] = {}
    for o in outcomes:
        c = cats.setdefault(o.t.category, [0, 0])
        c[0] += 1
        c[1] += bool(o.problems)
    print("\n| category | tries | failed |\n|---|---|---|")
    for c, (n, f) in cats.items():
        print(f"| {c} | {n} | {f} |")
    print(f"{len(outcomes) - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
