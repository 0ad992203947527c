"""The researcher's view of sweeps: run a parameter grid, get DataFrames, summarise, plot.

``tcplab.sweep(...)`` runs a grid of scenarios (through :func:`tcplab.runner.run_sweep`, so runs
already in the store are not repeated) and returns a :class:`SweepResult`; ``tcplab.results(store,
sweep=...)`` loads the same object later from the store.  Its ``runs`` frame has one row per run and
flow with every swept parameter as its own column; ``summary(metric, by=[...])`` gives the mean and
95 % Student-t confidence interval per cell as a :class:`SweepSummary`, a polars DataFrame that can
also ``plot()`` itself.

>>> import tcplab
>>> res = tcplab.sweep("examples/wired_lossy.toml", grid={"links.bottleneck.loss.p": [0.01, 0.02]},
...                    variants=["newreno", "sack"], replications=5)            # doctest: +SKIP
>>> res.summary("goodput_bps")                                                   # doctest: +SKIP
>>> res.summary("goodput_bps").plot(x="links.bottleneck.loss.p", path="goodput.png")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from tcplab.runner import EXECUTORS, Sweep, SweepReport, plan_sweep, run_sweep
from tcplab.scenario import ScenarioLike
from tcplab.stats import summary_frame
from tcplab.store import DEFAULT_STORE, Store, canonical_json

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The metric summarised when none is named: what most TCP studies plot first.
DEFAULT_METRIC = "goodput_bps"


class SweepSummary(pl.DataFrame):
    """A summary table: the grouping columns, then ``mean``, ``ci95`` (half-width of the 95 %
    Student-t confidence interval), ``std`` and ``n`` (values averaged) per group.

    It is a polars DataFrame; polars operations on it return plain DataFrames.  ``metric`` and
    ``by`` say what was summarised, and :meth:`plot` draws it.
    """

    metric: str
    by: tuple[str, ...]

    @classmethod
    def of(cls, frame: pl.DataFrame, metric: str, by: Sequence[str]) -> SweepSummary:
        """Summarise ``metric`` of ``frame`` (one row per replication) per group of ``by``."""
        out = cls(summary_frame(frame, metric, by))
        out.metric, out.by = metric, tuple(by)
        return out

    def plot(  # type: ignore[override]  # polars' ``plot`` is a namespace of Altair charts
        self, x: str | None = None, hue: str | None = None, *, path: str | os.PathLike | None = None, **options: Any
    ) -> Figure:
        """Draw ``mean`` against column ``x`` with the 95 % CI as error bars, one line per value of
        ``hue``; ``options`` are those of :func:`tcplab.plots.summary_figure` (``band``, ``logx``,
        ``logy``, ``title``, ``ax``).  Writes a PNG to ``path`` if given; returns the Figure."""
        from tcplab.plots import save, summary_figure

        fig = summary_figure(self, self.metric, self.by, x=x, hue=hue, **options)
        if path is not None:
            save(fig, Path(path))
        return fig


@dataclass(frozen=True)
class SweepResult:
    """A sweep's runs, as stored.

    ``runs`` has one row per run and flow: key, sweep, seed, status, error, one column per swept
    parameter (its override path, e.g. ``links.bottleneck.loss.p``), sim_time_s, events,
    wall_time_s, flow and every per-flow counter of the core (goodput_bps, retransmissions, ...).
    A failed run has one row with its error and null counters.  ``parameters`` names the swept
    columns; ``report`` says what the call that produced this object executed (None when loaded
    with :func:`results`).
    """

    name: str
    store: Path
    runs: pl.DataFrame
    parameters: tuple[str, ...]
    report: SweepReport | None = None

    @property
    def ok(self) -> pl.DataFrame:
        """The rows of runs that completed."""
        return self.runs.filter(pl.col("status") == "ok")

    @property
    def failed(self) -> pl.DataFrame:
        """The rows of runs that failed, with their error."""
        return self.runs.filter(pl.col("status") != "ok")

    @property
    def metrics(self) -> list[str]:
        """Numeric columns of ``runs`` that can be summarised."""
        skip = {"seed", *self.parameters}
        return [c for c, t in self.runs.schema.items() if t.is_numeric() and c not in skip]

    def default_by(self) -> list[str]:
        """The swept parameters, and ``flow`` when the runs hold more than one flow."""
        flows = self.ok["flow"].drop_nulls().n_unique() if "flow" in self.runs.columns else 0
        return [*self.parameters, *(["flow"] if flows > 1 else [])]

    def summary(self, metric: str = DEFAULT_METRIC, by: Sequence[str] | None = None) -> SweepSummary:
        """Mean, 95 % CI half-width, std and n of ``metric`` over the ok runs, per group of ``by``
        (default: :meth:`default_by`).  Raises ValueError naming the allowed metrics or columns."""
        if metric not in self.metrics:
            raise ValueError(f"unknown metric {metric!r}; expected one of {self.metrics}")
        by = list(self.default_by() if by is None else by)
        return SweepSummary.of(self.ok, metric, by)

    def series(self, key: str) -> pl.DataFrame:
        """The time series (flow, series, t_s, value) recorded by run ``key``."""
        with Store(self.store, readonly=True) as store:
            return store.series(key)

    def __repr__(self) -> str:
        n_ok = self.ok["key"].n_unique()
        n_failed = self.failed["key"].n_unique()
        return (
            f"SweepResult(name={self.name!r}, runs={n_ok} ok + {n_failed} failed, "
            f"parameters={list(self.parameters)}, store={str(self.store)!r})"
        )


def sweep(
    base: ScenarioLike,
    grid: Mapping[str, Sequence[Any]] | None = None,
    variants: Sequence[str] = (),
    replications: int = 1,
    executor: str = "local",
    store: str | os.PathLike = DEFAULT_STORE,
    *,
    name: str | None = None,
    cells: Sequence[Mapping[str, Any]] | None = None,
    seed0: int = 1,
    workers: int | None = None,
    address: str | None = None,
    progress: bool | None = None,
) -> SweepResult:
    """Run every cell of ``grid`` x ``variants`` (x explicit ``cells``) with ``replications`` seeds
    (``seed0``, ``seed0 + 1``, ...), store the runs and return them as a :class:`SweepResult`.

    ``base`` is a scenario (path, TOML text or dict); ``grid`` maps override paths (as in
    ``--set``) to value lists and is expanded as a cartesian product; ``variants`` is shorthand for
    a grid over ``tcp.variant``.  Runs already in ``store`` as ok are not repeated, whatever sweep
    asked for them.  ``executor`` is ``"local"`` (``workers`` processes, default one per CPU) or
    ``"ray"`` (a local Ray, or the cluster at ``address``; ``workers`` caps the runs in flight).
    ``name`` (default: the scenario's name) is how :func:`results` finds the sweep again; the
    returned ``runs`` hold exactly this call's cells and seeds.
    """
    from tcplab._args import check_sweep_call

    check_sweep_call(
        grid=grid, variants=variants, executor=executor, store=store, name=name, workers=workers,
        address=address, progress=progress,
    )
    if name is None:
        from tcplab import resolve

        name = str(resolve(base)["name"])
    spec = Sweep(
        name=name,
        base=base,
        grid=dict(grid or {}),
        cells=cells,
        variants=tuple(variants),
        replications=replications,
        seed0=seed0,
    )
    return run(spec, store, executor=executor, workers=workers, address=address, progress=progress)


def run(
    spec: Sweep,
    store: str | os.PathLike = DEFAULT_STORE,
    executor: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool | None = None,
) -> SweepResult:
    """Run a :class:`~tcplab.runner.Sweep` (e.g. ``Sweep.from_toml(path)``) and return its result."""
    expanded = spec.expand()
    members = {(canonical_json(cell), seed) for cell in expanded for seed in spec.seeds()}
    plan = plan_sweep(spec)  # refused (ScenarioError) before the store is opened
    with Store(store) as db:
        report = run_sweep(spec, db, executor=executor, workers=workers, address=address, progress=progress, plan=plan)
        runs = db.flows(spec.name, status=None, members=members)
    parameters = tuple(sorted({path for cell in expanded for path in cell}))
    return SweepResult(spec.name, Path(store), runs, parameters, report)


def results(store: str | os.PathLike = DEFAULT_STORE, sweep: str | None = None) -> SweepResult:
    """Load a stored sweep (every cell and seed ever run under that name) as a :class:`SweepResult`.

    ``sweep`` may be omitted when the store holds one sweep only.  Raises FileNotFoundError for a
    missing store and ValueError naming the stored sweeps for an unknown or ambiguous name.
    """
    import sqlite3

    from tcplab._args import check_optional, check_store, scenario_error

    path = Path(check_store(store))
    check_optional(sweep, "sweep", str, "a sweep name")
    try:
        db = Store(path, readonly=True)
        names = db.sweeps()
    except sqlite3.Error as exc:  # not a database, or not one of tcplab's
        raise scenario_error("store", f"{path} is not a tcplab results store ({exc})") from None
    with db:
        if sweep is None:
            if len(names) != 1:
                raise scenario_error("sweep", f"the store holds {len(names)} sweeps, name one of {names}")
            sweep = names[0]
        elif sweep not in names:
            raise scenario_error("sweep", f"no sweep named {sweep!r} in {path}; stored sweeps: {names}")
        runs = db.flows(sweep, status=None)
        parameters = tuple(db.parameters(sweep))
    return SweepResult(sweep, path, runs, parameters)
