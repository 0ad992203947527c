"""Small filesystem helpers: outputs appear whole or not at all, and only tcplab's own files are touched.

Every file tcplab writes for a user (run outputs, reports, exports) is first written under a
temporary name and then renamed, so a crash or Ctrl-C never leaves a truncated file.

An output folder (``tcplab run --out``, ``tcplab reproduce --out``) is filled in a staging folder
beside it and then *published* (:func:`publish`): the whole folder is swapped in by one rename
where it can be, file by file otherwise.  The folder keeps a manifest (:data:`MANIFEST`) of the
files tcplab wrote there; publishing replaces and removes only files the manifest lists, so
whatever else the user keeps in the folder survives, and a file of the same name that tcplab did
not write is never overwritten (the command is refused before anything is moved).

Temporary files and staging folders are named after their owner (PID and start time,
:func:`owner_tag`); what a SIGKILLed tcplab left is removed by the next one writing beside it,
once its owner is provably gone (:func:`remove_stale_staging`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import stat
import sys
from pathlib import Path

# shutil (with bz2 and lzma), tempfile (with random) and ctypes are imported by the functions that
# need them: ``tcplab run`` without ``--out`` reads its scenario through here (issue 35: start-up).
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator
    from typing import Any

#: Where sweeps and `tcplab results` keep their runs unless told otherwise (defined here, not in
#: ``store``, so that the CLI can name it without importing polars).
DEFAULT_STORE = Path("results") / "tcplab.db"

#: The list of files tcplab wrote into an output folder (relative POSIX paths, JSON).
MANIFEST = ".tcplab-manifest.json"


class OutputError(ValueError):
    """An output folder cannot be used without touching files tcplab did not write (exit status 2)."""


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    replace_file(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def replace_file(path: Path, write: Callable[[Path], object], *, parents: bool = True) -> Path:
    """Make ``path`` the file ``write`` writes, whole or not at all: ``write`` fills a temporary
    name beside it (:func:`temporary_name`), which is then renamed over ``path``.  A temporary
    file a killed tcplab left in that folder is removed first (:func:`remove_stale_staging`);
    ours goes if ``write`` fails or is interrupted.  Missing folders above ``path`` are made if
    ``parents``."""
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(path)
    tmp = temporary_name(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


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
        import tempfile

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


def owner_tag(pid: int | None = None) -> str:
    """``<pid>-<start ticks>`` of this process (or ``pid``): who made a temporary file or folder.

    A PID alone is not proof: PIDs are reused.  With the start time, :func:`owner_gone` can tell
    the owner from a later process that got the same PID (ticks ``0`` when /proc is missing).
    """
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{_start_ticks(pid) or 0}"


def owner_gone(tag: str) -> bool:
    """True only if the process ``tag`` (see :func:`owner_tag`) provably no longer runs: no process
    has its PID, or the one that has it started at another time.  A malformed tag is never gone."""
    pid_s, _, ticks = tag.partition("-")
    if not (pid_s.isdigit() and ticks.isdigit()):
        return False
    pid = int(pid_s)
    alive = _start_ticks(pid)
    if alive is not None:
        return ticks != "0" and alive != ticks  # the same start time: still the owner
    if ticks != "0":
        return True  # /proc answers for other processes: this PID has none
    try:  # no /proc: ask the kernel whether the PID is taken (reuse cannot be told apart)
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


#: A staging folder's or temporary file's name: ``.<name>.tcplab-<pid>-<start ticks>.<suffix>``.
#: A folder's suffix is ``tempfile.mkdtemp``'s (8 of ``[a-z0-9_]``; ``_b``: the old side while
#: :func:`_exchange` falls back to two renames; ``_o``: the old side being drained); a file's is ``tmp``.
_OWNED_NAME = re.compile(r"^\.(?P<target>.+)\.tcplab-(?P<tag>[0-9]+-[0-9]+)\.(?P<suffix>tmp|[a-z0-9_]{8}(?:_b|_o)?)$")


def _staging_prefix(target: Path, pid: int) -> str:
    """A staging folder's name says whose it is: ``.<out>.tcplab-<pid>-<start ticks>.``; a later
    run can then prove that its owner is gone (a SIGKILL leaves the folder behind)."""
    return f".{target.name}.tcplab-{owner_tag(pid)}."


def temporary_name(path: Path) -> Path:
    """Where to write ``path`` before renaming it into place: a hidden name beside it that says
    whose it is (``.<name>.tcplab-<pid>-<start ticks>.tmp``), so that one left by a killed process
    is removed by the next tcplab writing into that folder (:func:`remove_stale_staging`)."""
    return path.with_name(f".{path.name}.tcplab-{owner_tag()}.tmp")


def remove_stale_staging(target: Path) -> list[Path]:
    """Remove the staging folders and temporary files beside ``target`` left by tcplab processes
    that no longer run (a SIGKILL cannot be caught: nothing ran to remove them).

    Every entry of ``target``'s parent whose name is a tcplab staging or temporary name (any
    target, :data:`_OWNED_NAME`), that is owned by this user and not a symlink, and whose process
    is provably gone (:func:`owner_gone`) is removed; a run still going on in parallel keeps its
    own.  A folder holding a manifest is the old side of a folder swap (:func:`publish`): only
    what it proves tcplab's is removed (:func:`_drain_swapped`).  Returns what was removed.
    """
    removed = []
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return removed
    for p in entries:
        m = _OWNED_NAME.match(p.name)
        if m is None or not owner_gone(m["tag"]):
            continue
        try:
            st = p.lstat()
        except OSError:
            continue
        if st.st_uid != os.geteuid() or stat.S_ISLNK(st.st_mode):
            continue  # not ours to remove
        if stat.S_ISDIR(st.st_mode) and m["suffix"] != "tmp":
            if (p / MANIFEST).is_file() and not _drain_swapped(p, target.parent / m["target"]):
                continue  # something in it is not provably tcplab's: kept
            import shutil

            shutil.rmtree(p, ignore_errors=True)
        elif stat.S_ISREG(st.st_mode) and m["suffix"] == "tmp":
            p.unlink(missing_ok=True)
        else:
            continue
        removed.append(p)
    return removed


#: Staging folders created by this process and not yet published or removed.
_STAGING: set[Path] = set()


def remove_staging() -> None:
    """Remove every staging folder of this process that was not published (interrupted commands)."""
    if not _STAGING:
        return
    import shutil

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
    """Make ``out`` hold every file of ``staging`` and record them in ``out``'s manifest.

    Files tcplab wrote into ``out`` before (its manifest; or, for a folder of an older tcplab that
    has ``marker``, the files of the same names) are replaced, and those not written this time are
    removed.  No other file is touched: if one has the name of a file to be written, nothing is
    moved and :class:`OutputError` is raised.  ``staging`` is removed.  Returns the files written.

    Whole folder at once where it can (:func:`_swap_in`): the new folder is completed beside
    ``out`` (the user's files given a second name in it, a hard link) and the two are exchanged
    by one rename, so that a reader opening ``out`` finds the old folder or the new one, never a
    mix.  Otherwise (``out`` a symlink or mount point, another user's, holding the working
    folder, a file system without hard links) file by file, as before.
    """
    new = sorted(_files(staging))
    check_out(out, marker, what)
    old = read_manifest(out) if out.is_dir() else set()
    if old is None:  # a new folder, or one from a tcplab without manifests
        old = {f for f in new if (out / f).is_file()} if (out / marker).is_file() else set()
    clash = [f for f in new if f not in old and os.path.lexists(out / f)]
    if clash:
        raise OutputError(
            f"{out}: would overwrite {', '.join(clash[:3])}{' …' if len(clash) > 3 else ''}, "
            f"which tcplab did not write there; move it away or choose another folder"
        )
    if _swap_in(staging, out, old, new):
        return new
    out.mkdir(parents=True, exist_ok=True)
    # The manifest lists old and new files while they are moved, so that an interruption never
    # leaves a file of ours unlisted (the next run still knows it may replace it).
    _write_manifest(out, old | set(new))
    for f in new:
        (out / f).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / f, out / f)
    for f in sorted(old - set(new)):
        _remove_owned(out, f)
    _write_manifest(out, new)
    import shutil

    shutil.rmtree(staging, ignore_errors=True)
    _STAGING.discard(staging)
    return new


def taken_names(folder: Path, names: Collection[str]) -> list[str]:
    """Those of ``names`` that exist in ``folder`` (as anything, a symlink included) and that its
    manifest does not list: files tcplab did not write there, which it must not replace."""
    listed = read_manifest(folder) or set()
    return [n for n in names if n not in listed and os.path.lexists(folder / n)]


def taken_message(folder: Path, taken: list[str]) -> str:
    return (
        f"{folder}: would overwrite {', '.join(taken[:3])}{' …' if len(taken) > 3 else ''}, which tcplab "
        f"did not write there (not in its {MANIFEST}); move it away or choose another folder"
    )


def add_files(staging: Path, folder: Path) -> list[str]:
    """Move every file of ``staging`` into the existing ``folder`` and add them to its manifest;
    ``staging`` is removed.  Returns the files moved.

    For a folder that collects outputs (``tcplab.run(pcap_dir=...)``) rather than being one
    output (:func:`publish`): a file the manifest lists is replaced, a new name is given only if
    it is free (a hard link, which never replaces; or, where the file system has none, an empty
    file created exclusively and then replaced), and nothing else in the folder is touched or
    removed.  If a name is taken by a file not listed, nothing is moved (:class:`OutputError`).
    """
    new = sorted(_files(staging))
    try:
        taken = taken_names(folder, new)
        if taken:
            raise OutputError(taken_message(folder, taken))
        listed = read_manifest(folder) or set()
        moved: set[str] = set()
        try:
            for f in new:
                src, dst = staging / f, folder / f
                dst.parent.mkdir(parents=True, exist_ok=True)
                if f not in listed:
                    _claim(src, dst)  # FileExistsError if the name was taken during the run
                os.replace(src, dst)
                moved.add(f)
        except FileExistsError:
            raise OutputError(taken_message(folder, [f])) from None
        finally:
            if moved:  # after the files: an interruption leaves ours unlisted, never a user's listed
                _write_manifest(folder, listed | moved)
    finally:
        discard_staging(staging)
    return new


def _claim(src: Path, dst: Path) -> None:
    """Give ``dst`` to tcplab without replacing anything there: a second name of ``src`` (the
    caller then renames ``src`` over it, the same file), or an empty file made with O_EXCL."""
    try:
        os.link(src, dst, follow_symlinks=False)
        return
    except FileExistsError:
        raise
    except OSError:
        pass  # no hard links here (another file system type): reserve the name instead
    os.close(os.open(dst, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))


def discard_staging(staging: Path) -> None:
    """Remove a staging folder of this process (made by :func:`staging_dir`) and forget it."""
    import shutil

    shutil.rmtree(staging, ignore_errors=True)
    _STAGING.discard(staging)


def _swap_in(staging: Path, out: Path, old: set[str], new: list[str]) -> bool:
    """Publish ``staging`` as ``out`` in one step; False (nothing of ``out`` changed) if it cannot.

    1. Every entry of ``out`` that is not tcplab's (not in ``old``, not the manifest) gets a second
       name at the same place in ``staging`` (``os.link``: the same file, not a copy), folders
       are re-made; ``staging`` gets the new manifest and ``out``'s mode.
    2. ``out`` gets a manifest of ``old`` (the old side then proves which of its files are ours).
    3. One ``renameat2(RENAME_EXCHANGE)`` swaps the two names (two renames where the file system
       cannot, with a moment without ``out``).
    4. The old folder, now under the staging name, is renamed (``…_o``: a caller's clean-up of
       the staging name must not reach it) and drained (:func:`_drain_swapped`): tcplab's old
       files and the second names go, and a file the user put into ``out`` between steps 1 and 3
       is moved into the new ``out`` (or kept there, with a warning, if its name is taken).

    A SIGKILL at any point leaves the staging name, which the next publish into this parent
    proves stale and drains or removes (:func:`remove_stale_staging`).
    """
    if not _can_swap(out):
        return False
    try:
        if out.is_dir():
            _link_others(out, staging, old)
            mode = stat.S_IMODE(out.stat().st_mode)
        else:
            mode = 0o777 & ~_umask()  # what mkdir would have given it
        _write_manifest(staging, new)
        os.chmod(staging, mode)
        if out.is_dir():
            _write_manifest(out, old)
    except OSError:
        return False  # staging holds ours and second names only: publish file by file instead
    held = {signal.SIGINT, signal.SIGTERM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        if out.is_dir():
            try:
                _exchange(staging, out)
            except OSError:
                return False
            # The staging name now holds the old folder, which may hold a file of the user's: it
            # moves to a name of its own, so that a caller's clean-up of the staging folder (an
            # rmtree on an interruption) finds nothing there.
            side = staging.with_name(staging.name + "_o")
            try:
                os.rename(staging, side)
            except OSError:
                side = staging
        else:
            try:
                os.rename(staging, out)  # appears whole (or replaces an empty folder made meanwhile)
            except OSError:
                return False
            side = None
        _STAGING.discard(staging)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    if side is not None and not _drain_swapped(side, out):
        print(f"tcplab: kept {side}: it holds files put into {out} while it was replaced", file=sys.stderr)
    return True


def _can_swap(out: Path) -> bool:
    """``out`` may be replaced by a rename: absent, or a real folder of this user's that is not a
    mount point and does not hold this process's working folder."""
    try:
        st = out.lstat()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or os.path.ismount(out):
        return False
    try:
        return not inside(Path.cwd(), out)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _entries(root: Path, rel: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under ``root`` (relative POSIX path, entry), a folder before what it holds;
    symlinks are not followed."""
    with os.scandir(root / rel if rel else root) as it:
        items = sorted(it, key=lambda e: e.name)
    for e in items:
        name = f"{rel}/{e.name}" if rel else e.name
        yield name, e
        if e.is_dir(follow_symlinks=False):
            yield from _entries(root, name)


def _link_others(out: Path, staging: Path, ours: set[str]) -> None:
    """Give every entry of ``out`` that tcplab did not write a second name in ``staging``."""
    dev = out.stat().st_dev
    for name, e in _entries(out):
        if name == MANIFEST or name in ours:
            continue
        st = e.stat(follow_symlinks=False)
        if st.st_dev != dev:
            raise OSError(f"{out / name} is on another file system")
        if stat.S_ISDIR(st.st_mode):
            (staging / name).mkdir(exist_ok=True)
            os.chmod(staging / name, stat.S_IMODE(st.st_mode))
        else:
            os.link(out / name, staging / name, follow_symlinks=False)


def _exchange(a: Path, b: Path) -> None:
    """Swap the names ``a`` and ``b`` atomically (Linux ``renameat2(RENAME_EXCHANGE)``); where the
    call or the file system lacks it, two renames (``b`` is missing between them)."""
    fn = _renameat2()
    if fn is not None:
        if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
            return
        import ctypes

        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(err, os.strerror(err), str(b))
    aside = a.with_name(a.name + "_b")
    os.rename(b, aside)
    try:
        os.rename(a, b)
    except OSError:
        os.rename(aside, b)
        raise
    os.rename(aside, a)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h


def _renameat2() -> Any:
    import ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not glibc >= 2.28
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _drain_swapped(side: Path, out: Path) -> bool:
    """Empty ``side``, the old side of a folder swap (or a staging folder killed just before it),
    removing only what is provably tcplab's or still present in ``out``; True if it is gone.

    An entry goes if its manifest (``side``'s own) lists it, or if ``out`` has the same file at
    the same place (a second name: nothing is lost).  Anything else is a file put into the old
    folder by someone else: it is moved to its place in ``out`` if that is free, else kept.
    """
    listed = read_manifest(side) or set()
    for name, e in list(_entries(side)):
        if name == MANIFEST or e.is_dir(follow_symlinks=False):
            continue
        path = side / name
        try:
            st = e.stat(follow_symlinks=False)
            if name in listed or _same_file(st, out / name):
                path.unlink()
                continue
            if not inside((out / name).parent, out):
                continue
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, out / name, follow_symlinks=False)  # fails if the name is taken
            path.unlink()
        except OSError:
            continue
    for name, e in reversed(list(_entries(side))):
        if e.is_dir(follow_symlinks=False):
            try:
                (side / name).rmdir()  # only if empty
            except OSError:
                pass
    if any(n != MANIFEST for n, _ in _entries(side)):
        return False
    (side / MANIFEST).unlink(missing_ok=True)
    try:
        side.rmdir()
    except OSError:
        return False
    return True


def _same_file(st: os.stat_result, other: Path) -> bool:
    try:
        o = other.lstat()
    except OSError:
        return False
    return (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino)


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
