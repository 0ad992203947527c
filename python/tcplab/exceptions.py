"""Stable import path for tcplab's exception hierarchy.

The classes are created by the compiled core (``tcplab._core``) because that is where errors are
raised; re-exporting them here lets users write ``from tcplab.exceptions import ScenarioError``
without depending on the private native module's name.

``TcplabError`` is the root. ``ScenarioError`` (also a ``ValueError``) means the scenario or an
override is invalid; ``.errors()`` lists every problem as ``{"loc", "msg"}``. ``SimulationError``
means a valid scenario failed while running (for example the event limit was hit).
"""

from __future__ import annotations

from tcplab._core import ScenarioError, SimulationError, TcplabError

__all__ = ["ScenarioError", "SimulationError", "TcplabError", "describe", "format_error"]


def format_error(exc: BaseException) -> list[str]:
    """Render an exception as human-readable lines, one ``loc: msg`` per scenario problem.

    Used by the CLI (one line per error on stderr) and by the runner (the text stored for a failed
    run), so that both show the same wording.
    """
    if isinstance(exc, ScenarioError):
        lines = [f"{e['loc']}: {e['msg']}" if e.get("loc") else str(e["msg"]) for e in exc.errors()]
        if lines:
            return lines
    return [f"{type(exc).__name__}: {exc}"]


def describe(exc: BaseException) -> str:
    """One string naming the exception class and every problem; the text stored for a failed run."""
    lines = format_error(exc)
    if isinstance(exc, ScenarioError):
        return f"{type(exc).__name__}: " + "; ".join(lines)
    return "; ".join(lines)
