"""The Python-side view of one run: the core's plain dict, with tables as polars DataFrames.

The core returns JSON-compatible data so that it can be stored, pickled to workers and compared bit
for bit.  ``Result`` keeps that dict as ``summary`` (everything but the bulky time series) and adds
DataFrame views for analysis.  Column dtypes are pinned where the data can be all-null (for example
``response_time_s`` of an unlimited transfer) so that frames from different runs concatenate.

polars is imported when a DataFrame is first asked for, not with this module: ``tcplab run
--json`` and ``Result.to_json`` never need it, and importing it costs a quarter of a second and
~55 MiB (issue 35).  The column schemas are kept as dtype names for the same reason.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import os

    import polars as pl
    from matplotlib.figure import Figure

# Column order is reading order (what, outcome, then the counters that explain it); the core's
# dicts arrive with sorted keys, so the frames are built in this order.  Values are polars dtype
# names (``pl.String`` ...), resolved by ``_dtypes`` when a frame is built.
_FLOW_DTYPES = {
    "name": "String",
    "variant": "String",
    "completed": "Boolean",
    "aborted": "Boolean",
    "bytes_delivered": "Int64",
    "response_time_s": "Float64",
    "goodput_bps": "Float64",
    "segments_sent": "Int64",
    "retransmissions": "Int64",
    "fast_retransmissions": "Int64",
    "timeout_retransmissions": "Int64",
    "timeouts": "Int64",
    "fast_recoveries": "Int64",
    "spurious_retransmissions": "Int64",
    "retransmission_ratio_pct": "Float64",
    "window_probes": "Int64",
    "data_lost": "Int64",
    "acks_lost": "Int64",
    "acks_learned": "Int64",
    "reason": "String",
}
# Flow statistics (docs/trace.md): the data direction of a TCP flow, or a CBR flow, at the IP layer;
# the delays and ratios are null when nothing was received or sent.
_FLOW_STATS_DTYPES = {
    "packets_sent": "Int64",
    "packets_received": "Int64",
    "packets_lost": "Int64",
    "packets_in_flight": "Int64",
    "ip_bytes_sent": "Int64",
    "ip_bytes_received": "Int64",
    "ip_bytes_lost": "Int64",
    "delivery_ratio": "Float64",
    "delay_mean_s": "Float64",
    "delay_median_s": "Float64",
    "delay_p95_s": "Float64",
    "delay_max_s": "Float64",
    "jitter_s": "Float64",
    "ip_throughput_bps": "Float64",
}
_FLOW_DTYPES |= _FLOW_STATS_DTYPES | {
    "reverse_packets_sent": "Int64",
    "reverse_packets_received": "Int64",
    "reverse_packets_lost": "Int64",
    "rtt_samples": "Int64",
    "rtt_mean_s": "Float64",
    "rtt_min_s": "Float64",
    "rtt_max_s": "Float64",
}
_LINK_DTYPES = {
    "name": "String",
    "direction": "String",
    "packets_sent": "Int64",
    "bytes_sent": "Int64",
    "drops_queue": "Int64",
    "drops_loss": "Int64",
    "drops_outage": "Int64",
    "ecn_marks": "Int64",
}
_CBR_DTYPES = {
    "name": "String",
    "src": "String",
    "dst": "String",
    "sent": "Int64",
    "received": "Int64",
    "bytes_sent": "Int64",
    "bytes_received": "Int64",
    "loss_pct": "Float64",
    "throughput_bps": "Float64",
} | _FLOW_STATS_DTYPES
# TCP series name their ``flow``; series beyond TCP (queues, stations, routing) name the interface
# (``LINK:A->B``, ``WLAN:NODE``) or node they describe ``at``, the other column being null.
_SERIES_DTYPES = {"flow": "String", "at": "String", "series": "String", "t_s": "Float64", "value": "Float64"}
_SCHEMAS = {
    "FLOW_SCHEMA": _FLOW_DTYPES,
    "FLOW_STATS_SCHEMA": _FLOW_STATS_DTYPES,
    "LINK_SCHEMA": _LINK_DTYPES,
    "CBR_SCHEMA": _CBR_DTYPES,
    "SERIES_SCHEMA": _SERIES_DTYPES,
}


@functools.cache
def _dtypes(name: str) -> dict[str, Any]:
    """The schema ``name`` (``"FLOW_SCHEMA"`` ...) as {column: polars dtype}; imports polars."""
    import polars as pl

    return {col: getattr(pl, dtype) for col, dtype in _SCHEMAS[name].items()}


def __getattr__(name: str) -> Any:
    """``FLOW_SCHEMA``, ``LINK_SCHEMA``, ``CBR_SCHEMA``, ``SERIES_SCHEMA``: built on first use (PEP 562)."""
    if name in _SCHEMAS:
        return _dtypes(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def records_frame(rows: list[dict[str, Any]], schema: dict[str, Any] | str) -> pl.DataFrame:
    """A DataFrame of ``rows`` with the known columns' dtypes pinned; unknown extra keys are kept.

    ``schema`` is {column: dtype} or the name of one of this module's schemas."""
    import polars as pl

    if isinstance(schema, str):
        schema = _dtypes(schema)
    if not rows:
        return pl.DataFrame(schema=schema)
    known = {k: v for k, v in schema.items() if k in rows[0]}
    frame = pl.from_dicts(rows, schema_overrides=known, infer_schema_length=None)
    return frame.select([*known, *(c for c in frame.columns if c not in known)])


def series_frame(series: dict[str, list[Any]] | pl.DataFrame | None) -> pl.DataFrame:
    """The core's columnar time series as a long DataFrame (flow, at, series, t_s, value).

    A frame stored before series beyond TCP existed has no ``at`` column: it gets a null one."""
    import polars as pl

    schema = _dtypes("SERIES_SCHEMA")
    if series is None or len(series) == 0:
        return pl.DataFrame(schema=schema)
    if isinstance(series, pl.DataFrame):
        missing = [pl.lit(None, dtype=t).alias(c) for c, t in schema.items() if c not in series.columns]
        return series.with_columns(missing).select(list(schema))
    n = len(series.get("t_s", []))
    return pl.DataFrame({k: series.get(k) or [None] * n for k in schema}, schema=schema)


FRAME_COLUMNS = ("t_s", "node", "event", "kind", "src", "dst", "seq", "retry", "bytes", "rate_bps")


def frames_frame(frames: dict[str, list[Any]] | None) -> pl.DataFrame:
    """The core's columnar per-frame trace as a DataFrame (empty when none was recorded)."""
    import polars as pl

    if not frames or not frames.get("t_s"):
        return pl.DataFrame()
    return pl.DataFrame({k: frames[k] for k in FRAME_COLUMNS})


def split_series(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[Any]] | None]:
    """Separate a raw run result into (summary without series, series or None if empty).

    The per-frame 802.11 trace (``frames``) is left out of the summary too: like the series it is
    bulky, and it is available as ``Result.frames``.
    """
    summary = {k: v for k, v in raw.items() if k not in ("series", "frames", "view", "event_trace")}
    series = raw.get("series") or None
    if series is not None and not series.get("t_s"):
        series = None
    return summary, series


class Result:
    """Outcome of one simulation run.

    ``summary`` holds scenario name, seed, simulated and wall time, event count, and the per-flow and
    per-link counters as plain data.  ``flows`` (TCP), ``links`` and ``series`` are DataFrame views;
    ``cbr`` (UDP/CBR flows), ``wifi`` (per-station 802.11 counters), ``link_signals`` (the cross-layer link events),
    ``nodes`` (network-layer drops per cause, ICMP, routing-protocol counters) and ``agents`` (in-network agents'
    counters) are views of the optional parts, empty when absent.  Each DataFrame is built (and
    polars imported) the first time it is read, then kept.

    ``flows`` and ``cbr`` carry each flow's statistics (packets sent/received/lost, delivery ratio,
    one-way delay mean/median/95th/max, RFC 3550 jitter, throughput; RTT samples for TCP; see
    docs/trace.md).  The frames are polars DataFrames; ``.to_pandas()`` needs pandas and pyarrow
    (``pip install 'tcplab[pandas]'``).
    """

    # A plain class rather than a dataclass: ``dataclasses`` imports ``inspect``, a noticeable part
    # of the start-up this module keeps small.

    def __init__(
        self,
        summary: dict[str, Any],
        raw_series: dict[str, list[Any]] | None = None,
        raw_frames: dict[str, list[Any]] | None = None,
        view: dict[str, Any] | None = None,
        raw_events: dict[str, Any] | None = None,
    ) -> None:
        self.summary = summary
        #: The core's columnar time series, or None when the run recorded none.
        self.raw_series = raw_series
        #: The core's columnar per-frame 802.11 trace, or None.
        self.raw_frames = raw_frames
        #: What ``tcplab view`` needs besides the event trace (``trace.view = true``): the network's
        #: shape and the station tracks (tcplab/viewer/data.py reads them); None otherwise.
        self.view = view
        #: The core's packed event trace (``trace.events``), or None; ``events`` is its DataFrame.
        self.raw_events = raw_events

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self.summary == other.summary

    __hash__ = None  # type: ignore[assignment]  # mutable summary: not hashable

    @functools.cached_property
    def flows(self) -> pl.DataFrame:
        """TCP flows: outcome (completed, bytes, response time, goodput) and the counters that explain it."""
        return records_frame(self.summary.get("flows", []), "FLOW_SCHEMA")

    @functools.cached_property
    def links(self) -> pl.DataFrame:
        """Wired links per direction: packets and bytes sent, drops per cause, ECN marks."""
        return records_frame(self.summary.get("links", []), "LINK_SCHEMA")

    @functools.cached_property
    def series(self) -> pl.DataFrame:
        """Time series, long format (flow, at, series, t_s, value): TCP series per ``flow`` on
        change; queue, station and routing series per interface or node (``at``), one value per
        ``trace.interval`` ending at ``t_s`` (docs/trace.md)."""
        return series_frame(self.raw_series)

    def plot_series(self, series: str, *, path: str | os.PathLike | None = None, **options: Any) -> Figure:
        """Draw time series ``series`` (e.g. ``"queue_len"``, ``"cwnd"``), one line per flow or
        interface/node; ``options`` are those of :func:`tcplab.plots.series_figure` (``at``,
        ``title``, ``ax``).  Writes a PNG to ``path`` if given; returns the Figure."""
        from pathlib import Path

        from tcplab.plots import save, series_figure

        fig = series_figure(self.series, series, **options)
        if path is not None:
            save(fig, Path(path))
        return fig

    def json_doc(self) -> dict[str, Any]:
        """What ``tcplab run --json`` prints: the summary, and the time series (columns flow, at,
        series, t_s, value) when the run recorded any."""
        if not self.has_series or self.raw_series is None:
            return self.summary
        cols = {k: list(self.raw_series.get(k) or []) for k in _SERIES_DTYPES}
        n = len(cols["t_s"])
        cols = {k: v or [None] * n for k, v in cols.items()}
        cols["value"] = [None if v is None or v != v else v for v in cols["value"]]  # NaN: no value
        return self.summary | {"series": cols}

    @functools.cached_property
    def frames(self) -> pl.DataFrame:
        """The per-frame 802.11 trace (``trace.frames = true``), one row per transmission and per
        reception outcome at the addressee; empty otherwise."""
        return frames_frame(self.raw_frames)

    @functools.cached_property
    def events(self) -> pl.DataFrame:
        """The event trace (``trace.events``): one row per packet event (time, node, layer, event,
        packet kind, uid, flow, seq/ack, bytes, addresses, next or previous hop, drop reason);
        empty when none was recorded (docs/trace.md)."""
        from tcplab.events import events_frame

        return events_frame(self.raw_events)

    @property
    def has_series(self) -> bool:
        """Whether the run recorded any time-series point (without building the DataFrame)."""
        return bool(self.raw_series and self.raw_series.get("t_s"))

    @property
    def has_frames(self) -> bool:
        """Whether the run recorded a per-frame trace (without building the DataFrame)."""
        return bool(self.raw_frames and self.raw_frames.get("t_s"))

    @property
    def warnings(self) -> list[str]:
        """The scenario's warnings ("loc: msg"), e.g. a station beyond its AP's reception range."""
        return list(self.summary.get("warnings") or [])

    @property
    def cbr(self) -> pl.DataFrame:
        """UDP/CBR flows: datagrams and bytes sent and delivered, loss and throughput."""
        return records_frame(self.summary.get("cbr") or [], "CBR_SCHEMA")

    @property
    def wifi(self) -> pl.DataFrame:
        import polars as pl

        return pl.DataFrame(self.summary.get("wifi") or [])

    @property
    def link_signals(self) -> pl.DataFrame:
        import polars as pl

        return pl.DataFrame(self.summary.get("link_signals") or [])

    @property
    def nodes(self) -> pl.DataFrame:
        """Per node: packets its network layer dropped per cause, ICMP, and its routing agent's counters
        (only nodes with something to report)."""
        import polars as pl

        return pl.DataFrame(self.summary.get("nodes") or [])

    @property
    def agents(self) -> pl.DataFrame:
        import polars as pl

        rows = [
            {k: v for k, v in a.items() if k != "stats"} | {f"stats.{k}": v for k, v in a.get("stats", {}).items()}
            for a in self.summary.get("agents") or []
        ]
        return pl.DataFrame(rows)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Result:
        """Build from the dict returned by ``tcplab._core.run`` (no DataFrame is built yet)."""
        summary, series = split_series(raw)
        return cls(summary=summary, raw_series=series, raw_frames=raw.get("frames"), view=raw.get("view"),
                   raw_events=raw.get("event_trace"))

    def to_json(self, indent: int | None = None) -> str:
        """The summary (without time series, which belong in Parquet) as JSON text."""
        return json.dumps(self.summary, indent=indent, allow_nan=False)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(scenario={s.get('scenario')!r}, seed={s.get('seed')}, sim_time_s={s.get('sim_time_s')}, "
            f"flows={len(s.get('flows') or [])}, cbr={len(s.get('cbr') or [])}, links={len(s.get('links') or [])}, "
            f"series_points={len(self.raw_series['t_s']) if self.raw_series else 0})"
        )
