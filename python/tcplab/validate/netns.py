"""Network namespaces for one real run: created, configured, and always removed.

Names are ``tcplab-<pid>-n<i>``: the pid of the process that owns them, so a later run can remove
what a killed run (SIGKILL leaves no chance to clean up) left behind, and never touches the
namespaces of a run still alive.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence

from . import ValidateError

PREFIX = "tcplab-"
_OWNED = re.compile(r"^tcplab-(\d+)-n\d+$")


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs ``ip ARGS``; a failure raises ValidateError with ip's own message."""
    r = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if check and r.returncode != 0:
        raise ValidateError(f"ip {' '.join(args)}: {r.stderr.strip() or 'failed'}")
    return r


def check_permitted() -> None:
    """Stops with a clear message where namespaces or TUN devices cannot be made."""
    if shutil.which("ip") is None:
        raise ValidateError("validate linux needs the `ip` command (iproute2), which is not installed")
    if os.geteuid() != 0:
        raise ValidateError(
            "validate linux creates network namespaces and TUN devices, which needs root "
            "(CAP_NET_ADMIN and CAP_SYS_ADMIN); run it as root"
        )
    if not os.path.exists("/dev/net/tun"):
        raise ValidateError("validate linux needs /dev/net/tun (the tun kernel module), which is missing")


def list_namespaces() -> list[str]:
    r = ip("netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale() -> list[str]:
    """Removes the namespaces of tcplab runs whose process is gone; returns their names."""
    gone = [n for n in list_namespaces() if (m := _OWNED.match(n)) and not _alive(int(m.group(1)))]
    for name in gone:
        ip("netns", "del", name, check=False)
    return gone


class Namespaces:
    """One namespace per node; a context manager that deletes them on the way out, whatever happens."""

    def __init__(self, nodes: Sequence[str]):
        self.names = {node: f"{PREFIX}{os.getpid()}-n{i}" for i, node in enumerate(nodes)}

    def __enter__(self) -> Namespaces:
        try:
            for name in self.names.values():
                ip("netns", "add", name)
                ip("-n", name, "link", "set", "lo", "up")
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def remove(self) -> None:
        for name in self.names.values():
            ip("netns", "del", name, check=False)

    def path(self, node: str) -> str:
        return f"/run/netns/{self.names[node]}"

    def exec_args(self, node: str) -> list[str]:
        """The command prefix that runs a program inside ``node``'s namespace."""
        return ["ip", "netns", "exec", self.names[node]]

    def sysctl(self, node: str, values: dict[str, str]) -> None:
        args = [f"{k}={v}" for k, v in values.items()]
        r = subprocess.run(
            [*self.exec_args(node), "sysctl", "-q", "-w", *args], capture_output=True, text=True, check=False
        )
        if r.returncode != 0:
            raise ValidateError(f"sysctl in {node}'s namespace: {r.stderr.strip()}")
