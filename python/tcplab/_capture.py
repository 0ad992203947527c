"""What ``tcplab.run(..., pcap_dir=..., pcap_80211=...)`` asks of the core: the folder, created if
it does not exist yet (only that folder: its parent must exist), and the trace lists the CLI's
``--pcap`` / ``--pcap-80211`` would use (every interface unless the scenario names some)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab._args import scenario_error


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
    if not folder.exists() and not folder.parent.is_dir():
        raise scenario_error("pcap_dir", f"the folder {folder.parent} does not exist (only {folder.name} is created)")
    pairs = capture_lists(text, fmt, pairs, True, pcap_80211)  # an invalid scenario: no folder made
    folder.mkdir(exist_ok=True)
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
