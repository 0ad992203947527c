"""The Python-side view of one run: the core's plain dict, with tables as polars DataFrames.

The core returns JSON-compatible data so that it can be stored, pickled to workers and compared bit
for bit.  ``Result`` keeps that dict as ``summary`` (everything but the bulky time series) and adds
DataFrame views for analysis.  Column dtypes are pinned where the data can be all-null (for example
``response_time_s`` of an unlimited transfer) so that frames from different runs concatenate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import polars as pl

# Column order is reading order (what, outcome, then the counters that explain it); the core's
# dicts arrive with sorted keys, so the frames are built in this order.
FLOW_SCHEMA: dict[str, type[pl.DataType] | pl.DataType] = {
    "name": pl.String,
    "variant": pl.String,
    "completed": pl.Boolean,
    "aborted": pl.Boolean,
    "bytes_delivered": pl.Int64,
    "response_time_s": pl.Float64,
    "goodput_bps": pl.Float64,
    "segments_sent": pl.Int64,
    "retransmissions": pl.Int64,
    "fast_retransmissions": pl.Int64,
    "timeout_retransmissions": pl.Int64,
    "timeouts": pl.Int64,
    "fast_recoveries": pl.Int64,
    "spurious_retransmissions": pl.Int64,
    "retransmission_ratio_pct": pl.Float64,
    "window_probes": pl.Int64,
    "data_lost": pl.Int64,
    "acks_lost": pl.Int64,
    "acks_learned": pl.Int64,
    "reason": pl.String,
}
# Flow statistics (docs/trace.md): the data direction of a TCP flow, or a CBR flow, at the IP layer;
# the delays and ratios are null when nothing was received or sent.
FLOW_STATS_SCHEMA: dict[str, type[pl.DataType] | pl.DataType] = {
    "packets_sent": pl.Int64,
    "packets_received": pl.Int64,
    "packets_lost": pl.Int64,
    "packets_in_flight": pl.Int64,
    "ip_bytes_sent": pl.Int64,
    "ip_bytes_received": pl.Int64,
    "ip_bytes_lost": pl.Int64,
    "delivery_ratio": pl.Float64,
    "delay_mean_s": pl.Float64,
    "delay_median_s": pl.Float64,
    "delay_p95_s": pl.Float64,
    "delay_max_s": pl.Float64,
    "jitter_s": pl.Float64,
    "ip_throughput_bps": pl.Float64,
}
FLOW_SCHEMA |= FLOW_STATS_SCHEMA | {
    "reverse_packets_sent": pl.Int64,
    "reverse_packets_received": pl.Int64,
    "reverse_packets_lost": pl.Int64,
    "rtt_samples": pl.Int64,
    "rtt_mean_s": pl.Float64,
    "rtt_min_s": pl.Float64,
    "rtt_max_s": pl.Float64,
}
LINK_SCHEMA: dict[str, type[pl.DataType] | pl.DataType] = {
    "name": pl.String,
    "direction": pl.String,
    "packets_sent": pl.Int64,
    "bytes_sent": pl.Int64,
    "drops_queue": pl.Int64,
    "drops_loss": pl.Int64,
    "drops_outage": pl.Int64,
    "ecn_marks": pl.Int64,
}
CBR_SCHEMA: dict[str, type[pl.DataType] | pl.DataType] = {
    "name": pl.String,
    "src": pl.String,
    "dst": pl.String,
    "sent": pl.Int64,
    "received": pl.Int64,
    "bytes_sent": pl.Int64,
    "bytes_received": pl.Int64,
    "loss_pct": pl.Float64,
    "throughput_bps": pl.Float64,
} | FLOW_STATS_SCHEMA
SERIES_SCHEMA: dict[str, type[pl.DataType] | pl.DataType] = {
    "flow": pl.String,
    "series": pl.String,
    "t_s": pl.Float64,
    "value": pl.Float64,
}


def records_frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    """A DataFrame of ``rows`` with the known columns' dtypes pinned; unknown extra keys are kept."""
    if not rows:
        return pl.DataFrame(schema=schema)
    known = {k: v for k, v in schema.items() if k in rows[0]}
    frame = pl.from_dicts(rows, schema_overrides=known, infer_schema_length=None)
    return frame.select([*known, *(c for c in frame.columns if c not in known)])


def series_frame(series: dict[str, list[Any]] | None) -> pl.DataFrame:
    """The core's columnar time series as a long DataFrame (flow, series, t_s, value)."""
    if not series:
        return pl.DataFrame(schema=SERIES_SCHEMA)
    return pl.DataFrame({k: series.get(k, []) for k in SERIES_SCHEMA}, schema=SERIES_SCHEMA)


FRAME_COLUMNS = ("t_s", "node", "event", "kind", "src", "dst", "seq", "retry", "bytes", "rate_bps")


def frames_frame(frames: dict[str, list[Any]] | None) -> pl.DataFrame:
    """The core's columnar per-frame trace as a DataFrame (empty when none was recorded)."""
    if not frames or not frames.get("t_s"):
        return pl.DataFrame()
    return pl.DataFrame({k: frames[k] for k in FRAME_COLUMNS})


def split_series(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[Any]] | None]:
    """Separate a raw run result into (summary without series, series or None if empty).

    The per-frame 802.11 trace (``frames``) is left out of the summary too: like the series it is
    bulky, and it is available as ``Result.frames``.
    """
    summary = {k: v for k, v in raw.items() if k not in ("series", "frames")}
    series = raw.get("series") or None
    if series is not None and not series.get("t_s"):
        series = None
    return summary, series


@dataclass(frozen=True)
class Result:
    """Outcome of one simulation run.

    ``summary`` holds scenario name, seed, simulated and wall time, event count, and the per-flow and
    per-link counters as plain data.  ``flows`` (TCP), ``links`` and ``series`` are DataFrame views;
    ``cbr`` (UDP/CBR flows), ``wifi`` (per-station 802.11 counters), ``link_signals`` (the cross-layer link events),
    ``nodes`` (network-layer drops per cause, ICMP, routing-protocol counters) and ``agents`` (in-network agents'
    counters) are views of the optional parts, empty when absent.

    ``flows`` and ``cbr`` carry each flow's statistics (packets sent/received/lost, delivery ratio,
    one-way delay mean/median/95th/max, RFC 3550 jitter, throughput; RTT samples for TCP; see
    docs/trace.md).  The frames are polars DataFrames; ``.to_pandas()`` needs pandas and pyarrow
    (``pip install 'tcplab[pandas]'``).
    """

    summary: dict[str, Any]
    flows: pl.DataFrame
    links: pl.DataFrame
    series: pl.DataFrame
    #: The per-frame 802.11 trace (``trace.frames = true``), one row per transmission and per
    #: reception outcome at the addressee; empty otherwise.
    frames: pl.DataFrame = field(default_factory=pl.DataFrame)

    @property
    def warnings(self) -> list[str]:
        """The scenario's warnings ("loc: msg"), e.g. a station beyond its AP's reception range."""
        return list(self.summary.get("warnings") or [])

    @property
    def cbr(self) -> pl.DataFrame:
        """UDP/CBR flows: datagrams and bytes sent and delivered, loss and throughput."""
        return records_frame(self.summary.get("cbr") or [], CBR_SCHEMA)

    @property
    def wifi(self) -> pl.DataFrame:
        return pl.DataFrame(self.summary.get("wifi") or [])

    @property
    def link_signals(self) -> pl.DataFrame:
        return pl.DataFrame(self.summary.get("link_signals") or [])

    @property
    def nodes(self) -> pl.DataFrame:
        """Per node: packets its network layer dropped per cause, ICMP, and its routing agent's counters
        (only nodes with something to report)."""
        return pl.DataFrame(self.summary.get("nodes") or [])

    @property
    def agents(self) -> pl.DataFrame:
        rows = [
            {k: v for k, v in a.items() if k != "stats"} | {f"stats.{k}": v for k, v in a.get("stats", {}).items()}
            for a in self.summary.get("agents") or []
        ]
        return pl.DataFrame(rows)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Result:
        """Build from the dict returned by ``tcplab._core.run``."""
        summary, series = split_series(raw)
        return cls(
            summary=summary,
            flows=records_frame(summary.get("flows", []), FLOW_SCHEMA),
            links=records_frame(summary.get("links", []), LINK_SCHEMA),
            series=series_frame(series),
            frames=frames_frame(raw.get("frames")),
        )

    def to_json(self, indent: int | None = None) -> str:
        """The summary (without time series, which belong in Parquet) as JSON text."""
        return json.dumps(self.summary, indent=indent, allow_nan=False)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(scenario={s.get('scenario')!r}, seed={s.get('seed')}, sim_time_s={s.get('sim_time_s')}, "
            f"flows={self.flows.height}, cbr={len(self.summary.get('cbr') or [])}, links={self.links.height}, series_points={self.series.height})"
        )
