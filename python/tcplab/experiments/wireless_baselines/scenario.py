"""The wired–BS–802.11 network of seeds 000/001 and the two families of cells.

The network is ack_holding's (seed 001's FH–BS–MH, also examples/snoop.toml): FH --10 Mb/s, 50 ms,
DropTail 50-- BS ==ns-2 802.11 DSSS, 2 Mb/s data, RTS/CTS== MH at 50 m; ns-2-like senders (1000-B
segments counted in segments, window 20, initial window 2, timestamps, an ACK per segment, ns-2's
RTO bounds).  The MH downloads a file of ``FILE_B`` bytes from the FH, starting at t = 0.

* **Frame errors** (``fer``): each packet the mobile receives is lost with probability p, independently
  (Bernoulli), above the 802.11 MAC (``loss_at = "packets"``: an ns-2 error model over the link layer,
  which no MAC retry recovers — the random losses the link-layer and split schemes were designed to
  hide; with errors on frames the MAC's own retries hide almost all of them, docs/validation/baselines.md).
* **Disconnections** (``disconnection``): one scheduled outage of the mobile's station from
  ``OUTAGE_START_S`` for D seconds, announced ``LEAD`` ahead by the WLAN's LINK_GOING_DOWN signal with an
  exact duration (the predictor M-TCP, M-TCP+, ACK holding and Freeze-TCP listen to); no frame errors.
"""

from __future__ import annotations

import copy
from typing import Any

from tcplab.experiments.ack_holding.experiment import scenario as fh_bs_mh
from tcplab.experiments.base import LEGACY_NS2_TCP

FILE_B = 2_000_000
#: Long enough for the slowest scheme at 10 % loss (Reno needs about 100 s) with a wide margin; the
#: run ends when the download completes.
DURATION_S = 600
OUTAGE_START_S = 5
LEAD = "250ms"
FERS: tuple[float, ...] = (0.0, 0.01, 0.02, 0.05, 0.10)
OUTAGES_S: tuple[int, ...] = (1, 5, 10, 30)
FAMILIES = ("fer", "disconnection")

LOSS_PATH = "wlans.cell.stations.1.loss"
LOSS_AT_PATH = "wlans.cell.stations.1.loss_at"
OUTAGE_PATH = "wlans.cell.stations.1.outage"


def base() -> dict[str, Any]:
    """Seed 001's network with a fixed-size download and neither losses nor outages (cells add them)."""
    s = copy.deepcopy(fh_bs_mh())
    s["name"] = "wireless_baselines"
    s["duration"] = f"{DURATION_S}s"
    # ack-holding's TCP as it was before ack-holding moved to profile = "ns2" (this study is not re-measured);
    # each scheme sets cc, recovery, sack and extensions.
    s["tcp"] = {**LEGACY_NS2_TCP, "window_scaling": False, "timestamps": True}
    s["wlans"][0]["signals"] = {"lead": LEAD, "duration_factor": 1.0}
    del s["wlans"][0]["stations"][1]["outage"]
    s["agents"] = []
    s["flows"] = [{"name": "ftp", "app": "bulk_download", "client": "mh", "server": "fh", "size": f"{FILE_B}B"}]
    s.pop("trace", None)
    return s


def fer_cell(p: float) -> dict[str, Any]:
    return {LOSS_PATH: {"model": "bernoulli", "p": p, "direction": "b_to_a"}, LOSS_AT_PATH: "packets"}


def outage_cell(down_s: int) -> dict[str, Any]:
    return {OUTAGE_PATH: {"intervals": [[f"{OUTAGE_START_S}s", f"{OUTAGE_START_S + down_s}s"]]}}


def condition_of(cell: dict[str, Any]) -> tuple[str, float]:
    """(family, level) of a stored cell: ("fer", p) or ("disconnection", D seconds)."""
    if OUTAGE_PATH in cell:
        a, b = cell[OUTAGE_PATH]["intervals"][0]
        return "disconnection", float(b[:-1]) - float(a[:-1])
    return "fer", float(cell[LOSS_PATH]["p"])
