"""The researcher's sweep API and commands on a small real sweep: tcplab.sweep/results, summaries
checked against means and intervals computed by hand from ``.runs``, `tcplab results --summary`,
the untruncated run listing, and plots with their error bars."""

from __future__ import annotations

import copy
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tcplab
from conftest import WIRED, run_cli
from matplotlib.container import ErrorbarContainer
from tcplab.cli import _number
from tcplab.runner import Sweep
from tcplab.sweeps import SweepResult

LOSS = "links.bottleneck.loss.p"
VARIANT = "tcp.variant"
GRID = {LOSS: [0.01, 0.03]}
VARIANTS = ["newreno", "sack"]
#: Student t quantiles t(0.975, n - 1) from printed tables, independent of tcplab.stats.
T975 = {3: 4.30265273, 6: 2.57058184}


def by_hand(res: SweepResult, metric: str, cell: dict[str, Any]) -> tuple[float, float, int]:
    """Mean, 95 % CI half-width and n of ``metric`` over the ok rows of ``cell``, from ``.runs``."""
    rows = res.runs.filter(pl.col("status") == "ok")
    for path, value in cell.items():
        rows = rows.filter(pl.col(path) == value)
    xs = rows[metric].to_list()
    n = len(xs)
    return statistics.fmean(xs), T975[n] * statistics.stdev(xs) / math.sqrt(n), n


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding sweep "api": 2 loss rates x 2 variants x 3 replications of the tiny scenario."""
    path = tmp_path_factory.mktemp("api") / "tcplab.db"
    res = tcplab.sweep(
        copy.deepcopy(WIRED), grid=GRID, variants=VARIANTS, replications=3, store=path, name="api", workers=2
    )
    assert res.report is not None and len(res.report.executed) == 12 and not res.report.failed
    return path


def test_runs_have_one_row_per_run_and_flow_with_parameters_as_columns(store: Path) -> None:
    res = tcplab.results(store, sweep="api")
    assert res.parameters == (LOSS, VARIANT)
    assert res.runs.height == 12 and res.runs["key"].n_unique() == 12
    assert {LOSS, VARIANT, "seed", "flow", "goodput_bps", "retransmissions"} <= set(res.runs.columns)
    assert sorted(set(res.runs[LOSS].to_list())) == GRID[LOSS]
    assert sorted(set(res.runs[VARIANT].to_list())) == VARIANTS
    assert res.runs["flow"].unique().to_list() == ["download"]
    # The runs are the real core's: losses cost goodput, and the variant column reaches the flow.
    assert (res.runs[VARIANT] == res.runs["variant"]).all()
    assert "goodput_bps" in res.metrics and LOSS not in res.metrics


def test_summary_equals_means_and_intervals_computed_by_hand(store: Path) -> None:
    res = tcplab.results(store, sweep="api")
    summary = res.summary("goodput_bps")
    assert isinstance(summary, pl.DataFrame) and summary.by == (LOSS, VARIANT)
    assert summary.columns == [LOSS, VARIANT, "mean", "ci95", "std", "n"]
    assert summary.select(LOSS, VARIANT).rows() == [(p, v) for p in GRID[LOSS] for v in VARIANTS]
    for row in summary.iter_rows(named=True):
        mean, ci95, n = by_hand(res, "goodput_bps", {LOSS: row[LOSS], VARIANT: row[VARIANT]})
        assert row["mean"] == pytest.approx(mean, rel=1e-12) and row["n"] == n == 3
        assert ci95 > 0 and row["ci95"] == pytest.approx(ci95, rel=1e-6)  # the table's t has 9 digits
    # Fewer grouping columns pool the cells: 6 runs per variant.
    pooled = res.summary("retransmissions", by=[VARIANT])
    for row in pooled.iter_rows(named=True):
        mean, ci95, n = by_hand(res, "retransmissions", {VARIANT: row[VARIANT]})
        assert (row["mean"], row["ci95"], row["n"]) == (pytest.approx(mean), pytest.approx(ci95, rel=1e-6), n)
        assert n == 6


def test_sweep_and_results_agree_and_rerun_is_cached(store: Path) -> None:
    again = tcplab.sweep(copy.deepcopy(WIRED), grid=GRID, variants=VARIANTS, replications=3, store=store, name="api")
    assert again.report is not None and again.report.cached == 12 and again.report.executed == ()
    loaded = tcplab.results(store, sweep="api")
    assert again.runs.equals(loaded.runs)
    assert again.summary("goodput_bps").equals(loaded.summary("goodput_bps"))
    # A call with fewer cells returns only its own runs, although the sweep name holds more.
    part = tcplab.sweep(copy.deepcopy(WIRED), grid={LOSS: [0.03]}, variants=["sack"], replications=3, store=store, name="api")
    assert part.runs.height == 3 and set(part.runs[LOSS]) == {0.03} and set(part.runs[VARIANT]) == {"sack"}
    assert tcplab.results(store, sweep="api").runs.height == 12


def test_bad_arguments_name_the_field_and_allowed_values(store: Path, tmp_path: Path) -> None:
    res = tcplab.results(store, sweep="api")
    with pytest.raises(ValueError, match=r"unknown metric 'goodput'; expected one of \[.*'goodput_bps'"):
        res.summary("goodput")
    with pytest.raises(ValueError, match=r"cannot group by \['tcp.varient'\]"):
        res.summary("goodput_bps", by=["tcp.varient"])
    with pytest.raises(ValueError, match=r"no sweep named 'nope'.*stored sweeps: \['api'\]"):
        tcplab.results(store, sweep="nope")
    with pytest.raises(FileNotFoundError):
        tcplab.results(tmp_path / "missing.db")
    with pytest.raises(TypeError, match="variants: expected a list"):  # a type error: a str, not a list
        tcplab.sweep(WIRED, variants="sack", store=tmp_path / "x.db")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"executor: unknown 'slurm'"):
        tcplab.sweep(WIRED, executor="slurm", store=tmp_path / "x.db")
    with pytest.raises(ValueError, match=r"x: 'seed' is not a grouping column"):
        res.summary("goodput_bps").plot(x="seed")


def test_summary_plot_draws_each_variant_with_its_interval(store: Path, tmp_path: Path) -> None:
    summary = tcplab.results(store, sweep="api").summary("goodput_bps")
    fig = summary.plot(x=LOSS, hue=VARIANT, path=tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ax = fig.axes[0]
    assert ax.get_xlabel() == LOSS and ax.get_ylabel() == "goodput (Mb/s)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == VARIANTS
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2
    for variant, container in zip(VARIANTS, bars, strict=True):
        rows = summary.filter(pl.col(VARIANT) == variant).sort(LOSS)
        # Each error bar spans mean ± ci95, in Mb/s.
        segments = container.lines[2][0].get_segments()
        spans = [(seg[0][1], seg[1][1]) for seg in segments]
        expected = [((m - c) / 1e6, (m + c) / 1e6) for m, c in zip(rows["mean"], rows["ci95"], strict=True)]
        assert spans == [pytest.approx(e) for e in expected]
    # Lines per remaining parameter when no hue is named; a band instead of bars on request.
    band = summary.plot(x=LOSS, band=True).axes[0]
    assert len(band.collections) == 2 and not band.containers


def test_cli_summary_prints_mean_and_interval_per_cell(store: Path, tmp_path: Path) -> None:
    proc = run_cli("results", "--store", str(store), "--sweep", "api", "--summary", "goodput_bps", "--by", LOSS, VARIANT)
    assert proc.returncode == 0, proc.stderr
    res = tcplab.results(store, sweep="api")
    lines = proc.stdout.splitlines()
    assert any(LOSS in line and VARIANT in line and "95 % CI" in line for line in lines)
    for p in GRID[LOSS]:
        for v in VARIANTS:
            mean, ci95, n = by_hand(res, "goodput_bps", {LOSS: p, VARIANT: v})
            cells = [f"{p}", v, _number(mean), _number(ci95), str(n)]
            assert any(line.split() == cells for line in lines), (cells, proc.stdout)
    out = tmp_path / "summary.csv"
    assert run_cli("results", "--store", str(store), "--summary", "goodput_bps", "--csv", str(out)).returncode == 0
    exported = pl.read_csv(out)
    assert exported.columns == [LOSS, VARIANT, "mean", "ci95", "std", "n"]
    assert exported["mean"].to_list() == pytest.approx(res.summary("goodput_bps")["mean"].to_list())
    bad = run_cli("results", "--store", str(store), "--summary", "goodput", "--sweep", "api")
    assert bad.returncode == 2 and "expected one of" in bad.stderr and "Traceback" not in bad.stderr
    assert run_cli("results", "--store", str(store), "--by", VARIANT).returncode == 2


def test_cli_listing_shows_parameters_as_columns_untruncated(store: Path, tmp_path: Path) -> None:
    # A run that failed while running, with a long error message, in a second sweep of the same
    # store (a cell that does not resolve refuses the sweep: tests/test_sweep_refusals.py).
    bogus = tcplab.sweep(copy.deepcopy(WIRED), cells=[{VARIANT: "sack", "max_events": 10}], store=store, name="bad")
    error = bogus.failed["error"][0]
    assert len(error) > 60
    env = dict(os.environ, COLUMNS="60")  # narrower than the table: must not cut it
    proc = subprocess.run(
        [sys.executable, "-m", "tcplab", "results", "--store", str(store)], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[1].split()
    assert header[:5] == ["sweep", "key", LOSS, "max_events", VARIANT]
    assert error in proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines() if line.split()[:1] == ["api"]]
    assert len(rows) == 12 and {(r[2], r[4]) for r in rows} == {(str(p), v) for p in GRID[LOSS] for v in VARIANTS}
    assert {r[3] for r in rows} == {"–"}  # the api sweep does not vary max_events
    assert "13 runs: 12 ok, 1 failed" in proc.stdout


def test_cli_plot_writes_the_figure(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "fig.png"
    proc = run_cli("plot", str(store), "--sweep", "api", "--x", LOSS, "--y", "goodput_bps", "--hue", VARIANT, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {out}" in proc.stderr
    for args, message in [
        (["--x", "links.bottleneck.rate"], "is not a swept parameter"),
        (["--x", LOSS, "--y", "goodput"], "unknown metric"),
        (["--x", LOSS, "--hue", LOSS], "hue"),
    ]:
        bad = run_cli("plot", str(store), "--sweep", "api", *args, "-o", str(tmp_path / "x.png"))
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    ambiguous = run_cli("plot", str(store), "--x", LOSS, "-o", str(tmp_path / "x.png"))
    assert ambiguous.returncode == 2 and "name one of" in ambiguous.stderr


def test_ray_executor_gives_the_same_runs_and_summary(store: Path, tmp_path: Path) -> None:
    # Ray is an optional extra for users; `make test` installs it, so in CI it must be there.
    __import__("ray") if os.environ.get("CI") else pytest.importorskip("ray")
    res = tcplab.sweep(
        copy.deepcopy(WIRED),
        grid=GRID,
        variants=VARIANTS,
        replications=3,
        store=tmp_path / "ray.db",
        name="api",
        executor="ray",
        workers=2,
    )
    local = tcplab.results(store, sweep="api")
    drop = ["wall_time_s"]
    assert res.runs.drop(drop).equals(local.runs.drop(drop))
    summary = res.summary("goodput_bps")
    for row in summary.iter_rows(named=True):
        mean, ci95, n = by_hand(res, "goodput_bps", {LOSS: row[LOSS], VARIANT: row[VARIANT]})
        assert row["mean"] == pytest.approx(mean, rel=1e-12) and row["ci95"] == pytest.approx(ci95, rel=1e-6)
        assert row["n"] == n == 3


def test_example_sweep_file_runs_and_plots(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "sweeps" / "wired_lossy.toml"
    spec = Sweep.from_toml(example)
    assert spec.base == example.parent / "../wired_lossy.toml"  # relative to the sweep file
    assert len(spec.expand()) == 12 and spec.replications == 5
    db = tmp_path / "tcplab.db"
    assert run_cli("sweep", str(example), "--store", str(db)).returncode == 0
    out = tmp_path / "goodput.png"
    proc = run_cli("plot", str(db), "--x", LOSS, "--y", "goodput_bps", "--hue", VARIANT, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ('replications = "five"', "sweep.replications: expected a positive integer, got 'five'"),
        ("replications = 0", "sweep.replications: expected a positive integer, got 0"),
        ('variants = "sack"', "sweep.variants: expected an array of variant names"),
        ('seed0 = 1.5', "sweep.seed0: expected an integer"),
        ("cells = [1]", "sweep.cells: expected an array of tables"),
        ("grid = { \"tcp.variant\" = \"sack\" }", "sweep.grid.tcp.variant: expected a non-empty array of values"),
        ("nme = 1", "sweep: unknown field(s) ['nme']; allowed:"),
    ],
)
def test_sweep_file_errors_name_the_field(field: str, message: str, tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text(f'[sweep]\nname = "bad"\nbase = "wired.toml"\n{field}\n')
    with pytest.raises(ValueError) as err:
        Sweep.from_toml(spec)
    assert message in str(err.value)
    proc = run_cli("sweep", str(spec), "--store", str(tmp_path / "x.db"))
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_several_flows_are_summarised_apart(tmp_path: Path) -> None:
    base = copy.deepcopy(WIRED)
    base["flows"].append(dict(base["flows"][0], name="second", size="100KB"))
    res = tcplab.sweep(base, variants=VARIANTS, replications=2, store=tmp_path / "t.db", name="two", workers=2)
    assert res.runs.height == 8 and res.default_by() == [VARIANT, "flow"]
    summary = res.summary("bytes_delivered")
    assert summary.select(VARIANT, "flow").rows() == [(v, f) for v in VARIANTS for f in ("download", "second")]
    assert summary.filter(pl.col("flow") == "second")["mean"].to_list() == [100_000.0, 100_000.0]
