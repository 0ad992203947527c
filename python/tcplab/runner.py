"""Sweeps as data, fanned out over processes or Ray, results kept in the store.

DESIGN principle 9: one run is single-threaded and fast, so parallelism comes from running many
independent runs (cells x replications) at once.  A :class:`Sweep` is plain data -- a base scenario,
a grid or list of override cells, TCP variants and a replication count -- loadable from TOML so
that a sweep file can be versioned next to the scenario it explores.

The driving process resolves every cell with the core (which validates it and fills defaults), keys
each (cell, seed) by the resolved scenario, skips keys the store already holds as ok, and sends the
rest to an executor.  Workers only simulate and return plain data; the driver is the single writer
of the store.  Both executors call the same :func:`execute` on the same :class:`Task`, so their
stored results are identical bit for bit (apart from wall-clock time).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
import os
import re
import socket
import stat
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from tcplab import _core, _fs
from tcplab._fs import read_input
from tcplab.exceptions import ScenarioError, describe
from tcplab.progress import tracker
from tcplab.result import split_series
from tcplab.scenario import ScenarioLike, cell_pairs, load, movement_files
from tcplab.store import RunRecord, Store, canonical_json, run_key

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

EXECUTORS = ("local", "ray")
_SWEEP_KEYS = {"name", "base", "replications", "seed0", "variants", "grid", "cells"}


@dataclass(frozen=True)
class Sweep:
    """A set of runs: every cell of ``cells x grid x variants``, each replicated with seeds
    ``seed0 .. seed0 + replications - 1``.

    ``cells`` is an explicit list of override dicts (default: one empty cell); ``grid`` maps override
    paths to value lists and is expanded as a cartesian product; ``variants`` is shorthand for a grid
    over ``tcp.variant``.  Paths are those of the CLI's ``--set`` (``links.bottleneck.loss.p``).
    """

    name: str
    base: ScenarioLike
    grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    cells: Sequence[Mapping[str, Any]] | None = None
    variants: Sequence[str] = ()
    replications: int = 1
    seed0: int = 1
    #: Per-replication overrides: ``per_seed(cell, seed)`` returns override paths -> values added to the
    #: cell's for that seed only (a start offset or fade position drawn from the seed, say, so that
    #: replications vary what the papers vary besides the radio's backoff).  It must be a pure function of
    #: its arguments (results are stored and resumed by key); the cell keeps its label, so analyses find
    #: the replications under it; the drawn values are in each run's stored scenario.
    per_seed: Callable[[Mapping[str, Any], int], Mapping[str, Any]] | None = None

    def __post_init__(self) -> None:
        # Wrong types raise TypeError, wrong values ScenarioError (a ValueError), naming the field.
        from tcplab._args import SEED_MAX, check_int, check_scenario, check_tree, scenario_error

        if not isinstance(self.name, str):
            raise TypeError(f"sweep.name: expected a string, got {type(self.name).__name__}")
        if not self.name:
            raise scenario_error("sweep.name", "a sweep needs a name (how its results are found again)")
        check_scenario(self.base, "sweep.base")
        check_int(self.replications, "sweep.replications", 1, None, "a positive integer")
        check_int(self.seed0, "sweep.seed0", 0, SEED_MAX, f"an integer from 0 to {SEED_MAX} (the first seed)")
        if self.seed0 + self.replications - 1 > SEED_MAX:  # one rule for seeds: what the core takes
            raise scenario_error(
                "sweep.seed0", f"the last seed, seed0 + replications - 1, must be at most {SEED_MAX}"
            )
        if not isinstance(self.grid, Mapping):
            raise TypeError(f"sweep.grid: expected a table of override path = [values], got {type(self.grid).__name__}")
        for path, values in self.grid.items():
            if not isinstance(path, str):
                raise TypeError(f"sweep.grid: path {path!r} is not a string; paths are strings like 'tcp.variant'")
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
                raise scenario_error(f"sweep.grid.{path}", f"expected a non-empty array of values, got {values!r}")
            check_tree(list(values), f"sweep.grid.{path}")
        if self.cells is not None:
            if isinstance(self.cells, (str, bytes, Mapping)) or not isinstance(self.cells, Sequence):
                raise TypeError("sweep.cells: expected a list of tables of override path = value")
            for i, cell in enumerate(self.cells):
                if not isinstance(cell, Mapping):
                    raise TypeError(f"sweep.cells[{i}]: expected a table of override path = value, got {cell!r}")
                check_tree(dict(cell), f"sweep.cells[{i}]")
        if self.per_seed is not None and not callable(self.per_seed):
            raise TypeError(f"sweep.per_seed: expected a function (cell, seed) -> overrides, got {self.per_seed!r}")
        if isinstance(self.variants, (str, bytes)) or not all(isinstance(v, str) for v in self.variants):
            raise TypeError(f"sweep.variants: expected a list of variant names, e.g. ['reno', 'sack'], got {self.variants!r}")

    def expand(self) -> list[dict[str, Any]]:
        """The cells of the sweep in a stable order (explicit cells, then grid, then variants)."""
        axes = dict(self.grid)
        if self.variants:
            axes["tcp.variant"] = list(self.variants)
        out = []
        for explicit in self.cells if self.cells is not None else [{}]:
            for combo in itertools.product(*axes.values()):
                cell = dict(explicit)
                for path, value in zip(axes, combo, strict=True):
                    if path in cell:
                        raise ValueError(f"override {path!r} appears both in a cell and in the grid/variants")
                    cell[path] = value
                out.append(cell)
        return out

    def seeds(self) -> range:
        return range(self.seed0, self.seed0 + self.replications)

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> Sweep:
        """Load a sweep file: a ``[sweep]`` table plus either ``sweep.base`` (a scenario path,
        relative to the sweep file) or the scenario itself as the file's other top-level tables."""
        path = Path(path)
        doc = tomllib.loads(read_input(path, "sweep file").decode("utf-8"))
        return cls.from_dict(doc, base_dir=path.parent)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], base_dir: str | os.PathLike = ".") -> Sweep:
        """Build from the parsed form of a sweep file (see :meth:`from_toml` and docs/sweeps.md).

        Raises ValueError naming the field (``sweep.replications``) and what it accepts.
        """
        spec = doc.get("sweep")
        if not isinstance(spec, Mapping):
            raise ValueError("a sweep file needs a [sweep] table")
        unknown = sorted(set(spec) - _SWEEP_KEYS)
        if unknown:
            raise ValueError(f"sweep: unknown field(s) {unknown}; allowed: {sorted(_SWEEP_KEYS)}")
        rest = {k: v for k, v in doc.items() if k != "sweep"}
        if "base" in spec:
            if rest:
                raise ValueError("sweep.base is set, so the file must not also contain scenario tables")
            base: ScenarioLike = Path(base_dir) / _field(spec, "base", str, "a scenario file path")
        elif rest:
            base = rest
        else:
            raise ValueError("sweep: give sweep.base or put the scenario in the same file")
        grid = _field(spec, "grid", Mapping, "a table of override path = [values]", {})
        cells = _field(spec, "cells", list, "an array of tables of override path = value", None)
        if cells is not None and not all(isinstance(c, Mapping) for c in cells):
            raise ValueError("sweep.cells: expected an array of tables of override path = value")
        variants = _field(spec, "variants", list, 'an array of variant names, e.g. ["reno", "sack"]', [])
        if not all(isinstance(v, str) for v in variants):
            raise ValueError('sweep.variants: expected an array of variant names, e.g. ["reno", "sack"]')
        return cls(
            name=_field(spec, "name", str, "a non-empty string", ""),
            base=base,
            grid=dict(grid),
            cells=cells,
            variants=tuple(variants),
            replications=_field(spec, "replications", int, "a positive integer", 1),
            seed0=_field(spec, "seed0", int, "an integer (the first seed)", 1),
        )


_MISSING = object()


def _field(spec: Mapping[str, Any], name: str, kind: type, expected: str, default: Any = _MISSING) -> Any:
    """``spec[name]`` if it is a ``kind`` (booleans are not integers), else a ValueError in the
    sweep file's words."""
    value = spec.get(name, default)
    if value is _MISSING:
        raise ValueError(f"sweep.{name}: missing; expected {expected}")
    if value is not default and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ValueError(f"sweep.{name}: expected {expected}, got {value!r}")
    return value


@dataclass(frozen=True)
class Task:
    """One run as sent to a worker: plain, picklable data."""

    key: str
    text: str
    format: str
    overrides: tuple[tuple[str, str], ...]
    seed: int


def execute(task: Task) -> dict[str, Any]:
    """Run one task in a worker; never raises for a failing run, so the sweep carries on.

    Returns ``{"key", "status", "error", "summary", "series", "wall_time_s"}``.  Ctrl-C
    (KeyboardInterrupt) is not caught: it stops the sweep.
    """
    try:
        raw = _core.run(task.text, task.format, task.seed, list(task.overrides))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a failed run is data, whatever the cause (a Rust panic included)
        return {
            "key": task.key,
            "status": "failed",
            "error": describe(exc),
            "summary": None,
            "series": None,
            "wall_time_s": None,
        }
    summary, series = split_series(raw)
    return {
        "key": task.key,
        "status": "ok",
        "error": None,
        "summary": summary,
        "series": series,
        "wall_time_s": summary.get("wall_time_s"),
    }


@dataclass(frozen=True)
class SweepReport:
    """What a call to :func:`run_sweep` did."""

    sweep: str
    total: int  # distinct runs in the sweep
    cached: int  # already stored as ok, not repeated
    executed: tuple[str, ...]  # keys simulated by this call
    failed: tuple[str, ...]  # keys that failed in this call
    #: (cell as stored, seed, reason) of every run that failed in this call, in the order they ended
    failures: tuple[tuple[str, int, str], ...] = ()


@dataclass
class _Planned:
    task: Task
    cell: str
    members: list[tuple[str, int]]  # further (cell, seed) asking for the same key
    scenario_json: str


def _keyed(src: Any, pairs: tuple[tuple[str, str], ...]) -> tuple[str, Any]:
    """A cell's resolved scenario as stored, and what its run key hashes."""
    resolved = _core.resolve(src.text, src.format, list(pairs))
    # What a run reads besides its scenario is part of what was simulated.
    files = movement_files(resolved)
    return canonical_json(resolved), (resolved | {"movement_files": files} if files else resolved)


#: What :func:`plan_sweep` finds: the core's version and the distinct runs by key.
SweepPlan = tuple[str, dict[str, "_Planned"]]


def plan_sweep(sweep: Sweep) -> SweepPlan:
    """Resolve every cell of ``sweep`` (with the core, which validates it) and key its runs.

    A value the scenario refuses (an axis naming no entry, a rate without a unit) refuses the
    whole sweep: :class:`ScenarioError` naming the sweep field that gave it, with the scenario's
    own message (which lists what is allowed).  Nothing is run or stored.
    """
    src = load(sweep.base)
    version = _core.version()
    plans: dict[str, _Planned] = {}
    unresolved: list[tuple[dict[str, Any], ScenarioError]] = []
    for cell in sweep.expand():
        cell_json = canonical_json(cell)
        once: tuple[str, Any] | None = None  # without per-seed overrides a cell resolves once for all seeds
        for seed in sweep.seeds():
            extra = dict(sweep.per_seed(cell, seed)) if sweep.per_seed is not None else {}
            pairs = tuple(cell_pairs(cell | extra))
            try:
                if once is None or extra:
                    once = _keyed(src, pairs)
                scenario_json, keyed = once
            except ScenarioError as exc:
                unresolved.append((cell | extra, exc))
                break  # the cell's other seeds say the same
            key = run_key(keyed, seed, version)
            if key in plans:
                plans[key].members.append((cell_json, seed))
            else:
                plans[key] = _Planned(Task(key, src.text, src.format, pairs, seed), cell_json, [], scenario_json)
    if unresolved:
        raise _refusal(sweep, src, unresolved)
    return version, plans


def run_sweep(
    sweep: Sweep,
    store: Store,
    executor: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool | None = None,
    verbose: bool = False,
    plan: SweepPlan | None = None,
) -> SweepReport:
    """Run every missing run of ``sweep`` and store the results; see the module docstring.

    ``plan`` is ``plan_sweep(sweep)`` if the caller made it already (to be refused before opening
    the store); otherwise it is made here, and a cell that does not resolve raises
    :class:`ScenarioError` before anything is stored or run.

    ``executor`` is ``"local"`` (``workers`` processes, default ``os.cpu_count()``) or ``"ray"``
    (connect to ``address``, or start/use a local Ray; ``workers`` then caps the runs in flight).
    ``progress`` shows a bar (default: when stderr is a terminal); ``verbose`` shows Ray's
    start-up messages.
    """
    if executor not in EXECUTORS:
        raise ValueError(f"executor: unknown {executor!r}; expected one of {list(EXECUTORS)}")
    if workers is not None:
        from tcplab._args import check_int

        check_int(workers, "workers", 1, None, "a positive number of parallel runs")
    if address is not None and executor != "ray":
        raise ValueError("address: a cluster address is only used by the ray executor (executor='ray')")
    version, plans = plan if plan is not None else plan_sweep(sweep)
    failed_now: list[str] = []
    failures: list[tuple[str, int, str]] = []
    store.remove_stale_temporaries()
    done = store.ok_keys(plans)
    store.add_members(
        (sweep.name, cell, seed, key)
        for key in done
        for cell, seed in [(plans[key].cell, plans[key].task.seed), *plans[key].members]
    )
    todo = [p for key, p in plans.items() if key not in done]
    total = len(plans)
    executed: list[str] = []

    def on_result(outcome: dict[str, Any]) -> bool:
        plan = plans[outcome["key"]]
        store.record(
            RunRecord(
                key=plan.task.key,
                sweep=sweep.name,
                cell=plan.cell,
                scenario_json=plan.scenario_json,
                seed=plan.task.seed,
                version=version,
                status=outcome["status"],
                error=outcome["error"],
                summary=outcome["summary"],
                series=outcome["series"],
                wall_time_s=outcome["wall_time_s"],
            ),
            members=[(sweep.name, c, s) for c, s in plan.members],
        )
        executed.append(plan.task.key)
        if outcome["status"] != "ok":
            failed_now.append(plan.task.key)
            failures.append((plan.cell, plan.task.seed, outcome["error"] or "no reason recorded"))
        return outcome["status"] != "ok"

    with tracker(sweep.name, total, done=len(done), enabled=progress) as bar:
        tasks = [p.task for p in todo]
        outcomes = _run_local(tasks, workers, address) if executor == "local" else _run_ray(tasks, workers, address, verbose)
        for outcome in outcomes:
            bar.advance(failed=on_result(outcome))

    return SweepReport(sweep.name, total, len(done), tuple(executed), tuple(failed_now), tuple(failures))


def _refusal(sweep: Sweep, src: Any, unresolved: list[tuple[dict[str, Any], ScenarioError]]) -> ScenarioError:
    """One ScenarioError for every distinct problem of the cells that do not resolve, each at the
    sweep field that gave the value (``sweep.grid."links.x.rate"``, ``sweep.variants``,
    ``sweep.cells[2]``) with the value and the scenario's own message (which names what is
    allowed); a problem no cell value explains is the base scenario's (``sweep.base``)."""
    problems: dict[tuple[str, str], list[Any]] = {}  # (sweep field, problem) -> the values giving it
    base_ok = _resolves(src, {})
    for cell, exc in unresolved:
        for e in exc.errors():
            loc, msg = str(e.get("loc") or ""), str(e.get("msg"))
            problem = f"{loc}: {msg}" if loc else msg
            path = _axis_of(loc, cell)
            if path is None and base_ok:  # e.g. an axis `links[1].rate` whose error says `links.bottleneck.rate`
                path = next((p for p in cell if not _resolves(src, {p: cell[p]})), None)
            where = "sweep.base" if path is None else _sweep_field(sweep, path, cell[path])
            values = problems.setdefault((where, problem), [])
            if path is not None and cell[path] not in values:
                values.append(cell[path])
    errors = []
    for (where, problem), values in problems.items():
        shown = ", ".join(repr(v) for v in values[:_VALUES_SHOWN]) + (", …" if len(values) > _VALUES_SHOWN else "")
        errors.append({"loc": where, "msg": f"{shown} → {problem}" if values else problem})
    text = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors)
    return ScenarioError(f"the sweep was not run: {text}", errors)


#: Values of one axis named in a refusal (the rest are elided).
_VALUES_SHOWN = 5


def _resolves(src: Any, overrides: Mapping[str, Any]) -> bool:
    """Whether the base scenario resolves with just ``overrides``."""
    try:
        _core.resolve(src.text, src.format, list(cell_pairs(overrides)))
    except ScenarioError:
        return False
    return True


def _segments(path: str) -> list[str]:
    """``links[1].rate`` and ``links.1.rate`` alike: ``["links", "1", "rate"]``."""
    return path.replace("[", ".").replace("]", "").split(".")


def _axis_of(loc: str, cell: Mapping[str, Any]) -> str | None:
    """The override path of ``cell`` that an error at ``loc`` is about: the path itself, a field
    inside the table it sets, or the entry it names (``links.bottlenek`` for ``links.bottlenek.rate``)."""
    at = _segments(loc)
    for path in cell:
        p = _segments(path)
        n = min(len(p), len(at))
        if loc and p[:n] == at[:n]:
            return path
    return None


def _sweep_field(sweep: Sweep, path: str, value: Any) -> str:
    """Where in the sweep a cell's value for ``path`` came from."""
    if path in sweep.grid:
        return f"sweep.grid.{json.dumps(path)}"
    if path == "tcp.variant" and sweep.variants:
        return "sweep.variants"
    for i, explicit in enumerate(sweep.cells or ()):
        if path in explicit and explicit[path] == value:
            return f"sweep.cells[{i}].{json.dumps(path)}"
    return f"sweep.per_seed: {path}"


def _run_local(tasks: list[Task], workers: int | None, address: str | None) -> Iterator[dict[str, Any]]:
    """Yield outcomes as local worker processes finish them (see :mod:`tcplab.workers`)."""
    # Imported here so that ``python -m tcplab.workers`` finds the module not yet imported.
    from tcplab.workers import run_local

    return run_local(tasks, workers)


def _run_ray(
    tasks: list[Task], workers: int | None, address: str | None, verbose: bool = False
) -> Iterator[dict[str, Any]]:
    """Yield outcomes as Ray tasks finish; Ray is imported only when asked for.

    An already initialised Ray (e.g. by the caller) is used as is; otherwise we connect to the
    cluster at ``address``, or start a local instance with ``workers`` CPUs, and disconnect (or shut
    it down) afterwards.  At most ``workers`` runs are in flight either way, so a cap is honoured on
    a shared cluster too.  Ray's start-up messages (log lines, authentication notes) are hidden
    unless ``verbose``: a sweep's output is its progress and its summary line.
    """
    if not tasks:
        return
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("the ray executor needs Ray: pip install 'tcplab[ray]'") from exc
    owned = not ray.is_initialized()
    stack = contextlib.ExitStack()
    if owned:
        if address is not None:
            _check_reachable(address)
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": verbose}
        if not verbose:
            options["logging_level"] = logging.ERROR
        local = address is None and not os.environ.get("RAY_ADDRESS")
        if local and workers is not None:
            options["num_cpus"] = workers  # a cluster we start has exactly the asked-for workers
        if local:
            with contextlib.ExitStack() as starting:
                scratch = starting.enter_context(_private_files(ray))
                with _loopback_only(ray):  # a Ray we start is reachable from this machine only
                    # "local": always an instance of our own, never one found on the machine.
                    try:
                        ray.init(address="local", _node_ip_address="127.0.0.1", _temp_dir=scratch, **options)
                    except BaseException as exc:
                        ray.shutdown()  # whatever had started, before its folder goes
                        _raise_start_failure(exc, "start a local Ray")
                stack = starting.pop_all()  # started: kept until the shutdown below
        else:
            try:
                ray.init(address=address, **options)  # the user's cluster, as the user set it up
            except BaseException as exc:
                _raise_start_failure(exc, f"connect to the Ray cluster at {address or os.environ.get('RAY_ADDRESS')}")
    try:
        remote = ray.remote(num_cpus=1)(execute)
        limit = workers or len(tasks)
        queue = list(reversed(tasks))
        in_flight: dict[Any, Task] = {}
        while queue or in_flight:
            while queue and len(in_flight) < limit:
                task = queue.pop()
                in_flight[remote.remote(task)] = task
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                task = in_flight.pop(ref)
                yield _outcome_or_crash(functools.partial(ray.get, ref), task)
    finally:
        if owned:
            ray.shutdown()
        stack.close()  # after the shutdown: the session's files go, the environment is restored


def _raise_start_failure(exc: BaseException, what: str) -> NoReturn:
    """Ray's start-up errors are plain ``Exception``s (``The current node timed out during
    startup``, seen on a loaded machine): a RuntimeError saying what failed, never a traceback."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit)) or not isinstance(exc, Exception):
        raise exc
    raise RuntimeError(f"the ray executor could not {what}: {exc}") from exc


#: Ray's session folder holds Unix sockets, whose paths the kernel limits to 107 bytes; Ray adds
#: about 65 (``session_<date>_<time>_<us>_<pid>/sockets/plasma_store``) to its temporary folder.
_RAY_SCRATCH_MAX = 40


@contextlib.contextmanager
def _private_files(ray: Any) -> Iterator[str]:
    """While a Ray of our own runs: every file it writes lies in a folder of tcplab's, removed
    afterwards; nothing in the user's home or in the machine's shared ``/tmp/ray``.

    Ray puts its session (logs, sockets, spilled objects) under ``_temp_dir`` (default
    ``$TMPDIR/ray`` or ``/tmp/ray``, kept after the run), and since Ray 2.5x a new local instance
    turns on token authentication and, when no token is given, saves a new one as
    ``~/.ray/auth_token`` (``authentication_token_setup.ensure_token_if_auth_enabled``).  We give
    it a fresh token in ``RAY_AUTH_TOKEN`` instead, which Ray reads before any file and passes to
    the processes it starts: authentication stays on, no file is written.  The variables Ray reads
    or sets (``RAY_AUTH_TOKEN``, ``RAY_AUTH_MODE``) are restored afterwards, so a later
    ``ray.init`` in the same process sees the user's own settings.  Checked with an empty
    ``HOME`` and ``TMPDIR`` in tests/test_ray_localhost.py.
    """
    import secrets
    import shutil
    import tempfile

    for top in {tempfile.gettempdir(), "/tmp"}:  # where ours go: a killed driver's are still there
        remove_stale_ray_folders(Path(top))
    scratch = tempfile.mkdtemp(prefix=RAY_FOLDER_PREFIX)
    if len(scratch) > _RAY_SCRATCH_MAX:  # a long $TMPDIR: Ray's socket paths would not fit
        os.rmdir(scratch)
        scratch = tempfile.mkdtemp(prefix=RAY_FOLDER_PREFIX, dir="/tmp")
    _write_owner(Path(scratch))
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_MODE")}
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)  # 256 bits, as Ray's own generator
    _forget_token()  # a token an earlier ray.init of this process cached would not match ours
    try:
        yield scratch
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        _forget_token()
        shutil.rmtree(scratch, ignore_errors=True)


#: The private folder of a Ray tcplab started (``tempfile.mkdtemp``'s 8-character suffix follows).
RAY_FOLDER_PREFIX = "tcplab-ray-"
#: The file in it that says which process made it: ``tcplab-ray <pid>-<start ticks>``.
RAY_OWNER_FILE = ".tcplab-owner"
_RAY_FOLDER = re.compile(r"^tcplab-ray-[a-z0-9_]{8}$")


def _write_owner(folder: Path) -> None:
    """Mark ``folder`` as this process's (before Ray writes anything in it)."""
    with open(folder / RAY_OWNER_FILE, "x", encoding="ascii") as f:
        f.write(f"tcplab-ray {_fs.owner_tag()}\n")


def remove_stale_ray_folders(top: Path) -> list[Path]:
    """Remove the private Ray folders in ``top`` of tcplab drivers that no longer run.

    A driver killed with SIGKILL cannot remove its folder (Ray's session files: logs, sockets,
    spilled objects); the next tcplab that starts a Ray does.  Removed only what is provably
    such a folder and dead: the name ``tcplab-ray-XXXXXXXX``, a real folder (not a symlink) owned
    by this user, holding a regular owner file ``tcplab-ray <pid>-<start ticks>`` written by
    :func:`_write_owner`, whose process no longer exists (:func:`tcplab._fs.owner_gone`: no such
    PID, or a PID reused by a process started at another time).  Anything else is left alone: a
    live driver's folder, a folder without (or with a malformed) owner file, another user's.
    """
    import shutil

    removed: list[Path] = []
    try:
        entries = list(top.iterdir())
    except OSError:
        return removed
    for folder in entries:
        if not _RAY_FOLDER.match(folder.name):
            continue
        try:
            st = folder.lstat()
            marker = folder / RAY_OWNER_FILE
            mst = marker.lstat()
            if not (stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and stat.S_ISREG(mst.st_mode)):
                continue
            if mst.st_size > 64:
                continue
            word, _, tag = marker.read_text(encoding="ascii").strip().partition(" ")
        except (OSError, UnicodeDecodeError):
            continue
        if word != "tcplab-ray" or not _fs.owner_gone(tag):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _forget_token() -> None:
    """Drop the token and authentication mode Ray cached in this process (it reads them again from
    the environment when it next needs them)."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
    except (ImportError, AttributeError):  # a Ray without token authentication: nothing cached
        pass


@contextlib.contextmanager
def _loopback_only(ray: Any) -> Iterator[None]:
    """While a local Ray starts: its servers (GCS, raylet, workers, driver) listen on 127.0.0.1
    only, not on every interface.

    Ray turns a node address of 127.0.0.1 into the machine's outward address and then binds its
    gRPC servers to all interfaces, unless it runs as a single-machine instance (its setting
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read from the environment by the processes it starts
    and from ``ray_constants`` by this one).  Both are restored afterwards: the processes started
    keep what they inherited.  Checked with ``ss -ltnp`` in tests/test_ray_localhost.py.
    """
    from ray._private import ray_constants

    var = ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR
    saved_env, saved_const = os.environ.get(var), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[var] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_const
        if saved_env is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = saved_env


def _check_reachable(address: str) -> None:
    """Fail fast when a ``host:port`` cluster address does not answer (Ray itself retries for
    minutes); other forms (``auto``, ``ray://...``) are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as exc:
        raise ConnectionError(f"address: no Ray cluster answers at {address} ({exc.strerror or exc})") from None


def _outcome_or_crash(get: Callable[[], Any], task: Task) -> dict[str, Any]:
    """The worker's outcome, or a failed outcome if the worker itself died (crash, OOM kill)."""
    try:
        outcome: dict[str, Any] = get()
        return outcome
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        return {
            "key": task.key,
            "status": "failed",
            "error": f"worker failed: {describe(exc)}",
            "summary": None,
            "series": None,
            "wall_time_s": None,
        }


def cell_label(cell_json: str) -> str:
    """A compact human label for a stored cell (``p=0.01 variant=sack``)."""
    cell = json.loads(cell_json)
    return " ".join(f"{path.rsplit('.', 1)[-1]}={value}" for path, value in cell.items()) or "(base)"
