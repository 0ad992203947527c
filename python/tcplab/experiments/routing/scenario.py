"""The networks and senders of ``tcplab reproduce routing``: NewReno, ELFN and TCP-pgy over AODV,
DSR and DSDV, on the 7-hop string and on 50 nodes moving by random waypoint.

Both networks are seed 002's (Kim & Yoo), as tcp_pgy/scenario.py builds them: IEEE 802.11 at
2 Mb/s (ns-2's preset, RTS/CTS), two-ray ground (250 m reception, 550 m carrier sense), 50-packet
queues, ns-2.35's NewReno defaults with 1000-byte segments.  The choices made here, all written in
docs/validation/routing.md:

* String: 8 nodes 200 m apart (examples/adhoc_string.toml), one download of ``STRING_BYTES`` from
  n0 to n7, so that "every byte delivered" is a check with an end.
* Mobile: 1500 m x 300 m, 3 TCP pairs fixed on the west and east edges, the other 44 nodes by
  random waypoint with speeds uniform in [1, 20] m/s and no pause (examples/adhoc_mobile.toml's
  network at the issue's speeds), started in the stationary regime.
* Routing: ns-2.35's presets of the three protocols.  AODV's gratuitous RREPs are on for every
  sender (TCP-pgy S1 needs them; the network stays the same across senders).
* Senders: NewReno; ELFN with Holland & Vaidya's 2 s probe interval; TCP-pgy = S1 (the ACK carried
  by route requests and replies: AODV's ``ack_seq``, DSR's option 31) + S2 (``dup_count``).  DSDV
  sends no route requests or replies for S1 to ride on, so TCP-pgy over DSDV is S2 alone.
* ELFN check (Holland & Vaidya, MobiCom 1999): one flow across the same 50-node network (its
  endpoints at the middle of the west and east edges, 48 movers), and static strings of
  ``REF_HOPS`` hops for the T_i of their expected throughput.
"""

from __future__ import annotations

import copy
from typing import Any

from tcplab.experiments.base import LEGACY_NS2_TCP
from tcplab.experiments.tcp_pgy import scenario as pgy

PROTOCOLS: dict[str, dict[str, Any]] = {
    "aodv": pgy.routing(),
    "dsr": {"protocol": "dsr", "preset": "ns2"},
    "dsdv": {"protocol": "dsdv", "preset": "ns2"},
}
PROTOCOL_LABEL = {"aodv": "AODV", "dsr": "DSR", "dsdv": "DSDV"}
#: The protocols whose agents carry TCP-pgy S1's ACK on their route requests and replies.
S1_CARRIERS = ("aodv", "dsr")

SENDERS = ("newreno", "elfn", "pgy")
LABEL = {"newreno": "NewReno", "elfn": "ELFN", "pgy": "TCP-pgy", "elfn_every": "ELFN, every error"}

HOPS = 7
#: Bytes of the string's download (quick, full).
STRING_BYTES = {True: 300_000, False: 1_000_000}
MOBILE_FLOWS = 3
MIN_SPEED, MAX_SPEED = 1.0, 20.0
#: Senders of the ELFN check. Over DSR ELFN runs twice: "elfn", the sender told only when no
#: cached route remains, and "elfn_every", told of every Route Error as Holland & Vaidya's DSR
#: did (``notify_every_error``, docs/models/dsr.md).
ELFN_SENDERS = ("newreno", "elfn")
DSR_ELFN_SENDERS = (*ELFN_SENDERS, "elfn_every")


def elfn_senders(protocol: str) -> tuple[str, ...]:
    return DSR_ELFN_SENDERS if protocol == "dsr" else ELFN_SENDERS

#: Path lengths of the reference strings (Holland & Vaidya's T_i). The single flow's endpoints are
#: 1500 m apart and a hop reaches 250 m, so its shortest path has at least 6 hops; the longest
#: in the full run's mobile runs was 10 (docs/validation/routing.md), 14 leaves room.
REF_HOPS = range(6, 15)


def sender_cell(sender: str, protocol: str) -> dict[str, Any]:
    """The override cell that selects ``sender`` over ``protocol``."""
    if sender == "newreno":
        return {"tcp.extensions": []}
    if sender == "elfn":
        return {"tcp.extensions": ["elfn"]}
    if sender == "elfn_every":
        return {"tcp.extensions": ["elfn"], "wlans.manet.routing.notify_every_error": True}
    if protocol in S1_CARRIERS:
        return {"tcp.extensions": ["ack_piggyback", "dup_count"], "wlans.manet.routing.ack_piggyback": True}
    return {"tcp.extensions": ["dup_count"]}


def sender_of(cell: dict[str, Any]) -> str:
    ext = cell.get("tcp.extensions", [])
    if ext == ["elfn"]:
        return "elfn_every" if cell.get("wlans.manet.routing.notify_every_error") else "elfn"
    return "pgy" if "dup_count" in ext else "newreno"


def _with_routing(doc: dict[str, Any], protocol: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["wlans"][0]["routing"] = dict(PROTOCOLS[protocol])
    # tcp-pgy's NewReno as it was before tcp-pgy moved to profile = "ns2" (this study is not re-measured).
    doc["tcp"] = {"variant": "newreno", **LEGACY_NS2_TCP, "timestamps": False, "full_ack": "ssthresh"}
    return doc


def string(protocol: str, quick: bool, duration: str) -> dict[str, Any]:
    """The 7-hop string with one download of STRING_BYTES from n0 to n7."""
    doc = _with_routing(pgy.string(HOPS, duration=duration), protocol)
    doc["name"] = f"routing_string_{protocol}"
    (flow,) = doc["flows"]
    doc["flows"] = [{"name": "file", "app": "bulk_download", "size": f"{STRING_BYTES[quick]}B",
                     "server": flow["server"], "client": flow["client"]}]
    return doc


def mobile(protocol: str, duration: str, flows: int = MOBILE_FLOWS) -> dict[str, Any]:
    """50 nodes in 1500 m x 300 m, ``flows`` bulk flows across, the movers at 1-20 m/s."""
    doc = _with_routing(pgy.random(flows, MAX_SPEED, duration), protocol)
    doc["name"] = f"routing_mobile_{protocol}" if flows == MOBILE_FLOWS else f"routing_mobile{flows}_{protocol}"
    for st in doc["wlans"][0]["stations"]:
        if "mobility" in st:
            st["mobility"]["min_speed"] = f"{MIN_SPEED:g}m/s"
    return doc


def reference(protocol: str, hops: int, duration: str) -> dict[str, Any]:
    """A static string of ``hops`` hops with one bulk flow end to end: T_hops of the expected
    throughput."""
    doc = _with_routing(pgy.string(hops, duration=duration), protocol)
    doc["name"] = f"routing_ref{hops}_{protocol}"
    return doc
