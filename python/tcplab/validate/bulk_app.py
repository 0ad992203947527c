"""The bulk-download application on real sockets, run inside a node's namespace.

The scenario's ``bulk_download``: the client connects, sends a request of ``request`` bytes, the
server answers with ``size`` bytes and closes.  Standard library only, and run as a script
(``python bulk_app.py server|client …``), so it starts quickly and needs nothing from tcplab.

The server samples the sending socket's ``TCP_INFO`` (tcp(7)) every ``--interval`` seconds:
cwnd, ssthresh, RTO, congestion state, backoff and retransmission counters; it also reads the
namespace's ``TcpExtTCPTimeouts`` counter (/proc/net/netstat) before and after, the exact RTO
count, and CUBIC's HyStart counters (which test ended slow start, at what cwnd).  The client records its in-order progress.  Both write JSON; times are CLOCK_MONOTONIC
in nanoseconds, the emulators' clock.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

TCP_INFO = 11
TCP_CONGESTION = 13
PR_SET_PDEATHSIG = 1
# Offsets in struct tcp_info (include/uapi/linux/tcp.h): u8 fields first, then u32s from byte 8.
_U8 = {"state": 0, "ca_state": 1, "retransmits": 2, "probes": 3, "backoff": 4}
_U32 = {
    "rto_us": 8,
    "snd_mss": 16,
    "unacked": 24,
    "lost": 32,
    "retrans": 36,
    "rtt_us": 68,
    "rttvar_us": 72,
    "snd_ssthresh": 76,
    "snd_cwnd": 80,
    "total_retrans": 100,
}
_INFO_LEN = 104


def die_with_parent() -> None:
    """A killed controller takes its applications with it (prctl(2) PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def tcp_info(sock: socket.socket) -> dict[str, int]:
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, _INFO_LEN)
    info = {k: raw[o] for k, o in _U8.items()}
    info.update({k: struct.unpack_from("=I", raw, o)[0] for k, o in _U32.items()})
    return info


def netstat(name: str) -> int:
    """A TcpExt counter of this namespace."""
    with open("/proc/net/netstat", encoding="ascii") as f:
        lines = f.read().splitlines()
    for head, values in zip(lines[::2], lines[1::2]):
        if head.startswith("TcpExt:"):
            fields = dict(zip(head.split()[1:], values.split()[1:]))
            return int(fields.get(name, 0))
    return 0


def server(args: argparse.Namespace) -> None:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, args.cc.encode())
    ls.bind((args.addr, args.port))
    ls.listen(1)
    print("listening", flush=True)
    timeouts_before = netstat("TCPTimeouts")
    hystart_before = {k: netstat(k) for k in HYSTART}
    conn, _ = ls.accept()
    got = 0
    while got < args.request:
        chunk = conn.recv(args.request - got)
        if not chunk:
            break
        got += len(chunk)
    samples: list[list[int]] = []
    done = threading.Event()

    def sample() -> None:
        # Until the last byte is acknowledged (or the peer is gone).
        while True:
            info = tcp_info(conn)
            samples.append([time.monotonic_ns(), *(info[k] for k in FIELDS)])
            if done.is_set() and (info["unacked"] == 0 or info["state"] != 1):
                return
            time.sleep(args.interval)

    sampler = threading.Thread(target=sample)
    sampler.start()
    block = bytes(65536)
    left = args.size
    while left > 0:
        left -= conn.send(block[: min(left, len(block))])
    done.set()
    sampler.join()
    result = {
        "fields": ["t_ns", *FIELDS],
        "samples": samples,
        "timeouts": netstat("TCPTimeouts") - timeouts_before,
        "hystart": {k: netstat(k) - v for k, v in hystart_before.items()},
        "final": tcp_info(conn),
    }
    conn.close()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f)


# tcp_cubic's exits from slow start: how many by the ACK-train and the delay test, and the
# cwnd summed over them (the namespace holds this one connection).
HYSTART = ["TCPHystartTrainDetect", "TCPHystartTrainCwnd", "TCPHystartDelayDetect", "TCPHystartDelayCwnd"]
FIELDS = ["snd_cwnd", "snd_ssthresh", "rto_us", "ca_state", "backoff", "total_retrans", "unacked", "rtt_us"]


def client(args: argparse.Namespace) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if args.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    print("ready", flush=True)
    start_at = int(sys.stdin.readline())
    delay = (start_at - time.monotonic_ns()) / 1e9
    if delay > 0:
        time.sleep(delay)
    t_syn = time.monotonic_ns()
    s.connect((args.server, args.port))
    s.sendall(bytes(args.request))
    total, progress, last = 0, [[t_syn, 0]], 0
    buf = bytearray(1 << 16)
    while total < args.size:
        n = s.recv_into(buf)
        if n == 0:
            break
        total += n
        now = time.monotonic_ns()
        # In-order progress, at most one sample a millisecond.
        if now - last >= 1_000_000:
            progress.append([now, total])
            last = now
    t_done = time.monotonic_ns()
    progress.append([t_done, total])
    s.close()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"t_syn_ns": t_syn, "t_done_ns": t_done, "bytes": total, "progress": progress}, f)


def main() -> None:
    die_with_parent()
    p = argparse.ArgumentParser(prog="bulk_app")
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("server")
    s.add_argument("--addr", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cc", required=True)
    s.add_argument("--size", type=int, required=True)
    s.add_argument("--request", type=int, required=True)
    s.add_argument("--interval", type=float, default=0.002)
    s.add_argument("--out", required=True)
    c = sub.add_parser("client")
    c.add_argument("--server", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--size", type=int, required=True)
    c.add_argument("--request", type=int, required=True)
    c.add_argument("--rcvbuf", type=int, default=0)
    c.add_argument("--out", required=True)
    args = p.parse_args()
    server(args) if args.role == "server" else client(args)


if __name__ == "__main__":
    main()
