"""Series beyond TCP (``trace.series``: queue, station, routing) as the user reads them: the
``series`` DataFrame with its ``at`` column, ``tcplab run --json``, the store, the plot, and the
refusal of unknown names (the hand-counted cases are in crates/tcplab-core/tests/net_series.rs)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import tcplab
from conftest import run_cli
from tcplab.exceptions import ScenarioError
from tcplab.result import series_frame

# A 1028-B packet every 5 ms into a link that sends one every 10 ms: the queue grows by 100
# packets a second to its 250 (crates/tcplab-core/tests/net_series.rs counts it by hand).
QUEUE_FILL = (Path(__file__).parent / "fixtures" / "queue_fill.toml").read_text()


def test_queue_series_in_the_result_frame_add_up_to_the_summary() -> None:
    r = tcplab.run(QUEUE_FILL)
    s = r.series
    assert s.columns == ["flow", "at", "series", "t_s", "value"]
    q = s.filter((pl.col("series") == "queue_len") & (pl.col("at") == "l:a->b"))
    assert q["value"].to_list() == [100.0, 200.0, 250.0, 250.0, 250.0]
    drops = s.filter((pl.col("series") == "queue_drops") & (pl.col("at") == "l:a->b"))["value"].sum()
    assert drops == r.links.filter(pl.col("direction") == "a->b")["drops_queue"].item() == 250
    assert s["flow"].null_count() == s.height  # no TCP flow


def test_run_json_carries_the_series_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "q.toml"
    path.write_text(QUEUE_FILL)
    doc = json.loads(run_cli("run", str(path), "--json").stdout)
    cols = doc["series"]
    assert set(cols) == {"flow", "at", "series", "t_s", "value"}
    rows = [i for i, (n, a) in enumerate(zip(cols["series"], cols["at"])) if n == "queue_len" and a == "l:a->b"]
    assert [cols["value"][i] for i in rows] == [100.0, 200.0, 250.0, 250.0, 250.0]
    plain = json.loads(run_cli("run", str(path), "--json", "--set", "trace.series=[]").stdout)
    assert "series" not in plain


def test_unknown_series_names_are_refused_with_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as exc:
        tcplab.run(QUEUE_FILL, overrides={"trace.series": ["queue", "queue_length"]})
    text = str(exc.value)
    assert "trace.series[1]" in text and "queue_length" in text
    for allowed in ("queue_len", "mac_retries", "rreq", "route_changes", "routing", "cwnd", "all"):
        assert allowed in text
    path = tmp_path / "q.toml"
    path.write_text(QUEUE_FILL)
    cli = run_cli("run", str(path), "--set", 'trace.series=["bogus"]')
    assert cli.returncode == 2 and "trace.series[0]" in cli.stderr and "Traceback" not in cli.stderr
    zero = run_cli("run", str(path), "--set", "trace.interval=0s")
    assert zero.returncode == 2 and "trace.interval" in zero.stderr


def test_the_store_keeps_the_series_and_reads_older_files(tmp_path: Path) -> None:
    store = tmp_path / "tcplab.db"
    res = tcplab.sweep(QUEUE_FILL, grid={"duration": ["2s"]}, store=store, name="q", workers=1)
    key = res.ok["key"][0]
    s = res.series(key)
    assert s.filter((pl.col("series") == "queue_len") & (pl.col("at") == "l:a->b"))["value"].to_list() == [100.0, 200.0]
    # A series file written before series beyond TCP existed has no ``at`` column.
    old = pl.DataFrame({"flow": ["f"], "series": ["cwnd"], "t_s": [0.1], "value": [1.0]})
    assert series_frame(old).columns == ["flow", "at", "series", "t_s", "value"]


def test_series_are_plottable(tmp_path: Path) -> None:
    r = tcplab.run(QUEUE_FILL)
    out = tmp_path / "q.png"
    fig = r.plot_series("queue_len", path=out)
    assert out.stat().st_size > 1000
    assert {line.get_label() for line in fig.axes[0].get_lines()} == {"l:a->b", "l:b->a"}
    fig = r.plot_series("queue_drops", at="l:a->b")
    assert len(fig.axes[0].get_lines()) == 1
    with pytest.raises(ValueError, match="recorded: .*queue_len"):
        r.plot_series("cwnd")
    with pytest.raises(ValueError, match="expected one of"):
        r.plot_series("queue_len", at="nowhere")
