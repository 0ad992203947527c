"""tcplab's summaries and ns-2's counters in the same terms, over the seeds: mean ± 95 % CI, ratio.

Each metric is one number per seed on each side.  tcplab's come from its run summary (the
numbers ``tcplab run --json`` prints); ns-2's from :mod:`.trace`.  Where only one side counts a
thing (ns-2's drop reasons, tcplab's link-break drops) the other side shows a dash.

* goodput: bytes delivered in order × 8 over the run's duration (a download: its size over its
  completion time), kb/s;
* duplicates at the receiver: tcplab's ``spurious_retransmissions`` (the receiver's duplicate
  segments), ns-2's DATA packets its sink got twice;
* DATA / ACK losses: packets sent by the TCP agent that never reached the peer agent; ns-2's by
  the reason of their last drop;
* route discoveries: tcplab's ``discoveries``; ns-2 has no such count, its row is the route
  requests sources originated (every retry counts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...stats import summarise
from .tcl import FlowMap
from .trace import REASONS, Parsed


@dataclass
class Metric:
    section: str  # flow name or "network"
    name: str
    tcplab: list[float | None]
    ns2: list[float | None]

    def cells(self) -> tuple[str, str, str]:
        a, b = mean_ci(self.tcplab), mean_ci(self.ns2)
        ratio = "–"
        if a is not None and b is not None and b[0] != 0:
            ratio = f"{a[0] / b[0]:.2f}"
        elif a is not None and b is not None and a[0] == b[0] == 0:
            ratio = "="
        return show(a), show(b), ratio

    def as_json(self) -> dict[str, Any]:
        a, b = mean_ci(self.tcplab), mean_ci(self.ns2)
        return {
            "tcplab": self.tcplab, "ns2": self.ns2,
            "tcplab_mean": a and a[0], "tcplab_ci95": a and a[1],
            "ns2_mean": b and b[0], "ns2_ci95": b and b[1],
        }


def mean_ci(xs: list[float | None]) -> tuple[float, float] | None:
    """Mean and 95 % CI half-width of the numbers in ``xs`` (Nones left out; one value: CI 0)."""
    vals = [x for x in xs if x is not None]
    if not vals:
        return None
    s = summarise(vals)
    return s.mean, (0.0 if math.isnan(s.ci95) else s.ci95)


def show(s: tuple[float, float] | None) -> str:
    """``mean ± ci`` with one decimal below 1000, thousands separated and no decimal above."""
    if s is None:
        return "–"
    mean, ci = s
    digits = 1 if abs(mean) < 1000 else 0
    return f"{mean:,.{digits}f} ± {ci:,.{digits}f}"


def flow_metrics(flows: list[FlowMap], duration_s: float, sims: list[dict[str, Any]], nss: list[Parsed]) -> list[Metric]:
    out: list[Metric] = []
    for f in flows:
        sim = [next(x for x in s["flows"] if x["name"] == f.name) if f.kind == "tcp" else None for s in sims]
        ns = [p.flows[f.name] for p in nss]
        if f.kind == "cbr":
            continue

        def m(name: str, a: list[float | None], b: list[float | None]) -> None:
            out.append(Metric(f.name, name, a, b))

        def ns_goodput(c: Any) -> float | None:
            if f.size is not None:
                return f.size * 8 / c.completion_s / 1e3 if c.completion_s else None
            return c.delivered_packets * f.payload * 8 / duration_s / 1e3

        m("goodput (kb/s)", [x["goodput_bps"] / 1e3 if x["goodput_bps"] is not None else None for x in sim],
          [ns_goodput(c) for c in ns])
        m("RTOs", [x["timeouts"] for x in sim], [c.rtos for c in ns])
        m("retransmitted segments", [x["retransmissions"] for x in sim], [c.retransmissions for c in ns])
        m("duplicates at the receiver", [x["spurious_retransmissions"] for x in sim], [c.duplicates for c in ns])
        for what, key, counters in (("DATA", "data_lost", "data_lost"), ("ACKs", "acks_lost", "acks_lost")):
            lost = [getattr(c, counters) for c in ns]
            m(f"TCP {what} lost", [x[key] for x in sim], [sum(v for r, v in x.items() if r != "in flight") for x in lost])
            for reason in sorted({r for x in lost for r in x if r != "in flight"}):
                m(f"  {what} lost: {REASONS.get(reason, reason)} ({reason})", [None] * len(sim), [x[reason] for x in lost])
            m(f"TCP {what} in flight at the end", [None] * len(sim), [x["in flight"] for x in lost])
    return out


def network_metrics(wireless: bool, sims: list[dict[str, Any]], nss: list[Parsed]) -> list[Metric]:
    out: list[Metric] = []

    def m(name: str, a: list[float | None], b: list[float | None]) -> None:
        out.append(Metric("network", name, a, b))

    def nodes(s: dict[str, Any], key: str) -> float:
        return float(sum(n.get(key, 0) for n in s.get("nodes") or []))

    def wifi(s: dict[str, Any], key: str) -> float:
        return float(sum(n.get(key, 0) for n in s.get("wifi") or []))

    def links(s: dict[str, Any], key: str) -> float:
        return float(sum(n.get(key, 0) for n in s.get("links") or []))

    if not wireless:
        m("queue drops", [links(s, "drops_queue") for s in sims], [p.net.drops["queue"] for p in nss])
        m("link loss and outage drops", [links(s, "drops_loss") + links(s, "drops_outage") for s in sims],
          [p.net.drops["link"] for p in nss])
        return out
    m("MAC retry-limit drops", [wifi(s, "drops_retry_limit") for s in sims], [p.net.mac_retry_drops for p in nss])
    m("interface-queue drops", [wifi(s, "drops_queue") for s in sims], [p.net.ifq_drops for p in nss])
    m("no-route drops (NRTE)", [nodes(s, "drops_no_route") + nodes(s, "drops_discovery_failed") for s in sims],
      [p.net.drops["NRTE"] for p in nss])
    m("link-break drops (tcplab) / routing callback (CBK)", [nodes(s, "drops_link_broken") for s in sims],
      [p.net.drops["CBK"] for p in nss])
    m("routing-buffer drops", [nodes(s, "drops_buffer_full") + nodes(s, "drops_buffer_timeout") for s in sims],
      [None] * len(nss))
    m("TTL drops", [nodes(s, "drops_ttl") for s in sims], [p.net.drops["TTL"] for p in nss])
    arp_on = [any("drops_arp" in n for n in s.get("wifi") or []) for s in sims]
    m("ARP drops", [wifi(s, "drops_arp") if on else None for s, on in zip(sims, arp_on)],
      [p.net.drops["ARP"] for p in nss])
    kinds = sorted({k for p in nss for k in p.net.routing_sent})
    m("routing packets sent", [nodes(s, "control_packets") for s in sims],
      [sum(p.net.routing_sent.values()) for p in nss])
    tcplab_kind = {"AODV RREQ": "route_requests", "AODV RREP": "route_replies", "AODV RERR": "route_errors",
                   "DSR request": "route_requests", "DSR reply": "route_replies", "DSR error": "route_errors"}
    for k in kinds:
        key = tcplab_kind.get(k)
        m(f"  {k} sent", [nodes(s, key) for s in sims] if key else [None] * len(sims),
          [p.net.routing_sent[k] for p in nss])
    m("route discoveries (ns-2: RREQs originated)", [nodes(s, "discoveries") for s in sims],
      [p.net.rreq_originated for p in nss])
    return out


def seed_span(seeds: list[int]) -> str:
    """``1–5`` for consecutive seeds, else ``1,3,7``."""
    if seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ",".join(map(str, seeds))


def rows(metrics: list[Metric]) -> list[tuple[str, str, str, str]]:
    return [(x.name, *x.cells()) for x in metrics]
