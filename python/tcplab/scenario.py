"""Turning the ways a user can name a scenario into what the core accepts.

The core takes scenario *text* plus a format ("toml" or "json") and override pairs of strings.  Users
hand us a path, a TOML string or a dict, and overrides as Python values (``{"tcp.variant": "sack",
"links.bottleneck.loss.p": 0.01}``).  Keeping that translation in one place means ``tcplab.run``,
the CLI and the sweep runner agree on it, and that a sweep cell stored as JSON can be turned back
into the exact override strings that produced it.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from tcplab._fs import read_input

ScenarioLike = str | os.PathLike | Mapping[str, Any]
"""A path to a ``.toml``/``.json`` file, TOML text, or a scenario as a dict."""


class ScenarioText(NamedTuple):
    """Scenario text as the core wants it."""

    text: str
    format: str  # "toml" | "json"


def _toml() -> Any:
    """The TOML parser, imported when first needed (a run whose file names no movement file never
    parses TOML in Python: the core does)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def load(scenario: ScenarioLike) -> ScenarioText:
    """Normalise a path, TOML string or dict into text plus format.

    A ``str`` is TOML text if it contains a newline or ``=``; otherwise it is a path.  That rule never
    mistakes a real scenario for a path (every scenario assigns something) and keeps "file not found"
    errors for mistyped paths instead of a confusing TOML parse error.
    """
    if isinstance(scenario, Mapping):
        return ScenarioText(json.dumps(scenario, allow_nan=False), "json")
    if isinstance(scenario, str) and ("\n" in scenario or "=" in scenario):
        return ScenarioText(scenario, "toml")
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        try:
            text = read_input(path, "scenario file").decode("utf-8")
        except UnicodeDecodeError as exc:  # a binary file: name it, not the codec
            raise ValueError(
                f"{path}: not a text file (invalid UTF-8 at byte {exc.start}); a scenario is TOML or JSON text"
            ) from None
        return _files_beside(ScenarioText(text, fmt), path.parent)
    raise TypeError(f"expected a path, TOML text or a dict, got {type(scenario).__name__}")


def _files_beside(src: ScenarioText, folder: Path) -> ScenarioText:
    """A scenario file names its movement files (``wlans[].mobility_file``) relative to its own
    folder; the core reads paths relative to the current directory, so relative ones are made
    absolute here.  Text that does not parse is left for the core to report."""
    if "mobility_file" not in src.text:
        return src
    try:
        doc = json.loads(src.text) if src.format == "json" else _toml().loads(src.text)
    except ValueError:
        return src
    changed = False
    for w in doc.get("wlans", []) if isinstance(doc.get("wlans"), list) else []:
        f = w.get("mobility_file") if isinstance(w, dict) else None
        if isinstance(f, str) and f and not Path(f).is_absolute():
            w["mobility_file"] = str((folder / f).resolve())
            changed = True
    return ScenarioText(json.dumps(doc), "json") if changed else src


def movement_files(resolved: Mapping[str, Any]) -> dict[str, str]:
    """sha256 of each movement file a resolved scenario reads, by path: a run's store key must
    change when a file's content does, not only when its name does."""
    out: dict[str, str] = {}
    for w in resolved.get("wlans", []):
        f = w.get("mobility_file")
        if f:
            try:
                import hashlib  # here, not at the top: OpenSSL's load is start-up time

                out[f] = hashlib.sha256(read_input(Path(f), "movement file")).hexdigest()
            except (OSError, ValueError):
                out[f] = "unreadable"  # the run itself reports the file
    return out


def toml_value(value: Any) -> str:
    """Encode a Python value as a TOML literal, the form the core parses override values in.

    Strings are quoted so they stay strings even when they look like numbers or booleans.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Iterable):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot express {value!r} as a TOML value")


def override_pairs(overrides: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> list[tuple[str, str]]:
    """Convert overrides to the core's ``[(path, value_text)]``.

    Values that are already strings are passed through unchanged, as with the CLI's ``--set``, where
    the core parses them as TOML if possible and otherwise takes them as strings; other values are
    encoded with :func:`toml_value`.
    """
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    return [(str(path), value if isinstance(value, str) else toml_value(value)) for path, value in items]


def cell_pairs(cell: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Override pairs for a sweep cell, where every value (strings too) is an exact TOML literal."""
    return [(path, toml_value(value)) for path, value in cell.items()]


def parse_set(arg: str) -> tuple[str, str]:
    """Split a CLI ``--set path=value`` argument at the first ``=``."""
    path, sep, value = arg.partition("=")
    if not sep or not path.strip():
        raise ValueError(f"--set expects path=value, got {arg!r}")
    return path.strip(), value.strip()
