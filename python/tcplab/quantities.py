"""Ordering swept values that are quantities with units ("5ms", "50ms", "10Mbps", "64KiB").

Sweep cells keep their TOML values, so a swept duration is a string and sorts as text ("50ms"
before "5ms").  :func:`sort_key` reads the units the scenario format takes (the core's
``scenario/units.rs``: durations, rates, sizes, distances, speeds) and orders such values by their
magnitude; anything else keeps its own order after the quantities.
"""

from __future__ import annotations

import re
from typing import Any

_NUMBER = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\d\s].*?)?\s*$")

#: Unit -> (dimension, factor to the base unit), as the scenario format reads them.
_UNITS: dict[str, tuple[str, float]] = {
    "ns": ("time", 1e-9), "us": ("time", 1e-6), "µs": ("time", 1e-6), "ms": ("time", 1e-3),
    "s": ("time", 1.0), "sec": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0),
    "B": ("size", 1.0), "kB": ("size", 1e3), "KB": ("size", 1e3), "MB": ("size", 1e6), "GB": ("size", 1e9),
    "KiB": ("size", 1024.0), "MiB": ("size", 1024.0**2), "GiB": ("size", 1024.0**3),
    "m": ("distance", 1.0), "km": ("distance", 1e3), "cm": ("distance", 1e-2), "mm": ("distance", 1e-3),
    "m/s": ("speed", 1.0), "mps": ("speed", 1.0), "km/h": ("speed", 1e3 / 3600), "kmh": ("speed", 1e3 / 3600),
}
for _prefix, _k in (("", 1.0), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9)):
    for _unit, _bits in (("bps", 1.0), ("b/s", 1.0), ("bit/s", 1.0), ("bits/s", 1.0), ("Bps", 8.0), ("B/s", 8.0)):
        _UNITS.setdefault(_prefix + _unit, ("rate", _k * _bits))


def quantity(value: Any) -> tuple[str, float] | None:
    """(dimension, magnitude in base units) of a quantity string such as ``"50ms"``, else None."""
    if not isinstance(value, str):
        return None
    m = _NUMBER.match(value)
    if m is None or m.group(2) is None or m.group(2) not in _UNITS:
        return None
    dim, k = _UNITS[m.group(2)]
    return dim, float(m.group(1)) * k


def sort_key(value: Any) -> tuple[int, Any]:
    """A key that orders numbers by value, quantities of one dimension by magnitude ("5ms" before
    "50ms" before "1s"), then other values as text; None last."""
    if value is None:
        return (3, "")
    if isinstance(value, bool):
        return (2, str(value))
    if isinstance(value, (int, float)):
        return (0, ("", float(value)))
    q = quantity(value)
    if q is not None:
        return (0, q)
    return (1, str(value))


def sorted_values(values: list[Any]) -> list[Any]:
    """``values`` in :func:`sort_key` order."""
    return sorted(values, key=sort_key)
