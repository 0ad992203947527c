"""Every wireless TCP scheme in tcplab, as the scenario fields that switch it on.

Each scheme is a set of ``[tcp]`` overrides (congestion control, recovery, extensions) plus, for the
base-station schemes, an agent at the BS for the mobile.  The base TCP of each follows the paper that
defines or measures it: Snoop and I-TCP over Reno (Balakrishnan et al. measure both against Reno), ACK
holding and Freeze-TCP over Reno (seed 001's TCP; Goff et al.'s sender is a standard Reno), M-TCP and
M-TCP+ over NewReno (seed 000), Westwood+, Adaptive TCP and CUBIC with NewReno recovery (seed 004's
senders), Vegas with Reno recovery (ns-2's Agent/TCP/Vegas, docs/validation/baselines.md), Veno with
NewReno recovery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Scheme:
    key: str
    label: str
    tcp: dict[str, Any]
    agent: str = ""
    #: The scheme acts only on a disconnection signal (LINK_GOING_DOWN / feedback); without one it is
    #: its base TCP, named here.
    signal_only: str = ""
    #: Families of cells ("fer", "disconnection") the scheme cannot run on, with the reason.
    cannot_run: dict[str, str] = field(default_factory=dict)

    def cell(self) -> dict[str, Any]:
        """The overrides of this scheme (every scheme sets the same keys, so no setting leaks between cells)."""
        tcp = {"cc": "reno", "recovery": "reno", "sack": False, "extensions": []} | self.tcp
        out: dict[str, Any] = {f"tcp.{k}": v for k, v in tcp.items()}
        out["agents"] = [{"kind": self.agent, "node": "bs", "mobile": "mh"}] if self.agent else []
        return out


_NR = {"recovery": "newreno"}

SCHEMES: tuple[Scheme, ...] = (
    Scheme("reno", "Reno", {}),
    Scheme("newreno", "NewReno", dict(_NR)),
    Scheme("sack", "SACK", {"recovery": "sack", "sack": True}),
    Scheme("snoop", "Snoop", {}, agent="snoop"),
    Scheme("itcp", "I-TCP", {}, agent="itcp"),
    Scheme("mtcp", "M-TCP", dict(_NR), agent="mtcp"),
    Scheme("mtcp_plus", "M-TCP+", dict(_NR), agent="mtcp_plus", signal_only="newreno"),
    Scheme("ack_holding", "ACK holding", {}, agent="ack_holder", signal_only="reno"),
    Scheme("freeze", "Freeze-TCP", {"extensions": ["freeze"]}, signal_only="reno"),
    Scheme("westwood", "Westwood+", {"cc": "westwood"} | _NR),
    Scheme("veno", "Veno", {"cc": "veno"} | _NR),
    Scheme("vegas", "Vegas", {"cc": "vegas"}),
    Scheme("adaptive", "Adaptive TCP", {"cc": "adaptive"} | _NR),
    Scheme("cubic", "CUBIC", {"cc": "cubic"} | _NR),
)
BY_KEY: dict[str, Scheme] = {s.key: s for s in SCHEMES}
LABEL: dict[str, str] = {s.key: s.label for s in SCHEMES}


def runnable(family: str, keys: tuple[str, ...] | None = None) -> list[Scheme]:
    """The schemes (all, or those named) that can run on a family of cells."""
    return [s for s in SCHEMES if (keys is None or s.key in keys) and family not in s.cannot_run]


def scheme_of(cell: dict[str, Any]) -> str:
    """The scheme key a stored cell was built from (its overrides are exactly ``Scheme.cell()``'s)."""
    for s in SCHEMES:
        if all(cell.get(k) == v for k, v in s.cell().items()):
            return s.key
    raise ValueError(f"cell matches no scheme: {cell}")
