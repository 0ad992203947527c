"""The public API's front door: every argument checked before anything runs.

A wrong *type* raises ``TypeError`` and a wrong *value* raises :class:`tcplab.ScenarioError` (a
``ValueError``), both naming the argument (``seed``, ``overrides['links.x.rate']``,
``scenario_or_path.links[0].loss.p``), so that no raw error from deep inside the library (``too
many values to unpack``, ``'<' not supported``) reaches the caller.  One rule for seeds holds
everywhere (``tcplab run --seed``, ``run(seed=)``, sweeps): an integer from 0 to 2^64 - 1, what
the core takes and what the store keeps.
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tcplab.exceptions import ScenarioError

SEED_MAX = 2**64 - 1


def scenario_error(loc: str, msg: str) -> ScenarioError:
    """A :class:`ScenarioError` with one problem at ``loc``, worded like the core's."""
    return ScenarioError(f"{loc}: {msg}", [{"loc": loc, "msg": msg}])


def _kind(value: Any) -> str:
    return type(value).__name__


def _a(value: Any) -> str:
    """``a str``, ``an int``: the type of ``value`` with its article."""
    name = _kind(value)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def check_int(value: Any, name: str, low: int, high: int | None, allowed: str) -> int:
    """``value`` if it is an int (not a bool) in ``[low, high]``; ``allowed`` says so in words."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected {allowed}, got {_a(value)} ({value!r})")
    if value < low or (high is not None and value > high):
        raise scenario_error(name, f"expected {allowed}, got {value}")
    return value


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """None (the scenario's seed) or an integer from 0 to 2^64 - 1."""
    if seed is None:
        return None
    return check_int(seed, name, 0, SEED_MAX, f"an integer from 0 to {SEED_MAX} (2^64 - 1)")


def check_path(value: Any, name: str, *, optional: bool = False) -> str | None:
    """A file-system path given as ``str`` or ``os.PathLike`` (not empty)."""
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if isinstance(text, bytes):
            raise TypeError(f"{name}: expected a str path, got bytes")
        if not text.strip():
            raise scenario_error(name, "empty path")
        return text
    raise TypeError(f"{name}: expected a path (str or os.PathLike), got {_kind(value)}")


def check_scenario(scenario: Any, name: str = "scenario_or_path") -> None:
    """A path, TOML text or a dict whose leaves are scenario values."""
    if isinstance(scenario, Mapping):
        check_tree(scenario, "")  # located like the core's errors: links[1].loss.p
    elif isinstance(scenario, str):
        if not scenario.strip():
            raise scenario_error(name, "empty; expected a path, TOML text or a dict")
    elif isinstance(scenario, os.PathLike):
        check_path(scenario, name)
    else:
        raise TypeError(f"{name}: expected a path, TOML text or a dict, got {_kind(scenario)}")


def check_tree(value: Any, loc: str, *, finite: bool = True) -> None:
    """A value of a scenario given as Python data: tables with string keys, arrays, strings,
    booleans, integers and floats, finite ones only if ``finite`` (what TOML and JSON can both
    hold; an override value is TOML text, where the core names a nan or inf at its field)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{loc or 'scenario'}: key {k!r} is {_a(k)}; field names are strings")
            check_tree(v, f"{loc}.{k}" if loc else k, finite=finite)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_tree(v, _entry_loc(loc, value, i), finite=finite)
    elif isinstance(value, float):
        if finite and not math.isfinite(value):
            raise scenario_error(loc, "not a finite number: nan and inf are not allowed")
    elif value is None:
        raise scenario_error(loc, "None is not a value; leave the field out for its default")
    elif not isinstance(value, (str, bool, int)):
        raise TypeError(f"{loc}: {_a(value)} is not a scenario value (str, bool, int, float, list, dict)")


#: Top-level arrays whose entries ``--set`` and the core's messages address by ``name``.
_NAMED_ARRAYS = ("nodes", "links", "wlans", "flows", "agents")


def _is_index(name: str) -> bool:
    """Whether Rust's ``usize::from_str`` reads ``name`` (an optional ``+``, ASCII digits)."""
    digits = name[1:] if name.startswith("+") else name
    return bool(digits) and all("0" <= c <= "9" for c in digits)


def _entry_loc(loc: str, entries: Sequence[Any], i: int) -> str:
    """``links.bottleneck`` for the entry named ``bottleneck`` of a top-level named array, as the
    core names it (scenario/named_loc.rs: a name given once, not a number, free of ``.[]=``, space
    and control characters); ``loc[i]`` otherwise."""
    entry = entries[i]
    name = entry.get("name") if isinstance(entry, Mapping) else None
    usable = (
        loc in _NAMED_ARRAYS
        and isinstance(name, str)
        and name
        and not _is_index(name)
        and not any(c in ".[]= " or unicodedata.category(c) == "Cc" for c in name)
        and sum(isinstance(e, Mapping) and e.get("name") == name for e in entries) == 1
    )
    return f"{loc}.{name}" if usable else f"{loc}[{i}]"


def override_items(overrides: Any, name: str = "overrides") -> list[tuple[str, Any]]:
    """Overrides as (path, value) pairs: a dict of path -> value, or an iterable of (path, value)
    pairs or ``"path=value"`` strings (the CLI's ``--set`` syntax)."""
    from tcplab.scenario import parse_set

    if overrides is None:
        return []
    if isinstance(overrides, (str, bytes)):
        raise TypeError(f"{name}: expected a dict of path -> value or a list of 'path=value', got {_a(overrides)}")
    if isinstance(overrides, Mapping):
        items = list(overrides.items())
    elif isinstance(overrides, Iterable):
        items = []
        for i, item in enumerate(overrides):
            if isinstance(item, str):
                try:
                    items.append(parse_set(item))
                except ValueError:
                    raise scenario_error(f"{name}[{i}]", f"{item!r} is not 'path=value'") from None
            elif isinstance(item, Sequence) and not isinstance(item, bytes) and len(item) == 2:
                items.append((item[0], item[1]))
            else:
                raise TypeError(f"{name}[{i}]: expected a (path, value) pair or a 'path=value' string, got {item!r}")
    else:
        raise TypeError(f"{name}: expected a dict of path -> value or a list of 'path=value', got {_kind(overrides)}")
    for path, value in items:
        if not isinstance(path, str):
            raise TypeError(f"{name}: path {path!r} is {_a(path)}; paths are strings like 'links.bottleneck.rate'")
        if not path.strip():
            raise scenario_error(name, "an empty path; paths look like 'links.bottleneck.rate'")
        # A nan or inf is left to the core, which names its field as for --set (links.x.loss.p).
        check_tree(value, f"{name}[{path!r}]", finite=False)
    return items


def check_choice(value: Any, name: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected one of {list(allowed)}, got {_a(value)}")
    if value not in allowed:
        raise scenario_error(name, f"unknown {value!r}; allowed: {', '.join(allowed)}")
    return value


def check_optional(value: Any, name: str, kind: type, expected: str) -> None:
    """None or an instance of ``kind`` (a bool is not an int)."""
    if value is not None and (not isinstance(value, kind) or (kind is not bool and isinstance(value, bool))):
        raise TypeError(f"{name}: expected {expected}, got {_a(value)}")


def check_sweep_call(
    *,
    grid: Any,
    variants: Any,
    executor: Any,
    store: Any,
    name: Any,
    workers: Any,
    address: Any,
    progress: Any,
) -> None:
    """The arguments of :func:`tcplab.sweep` that :class:`tcplab.runner.Sweep` does not check."""
    if grid is not None and not isinstance(grid, Mapping):
        raise TypeError(f"grid: expected a dict of override path -> list of values, got {_a(grid)}")
    if isinstance(variants, (str, bytes)):
        raise TypeError(f"variants: expected a list of variant names, e.g. [{variants!r}], not a string")
    check_choice(executor, "executor", ("local", "ray"))
    check_store(store, "store", must_exist=False)
    check_optional(name, "name", str, "a string (the sweep's name)")
    if workers is not None:
        check_int(workers, "workers", 1, None, "a positive number of parallel runs")
    check_optional(address, "address", str, "a Ray cluster address such as 'host:6379'")
    if address is not None and executor != "ray":
        raise scenario_error("address", "a cluster address is only used by the ray executor (executor='ray')")
    check_optional(progress, "progress", bool, "True, False or None")


def check_store(value: Any, name: str = "store", *, must_exist: bool = True) -> str:
    """The path of a results store: a file (existing, if ``must_exist``), never a folder."""
    text = check_path(value, name)
    assert text is not None
    if os.path.isdir(text):
        raise scenario_error(name, f"{text} is a folder; a results store is a file (e.g. results/tcplab.db)")
    if must_exist and not os.path.exists(text):
        raise FileNotFoundError(2, "no results store (run a sweep first)", text)
    return text
