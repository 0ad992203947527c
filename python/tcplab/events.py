"""The event trace (``[trace] events``, docs/trace.md) as a polars DataFrame and as a file.

A run that writes the trace to a file (``--trace-events`` / ``trace_events=`` / ``trace.events.file``)
has the core write it as the run goes, in batches of rows, as Parquet (crates/tcplab-core
trace/parquet.rs) or ns-2's text (trace/events.rs): memory holds one batch, and polars is not
imported.  ``result.events`` then reads the Parquet file back.  A run without a file hands over
packed little-endian columns of codes (crates/tcplab-py ``events_to_py``), turned into named
columns here the first time they are read.  Codes become polars ``Enum`` columns (the name tables
come with the data), node and flow indices their names, "no node" a null; the Parquet file has
that schema too (dictionary-encoded, zstd-compressed, with the Arrow schema polars reads the
``Enum`` columns from).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

#: The layout of the packed columns: numpy dtype of each.
_DTYPES = {
    "t_s": "<f8", "dur_s": "<f8",
    "uid": "<u8", "seq": "<u8", "ack": "<u8",
    "node": "<u4", "flow": "<u4", "bytes": "<u4", "src": "<u4", "dst": "<u4", "peer": "<u4",
    "sport": "<u2", "dport": "<u2",
    "layer": "u1", "event": "u1", "kind": "u1", "ttl": "u1", "retry": "u1", "reason": "u1",
}

#: Column order of the DataFrame and the Parquet file.
COLUMNS = ("t_s", "node", "layer", "event", "kind", "uid", "flow", "seq", "ack", "bytes", "src", "dst",
           "sport", "dport", "ttl", "peer", "dur_s", "retry", "reason")

FORMATS = ("parquet", "ns2")


def events_frame(raw: dict[str, Any] | None) -> pl.DataFrame:
    """The core's packed event trace as a DataFrame (empty when none was recorded)."""
    import numpy as np
    import polars as pl

    if not raw:
        return pl.DataFrame()
    if "columns" not in raw:  # written to a file as the run went
        if raw.get("format") != "parquet":
            raise ValueError(
                f"result.events: the event trace went to {raw.get('file')} in ns-2's text format, and the "
                "run kept no rows; read that file, or write the trace as Parquet (a .parquet file)"
            )
        return pl.read_parquet(raw["file"])
    cols = {k: np.frombuffer(raw["columns"][k], dtype=dt) for k, dt in _DTYPES.items()}
    names = raw["names"]
    none, broadcast = names["none"], names["broadcast"]

    def coded(codes: Any, table: list[str], *, null_code: int | None = None) -> pl.Series:
        enum = pl.Enum(table)
        s = pl.Series(codes.astype(np.uint32))
        idx = s if null_code is None else pl.select(pl.when(s != null_code).then(s)).to_series()
        return pl.Series(table, dtype=enum).gather(idx)

    nodes = list(names["nodes"]) + ["broadcast"]

    def node_col(codes: Any) -> pl.Series:
        c = np.where(codes == broadcast, len(nodes) - 1, codes)
        return coded(c, nodes, null_code=none)

    tcp = (cols["kind"] <= 1)
    out = {
        "t_s": pl.Series(cols["t_s"]),
        "node": coded(cols["node"], list(names["nodes"])),
        "layer": coded(cols["layer"], names["layers"]),
        "event": coded(cols["event"], names["events"]),
        "kind": coded(cols["kind"], names["kinds"]),
        "uid": pl.Series(cols["uid"]),
        "flow": coded(cols["flow"], list(names["flows"]) or [""], null_code=none),
        # Sequence and acknowledgement numbers of TCP segments (unwrapped, from the ISN).
        "seq": pl.Series(cols["seq"]).set(pl.Series(~tcp), None) if len(tcp) else pl.Series(cols["seq"]),
        "ack": pl.Series(cols["ack"]).set(pl.Series(~tcp), None) if len(tcp) else pl.Series(cols["ack"]),
        "bytes": pl.Series(cols["bytes"]),
        "src": node_col(cols["src"]),
        "dst": node_col(cols["dst"]),
        "sport": pl.Series(cols["sport"]),
        "dport": pl.Series(cols["dport"]),
        "ttl": pl.Series(cols["ttl"]),
        "peer": node_col(cols["peer"]),
        "dur_s": pl.Series(cols["dur_s"]),
        "retry": pl.Series(cols["retry"].astype(bool)),
        "reason": coded(cols["reason"], names["reasons"], null_code=0),
    }
    return pl.DataFrame({k: out[k].alias(k) for k in COLUMNS})


def format_of(path: str | os.PathLike[str], declared: str | None) -> str:
    """The trace's file format: the scenario's ``trace.events.format``, else ``ns2`` for a ``.tr``
    file and Parquet otherwise."""
    if declared:
        return declared
    return "ns2" if Path(path).suffix.lower() == ".tr" else "parquet"


def write_parquet(frame: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Writes an event-trace DataFrame (``result.events``, perhaps filtered) as Parquet, as the core
    writes the trace: zstd level 1."""
    frame.write_parquet(path, compression="zstd", compression_level=1)


def events_request(
    text: str, fmt: str, pairs: list[tuple[str, str]], path: str | os.PathLike[str] | None, where: str
) -> tuple[list[tuple[str, str]], Path | None, str | None]:
    """The overrides, the file and its format for a run's event trace.

    ``path`` (``--trace-events`` / ``trace_events=``) turns the trace on (every layer and node
    unless the scenario's ``trace.events`` chooses) and replaces ``trace.events.file``; without
    it the scenario's ``file``, if any, is written.  An invalid scenario, a bad format or a
    missing folder is refused before the run (``where`` names the argument in the message).
    """
    from tcplab import _core
    from tcplab._args import scenario_error

    ev = _core.resolve(text, fmt, pairs)["trace"].get("events")
    if path is None:
        if ev is None or not ev.get("file"):
            return pairs, None, None
        path, where = ev["file"], "trace.events.file"
    elif ev is None:
        pairs = [*pairs, ("trace.events", "{}")]
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{where}: expected a path, got {type(path).__name__}")
    file = Path(os.fspath(path))
    if file.is_dir():
        raise scenario_error(where, f"{file} is a folder; give the file to write")
    if not file.parent.is_dir():
        raise scenario_error(where, f"the folder {file.parent} does not exist")
    # A trace is written under a temporary name beside it (the core's ns-2 text too); one a
    # SIGKILLed tcplab left there goes now that its owner is provably gone.
    from tcplab._fs import remove_stale_staging

    remove_stale_staging(file)
    return pairs, file, format_of(file, (ev or {}).get("format"))


def run_traced(run: Callable[[str | None, str], dict[str, Any]], file: Path | None, fmt: str | None) -> dict[str, Any]:
    """``run(events_file, events_format)`` (the core's run) with the event trace written to ``file``
    whole or not at all: the core writes a temporary name beside it as the run goes and renames it
    to ``file`` when the run succeeds; a run that fails or is interrupted removes it
    (crates/tcplab-core/src/trace/owned_file.rs, the same mechanism as the captures')."""
    if file is None:
        return run(None, "parquet")
    return run(os.fspath(file), fmt or "parquet")
