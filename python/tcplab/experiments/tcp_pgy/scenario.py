"""Seed 002's networks (Kim & Yoo, JCN 2008, Table 1 and Fig. 5) as scenario dicts: strings, the
grid with crossing flows, and 50 nodes moving by random waypoint in 1500 m x 300 m.

Table 1 and §IV-A fix: 600 s, 1040-byte packets (ns-2's 1000-byte TCP packets + 40 B of headers),
IEEE 802.11 at 2 Mb/s (the ns-2 preset: RTS/CTS for unicast, 250 m reception and 550 m carrier
sense with two-ray ground), 50-packet interface queues, AODV (ns-2.35's constants), FTP, nodes
200 m apart.  Every choice the paper leaves open is a module constant here and is written in
docs/validation/tcp_pgy.md:

* TCP: ns-2.35 Agent/TCP/Newreno and TCPSink defaults, as ``[tcp] profile = "ns2"`` (windows in
  packets, initial window 2, an ACK per packet, ns-2's timers and RTO estimator, limited transmit,
  the SYN ns-2's one-way TCP sends first, and its default advertised window ``window_`` = 20
  packets: the paper sets none).
* AODV: gratuitous RREPs on in every variant (S1 needs ns-2's ``RREQ_GRAT_RREP`` compiled in; the
  network stays the same across compared senders); the ``ack_seq`` field only where S1 runs.
* Grid: 7 x 7 nodes 200 m apart; flows cross along the inner rows and columns (6 hops each, no
  two flows sharing an endpoint), added in the order of ``GRID_FLOWS``: the middle row and column
  first (they cross at the centre), then rows and columns 1, 5, 2, 4, each row west to east and
  each column north to south.  The paper's Fig. 5(b) gives neither size nor placement.
* Random: F TCP senders fixed on the west edge and their receivers on the east edge, at
  y = (i + 0.5) * 300 / F; the other 50 - 2F nodes move by random waypoint (pause 0, speeds
  uniform in [max/10, max], started in the stationary regime) from positions drawn by each run.
* Flows start 1 s apart (flow i at i s) so that their first route discoveries do not collide, plus a
  start offset each replication draws for each flow (``start_offsets``): uniform in [0, START_JITTER_S)
  s from a hash of the seed and the flow, the same for every compared sender (so gains stay paired by
  seed).  The paper states neither its flows' start times nor what its 100 runs vary (§III: "the
  average results were obtained for 100 runs"); docs/models/tcp_pgy.md records the choice and the
  sweep of START_JITTER_S behind it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

SEGMENT_B = 1000
SPACING_M = 200
QUEUE = 50
#: ns-2 Agent/TCP window_ (the receiver's advertised window), packets.
WINDOW_SEGMENTS = 20
GRID_SIDE = 7
AREA = (1500, 300)
RANDOM_NODES = 50
#: Width (s) of each flow's per-replication start offset (module docstring); 0 = every flow at i s in every run.
START_JITTER_S = 2.0
#: Where the random topologies' TCP endpoints are: "edges" (ours, fixed) or "moving" (random waypoint like the rest).
ENDPOINTS: tuple[str, ...] = ("edges", "moving")

#: The compared senders: label -> [tcp] extensions, and whether AODV carries ack_seq.
VARIANTS: dict[str, tuple[list[str], bool]] = {
    "newreno": ([], False),
    "s1": (["ack_piggyback"], True),
    "s2": (["dup_count"], False),
    "pgy": (["ack_piggyback", "dup_count"], True),
}
LABEL = {"newreno": "NewReno", "s1": "S1 only", "s2": "S2 only", "pgy": "TCP-pgy (S1+S2)"}


def tcp() -> dict[str, Any]:
    """ns-2.35 Agent/TCP/Newreno + TCPSink as the ``ns2`` profile sets them (docs/models/tcp.md § ns-2 profile:
    packetSize_ 1000, window_ 20, windowInit_ 2, per-ACK growth in packets, tick estimator, ACK per packet);
    the paper states only 1040-byte packets (1000 B of data + 40 B of headers: the profile's packetSize_)."""
    return {"profile": "ns2", "variant": "newreno"}


def routing() -> dict[str, Any]:
    return {"protocol": "aodv", "preset": "ns2", "gratuitous_rrep": True}


def _wlan(stations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": "manet",
        "mode": "adhoc",
        "phy": "ns2_dsss",
        "rate": "2Mbps",
        "queue": QUEUE,
        "propagation": {"model": "two_ray_ground"},
        "routing": routing(),
        "stations": stations,
    }


def _scenario(name: str, duration: str, nodes: list[str], stations: list[dict[str, Any]],
              flows: list[tuple[str, str]], series: tuple[str, ...] = ()) -> dict[str, Any]:
    s: dict[str, Any] = {
        "name": name,
        "duration": duration,
        "tcp": tcp(),
        "nodes": [{"name": n} for n in nodes],
        "wlans": [_wlan(stations)],
        # FTP from each pair's sender (the bulk server) to its receiver (the client).
        "flows": [{"name": f"f{i + 1}", "app": "bulk", "server": src, "client": dst, "start": f"{i}s"}
                  for i, (src, dst) in enumerate(flows)],
    }
    if series:
        s["trace"] = {"series": list(series), "interval": "10ms"}
    return s


def start_offsets(flows: int, seed: int, jitter_s: float = START_JITTER_S) -> list[float]:
    """Replication ``seed``'s start offset of each of ``flows`` flows: uniform in [0, ``jitter_s``) s, rounded to
    1 ms, from a SHA-256 of the seed and the flow's index (independent of the simulator, the sender and the
    network, so every compared sender and ns-2.35 start a seed's flows at the same times)."""
    out = []
    for i in range(flows):
        h = hashlib.sha256(f"tcp-pgy flow start {seed} {i}".encode()).digest()[:8]
        out.append(round(int.from_bytes(h, "big") / 2.0**64 * jitter_s, 3))
    return out


def flow_starts(flows: int, seed: int, jitter_s: float = START_JITTER_S) -> list[float]:
    """When each flow of replication ``seed`` starts, s: flow i at i s plus its drawn offset."""
    return [round(i + o, 3) for i, o in enumerate(start_offsets(flows, seed, jitter_s))]


def starts_of_seed(flows: int, cell: Mapping[str, Any], seed: int,
                   jitter_s: float = START_JITTER_S) -> dict[str, Any]:
    """Sweep.per_seed: the start of each flow (``f1``..) for replication ``seed`` (the cell does not matter:
    every sender of a seed starts its flows at the same times)."""
    if jitter_s == 0:
        return {}
    return {f"flows.f{i + 1}.start": f"{t:.3f}s" for i, t in enumerate(flow_starts(flows, seed, jitter_s))}


def with_starts(doc: dict[str, Any], seed: int, jitter_s: float = START_JITTER_S) -> dict[str, Any]:
    """``doc`` (a scenario of this module) with its flows started as replication ``seed`` starts them."""
    starts = flow_starts(len(doc["flows"]), seed, jitter_s)
    doc["flows"] = [f | {"start": f"{t:.3f}s"} for f, t in zip(doc["flows"], starts)]
    return doc


def string(hops: int, flows: int = 1, duration: str = "600s", series: tuple[str, ...] = ()) -> dict[str, Any]:
    """``hops`` + 1 nodes in a line; ``flows`` FTP flows from the first node to the last."""
    nodes = [f"n{i}" for i in range(hops + 1)]
    stations = [{"node": n, "position": [f"{i * SPACING_M}m", "0m"]} for i, n in enumerate(nodes)]
    return _scenario(f"string{hops}", duration, nodes, stations, [(nodes[0], nodes[-1])] * flows, series)


#: The grid's flows in the order they are added: ("row" | "col", index).
GRID_FLOWS: tuple[tuple[str, int], ...] = tuple(
    x for i in (3, 1, 5, 2, 4) for x in (("row", i), ("col", i))
)
#: How the grid's flows are laid out (the paper's Fig. 5(b) does not say; tcp_pgy/causes.py switches it):
#: "crossing" (ours: GRID_FLOWS, every row west to east, every column north to south), "opposed" (the same
#: lines, every second row and every second column in the other direction: the other end is the source),
#: "parallel" (rows only, west to east: no flow crosses another).
PLACEMENTS: tuple[str, ...] = ("crossing", "opposed", "parallel")


def grid_lines(side: int) -> tuple[int, ...]:
    """The inner rows (or columns) of a ``side`` x ``side`` grid in the order flows take them: the centre, then
    2 away on either side, then 1, then 3, ... (for 7: 3, 1, 5, 2, 4 as GRID_FLOWS)."""
    c = side // 2
    order = [c] + [c + s * d for d in (2, 1, *range(3, side)) for s in (-1, 1)]
    return tuple(dict.fromkeys(i for i in order if 0 < i < side - 1))


def grid_flows(flows: int, side: int = GRID_SIDE, placement: str = "crossing") -> list[tuple[str, int, bool]]:
    """The first ``flows`` flows of a placement: ("row" | "col", index, reversed)."""
    if placement not in PLACEMENTS:
        raise ValueError(f"grid placement {placement!r}: expected one of {PLACEMENTS}")
    lines = grid_lines(side)
    if placement == "parallel":
        rows = lines + tuple(i for i in (0, side - 1))
        out = [("row", i, False) for i in rows]
    else:
        out = [(kind, i, placement == "opposed" and j % 2 == 1) for j, i in enumerate(lines)
               for kind in ("row", "col")]
    if flows > len(out):
        raise ValueError(f"a {side} x {side} grid holds {len(out)} {placement} flows, not {flows}")
    return out[:flows]


def grid(flows: int, duration: str = "600s", side: int = GRID_SIDE, placement: str = "crossing") -> dict[str, Any]:
    """A ``side`` x ``side`` grid (GRID_SIDE by default) with the first ``flows`` flows of ``placement``
    (GRID_FLOWS by default)."""
    k = side

    def name(r: int, c: int) -> str:
        return f"g{r}_{c}"

    nodes = [name(r, c) for r in range(k) for c in range(k)]
    stations = [{"node": name(r, c), "position": [f"{c * SPACING_M}m", f"{r * SPACING_M}m"]}
                for r in range(k) for c in range(k)]
    pairs = []
    for kind, i, rev in grid_flows(flows, side, placement):
        a, b = (name(i, 0), name(i, k - 1)) if kind == "row" else (name(0, i), name(k - 1, i))
        pairs.append((b, a) if rev else (a, b))
    return _scenario(f"grid{flows}", duration, nodes, stations, pairs)


def random(flows: int, max_speed: float, duration: str = "600s", endpoints: str = "edges") -> dict[str, Any]:
    """50 nodes in 1500 m x 300 m: ``flows`` sender/receiver pairs, the rest moving by random waypoint with
    speeds in [max/10, max] m/s, pause 0.  ``endpoints``: "edges" (ours) fixes the senders on the west edge
    and the receivers on the east edge; "moving" lets them move like every other node (the paper does not say
    which nodes are sources; tcp_pgy/causes.py switches it)."""
    if endpoints not in ENDPOINTS:
        raise ValueError(f"random endpoints {endpoints!r}: expected one of {ENDPOINTS}")
    w, h = AREA
    senders = [f"s{i}" for i in range(flows)]
    receivers = [f"r{i}" for i in range(flows)]
    movers = [f"m{i:02d}" for i in range(RANDOM_NODES - 2 * flows)]
    ys = [(i + 0.5) * h / flows for i in range(flows)]
    rwp = {"model": "random_waypoint", "min_speed": f"{max_speed / 10:g}m/s", "max_speed": f"{max_speed:g}m/s",
           "pause": "0s", "area": [f"{w}m", f"{h}m"], "steady_state": True}
    moving = {"mobility": rwp} if endpoints == "moving" else {}
    stations: list[dict[str, Any]] = [{"node": s, "position": ["0m", f"{y:.1f}m"]} | moving for s, y in zip(senders, ys)]
    stations += [{"node": r, "position": [f"{w}m", f"{y:.1f}m"]} | moving for r, y in zip(receivers, ys)]
    # Initial positions are placeholders: steady_state draws each mover's from its own stream.
    stations += [{"node": m, "position": [f"{w / 2}m", f"{h / 2}m"], "mobility": rwp} for m in movers]
    return _scenario(f"random{flows}_v{max_speed:g}", duration, senders + receivers + movers, stations,
                     list(zip(senders, receivers)))


def variant_cells(variants: tuple[str, ...]) -> list[dict[str, Any]]:
    """One override cell per compared sender."""
    return [{"tcp.extensions": VARIANTS[v][0], "wlans.manet.routing.ack_piggyback": VARIANTS[v][1]}
            for v in variants]


def variant_of(cell: dict[str, Any]) -> str:
    ext = cell.get("tcp.extensions", [])
    return next(v for v, (e, _) in VARIANTS.items() if e == ext)
