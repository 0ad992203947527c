"""ns-2.35's trace read into per-flow and per-network counters.

Two formats, both as ``trace-all`` writes them:

* the old wireless format (CMU trace), one event per line::

    s 0.5 _0_ AGT  --- 12 tcp 1040 [0 0 0 0] ------- [0:0 7:0 32 0] [10 0] 0 0
    D 0.9 _3_ MAC  RET 46 ack 60 [13a 2 3 800] ------- [7:0 0:0 28 2] [15 0] 4 0

  event (s r f D), time, node, layer (AGT RTR IFQ MAC), drop reason or ``---``, packet uid, type,
  size, MAC header, flags, IP header ``[src:port dst:port ttl next-hop]``, then the type's own
  fields (TCP ``[seqno ackno]``; AODV ``(REQUEST)`` …; DSR's request/reply/error brackets);
* the wired format: event (+ - r d), time, from, to, type, size, flags, flow id, ``src.port``,
  ``dst.port``, seqno, uid;
* the TCP variable trace (``$tcp_ trace nrexmit_``): time, addresses, ports, name, value.

A TCP packet (a uid) is lost when its agent sent it and the peer agent never received it; its
cause is the reason of the last drop of that uid (wired: ``queue`` when the link's queue had
traced it on arrival, ``link`` otherwise — ns-2's error model sits before the enqueue trace).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .tcl import FlowMap

#: ns-2.35's drop reasons (cmu-trace.h), as the table names them.
REASONS = {
    "RET": "MAC retry limit",
    "IFQ": "interface queue full",
    "NRTE": "no route",
    "CBK": "routing callback (link failure)",
    "ARP": "ARP hold queue",
    "TTL": "TTL expired",
    "END": "end of simulation",
    "COL": "MAC collision",
    "ERR": "MAC frame error",
    "LOOP": "routing loop",
    "SAL": "DSR salvage limit",
    "BSY": "MAC busy",
    "queue": "queue (wired)",
    "link": "link loss or outage (wired)",
    "in flight": "in flight at the end",
}


@dataclass
class FlowCounters:
    name: str
    data_sent: int = 0  # DATA packets the sender's agent sent (retransmissions included)
    retransmissions: int = 0  # sends of a seqno already sent
    delivered_packets: int = 0  # in-order packets at the receiver (highest contiguous seqno + 1)
    duplicates: int = 0  # DATA packets the receiver's agent got a second time
    acks_sent: int = 0
    rtos: int = 0  # last nrexmit_ traced (timeouts with data outstanding)
    completion_s: float | None = None  # a download: when its last packet arrived in order
    data_lost: Counter[str] = field(default_factory=Counter)
    acks_lost: Counter[str] = field(default_factory=Counter)


@dataclass
class NetCounters:
    mac_retry_drops: int = 0  # D MAC RET of data frames (not RTS)
    ifq_drops: int = 0  # full interface queues, any packet
    drops: Counter[str] = field(default_factory=Counter)  # TCP and UDP packets' drops by reason (MAC COL excluded)
    routing_sent: Counter[str] = field(default_factory=Counter)  # by type, originated + forwarded
    rreq_originated: int = 0


@dataclass
class Parsed:
    flows: dict[str, FlowCounters]
    net: NetCounters


@dataclass
class _Pkt:
    sent: bool = False
    received: bool = False
    drop: str | None = None


@dataclass
class _Seqs:
    """One flow's seqnos as the trace goes: sent by the sender, received by the sink, and the next
    one the sink needs in order."""

    sent: set[int] = field(default_factory=set)
    received: set[int] = field(default_factory=set)
    next_expected: int = 0


def parse(path: Path, flows: list[FlowMap], wireless: bool) -> Parsed:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return parse_lines(fh, flows, wireless)


def parse_lines(lines: Iterable[str], flows: list[FlowMap], wireless: bool) -> Parsed:
    r = _Reader(flows)
    for line in lines:
        c = line[:1]
        if c in "rsf" and " MAC " in line[:40]:
            continue  # MAC transmissions and receptions: only MAC drops are counted
        if c == "r" and " RTR " in line[:40]:
            continue  # the router's receptions: agents' and drops' lines tell the story
        if c == "f" and (" tcp " in line[:70] or " ack " in line[:70]):
            continue  # TCP forwarded by relays
        tok = line.split()
        if len(tok) < 6:
            continue
        # Both formats may share one file (wired-cum-wireless): each line says which it is.
        if tok[0] in ("s", "r", "f", "D") and tok[2].startswith("_"):
            r.wireless_event(tok)
        elif tok[0] in ("+", "-", "r", "d") and len(tok) >= 12 and tok[2].isdigit():
            r.wired_event(tok)
        elif len(tok) == 7 and tok[5] == "nrexmit_":
            f = r.by_var.get((int(tok[1]), int(tok[2])))
            if f is not None:
                r.out[f.name].rtos = int(float(tok[6]))
    return r.finish(flows)


class _Reader:
    """The counters, and what they are derived from, while the trace is read line by line."""

    def __init__(self, flows: list[FlowMap]) -> None:
        self.out = {f.name: FlowCounters(f.name) for f in flows}
        self.net = NetCounters()
        # endpoint keys -> (flow, "data" | "ack")
        self.by_ends: dict[tuple[int, int, int, int], tuple[FlowMap, str]] = {}
        for f in flows:
            self.by_ends[(f.addr("src"), f.src_port, f.addr("dst"), f.dst_port)] = (f, "data")
            self.by_ends[(f.addr("dst"), f.dst_port, f.addr("src"), f.src_port)] = (f, "ack")
        self.by_fid = {f.fid: f for f in flows}
        self.by_var = {(f.addr("src"), f.src_port): f for f in flows}
        self.pkts: dict[int, tuple[FlowMap, str, _Pkt]] = {}
        self.seqs = {f.name: _Seqs() for f in flows}
        self.queues: dict[tuple[int, int], list[int]] = {}  # wired: uids waiting in each link direction's queue

    def finish(self, flows: list[FlowMap]) -> Parsed:
        for f, kind, p in self.pkts.values():
            if p.sent and not p.received:
                cause = p.drop or "in flight"
                (self.out[f.name].data_lost if kind == "data" else self.out[f.name].acks_lost)[cause] += 1
        for f in flows:
            c = self.out[f.name]
            c.delivered_packets = self.seqs[f.name].next_expected
            c.retransmissions = c.data_sent - len(self.seqs[f.name].sent)
        return Parsed(self.out, self.net)

    def _packet(self, uid: int, f: FlowMap, kind: str) -> _Pkt:
        entry = self.pkts.get(uid)
        if entry is None:
            entry = (f, kind, _Pkt())
            self.pkts[uid] = entry
        return entry[2]

    def wireless_event(self, tok: list[str]) -> None:
        net = self.net
        ev, t, layer, reason, ptype = tok[0], float(tok[1]), tok[3], tok[4], tok[6]
        try:
            uid = int(tok[5])
        except ValueError:
            return
        if ev == "D":
            if layer == "MAC" and reason in ("COL", "ERR", "BSY"):
                pass  # a frame lost at one receiver: the MAC retries it, no packet is lost
            else:
                if layer == "MAC" and reason == "RET" and ptype not in ("RTS", "CTS", "ACK"):
                    net.mac_retry_drops += 1
                if layer == "IFQ" and reason in ("---", "IFQ"):
                    net.ifq_drops += 1  # a full interface queue (ARP's drops are traced at the IFQ too)
                if ptype in ("tcp", "ack", "cbr"):
                    # Drops of the traffic's packets; routing packets' drops (an AODV RREQ at the end of
                    # its ring's TTL) are part of route discovery, not losses.
                    net.drops[reason if layer != "IFQ" or reason != "---" else "IFQ"] += 1
        if ptype in ("AODV", "DSR", "message") and layer == "RTR" and ev in ("s", "f"):
            kind = _routing_kind(tok, ptype)
            net.routing_sent[kind] += 1
            if kind == "AODV RREQ" and ev == "s" and _aodv_origin(tok) == int(tok[2].strip("_")):
                net.rreq_originated += 1
            elif kind == "DSR request" and ev == "s" and _ip_src(tok) == int(tok[2].strip("_")):
                net.rreq_originated += 1
            return
        if ptype not in ("tcp", "ack", "cbr") or len(tok) < 17:
            return
        try:
            src, sport = _addr(tok[13].lstrip("["))
            dst, dport = _addr(tok[14])
        except ValueError:
            return
        hit = self.by_ends.get((src, sport, dst, dport))
        if hit is None:
            return
        f, kind = hit
        node = int(tok[2].strip("_"))
        p = self._packet(uid, f, kind)
        if ev == "D":
            p.drop = "IFQ" if layer == "IFQ" and reason == "---" else reason
            return
        if layer != "AGT":
            return
        c = self.out[f.name]
        seq = _seq(tok)
        if ev == "s" and kind == "data" and node == f.src:
            p.sent = True
            c.data_sent += 1
            if seq is not None:
                self.seqs[f.name].sent.add(seq)
        elif ev == "s" and kind == "ack" and node == f.dst:
            p.sent = True
            c.acks_sent += 1
        elif ev == "r" and node == (f.dst if kind == "data" else f.src):
            p.received = True
            if kind == "data" and seq is not None:
                self._arrive(f, seq, t)

    def wired_event(self, tok: list[str]) -> None:
        ev, t, frm, to, ptype = tok[0], float(tok[1]), int(tok[2]), int(tok[3]), tok[4]
        if ptype not in ("tcp", "ack", "cbr"):
            return
        try:
            fid, uid, seq = int(tok[7]), int(tok[11]), int(tok[10])
        except ValueError:
            return
        f = self.by_fid.get(fid)
        if f is None:
            return
        kind = "ack" if ptype == "ack" else "data"
        p = self._packet(uid, f, kind)
        c = self.out[f.name]
        origin, target = (f.src, f.dst) if kind == "data" else (f.dst, f.src)
        q = self.queues.setdefault((frm, to), [])
        if ev == "+":
            q.append(uid)
            if frm == origin and not p.sent:
                p.sent = True
                if kind == "data":
                    c.data_sent += 1
                    self.seqs[f.name].sent.add(seq)
                else:
                    c.acks_sent += 1
        elif ev == "-":
            if uid in q:
                q.remove(uid)
        elif ev == "d":
            # ns-2's link error model (lossmodel) sits before the link's enqueue trace: its drops have
            # no "+" on that link; a queue drops a packet it traced on arrival.
            p.drop = "queue" if uid in q else "link"
            if uid in q:
                q.remove(uid)
            self.net.drops[p.drop] += 1
        elif ev == "r" and to == target:
            p.received = True
            if kind == "data":
                self._arrive(f, seq, t)

    def _arrive(self, f: FlowMap, seq: int, t: float) -> None:
        c, s = self.out[f.name], self.seqs[f.name]
        if seq in s.received:
            c.duplicates += 1
            return
        s.received.add(seq)
        n = s.next_expected
        while n in s.received:
            n += 1
        s.next_expected = n
        if f.size is not None and c.completion_s is None and n * f.payload >= f.size:
            c.completion_s = t - f.start_s


def _addr(field_: str) -> tuple[int, int]:
    a, _, p = field_.partition(":")
    return int(a), int(p)


def _seq(tok: list[str]) -> int | None:
    """The TCP seqno of an AGT line: the bracket after the IP header, ``[seqno ackno]``."""
    if len(tok) > 17 and tok[17].startswith("["):
        try:
            return int(tok[17].lstrip("["))
        except ValueError:
            return None
    return None


def _ip_src(tok: list[str]) -> int:
    return _addr(tok[13].lstrip("["))[0]


def _aodv_origin(tok: list[str]) -> int | None:
    """An AODV RREQ's originator: ``[0x2 hops bcast_id [dst dseq] [src sseq]] (REQUEST)``."""
    for i in range(len(tok) - 1, 0, -1):
        if tok[i].startswith("[") and not tok[i].startswith("[0x"):
            try:
                return int(tok[i].lstrip("["))
            except ValueError:
                return None
    return None


def _routing_kind(tok: list[str], ptype: str) -> str:
    if ptype == "message":
        return "DSDV update"
    if ptype == "AODV":
        tail = tok[-1]
        return {"(REQUEST)": "AODV RREQ", "(REPLY)": "AODV RREP", "(ERROR)": "AODV RERR", "(HELLO)": "AODV HELLO"}.get(
            tail, "AODV other"
        )
    # DSR: num_addrs [request seq] [reply seq len src->dst] [error n type from->to]
    try:
        rest = tok[17:]
        if rest[1] == "[1":
            return "DSR request"
        if rest[3] == "[1":
            return "DSR reply"
        if rest[7] == "[1":
            return "DSR error"
    except IndexError:
        pass
    return "DSR other"
