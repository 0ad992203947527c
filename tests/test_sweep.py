"""Sweeps against the real core: resume after SIGKILL, failures, executors, export."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tcplab
from conftest import run_cli
from tcplab.runner import Sweep, run_sweep
from tcplab.store import Store


def stored(store: Store, sweep: str) -> dict[str, tuple[str, str | None]]:
    """key -> (status, summary JSON) of a sweep; wall time is not part of it."""
    return {r["key"]: (r["status"], r["summary_json"]) for r in store.runs(sweep).iter_rows(named=True)}


def sweep_toml(path: Path, name: str, replications: int, heavy: bool = False) -> Path:
    """A sweep over the small wired scenario: 2 loss rates x 2 variants x ``replications``.

    ``heavy`` makes each run take a noticeable fraction of a second (100 Mb/s, 30 s, large window),
    so that a test can kill the sweep while runs are in flight.
    """
    extra = (
        '"links.bottleneck.rate" = ["100Mbps"]\n"tcp.rcv_buf" = ["1MiB"]\n'
        '"flows.download.size" = ["500MB"]\n"duration" = ["30s"]\n'
        if heavy
        else ""
    )
    losses = "[0.0, 0.0001]" if heavy else "[0.0, 0.02]"
    path.write_text(
        f"""
[sweep]
name = "{name}"
base = "wired.toml"
replications = {replications}
variants = ["newreno", "sack"]
[sweep.grid]
"links.bottleneck.loss.p" = {losses}
{extra}"""
    )
    return path


def test_sweep_file_and_cli(wired_toml: Path, tmp_path: Path) -> None:
    spec = sweep_toml(tmp_path / "sweep.toml", "cli", replications=2)
    db = tmp_path / "res" / "tcplab.db"
    proc = run_cli("sweep", str(spec), "--store", str(db), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    with Store(db) as store:
        runs = store.runs("cli")
        assert runs.height == 8 and set(runs["status"]) == {"ok"}
    again = run_cli("sweep", str(spec), "--store", str(db))
    assert again.returncode == 0 and "8 already stored, 0 executed" in again.stderr

    listing = run_cli("results", "--store", str(db), "--sweep", "cli")
    assert listing.returncode == 0 and "8 runs: 8 ok" in listing.stdout
    csv, pq = tmp_path / "x.csv", tmp_path / "x.parquet"
    assert run_cli("results", "--store", str(db), "--csv", str(csv)).returncode == 0
    assert run_cli("results", "--store", str(db), "--status", "ok", "--parquet", str(pq)).returncode == 0
    frame = pl.read_parquet(pq)
    assert frame.height == 8
    assert {"links.bottleneck.loss.p", "tcp.variant", "seed", "goodput_bps", "flow"} <= set(frame.columns)
    assert pl.read_csv(csv).height == 8


#: A sweep driver that stops advancing after its 3rd stored run, says so, and waits to be killed.
#: The tracker's ``advance`` is called right after each ``store.record``, so at that moment exactly
#: three runs are stored and no further one can be (workers may finish, but only the driver stores).
KILLABLE_DRIVER = """
import sys, threading
from pathlib import Path
import tcplab.runner as runner
from tcplab.store import Store

class Gate:
    stored = 0
    def __enter__(self): return self
    def __exit__(self, *exc): return None
    def advance(self, failed):
        Gate.stored += 1
        if Gate.stored == 3:
            print("stored 3", flush=True)
            threading.Event().wait()  # until SIGKILL

runner.tracker = lambda *args, **kwargs: Gate()
with Store(Path(sys.argv[2])) as store:
    runner.run_sweep(runner.Sweep.from_toml(sys.argv[1]), store, workers=2, progress=False)
"""


def test_resume_after_sigkill(wired_toml: Path, tmp_path: Path) -> None:
    """Kill a sweep midway, rerun it: only missing runs execute, results equal an uninterrupted sweep.

    The kill waits on a state (three runs stored, the driver parked), not on the machine's speed.
    """
    spec = sweep_toml(tmp_path / "sweep.toml", "kill", replications=6, heavy=True)
    db = tmp_path / "killed" / "tcplab.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLABLE_DRIVER, str(spec), str(db)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "stored 3\n"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    sweep = Sweep.from_toml(spec)
    with Store(db) as store:
        before = stored(store, "kill")
        assert len(before) == 3
        assert all(status == "ok" and json.loads(summary)["flows"] for status, summary in before.values())
        # A row implies its complete series file (written first, renamed into place).
        assert all(store.series(key).height > 0 for key in before)
        report = run_sweep(sweep, store, workers=2, progress=False)
        assert report.cached == len(before)
        assert len(report.executed) == 24 - len(before)
        assert not set(report.executed) & set(before)
        resumed = stored(store, "kill")
        series = {key: store.series(key) for key in resumed}
    assert [p for p in db.parent.rglob("*.tmp")] == []

    with Store(tmp_path / "clean" / "tcplab.db") as clean:
        run_sweep(sweep, clean, workers=2, progress=False)
        assert stored(clean, "kill") == resumed
        assert all(clean.series(key).equals(frame) for key, frame in series.items())


def test_failing_runs_are_recorded_and_sweep_completes(wired: dict[str, Any], tmp_path: Path) -> None:
    # valid; event limit hit while running
    sweep = Sweep(name="failing", base=wired, cells=[{}, {"max_events": 100}], replications=2)
    with Store(tmp_path / "tcplab.db") as store:
        report = run_sweep(sweep, store, workers=2, progress=False)
        assert report.total == 4 and len(report.failed) == 2
        assert [(seed, reason.split(":")[0]) for _, seed, reason in report.failures] in (
            [(1, "SimulationError"), (2, "SimulationError")], [(2, "SimulationError"), (1, "SimulationError")]
        )
        runs = store.runs("failing")
        failed = runs.filter(pl.col("status") == "failed")
        assert failed.height == 2 and runs.filter(pl.col("status") == "ok").height == 2
        assert all(e.startswith("SimulationError") for e in failed["error"].to_list())
        # Failed runs are retried on the next call; ok runs are not.
        again = run_sweep(sweep, store, workers=2, progress=False)
        assert again.cached == 2 and len(again.failed) == 2


def test_cells_that_do_not_resolve_refuse_the_sweep(wired: dict[str, Any], tmp_path: Path) -> None:
    """An invalid value or an unknown path used to be stored as failed runs while the rest ran;
    now the whole sweep is refused before anything runs or is stored (tests/test_sweep_refusals.py)."""
    sweep = Sweep(
        name="failing", base=wired, cells=[{}, {"tcp.variant": "bogus"}, {"links.nowhere.rate": "5Mbps"}], replications=2
    )
    with Store(tmp_path / "tcplab.db") as store:
        with pytest.raises(tcplab.ScenarioError) as e:
            run_sweep(sweep, store, workers=2, progress=False)
        assert [x["loc"] for x in e.value.errors()] == ['sweep.cells[1]."tcp.variant"', 'sweep.cells[2]."links.nowhere.rate"']
        assert store.runs().height == 0


def test_identical_cells_share_one_run(wired: dict[str, Any], tmp_path: Path) -> None:
    # newreno is the base scenario's variant, so both cells resolve to the same scenario.
    sweep = Sweep(name="dup", base=wired, cells=[{}, {"tcp.variant": "newreno"}], replications=2)
    with Store(tmp_path / "tcplab.db") as store:
        report = run_sweep(sweep, store, workers=1, progress=False)
        assert report.total == 2 and len(report.executed) == 2
        assert store.runs("dup").height == 4  # every (cell, seed) is listed, pointing at shared runs


def test_local_and_ray_store_identical_results(wired: dict[str, Any], tmp_path: Path) -> None:
    # Ray is an optional extra for users; `make test` installs it, so in CI it must be there.
    ray = __import__("ray") if os.environ.get("CI") else pytest.importorskip("ray")
    sweep = Sweep(
        name="exec",
        base=wired,
        grid={"links.bottleneck.loss.p": [0.0, 0.03]},
        variants=["reno", "sack"],
        replications=2,
    )
    with Store(tmp_path / "local" / "tcplab.db") as local:
        run_sweep(sweep, local, executor="local", workers=2, progress=False)
        expected = stored(local, "exec")
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        with Store(tmp_path / "ray" / "tcplab.db") as remote:
            report = run_sweep(sweep, remote, executor="ray", progress=False)
            assert len(report.executed) == 8 and not report.failed
            assert stored(remote, "exec") == expected
    finally:
        ray.shutdown()


def test_per_seed_overrides_vary_each_replication(wired: dict[str, Any], tmp_path: Path) -> None:
    """``per_seed`` adds overrides drawn from the seed: each replication simulates its own scenario (the drawn
    value is in its stored scenario and changes the result), the cell keeps its label, and a sweep without
    it stores exactly the runs it stored before (same keys)."""
    import json

    def delay_of(cell: Any, seed: int) -> dict[str, Any]:
        return {"links.bottleneck.delay": f"{3 + 4 * seed}ms"}  # 7 and 11 ms; the base has 10 ms

    base = Sweep("plain", wired, cells=[{"links.bottleneck.loss.p": 0.0}], replications=2, seed0=1)
    varied = Sweep("varied", wired, cells=[{"links.bottleneck.loss.p": 0.0}], replications=2, seed0=1,
                   per_seed=delay_of)
    with Store(tmp_path / "s.db") as store:
        plain = run_sweep(base, store, workers=1, progress=False)
        rep = run_sweep(varied, store, workers=1, progress=False)
        assert rep.cached == 0 and len(rep.executed) == 2 and not set(rep.executed) & set(plain.executed)
        rows = store.runs("varied", status="ok", with_scenario=True).sort("seed")
        assert set(rows["cell"].to_list()) == {'{"links.bottleneck.loss.p":0.0}'}
        delays = [json.loads(s)["links"][1]["delay"] for s in rows["scenario_json"].to_list()]
        assert delays[0] != delays[1]
        rtt = [json.loads(s)["flows"][0]["rtt_min_s"] for s in rows["summary_json"].to_list()]
        assert rtt[1] - rtt[0] == pytest.approx(2 * 0.004, abs=1e-4)  # the drawn delays, 7 vs 11 ms one way
        assert run_sweep(base, store, workers=1, progress=False).executed == ()
    with pytest.raises(TypeError, match="per_seed"):
        Sweep("bad", wired, per_seed=3)  # type: ignore[arg-type]
