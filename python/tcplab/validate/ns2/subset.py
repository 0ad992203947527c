"""What the ns-2.35 translation carries, and the refusal of everything else, in the scenario's words.

Every check runs before anything is written or run.  A refusal names the field as the scenario
spells it (``wlans.w.phy = erp_ofdm``) and says why ns-2.35 cannot take it.

TCP fields are carried only when the scenario sets them (its ``[tcp]``, a flow's ``tcp`` table
or a ``--set tcp.…``); every other Agent/TCP variable keeps ns-2.35's own default, so a scenario
written for ``profile = "ns2"`` runs ns-2 as shipped.  ``NS2_TCP_DEFAULTS`` are those defaults,
read from ns-2.35 itself (``ns`` prints ``[Agent/TCP set window_]`` etc.; ns-default.tcl).
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from ..units import rate_bps, seconds, size_bytes
from . import Untranslatable

#: ns-2.35 Agent/TCP and TCPSink defaults (ns-default.tcl), in tcplab's terms.
NS2_TCP_DEFAULTS: dict[str, Any] = {
    "mss": 1000,  # packetSize_ 1000
    "window_segments": 20,  # window_ 20
    "initial_window": 2,  # windowInit_ 2, windowInitOption_ 1
    "timer_tick_s": 0.01,  # tcpTick_ 0.01
    "rto_min_s": 0.2,  # minrto_ 0.2
    "rto_max_s": 60.0,  # maxrto_ 60
    "rto_initial_s": 3.0,  # rtxcur_init_ 3.0
    "dupack_threshold": 3,  # numdupacks_ 3
    "limited_transmit": True,  # singledup_ 1
    "timestamps": False,  # timestamps_ false
    "delayed_ack": False,  # TCPSink acknowledges every packet
}

#: ns-2.35 ns-default.tcl: Agent/TCP tcpip_base_hdr_size_ 40, the headers tcp.cc output() adds to packetSize_.
NS2_TCPIP_HEADER_B = 40

#: Settings that name what ns-2.35's Agent/TCP does anyway, without a variable to set: NewReno's
#: cwnd = ssthresh on a full ACK (tcp-newreno.cc with newreno_changes_ 0), no extensions, no SACK.
NS2_FIXED = {("full_ack", "ssthresh"), ("extensions", ()), ("sack", False)}

#: TCP fields with an Agent/TCP (or sink) equivalent: carried when the scenario sets them.
CARRIED_TCP = {
    "mss", "rcv_buf", "initial_window", "timer_tick", "clock_granularity", "rto_min", "rto_max",
    "rto_initial", "dupack_threshold", "limited_transmit", "timestamps", "delayed_ack", "ack_delay",
    "variant", "recovery", "cc", "sack", "profile", "window_unit", "ca_mode", "initial_ssthresh", "vegas", "veno",
}

#: WLAN fields the translation carries (everything else present in a resolved WLAN is refused).
CARRIED_WLAN = {
    "name", "mode", "phy", "rate", "ap", "propagation", "rts_threshold", "queue", "short_retry_limit",
    "long_retry_limit", "cw_min", "cw_max", "slot", "sifs", "basic_rate", "routing", "mobility_file",
    "position_update", "stations", "reception",
    # ns-2's node always runs ARP: `arp = false` runs (a listed difference), for measuring it.
    "arp",
}

#: Routing protocols: tcplab's name -> ns-2.35's ad hoc routing agent.
ROUTING = {"aodv": "AODV", "dsr": "DSR", "dsdv": "DSDV", "static": "DSDV"}


def refuse(field: str, value: Any, why: str) -> Untranslatable:
    shown = value if isinstance(value, str) else json.dumps(value)
    return Untranslatable(f"`{field} = {shown}`: {why}")


def explicit_tcp(text: str, fmt: str, overrides: list[tuple[str, str]], flows: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Per flow name, the TCP fields the scenario itself sets (file or ``--set``), not defaults."""
    raw = tomllib.loads(text) if fmt == "toml" else json.loads(text)
    glob = set((raw.get("tcp") or {}).keys())
    by_name = {f.get("name"): set((f.get("tcp") or {}).keys()) for f in raw.get("flows") or []}
    for path, _ in overrides:
        parts = path.split(".")
        if parts[0] == "tcp" and len(parts) > 1:
            glob.add(parts[1])
        elif parts[0] == "flows" and len(parts) > 3 and parts[2] == "tcp":
            # A flow by name or, as --set also allows, by its index in the list.
            name = flows[int(parts[1])]["name"] if parts[1].isdigit() and int(parts[1]) < len(flows) else parts[1]
            by_name.setdefault(name, set()).add(parts[3])
    return {f["name"]: glob | by_name.get(f["name"], set()) for f in flows}


def check(resolved: dict[str, Any], explicit: dict[str, set[str]]) -> None:
    """Raise :class:`Untranslatable` at the first field the translation cannot carry."""
    wlans = resolved.get("wlans") or []
    links = resolved.get("links") or []
    if resolved.get("agents"):
        raise refuse("agents", resolved["agents"][0]["kind"], "in-network agents have no ns-2.35 counterpart")
    if len(wlans) > 1:
        raise refuse(f"wlans.{wlans[1]['name']}", "…", "the translation takes one WLAN (ns-2 sets the 802.11 MAC per class)")
    if wlans and links:
        w = wlans[0]
        stations = {s["node"] for s in w["stations"]}
        if w["mode"] != "infrastructure":
            raise refuse(f"wlans.{w['name']}.mode", w["mode"], "with wired links, ns-2's WLAN is a base station's (mode = infrastructure)")
        if w.get("mobility_file"):
            raise refuse(f"wlans.{w['name']}.mobility_file", w["mobility_file"], "translated for WLANs without wired links")
        for link in links:
            for end in ("a", "b"):
                if link[end] in stations and link[end] != w.get("ap"):
                    raise refuse(f"links.{link.get('name') or link['a'] + '-' + link['b']}.{end}", link[end],
                                 "only the AP (ns-2's base station) of the WLAN may have wired links")
    for link in links:
        _check_link(link)
    for w in wlans:
        _check_wlan(w)
    if not resolved.get("flows"):
        raise refuse("flows", [], "nothing to compare: the scenario has no flow")
    for f in resolved["flows"]:
        _check_flow(f, explicit.get(f["name"], set()))


def _check_link(link: dict[str, Any]) -> None:
    name = link.get("name") or f"{link['a']}-{link['b']}"
    q = link.get("queue") or {"kind": "droptail", "packets": 50}
    if q["kind"] == "droptail" and q.get("bytes") is not None:
        raise refuse(f"links.{name}.queue.bytes", q["bytes"], "ns-2's DropTail here is limited in packets; give `packets`")
    if q["kind"] == "red" and q.get("mark_at_max_th"):
        raise refuse(f"links.{name}.queue.mark_at_max_th", True, "ns-2.35's RED has no marking at max_th")
    loss = link.get("loss")
    if loss and loss["model"] == "gilbert_elliott":
        good, bad = loss.get("loss_good", 0.0) or 0.0, loss.get("loss_bad", 1.0)
        if bad is None:
            bad = 1.0
        if good != 0.0 or bad != 1.0:
            raise refuse(
                f"links.{name}.loss.loss_good", [good, bad],
                "ns-2's ErrorModel/TwoState loses all packets in its bad state and none in its good state",
            )


def _check_wlan(w: dict[str, Any]) -> None:
    n = w["name"]
    for field in w:
        if field not in CARRIED_WLAN:
            raise refuse(f"wlans.{n}.{field}", w[field], "not carried into ns-2.35's Mac/802_11 and Phy/WirelessPhy")
    phy = w.get("phy", "hr_dsss")
    if phy != "ns2_dsss":
        why = "ns-2.35 has no OFDM PHY" if "ofdm" in phy else "ns-2.35's Mac/802_11 models only the ns2_dsss PHY"
        raise refuse(f"wlans.{n}.phy", phy, why)
    if w.get("reception", "threshold") not in ("threshold", {"model": "threshold"}):
        raise refuse(f"wlans.{n}.reception", w["reception"], "ns-2.35's WirelessPhy receives by thresholds only")
    prop = w.get("propagation") or {"model": "two_ray_ground"}
    if prop["model"] not in ("two_ray_ground", "free_space"):
        raise refuse(f"wlans.{n}.propagation.model", prop["model"], "translated: two_ray_ground, free_space")
    for field in ("exponent", "reference_distance", "reference_loss_db", "shadowing_db"):
        if field in prop:
            raise refuse(f"wlans.{n}.propagation.{field}", prop[field], "a log-distance parameter; ns-2's TwoRayGround/FreeSpace have none")
    rate = rate_bps(w.get("rate", "2Mbps"))
    if rate not in (1e6, 2e6, 5.5e6, 11e6):
        raise refuse(f"wlans.{n}.rate", w["rate"], "ns2_dsss rates are 1, 2, 5.5 and 11 Mb/s")
    routing = w.get("routing") or {"protocol": "static"}
    proto = routing["protocol"]
    if proto not in ROUTING:
        raise refuse(f"wlans.{n}.routing.protocol", proto, f"translated: {', '.join(ROUTING)}")
    if proto != "static" and routing.get("preset") != "ns2":
        raise refuse(
            f"wlans.{n}.routing.preset", routing.get("preset", "rfc"),
            "ns-2.35's agents run their compiled-in constants: use preset = \"ns2\"",
        )
    for field, value in routing.items():
        if field not in ("protocol", "preset"):
            raise refuse(
                f"wlans.{n}.routing.{field}", value,
                f"ns-2.35's {ROUTING[proto]} has this fixed at compile time (its ns2 preset value)",
            )
    if w.get("mobility_file") and len(w["stations"]) == 0:
        raise refuse(f"wlans.{n}.mobility_file", w["mobility_file"], "no stations to move")
    for st in w["stations"]:
        _check_station(n, st)


def _check_station(wlan: str, st: dict[str, Any]) -> None:
    where = f"wlans.{wlan}.stations.{st['node']}"
    mob = st.get("mobility") or {"model": "static"}
    if mob["model"] == "random_waypoint":
        raise refuse(
            f"{where}.mobility.model", "random_waypoint",
            "ns-2 draws its own random waypoints; write the motion with setdest and give the WLAN a mobility_file",
        )
    loss = st.get("loss")
    if loss:
        if st.get("loss_at", "frames") == "packets":
            raise refuse(
                f"{where}.loss_at", st["loss_at"],
                "ns-2's node-config error hook sits between PHY and MAC (every frame); there is none above the MAC",
            )
        if loss["model"] != "bernoulli":
            raise refuse(f"{where}.loss.model", loss["model"], "the wireless error hook is translated for Bernoulli frame errors only")
    out = st.get("outage") or {}
    if out.get("every"):
        raise refuse(f"{where}.outage.every", out["every"], "translated: explicit outage intervals")


def _check_flow(f: dict[str, Any], explicit: set[str]) -> None:
    n = f["name"]
    if f["app"] == "cbr":
        return
    t = f["tcp"]
    if t.get("extensions"):
        raise refuse(f"flows.{n}.tcp.extensions", t["extensions"], "ns-2.35's Agent/TCP has none of tcplab's extensions")
    cc, rec = t.get("cc", "reno"), t.get("recovery", "newreno")
    if cc not in ("reno", "westwood", "cubic", "vegas", "veno"):
        raise refuse(f"flows.{n}.tcp.cc", cc,
                     "translated: reno (Agent/TCP/*), vegas (Agent/TCP/Vegas), westwood, cubic and veno "
                     "(Agent/TCP/Linux)")
    if cc == "vegas":
        _check_vegas(n, t, rec)
    if cc == "veno" and "veno" in explicit and (t.get("veno") or {}).get("beta", 3) != 3:
        raise refuse(f"flows.{n}.tcp.veno.beta", t["veno"]["beta"],
                     "ns-2.35's Agent/TCP/Linux runs tcp_veno with its built-in beta of 3 segments")
    if cc == "reno" and rec not in ("reno", "newreno", "sack"):
        raise refuse(f"flows.{n}.tcp.recovery", rec, "translated: reno, newreno, sack (Agent/TCP/Reno, /Newreno, /Sack1)")
    if t.get("ecn"):
        raise refuse(f"flows.{n}.tcp.ecn", True, "not carried (ns-2's ECN needs RED queues with setbit_)")
    if "delayed_ack" in explicit and t.get("delayed_ack") and t.get("ack_every", 2) != 2:
        raise refuse(f"flows.{n}.tcp.ack_every", t["ack_every"], "ns-2's TCPSink/DelAck acknowledges every second packet")


def _check_vegas(n: str, t: dict[str, Any], rec: str) -> None:
    """ns-2.35's Agent/TCP/Vegas: Reno-style recovery, integer α/β/γ (``v_alpha_`` … are ints), and
    the fine-grained retransmission always on (tcp-vegas.cc has no switch for it)."""
    if rec != "reno":
        raise refuse(f"flows.{n}.tcp.recovery", rec, "Agent/TCP/Vegas recovers as Reno: set recovery (or variant) = reno")
    v = t.get("vegas") or {}
    for key in ("alpha", "beta", "gamma"):
        if key in v and float(v[key]) != int(v[key]):
            raise refuse(f"flows.{n}.tcp.vegas.{key}", v[key], "Agent/TCP/Vegas takes whole segments (v_alpha_, v_beta_, v_gamma_ are ints)")
    if v.get("fine_retransmit") is False:
        raise refuse(f"flows.{n}.tcp.vegas.fine_retransmit", False,
                     "Agent/TCP/Vegas always runs the fine-grained retransmission (no switch in tcp-vegas.cc)")


def tcp_settings(t: dict[str, Any], explicit: set[str]) -> dict[str, str]:
    """The Agent/TCP (and sink) variables a flow sets: only what the scenario sets itself."""
    out: dict[str, str] = {}
    mss = size_bytes(t.get("mss", "1460B"))
    if "mss" in explicit:
        out["packetSize_"] = str(mss)
    if "rcv_buf" in explicit:
        # ns-2's window_ is the receiver's advertised window, in packets.
        out["window_"] = str(max(1, size_bytes(t["rcv_buf"]) // mss))
    if "initial_window" in explicit:
        iw = t["initial_window"]
        if iw == "rfc3390":
            out["windowInitOption_"] = "2"  # ns-2.35 tcp.cc: option 2 = RFC 3390's rule
        else:
            out["windowInitOption_"] = "1"
            out["windowInit_"] = str(int(iw))
    if "timer_tick" in explicit and seconds(t["timer_tick"]) > 0:
        out["tcpTick_"] = _num(seconds(t["timer_tick"]))
    elif "clock_granularity" in explicit:
        out["tcpTick_"] = _num(seconds(t["clock_granularity"]))
    for field, var in (("rto_min", "minrto_"), ("rto_max", "maxrto_"), ("rto_initial", "rtxcur_init_")):
        if field in explicit:
            out[var] = _num(seconds(t[field]))
    if "dupack_threshold" in explicit:
        out["numdupacks_"] = str(t["dupack_threshold"])
    if "limited_transmit" in explicit:
        out["singledup_"] = "1" if t["limited_transmit"] else "0"  # ns-2.35 tcp.cc: limited transmit
    if "timestamps" in explicit:
        out["timestamps_"] = "true" if t["timestamps"] else "false"
    if "initial_ssthresh" in explicit:
        # Written by tcl.py as a set at t = 0 (after every reset; see tcl._flows).
        out["ssthresh_"] = str(max(1, size_bytes(t["initial_ssthresh"]) // mss))
    if t.get("cc") == "vegas" and "vegas" in explicit:
        v = t.get("vegas") or {}
        for key in ("alpha", "beta", "gamma"):  # ns-2.35 tcp-vegas.cc: v_alpha_, v_beta_, v_gamma_
            if key in v:
                out[f"v_{key}_"] = str(int(v[key]))
    return out


def not_carried(t: dict[str, Any], explicit: set[str]) -> list[str]:
    """Fields the scenario sets that the translation leaves at ns-2's behaviour."""
    out = []
    for field in sorted(explicit - CARRIED_TCP - {"initial_ssthresh"}):
        value = t.get(field)
        if (field, tuple(value) if isinstance(value, list) else value) in NS2_FIXED:
            continue  # what ns-2 does anyway
        if field == "window_scaling" and size_bytes(t.get("rcv_buf", "0B")) <= 65535:
            continue  # no window above 64 KiB to scale
        out.append(f"tcp.{field} = {t.get(field)} (ns-2's Agent/TCP has no such setting)")
    if "window_unit" in explicit and t.get("window_unit") == "bytes":
        out.append("tcp.window_unit = bytes (ns-2 counts windows in packets)")
    if "ca_mode" in explicit and t.get("ca_mode") == "byte_counting":
        out.append("tcp.ca_mode = byte_counting (ns-2 grows cwnd per ACK)")
    return out


def profile_differences(t: dict[str, Any], explicit: set[str]) -> list[str]:
    """Where tcplab's profile (for fields the scenario leaves unset) differs from ns-2's defaults."""
    d = NS2_TCP_DEFAULTS
    mss = size_bytes(t.get("mss", "1460B"))
    mine: list[tuple[str, Any, Any, str]] = [
        ("mss", mss, d["mss"], "packetSize_"),
        ("rcv_buf", size_bytes(t.get("rcv_buf", "0B")) // max(1, mss), d["window_segments"], "window_ (packets)"),
        ("initial_window", t.get("initial_window"), d["initial_window"], "windowInit_"),
        ("timer_tick", seconds(t.get("timer_tick", "0s")), d["timer_tick_s"], "tcpTick_"),
        ("rto_min", seconds(t.get("rto_min", "1s")), d["rto_min_s"], "minrto_"),
        ("rto_max", seconds(t.get("rto_max", "60s")), d["rto_max_s"], "maxrto_"),
        ("rto_initial", seconds(t.get("rto_initial", "1s")), d["rto_initial_s"], "rtxcur_init_"),
        ("dupack_threshold", t.get("dupack_threshold"), d["dupack_threshold"], "numdupacks_"),
        ("limited_transmit", t.get("limited_transmit"), d["limited_transmit"], "singledup_"),
        ("timestamps", t.get("timestamps"), d["timestamps"], "timestamps_"),
        ("delayed_ack", t.get("delayed_ack"), d["delayed_ack"], "TCPSink (no delayed ACK)"),
    ]
    out = []
    for field, ours, theirs, var in mine:
        if field in explicit:
            continue
        if field == "rcv_buf":
            ours = f"{ours} segments"
            theirs = f"{theirs} segments"
        if str(ours) != str(theirs) and not (isinstance(ours, float) and abs(ours - float(theirs)) < 1e-12):
            out.append(f"tcp.{field}: tcplab {_show(ours)}, ns-2 {var} {_show(theirs)}")
    if t.get("window_unit", "bytes") == "bytes":
        out.append("tcp.window_unit: tcplab bytes, ns-2 packets")
    if t.get("ca_mode", "byte_counting") == "byte_counting":
        out.append("tcp.ca_mode: tcplab byte_counting, ns-2 per ACK")
    return out


def _show(v: Any) -> str:
    if isinstance(v, float):
        return _num(v) + " s"
    return str(v)


def _num(x: float) -> str:
    """A number as Tcl reads it: shortest round-trip form, no trailing zeros."""
    return repr(float(x)).removesuffix(".0") if float(x) != int(x) else str(int(x))
