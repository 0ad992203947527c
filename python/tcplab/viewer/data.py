"""The viewer's data model: what the page reads, built from one run's :class:`~tcplab.result.Result`.

The packets come from the run's event trace (``trace.events``, docs/trace.md, the rows
``Result.events`` and its Parquet file hold): :func:`page_rows` is the one code path that turns
its rows into the page's compact columns (a transmission on the air or a wire, a reception
outcome, a drop with its reason, a link the MAC gave up on), and :func:`route_rows` its ``route``
rows into the routing tables the node panel replays. The core's ``trace.view`` adds only the
station tracks and the network's shape; the per-flow plots come from the run's series, and the
interface queue at each transmission from the event trace's queue and send rows
(:func:`queue_lengths`).

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

# Column name → numpy dtype, in the order the blob holds them (element sizes only shrink along the
# blob, so every column starts aligned for the page's typed arrays). The blob holds times as
# ``dt_us`` (see :func:`blob_columns`) instead of ``t_s``.
PAGE_COLUMNS: dict[str, str] = {
    "t_s": "<f8",
    # IP datagrams and 802.11 frames are at most 65,535 bytes.
    "bytes": "<u2",
    "node": "<u2",
    "peer": "<u2",
    "flow": "<u2",
    "qlen": "<u2",
    "event": "u1",
    "class": "u1",
    "retry": "u1",
    "reason": "u1",
}

#: The page's event names (``event`` column) and packet classes (``class`` column).
PAGE_EVENTS = ("tx", "rx_ok", "rx_collision", "rx_error", "drop", "link_fail")
PAGE_CLASSES = ("tcp_data", "tcp_ack", "routing", "udp", "icmp", "mac_rts", "mac_cts", "mac_ack", "arp")

#: The event trace's packet kinds → the page's classes (routing protocols' messages are "routing").
KIND_CLASS = {
    "tcp": "tcp_data", "tcp_ack": "tcp_ack", "udp": "udp", "icmp": "icmp",
    "aodv": "routing", "dsr": "routing", "dsdv": "routing",
    "rts": "mac_rts", "cts": "mac_cts", "mac_ack": "mac_ack", "arp": "arp",
}

#: The event trace layers the page needs (agents' sends and receptions are not drawn).
EVENT_LAYERS = ("rtr", "ifq", "mac", "link")

#: No node / no flow in the page's 16-bit columns.
NONE16 = 0xFFFF

#: Series the viewer asks the run for, per TCP flow (goodput is derived from rcv_nxt).
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
    (snd_nxt, bytes) and goodput (bits/s of in-order delivery, rcv_nxt's slope over 1 s windows).
    Read from the core's columns as they came (no DataFrame: importing polars alone costs a
    third of a second)."""
    out: dict[str, dict[str, list[list[float]]]] = {}
    raw = result.raw_series
    if not raw or not raw.get("t_s"):
        return out
    for flow, name, t, v in zip(raw["flow"], raw["series"], raw["t_s"], raw["value"], strict=True):
        if flow is None:
            continue  # a series beyond TCP (per interface or node)
        pair = out.setdefault(str(flow), {}).setdefault(str(name), [[], []])
        pair[0].append(t)
        pair[1].append(v)
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


def queue_lengths(cols: dict[str, np.ndarray], names: dict[str, Any], at: np.ndarray) -> np.ndarray:
    """Packets waiting at each node's interfaces just after the event trace's rows ``at`` (indices),
    from the ``ifq`` and send rows by packet uid: a packet counts from its ``ifq`` ``enqueue`` at a
    node until its first send from that node (``mac`` data frame or ``link``), or until it is
    dropped there before any send (a queue purged for a broken link). For a wired interface that
    is its queue; for a station, its queue plus the packet the MAC holds before its first
    attempt."""
    layer = {n: i for i, n in enumerate(names["layers"])}
    event = {n: i for i, n in enumerate(names["events"])}
    kinds = names["kinds"]
    L, E = cols["layer"], cols["event"]
    enq = np.flatnonzero((L == layer["ifq"]) & (E == event["enqueue"]))
    control = np.isin(cols["kind"], [kinds.index(k) for k in ("rts", "cts", "mac_ack")])
    snd = np.flatnonzero((((L == layer["mac"]) & ~control) | (L == layer["link"])) & (E == event["send"]))
    drp = np.flatnonzero((L != layer["mac"]) & (E == event["drop"]))
    # One sort of the candidate rows by (node, uid), then time, then row: each (node, uid) is one
    # run, in which its first send (if it was enqueued there) ends its wait, or else its drops do.
    cand = np.concatenate((enq, snd, drp))
    typ = np.concatenate((np.zeros(len(enq), "u1"), np.ones(len(snd), "u1"), np.full(len(drp), 2, "u1")))
    key = (cols["node"][cand].astype(np.uint64) << np.uint64(44)) | cols["uid"][cand]  # uids stay below 2^44
    order = np.lexsort((cand, cols["t_s"][cand], key))
    cand, typ, key = cand[order], typ[order], key[order]
    if len(cand):
        run_start = np.concatenate(([True], key[1:] != key[:-1]))
        starts = np.flatnonzero(run_start)
        run_of = np.cumsum(run_start) - 1
        queued = np.add.reduceat((typ == 0).astype(np.int64), starts) > 0
        first_send = np.minimum.reduceat(np.where(typ == 1, np.arange(len(cand)), len(cand)), starts)
        sent = first_send < len(cand)
        first = cand[first_send[queued & sent]]
        drp = cand[(typ == 2) & queued[run_of] & ~sent[run_of]]
    else:
        first = drp = cand
    rows = np.concatenate((enq, first, drp))
    if len(rows) == 0 or len(at) == 0:
        return np.zeros(len(at), dtype="<u2")
    delta = np.concatenate((np.ones(len(enq)), -np.ones(len(first)), -np.ones(len(drp)))).astype(np.int64)
    # Per node in time order (a packet's removal after its arrival at the same instant: row order).
    order = np.lexsort((rows, cols["t_s"][rows], cols["node"][rows]))
    rows, delta = rows[order], delta[order]
    level = np.cumsum(delta)
    n_of, t_of = cols["node"][rows], cols["t_s"][rows]
    starts = np.searchsorted(n_of, np.arange(int(cols["node"].max(initial=0)) + 2))
    base = np.concatenate(([0], level))[starts[:-1]]
    # For each asked row: the level after the last change at its node at or before its time.
    out = np.zeros(len(at), dtype=np.int64)
    an, atime = cols["node"][at], cols["t_s"][at]
    for n in np.unique(an):
        lo, hi = starts[n], starts[n + 1]
        sel = np.flatnonzero(an == n)
        k = lo + np.searchsorted(t_of[lo:hi], atime[sel], side="right")
        out[sel] = np.where(k > lo, level[np.maximum(k - 1, 0)] - base[n], 0)
    return np.clip(out, 0, NONE16 - 1).astype("<u2")


def _events(result: Result) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The event trace's columns (numpy views of the core's packed bytes) and its name tables."""
    from tcplab.events import _DTYPES

    raw = result.raw_events
    if not raw:
        raise ValueError(
            "result: has no event trace; run it with trace.view = true and trace.events (tcplab.viewer.run and tcplab view do)"
        )
    cols = {k: np.frombuffer(raw["columns"][k], dtype=dt) for k, dt in _DTYPES.items()}
    return cols, raw["names"]


def _small(x: np.ndarray, names: dict[str, Any]) -> np.ndarray:
    """Node / flow indices as the page's u16, "none" and "broadcast" as NONE16."""
    out = np.minimum(x, NONE16 - 1).astype("<u2")
    out[(x == names["none"]) | (x == names["broadcast"])] = NONE16
    return out


def page_rows(cols: dict[str, np.ndarray], names: dict[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The page's rows from the event trace's: (indices of the trace rows used, page columns).

    A frame sent by the MAC or a packet put on a wire is ``tx``; a frame the MAC decoded is ``rx_ok``
    (the MAC's control frames decoded fine are left out: their sender's transmission and the
    exchange's next frame say it all, and they are a third of the rows); a frame lost to a collision
    or the error model is ``rx_collision`` / ``rx_error`` at each hearer; the MAC giving up on a
    frame after its retries (or in an outage) is ``link_fail``; any other drop (queue, routing, TTL,
    ARP, a wire's loss) is ``drop`` with its reason."""
    layer = {n: i for i, n in enumerate(names["layers"])}
    event = {n: i for i, n in enumerate(names["events"])}
    reason = {n: i for i, n in enumerate(names["reasons"])}
    kinds = names["kinds"]
    L, E, R = cols["layer"], cols["event"], cols["reason"]
    mac, wire = L == layer["mac"], L == layer["link"]
    is_drop = E == event["drop"]
    control = np.isin(cols["kind"], [kinds.index(k) for k in ("rts", "cts", "mac_ack")])
    conds = {
        "tx": (mac | wire) & (E == event["send"]),
        "rx_ok": mac & (E == event["receive"]) & ~control,
        "rx_collision": mac & is_drop & (R == reason["collision"]),
        "rx_error": mac & is_drop & (R == reason["frame_error"]),
        "link_fail": mac & is_drop & np.isin(R, [reason["retry_limit"], reason["outage"]]),
        "drop": ~mac & is_drop,
    }
    code = np.full(len(L), 255, dtype="u1")
    for name, c in conds.items():
        code[c] = PAGE_EVENTS.index(name)
    keep = np.flatnonzero(code != 255)
    # The core writes rows in time order but for frames received up to one propagation delay
    # before an instant already traced (the MAC's receptions are read in batches): sort (stably)
    # only when some row is out of order, which is rare.
    t = cols["t_s"][keep]
    if np.any(t[1:] < t[:-1]):
        keep = keep[np.argsort(t, kind="stable")]
    kind_class = np.array([PAGE_CLASSES.index(KIND_CLASS[k]) for k in kinds], dtype="u1")
    page = {
        "t_s": cols["t_s"][keep],
        "bytes": cols["bytes"][keep],
        "node": _small(cols["node"][keep], names),
        "peer": _small(cols["peer"][keep], names),
        "flow": _small(cols["flow"][keep], names),
        "qlen": np.zeros(len(keep), dtype="<u2"),
        "event": code[keep],
        "class": kind_class[cols["kind"][keep]],
        "retry": cols["retry"][keep],
        "reason": np.where(code[keep] == PAGE_EVENTS.index("drop"), cols["reason"][keep], 0).astype("u1"),
    }
    tx = np.flatnonzero(page["event"] == PAGE_EVENTS.index("tx"))
    page["qlen"][tx] = queue_lengths(cols, names, keep[tx])
    return keep, page


def route_rows(cols: dict[str, np.ndarray], names: dict[str, Any], hi: float) -> list[list[float]]:
    """The event trace's ``route`` rows up to ``hi``, as columns [t_s, node, destination, next hop
    (-1: the route is gone), hops]: replayed up to an instant they give each node's table then."""
    ev = names["events"]
    if "route" not in ev:
        return [[], [], [], [], []]
    sel = np.flatnonzero((cols["event"] == ev.index("route")) & (cols["t_s"] <= hi))
    nxt = cols["peer"][sel].astype(np.int64)
    nxt[nxt == names["none"]] = -1
    return [
        cols["t_s"][sel].tolist(),
        cols["node"][sel].tolist(),
        cols["dst"][sel].tolist(),
        nxt.tolist(),
        cols["ttl"][sel].tolist(),
    ]


def blob_columns(page: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The columns as the page's blob holds them: the times as whole microseconds (rounded down, so
    a row is never drawn after its time), each the difference from the row before (they compress
    to a fraction of 8-byte times; the page adds them back up), the rest as they are."""
    t = page["t_s"]
    us = np.floor(t * 1e6).astype(np.int64)
    us[us / 1e6 > t] -= 1  # t × 1e6 rounded up to a whole number: the page's us / 1e6 stays ≤ t
    dt = np.diff(us, prepend=np.int64(0))
    out = {"dt_us": np.clip(dt, 0, 2**32 - 1).astype("<u4")}
    out.update((k, page[k].astype(dt_, copy=False)) for k, dt_ in PAGE_COLUMNS.items() if k != "t_s")
    return out


def build(result: Result, t_from: float | None = None, t_to: float | None = None) -> ViewData:
    """The page's data for a run traced with ``trace.view = true`` and ``trace.events``, limited to
    [t_from, t_to]."""
    raw = result.view
    if not raw:
        raise ValueError("result: has no view trace; run it with trace.view = true (tcplab.viewer.run and tcplab view do)")
    meta = dict(raw["meta"])
    cols, names = _events(result)
    end = float(result.summary["sim_time_s"])
    lo = 0.0 if t_from is None else t_from
    hi = end if t_to is None else min(t_to, end)
    _, page = page_rows(cols, names)
    win = np.flatnonzero((page["t_s"] >= lo) & (page["t_s"] <= hi))
    blob = blob_columns({k: v[win] for k, v in page.items()})
    parts = [c.tobytes() for c in blob.values()]
    offsets = np.cumsum([0] + [len(b) for b in parts[:-1]]).tolist()
    meta.update(events=list(PAGE_EVENTS), classes=list(PAGE_CLASSES), reasons=list(names["reasons"]))
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
        "rows": len(win),
        "columns": {k: [off, c.dtype.str.replace("|", "")] for (k, c), off in zip(blob.items(), offsets, strict=True)},
        "meta": meta,
        "tracks": track_list,
        "series": _series(result),
        "routes": route_rows(cols, names, hi),
    }
    return ViewData(header=header, blob=b"".join(parts))
