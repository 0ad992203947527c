"""Every nan or inf is refused naming its field (TOML, --set, the Python API), and every seed the
core takes (0 .. 2^64 - 1) can be stored and read back (issue 38)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import tcplab
from tcplab.runner import Sweep, run_sweep
from tcplab.store import Store

from conftest import WIRED, WIRED_TOML, run_cli

GE = 'loss = { model = "gilbert_elliott", p_gb = 0.01, p_bg = 0.5, loss_good = X }'
NON_FINITE = "not a finite number: nan and inf are not allowed"


def _toml(**repl: str) -> str:
    text = WIRED_TOML
    for old, new in repl.items():
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("x", ["nan", "inf", "-inf", "+nan"])
def test_toml_nonfinite_in_an_optional_field_is_refused(x: str) -> None:
    text = _toml(**{'loss = { model = "bernoulli", p = 0.01 }': GE.replace("X", x)})
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(text)
    assert e.value.errors() == [{"loc": "links.bottleneck.loss.loss_good", "msg": NON_FINITE}]


def test_toml_nonfinite_in_a_required_field_is_named_not_missing() -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(_toml(**{"p = 0.01": "p = nan"}))
    assert e.value.errors() == [{"loc": "links.bottleneck.loss.p", "msg": NON_FINITE}]


def test_nonfinite_anywhere_in_the_tree() -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(_toml(**{'interval = "100ms"': 'interval = "100ms"\nextra = [1.0, [inf]]'}))
    assert e.value.errors()[0]["loc"] == "trace.extra[1][0]"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_set_nonfinite_is_refused(tmp_path: Path, value: str) -> None:
    scen = tmp_path / "s.toml"
    scen.write_text(WIRED_TOML)
    r = run_cli("run", str(scen), "--set", f"links.bottleneck.loss.p={value}")
    assert r.returncode == 2, r.stderr
    assert f"links.bottleneck.loss.p: {NON_FINITE}" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "value", ["{ model = 'bernoulli', p = nan }", {"model": "bernoulli", "p": float("nan")}], ids=["text", "dict"]
)
def test_set_nonfinite_inside_a_table_value_is_located(value: object) -> None:
    """The same field named whether the value is --set text or Python data (the core names it)."""
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(WIRED_TOML, {"links.bottleneck.loss": value})
    assert e.value.errors() == [{"loc": "links.bottleneck.loss.p", "msg": NON_FINITE}]


def test_quoted_nan_stays_text() -> None:
    with pytest.raises(tcplab.ScenarioError) as e:  # a string where a number belongs: a type error
        tcplab.resolve(WIRED_TOML, {"links.bottleneck.loss.p": '"nan"'})
    assert NON_FINITE not in e.value.errors()[0]["msg"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_api_nonfinite_is_refused(value: float) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(WIRED, {"links.bottleneck.loss.p": value})
    assert e.value.errors()[0]["loc"] == "links.bottleneck.loss.p"
    d = copy.deepcopy(WIRED)
    d["links"][1]["loss"] = {"model": "gilbert_elliott", "p_gb": 0.01, "p_bg": 0.5, "loss_good": value}
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(d)
    assert e.value.errors() == [{"loc": "links.bottleneck.loss.loss_good", "msg": NON_FINITE}]


@pytest.mark.parametrize("seed0", [2**63 - 1, 2**63, 2**64 - 2])
def test_every_u64_seed_is_stored_and_read_back(tmp_path: Path, seed0: int) -> None:
    base = copy.deepcopy(WIRED)
    base["duration"] = "1s"
    res = tcplab.sweep(base, replications=2, seed0=seed0, store=tmp_path / "db", name="big")
    assert res.report is not None and not res.report.failed
    assert sorted(res.runs["seed"].to_list()) == [seed0, seed0 + 1]
    again = tcplab.results(tmp_path / "db", "big")
    assert sorted(again.runs["seed"].to_list()) == [seed0, seed0 + 1]
    with Store(tmp_path / "db") as store:  # a second call finds both runs stored
        rep = run_sweep(Sweep("big", base, replications=2, seed0=seed0), store, workers=1)
    assert rep.cached == 2 and not rep.executed


def test_cli_sweep_with_a_seed_above_2_63(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    scen = tmp_path / "w.toml"
    scen.write_text(WIRED_TOML.replace('duration = "10s"', 'duration = "1s"'))
    sweep.write_text(f'[sweep]\nname = "huge"\nbase = "w.toml"\nseed0 = {2**63 + 7}\n')
    r = run_cli("sweep", str(sweep), "--store", str(tmp_path / "db"), "--workers", "1")
    assert r.returncode == 0, r.stderr
    r = run_cli("results", "--store", str(tmp_path / "db"))
    assert r.returncode == 0 and str(2**63 + 7) in r.stdout, r.stderr


@pytest.mark.parametrize(
    ("kw", "err"),
    [
        ({"seed0": 2**64}, tcplab.ScenarioError),
        ({"seed0": 2**64 - 1, "replications": 2}, tcplab.ScenarioError),
        ({"seed0": -1}, tcplab.ScenarioError),
        ({"seed0": "1"}, TypeError),
        ({"seed0": 1.0}, TypeError),
    ],
)
def test_sweep_seeds_are_checked_at_the_front_door(tmp_path: Path, kw: dict, err: type) -> None:
    with pytest.raises(err, match="seed0"):
        tcplab.sweep(WIRED, store=tmp_path / "db", name="x", **kw)
    assert not (tmp_path / "db").exists()


def test_a_sweep_file_with_seeds_beyond_u64_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "w.toml").write_text(WIRED_TOML)
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'[sweep]\nname = "x"\nbase = "w.toml"\nseed0 = {2**63 - 1}\nreplications = 2\n')
    assert Sweep.from_toml(sweep).seeds()[-1] == 2**63  # fine: every u64 is a seed
    sweep.write_text('[sweep]\nname = "x"\nbase = "w.toml"\nseed0 = -1\n')
    r = run_cli("sweep", str(sweep), "--store", str(tmp_path / "db"))
    assert r.returncode == 2 and "sweep.seed0" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "db").exists()


def test_set_accepts_the_index_syntax_of_the_messages(tmp_path: Path) -> None:
    """Messages say ``links[1].loss.p``; --set takes that form as well as ``links.1`` and names."""
    scen = tmp_path / "s.toml"
    scen.write_text(WIRED_TOML)
    assert tcplab.resolve(scen, ["links[1].rate=5Mbps"])["links"][1]["rate"] == "5Mbps"
    r = run_cli("run", str(scen), "--set", "links[9].rate=5Mbps")
    assert r.returncode == 2 and "links[9].rate: index 9 is out of range: 'links' has 2 entries" in r.stderr
    r = run_cli("run", str(scen), "--set", "links[x].rate=5Mbps")
    assert r.returncode == 2 and "links[1].rate=5Mbps" in r.stderr
