"""Executors and the store against the real core: a worker process dying mid-sweep, runs shared
between sweeps, the progress bar's counts, a script without a main guard, and Ray with a worker cap
and on an existing cluster given by its address."""

from __future__ import annotations

import copy
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tcplab
from conftest import WIRED, run_cli
from tcplab.runner import Sweep, run_sweep
from tcplab.store import Store

LOSS = "links.bottleneck.loss.p"
#: A run that takes minutes of CPU (the tiny scenario with a 300 GB download at 1 Gb/s).
HEAVY = {"flows.download.size": "300GB", "links.bottleneck.rate": "1Gbps", "duration": "100000s", "trace.pcap": []}


def stored_count(db: Path) -> int:
    with sqlite3.connect(db) as con:
        try:
            return int(con.execute("SELECT count(*) FROM runs").fetchone()[0])
        except sqlite3.OperationalError:  # the table does not exist yet
            return 0


def worker_pids() -> list[int]:
    """Process ids of this process's ``tcplab.workers`` children (read from /proc)."""
    return _workers_of(os.getpid())


def _workers_of(parent: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"tcplab.workers" in cmdline:
            pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds worker processes through /proc")
def test_a_worker_dying_mid_sweep_fails_only_its_run(tmp_path: Path) -> None:
    """One worker runs light, heavy, light, light in that order; killed while it holds the heavy
    run, that run is failed with the cause and a new worker runs the rest."""
    db = tmp_path / "tcplab.db"
    cells = [{LOSS: 0.0}, HEAVY, {LOSS: 0.02}, {LOSS: 0.03}]
    sweep = Sweep(name="dies", base=copy.deepcopy(WIRED), cells=cells)
    killed: list[int] = []

    def kill_when_heavy_is_running() -> None:
        # The pool hands the next task to the worker before the previous outcome is stored, so once
        # the first run is in the store the only worker holds the heavy run.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            if db.exists() and stored_count(db) >= 1:
                for pid in worker_pids():
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            time.sleep(0.01)

    killer = threading.Thread(target=kill_when_heavy_is_running)
    killer.start()
    try:
        with Store(db) as store:
            report = run_sweep(sweep, store, workers=1, progress=False)
            runs = store.listing("dies")
    finally:
        killer.join()
    assert len(killed) == 1
    assert report.total == 4 and len(report.executed) == 4 and len(report.failed) == 1
    failed = runs.filter(pl.col("status") == "failed")
    assert failed.height == 1 and failed["flows.download.size"][0] == HEAVY["flows.download.size"]
    assert failed["error"][0] == "worker process died (killed by SIGKILL) while running this run"
    assert runs.filter(pl.col("status") == "ok").height == 3
    assert worker_pids() == []  # every worker ended with the sweep


def test_sweeps_share_runs_with_the_real_core(tmp_path: Path) -> None:
    with Store(tmp_path / "tcplab.db") as store:
        a = run_sweep(Sweep("a", copy.deepcopy(WIRED), grid={LOSS: [0.0, 0.02]}, replications=2), store, progress=False)
        b = run_sweep(Sweep("b", copy.deepcopy(WIRED), grid={LOSS: [0.02, 0.03]}, replications=2), store, progress=False)
        assert len(a.executed) == 4 and b.cached == 2 and len(b.executed) == 2
        shared = set(a.executed) & set(store.runs("b")["key"])
        assert len(shared) == 2  # the p = 0.02 runs, simulated once, listed in both sweeps
        flows_a = store.flows("a").filter(pl.col(LOSS) == 0.02).drop("sweep")
        flows_b = store.flows("b").filter(pl.col(LOSS) == 0.02).drop("sweep")
        assert flows_a.equals(flows_b)
        assert store.sweeps() == ["a", "b"] and store.runs().height == 6


def test_progress_bar_counts_with_the_real_core(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = copy.deepcopy(WIRED)
    with Store(tmp_path / "tcplab.db") as store:
        run_sweep(Sweep("bar", base, cells=[{}], replications=2), store, progress=False)
        capsys.readouterr()
        # 2 runs already stored, 4 to run of which 2 fail while running (a cell that cannot resolve
        # refuses the whole sweep: tests/test_sweep_refusals.py): the bar ends at 6/6, 2 failed.
        bigger = Sweep("bar", base, cells=[{}, {LOSS: 0.02}, {"max_events": 10}], replications=2)
        report = run_sweep(bigger, store, progress=True)
    err = capsys.readouterr().err
    assert (report.total, report.cached, len(report.executed), len(report.failed)) == (6, 2, 4, 2)
    assert "6/6" in err and "2 failed" in err


def test_a_script_without_main_guard_can_sweep(tmp_path: Path) -> None:
    """Local workers import only tcplab, never the caller's script (spawned multiprocessing would
    re-run the script in every worker and fail every run)."""
    script = tmp_path / "study.py"
    script.write_text(
        "from tcplab.runner import Sweep, run_sweep\n"
        "from tcplab.store import Store\n"
        f"sweep = Sweep('script', {WIRED!r}, grid={{{LOSS!r}: [0.0, 0.02]}}, replications=2)\n"
        f"report = run_sweep(sweep, Store({str(tmp_path / 's.db')!r}), workers=2)\n"
        "print(len(report.executed), len(report.failed))\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["4", "0"]


def _ray() -> Any:
    # Ray is an optional extra for users; `make test` installs it, so in CI it must be there.
    return __import__("ray") if os.environ.get("CI") else pytest.importorskip("ray")


def test_ray_worker_cap_bounds_the_runs_in_flight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = _ray()
    seen: list[int] = []
    real_wait = ray.wait

    def counting_wait(refs: list[Any], **kwargs: Any) -> Any:
        seen.append(len(refs))
        return real_wait(refs, **kwargs)

    monkeypatch.setattr(ray, "wait", counting_wait)
    sweep = Sweep("cap", copy.deepcopy(WIRED), grid={LOSS: [0.0, 0.01, 0.02, 0.03]}, replications=2)
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        with Store(tmp_path / "tcplab.db") as store:
            report = run_sweep(sweep, store, executor="ray", workers=3, progress=False)
    finally:
        ray.shutdown()
    assert len(report.executed) == 8 and not report.failed
    assert max(seen) == 3  # never more than the cap in flight, and the cap is used


def test_ray_on_an_existing_cluster_by_address(wired_toml: Path, tmp_path: Path) -> None:
    ray = _ray()
    spec = tmp_path / "sweep.toml"  # beside wired_toml
    spec.write_text(f'[sweep]\nname = "remote"\nbase = "wired.toml"\nreplications = 2\n[sweep.grid]\n"{LOSS}" = [0.0, 0.02]\n')
    local = run_cli("sweep", str(spec), "--store", str(tmp_path / "local.db"))
    assert local.returncode == 0, local.stderr
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        address = ray.get_runtime_context().gcs_address
        proc = run_cli(
            "sweep", str(spec), "--store", str(tmp_path / "ray.db"), "--executor", "ray", "--address", address,
            "--workers", "1",
        )
        jobs = ray._private.state.state.job_table()
    finally:
        ray.shutdown()
    assert proc.returncode == 0, proc.stderr
    # Ray's start-up lines are hidden: the only output is the sweep's summary line.
    assert proc.stderr.splitlines() == [
        f"sweep remote: 4 runs, 0 already stored, 4 executed, 0 failed; results in {tmp_path / 'ray.db'}"
    ]
    # The command ran as a job (driver) of that cluster rather than starting its own.
    assert any(str(tmp_path / "ray.db") in job["Entrypoint"] for job in jobs)
    with Store(tmp_path / "local.db") as a, Store(tmp_path / "ray.db") as b:
        assert a.flows("remote").drop("wall_time_s").equals(b.flows("remote").drop("wall_time_s"))
    unreachable = run_cli("sweep", str(spec), "--store", str(tmp_path / "x.db"), "--executor", "ray", "--address", "127.0.0.1:1")
    assert unreachable.returncode == 1 and "no Ray cluster answers at 127.0.0.1:1" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr


def _start_heavy_sweep(wired_toml: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """`tcplab sweep` of heavy runs in a session of its own, once both its workers are running."""
    spec = tmp_path / "sweep.toml"  # beside wired_toml
    spec.write_text(
        '[sweep]\nname = "int"\nbase = "wired.toml"\nreplications = 4\n[sweep.grid]\n'
        + "".join(f'"{path}" = ["{value}"]\n' for path, value in HEAVY.items() if path != "trace.pcap")
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "tcplab", "sweep", str(spec), "--store", str(tmp_path / "t.db"), "--workers", "2"],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while len(children := _workers_of(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    return proc, children


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_ctrl_c_stops_a_sweep_and_its_workers(wired_toml: Path, tmp_path: Path) -> None:
    """SIGINT to the terminal's process group (what Ctrl-C sends) ends the sweep with status 130
    and leaves no worker behind; waits for the workers to be running, not for a fixed time."""
    proc, children = _start_heavy_sweep(wired_toml, tmp_path)
    try:
        assert len(children) == 2, "the workers did not start"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.stderr is not None and proc.stderr.read().strip() == "interrupted"
    assert all(_gone(pid) for pid in children)


def test_workers_end_when_the_driver_is_killed(wired_toml: Path, tmp_path: Path) -> None:
    proc, children = _start_heavy_sweep(wired_toml, tmp_path)
    assert len(children) == 2, "the workers did not start"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 120  # a safety net; they check for their driver every second
    while not all(_gone(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in children)


def test_ray_started_locally_gets_the_worker_count_and_stays_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    ray = _ray()
    calls: list[dict[str, Any]] = []
    real_init = ray.init

    def recording_init(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return real_init(*args, **kwargs)

    monkeypatch.setattr(ray, "init", recording_init)
    sweep = Sweep("local-ray", copy.deepcopy(WIRED), grid={LOSS: [0.0, 0.02]})
    with Store(tmp_path / "tcplab.db") as store:
        report = run_sweep(sweep, store, executor="ray", workers=1, progress=False)
    assert len(report.executed) == 2 and not report.failed
    assert len(calls) == 1 and calls[0]["num_cpus"] == 1 and calls[0]["address"] == "local"  # always our own instance
    assert not ray.is_initialized()  # the instance we started is shut down again
    err = capfd.readouterr().err
    assert "Started a local Ray instance" not in err and "INFO" not in err and "WARNING" not in err, err


def test_a_panic_in_the_core_is_a_failed_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyo3 raises a Rust panic as PanicException, a BaseException: the run fails with its message
    instead of taking the worker down; Ctrl-C still stops the sweep."""
    from tcplab import runner

    class PanicException(BaseException):  # stands in for pyo3_runtime.PanicException
        pass

    def panics(*args: Any) -> Any:
        raise PanicException("index out of bounds")

    monkeypatch.setattr(runner._core, "run", panics)
    task = runner.Task("k", "", "toml", (), 1)
    outcome = runner.execute(task)
    assert (outcome["status"], outcome["error"]) == ("failed", "PanicException: index out of bounds")

    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner._core, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        runner.execute(task)
