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

import os  # os and sys are loaded by the interpreter's start-up: free
import sys

# ``import tcplab`` loads nothing else (issue 35: start-up under 60 ms): the compiled core, the
# result and scenario helpers, ``typing`` and ``json`` are imported when a name below is first
# used, the sweep API (polars, and rich for a progress bar) when a sweep is asked for.
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from tcplab.exceptions import ScenarioError, SimulationError, TcplabError
    from tcplab.result import Result
    from tcplab.runner import Sweep
    from tcplab.scenario import ScenarioLike
    from tcplab.sweeps import SweepResult, SweepSummary, results, sweep

    Overrides = Mapping[str, Any] | Iterable[tuple[str, Any]] | None

# Public names defined elsewhere, imported on first use (PEP 562 module __getattr__).
_LAZY = {
    "Result": "tcplab.result",
    "ScenarioError": "tcplab.exceptions",
    "SimulationError": "tcplab.exceptions",
    "TcplabError": "tcplab.exceptions",
    "Sweep": "tcplab.runner",
    "SweepResult": "tcplab.sweeps",
    "SweepSummary": "tcplab.sweeps",
    "results": "tcplab.sweeps",
    "sweep": "tcplab.sweeps",
}


def _module(name: str) -> Any:
    """The module ``name``, imported if need be.  (``from tcplab import _core`` here would ask this
    package's ``__getattr__`` for ``_core`` again, before importing it.)"""
    __import__(name)
    return sys.modules[name]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _module("tcplab._core").version()
    elif name == "_core":  # ``tcplab._core`` before anything imported it
        value = _module("tcplab._core")
    elif name == "Overrides":
        from collections.abc import Iterable, Mapping
        from typing import Any as _Any

        value = Mapping[str, _Any] | Iterable[tuple[str, _Any]] | None
    elif name in _LAZY:
        value = getattr(_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


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
    "view",
]


def run(
    scenario_or_path: ScenarioLike,
    seed: int | None = None,
    overrides: Overrides = None,
    pcap_dir: str | os.PathLike | None = None,
    pcap_80211: bool = False,
    trace_events: str | os.PathLike | None = None,
) -> Result:
    """Run one simulation and return its :class:`Result`.

    ``scenario_or_path`` is a path to a ``.toml``/``.json`` file, TOML text, or a dict.  ``overrides``
    maps dotted paths (``"links.bottleneck.rate"``, ``"flows.download.size"``) to values, exactly
    like the CLI's ``--set``.  ``pcap_dir``, if given, receives a pcap per interface, as the CLI's
    ``--pcap`` writes them (the interfaces in ``trace.pcap``, or all of them); the folder is created
    if it does not exist yet.  The captures appear there when the run has succeeded, and are listed
    in the folder's ``.tcplab-manifest.json``; a file of a capture's name that tcplab did not write
    there is never replaced (the run is refused first).  ``pcap_80211=True`` adds the 802.11
    captures (``--pcap-80211``).
    ``trace_events``, if given, is the file the event trace is written to (Parquet, or ns-2's
    wireless trace format for a ``.tr`` file or ``trace.events.format = "ns2"``; every layer and
    node unless ``trace.events`` chooses; docs/trace.md); a scenario's ``trace.events.file`` is
    written too, as the run goes (memory holds one batch of rows).  The rows are also in
    ``result.events`` (read back from the file when it is Parquet).
    Raises :class:`ScenarioError` for invalid input and :class:`SimulationError` if the run fails.
    """
    from tcplab import _core
    from tcplab._args import check_path, check_scenario, check_seed, override_items
    from tcplab._capture import capture_request, captures_into, window_notes
    from tcplab.result import Result
    from tcplab.scenario import load, override_pairs

    check_scenario(scenario_or_path)
    check_seed(seed)
    pairs = override_pairs(override_items(overrides))
    pcap = check_path(pcap_dir, "pcap_dir", optional=True)
    src = load(scenario_or_path)
    pairs, folder = capture_request(src.text, src.format, pairs, pcap, pcap_80211)
    from tcplab.events import events_request, run_traced

    pairs, ev_file, ev_format = events_request(src.text, src.format, pairs, trace_events, "trace_events")
    with captures_into(folder) as into:
        raw = run_traced(lambda file, fmt: _core.run(src.text, src.format, seed, pairs, into, file, fmt),
                         ev_file, ev_format)
    if folder is not None:  # how to read the windows of a one-way start in the captures
        raw["warnings"] = [*(raw.get("warnings") or []), *window_notes(src.text, src.format, pairs)]
    return Result.from_raw(raw)


def resolve(scenario_or_path: ScenarioLike, overrides: Overrides = None) -> dict[str, Any]:
    """Validate a scenario and return it fully resolved (every default filled in, overrides applied)."""
    from tcplab import _core
    from tcplab._args import check_scenario, override_items
    from tcplab.scenario import load, override_pairs

    check_scenario(scenario_or_path)
    pairs = override_pairs(override_items(overrides))
    src = load(scenario_or_path)
    return _core.resolve(src.text, src.format, pairs)


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format (for editors and validation tools)."""
    import json

    from tcplab import _core

    return json.loads(_core.schema())


def view(
    result: Result,
    out: str | os.PathLike | None = None,
    t_from: float | None = None,
    t_to: float | None = None,
) -> str:
    """Write the run viewer (one self-contained HTML file, docs/viewer.md) of ``result`` and return its path.

    ``result`` must come from a run with ``trace.view = true`` and the event trace
    (``tcplab.viewer.run(...)`` switches on everything the page shows, the series included); ``t_from``/``t_to`` (seconds) limit the
    window.  ``out`` defaults to ``<scenario name>.html``.
    """
    from tcplab import viewer
    from tcplab._args import check_path

    viewer.check_window(float(result.summary["sim_time_s"]), t_from, t_to)
    path = check_path(out, "out", optional=True) or f"{result.summary.get('scenario') or 'run'}.html"
    return os.fspath(viewer.write(result, path, t_from, t_to))
