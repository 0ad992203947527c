"""A resolved tcplab scenario as an ns-2.35 Tcl script.

One script serves every seed: ``ns SCRIPT.tcl SEED TRACE`` (defaults 1 and ``out.tr``).  ns-2's
randomness is its own (``$defaultRNG seed``): a seed only pairs an ns-2 run with a tcplab run.

Layout of what is written, and why:

* wired-only scenarios: one ``$ns_ node`` per scenario node, ``duplex-link`` per link (DropTail
  or RED), ``queue-limit`` both ways, ``ErrorModel`` (Bernoulli) or ``ErrorModel/TwoState``
  (Gilbert–Elliott with an all-or-nothing bad state) through ``lossmodel`` on the directions the
  loss names, outages as ``rtmodel-at … down/up``; ``trace-all`` in the wired format.
* one WLAN (ad hoc, or a base-station WLAN without wired links): mobile nodes ``node_(i)`` in the
  WLAN's station order (the order a setdest file numbers them), ``node-config`` with
  Mac/802_11, Phy/WirelessPhy, LL, Antenna/OmniAntenna, Queue/DropTail/PriQueue (CMUPriQueue
  for DSR, as ns-2 requires), two-ray ground or free space; the agent and router traces and the
  MAC trace (retry-limit drops are traced at the MAC) in the old wireless format.  Frame errors
  and fades are ns-2's node-config error hooks (``-IncomingErrProc``/``-OutgoingErrProc``),
  between PHY and MAC.
* flows: an Agent/TCP sender at the server, a sink at the client, FTP from the start time
  (``send`` of the size for a download); CBR over UDP.  Agent ports follow attach order, which
  :class:`FlowMap` records so that the trace can be read per flow.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..units import rate_bps, seconds, size_bytes
from . import Untranslatable
from .subset import NS2_TCP_DEFAULTS, NS2_TCPIP_HEADER_B, ROUTING, _num, refuse, tcp_settings

SPEED_OF_LIGHT = 299792458.0  # ns-2.35 propagation: SPEED_OF_LIGHT
NS2_PT, NS2_FREQ, NS2_ANTENNA_Z = 0.28183815, 914e6, 1.5  # Phy/WirelessPhy Pt_, freq_; Antenna Z_


@dataclass(frozen=True)
class FlowMap:
    """Where a scenario flow lives in ns-2: sender and receiver node indices and agent ports."""

    name: str
    kind: str  # "tcp" | "cbr"
    src: int  # ns-2 node id (the trace's _N_ and the wired from/to)
    src_port: int
    dst: int
    dst_port: int
    fid: int
    payload: int  # TCP packetSize_ or CBR payload bytes
    size: int | None  # bytes of a download, else None
    start_s: float
    sender: str  # the ns-2 sender class
    src_addr: int = -1  # the address the wireless trace prints (flat: the node id)
    dst_addr: int = -1

    def addr(self, which: str) -> int:
        a = self.src_addr if which == "src" else self.dst_addr
        return (self.src if which == "src" else self.dst) if a < 0 else a


@dataclass
class Script:
    text: str
    flows: list[FlowMap]
    nodes: list[str]  # ns-2 node index -> scenario node name
    wireless: bool
    routing: str | None  # ns-2 agent name
    notes: list[str] = field(default_factory=list)  # what ns-2 does differently here
    settle_s: float = 0.0  # every scheduled event runs this much later in ns-2 (translate's settle_s)


def _rate(r: str) -> str:
    bps = rate_bps(r)
    return f"{_num(bps / 1e6)}Mb"


def _dur(d: str) -> str:
    return f"{_num(seconds(d) * 1000)}ms"


def _m(d: str) -> float:
    """A resolved distance ("200m", "1.5km") in metres."""
    s = str(d).strip()
    for unit, k in (("km", 1000.0), ("cm", 0.01), ("mm", 0.001), ("m", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * k
    return float(s)


class _Writer:
    """The script's lines in order (a call adds one line, or a block of lines without its last newline).

    ``settle_s``: every event the script schedules (``$ns_ at``, ``rtmodel-at``) runs this much later than
    the scenario's time (:func:`translate`); :meth:`at` writes a scheduled time."""

    def __init__(self, settle_s: float = 0.0) -> None:
        self.lines: list[str] = []
        self.settle_s = settle_s

    def __call__(self, line: str) -> None:
        self.lines.append(line)

    def at(self, t: float) -> str:
        """The scenario's time ``t`` as ns-2 schedules it (a shifted time to the nanosecond, so that 18.025 s
        settled by 2.5 s is written 20.525, not 20.525000000000002)."""
        return _num(round(t + self.settle_s, 9)) if self.settle_s else _num(t)


#: What every script does first: its arguments (seed, trace file), the simulator with that seed,
#: the trace, and ``finish`` (scheduled at the end of the run).
_PRELUDE = """\
# Run: ns THIS.tcl [SEED [TRACE]]   (default seed 1, trace out.tr)
set seed 1
set tracefile out.tr
if {$argc >= 1} { set seed [lindex $argv 0] }
if {$argc >= 2} { set tracefile [lindex $argv 1] }
set ns_ [new Simulator]
$defaultRNG seed $seed
set tf [open $tracefile w]
$ns_ trace-all $tf
proc finish {} {
    global ns_ tf
    $ns_ flush-trace
    close $tf
    exit 0
}"""

#: node-config's error hooks call a proc per interface; these return one Bernoulli model each, with
#: the rate the node being built asks for (``errp_``), and keep it in ``last_err_`` for the fades.
_ERROR_PROCS = "\n".join(
    f"""proc {d}_err_ {{}} {{
    global errp_ last_err_
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ [lindex $errp_({d}) 0]
    $em ranvar [new RandomVariable/Uniform]
    set last_err_({d}) $em
    return $em
}}"""
    for d in ("in", "out")
)


def translate(resolved: dict[str, Any], explicit: dict[str, set[str]], base_dir: Path, settle_s: float = 0.0) -> Script:
    """The script for ``resolved`` (already checked by :func:`.subset.check`).

    ``settle_s`` > 0 runs every scheduled event -- flow starts and stops, outages, fades, waypoint legs,
    the end -- that many seconds later than the scenario says, so that what ns-2 sets up by itself at
    t = 0 is over before traffic starts.  It is for static routes, which the translation stands DSDV in
    for: dsdv.cc's ``startUp`` defers each node's first full dump by U(0, DSDV_STARTUP_JITTER = 2 s)
    (``be_random_`` 1), and until a node has heard the other end's dump, packets towards it wait or are
    dropped, where tcplab's static routes exist at t = 0 (issue 40).  The flows' start times in
    :class:`FlowMap` are ns-2's (shifted), so the trace is read against them; a run's length is
    unchanged.  Refused with a setdest file (its moves are ns-2's own schedule and would not shift)."""
    if not (math.isfinite(settle_s) and settle_s >= 0):
        raise Untranslatable(f"`settle = {settle_s!r}`: must be a number of seconds ≥ 0")
    w = _Writer(settle_s)
    name = resolved["name"]
    wlan = (resolved.get("wlans") or [None])[0]
    w(f"# {name}: written by `tcplab validate ns2` for ns-2.35; do not edit.")
    w(_PRELUDE)
    notes: list[str] = ["ns-2's one-way TCP opens with a bare 40-byte SYN from the sender (syn_ true), answered by "
                        "the sink, and sends no request (tcplab: client SYN, SYN-ACK and the client's request first, "
                        "unless tcp.open says sender_syn, as the ns2 profile does, or none)"]
    links = resolved.get("links") or []
    routing = None
    if wlan is None:
        nodes = [n["name"] for n in resolved["nodes"]]
        lay = _Layout({n: f"$n({i})" for i, n in enumerate(nodes)}, {n: i for i, n in enumerate(nodes)}, {})
        _wired_nodes(w, nodes, hier=False)
    elif not links:
        nodes = [s["node"] for s in wlan["stations"]]
        others = [n["name"] for n in resolved["nodes"] if n["name"] not in nodes]
        if others:
            raise refuse(f"nodes.{others[0]}", others[0], "a node on no link and in no WLAN has no place in ns-2's wireless network")
        lay = _Layout({n: f"$node_({i})" for i, n in enumerate(nodes)}, {n: i for i, n in enumerate(nodes)}, {})
        routing = _wireless(w, resolved, wlan, base_dir, notes, hier=False)
    else:
        lay, nodes = _mixed_layout(resolved, wlan)
        wired = [n for n in nodes if lay.vars[n].startswith("$n(")]
        w("# wired-cum-wireless: hierarchical addresses, wired nodes in domain 0, the WLAN in domain 1")
        w("$ns_ node-config -addressType hierarchical")
        w("AddrParams set domain_num_ 2")
        w("AddrParams set cluster_num_ {1 1}")
        w(f"AddrParams set nodes_num_ {{{len(wired)} {len(nodes) - len(wired)}}}")
        _wired_nodes(w, wired, hier=True)
        wlan = dict(wlan, stations=[st for n in nodes[len(wired):] for st in wlan["stations"] if st["node"] == n])
        routing = _wireless(w, resolved, wlan, base_dir, notes, hier=True)
        notes.append("ns-2 joins the WLAN to the wired nodes through a base station (hierarchical addressing); "
                     "its wireless side runs the ad hoc routing agent named above")
    if links:
        _links(w, resolved, lay.vars, notes)
    flows = _flows(w, resolved, explicit, lay, notes)
    for f in resolved["flows"]:
        t = f.get("tcp") or {}
        if f["app"] != "cbr" and t.get("cc") in ("westwood", "cubic") and t.get("recovery", "newreno") != "sack":
            notes.append(f"flow {f['name']}: ns-2's Agent/TCP/Linux recovers losses with its SACK scoreboard "
                         f"(TCPSink/Sack1); tcplab's flow recovers as {t.get('recovery', 'newreno')} "
                         "(tcp.recovery = \"sack\" is the closer match)")
    if any(f.sender == "Agent/TCP/Linux" for f in flows):
        notes.append("Agent/TCP/Linux (Westwood+, CUBIC, Veno) is ns-2's port of Linux 2.6's congestion control with ns-2's "
                     "own loss recovery (SACK scoreboard, rate halving); `select_ca` also sets its timer tick to "
                     "the jiffy, whatever tcpTick_ says")
    if settle_s:
        notes.append(f"ns-2 runs every scheduled event {_num(settle_s)} s later than the scenario (settle): "
                     "the routing agent's start-up (DSDV's first dumps, up to 2 s) is over before traffic; "
                     "ns-2's trace times are that much later, its run as long")
    w(f"$ns_ at {w.at(seconds(resolved.get('duration', '3600s')))} \"finish\"")
    w("$ns_ run")
    return Script("\n".join(w.lines) + "\n", flows, nodes, wlan is not None, routing, notes, settle_s)


# ------------------------------------------------------------------ wired


@dataclass
class _Layout:
    vars: dict[str, str]  # scenario node -> its Tcl variable ("$n(0)", "$node_(3)")
    ids: dict[str, int]  # scenario node -> ns-2 node id (creation order)
    addrs: dict[str, int]  # hierarchical address as the wireless trace prints it (absent: = id)


def _mixed_layout(resolved: dict[str, Any], wl: dict[str, Any]) -> tuple[_Layout, list[str]]:
    """Wired nodes first (0.0.i), then the AP as base station (1.0.0), then its stations (1.0.k)."""
    stations = [s["node"] for s in wl["stations"]]
    ap = wl.get("ap")
    wired = [n["name"] for n in resolved["nodes"] if n["name"] not in stations]
    mobiles = [ap] + [n for n in stations if n != ap]
    nodes = wired + mobiles
    vars_ = {n: f"$n({i})" for i, n in enumerate(wired)} | {n: f"$node_({k})" for k, n in enumerate(mobiles)}
    ids = {n: i for i, n in enumerate(nodes)}
    # ns-2.35 hierarchical addresses: domain, cluster and node in 11-bit fields (AddrParams).
    addrs = {n: i for i, n in enumerate(wired)} | {n: (1 << 22) | k for k, n in enumerate(mobiles)}
    return _Layout(vars_, ids, addrs), nodes


def _wired_nodes(w: _Writer, nodes: list[str], hier: bool) -> None:
    for i, n in enumerate(nodes):
        w(f"set n({i}) [$ns_ node{f' 0.0.{i}' if hier else ''}] ;# {n}")


def _links(w: _Writer, resolved: dict[str, Any], vars_: dict[str, str], notes: list[str]) -> None:
    downs: list[tuple[float, str, str, str]] = []
    duration = seconds(resolved.get("duration", "3600s"))
    for link in resolved.get("links") or []:
        lname = link.get("name") or f"{link['a']}-{link['b']}"
        a, b = vars_[link["a"]], vars_[link["b"]]
        q = link.get("queue") or {"kind": "droptail", "packets": 50}
        kind = "RED" if q["kind"] == "red" else "DropTail"
        w(f"# link {lname}")
        w(f"$ns_ duplex-link {a} {b} {_rate(link['rate'])} {_dur(link['delay'])} {kind}")
        limit = q.get("packets", 50) if kind == "DropTail" else q["limit"]
        if limit is None:
            limit = 50
        for x, y in ((a, b), (b, a)):
            w(f"$ns_ queue-limit {x} {y} {limit}")
            if kind == "RED":
                w(f"set q_ [[$ns_ link {x} {y}] queue]")
                w(f"$q_ set thresh_ {_num(q['min_th'])}")
                w(f"$q_ set maxthresh_ {_num(q['max_th'])}")
                w(f"$q_ set linterm_ {_num(1.0 / q.get('max_p', 0.1))}")
                w(f"$q_ set q_weight_ {_num(q.get('w_q', 0.002))}")
                w(f"$q_ set gentle_ {'true' if q.get('gentle') else 'false'}")
                w(f"$q_ set setbit_ {'true' if q.get('ecn') else 'false'}")
                w("$q_ set queue_in_bytes_ false")
        loss = link.get("loss")
        if loss:
            dirs = {"both": [(a, b), (b, a)], "a_to_b": [(a, b)], "b_to_a": [(b, a)]}[loss.get("direction", "both")]
            for x, y in dirs:
                _loss_model(w, loss)
                w(f"$ns_ lossmodel $em_ {x} {y}")
        for start, end in _outages(link.get("outage") or {}, duration):
            downs.append((start, "down", a, b))
            downs.append((end, "up", a, b))
    if any(link.get("loss") for link in resolved.get("links") or []):
        notes.append("ns-2's link error model (lossmodel) drops a packet before the link's queue traces it "
                     "(a lost packet never takes queue space)")
    for t, what, a, b in sorted(downs):
        w(f"$ns_ rtmodel-at {w.at(t)} {what} {a} {b}")
    if downs:
        notes.append("an outage is ns-2's rtmodel link down/up: packets in flight on the link are lost, "
                     "the queue is kept; routes stay static")


def _loss_model(w: _Writer, loss: dict[str, Any]) -> None:
    if loss["model"] == "bernoulli":
        w("set em_ [new ErrorModel]")
        w("$em_ unit pkt")
        w(f"$em_ set rate_ {_num(loss['p'])}")
        w("$em_ ranvar [new RandomVariable/Uniform]")
        return
    p_gb, p_bg = _ge(loss)
    # Gilbert–Elliott with a lossless good and an all-lost bad state: ns-2's TwoState model
    # (errmodel.cc TwoStateErrorModel) with sojourns drawn in packets; exponential sojourns of
    # the chain's mean lengths (1/p_gb good, 1/p_bg bad).
    w(f"set em_ [new ErrorModel/TwoState [new RandomVariable/Exponential] [new RandomVariable/Exponential] pkt]")
    w(f"[lindex [$em_ set ranvar_] 0] set avg_ {_num(1.0 / p_gb)}")
    w(f"[lindex [$em_ set ranvar_] 1] set avg_ {_num(1.0 / p_bg)}")


def _ge(loss: dict[str, Any]) -> tuple[float, float]:
    if loss.get("p_gb") is not None:
        return float(loss["p_gb"]), float(loss["p_bg"])
    mean, burst = float(loss["mean"]), float(loss["burst"])
    p_bg = 1.0 / burst
    return mean * p_bg / (1.0 - mean), p_bg


def _outages(o: dict[str, Any], until: float) -> list[tuple[float, float]]:
    out = [(seconds(a), seconds(b)) for a, b in o.get("intervals") or []]
    if o.get("every") and o.get("down"):
        every, down = seconds(o["every"]), seconds(o["down"])
        t = seconds(o.get("start", "0s"))
        while every > 0 and t < until:
            out.append((t, min(t + down, until)))
            t += every
    return sorted(out)


# ------------------------------------------------------------------ wireless


def _thresholds(prop: dict[str, Any]) -> dict[str, float]:
    """Phy/WirelessPhy thresholds and power the WLAN's propagation sets (only those it sets)."""
    out: dict[str, float] = {}
    pt = float(prop.get("tx_power_w", NS2_PT))
    freq = float(prop.get("frequency_hz", NS2_FREQ))
    h = _m(prop["antenna_height"]) if "antenna_height" in prop else NS2_ANTENNA_Z
    lam = SPEED_OF_LIGHT / freq

    def received(d: float) -> float:
        friis = pt * lam**2 / ((4 * math.pi * d) ** 2)
        if prop["model"] == "free_space":
            return friis
        crossover = 4 * math.pi * h * h / lam  # ns-2.35 tworayground.cc: Friis below the crossover
        return friis if d < crossover else pt * h**4 / d**4

    if "tx_power_w" in prop:
        out["Pt_"] = pt
    if "frequency_hz" in prop:
        out["freq_"] = freq
    if "rx_thresh_w" in prop:
        out["RXThresh_"] = float(prop["rx_thresh_w"])
    elif "rx_range" in prop:
        out["RXThresh_"] = received(_m(prop["rx_range"]))
    if "cs_thresh_w" in prop:
        out["CSThresh_"] = float(prop["cs_thresh_w"])
    elif "cs_range" in prop:
        out["CSThresh_"] = received(_m(prop["cs_range"]))
    if "capture_ratio" in prop:
        out["CPThresh_"] = float(prop["capture_ratio"])
    return out


def _wireless(w: _Writer, resolved: dict[str, Any], wl: dict[str, Any], base_dir: Path, notes: list[str], hier: bool) -> str:
    """The WLAN's nodes ``node_(i)`` in ``wl``'s station order; ``hier``: node_(0) is the base
    station of a wired-cum-wireless network (addresses 1.0.i), the others attach to it."""
    stations = wl["stations"]
    routing = wl.get("routing") or {"protocol": "static"}
    agent = ROUTING[routing["protocol"]]
    if routing["protocol"] == "static":
        notes.append("static routes run as ns-2's DSDV (ns-2.35 as packaged has no static wireless routing): "
                     "its updates are routing packets tcplab does not send, and it starts without routes "
                     "(each node's first dump U(0, 2 s) after the start; --settle runs the schedule after that)")
    prop = wl.get("propagation") or {"model": "two_ray_ground"}
    w(f"# WLAN {wl['name']} ({wl['mode']}, ns2_dsss)")
    w(f"Mac/802_11 set dataRate_ {_rate(wl.get('rate', '2Mbps'))}")
    w(f"Mac/802_11 set basicRate_ {_rate(wl.get('basic_rate', '1Mbps'))}")
    rts = size_bytes(wl.get("rts_threshold", "0B"))
    w(f"Mac/802_11 set RTSThreshold_ {rts}")
    for field, var in (("short_retry_limit", "ShortRetryLimit_"), ("long_retry_limit", "LongRetryLimit_"),
                       ("cw_min", "CWMin_"), ("cw_max", "CWMax_")):
        if field in wl:
            w(f"Mac/802_11 set {var} {wl[field]}")
    for field, var in (("slot", "SlotTime_"), ("sifs", "SIFS_")):
        if field in wl:
            w(f"Mac/802_11 set {var} {_num(seconds(wl[field]))}")
    for var, value in _thresholds(prop).items():
        w(f"Phy/WirelessPhy set {var} {value:.6g}")
    if "antenna_height" in prop:
        w(f"Antenna/OmniAntenna set Z_ {_num(_m(prop['antenna_height']))}")
    positions = [(_m(s["position"][0]), _m(s["position"][1])) for s in stations]
    for i, s in enumerate(stations):
        mob = s.get("mobility") or {}
        if mob.get("model") == "waypoints":
            p0 = mob["points"][0]
            positions[i] = (_m(p0[1]), _m(p0[2]))
    shift_x = -min(0.0, *(p[0] for p in positions))
    shift_y = -min(0.0, *(p[1] for p in positions))
    if (shift_x or shift_y) and wl.get("mobility_file"):
        raise refuse(f"wlans.{wl['name']}.stations", "…", "negative coordinates with a setdest file (ns-2's topography starts at 0, 0)")
    if shift_x or shift_y:
        notes.append(f"positions shifted by ({_num(shift_x)} m, {_num(shift_y)} m): ns-2's topography starts at 0, 0")
    max_x = max([p[0] + shift_x for p in positions] + [_waypoint_max(s, 1) + shift_x for s in stations])
    max_y = max([p[1] + shift_y for p in positions] + [_waypoint_max(s, 2) + shift_y for s in stations])
    if wl.get("mobility_file"):
        fx, fy = _file_extent(_mobility_path(wl, base_dir))
        max_x, max_y = max(max_x, fx), max(max_y, fy)
    w("set topo_ [new Topography]")
    w(f"$topo_ load_flatgrid {_num(max(1.0, math.ceil(max_x + 1)))} {_num(max(1.0, math.ceil(max_y + 1)))}")
    w(f"set god_ [create-god {len(stations)}]")
    w("set chan_ [new Channel/WirelessChannel]")
    lossy = [s for s in stations if s.get("loss") or s.get("outage")]
    if lossy:
        w(_ERROR_PROCS)
    ifq = "CMUPriQueue" if agent == "DSR" else "Queue/DropTail/PriQueue"  # ns-2's DSR needs CMUPriQueue
    propagation = "Propagation/FreeSpace" if prop["model"] == "free_space" else "Propagation/TwoRayGround"
    w(f"$ns_ node-config -adhocRouting {agent} -llType LL -macType Mac/802_11 -ifqType {ifq} \\")
    w(f"    -ifqLen {wl.get('queue', 50)} -antType Antenna/OmniAntenna -propType {propagation} \\")
    w("    -phyType Phy/WirelessPhy -channel $chan_ -topoInstance $topo_ \\")
    w("    -agentTrace ON -routerTrace ON -macTrace ON -movementTrace OFF" + (" -wiredRouting ON" if hier else ""))
    schedule: list[str] = []
    for i, s in enumerate(stations):
        if s in lossy:
            w(f"set errp_(in) [list {_num(_station_p(s, 'in'))}]")
            w(f"set errp_(out) [list {_num(_station_p(s, 'out'))}]")
            w("$ns_ node-config -IncomingErrProc in_err_ -OutgoingErrProc out_err_")
        w(f"set node_({i}) [$ns_ node{f' 1.0.{i}' if hier else ''}] ;# {s['node']}")
        if hier and i == 0:
            w("$ns_ node-config -wiredRouting OFF")
        elif hier:
            w(f"$node_({i}) base-station [AddrParams addr2id [$node_(0) node-addr]]")
        if s in lossy:
            w("$ns_ node-config -IncomingErrProc \"\" -OutgoingErrProc \"\"")
            w(f"set em_({i},in) $last_err_(in)")
            w(f"set em_({i},out) $last_err_(out)")
            for start, end in _outages(s.get("outage") or {}, seconds(resolved.get("duration", "3600s"))):
                for d in ("in", "out"):
                    schedule.append(f"$ns_ at {w.at(start)} \"$em_({i},{d}) set rate_ 1\"")
                    schedule.append(f"$ns_ at {w.at(end)} \"$em_({i},{d}) set rate_ {_num(_station_p(s, d))}\"")
        w(f"$node_({i}) random-motion 0")
        x, y = positions[i]
        w(f"$node_({i}) set X_ {_num(x + shift_x)}")
        w(f"$node_({i}) set Y_ {_num(y + shift_y)}")
        w(f"$node_({i}) set Z_ 0")
        mob = s.get("mobility") or {}
        if mob.get("model") == "waypoints":
            schedule += _waypoints(i, mob["points"], shift_x, shift_y, w.at)
    if wl.get("mobility_file"):
        if w.settle_s:
            raise refuse(f"wlans.{wl['name']}.mobility_file", wl["mobility_file"],
                         "its moves are scheduled by the file itself and would not run later with settle; "
                         "settle is for static-route networks (leave it at 0 here)")
        w(f"source {{{_mobility_path(wl, base_dir)}}} ;# setdest file, passed through unchanged")
    for line in schedule:
        w(line)
    phy_default = "phy" if wl.get("phy") == "ns2_dsss" else "frames"
    if any(s.get("loss") and s.get("loss_at", phy_default) == "frames" for s in stations) or (
            any(s.get("outage") for s in stations)):
        notes.append("frame errors and fades use ns-2's error hook between PHY and MAC: they also hit "
                     "RTS, CTS, ACK and broadcast frames (tcplab: loss_at = \"phy\" does the same; "
                     "\"frames\" hits data frames only, and an outage silences the station)")
    if not wl.get("arp", wl.get("phy") == "ns2_dsss"):
        notes.append("ns-2 resolves next hops with ARP (its requests and replies go over the MAC, one packet held per "
                     "next hop); tcplab runs no ARP here (wlans.*.arp = false)")
    if wl["mode"] == "infrastructure":
        notes.append("ns-2 has no BSS here: the AP is an ordinary node and stations reach it directly (no beacons, "
                     "no association)")
    return agent


def _mobility_path(wl: dict[str, Any], base_dir: Path) -> Path:
    path = Path(wl["mobility_file"])
    return path if path.is_absolute() else (base_dir / path).resolve()


def _file_extent(path: Path) -> tuple[float, float]:
    """The largest x and y a setdest file places or sends a node to (ns-2 refuses a setdest
    outside the topography)."""
    import re

    xs, ys = [0.0], [0.0]
    text = path.read_text(encoding="utf-8", errors="replace")
    xs += [float(v) for v in re.findall(r"set X_ ([0-9.eE+-]+)", text)]
    ys += [float(v) for v in re.findall(r"set Y_ ([0-9.eE+-]+)", text)]
    for x, y in re.findall(r"setdest ([0-9.eE+-]+) ([0-9.eE+-]+)", text):
        xs.append(float(x))
        ys.append(float(y))
    return max(xs), max(ys)


def _station_p(s: dict[str, Any], direction: str) -> float:
    loss = s.get("loss")
    if not loss:
        return 0.0
    d = loss.get("direction", "both")
    # a_to_b = frames the station sends (its outgoing hook); b_to_a = frames it receives.
    if d == "both" or (d == "a_to_b" and direction == "out") or (d == "b_to_a" and direction == "in"):
        return float(loss["p"])
    return 0.0


def _waypoint_max(s: dict[str, Any], k: int) -> float:
    mob = s.get("mobility") or {}
    if mob.get("model") != "waypoints":
        return 0.0
    return max(_m(p[k]) for p in mob["points"])


def _waypoints(i: int, points: list[list[str]], sx: float, sy: float, at: Callable[[float], str]) -> list[str]:
    """Straight legs at constant speed: at each point's predecessor's time, setdest to it."""
    out = []
    for prev, cur in zip(points, points[1:]):
        t0, t1 = seconds(prev[0]), seconds(cur[0])
        x0, y0, x1, y1 = _m(prev[1]), _m(prev[2]), _m(cur[1]), _m(cur[2])
        dist = math.hypot(x1 - x0, y1 - y0)
        if dist == 0 or t1 <= t0:
            continue
        out.append(f"$ns_ at {at(t0)} \"$node_({i}) setdest {_num(x1 + sx)} {_num(y1 + sy)} {_num(dist / (t1 - t0))}\"")
    return out


# ------------------------------------------------------------------ flows


def _sender_class(t: dict[str, Any]) -> tuple[str, str]:
    cc, rec = t.get("cc", "reno"), t.get("recovery", "newreno")
    if cc in ("westwood", "cubic", "veno"):
        return "Agent/TCP/Linux", "Agent/TCPSink/Sack1"
    if cc == "vegas":
        return "Agent/TCP/Vegas", "Agent/TCPSink"  # Reno-style recovery, checked in subset.py
    sender = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno", "sack": "Agent/TCP/Sack1"}[rec]
    return sender, "Agent/TCPSink/Sack1" if rec == "sack" else "Agent/TCPSink"


def _flows(w: _Writer, resolved: dict[str, Any], explicit: dict[str, set[str]], lay: _Layout,
           notes: list[str]) -> list[FlowMap]:
    index, tclvar = lay.ids, lay.vars
    ports: dict[int, int] = {}

    def port(i: int) -> int:
        p = ports.get(i, 0)
        ports[i] = p + 1
        return p

    out = []
    for k, f in enumerate(resolved["flows"]):
        start = seconds(f.get("start", "0s"))
        fid = k + 1
        w(f"# flow {f['name']}")
        if f["app"] == "cbr":
            src, dst = index[f["src"]], index[f["dst"]]
            payload = size_bytes(f.get("packet_size", "1000B"))
            w("set src_ [new Agent/UDP]")
            w(f"$src_ set fid_ {fid}")
            w(f"$ns_ attach-agent {tclvar[f['src']]} $src_")
            w("set dst_ [new Agent/Null]")
            w(f"$ns_ attach-agent {tclvar[f['dst']]} $dst_")
            w("$ns_ connect $src_ $dst_")
            w("set app_ [new Application/Traffic/CBR]")
            # ns-2's UDP agent sends packetSize_ as the IP packet's size: payload + UDP + IP headers.
            w(f"$app_ set packetSize_ {payload + 28}")
            w(f"$app_ set rate_ {_rate(f['rate'])}")
            w("$app_ attach-agent $src_")
            w(f"$ns_ at {w.at(start)} \"$app_ start\"")
            if f.get("stop"):
                w(f"$ns_ at {w.at(seconds(f['stop']))} \"$app_ stop\"")
            out.append(FlowMap(f["name"], "cbr", src, port(src), dst, port(dst), fid, payload, None, start + w.settle_s, "Agent/UDP",
                               lay.addrs.get(f["src"], -1), lay.addrs.get(f["dst"], -1)))
            continue
        t = f["tcp"]
        mine = explicit.get(f["name"], set())
        sender, sink = _sender_class(t)
        delack = "delayed_ack" in mine and t.get("delayed_ack")
        if delack:
            sink += "/DelAck"
        src, dst = index[f["server"]], index[f["client"]]
        w(f"set tcp_ [new {sender}]")
        w(f"$tcp_ set fid_ {fid}")
        settings = tcp_settings(t, mine)
        ssthresh = settings.pop("ssthresh_", None)
        payload = int(settings.get("packetSize_", str(NS2_TCP_DEFAULTS["mss"])))
        if sender == "Agent/TCP/Vegas":
            # ns-2.35 tcp-vegas.cc output() sends packetSize_ as the whole packet, where tcp.cc output() adds
            # headersize() (tcpip_base_hdr_size_, 40 B) to it: so Vegas carries `payload` segments in packets
            # of payload + 40 B on the wire, as every other Agent/TCP (and tcplab) does.
            settings["packetSize_"] = str(payload + NS2_TCPIP_HEADER_B)
        for var, value in settings.items():
            w(f"$tcp_ set {var} {value}")
        if sender == "Agent/TCP/Linux" and "timestamps_" not in settings:
            w("$tcp_ set timestamps_ true")  # ns-2.35 TCP/Linux: the RTT samples of its CC modules
        w(f"set sink_ [new {sink}]")
        if delack and "ack_delay" in mine:
            w(f"$sink_ set interval_ {_num(seconds(t['ack_delay']))}")
        if sender == "Agent/TCP/Linux" or t.get("timestamps") and "timestamps" in mine:
            w("$sink_ set ts_echo_rfc1323_ true")
        w(f"$ns_ attach-agent {tclvar[f['server']]} $tcp_")
        w(f"$ns_ attach-agent {tclvar[f['client']]} $sink_")
        w("$ns_ connect $tcp_ $sink_")
        w("$tcp_ attach $tf")
        w("$tcp_ trace nrexmit_")  # ns-2.35 tcp.cc: timeouts with data outstanding
        if sender == "Agent/TCP/Linux":
            w(f"$ns_ at {w.at(0)} \"$tcp_ select_ca {t['cc']}\"")
        if ssthresh is not None:
            # ns-2.35 tcp.cc reset() sets ssthresh_ = window_: once when the agent is created (window_'s class
            # default, 20), and again when `run` resets the nodes -- a wired node resets its agents, a mobile
            # node (ns-mobilenode.tcl) does not. Set after both, at t = 0, the scenario's value holds everywhere.
            w(f"$ns_ at {w.at(0)} \"$tcp_ set ssthresh_ {ssthresh}\"")
        elif tclvar[f["server"]].startswith("$node_("):
            ss = t.get("initial_ssthresh")
            ours = size_bytes(ss) // max(1, size_bytes(t.get("mss", "1460B"))) if isinstance(ss, str) else None
            if ours != 20:
                notes.append(f"flow {f['name']}: ns-2 starts ssthresh_ at 20 packets on a wireless sender (window_'s "
                             "default when the agent is created; a mobile node's reset leaves its agents alone), "
                             f"tcplab at {'no limit' if ours is None else f'{ours} segments'} (tcp.initial_ssthresh)")
        w("set app_ [new Application/FTP]")
        w("$app_ attach-agent $tcp_")
        size = size_bytes(f["size"]) if f["app"] == "bulk_download" else None
        if size is None:
            w(f"$ns_ at {w.at(start)} \"$app_ start\"")
        else:
            w(f"$ns_ at {w.at(start)} \"$app_ send {size}\"")
        out.append(FlowMap(f["name"], "tcp", src, port(src), dst, port(dst), fid, payload, size, start + w.settle_s, sender,
                           lay.addrs.get(f["server"], -1), lay.addrs.get(f["client"], -1)))
    return out
