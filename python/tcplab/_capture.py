"""What ``tcplab.run(..., pcap_dir=..., pcap_80211=...)`` asks of the core: the folder, created if
it does not exist yet (only that folder: its parent must exist and be writable; otherwise a
:class:`ScenarioError` naming ``pcap_dir``, before anything runs), and the trace lists the CLI's
``--pcap`` / ``--pcap-80211`` would use (every interface unless the scenario names some).

The folder is the user's, and may hold anything: tcplab owns only the captures it lists in the
folder's manifest (``.tcplab-manifest.json``, as an ``--out`` folder has).  A capture's name
taken by a file that is not listed is refused before the run; listed ones are replaced; nothing
else is touched or removed.  The core writes into a hidden staging folder inside ``pcap_dir``
(``.captures.tcplab-<pid>-<start ticks>.xxxxxxxx``), and the captures move into place only when
the run has succeeded (:func:`tcplab._fs.add_files`).  A run refused or failed leaves nothing:
the staging folder goes, and so does the folder if the run made it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tcplab import _core, _fs
from tcplab._args import scenario_error
from tcplab.exceptions import ScenarioError


def capture_request(
    text: str, fmt: str, pairs: list[tuple[str, str]], pcap_dir: Any, pcap_80211: bool
) -> tuple[list[tuple[str, str]], str | None]:
    """The overrides and the folder for a run's captures (``pairs`` unchanged without a folder)."""
    if not isinstance(pcap_80211, bool):
        raise TypeError(f"pcap_80211: expected True or False, got {type(pcap_80211).__name__}")
    if pcap_dir is None:
        if pcap_80211:
            raise scenario_error("pcap_80211", "needs pcap_dir, the folder the captures are written to")
        return pairs, None
    folder = Path(os.fspath(pcap_dir))
    if folder.exists() and not folder.is_dir():
        raise scenario_error("pcap_dir", f"{folder} exists and is not a folder")
    if folder.is_dir():
        if not os.access(folder, os.W_OK | os.X_OK):
            raise scenario_error("pcap_dir", f"the folder {folder} cannot be written to")
    elif not folder.parent.is_dir():
        raise scenario_error("pcap_dir", f"the folder {folder.parent} does not exist (only {folder.name} is created)")
    elif not os.access(folder.parent, os.W_OK | os.X_OK):
        # Before anything runs: as root an unwritable parent is rare, as a user `/nonexistent`.
        raise scenario_error("pcap_dir", f"{folder} cannot be created: the folder {folder.parent} cannot be written to")
    pairs = capture_lists(text, fmt, pairs, True, pcap_80211)  # an invalid scenario: no folder made
    if folder.is_dir():  # a file of a capture's name that tcplab did not write there: refused now
        taken = _fs.taken_names(folder, _core.captures(text, fmt, pairs)["files"])
        if taken:
            raise scenario_error("pcap_dir", _fs.taken_message(folder, taken))
    return pairs, os.fspath(folder)


def window_notes(text: str, fmt: str, pairs: list[tuple[str, str]]) -> list[str]:
    """How to read the windows in the captures of a TCP flow that opens one-way (``tcp.open`` =
    ``none`` or ``sender_syn``, ns-2's start) and scales its window all the same (both ends'
    ``window_scaling``, issue 33): no window-scale option is on the wire, so Wireshark reads the
    window field unscaled unless it is told the shift (``tcp.default_window_scaling``; with
    ``sender_syn`` its bare SYNs say "not scaled", which wins over that preference: they must be
    left out first).  One "trace.pcap: …" line per shift, none when nothing is scaled (docs/trace.md
    "Captures of a one-way start")."""
    by_shift: dict[int, list[dict[str, Any]]] = {}
    for f in _core.captures(text, fmt, pairs)["window_shifts"]:
        by_shift.setdefault(int(f["shift"]), []).append(f)
    notes = []
    for shift, flows in sorted(by_shift.items()):
        names = ", ".join(f["flow"] for f in flows)
        opens = sorted({f["open"] for f in flows})
        note = (
            f"trace.pcap: flow{'s' if len(flows) > 1 else ''} {names} open{'' if len(flows) > 1 else 's'} one-way "
            f"(tcp.open = {' / '.join(opens)}) and scale{'' if len(flows) > 1 else 's'} the window by 2^{shift} "
            f"with no window-scale option on the wire; read the captures with "
            f"`tshark -o tcp.default_window_scaling:{shift}` (Wireshark: Preferences > Protocols > TCP > "
            f"\"Scaling factor to use when not available from capture\")"
        )
        if "sender_syn" in opens:
            note += (
                "; the bare SYNs of sender_syn tell Wireshark the window is not scaled, which wins over "
                "that setting: leave them out first, `tshark -r X.pcap -Y \"not tcp.flags.syn == 1\" -w "
                "X-nosyn.pcap`, and read X-nosyn.pcap so"
            )
        notes.append(note)
    if len(notes) > 1:
        notes.append("trace.pcap: the setting applies to every TCP stream of a file: read each flow with its own shift")
    return notes


def capture_lists(
    text: str, fmt: str, pairs: list[tuple[str, str]], ip: bool, wifi: bool
) -> list[tuple[str, str]]:
    """``pairs`` plus ``trace.pcap = ["*"]`` if ``ip`` and ``trace.pcap_80211 = ["*"]`` if ``wifi``,
    each only when the scenario names no interfaces of its own (``--pcap``, ``--pcap-80211``)."""
    trace = _core.resolve(text, fmt, pairs)["trace"]
    pairs = list(pairs)
    if ip and not trace.get("pcap"):
        pairs.append(("trace.pcap", '["*"]'))
    if wifi and not trace.get("pcap_80211"):
        pairs.append(("trace.pcap_80211", '["*"]'))
    return pairs


@contextlib.contextmanager
def captures_into(folder: str | None) -> Iterator[str | None]:
    """Around the core's run: yields the staging folder the core writes its captures into (inside
    ``folder``), and moves them into ``folder`` when the run succeeds, listing them in its
    manifest.  If the core cannot create its capture files (a folder root may enter but the file
    system refuses), the problem is named ``pcap_dir`` (the argument the user gave; the core says
    ``trace.pcap``).  On any error nothing is left: the staging folder goes, and ``folder`` too
    if this run made it and it is empty."""
    if folder is None:
        yield None
        return
    try:
        os.mkdir(folder)
        created = True
    except FileExistsError:
        created = False
    except OSError as exc:  # e.g. a read-only file system, or /sys
        raise scenario_error("pcap_dir", f"{folder} cannot be created: {exc.strerror or exc}") from None
    try:
        staging = _fs.staging_dir(Path(folder) / "captures")
    except OSError as exc:  # /proc: root may enter it, but it takes no new file or folder
        _remove_if_empty(folder, created)
        reason = exc.strerror or str(exc)
        raise scenario_error("pcap_dir", f"the captures cannot be written into {folder}: {reason}") from None
    try:
        yield os.fspath(staging)
        try:
            _fs.add_files(staging, Path(folder))
        except _fs.OutputError as exc:  # a name taken during the run
            raise scenario_error("pcap_dir", str(exc)) from None
    except ScenarioError as exc:
        _fs.discard_staging(staging)
        _remove_if_empty(folder, created)
        problems = [e for e in exc.errors() if e.get("loc") == "trace.pcap" and str(e["msg"]).startswith("cannot create ")]
        if not problems:
            raise
        reason = str(problems[0]["msg"]).removeprefix("cannot create ")
        raise scenario_error("pcap_dir", f"the captures cannot be written into {folder}: {reason}") from None
    except BaseException:
        _fs.discard_staging(staging)
        _remove_if_empty(folder, created)
        raise


def _remove_if_empty(folder: str, created: bool) -> None:
    """The folder made for a run that was refused goes again (only if this run made it and it is empty)."""
    if created:
        try:
            os.rmdir(folder)
        except OSError:
            pass
