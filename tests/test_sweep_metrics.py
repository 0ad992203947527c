"""Sweeps over every stored metric (docs/sweeps.md): CBR flows, link directions, stations and
nodes beside TCP flows; one flow or the sum of a run's flows; quantities in numeric order; unknown
metrics and flows refused with the allowed ones."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import tcplab
from conftest import run_cli
from tcplab.quantities import sort_key, sorted_values

DELAY = "links.l.delay"

# Two TCP flows and a CBR flow over one 5 Mb/s link, 3 s.
WIRED = """
name = "two_flows"
duration = "3s"
nodes = [{ name = "a" }, { name = "b" }]
[[links]]
name = "l"
a = "a"
b = "b"
rate = "5Mbps"
delay = "5ms"
queue = { kind = "droptail", packets = 20 }
loss = { model = "bernoulli", p = 0.01, direction = "a_to_b" }
[[flows]]
name = "f1"
app = "bulk"
client = "b"
server = "a"
[[flows]]
name = "f2"
app = "bulk"
client = "b"
server = "a"
[[flows]]
name = "v"
app = "cbr"
src = "a"
dst = "b"
rate = "200kbps"
packet_size = "200B"
"""

# Station a's every data frame lost, short retry limit 4, one datagram a second for 10 s: each is
# sent 4 times (3 retries) and dropped: 30 retries and 10 MAC drops a run.
LOST_FRAMES = (Path(__file__).parent / "fixtures" / "lost_frames.toml").read_text()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("metrics") / "tcplab.db"
    tcplab.sweep(WIRED, grid={DELAY: ["50ms", "5ms", "10ms"]}, replications=2, store=path, name="wired", workers=2)
    tcplab.sweep(LOST_FRAMES, grid={"duration": ["10s"]}, replications=2, store=path, name="wifi", workers=2)
    return path


def test_quantities_sort_by_magnitude() -> None:
    assert sorted_values(["50ms", "5ms", "1s", "10ms"]) == ["5ms", "10ms", "50ms", "1s"]
    assert sorted_values(["10Mbps", "500kbps", "1Gbps"]) == ["500kbps", "10Mbps", "1Gbps"]
    assert sorted_values(["64KiB", "1MB", "100B"]) == ["100B", "64KiB", "1MB"]
    assert sort_key(2) < sort_key("reno") < sort_key(None)


def test_summaries_order_durations_numerically(store: Path) -> None:
    res = tcplab.results(store, sweep="wired")
    s = res.summary("goodput_bps", flow="f1")
    assert s[DELAY].to_list() == ["5ms", "10ms", "50ms"]


def test_one_flow_or_the_sum_of_flows(store: Path) -> None:
    res = tcplab.results(store, sweep="wired")
    assert res.default_by("goodput_bps") == [DELAY, "flow"]
    total = res.summary("goodput_bps", sum_flows=True)
    assert total.columns[:1] == [DELAY] and "flow" not in total.columns and total["n"].to_list() == [2, 2, 2]
    ok = res.ok
    for row in total.iter_rows(named=True):
        runs = ok.filter(pl.col(DELAY) == row[DELAY]).group_by("key").agg(pl.col("goodput_bps").sum())
        assert row["mean"] == pytest.approx(runs["goodput_bps"].mean(), rel=1e-12)
    one = res.summary("goodput_bps", flow="f2")
    f2 = ok.filter(pl.col("flow") == "f2")
    assert one["mean"].to_list() == [
        pytest.approx(f2.filter(pl.col(DELAY) == d)["goodput_bps"].mean(), rel=1e-12) for d in ("5ms", "10ms", "50ms")
    ]
    with pytest.raises(ValueError, match="expected one of \\['f1', 'f2'\\]"):
        res.summary("goodput_bps", flow="f9")
    with pytest.raises(ValueError, match="does not add up"):
        res.summary("delivery_ratio", sum_flows=True)


def test_cbr_link_and_node_metrics(store: Path) -> None:
    res = tcplab.results(store, sweep="wired")
    cbr = res.summary("cbr.delivery_ratio")
    runs = tcplab.results(store, sweep="wired").table("cbr.delivery_ratio").filter(pl.col("status") == "ok")
    assert set(runs["flow"].to_list()) == {"v"} and cbr["n"].to_list() == [2, 2, 2]
    assert all(0.5 < m < 1.0 for m in cbr["mean"].to_list())
    drops = res.summary("link.drops_loss", flow="l:a->b")
    assert all(m > 0 for m in drops["mean"].to_list())  # 1 % loss a->b
    assert res.summary("link.drops_loss", flow="l:b->a")["mean"].to_list() == [0.0, 0.0, 0.0]
    # Static routing: every node quiet, left out of the summary, counted as zero.
    nodes = res.summary("node.control_packets", sum_flows=True)
    assert nodes["mean"].to_list() == [0.0, 0.0, 0.0] and nodes["n"].to_list() == [2, 2, 2]
    with pytest.raises(ValueError, match="have no stations"):
        res.summary("wifi.retries")


def test_mac_counters_of_a_station_by_hand(store: Path) -> None:
    res = tcplab.results(store, sweep="wifi")
    retries = res.summary("wifi.retries", flow="w:a")
    assert retries["mean"].to_list() == [30.0] and retries["n"].to_list() == [2]
    assert res.summary("wifi.drops_retry_limit", sum_flows=True)["mean"].to_list() == [10.0]
    assert res.summary("cbr.received")["mean"].to_list() == [0.0]


def test_unknown_metrics_name_every_family(store: Path) -> None:
    res = tcplab.results(store, sweep="wired")
    with pytest.raises(ValueError) as exc:
        res.summary("retries")
    for name in ("goodput_bps", "cbr.delivery_ratio", "link.drops_queue", "wifi.retries", "node.control_packets",
                 "node.route_changes", "sim_time_s"):
        assert f"'{name}'" in str(exc.value)


def test_cli_results_and_plot(store: Path, tmp_path: Path) -> None:
    db = str(store)
    out = run_cli("results", "--store", db, "--sweep", "wired", "--summary", "--metric", "goodput_bps", "--sum-flows")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "summed over each run's TCP flows" in lines[0]
    order = [next(d for d in ("50ms", "10ms", "5ms") if line.lstrip().startswith(d)) for line in lines
             if line.strip()[:1].isdigit()]
    assert order == ["5ms", "10ms", "50ms"]
    cbr = run_cli("results", "--store", db, "--sweep", "wired", "--summary", "cbr.loss_pct")
    assert cbr.returncode == 0 and "cbr.loss_pct" in cbr.stdout
    bad = run_cli("results", "--store", db, "--sweep", "wired", "--summary", "--metric", "wifi.nope")
    assert bad.returncode == 2 and "wifi.retries" in bad.stderr and "Traceback" not in bad.stderr
    both = run_cli("results", "--store", db, "--sweep", "wired", "--summary", "--flow", "f1", "--sum-flows")
    assert both.returncode == 2
    # --hue with several flows per run: refused, naming the way out.
    png = tmp_path / "p.png"
    hue = run_cli("plot", db, "--sweep", "wired", "--x", DELAY, "--hue", DELAY, "-o", str(png))
    assert hue.returncode == 2 and "--flow NAME" in hue.stderr and "--sum-flows" in hue.stderr and not png.exists()
    for extra in (["--flow", "f1"], ["--sum-flows"]):
        ok = run_cli("plot", db, "--sweep", "wired", "--x", DELAY, "--y", "goodput_bps", *extra, "-o", str(png))
        assert ok.returncode == 0, ok.stderr
        assert png.stat().st_size > 1000
        png.unlink()
    mac = run_cli("plot", db, "--sweep", "wifi", "--x", "duration", "--metric", "wifi.retries", "--flow", "w:a",
                  "-o", str(png))
    assert mac.returncode == 0, mac.stderr
