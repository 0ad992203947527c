"""Seed 004's network (Dalal et al., Fig. 3) as scenario dicts: wireless senders -> AP -> wired
backbone (latency D, rate R) -> the FTP receiver, with one or four APs.

Every choice the paper leaves open is a module constant, documented in docs/validation/adaptive_tcp.md:

* 802.11: the paper's "802.11g ... at 11 Mb/s" reports 5.99 Mb/s for one flow at 0 % FER with an ACK
  per 1000-byte packet, above what 11 Mb/s CCK can carry with that ACK load.  The one-station bound of
  ALGORITHMS.md §6.3 per preset and rate (crates/tcplab-core/tests/wifi.rs,
  ``seed004_preset_is_the_closest_to_the_papers_5_99_mbps``) puts 802.11g ERP-OFDM with the long
  (20 µs) slot of a BSS that admits 802.11b stations at 12 Mb/s closest (bound 6.04 Mb/s; the short
  slot gives 5.73 at 9 Mb/s and 7.17 at 12 Mb/s); basic access (no RTS), 50-packet interface queues.
* TCP: ns-2's Agent/TCP/Newreno defaults the paper keeps ("all other parameters set to default"),
  as ``[tcp] profile = "ns2"`` (1000-byte packets, windows in packets, +1/cwnd per ACK, initial
  window 2, ns-2's RTO estimator and timers, limited transmit, an ACK per packet), with a large
  advertised window (1000 packets; ns-2's window_ 20 could not carry the paper's 5.99 Mb/s).
* Frame errors: Gilbert–Elliott per wireless station on the frames it sends and receives, mean FER
  as given, mean burst ``BURST`` frames, acting above the MAC (``loss_at = "packets"``, as an ns-2
  error model above the MAC would) unless a cell says otherwise.
* Wired: each AP reaches a router over 100 Mb/s, 1 ms; the backbone router -> receiver is the
  paper's D and R (defaults R = 100 Mb/s, where the WLAN is the bottleneck as in Fig. 8, and
  D = 45 ms, the middle of Fig. 9's 15-75 ms: the paper does not give its default), DropTail 50.
"""

from __future__ import annotations

from typing import Any

SEGMENT_B = 1000
PHY = "erp_ofdm_long_slot"
RATE = "12Mbps"
#: The one-station TCP bound of that PHY (ALGORITHMS.md §6.3; printed by the Rust test above), Mb/s:
#: the "maximum bandwidth availability" residual bandwidth is measured from.
PHY_BOUND_MBPS = 6.04
BURST = 1.0
#: The WLAN of the ns-2.35 column (experiments/ns2_side.py), as validation/ns2/run.py's wlan004 rows: ns-2.35
#: has no ERP-OFDM PHY and no unit disk, so the paper's "802.11 at 11 Mb/s" in ns-2 is its DSSS MAC at
#: 11 Mb/s with two-ray ground; its frame errors hit every frame below the MAC (Bernoulli, the FER as p).
NS2_PHY: dict[str, Any] = {"phy": "ns2_dsss", "rate": "11Mbps", "propagation": {"model": "two_ray_ground"}}
DEFAULT_DELAY = "45ms"
DEFAULT_RATE = "100Mbps"
QUEUE = 50
RWND_SEGMENTS = 1000

#: The compared senders: label -> the [tcp] fields that select it (NewReno recovery for all).
VARIANTS: dict[str, dict[str, str]] = {
    "newreno": {"cc": "reno", "recovery": "newreno"},
    "westwood": {"cc": "westwood", "recovery": "newreno"},
    "adaptive": {"cc": "adaptive", "recovery": "newreno"},
    "cubic": {"cc": "cubic", "recovery": "newreno"},
}
LABEL = {"newreno": "NewReno", "westwood": "Westwood+", "adaptive": "Adaptive TCP", "cubic": "CUBIC"}


def tcp() -> dict[str, Any]:
    """ns-2.35 Agent/TCP/Newreno + TCPSink as the ``ns2`` profile sets them (docs/models/tcp.md § ns-2 profile),
    but the advertised window: ``window_`` = RWND_SEGMENTS packets instead of ns-2's 20, which would cap one
    flow at 20 packets per RTT (~1.5 Mb/s at D = 45 ms), far below the paper's 5.99 Mb/s (our choice; the
    paper says only "all other parameters set to default").  ssthresh starts at that window too (ns-2's
    reset sets ssthresh_ = window_).

    ns-2's window_ is a bare packet count; in tcplab it is the receiver's advertised window, which the
    profile's one-way start (ns-2's bare SYN) carries whole: the window scale is agreed from both ends'
    configurations (docs/models/tcp.md § ns-2 profile), so the 1000 packets are not capped at 65535 B."""
    return {
        "profile": "ns2",
        "rcv_buf": f"{RWND_SEGMENTS * SEGMENT_B}B",
        "initial_ssthresh": f"{RWND_SEGMENTS * SEGMENT_B}B",
    }


def loss(fer: float, burst: float = BURST) -> dict[str, Any]:
    return {"model": "gilbert_elliott", "mean": fer, "burst": burst}


def scenario(
    *,
    aps: int = 1,
    flows_per_ap: int = 1,
    fer: float = 0.0,
    delay: str = DEFAULT_DELAY,
    rate: str = DEFAULT_RATE,
    duration: str = "100s",
    start: str = "0s",
    loss_at: str = "packets",
    burst: float = BURST,
    series: tuple[str, ...] = (),
    ns2_phy: bool = False,
    queue: int = QUEUE,
) -> dict[str, Any]:
    """``aps`` infrastructure WLANs, each with ``flows_per_ap`` senders ``t<ap>_<k>`` about 10 m from
    their AP, each sending to the FTP receiver ``ftp`` behind the shared backbone.

    ``ns2_phy``: the WLAN as ns-2.35 can run it (NS2_PHY; ``loss_at`` and ``burst`` are then ignored)."""
    nodes: list[dict[str, str]] = [{"name": "router"}]
    links: list[dict[str, Any]] = []
    wlans: list[dict[str, Any]] = []
    flows: list[dict[str, Any]] = []
    for a in range(1, aps + 1):
        ap = f"ap{a}"
        nodes.append({"name": ap})
        links.append({"name": f"lan{a}", "a": ap, "b": "router", "rate": "100Mbps", "delay": "1ms",
                      "queue": {"kind": "droptail", "packets": queue}})
        stations: list[dict[str, Any]] = [{"node": ap, "position": ["0m", "0m"]}]
        for k in range(1, flows_per_ap + 1):
            t = f"t{a}_{k}"
            nodes.append({"name": t})
            st: dict[str, Any] = {"node": t, "position": ["10m", f"{k - 1}m"]}
            if fer > 0 and ns2_phy:
                # ns-2.35's error hook sits between PHY and MAC: every frame, Bernoulli.
                st |= {"loss": {"model": "bernoulli", "p": fer}, "loss_at": "frames"}
            elif fer > 0:
                st |= {"loss": loss(fer, burst), "loss_at": loss_at}
            stations.append(st)
            flows.append({"name": f"f{a}_{k}", "app": "bulk", "client": "ftp", "server": t, "start": start})
        radio = NS2_PHY if ns2_phy else {"phy": PHY, "rate": RATE, "propagation": {"model": "unit_disk"}}
        wlans.append({"name": f"wlan{a}", "mode": "infrastructure", **radio, "ap": ap,
                      "queue": queue, "stations": stations})
    nodes.append({"name": "ftp"})
    links.append({"name": "backbone", "a": "router", "b": "ftp", "rate": rate, "delay": delay,
                  "queue": {"kind": "droptail", "packets": queue}})
    return {
        "name": "adaptive_tcp",
        "duration": duration,
        "tcp": tcp() | VARIANTS["newreno"],
        "nodes": nodes,
        "links": links,
        "wlans": wlans,
        "flows": flows,
        "trace": {"series": list(series), "interval": "10ms"},
    }


def variant_cells(variants: tuple[str, ...]) -> list[dict[str, Any]]:
    """One override cell per compared sender."""
    return [{f"tcp.{k}": v for k, v in VARIANTS[name].items()} for name in variants]


def variant_of(cell: dict[str, Any]) -> str:
    cc = cell.get("tcp.cc", "reno")
    return next(name for name, fields in VARIANTS.items() if fields["cc"] == cc)
