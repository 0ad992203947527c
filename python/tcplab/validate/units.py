"""The resolved scenario's quantities as numbers.

``tcplab.resolve`` returns every quantity in the core's canonical spelling (``"20ms"``,
``"10MB"``, ``"64KiB"``, ``"10Mbps"``); the validation needs them as seconds, bytes and bit/s to
configure the kernel and to place outages on the time axis.
"""

from __future__ import annotations

import re

_DURATION = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
_SIZE = {"B": 1, "": 1, "kB": 1000, "KB": 1000, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
_RATE = {"": 1, "k": 1000, "K": 1000, "M": 10**6, "G": 10**9}
_NUMBER = r"\s*([0-9][0-9_.eE+-]*)\s*"


def _split(text: str | int | float, units: str) -> tuple[float, str]:
    if isinstance(text, (int, float)):
        return float(text), ""
    m = re.fullmatch(_NUMBER + f"({units})" + r"\s*", str(text))
    if not m:
        raise ValueError(f"{text!r} is not a quantity this tool can read")
    return float(m.group(1).replace("_", "")), m.group(2)


def seconds(text: str) -> float:
    value, unit = _split(text, "|".join(sorted(_DURATION, key=len, reverse=True)))
    return value * _DURATION[unit]


def size_bytes(text: str | int) -> int:
    value, unit = _split(text, "|".join(sorted(_SIZE, key=len, reverse=True)))
    return int(value * _SIZE[unit])


def rate_bps(text: str) -> float:
    value, unit = _split(text, r"[kKMG]?(?:bps|b/s|bit/s|bits/s)|[kKMG]?(?:Bps|B/s)")
    prefix = unit[0] if unit[:1] in _RATE and unit[:1] else ""
    bytes_per_s = unit.endswith(("Bps", "B/s"))
    return value * _RATE[prefix] * (8 if bytes_per_s else 1)
