"""Seed 003's testbed (Sridhara & Subramanya) as scenario dicts: one or two 802.11b hops with AODV,
a file download, the receiver static, walking, or out of range for a minute.

Every choice the paper leaves open is a module constant, documented in docs/validation/atcp.md and
docs/models/adhoc_tcp.md:

* 802.11b (HR/DSSS, long preamble) with distance rate steps 11/5.5/2/1 Mb/s up to 100/150/200/250 m,
  two-ray ground (250 m reception range), basic access, 50-packet interface queues with RED that marks
  ECN-capable packets when the instantaneous queue reaches max_th = 45 packets, as the paper's nodes do
  ("when the queue length equals the maximum threshold"); 45 is the paper's maximum cwnd, so one flow
  alone never marks (its cwnd plots stay at 45 "even though there is no congestion").
* AODV (RFC 3561 constants) with ACTIVE_ROUTE_TIMEOUT 15 s (the paper's stale-route timeout); link
  breaks come from the MAC (no HELLOs).
* TCP: NewReno with ECN, MSS 1448 B, a 45 × 1448 B receive buffer (the paper's maximum cwnd of 45),
  Linux 2.4's timers (3 s initial RTO, 200 ms minimum), delayed ACKs of 40 ms.
* Movement and losses are identical for every sender (the same seeds and the same paths).  The
  walking receiver's frames lose packets above the MAC (Gilbert–Elliott, mean 2 %, bursts of 2) standing
  for the fading of a moving laptop that the two-ray model lacks (the paper: "lot of packets are lost in
  the medium because network conditions keep varying").
* Whenever a path takes a node out of range, its radio also has an outage for exactly those
  seconds, announced ``LEAD`` ahead by the WLAN's LINK_GOING_DOWN: that is the disconnection predictor
  Freeze-TCP's receiver listens to (it knows the movement schedule).  Being out of range already
  silences the link, so the outage changes nothing else, and it is there for every sender.
"""

from __future__ import annotations

from typing import Any

MSS = 1448
MAX_CWND = 45
RANGE_M = 250.0
RATE_STEPS = [("100m", "11Mbps"), ("150m", "5.5Mbps"), ("200m", "2Mbps"), ("250m", "1Mbps")]
QUEUE = 50
#: RED marking at max_th only: the instantaneous length (w_q = 1) between min_th = max_th − 1 and max_th
#: gives pb = 0, and from max_th on ECN-capable packets are marked (not dropped).
RED = {"min_th": 44, "max_th": 45, "max_p": 0.1, "w_q": 1.0, "ecn": True, "mark_at_max_th": True}
AODV = {"protocol": "aodv", "preset": "rfc3561", "active_route_timeout": "15s"}
#: Freeze-TCP's warning period: LINK_GOING_DOWN this long before a disconnection (≈ a few RTTs).
LEAD = "200ms"
#: The walking receiver's packet losses (above the MAC).
WALK_LOSS = {"model": "gilbert_elliott", "mean": 0.02, "burst": 2.0}
#: Walking speed (m/s) and the 1-hop walk's turning points (m from the sender): 11 down to 1 Mb/s.
SPEED = 3.0
WALK_1HOP = (20.0, 230.0)
#: The 2-hop receiver starts 230 m from the router walking out, then walks between these distances
#: from it: out of range beyond 250 m (8 s of every 75 s, the first from 6.7 s).
WALK_2HOP = (150.0, 262.0)
WALK_2HOP_START = 230.0
#: The disconnection: the receiver leaves at 20 s at 10 m/s to 400 m, waits, and comes back; out of
#: range from 40 s to 100 s.
DISCONNECT = [(0.0, 50.0), (20.0, 50.0), (55.0, 400.0), (85.0, 400.0), (120.0, 50.0)]
DURATION = "900s"

#: The compared senders: label -> the [tcp] fields that select it.
ATCP_MODIFIED = {"loss_retransmit": "lost_segment", "timeout_threshold": 3, "probe_backoff": "linear",
                 "route_failure_disconnects": True}
VARIANTS: dict[str, dict[str, Any]] = {
    "base": {"recovery": "newreno", "extensions": []},
    "atcp_mod": {"recovery": "newreno", "extensions": ["atcp"], "atcp": ATCP_MODIFIED},
    "atcp_orig": {"recovery": "newreno", "extensions": ["atcp"], "atcp": {}},
    "elfn": {"recovery": "newreno", "extensions": ["elfn"], "elfn": {"probe_interval": "1s"}},
    "tcp_f": {"recovery": "newreno", "extensions": ["tcp_f"], "tcp_f": {"failure_timer": "21.5s"}},
    "freeze": {"recovery": "newreno", "extensions": ["freeze"]},
    "sack": {"recovery": "sack", "extensions": []},
}
LABEL = {
    "base": "Base TCP (NewReno)",
    "atcp_mod": "Modified ATCP",
    "atcp_orig": "Original ATCP",
    "elfn": "ELFN",
    "tcp_f": "TCP-F",
    "freeze": "Freeze-TCP",
    "sack": "SACK",
}


def tcp() -> dict[str, Any]:
    return {
        "recovery": "newreno",
        "ecn": True,
        "mss": MSS,
        "rcv_buf": f"{MAX_CWND * MSS}B",
        "rto_initial": "3s",
        "rto_min": "200ms",
        "rto_max": "60s",
        "ack_delay": "40ms",
        "timestamps": False,
    }


def _walk(a: float, b: float, until: float, start: float | None = None) -> list[tuple[float, float]]:
    """(t, distance) turning points of a walk from ``start`` (default a) to b, then between a and b, at
    SPEED, until ``until`` s."""
    x = a if start is None else start
    pts, t, to = [(0.0, x)], 0.0, b
    while t < until:
        t += abs(to - x) / SPEED
        x, to = to, (a if to == b else b)
        pts.append((t, x))
    return pts


def out_of_range(path: list[tuple[float, float]], anchor: float) -> list[tuple[float, float]]:
    """The intervals when a node on ``path`` (piecewise linear in t) is beyond RANGE_M of ``anchor``."""
    spans: list[tuple[float, float]] = []
    start = None
    for (t1, x1), (t2, x2) in zip(path, path[1:]):
        d1, d2 = abs(x1 - anchor), abs(x2 - anchor)
        for d_a, d_b, entering in ((d1, d2, True), (d1, d2, False)):
            crosses = (d_a <= RANGE_M < d_b) if entering else (d_a > RANGE_M >= d_b)
            if crosses:
                tc = t1 + (t2 - t1) * (RANGE_M - d_a) / (d_b - d_a)
                if entering:
                    start = tc
                elif start is not None:
                    spans.append((start, tc))
                    start = None
    return spans


def _station(node: str, x: float, path: list[tuple[float, float]] | None = None, anchor: float = 0.0,
             loss: bool = False) -> dict[str, Any]:
    st: dict[str, Any] = {"node": node, "position": [f"{x:g}m", "0m"]}
    if path:
        st["mobility"] = {"model": "waypoints",
                          "points": [[f"{t:.3f}s", f"{d:.3f}m", "0m"] for t, d in path]}
        gone = out_of_range(path, anchor)
        if gone:
            st["outage"] = {"intervals": [[f"{a:.3f}s", f"{b:.3f}s"] for a, b in gone]}
    if loss:
        st |= {"loss": WALK_LOSS, "loss_at": "packets"}
    return st


def _wlan(stations: list[dict[str, Any]]) -> dict[str, Any]:
    """The one 802.11b ad hoc WLAN: rate steps, two-ray ground, RED with ECN, AODV."""
    return {
        "name": "manet", "mode": "adhoc", "phy": "hr_dsss",
        "rate_steps": [{"max_distance": d, "rate": r} for d, r in RATE_STEPS],
        "propagation": {"model": "two_ray_ground"}, "queue": QUEUE, "red": RED,
        "routing": AODV, "stations": stations,
    }


def scenario(*, hops: int, size_mb: int, motion: str, series: bool = False) -> dict[str, Any]:
    """``motion``: static | mobile | disconnect.  The sender ``s`` downloads ``size_mb`` MB to the
    receiver ``r`` (1 hop) or through the router ``m`` (2 hops; the router 200 m from each end)."""
    if hops == 1:
        nodes = ["s", "r"]
        if motion == "static":
            r = _station("r", 20.0)
        elif motion == "mobile":
            r = _station("r", WALK_1HOP[0], _walk(*WALK_1HOP, 600.0), 0.0, loss=True)
        else:
            r = _station("r", DISCONNECT[0][1], DISCONNECT, 0.0)
        stations = [_station("s", 0.0), r]
    else:
        nodes = ["s", "m", "r"]
        if motion == "static":
            r = _station("r", 400.0)
        else:
            path = [(t, 200.0 + d) for t, d in _walk(*WALK_2HOP, 600.0, WALK_2HOP_START)]
            r = _station("r", path[0][1], path, 200.0, loss=True)
        stations = [_station("s", 0.0), _station("m", 200.0), r]
    doc: dict[str, Any] = {
        "name": f"atcp_{hops}hop_{motion}_{size_mb}MB",
        "duration": DURATION,
        "tcp": tcp(),
        "nodes": [{"name": n} for n in nodes],
        "wlans": [_wlan(stations) | {"signals": {"lead": LEAD}}],
        "flows": [{"name": "file", "app": "bulk_download", "size": f"{size_mb}MB", "client": "r", "server": "s"}],
    }
    if series:
        doc["trace"] = {"series": ["cwnd", "snd_una"], "interval": "100ms"}
    return doc


def congested(*, senders: int = 4, loss: float = 0.02) -> dict[str, Any]:
    """The weakness of original ATCP (seed 003 §6, Fig. 4): ``senders`` flows share a relay ``m``
    towards ``d``; their packets are lost above the MAC (mean ``loss``), so ATCP keeps entering Loss,
    and the relay's RED queue marks and overflows."""
    nodes = [f"n{k}" for k in range(1, senders + 1)] + ["m", "d"]
    stations = [_station(f"n{k}", -120.0) | {"position": ["-120m", f"{10 * k}m"]} for k in range(1, senders + 1)]
    stations += [_station("m", 0.0), _station("d", 200.0)]
    for st in stations[:senders]:
        st |= {"loss": {"model": "bernoulli", "p": loss}, "loss_at": "packets"}
    return {
        "name": "atcp_congested",
        "duration": "60s",
        "tcp": tcp(),
        "nodes": [{"name": n} for n in nodes],
        "wlans": [_wlan(stations)],
        "flows": [{"name": f"f{k}", "app": "bulk", "client": "d", "server": f"n{k}"}
                  for k in range(1, senders + 1)],
    }


def variant_cells(variants: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{f"tcp.{k}": v for k, v in VARIANTS[name].items()} for name in variants]


def variant_of(cell: dict[str, Any]) -> str:
    exts = cell.get("tcp.extensions", [])
    if cell.get("tcp.recovery") == "sack":
        return "sack"
    if not exts:
        return "base"
    if exts == ["atcp"]:
        return "atcp_mod" if cell.get("tcp.atcp") else "atcp_orig"
    return {"elfn": "elfn", "tcp_f": "tcp_f", "freeze": "freeze"}[exts[0]]
