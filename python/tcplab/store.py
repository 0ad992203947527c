"""The results store: one SQLite row per run, time series in Parquet beside it.

Why this shape: a sweep can be killed at any moment (Ctrl-C, a lost cluster node, SIGKILL) and must
resume without redoing finished work or trusting half-written results.  So

* a run is identified by ``key`` = sha256 of the canonical JSON of (resolved scenario, seed, core
  version) -- see :func:`run_key`; the same experiment asked for twice is the same row;
* a run's time series is written to ``series/<key>.parquet`` via a temporary file and ``os.replace``,
  and only *after* that the row is inserted in a single transaction, so a row's existence implies
  its data is complete (an orphan Parquet file without a row is simply overwritten on rerun);
* only the process that drives a sweep writes (workers return results), so SQLite's single-writer
  model is never contended; WAL mode lets readers (``tcplab results``) work meanwhile.

``runs`` holds what the run was and produced.  ``sweep_runs`` records which sweep cell and seed asked
for which key: two sweeps (or two cells that resolve to the same scenario) share one run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from tcplab._fs import DEFAULT_STORE, remove_stale_staging, replace_file, temporary_name
from tcplab.metrics import Family
from tcplab.result import FLOW_SCHEMA, series_frame

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key           TEXT PRIMARY KEY,   -- sha256(canonical JSON of resolved scenario, seed, version)
    sweep         TEXT NOT NULL,      -- sweep that (last) produced the row
    cell          TEXT NOT NULL,      -- JSON object: override path -> value
    scenario_json TEXT,               -- resolved scenario; NULL if it did not resolve
    seed          INTEGER NOT NULL,   -- u64 as two's-complement i64: see _sql_seed
    version       TEXT NOT NULL,      -- tcplab._core.version()
    status        TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error         TEXT,
    summary_json  TEXT,               -- run summary without series and without wall_time_s
    wall_time_s   REAL,
    created       TEXT NOT NULL       -- ISO 8601, UTC
);
CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep TEXT NOT NULL,
    cell  TEXT NOT NULL,
    seed  INTEGER NOT NULL,
    key   TEXT NOT NULL,
    PRIMARY KEY (sweep, cell, seed)
);
CREATE INDEX IF NOT EXISTS sweep_runs_key ON sweep_runs (key);
"""


def _sql_seed(seed: int) -> int:
    """A seed (0 .. 2^64 - 1, the core's u64) as SQLite's signed 64-bit INTEGER: seeds from 2^63
    are stored as their two's complement (negative), so every seed the core takes can be stored."""
    return seed - 2**64 if seed >= 2**63 else seed


def _py_seed(stored: int) -> int:
    """The seed of a stored INTEGER (inverse of :func:`_sql_seed`)."""
    return stored + 2**64 if stored < 0 else stored


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: equal data always gives equal text (and hash)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def run_key(resolved: Any, seed: int, version: str) -> str:
    """The store key of a run: what was simulated, with which seed, by which code."""
    return hashlib.sha256(canonical_json({"scenario": resolved, "seed": seed, "version": version}).encode()).hexdigest()


def summary_text(summary: dict[str, Any]) -> str:
    """Canonical summary JSON as stored: wall-clock time removed, so equal runs store equal bytes."""
    return canonical_json({k: v for k, v in summary.items() if k != "wall_time_s"})


@dataclass(frozen=True)
class RunRecord:
    """Everything stored about one finished (or failed) run."""

    key: str
    sweep: str
    cell: str
    scenario_json: str | None
    seed: int
    version: str
    status: str  # "ok" | "failed"
    error: str | None
    summary: dict[str, Any] | None
    series: dict[str, list[Any]] | None
    wall_time_s: float | None


class Store:
    """A results database file plus its ``series/`` directory of Parquet files."""

    def __init__(self, path: str | os.PathLike = DEFAULT_STORE, *, readonly: bool = False) -> None:
        """Open (or create) the store at ``path``; ``readonly`` opens an existing store for reading
        only, which also works on read-only files, folders and media (see :func:`_open_readonly`)."""
        self.path = Path(path)
        self.series_dir = self.path.parent / "series"
        if readonly:
            self._db = _open_readonly(self.path)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=60.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # ---------------------------------------------------------------- writing

    def ok_keys(self, keys: Iterable[str]) -> set[str]:
        """The subset of ``keys`` already stored with status ok (these runs are not repeated)."""
        wanted = list(set(keys))
        found: set[str] = set()
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT key FROM runs WHERE status = 'ok' AND key IN ({marks})", chunk)
            found.update(r[0] for r in rows)
        return found

    def add_members(self, members: Iterable[tuple[str, str, int, str]]) -> None:
        """Record (sweep, cell, seed, key) memberships whose run already exists."""
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO sweep_runs VALUES (?, ?, ?, ?)",
                [(sw, cell, _sql_seed(seed), key) for sw, cell, seed, key in members],
            )

    def record(self, rec: RunRecord, members: Iterable[tuple[str, str, int]] = ()) -> None:
        """Store one run atomically: series Parquet first, then row + memberships in one transaction.

        ``members`` are (sweep, cell, seed) triples that asked for this run, besides ``rec``'s own.
        """
        if rec.series is not None:
            self._write_series(rec.key, rec.series)
        row = (
            rec.key,
            rec.sweep,
            rec.cell,
            rec.scenario_json,
            _sql_seed(rec.seed),
            rec.version,
            rec.status,
            rec.error,
            summary_text(rec.summary) if rec.summary is not None else None,
            rec.wall_time_s,
            datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        member_rows = {(rec.sweep, rec.cell, _sql_seed(rec.seed), rec.key)}
        member_rows.update((s, c, _sql_seed(seed), rec.key) for s, c, seed in members)
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            db.executemany("INSERT OR REPLACE INTO sweep_runs VALUES (?, ?, ?, ?)", sorted(member_rows))

    def _write_series(self, key: str, series: dict[str, list[Any]]) -> None:
        self.series_dir.mkdir(parents=True, exist_ok=True)
        final = self.series_dir / f"{key}.parquet"
        tmp = temporary_name(final)  # says whose it is: a killed sweep's is removed by the next
        try:
            series_frame(series).write_parquet(tmp)
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)

    def remove_stale_temporaries(self) -> None:
        """Delete temporary series files left by writers that no longer run (e.g. a killed sweep):
        those named with their owner's PID and start time (:func:`tcplab._fs.temporary_name`), and
        those of older tcplabs named with a PID only, when no process has it."""
        if not self.series_dir.is_dir():
            return
        remove_stale_staging(self.series_dir / "series")
        for tmp in self.series_dir.glob(".*.tmp"):
            try:
                pid = int(tmp.name.split(".")[2])
                os.kill(pid, 0)
            except ProcessLookupError:
                tmp.unlink(missing_ok=True)
            except (ValueError, IndexError, PermissionError):
                continue

    # ---------------------------------------------------------------- reading

    def runs(self, sweep: str | None = None, status: str | None = None, *, with_scenario: bool = False) -> pl.DataFrame:
        """One row per run (per sweep membership if ``sweep`` is given), ordered by sweep, cell, seed."""
        scenario_col = ", r.scenario_json" if with_scenario else ""
        if sweep is None:
            sql = (
                "SELECT r.key, r.sweep, r.cell, r.seed, r.version, r.status, r.error, r.summary_json, "
                f"r.wall_time_s, r.created{scenario_col} FROM runs r WHERE (?1 IS NULL OR r.status = ?1) "
                "ORDER BY r.sweep, r.cell, r.seed < 0, r.seed, r.key"
            )
            params: tuple[Any, ...] = (status,)
        else:
            sql = (
                "SELECT r.key, m.sweep, m.cell, m.seed, r.version, r.status, r.error, r.summary_json, "
                f"r.wall_time_s, r.created{scenario_col} FROM sweep_runs m JOIN runs r ON r.key = m.key "
                "WHERE m.sweep = ?1 AND (?2 IS NULL OR r.status = ?2) ORDER BY m.cell, m.seed < 0, m.seed"
            )
            params = (sweep, status)
        cur = self._db.execute(sql, params)
        names = [d[0] for d in cur.description]
        schema = {n: pl.String for n in names} | {"seed": pl.UInt64, "wall_time_s": pl.Float64}
        at = names.index("seed")
        rows = [(*r[:at], _py_seed(r[at]), *r[at + 1 :]) for r in cur.fetchall()]
        return pl.DataFrame(rows, schema=schema, orient="row")

    def sweeps(self) -> list[str]:
        """Names of every sweep with at least one stored run."""
        return [r[0] for r in self._db.execute("SELECT DISTINCT sweep FROM sweep_runs ORDER BY sweep")]

    def parameters(self, sweep: str) -> list[str]:
        """The override paths a sweep varies (every path of its cells), sorted."""
        cells = self._db.execute("SELECT DISTINCT cell FROM sweep_runs WHERE sweep = ?", (sweep,))
        return sorted({path for (cell,) in cells for path in json.loads(cell)})

    def flows(
        self,
        sweep: str | None = None,
        status: str | None = "ok",
        members: Collection[tuple[str, int]] | None = None,
    ) -> pl.DataFrame:
        """One row per (run, flow), with the cell's override paths as columns.

        Failed runs (when included by ``status``) appear once, with null flow columns and their error.
        Columns: key, sweep, seed, status, error, <cell paths...>, sim_time_s, events, wall_time_s,
        flow, <flow counters...>.  ``members``, if given, keeps only these (cell JSON, seed) pairs.
        """
        rows: list[dict[str, Any]] = []
        for run in self.runs(sweep, status).iter_rows(named=True):
            if members is not None and (run["cell"], run["seed"]) not in members:
                continue
            base = {k: run[k] for k in ("key", "sweep", "seed", "status", "error")}
            cell = json.loads(run["cell"])
            summary = json.loads(run["summary_json"]) if run["summary_json"] else {}
            base.update({"cell": cell})
            base.update(
                sim_time_s=summary.get("sim_time_s"), events=summary.get("events"), wall_time_s=run["wall_time_s"]
            )
            for flow in summary.get("flows") or [None]:
                row = dict(base)
                # Every counter the core reports, those of FLOW_SCHEMA first (null for a failed run).
                for col in [*FLOW_SCHEMA, *(k for k in flow or {} if k not in FLOW_SCHEMA)]:
                    row["flow" if col == "name" else col] = flow.get(col) if flow else None
                rows.append(row)
        return _expand_cells(rows, _FLOW_TAIL)

    def elements(
        self,
        family: Family,
        sweep: str | None = None,
        status: str | None = "ok",
        members: Collection[tuple[str, int]] | None = None,
    ) -> pl.DataFrame:
        """One row per (run, element) of a summary table other than the TCP flows (``cbr``,
        ``links``, ``wifi``, ``nodes``; :mod:`tcplab.metrics`), with the cell's override paths as
        columns: key, sweep, seed, status, error, <cell paths...>, sim_time_s, events, wall_time_s,
        flow (the element's name), then the family's fields as ``<prefix><field>`` (Float64).

        A run without such elements (or a failed run) has one row with null fields.  Nodes a run's
        summary leaves out (nothing to report) are given with zero counters."""
        rows: list[dict[str, Any]] = []
        cols = [family.prefix + f for f in family.fields]
        for run in self.runs(sweep, status, with_scenario=family.zero_when_absent).iter_rows(named=True):
            if members is not None and (run["cell"], run["seed"]) not in members:
                continue
            summary = json.loads(run["summary_json"]) if run["summary_json"] else {}
            base = {k: run[k] for k in ("key", "sweep", "seed", "status", "error")} | {"cell": json.loads(run["cell"])}
            base.update(sim_time_s=summary.get("sim_time_s"), events=summary.get("events"), wall_time_s=run["wall_time_s"])
            present: dict[str, dict[str, Any]] = {family.element(r): r for r in summary.get(family.table) or []}
            if family.zero_when_absent and run["status"] == "ok" and run.get("scenario_json"):
                listed = present
                present = {}
                for node in json.loads(run["scenario_json"]).get("nodes") or []:
                    name = node.get("name")
                    present[name] = listed.get(name) or {f: 0 for f in family.fields}
                present |= listed
            for name, r in present.items() or [(None, None)]:
                row = dict(base) | {"flow": name}
                row.update({c: (None if r is None else r.get(f)) for c, f in zip(cols, family.fields, strict=True)})
                rows.append(row)
        tail = {"sim_time_s": pl.Float64, "events": pl.Int64, "wall_time_s": pl.Float64, "flow": pl.String}
        return _expand_cells(rows, tail | {c: pl.Float64 for c in cols})

    def listing(self, sweep: str | None = None, status: str | None = None) -> pl.DataFrame:
        """One row per run (per sweep membership if ``sweep`` is given), the cell's override paths
        as columns: key, sweep, seed, status, error, <cell paths...>, wall_time_s."""
        runs = self.runs(sweep, status)
        rows = [
            {k: run[k] for k in ("key", "sweep", "seed", "status", "error")}
            | {"cell": json.loads(run["cell"]), "wall_time_s": run["wall_time_s"]}
            for run in runs.iter_rows(named=True)
        ]
        return _expand_cells(rows, {"wall_time_s": pl.Float64})

    def series(self, key: str) -> pl.DataFrame:
        """The time series of run ``key`` (empty if it recorded none)."""
        path = self.series_dir / f"{key}.parquet"
        return series_frame(pl.read_parquet(path)) if path.exists() else series_frame(None)

    def export(self, out: str | os.PathLike, sweep: str | None = None, status: str | None = None) -> int:
        """Write :meth:`flows` to ``out`` (``.csv`` or ``.parquet`` by suffix); returns the row count."""
        out = Path(out)
        fmt = out.suffix.lower().lstrip(".")
        if fmt not in ("csv", "parquet"):
            raise ValueError(f"unsupported export format {out.suffix!r}; use .csv or .parquet")
        frame = self.flows(sweep, status)
        write_frame(frame, out, fmt)
        return frame.height


def _open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to the store at ``path`` that never writes, not even SQLite's files.

    ``mode=ro`` reads a store in a read-only file, also while a sweep writes it (WAL); in a
    read-only folder or on read-only media, where SQLite cannot create the WAL index (``-shm``)
    it needs, the store is opened as ``immutable=1`` instead: nothing can change it there anyway.
    """
    if not path.is_file():
        raise FileNotFoundError(2, "no results store", str(path))
    uri = path.resolve().as_uri()
    errors: list[str] = []
    for mode in ("mode=ro", "immutable=1"):
        db = sqlite3.connect(f"{uri}?{mode}", uri=True, isolation_level=None, timeout=60.0)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.Error as exc:
            errors.append(f"{mode}: {exc}")
            db.close()
    raise sqlite3.OperationalError(f"cannot open {path} for reading ({'; '.join(errors)})")


def write_frame(frame: pl.DataFrame, out: Path, fmt: str) -> None:
    """Write ``frame`` as ``fmt`` ("csv" or "parquet") under a temporary name, then rename it."""
    replace_file(out, frame.write_csv if fmt == "csv" else frame.write_parquet)


def _expand_cells(rows: list[dict[str, Any]], tail_schema: dict[str, Any]) -> pl.DataFrame:
    """Turn each row's ``cell`` dict into one column per override path, placed after the run's
    identity (key, sweep, seed, status, error) and before its other fields.

    A column whose values are all numbers (or null) stays numeric; any other mix becomes strings, so
    cells from different sweeps can share an export.  ``tail_schema`` pins the dtypes of the other
    fields (they may be all-null); fields it does not name keep their inferred type.
    """
    paths = sorted({p for row in rows for p in row["cell"]})
    columns: dict[str, list[Any]] = {p: [row["cell"].get(p) for row in rows] for p in paths}
    for path, values in columns.items():
        present = [v for v in values if v is not None]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
        boolean = all(isinstance(v, bool) for v in present)
        if not (numeric or boolean):
            columns[path] = [None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in values]
        elif numeric and any(isinstance(v, float) for v in present):
            columns[path] = [None if v is None else float(v) for v in values]
    head = ["key", "sweep", "seed", "status", "error"]
    head_schema: dict[str, Any] = {k: pl.String for k in head} | {"seed": pl.UInt64}
    if not rows:
        return pl.DataFrame(schema=head_schema | tail_schema)
    tail = list(dict.fromkeys(k for row in rows for k in row if k not in head and k != "cell"))
    data: dict[str, list[Any]] = {k: [row[k] for row in rows] for k in head}
    data.update(columns)
    data.update({k: [row.get(k) for row in rows] for k in tail})
    pinned = {k: v for k, v in (head_schema | tail_schema).items() if k in data}
    return pl.DataFrame(data, schema_overrides=pinned, strict=False)


#: dtypes of the per-flow columns of :meth:`Store.flows` (the flow's ``name`` is its ``flow`` column).
_FLOW_TAIL: dict[str, Any] = {"sim_time_s": pl.Float64, "events": pl.Int64, "wall_time_s": pl.Float64} | {
    ("flow" if k == "name" else k): v for k, v in FLOW_SCHEMA.items()
}
