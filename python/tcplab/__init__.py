"""tcplab: a packet-level simulator and laboratory for TCP over wired, WLAN and ad hoc networks.

The simulation runs in the compiled core (``tcplab._core``, Rust).  This package is the thin,
typed front: it accepts scenarios as paths, TOML text or dicts, returns results as polars
DataFrames, and fans sweeps out over processes or a Ray cluster (``sweep``, ``results``; see
docs/sweeps.md).

>>> import tcplab
>>> res = tcplab.run("examples/wired_bottleneck.toml", seed=1,
...                  overrides={"links.bottleneck.loss.p": 0.01})   # doctest: +SKIP
>>> res.flows.select("name", "goodput_bps")                          # doctest: +SKIP
>>> grid = tcplab.sweep("examples/wired_lossy.toml", grid={"links.bottleneck.loss.p": [0.01, 0.02]},
...                     variants=["reno", "sack"], replications=5)  # doctest: +SKIP
>>> grid.summary("goodput_bps")                                     # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from tcplab import _core
from tcplab.exceptions import ScenarioError, SimulationError, TcplabError
from tcplab.result import Result
from tcplab.runner import Sweep
from tcplab.scenario import ScenarioLike, load, override_pairs
from tcplab.sweeps import SweepResult, SweepSummary, results, sweep

__version__: str = _core.version()

Overrides = Mapping[str, Any] | Iterable[tuple[str, Any]] | None

__all__ = [
    "Result",
    "ScenarioError",
    "SimulationError",
    "Sweep",
    "SweepResult",
    "SweepSummary",
    "TcplabError",
    "__version__",
    "resolve",
    "results",
    "run",
    "schema",
    "sweep",
]


def run(
    scenario_or_path: ScenarioLike,
    seed: int | None = None,
    overrides: Overrides = None,
    pcap_dir: str | os.PathLike | None = None,
    pcap_80211: bool = False,
) -> Result:
    """Run one simulation and return its :class:`Result`.

    ``scenario_or_path`` is a path to a ``.toml``/``.json`` file, TOML text, or a dict.  ``overrides``
    maps dotted paths (``"links.bottleneck.rate"``, ``"flows.download.size"``) to values, exactly
    like the CLI's ``--set``.  ``pcap_dir``, if given, receives a pcap per interface, as the CLI's
    ``--pcap`` writes them (the interfaces in ``trace.pcap``, or all of them); the folder is created
    if it does not exist yet.  ``pcap_80211=True`` adds the 802.11 captures (``--pcap-80211``).
    Raises :class:`ScenarioError` for invalid input and :class:`SimulationError` if the run fails.
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise ValueError(f"seed: {seed!r} is not allowed; use an integer from 0 to 2^64 - 1")
    src = load(scenario_or_path)
    from tcplab._capture import capture_request

    pairs, folder = capture_request(src.text, src.format, override_pairs(overrides), pcap_dir, pcap_80211)
    raw = _core.run(src.text, src.format, seed, pairs, folder)
    return Result.from_raw(raw)


def resolve(scenario_or_path: ScenarioLike, overrides: Overrides = None) -> dict[str, Any]:
    """Validate a scenario and return it fully resolved (every default filled in, overrides applied)."""
    src = load(scenario_or_path)
    return _core.resolve(src.text, src.format, override_pairs(overrides))


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format (for editors and validation tools)."""
    return json.loads(_core.schema())
