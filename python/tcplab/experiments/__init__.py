"""Registry of experiments that ``tcplab reproduce`` runs, in report order.

Each entry names a package ``<paper>/`` (``experiment.py``, the interface of
:class:`tcplab.experiments.base.Experiment`, beside ``scenario.py``, ``findings.py``, ``claims.py``,
``figures.py`` … as the paper needs) or a single module implementing that interface.  Adding a paper is
adding a package (or module) and one name here; nothing else in the runner or report changes.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Module names (within this package) of every experiment, in report order.
MODULES: tuple[str, ...] = (
    "wired_loss", "mtcp_plus", "ack_holding", "adaptive_tcp", "tcp_pgy", "atcp", "routing", "wireless_baselines",
)


def names() -> tuple[str, ...]:
    """The experiments' command-line names without importing them (each module's ``NAME`` is its module
    name with dashes; the registry's tests check it), for ``tcplab reproduce --help``."""
    return tuple(m.replace("_", "-") for m in MODULES)


def _load(name: str) -> ModuleType:
    """The experiment module of a registry entry: a package's ``experiment`` module, or the module itself."""
    mod = importlib.import_module(f"{__name__}.{name}")
    return importlib.import_module(f"{__name__}.{name}.experiment") if hasattr(mod, "__path__") else mod


def all_experiments() -> dict[str, ModuleType]:
    """Every experiment module, keyed by its ``NAME`` (as typed on the command line)."""
    mods = [_load(m) for m in MODULES]
    return {m.NAME: m for m in mods}


def select(names: list[str] | None) -> list[ModuleType]:
    """The experiments called ``names`` (all of them if empty); unknown names raise KeyError."""
    registry = all_experiments()
    if not names:
        return list(registry.values())
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise KeyError(f"unknown experiment(s) {unknown}; available: {sorted(registry)}")
    return [registry[n] for n in names]
