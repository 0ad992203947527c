"""Unit tests of the pure-Python parts: sweep expansion, override encoding, store atomicity.

The runner tests here swap the compiled core for ``fake_core`` (and run tasks in-process) so they
can provoke cases the real simulator makes awkward to reach, such as a run that fails inside a
worker, and so they check the bookkeeping independently of simulator changes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fake_core
import polars as pl
import pytest
from fake_core import tomllib
from tcplab import runner
from tcplab.runner import Sweep, Task, run_sweep
from tcplab.scenario import cell_pairs, load, override_pairs, parse_set, toml_value
from tcplab.store import RunRecord, Store, canonical_json, run_key

# ------------------------------------------------------------------ scenarios and overrides


@pytest.mark.parametrize(
    "value", [True, 3, 0.01, 1e-05, -2.5, "5Mbps", "true", 'quo"te', [1, 2.5], {"kind": "droptail", "packets": 50}]
)
def test_toml_value_roundtrips(value: Any) -> None:
    assert tomllib.loads(f"v = {toml_value(value)}")["v"] == value


def test_override_pairs_pass_strings_through() -> None:
    assert override_pairs({"tcp.variant": "sack", "links.0.loss.p": 0.02}) == [
        ("tcp.variant", "sack"),
        ("links.0.loss.p", "0.02"),
    ]
    assert cell_pairs({"tcp.variant": "sack"}) == [("tcp.variant", '"sack"')]
    assert parse_set("links.bottleneck.rate = 5Mbps") == ("links.bottleneck.rate", "5Mbps")
    with pytest.raises(ValueError):
        parse_set("novalue")


def test_load_distinguishes_paths_text_and_dicts(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"name": "x"}')
    assert load(path).format == "json"
    assert load(str(path)).text == '{"name": "x"}'
    assert load('name = "x"').format == "toml"
    assert load({"name": "x"}).format == "json"
    with pytest.raises(FileNotFoundError):
        load(str(tmp_path / "nope.toml"))


# ------------------------------------------------------------------ sweeps as data


def test_sweep_expansion_order_and_seeds() -> None:
    sweep = Sweep(
        name="s",
        base={},
        cells=[{}, {"flows.f.size": "1MB"}],
        grid={"a.p": [0.0, 0.1]},
        variants=["reno", "sack"],
        replications=3,
        seed0=10,
    )
    cells = sweep.expand()
    assert len(cells) == 2 * 2 * 2
    assert cells[0] == {"a.p": 0.0, "tcp.variant": "reno"}
    assert cells[-1] == {"flows.f.size": "1MB", "a.p": 0.1, "tcp.variant": "sack"}
    assert list(sweep.seeds()) == [10, 11, 12]


def test_sweep_validation() -> None:
    with pytest.raises(ValueError):
        Sweep(name="s", base={}, grid={"a": []})
    with pytest.raises(ValueError):
        Sweep(name="s", base={}, replications=0)
    with pytest.raises(ValueError):
        Sweep(name="s", base={}, cells=[{"tcp.variant": "reno"}], variants=["sack"]).expand()


def test_sweep_from_toml(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text('name = "b"\n')
    spec = tmp_path / "sweep.toml"
    spec.write_text(
        '[sweep]\nname = "x"\nbase = "base.toml"\nreplications = 2\nvariants = ["sack"]\n'
        '[sweep.grid]\n"links.bottleneck.loss.p" = [0.0, 0.01]\n'
    )
    sweep = Sweep.from_toml(spec)
    assert sweep.base == tmp_path / "base.toml" and sweep.replications == 2 and len(sweep.expand()) == 2

    inline = tmp_path / "inline.toml"
    inline.write_text('name = "b"\n[sweep]\nname = "y"\n')
    assert Sweep.from_toml(inline).base == {"name": "b"}
    bad = tmp_path / "bad.toml"
    bad.write_text('[sweep]\nname = "z"\nbase = "base.toml"\nreplicas = 2\n')
    with pytest.raises(ValueError, match="replicas"):
        Sweep.from_toml(bad)


def test_key_depends_on_scenario_seed_and_version() -> None:
    k = run_key({"a": 1, "b": [1, 2]}, 1, "v1")
    assert k == run_key({"b": [1, 2], "a": 1}, 1, "v1")  # key order is irrelevant
    assert len({k, run_key({"a": 1, "b": [1, 2]}, 2, "v1"), run_key({"a": 1, "b": [1, 2]}, 1, "v2")}) == 3


# ------------------------------------------------------------------ store


def record(key: str, series: dict[str, list[Any]] | None = None) -> RunRecord:
    summary = {"scenario": "s", "seed": 1, "wall_time_s": 0.5, "flows": [{"name": "f", "goodput_bps": 1.0}]}
    return RunRecord(key, "sw", canonical_json({"p": 0.1}), "{}", 1, "v", "ok", None, summary, series, 0.5)


SERIES = {"flow": ["f", "f"], "series": ["cwnd", "cwnd"], "t_s": [0.0, 0.1], "value": [1.0, 2.0]}


def test_store_writes_series_before_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "tcplab.db")

    def crash(self: Store) -> Iterator[None]:
        raise KeyboardInterrupt  # dies between the Parquet file and the row

    monkeypatch.setattr(Store, "_transaction", crash)
    with pytest.raises(KeyboardInterrupt):
        store.record(record("k1", SERIES))
    monkeypatch.undo()
    assert (tmp_path / "series" / "k1.parquet").exists()
    assert store.runs().height == 0 and store.ok_keys(["k1"]) == set()  # no row: the run will be redone
    store.record(record("k1", SERIES))
    assert store.ok_keys(["k1", "k2"]) == {"k1"}
    assert store.series("k1")["value"].to_list() == [1.0, 2.0]
    assert [p.name for p in (tmp_path / "series").iterdir()] == ["k1.parquet"]


def test_store_summary_excludes_wall_time(tmp_path: Path) -> None:
    with Store(tmp_path / "tcplab.db") as store:
        store.record(record("k"))
        row = store.runs().row(0, named=True)
    assert "wall_time_s" not in json.loads(row["summary_json"]) and row["wall_time_s"] == 0.5


def test_stale_temporaries_are_removed(tmp_path: Path) -> None:
    store = Store(tmp_path / "tcplab.db")
    store.series_dir.mkdir()
    dead = store.series_dir / ".abc.999999999.tmp"
    mine = store.series_dir / f".def.{os.getpid()}.tmp"
    dead.touch()
    mine.touch()
    store.remove_stale_temporaries()
    assert not dead.exists() and mine.exists()


def test_export_formats(tmp_path: Path) -> None:
    with Store(tmp_path / "tcplab.db") as store:
        store.record(record("k"))
        assert store.export(tmp_path / "o.csv") == 1
        assert pl.read_csv(tmp_path / "o.csv")["p"].to_list() == [0.1]
        with pytest.raises(ValueError):
            store.export(tmp_path / "o.xlsx")


# ------------------------------------------------------------------ runner with the fake core


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use ``fake_core`` and run tasks in this process, so monkeypatching reaches the 'workers'."""
    monkeypatch.setattr(runner, "_core", fake_core)
    monkeypatch.setattr(runner, "ScenarioError", fake_core.ScenarioError)
    monkeypatch.setattr(fake_core, "RUN_SLEEP_S", 0.0)

    def in_process(tasks: list[Task], workers: int | None, address: str | None) -> Iterator[dict[str, Any]]:
        return (runner.execute(t) for t in tasks)

    monkeypatch.setattr(runner, "_run_local", in_process)


BASE = {"name": "fake", "flows": [{"name": "f"}], "fake": {"series": True}}


def test_worker_failure_is_stored_and_sweep_continues(fake: None, tmp_path: Path) -> None:
    sweep = Sweep(name="w", base=BASE, cells=[{}, {"fake.fail": True}], replications=2)
    with Store(tmp_path / "tcplab.db") as store:
        rep = run_sweep(sweep, store, progress=False)
        assert rep.total == 4 and len(rep.executed) == 4 and len(rep.failed) == 2
        errors = store.runs("w", "failed")["error"].to_list()
        assert sum("SimulationError: event limit reached" in e for e in errors) == 2
        ok = store.runs("w", "ok")
        assert ok.height == 2
        assert all((store.series_dir / f"{k}.parquet").exists() for k in ok["key"])


def test_a_cell_that_does_not_resolve_refuses_the_sweep_before_anything_runs(fake: None, tmp_path: Path) -> None:
    sweep = Sweep(name="w", base=BASE, cells=[{}, {"tcp.variant": "bogus"}], replications=2)
    with Store(tmp_path / "tcplab.db") as store:
        with pytest.raises(fake_core.ScenarioError, match=r"sweep.cells\[1\].*tcp.variant") as exc:
            run_sweep(sweep, store, progress=False)
        assert exc.value.errors()[0]["loc"].startswith("sweep.cells[1]")
        assert store.runs("w").height == 0


def test_rerun_skips_ok_runs_only(fake: None, tmp_path: Path) -> None:
    sweep = Sweep(name="r", base=BASE, grid={"fake.x": [1, 2, 3]}, replications=2)
    with Store(tmp_path / "tcplab.db") as store:
        first = run_sweep(sweep, store, progress=False)
        assert len(first.executed) == 6 and first.cached == 0
        second = run_sweep(sweep, store, progress=False)
        assert second.executed == () and second.cached == 6
        bigger = Sweep(name="r", base=BASE, grid={"fake.x": [1, 2, 3, 4]}, replications=2)
        third = run_sweep(bigger, store, progress=False)
        assert len(third.executed) == 2 and third.cached == 6
        flows = store.flows("r")
        assert flows.height == 8 and sorted(set(flows["fake.x"].to_list())) == [1, 2, 3, 4]


def test_sweeps_share_runs(fake: None, tmp_path: Path) -> None:
    with Store(tmp_path / "tcplab.db") as store:
        run_sweep(Sweep(name="a", base=BASE, grid={"fake.x": [1, 2]}), store, progress=False)
        rep = run_sweep(Sweep(name="b", base=BASE, grid={"fake.x": [2, 3]}), store, progress=False)
        assert rep.cached == 1 and len(rep.executed) == 1
        assert store.runs("b").height == 2 and store.sweeps() == ["a", "b"]


def test_progress_bar_counts_runs(fake: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = Sweep(name="bar", base=BASE, cells=[{}, {"fake.fail": True}], replications=2)
    with Store(tmp_path / "tcplab.db") as store:
        run_sweep(sweep, store, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err and "2 failed" in err
