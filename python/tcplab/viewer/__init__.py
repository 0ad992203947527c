"""A run viewer in the browser: one self-contained HTML file per run (docs/viewer.md).

>>> import tcplab.viewer
>>> res = tcplab.viewer.run("examples/adhoc_mobile.toml", overrides={"duration": "60s"})  # doctest: +SKIP
>>> tcplab.viewer.write(res, "adhoc_mobile.html")                                        # doctest: +SKIP

``tcplab.view(result)`` (the package-level function) writes the page of a result that was run with
``trace.view = true``; :func:`run` runs a scenario with everything the page needs switched on.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tcplab
from tcplab._args import override_items
from tcplab._fs import replace_file
from tcplab.result import Result
from tcplab.scenario import ScenarioLike, toml_value
from tcplab.viewer.data import EVENT_LAYERS, SERIES, ViewData, build
from tcplab.viewer.page import render

__all__ = ["ViewData", "build", "check_window", "render", "run", "traced_overrides", "write"]


def traced_overrides(resolved: dict[str, Any]) -> list[tuple[str, str]]:
    """The overrides that switch on what the page shows, keeping the scenario's own trace settings:
    the station tracks (``trace.view``), the event trace's layers the page draws from (``trace.events``,
    every node; a scenario's own layers are kept too) and the series it plots."""
    trace = resolved.get("trace") or {}
    series = sorted(set(trace.get("series") or []) | set(SERIES))
    if "all" in series:
        series = ["all"]
    asked = trace.get("events") is not None
    events = dict(trace.get("events") or {})
    own = events.get("layers") or []
    # The scenario's own trace with no layers named records every layer, the page's included.
    if asked and not own:
        layers: list[str] = []
    else:
        layers = sorted(set(own) | set(EVENT_LAYERS))
    events.pop("nodes", None)
    # The page is the output: the rows stay in memory for it, and no trace file is written.
    events.pop("file", None)
    events.pop("format", None)
    events["layers"] = layers
    if not layers:
        events.pop("layers")
    pairs = [
        ("trace.view", toml_value(True)),
        ("trace.events", toml_value(events)),
        ("trace.series", toml_value(series)),
    ]
    if not trace.get("interval"):
        # One sample per 10 ms at most: plenty for a plot, and a 600 s run's series stay small.
        pairs.append(("trace.interval", toml_value("10ms")))
    return pairs


def check_window(end: float, t_from: float | None, t_to: float | None) -> None:
    """Refuse a window outside a run of ``end`` seconds: ValueError naming --from / --to and the allowed range."""
    if t_from is not None and not 0 <= t_from < end:
        raise ValueError(f"--from: {t_from:g} s is outside the run, which lasts {end:g} s; allowed: 0 s ≤ from < {end:g} s")
    if t_to is not None and not 0 < t_to <= end:
        raise ValueError(f"--to: {t_to:g} s is outside the run, which lasts {end:g} s; allowed: 0 s < to ≤ {end:g} s")
    if t_from is not None and t_to is not None and t_from >= t_to:
        raise ValueError(f"--to: {t_to:g} s is not after --from ({t_from:g} s)")


def run(
    scenario_or_path: ScenarioLike,
    seed: int | None = None,
    overrides: Any = None,
) -> Result:
    """Run a scenario with the station tracks, the event trace and the series the page shows
    (arguments as :func:`tcplab.run`'s, checked by it)."""
    resolved = tcplab.resolve(scenario_or_path, overrides)
    return tcplab.run(scenario_or_path, seed, override_items(overrides) + traced_overrides(resolved))


def write(
    result: Result,
    out: str | os.PathLike[str],
    t_from: float | None = None,
    t_to: float | None = None,
) -> Path:
    """Write the page of ``result`` (run with ``trace.view = true`` and the event trace, as :func:`run`
    does) to ``out``; returns the path."""
    path = Path(out)
    html = render(build(result, t_from, t_to))
    return replace_file(path, lambda tmp: tmp.write_text(html, encoding="utf-8"), parents=False)
