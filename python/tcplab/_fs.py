"""Small filesystem helpers: outputs appear whole or not at all, and only tcplab's own files are touched.

Every file tcplab writes for a user (run outputs, reports, exports) is first written under a
temporary name and then renamed, so a crash or Ctrl-C never leaves a truncated file.

An output folder (``tcplab run --out``, ``tcplab reproduce --out``) is filled in a staging folder
beside it and then *published* into it file by file (:func:`publish`).  The folder keeps a manifest
(:data:`MANIFEST`) of the files tcplab wrote there; publishing replaces and removes only files the
manifest lists, so whatever else the user keeps in the folder survives, and a file of the same name
that tcplab did not write is never overwritten (the command is refused before anything is moved).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Collection, Iterator
from pathlib import Path

#: Where sweeps and `tcplab results` keep their runs unless told otherwise (defined here, not in
#: ``store``, so that the CLI can name it without importing polars).
DEFAULT_STORE = Path("results") / "tcplab.db"

#: The list of files tcplab wrote into an output folder (relative POSIX paths, JSON).
MANIFEST = ".tcplab-manifest.json"


class OutputError(ValueError):
    """An output folder cannot be used without touching files tcplab did not write (exit status 2)."""


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def staging_dir(target: Path) -> Path:
    """A new empty folder beside ``target``, to be filled and then published there by :func:`publish`.

    The caller removes it if it fails (``shutil.rmtree`` in a ``finally``); every staging folder
    not yet published is also listed until :func:`remove_staging` (the CLI calls it on its way
    out, and turns SIGTERM into an exception so that this happens when it is terminated too).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(target)
    # A signal between creating the folder and listing it would leave it behind: hold them off.
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        folder = Path(tempfile.mkdtemp(prefix=_staging_prefix(target, os.getpid()), dir=target.parent))
        _STAGING.add(folder)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return folder


def _start_ticks(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat field 22); None if
    there is no such process (or no /proc to ask)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: count after its end.
    return stat_line.rsplit(")", 1)[1].split()[19]


def _staging_prefix(target: Path, pid: int) -> str:
    """A staging folder's name says whose it is: ``.<out>.tcplab-<pid>-<start ticks>.``; a later
    run can then prove that its owner is gone (a SIGKILL leaves the folder behind)."""
    return f".{target.name}.tcplab-{pid}-{_start_ticks(pid) or 0}."


def remove_stale_staging(target: Path) -> list[Path]:
    """Remove the staging folders of ``target`` left by tcplab processes that no longer run.

    Only folders whose name is a tcplab staging name for this target are considered, and only
    those whose process is gone (no such PID, or a PID reused by a process that started at another
    time) are removed: a run still going on in parallel keeps its folder.  Returns what was removed.
    """
    prefix = f".{target.name}.tcplab-"
    removed = []
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return removed
    for p in entries:
        if not p.name.startswith(prefix) or p.is_symlink() or not p.is_dir():
            continue
        owner = p.name[len(prefix) :].split(".", 1)[0]
        pid_s, _, ticks = owner.partition("-")
        if not (pid_s.isdigit() and ticks.isdigit()):
            continue
        pid = int(pid_s)
        alive = _start_ticks(pid)
        if alive is not None and (ticks == "0" or alive == ticks):
            continue  # its process still runs (or cannot be told apart from it)
        if alive is None and ticks == "0":
            try:
                os.kill(pid, 0)
                continue
            except ProcessLookupError:
                pass
            except OSError:
                continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


#: Staging folders created by this process and not yet published or removed.
_STAGING: set[Path] = set()


def remove_staging() -> None:
    """Remove every staging folder of this process that was not published (interrupted commands)."""
    while _STAGING:
        shutil.rmtree(_STAGING.pop(), ignore_errors=True)


def read_manifest(folder: Path) -> set[str] | None:
    """The files tcplab recorded as written into ``folder``; None if it has no (readable) manifest."""
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return {f for f in files if _safe_relative(f)}


def _safe_relative(name: str) -> bool:
    """A manifest entry names a file inside the folder: relative, no ``..``, not the manifest."""
    p = Path(name)
    return bool(name) and not p.is_absolute() and ".." not in p.parts and name != MANIFEST


def _write_manifest(folder: Path, files: Collection[str]) -> None:
    write_text(folder / MANIFEST, json.dumps({"written_by": "tcplab", "files": sorted(files)}, indent=1) + "\n")


def _files(root: Path) -> Iterator[str]:
    """Every regular file under ``root``, as a relative POSIX path."""
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            yield (Path(dirpath) / n).relative_to(root).as_posix()


def check_out(out: Path, marker: str, what: str) -> None:
    """Refuse an output folder tcplab may not write into, before any work is done.

    Accepted: a folder that does not exist, an empty folder, a folder with tcplab's manifest, or a
    folder written by an older tcplab (no manifest, but ``marker``, e.g. ``summary.json``).
    """
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputError(f"{out}: exists and is not a folder; refusing to overwrite it (a {what} is a folder)")
    if any(out.iterdir()) and read_manifest(out) is None and not (out / marker).is_file():
        raise OutputError(
            f"{out}: exists, is not empty and is not a tcplab {what} (no {MANIFEST}); "
            "refusing to write into it: choose a new or empty folder"
        )


def publish(staging: Path, out: Path, marker: str, what: str) -> list[str]:
    """Move every file of ``staging`` into ``out`` and record them in ``out``'s manifest.

    Files tcplab wrote into ``out`` before (its manifest; or, for a folder of an older tcplab that
    has ``marker``, the files of the same names) are replaced, and those not written this time are
    removed.  No other file is touched: if one has the name of a file to be written, nothing is
    moved and :class:`OutputError` is raised.  ``staging`` is removed.  Returns the files written.
    """
    new = sorted(_files(staging))
    check_out(out, marker, what)
    out.mkdir(parents=True, exist_ok=True)
    old = read_manifest(out)
    if old is None:  # a new folder, or one from a tcplab without manifests
        old = {f for f in new if (out / f).is_file()} if (out / marker).is_file() else set()
    clash = [f for f in new if f not in old and os.path.lexists(out / f)]
    if clash:
        raise OutputError(
            f"{out}: would overwrite {', '.join(clash[:3])}{' …' if len(clash) > 3 else ''}, "
            f"which tcplab did not write there; move it away or choose another folder"
        )
    # The manifest lists old and new files while they are moved, so that an interruption never
    # leaves a file of ours unlisted (the next run still knows it may replace it).
    _write_manifest(out, old | set(new))
    for f in new:
        (out / f).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / f, out / f)
    for f in sorted(old - set(new)):
        _remove_owned(out, f)
    _write_manifest(out, new)
    shutil.rmtree(staging, ignore_errors=True)
    _STAGING.discard(staging)
    return new


def _remove_owned(out: Path, name: str) -> None:
    """Remove file ``name`` (listed in the manifest) and the folders it leaves empty, up to ``out``."""
    path = out / name
    if not inside(path.parent, out):  # a folder replaced by a symlink to elsewhere: not ours
        return
    if path.is_file() or path.is_symlink():
        path.unlink()
    parent = path.parent
    while parent != out and out in parent.parents:
        try:
            parent.rmdir()  # only if empty: a user's file in it keeps it
        except OSError:
            break
        parent = parent.parent


def inside(path: Path, folder: Path) -> bool:
    """True if ``path`` is ``folder`` or lies under it (both resolved, symlinks followed)."""
    p, f = path.resolve(), folder.resolve()
    return p == f or f in p.parents


#: The largest input file read (scenario, sweep and movement files): the core's limit too
#: (``MAX_INPUT_BYTES`` in crates/tcplab-core/src/scenario/input_file.rs).
MAX_INPUT_BYTES = 256 << 20

_PSEUDO = (Path("/proc"), Path("/sys"), Path("/dev"))


def read_input(path: Path, what: str) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most :data:`MAX_INPUT_BYTES`.

    A folder, device (``/dev/zero`` never ends), FIFO (blocks), socket or pseudo-file of
    ``/proc``/``/sys`` raises ValueError naming the file and what was expected; a missing or
    unreadable file raises the usual OSError.  Nothing of the file's content is ever quoted.
    """
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, f"is a folder; expected a {what}", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: not a regular file (a device, FIFO or socket); expected a {what}")
    real = path.resolve()
    if any(real == p or p in real.parents for p in _PSEUDO):
        raise ValueError(f"{path}: a pseudo-file of the operating system; expected a {what}")
    if st.st_size > MAX_INPUT_BYTES:
        raise ValueError(f"{path}: larger than {MAX_INPUT_BYTES >> 20} MiB, the limit for a {what}")
    with open(path, "rb") as f:
        data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"{path}: larger than {MAX_INPUT_BYTES >> 20} MiB, the limit for a {what}")
    return data
