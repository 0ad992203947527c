"""Every metric a sweep can summarise, by family, and where each lives in a stored summary.

A run's summary holds one table per kind of thing it counts: TCP flows (``flows``), UDP/CBR flows
(``cbr``), wired link directions (``links``), 802.11 stations (``wifi``) and nodes' network layer
with their routing agent (``nodes``).  A metric is named by its family and field: TCP flows' fields
as they are (``goodput_bps``: the names sweeps always took), the others with the family's prefix
(``cbr.delivery_ratio``, ``link.drops_queue``, ``wifi.retries``, ``node.control_packets``), and
the run's own ``sim_time_s``, ``events``, ``wall_time_s``.  Each family has one row per run and
element; the element's name goes in the ``flow`` column (a flow's name, ``LINK:A->B``,
``WLAN:NODE``, a node's name), so ``--flow NAME`` picks one and ``--sum-flows`` adds them up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tcplab.result import _CBR_DTYPES, _FLOW_DTYPES, _LINK_DTYPES


@dataclass(frozen=True)
class Family:
    """A table of the summary: its key, the prefix of its metrics, how an element is named."""

    table: str
    prefix: str
    element: Callable[[dict[str, Any]], str]
    fields: tuple[str, ...]
    #: What its elements are, for messages ("stations").
    what: str = "flows"
    #: Elements that do not appear in a run count zero (the summary lists only nodes with
    #: something to report).
    zero_when_absent: bool = False


def _numeric(dtypes: dict[str, str]) -> tuple[str, ...]:
    return tuple(k for k, t in dtypes.items() if t in ("Int64", "Float64"))


#: 802.11 stations' counters (api.rs ``WifiSummary``).
WIFI_FIELDS = (
    "frames_sent", "bytes_sent", "control_frames_sent", "retries", "data_retries", "retried_msdus",
    "tx_failures", "tx_collisions", "collisions", "frame_errors", "packet_errors", "frames_received",
    "duplicates", "delivered", "drops_retry_limit", "drops_queue", "drops_outage", "ecn_marks", "drops_red",
)
#: Nodes' network-layer drops, ICMP, route changes and routing-agent counters (api.rs ``NodeSummary``,
#: ``net::RoutingStats``): the routing overhead is ``node.control_packets`` / ``node.control_bytes``.
NODE_FIELDS = (
    "drops_ttl", "drops_no_route", "drops_discovery_failed", "drops_buffer_full", "drops_buffer_timeout",
    "drops_link_broken", "icmp_sent", "icmp_received", "route_changes", "control_packets", "control_bytes",
    "discoveries", "discoveries_failed", "route_requests", "route_replies", "route_errors", "link_breaks",
    "discoveries_completed", "discovery_latency_s",
)

FAMILIES: tuple[Family, ...] = (
    Family("flows", "", lambda r: r["name"], _numeric(_FLOW_DTYPES), "TCP flows"),
    Family("cbr", "cbr.", lambda r: r["name"], _numeric(_CBR_DTYPES), "CBR flows"),
    Family("links", "link.", lambda r: f"{r['name']}:{r['direction']}", _numeric(_LINK_DTYPES), "link directions"),
    Family("wifi", "wifi.", lambda r: f"{r['wlan']}:{r['node']}", WIFI_FIELDS, "stations"),
    Family("nodes", "node.", lambda r: r["node"], NODE_FIELDS, "nodes", zero_when_absent=True),
)
#: The run's own numbers (one per run).
RUN_METRICS = ("sim_time_s", "events", "wall_time_s")

def additive(metric: str) -> bool:
    """Whether ``metric`` adds up over flows: ``--sum-flows`` refuses ratios, percentages, times
    and delays."""
    field = metric.rsplit(".", 1)[-1]
    return not (field.endswith(("_s", "_pct", "ratio")) or field in ("jitter_s",))


def family_of(metric: str) -> tuple[Family, str] | None:
    """The family of ``metric`` and its field in that family's table, or None if unknown (a TCP
    flow's metric is known by the stored runs' columns, not here)."""
    for fam in FAMILIES[1:]:
        if metric.startswith(fam.prefix):
            field = metric[len(fam.prefix) :]
            return (fam, field) if field in fam.fields else None
    return None


def allowed(tcp_metrics: list[str]) -> list[str]:
    """Every metric name: the TCP ones given (what the stored runs hold), then the other families'."""
    names = [m for m in tcp_metrics if m not in RUN_METRICS]
    names += [f"{fam.prefix}{f}" for fam in FAMILIES[1:] for f in fam.fields]
    return [*names, *RUN_METRICS]


def what(metric: str) -> str:
    """What the elements of ``metric``'s family are ("stations"), for messages."""
    found = family_of(metric)
    return found[0].what if found else FAMILIES[0].what
