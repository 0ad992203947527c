"""The viewer's data model: what the page reads, built from one run's :class:`~tcplab.result.Result`.

This is the one place where traces become the page's data. Today the rows come from the core's
``trace.view`` record (transmissions on air and wire classed by packet kind, reception outcomes at
the addressee, drops with their reason, MAC link failures) and the per-flow series; a richer
per-packet event trace plugs in here by producing the same columns (see ``EVENT_COLUMNS``).

The page gets one JSON header and one binary blob of little-endian columns, gzip-compressed and
base64-encoded into the HTML file (the browser inflates it with its built-in DecompressionStream).
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from tcplab.result import Result

# Column name → numpy dtype, in the order the blob holds them (8-byte columns first so every
# column starts aligned for the page's typed arrays).
EVENT_COLUMNS: dict[str, str] = {
    "t_s": "<f8",
    "bytes": "<u4",
    "dur_us": "<f4",
    "node": "<u2",
    "peer": "<u2",
    "flow": "<u2",
    "qlen": "<u2",
    "event": "u1",
    "class": "u1",
    "retry": "u1",
    "reason": "u1",
}

#: The columns the page reads, in the same order: all but ``dur_us`` (time on the air), which it
#: does not draw. Element sizes only shrink along the blob, so every column starts aligned.
PAGE_COLUMNS: tuple[str, ...] = tuple(k for k in EVENT_COLUMNS if k != "dur_us")

#: Series the viewer asks the run for (per TCP flow); goodput is derived from rcv_nxt.
SERIES = ("cwnd", "snd_nxt", "rcv_nxt")

_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def seconds(text: str | float | int) -> float:
    """A duration as the scenario format writes it ("600s", "10min", "1.5 ms") or a number of seconds."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*", str(text))
    if not m or (m.group(2) and m.group(2) not in _UNITS):
        raise ValueError(f"{text!r} is not a duration; write a number and one of {', '.join(_UNITS)} (e.g. 30s)")
    return float(m.group(1)) * _UNITS.get(m.group(2) or "s", 1.0)


@dataclass
class ViewData:
    """What the page shows: ``header`` (JSON) and ``blob`` (the packed event columns)."""

    header: dict[str, Any]
    blob: bytes

    def encoded(self) -> tuple[str, str]:
        """(header JSON, base64 of the gzip-compressed blob), ready to embed."""
        packed = gzip.compress(self.blob, compresslevel=1, mtime=0)
        return json.dumps(self.header, separators=(",", ":"), allow_nan=False), base64.b64encode(packed).decode()


def _layout(meta: dict[str, Any], placed: set[int]) -> dict[int, tuple[float, float]]:
    """Positions for nodes that have none (wired hosts and routers): columns by hop distance over
    the wired links, left of whatever is placed; a purely wired network is laid out left to right
    from the first flow's sender."""
    n = len(meta["nodes"])
    adj: dict[int, list[int]] = {i: [] for i in range(n)}
    for link in meta["links"]:
        adj[link["a"]].append(link["b"])
        adj[link["b"]].append(link["a"])
    depth: dict[int, int] = {}
    queue: deque[int] = deque()
    if placed:
        for i in sorted(placed):
            depth[i] = 0
            queue.append(i)
    else:
        flows = meta["flows"]
        first = flows[0].get("server", flows[0].get("src", 0)) if flows else 0
        depth[first] = 0
        queue.append(first)
    while queue:
        u = queue.popleft()
        for w in adj[u]:
            if w not in depth:
                depth[w] = depth[u] + 1
                queue.append(w)
    for i in range(n):  # unconnected nodes: one more column
        depth.setdefault(i, max(depth.values(), default=0) + 1)
    columns: dict[int, list[int]] = {}
    for i in range(n):
        if i not in placed:
            columns.setdefault(depth[i], []).append(i)
    step = 150.0
    out: dict[int, tuple[float, float]] = {}
    for d, members in columns.items():
        for k, i in enumerate(members):
            y = (k - (len(members) - 1) / 2) * step
            # Wired nodes sit left of the wireless area (negative x), or left to right when all wired.
            x = -d * step * 1.5 if placed else d * step * 1.5
            out[i] = (x, y)
    return out


def _series(result: Result) -> dict[str, dict[str, list[list[float]]]]:
    """Per flow: cwnd (segments or bytes, as the core reports it), sequence number sent
    (snd_nxt, bytes) and goodput (bits/s of in-order delivery, rcv_nxt's slope over 1 s windows)."""
    out: dict[str, dict[str, list[list[float]]]] = {}
    s = result.series
    if s.is_empty():
        return out
    for (flow, name), part in s.group_by(["flow", "series"], maintain_order=True):
        t = part["t_s"].to_list()
        v = part["value"].to_list()
        out.setdefault(str(flow), {})[str(name)] = [t, v]
    for series in out.values():
        rcv = series.pop("rcv_nxt", None)
        if not rcv or not rcv[0]:
            continue
        t, v = np.asarray(rcv[0]), np.asarray(rcv[1])
        ks = np.arange(1.0, math.ceil(t[-1]) + 1.0)
        # In-order bytes delivered during (k − 1, k]: rcv_nxt at the end minus at the start.
        at = lambda x: v[np.maximum(np.searchsorted(t, x, side="right") - 1, 0)]  # noqa: E731
        series["goodput"] = [ks.tolist(), ((at(ks) - at(ks - 1)) * 8.0).tolist()]
    return out


def build(result: Result, t_from: float | None = None, t_to: float | None = None) -> ViewData:
    """The page's data for a run traced with ``trace.view = true``, limited to [t_from, t_to]."""
    raw = result.view
    if not raw:
        raise ValueError("result: has no view trace; run it with trace.view = true (tcplab.viewer.run and tcplab view do)")
    meta = raw["meta"]
    rows = int(raw["rows"])
    cols = {k: np.frombuffer(raw["columns"][k], dtype=EVENT_COLUMNS[k], count=rows) for k in PAGE_COLUMNS}
    end = float(result.summary["sim_time_s"])
    lo = 0.0 if t_from is None else t_from
    hi = end if t_to is None else min(t_to, end)
    # Keep: the window; drop MAC control frames decoded fine (RTS/CTS/ACK rx_ok: their sender's
    # transmission and the exchange's next frame say it all, and they are a third of the rows).
    classes = meta["classes"]
    mac = np.isin(cols["class"], [classes.index(c) for c in ("mac_rts", "mac_cts", "mac_ack")])
    rx_ok = cols["event"] == meta["events"].index("rx_ok")
    keep = np.flatnonzero((cols["t_s"] >= lo) & (cols["t_s"] <= hi) & ~(mac & rx_ok))
    # The core writes rows in time order but for a frame received up to one propagation delay
    # before an instant already traced (wifi on_rx_end records each receiver at end + its
    # delay): sort (stably) only when some row is out of order, which is rare.
    t = cols["t_s"][keep]
    if np.any(t[1:] < t[:-1]):
        keep = keep[np.argsort(t, kind="stable")]
    parts = [cols[k][keep].tobytes() for k in PAGE_COLUMNS]
    offsets = np.cumsum([0] + [len(b) for b in parts[:-1]]).tolist()
    tracks = raw["tracks"]
    layout = _layout(meta, set(tracks["node"]))
    track_list = [
        list(p) for p in zip(tracks["node"], tracks["t_s"], tracks["x"], tracks["y"], tracks["vx"], tracks["vy"], strict=True)
    ]
    track_list += [[i, 0.0, x, y, 0.0, 0.0] for i, (x, y) in layout.items()]
    header = {
        "scenario": result.summary.get("scenario"),
        "seed": result.summary.get("seed"),
        "t_from": lo,
        "t_to": hi,
        "sim_time_s": end,
        "rows": len(keep),
        "columns": {k: [off, EVENT_COLUMNS[k]] for k, off in zip(PAGE_COLUMNS, offsets, strict=True)},
        "meta": meta,
        "tracks": track_list,
        "series": _series(result),
    }
    return ViewData(header=header, blob=b"".join(parts))
