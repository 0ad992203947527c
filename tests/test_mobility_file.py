"""Movement files (ns-2 setdest format) named by a scenario file: found beside the scenario
whatever the current directory, and part of a run's identity in the results store."""

from __future__ import annotations

import shutil
from pathlib import Path

import tcplab
from tcplab.runner import Sweep, run_sweep
from tcplab.store import Store

DATA = Path(__file__).parent.parent / "crates/tcplab-core/tests/data/setdest_3nodes.ns"

SCENARIO = """
name = "replay"
duration = "40s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[wlans]]
name = "manet"
mode = "adhoc"
phy = "ns2_dsss"
propagation = { model = "two_ray_ground" }
routing = { protocol = "aodv", preset = "ns2" }
mobility_file = "moves/setdest.ns"
[[wlans.stations]]
node = "a"
position = ["0m", "0m"]
[[wlans.stations]]
node = "b"
position = ["0m", "0m"]
[[wlans.stations]]
node = "c"
position = ["0m", "0m"]
[[flows]]
name = "f"
app = "bulk"
server = "a"
client = "b"
"""


def _scenario(folder: Path) -> Path:
    (folder / "moves").mkdir(parents=True)
    shutil.copy(DATA, folder / "moves/setdest.ns")
    path = folder / "replay.toml"
    path.write_text(SCENARIO)
    return path


def test_a_relative_movement_file_is_found_beside_the_scenario(tmp_path: Path, monkeypatch) -> None:
    path = _scenario(tmp_path / "s")
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    r = tcplab.run(path, seed=1)
    # b (file node 1) starts 200 m from a and drifts east at 10 m/s from 2 s: out of the 250 m
    # range at 7 s, back (heading west at 40 m/s) at 36.5 s. TCP moves data before and after.
    f = r.summary["flows"][0]
    assert f["bytes_delivered"] > 0 and f["timeouts"] >= 1


def test_changing_a_movement_file_changes_the_store_key(tmp_path: Path) -> None:
    path = _scenario(tmp_path / "s")
    with Store(tmp_path / "db.sqlite") as store:
        sweep = Sweep(name="moves", base=path, replications=1)
        first = run_sweep(sweep, store, workers=1)
        again = run_sweep(sweep, store, workers=1)
        assert (len(first.executed), len(again.executed)) == (1, 0)
        moves = path.parent / "moves/setdest.ns"
        moves.write_text(moves.read_text().replace("setdest 700.000000000000", "setdest 650.000000000000"))
        changed = run_sweep(sweep, store, workers=1)
        assert len(changed.executed) == 1
