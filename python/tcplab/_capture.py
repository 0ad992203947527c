"""What ``tcplab.run(..., pcap_dir=..., pcap_80211=...)`` asks of the core: the folder, created if
it does not exist yet (only that folder: its parent must exist and be writable; otherwise a
:class:`ScenarioError` naming ``pcap_dir``, before anything runs), and the trace lists the CLI's
``--pcap`` / ``--pcap-80211`` would use (every interface unless the scenario names some).  A run
refused after that leaves nothing: the folder it made goes, and so do capture files it began."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tcplab import _core
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
    return pairs, os.fspath(folder)


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
def captures_into(folder: str | None) -> Iterator[None]:
    """Around the core's run: if it cannot create its capture files in ``folder`` (a folder root
    may enter but the file system refuses, a name taken by a folder), the problem is named
    ``pcap_dir`` (the argument the user gave; the core says ``trace.pcap``), and the capture files
    it had already created there — none of them complete — are removed: an error writes nothing."""
    if folder is None:
        yield
        return
    try:
        os.mkdir(folder)
        created = True
    except FileExistsError:
        created = False
    except OSError as exc:  # e.g. a read-only file system, or /sys
        raise scenario_error("pcap_dir", f"{folder} cannot be created: {exc.strerror or exc}") from None
    before = set(os.listdir(folder))
    try:
        yield
    except ScenarioError as exc:
        problems = [e for e in exc.errors() if e.get("loc") == "trace.pcap" and str(e["msg"]).startswith("cannot create ")]
        if not problems:
            _remove_if_empty(folder, created)
            raise
        for name in set(os.listdir(folder)) - before:
            path = Path(folder) / name
            if name.endswith(".pcap") and path.is_file() and not path.is_symlink():
                path.unlink()
        _remove_if_empty(folder, created)
        reason = str(problems[0]["msg"]).removeprefix("cannot create ")
        raise scenario_error("pcap_dir", f"the captures cannot be written into {folder}: {reason}") from None


def _remove_if_empty(folder: str, created: bool) -> None:
    """The folder made for a run that was refused goes again (only if this run made it and it is empty)."""
    if created:
        try:
            os.rmdir(folder)
        except OSError:
            pass
