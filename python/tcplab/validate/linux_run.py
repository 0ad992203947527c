"""One real run: namespaces, emulators, addresses, routes, kernel settings, the application,
and cleanup whatever happens (an error, Ctrl-C, SIGTERM; a SIGKILL's leftovers are removed by the
next run, see :func:`.netns.remove_stale`)."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import ValidateError
from .emulator import Emulator
from .kernel_tcp import KernelTcp, cubic_params, kernel_tcp
from .netns import Namespaces, check_permitted, ip, remove_stale
from .topology import Topology
from .units import seconds, size_bytes

BULK_APP = Path(__file__).with_name("bulk_app.py")
PORT = 5001
# Where the real run is given up (the scenario's own duration caps it too).
DEFAULT_TIMEOUT_S = 600.0


@dataclass
class RealRun:
    """What the real run measured; times are seconds from the emulators' time zero."""

    t0_ns: int
    client: dict[str, Any]
    server: dict[str, Any]
    links: list[dict[str, Any]]
    pcaps: list[Path]
    unmatched: list[str] = field(default_factory=list)
    finished: bool = True


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C, so every ``finally`` and ``__exit__`` below runs."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def supported(resolved: dict[str, Any]) -> dict[str, Any]:
    """The one flow a real run can reproduce, or a ValidateError naming the field."""
    if resolved.get("wlans"):
        raise ValidateError("wlans: validate linux emulates wired links only; remove the WLANs")
    flows = resolved.get("flows") or []
    if len(flows) != 1:
        raise ValidateError(f"flows: validate linux runs exactly one flow, this scenario has {len(flows)}")
    flow = flows[0]
    if flow.get("app") != "bulk_download":
        raise ValidateError(f"flows.{flow.get('name')}.app: validate linux runs \"bulk_download\" only")
    return flow


def _kill(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _spawn(prefix: list[str], args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*prefix, sys.executable, "-I", str(BULK_APP), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _expect(proc: subprocess.Popen[str], word: str, who: str) -> None:
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != word:
        _kill(proc)
        err = proc.stderr.read() if proc.stderr else ""
        raise ValidateError(f"the {who} did not start: {err.strip()[-400:]}")


def configure(ns: Namespaces, topo: Topology, kt: KernelTcp) -> None:
    """Kernel settings, addresses, links up and routes in every namespace."""
    for node in topo.nodes:
        ns.sysctl(
            node,
            {
                # Only IPv4 crosses the links: no IPv6 chatter on the devices the emulators make.
                "net.ipv6.conf.all.disable_ipv6": "1",
                "net.ipv6.conf.default.disable_ipv6": "1",
                "net.ipv4.ip_forward": "1",
                "net.ipv4.conf.all.rp_filter": "0",
                "net.ipv4.conf.default.rp_filter": "0",
                # No tcp_congestion_control here: outside the initial namespace the kernel refuses
                # a module missing from tcp_allowed_congestion_control (cubic, on this machine);
                # the sender picks it per socket (TCP_CONGESTION, which root may always set).
                **kt.sysctls,
            },
        )
        ip("-n", ns.names[node], "addr", "add", f"{topo.address(node)}/32", "dev", "lo")


def bring_up_links(ns: Namespaces, topo: Topology, kt: KernelTcp) -> None:
    for link in topo.links:
        for node in (link.a, link.b):
            ip("-n", ns.names[node], "link", "set", link.ifname, "mtu", str(kt.mtu), "up")
    for r in topo.routes():
        ip(
            "-n", ns.names[r.node], "route", "add", f"{topo.address(r.dest)}/32", "dev", r.ifname,
            "src", topo.address(r.node), *kt.route_attrs,
        )  # fmt: skip


def run_linux(
    text: str,
    fmt: str,
    overrides: list[tuple[str, str]],
    seed: int,
    resolved: dict[str, Any],
    out_dir: Path,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> RealRun:
    check_permitted()
    flow = supported(resolved)
    remove_stale()
    topo = Topology.of(resolved)
    kt = kernel_tcp(flow["tcp"], cubic_params())
    out_dir.mkdir(parents=True, exist_ok=True)
    size, request = size_bytes(flow["size"]), size_bytes(flow.get("request", "100B"))
    limit = min(timeout_s, seconds(resolved.get("duration", "1h")))
    with sigterm_as_interrupt(), contextlib.ExitStack() as stack:
        ns = stack.enter_context(Namespaces(topo.nodes))
        configure(ns, topo, kt)
        emulators = []
        for link in topo.links:
            cfg = {
                "scenario": text,
                "format": fmt,
                "overrides": overrides,
                "seed": seed,
                "link": link.name,
                "ends": [{"netns": ns.path(n), "ifname": link.ifname} for n in (link.a, link.b)],
                "pcap": str(out_dir / f"linux-{link.name}.pcap"),
            }
            emu = Emulator(cfg, out_dir, link)
            stack.callback(emu.kill)
            emulators.append(emu)
        bring_up_links(ns, topo, kt)
        server_out, client_out = out_dir / "linux-server.json", out_dir / "linux-client.json"
        server = _spawn(
            ns.exec_args(flow["server"]),
            ["server", "--addr", topo.address(flow["server"]), "--port", str(PORT), "--cc", kt.congestion_control,
             "--size", str(size), "--request", str(request), "--out", str(server_out)],
        )  # fmt: skip
        stack.callback(_kill, server)
        _expect(server, "listening", "server application")
        client = _spawn(
            ns.exec_args(flow["client"]),
            ["client", "--server", topo.address(flow["server"]), "--port", str(PORT), "--size", str(size),
             "--request", str(request), "--rcvbuf", str(kt.rcvbuf or 0), "--out", str(client_out)],
        )  # fmt: skip
        stack.callback(_kill, client)
        _expect(client, "ready", "client application")
        t0 = min(emu.start() for emu in emulators)
        assert client.stdin is not None
        client.stdin.write(f"{t0 + round(seconds(flow.get('start', '0s')) * 1e9)}\n")
        client.stdin.flush()
        finished = True
        try:
            client.wait(timeout=limit)
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            finished = False
        for proc, who in ((client, "client"), (server, "server")):
            if finished and proc.returncode != 0:
                err = proc.stderr.read() if proc.stderr else ""
                raise ValidateError(f"the {who} application failed: {err.strip()[-400:]}")
        _kill(client)
        _kill(server)
        links = []
        for emu in emulators:
            report = emu.stop()
            report["link"] = emu.link.name
            links.append(report)
        return RealRun(
            t0_ns=t0,
            client=_load(client_out),
            server=_load(server_out),
            links=links,
            pcaps=[out_dir / f"linux-{link.name}.pcap" for link in topo.links],
            unmatched=kt.unmatched,
            finished=finished,
        )


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
