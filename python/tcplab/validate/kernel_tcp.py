"""The scenario's ``[tcp]`` table as Linux settings, and the list of what Linux cannot match.

Per-namespace sysctls (every ``net.ipv4.tcp_*`` below is per network namespace on current
kernels), route attributes (``initcwnd``, ``rto_min``, ``quickack``: ip-route(8)) and socket
options (``TCP_CONGESTION``, ``SO_RCVBUF``: tcp(7), socket(7)).  Anything the kernel does
differently and cannot be told otherwise is listed, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .units import seconds, size_bytes

# Linux's congestion-control modules for the scenario's `cc` names.
_CC = {"reno": "reno", "cubic": "cubic"}
# TCP_RTO_MAX in the kernel (include/net/tcp.h): 120 s, not configurable.
LINUX_RTO_MAX_S = 120.0
# The skb truesize of one full segment on the emulator's TUN devices (2304 B), beyond the model's 1460-byte
# payload: read from the window the kernel offers (docs/validation/linux.md).
LINUX_RCV_OVERHEAD = 844
# tcp_cubic's HyStart module parameters: global to the kernel (not per namespace), so the real
# run keeps the machine's values and a scenario that differs is listed as not matched.
CUBIC_PARAMS = Path("/sys/module/tcp_cubic/parameters")
_DETECT = {"ack_train": 1, "delay": 2, "both": 3}


def cubic_params(root: Path = CUBIC_PARAMS) -> dict[str, int]:
    """The running kernel's tcp_cubic module parameters (empty when the module is not there)."""
    out = {}
    for name in ("hystart", "hystart_detect", "hystart_low_window", "hystart_ack_delta_us"):
        try:
            out[name] = int((root / name).read_text().strip())
        except (OSError, ValueError):
            pass
    return out


@dataclass
class KernelTcp:
    sysctls: dict[str, str] = field(default_factory=dict)
    route_attrs: list[str] = field(default_factory=list)
    congestion_control: str = "reno"
    rcvbuf: int | None = None
    mtu: int = 1500
    unmatched: list[str] = field(default_factory=list)


def kernel_tcp(tcp: dict[str, Any], cubic: dict[str, int] | None = None) -> KernelTcp:
    """``cubic``: the kernel's tcp_cubic module parameters (:func:`cubic_params`), to compare
    HyStart's settings against."""
    k = KernelTcp()
    miss = k.unmatched.append
    ts, sack = bool(tcp.get("timestamps")), bool(tcp.get("sack"))
    rack = str(tcp.get("recovery")) == "rack"
    k.sysctls.update(
        {
            "net.ipv4.tcp_sack": str(int(sack)),
            "net.ipv4.tcp_timestamps": str(int(ts)),
            "net.ipv4.tcp_window_scaling": str(int(bool(tcp.get("window_scaling", True)))),
            "net.ipv4.tcp_ecn": str(int(bool(tcp.get("ecn")))),
            # RACK (RFC 8985 §6), its tail loss probe (§7), DSACK (RFC 2883) and F-RTO (RFC 5682,
            # 2 = the SACK-enhanced variant) follow the scenario's switches (ip-sysctl.rst).
            "net.ipv4.tcp_dsack": str(int(bool(tcp.get("dsack")))),
            "net.ipv4.tcp_frto": str(2 if tcp.get("frto") else 0),
            "net.ipv4.tcp_recovery": "1" if rack else "0",
            # tcp_early_retrans: 3 enables TLP, 0 disables it.
            "net.ipv4.tcp_early_retrans": "3" if tcp.get("tlp") else "0",
            "net.ipv4.tcp_reordering": str(int(tcp.get("dupack_threshold", 3))),
            "net.ipv4.tcp_slow_start_after_idle": str(int(bool(tcp.get("restart_after_idle")))),
            "net.ipv4.tcp_retries2": str(int(tcp.get("max_retransmissions", 15))),
            # Every run starts from nothing: no metrics cached from an earlier connection.
            "net.ipv4.tcp_no_metrics_save": "1",
            "net.ipv4.tcp_autocorking": "0",
        }
    )
    cc = str(tcp.get("cc", "reno"))
    if cc in _CC:
        k.congestion_control = _CC[cc]
    else:
        miss(f"tcp.cc = {cc!r}: Linux has no such module here; the real run uses reno")
    # MSS: the link MTU carries exactly one MSS of payload plus IP and TCP headers (RFC 9293
    # §3.7.1); with timestamps Linux keeps the MSS and puts 12 option bytes inside it.
    mss = size_bytes(tcp.get("mss", "1460B"))
    k.mtu = mss + 40
    if ts:
        miss(f"tcp.mss = {mss} B with timestamps: Linux's segments carry {mss - 12} payload bytes")
    iw = tcp.get("initial_window", "rfc3390")
    # RFC 3390: min(4·MSS, max(2·MSS, 4380 B)).
    iw_segments = min(4, max(2, 4380 // mss)) if iw == "rfc3390" else int(iw)
    k.route_attrs += ["initcwnd", str(iw_segments)]
    rto_min = seconds(tcp.get("rto_min", "200ms"))
    k.route_attrs += ["rto_min", f"{round(rto_min * 1000)}ms"]
    if not tcp.get("delayed_ack", True):
        # ip-route(8): quickack disables delayed ACKs for the route.
        k.route_attrs += ["quickack", "1"]
    else:
        miss(
            f"tcp.ack_delay = {tcp.get('ack_delay')}: Linux's delayed-ACK timer adapts (40 ms to 200 ms) "
            "and starts in quick-ack mode"
        )
        if not tcp.get("quickack"):
            miss(
                "tcp.quickack = false: Linux's receiver ACKs every segment in quick-ACK mode (up to 16 "
                "ACKs at the start, after idle and duplicates, and while its window grows)"
            )
    if not tcp.get("rcv_wnd_growth"):
        miss(
            "tcp.rcv_wnd_growth = false: Linux's window starts at the buffer's in whole segments and grows "
            "two MSS per segment inside the buffer (rcv_ssthresh), its buffer counted in skb truesize"
        )
    elif size_bytes(tcp.get("rcv_overhead", LINUX_RCV_OVERHEAD)) != LINUX_RCV_OVERHEAD:
        miss(
            f"tcp.rcv_overhead = {tcp.get('rcv_overhead')}: the kernel charges each segment its skb's truesize, "
            "2304 B per full segment on the emulator's TUN devices (844 B beyond 1460)"
        )
    if tcp.get("rcv_buf_autotune"):
        # ip-sysctl tcp_moderate_rcvbuf / tcp_rmem: the kernel sizes the receive buffer itself,
        # from tcp_rmem's default up to its maximum (6 MiB); SO_RCVBUF would stop it. The default
        # is twice the window (131072 B "results in initial window of 65535").
        k.sysctls["net.ipv4.tcp_moderate_rcvbuf"] = "1"
        k.sysctls["net.ipv4.tcp_rmem"] = f"4096 {2 * size_bytes(tcp.get('rcv_buf', 65535))} 6291456"
    elif tcp.get("rcv_buf") is not None:
        # socket(7): the kernel doubles SO_RCVBUF; with tcp_adv_win_scale = 1 half of it is
        # advertised, so the window offered is the scenario's receive buffer.
        k.rcvbuf = size_bytes(tcp["rcv_buf"])
    rto_max = seconds(tcp.get("rto_max", "1min"))
    if rto_max != LINUX_RTO_MAX_S:
        miss(f"tcp.rto_max = {tcp.get('rto_max')}: Linux's is fixed at 120 s")
    rto_initial = seconds(tcp.get("rto_initial", "1s"))
    if rto_initial != 1.0:
        miss(f"tcp.rto_initial = {tcp.get('rto_initial')}: Linux's is fixed at 1 s (RFC 6298)")
    if tcp.get("clock_granularity"):
        miss(
            f"tcp.clock_granularity = {tcp.get('clock_granularity')}: Linux's RTO is srtt + max(4·rttvar, rto_min) "
            "in microseconds, rttvar decaying over one RTT (not RFC 6298's G term)"
        )
    if not tcp.get("limited_transmit", False):
        miss("tcp.limited_transmit = false: Linux always sends new data on the first two duplicate ACKs (RFC 3042)")
    if str(tcp.get("recovery")) in ("newreno", "reno", "sack"):
        miss(
            f"tcp.recovery = {tcp.get('recovery')!r}: Linux sets cwnd during recovery by PRR (RFC 6937) "
            "and undoes spurious recoveries"
        )
    if tcp.get("ca_mode") == "byte_counting" or tcp.get("abc_limit") not in (None, 2):
        miss(
            f"tcp.ca_mode = {tcp.get('ca_mode')!r}, abc_limit = {tcp.get('abc_limit')}: Linux grows cwnd by "
            "the segments each ACK covers, in segments (no byte counting limit)"
        )
    if k.congestion_control == "cubic":
        _hystart(tcp, cubic or {}, miss)
        if not tcp.get("cubic_min_growth"):
            miss("tcp.cubic_min_growth = false: Linux's CUBIC grows at least 5 % per round trip until its first loss "
                 "and after each timeout")
    if rack and not tcp.get("rack_after_rto"):
        miss("tcp.rack_after_rto = false: in its Loss state after a timeout Linux starts a recovery when RACK finds a "
             "retransmission lost, instead of waiting for the next timeout")
    if ts and not tcp.get("timestamp_undo"):
        miss("tcp.timestamp_undo = false: Linux undoes a reduction when the timestamp echo shows the original arrived (RFC 3522)")
    if not tcp.get("undo"):
        miss("tcp.undo = false: Linux always undoes a reduction that DSACKs or timestamps show spurious")
    for ext in _ext(tcp):
        miss(f"tcp.extensions: {ext!r} has no Linux counterpart")
    return k


def _hystart(tcp: dict[str, Any], cubic: dict[str, int], miss: Any) -> None:
    """HyStart's switches against tcp_cubic's module parameters (global: only listed)."""
    if not tcp.get("hystart"):
        miss("tcp.hystart = false: Linux's CUBIC runs HyStart (module parameter hystart = 1, for every namespace)")
        return
    want = {
        "hystart_detect": _DETECT.get(str(tcp.get("hystart_detect", "both")), 3),
        "hystart_low_window": int(tcp.get("hystart_low_window", 16)),
        "hystart_ack_delta_us": round(seconds(tcp.get("hystart_ack_delta", "2ms")) * 1e6),
    }
    for name, value in want.items():
        have = cubic.get(name)
        if have is not None and have != value:
            miss(
                f"tcp.{name.removesuffix('_us')} = {tcp.get(name.removesuffix('_us'))}: "
                f"this kernel's tcp_cubic has {name} = {have} (a module parameter, the same for every namespace)"
            )


def _ext(tcp: dict[str, Any]) -> set[str]:
    return {str(e if isinstance(e, str) else e.get("kind", e)) for e in tcp.get("extensions") or []}
