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
from dataclasses import dataclass, field
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
    #: The (cell JSON, seed) pairs this object holds (None: every run stored under the name).
    members: frozenset[tuple[str, int]] | None = None
    _tables: dict[str, pl.DataFrame] = field(default_factory=dict, compare=False, repr=False)

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
        """Numeric columns of ``runs`` (TCP flows' counters and the run's numbers) that can be summarised."""
        skip = {"seed", *self.parameters}
        return [c for c, t in self.runs.schema.items() if t.is_numeric() and c not in skip]

    @property
    def all_metrics(self) -> list[str]:
        """Every metric :meth:`summary` takes: TCP flows' (``goodput_bps``…), UDP/CBR flows'
        (``cbr.delivery_ratio``…), link directions' (``link.drops_queue``…), stations'
        (``wifi.retries``…), nodes' and their routing agents' (``node.control_packets``…), and the
        run's (``sim_time_s``, ``events``, ``wall_time_s``); see :mod:`tcplab.metrics`."""
        from tcplab.metrics import allowed

        return allowed(self.metrics)

    def table(self, metric: str) -> pl.DataFrame:
        """The rows ``metric`` is read from: one per run and element of its family (TCP flow, CBR
        flow, link direction, station, node; named in ``flow``), every run status included.
        Raises ValueError naming every allowed metric."""
        from tcplab.metrics import RUN_METRICS, family_of

        if metric in RUN_METRICS:
            return self.runs.unique(subset=["key"], keep="first", maintain_order=True)
        if metric in self.metrics:
            return self.runs
        found = family_of(metric)
        if found is None:
            raise ValueError(f"unknown metric {metric!r}; expected one of {self.all_metrics}")
        fam = found[0]
        if fam.table not in self._tables:
            with Store(self.store, readonly=True) as db:
                self._tables[fam.table] = db.elements(fam, self.name, status=None, members=self.members)
        return self._tables[fam.table]

    def flows_of(self, metric: str = DEFAULT_METRIC) -> list[str]:
        """The flows (or links, stations, nodes) ``metric`` has in the ok runs, in order."""
        from tcplab.quantities import sorted_values

        frame = self.table(metric)
        ok = frame.filter(pl.col("status") == "ok")
        return sorted_values(ok["flow"].drop_nulls().unique().to_list()) if "flow" in ok.columns else []

    def default_by(self, metric: str = DEFAULT_METRIC, *, per_flow: bool = True) -> list[str]:
        """The swept parameters, and ``flow`` when ``metric`` has more than one flow (link,
        station, node) per run and ``per_flow`` (neither one flow picked nor flows summed)."""
        from tcplab.metrics import RUN_METRICS

        several = per_flow and metric not in RUN_METRICS and len(self.flows_of(metric)) > 1
        return [*self.parameters, *(["flow"] if several else [])]

    def per_run(self, metric: str, *, flow: str | None = None, sum_flows: bool = False) -> pl.DataFrame:
        """The ok rows of ``metric``: all of them, those of one ``flow`` (or link, station, node),
        or with ``sum_flows`` one row per run holding the sum over its flows.  Raises ValueError
        naming the allowed metrics or flows, or why a metric does not add up."""
        from tcplab.metrics import RUN_METRICS, additive

        from tcplab.metrics import what

        frame = self.table(metric)
        ok = frame.filter(pl.col("status") == "ok")
        if metric not in RUN_METRICS and not ok.is_empty() and ok["flow"].drop_nulls().is_empty():
            raise ValueError(f"{metric}: the runs of sweep {self.name} have no {what(metric)}")
        if flow is not None and sum_flows:
            raise ValueError("flow and sum_flows: give one flow or sum them, not both")
        if (flow is not None or sum_flows) and metric in RUN_METRICS:
            raise ValueError(f"{'flow' if flow is not None else 'sum_flows'}: {metric} is a number of the run, not of a flow")
        if flow is not None:
            names = self.flows_of(metric)
            if flow not in names:
                raise ValueError(f"flow: no flow {flow!r} has {metric} in sweep {self.name}; expected one of {names}")
            ok = ok.filter(pl.col("flow") == flow)
        if sum_flows:
            if not additive(metric):
                raise ValueError(
                    f"sum_flows: {metric} does not add up over flows (a ratio, percentage or time); "
                    f"pick one flow of {self.flows_of(metric)}"
                )
            keys = ["key", "seed", *self.parameters]
            ok = ok.group_by(keys, maintain_order=True).agg(pl.col(metric).sum(), pl.col(metric).null_count().alias("_nulls"))
            ok = ok.with_columns(pl.when(pl.col("_nulls") > 0).then(None).otherwise(pl.col(metric)).alias(metric)).drop("_nulls")
        return ok

    def summary(
        self,
        metric: str = DEFAULT_METRIC,
        by: Sequence[str] | None = None,
        *,
        flow: str | None = None,
        sum_flows: bool = False,
    ) -> SweepSummary:
        """Mean, 95 % CI half-width, std and n of ``metric`` over the ok runs, per group of ``by``
        (default: :meth:`default_by`).  ``metric`` is any of :attr:`all_metrics`; ``flow`` keeps one
        flow (link, station, node), ``sum_flows`` adds up each run's flows first.  Raises ValueError
        naming the allowed metrics, flows or columns."""
        rows = self.per_run(metric, flow=flow, sum_flows=sum_flows)
        by = list(self.default_by(metric, per_flow=flow is None and not sum_flows) if by is None else by)
        return SweepSummary.of(rows, metric, by)

    def series(self, key: str) -> pl.DataFrame:
        """The time series (flow, at, series, t_s, value) recorded by run ``key``."""
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
    return SweepResult(spec.name, Path(store), runs, parameters, report, frozenset(members))


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
