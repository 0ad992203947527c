"""Bad calls of the Python API (issue 38): each raises TypeError (wrong type) or ScenarioError
(wrong value) naming the argument, or the usual FileNotFoundError for a missing file; never a raw
error from inside the library. Listed in docs/validation/robustness.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import tcplab

from conftest import WIRED

W = dict(WIRED, duration="10ms")
SE, TE, FE = tcplab.ScenarioError, TypeError, FileNotFoundError


def _cases(tmp: Path) -> list[tuple[str, Callable[[], Any], type, str]]:
    db = tmp / "x.db"
    return [
        ("run(None)", lambda: tcplab.run(None), TE, "scenario_or_path"),
        ("run(123)", lambda: tcplab.run(123), TE, "scenario_or_path"),
        ("run(bytes)", lambda: tcplab.run(b"x = 1"), TE, "scenario_or_path"),
        ("run('')", lambda: tcplab.run(""), SE, "scenario_or_path"),
        ("run(list)", lambda: tcplab.run([W]), TE, "scenario_or_path"),
        ("run(missing)", lambda: tcplab.run(tmp / "no.toml"), FE, "no.toml"),
        ("seed str", lambda: tcplab.run(W, seed="1"), TE, "seed"),
        ("seed -1", lambda: tcplab.run(W, seed=-1), SE, "seed"),
        ("seed 2^64", lambda: tcplab.run(W, seed=2**64), SE, "seed"),
        ("seed float", lambda: tcplab.run(W, seed=1.5), TE, "seed"),
        ("seed bool", lambda: tcplab.run(W, seed=True), TE, "seed"),
        ("overrides bad string", lambda: tcplab.run(W, overrides=["duration"]), SE, "overrides[0]"),
        ("overrides str", lambda: tcplab.run(W, overrides="duration=2s"), TE, "overrides"),
        ("overrides int key", lambda: tcplab.run(W, overrides={1: 2}), TE, "overrides"),
        ("overrides None value", lambda: tcplab.run(W, overrides={"duration": None}), SE, "overrides['duration']"),
        ("overrides object", lambda: tcplab.run(W, overrides={"duration": object()}), TE, "overrides['duration']"),
        ("overrides bytes", lambda: tcplab.run(W, overrides={"duration": b"1s"}), TE, "overrides['duration']"),
        ("overrides set", lambda: tcplab.run(W, overrides={"trace.pcap": {"a"}}), TE, "overrides['trace.pcap']"),
        ("overrides triple", lambda: tcplab.run(W, overrides=[("a", 1, 2)]), TE, "overrides[0]"),
        ("overrides int", lambda: tcplab.run(W, overrides=5), TE, "overrides"),
        ("overrides empty path", lambda: tcplab.run(W, overrides={"": 1}), SE, "overrides"),
        ("overrides nan", lambda: tcplab.run(W, overrides={"links.bottleneck.loss.p": float("nan")}), SE,
         "links.bottleneck.loss.p"),
        ("overrides bad path", lambda: tcplab.run(W, overrides={"links..rate": 1}), SE, "links..rate"),
        ("overrides unknown", lambda: tcplab.run(W, overrides={"nope": 1}), SE, "nope"),
        ("pcap_dir ''", lambda: tcplab.run(W, pcap_dir=""), SE, "pcap_dir"),
        ("pcap_dir int", lambda: tcplab.run(W, pcap_dir=5), TE, "pcap_dir"),
        ("pcap_dir a file", lambda: tcplab.run(W, pcap_dir=__file__), SE, "pcap_dir"),
        ("pcap_80211 str", lambda: tcplab.run(W, pcap_dir=tmp, pcap_80211="yes"), TE, "pcap_80211"),
        ("pcap_dir's parent missing", lambda: tcplab.run(W, pcap_dir=tmp / "no" / "dir"), SE, "pcap_dir"),
        ("dict int key", lambda: tcplab.run({**W, 1: 2}), TE, "key 1"),
        ("dict nan", lambda: tcplab.run({**W, "duration": float("nan")}), SE, "duration"),
        ("dict set", lambda: tcplab.run({**W, "name": {"x"}}), TE, "name"),
        ("resolve(None)", lambda: tcplab.resolve(None), TE, "scenario_or_path"),
        ("sweep grid list", lambda: tcplab.sweep(W, grid=["a"], store=db), TE, "grid"),
        ("sweep grid str", lambda: tcplab.sweep(W, grid={"tcp.variant": "sack"}, store=db), SE, "sweep.grid"),
        ("sweep grid int key", lambda: tcplab.sweep(W, grid={1: [1]}, store=db), TE, "sweep.grid"),
        ("sweep variants str", lambda: tcplab.sweep(W, variants="sack", store=db), TE, "variants"),
        ("sweep replications 0", lambda: tcplab.sweep(W, replications=0, store=db), SE, "sweep.replications"),
        ("sweep replications str", lambda: tcplab.sweep(W, replications="2", store=db), TE, "sweep.replications"),
        ("sweep executor", lambda: tcplab.sweep(W, executor="spark", store=db), SE, "executor"),
        ("sweep workers 0", lambda: tcplab.sweep(W, workers=0, store=db), SE, "workers"),
        ("sweep workers str", lambda: tcplab.sweep(W, workers="2", store=db), TE, "workers"),
        ("sweep store folder", lambda: tcplab.sweep(W, store=tmp, name="s"), SE, "store"),
        ("sweep store int", lambda: tcplab.sweep(W, store=5, name="s"), TE, "store"),
        ("sweep name int", lambda: tcplab.sweep(W, name=5, store=db), TE, "name"),
        ("sweep name ''", lambda: tcplab.sweep(W, name="", store=db), SE, "sweep.name"),
        ("sweep cells dict", lambda: tcplab.sweep(W, cells={"a": 1}, store=db, name="c"), TE, "sweep.cells"),
        ("sweep cells [1]", lambda: tcplab.sweep(W, cells=[1], store=db, name="c"), TE, "sweep.cells[0]"),
        ("sweep progress str", lambda: tcplab.sweep(W, progress="yes", store=db, name="p"), TE, "progress"),
        ("sweep address local", lambda: tcplab.sweep(W, address="127.0.0.1:1", store=db, name="a"), SE, "address"),
        ("sweep seed0 -1", lambda: tcplab.sweep(W, seed0=-1, store=db, name="s"), SE, "sweep.seed0"),
        ("results missing", lambda: tcplab.results(tmp / "no.db"), FE, "no.db"),
        ("results folder", lambda: tcplab.results(tmp), SE, "store"),
        ("results int", lambda: tcplab.results(5), TE, "store"),
        ("results not a db", lambda: tcplab.results(__file__), SE, "store"),
    ]


CASES = [c[0] for c in _cases(Path("."))]


@pytest.mark.parametrize("case", CASES)
def test_a_bad_call_names_its_argument(tmp_path: Path, case: str) -> None:
    (_, call, error, name), = [c for c in _cases(tmp_path) if c[0] == case]
    with pytest.raises(error) as e:
        call()
    assert type(e.value) is error or isinstance(e.value, tcplab.ScenarioError)
    assert name in str(e.value), str(e.value)
    assert not (tmp_path / "x.db").exists()  # nothing stored for a refused call
