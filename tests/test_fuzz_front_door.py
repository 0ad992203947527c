"""Bounded, deterministic fuzzing of the front door (issue 38): random argv lists for the CLI and
random keyword arguments for the Python API. The CLI must end with 0, 1 or 2 and never print a
traceback; the API must return or raise ScenarioError, SimulationError, TypeError or OSError (a
missing file), never anything else. A fixed seed makes every run try the same inputs; the runs
are 10 ms long so the whole test takes seconds."""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path
from typing import Any

import pytest
import tcplab
from tcplab import cli

from conftest import WIRED, WIRED_TOML

PATHS = ["duration", "tcp.variant", "links.bottleneck.rate", "links[1].loss.p", "links.9.rate", "flows.download.size",
         "trace.pcap", "nodes", "seed", "max_events", "", "a..b", "links[x]", "wlans[0].stations"]
VALUES = ["10ms", "sack", "5Mbps", "0.5", "nan", "inf", "-1", "1e400", "[]", "{}", "[\"*\"]", "true", "'x'", "\"",
          "99999999999999999999999", "", "0", "1KB", "x" * 300, "\x00", "é"]


def _argv(rng: random.Random, scen: str, tmp: Path) -> list[str]:
    cmd = rng.choice(["run", "run", "run", "schema", "results", "sweep", "reproduce", "plot", "nope", "--version"])
    argv = [cmd]
    pool = [
        scen, scen, "/dev/null", "/dev/zero", str(tmp), str(tmp / "missing.toml"), "--seed", str(rng.randrange(-5, 2**65)),
        "--seed", rng.choice(VALUES), "--set", f"{rng.choice(PATHS)}={rng.choice(VALUES)}", "--json", "--out",
        str(tmp / rng.choice(["o1", "o2", "."])), "--pcap", "--store", str(tmp / "db"), "--store", str(tmp),
        "--summary", rng.choice(["goodput_bps", "x"]), "--by", "seed", "--csv", str(tmp / "x.csv"), "--quick",
        "--workers", rng.choice(["0", "1", "x", "-3"]), "--executor", rng.choice(["local", "ray", "x"]),
        "--address", "127.0.0.1:1", "--status", rng.choice(["ok", "bad"]), "--x", "tcp.variant", "--sweep", "s",
    ]
    for _ in range(rng.randrange(0, 6)):
        argv.append(rng.choice(pool))
    if cmd == "reproduce":  # a real reproduction takes hours: only its refusals are fuzzed
        argv += ["--store", str(tmp)]
    return argv


def test_cli_arguments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every path given is inside tmp_path; the default ones (results/tcplab.db, report/) are made
    # inside it too, not in the checkout.
    monkeypatch.chdir(tmp_path)
    scen = tmp_path / "w.toml"
    scen.write_text(WIRED_TOML.replace('duration = "10s"', 'duration = "10ms"'))
    rng = random.Random(38)
    for i in range(120):
        argv = _argv(rng, str(scen), tmp_path)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                code = exc.code if isinstance(exc.code, int) else 2
        assert code in (0, 1, 2), (i, argv, err.getvalue()[-2000:])
        assert "Traceback" not in err.getvalue(), (i, argv, err.getvalue()[-2000:])


def _value(rng: random.Random, depth: int = 0) -> Any:
    kinds: list[Any] = [None, True, 3, -1, 2**70, 0.5, float("nan"), float("inf"), "5Mbps", "", b"x", object(), {1, 2},
                        Path("."), Path("")]
    if depth < 2:
        kinds += [[_value(rng, depth + 1)], {"k": _value(rng, depth + 1)}, {1: 2}, ("a", 1), ["duration=1s"]]
    return rng.choice(kinds)


API_ERRORS = (tcplab.ScenarioError, tcplab.SimulationError, TypeError, OSError)


def test_api_arguments(tmp_path: Path) -> None:
    base = dict(WIRED, duration="10ms")
    rng = random.Random(38)
    for i in range(300):
        fn = rng.choice(["run", "resolve", "sweep", "results"])
        kw: dict[str, Any] = {}
        for name in rng.sample(["seed", "overrides", "pcap_dir", "grid", "variants", "replications", "executor",
                                "store", "name", "cells", "seed0", "workers", "address", "progress", "sweep"],
                               rng.randrange(0, 4)):
            kw[name] = _value(rng) if rng.random() < 0.7 else {"overrides": {rng.choice(PATHS): _value(rng)}}.get(name, 1)
        if fn == "sweep":
            kw.setdefault("store", tmp_path / "db")
            kw.setdefault("progress", False)
            kw["replications"] = kw.get("replications", 1) if rng.random() < 0.5 else 1
        allowed = {
            "run": {"seed", "overrides", "pcap_dir"},
            "resolve": {"overrides"},
            "sweep": {"grid", "variants", "replications", "executor", "store", "name", "cells", "seed0", "workers",
                      "address", "progress"},
            "results": {"store", "sweep"},
        }[fn]
        kw = {k: v for k, v in kw.items() if k in allowed}
        first = base if fn != "results" else kw.pop("store", tmp_path / "db")
        if fn == "sweep" and kw.get("executor") == "ray":
            kw["executor"] = "local"  # Ray's start-up is slow; its arguments are checked the same way
        try:
            getattr(tcplab, fn)(first, **kw)
        except API_ERRORS:
            pass
        except Exception as exc:  # noqa: BLE001 - this is what the test looks for
            pytest.fail(f"#{i} tcplab.{fn}({kw!r}) raised {type(exc).__name__}: {exc}")


#: Pieces of `--set` paths and sweep axes: entry names, indices in both syntaxes, fields of
#: tables tagged by `kind`/`model`, and what a path must not hold.
SEGMENTS = ["links", "nodes", "flows", "wlans", "tcp", "trace", "bottleneck", "access", "download", "server",
            "bottlenek", "[1]", "[9]", "[x]", "[]", "1", "9", "-1", "loss", "queue", "kind", "packets", "min_th", "p",
            "model", "rate", "delay", "variant", "size", "stations", "mobility", "", " ", "..", "é", "\x00", "=",
            "x" * 200, "name", "duration", "seed"]


def _path(rng: random.Random) -> str:
    out = ""
    for i in range(rng.randrange(1, 6)):
        seg = rng.choice(SEGMENTS)
        out += seg if (i == 0 or seg.startswith("[")) else "." + seg
    return out


def test_cli_set_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tcplab run --set PATH=VALUE` with generated paths: exit 0, 1 or 2, no traceback, and a
    refusal (2) writes no output folder."""
    monkeypatch.chdir(tmp_path)
    scen = tmp_path / "w.toml"
    scen.write_text(WIRED_TOML.replace('duration = "10s"', 'duration = "10ms"'))
    rng = random.Random(3838)
    for i in range(150):
        out_dir = tmp_path / f"o{i}"
        argv = ["run", str(scen), "--out", str(out_dir)]
        for _ in range(rng.randrange(1, 4)):
            argv += ["--set", f"{_path(rng)}={rng.choice(VALUES)}"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
        assert code in (0, 1, 2), (i, argv, err.getvalue()[-2000:])
        assert "Traceback" not in err.getvalue(), (i, argv, err.getvalue()[-2000:])
        if code == 2:
            assert not out_dir.exists(), (i, argv, "refused, yet the output folder was written")


def _toml_value(rng: random.Random) -> str:
    return rng.choice(['"10ms"', '"5Mbps"', '"5mbps"', '"sack"', '"bogus"', "0.5", "nan", "inf", "-1", "1e400",
                       "99999999999999999999", "true", "[]", "{}", '"x"', '"é"', "0", '"1KB"', "10", "1000000"])


#: Axes and values a sweep of the wired scenario takes, so that half the sweep files run (and some
#: of their runs fail while running: max_events = 1), with one wrong piece now and then.
GOOD_AXES = {"links.bottleneck.rate": ['"5Mbps"', '"10Mbps"'], "tcp.variant": ['"reno"', '"sack"'],
             "max_events": ["1"], "links[1].loss.p": ["0.0", "0.02"], "duration": ['"5ms"', '"10ms"']}


def _near_valid_sweep(rng: random.Random) -> str:
    spec = ["[sweep]", 'name = "s"', 'base = "w.toml"', f"replications = {rng.choice([1, 2])}", "[sweep.grid]"]
    for axis in rng.sample(list(GOOD_AXES), rng.randrange(1, 3)):
        values = rng.sample(GOOD_AXES[axis], rng.randrange(1, len(GOOD_AXES[axis]) + 1))
        if rng.random() < 0.25:
            values.append(_toml_value(rng))
        spec.append(f'"{axis}" = [{", ".join(values)}]')
    return "\n".join(spec) + "\n"


def _sweep_text(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return _near_valid_sweep(rng)
    spec = ["[sweep]"]
    fields = {
        "name": ['"s"', '""', "5", '"é"'],
        "base": ['"w.toml"', '"w.toml"', '"w.toml"', '"missing.toml"', '"/dev/zero"', '"."', "5"],
        "replications": ["1", "2", "0", "-1", '"2"', "2.5", "99999999999999999999"],
        "seed0": ["1", "0", "-1", "18446744073709551615", "18446744073709551616", '"1"'],
        "variants": ['["reno", "sack"]', '["bogus"]', '"sack"', "[1]", "[]"],
        "nope": ["1"],
    }
    for name, choices in fields.items():
        if rng.random() < (0.9 if name in ("name", "base") else 0.3):
            spec.append(f"{name} = {rng.choice(choices)}")
    if rng.random() < 0.3:
        cells = ", ".join("{ " + f'"{_path(rng)}" = {_toml_value(rng)}' + " }" for _ in range(rng.randrange(0, 3)))
        spec.append(f"cells = [{cells}]")
    if rng.random() < 0.85:
        spec.append("[sweep.grid]")
        for _ in range(rng.randrange(0, 3)):
            axis = rng.choice([_path(rng), "max_events", "links.bottleneck.rate", "tcp.variant"])
            values = ", ".join(_toml_value(rng) for _ in range(rng.randrange(0, 3)))
            spec.append(f'"{axis}" = [{values}]' if rng.random() < 0.9 else f'"{axis}" = {_toml_value(rng)}')
    return "\n".join(spec) + "\n"


def test_cli_sweep_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tcplab sweep FILE` with generated sweep files (fields, axes and values right and wrong):
    exit 0, 1 or 2, no traceback, and a refusal (2) leaves no store behind."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.toml").write_text(WIRED_TOML.replace('duration = "10s"', 'duration = "10ms"'))
    rng = random.Random(383838)
    codes = []
    for i in range(60):
        f = tmp_path / f"sweep{i}.toml"
        f.write_text(_sweep_text(rng), encoding="utf-8")
        store = tmp_path / f"st{i}" / "db.sqlite"
        argv = ["sweep", str(f), "--store", str(store), "--workers", "1"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
        detail = (i, f.read_text(encoding="utf-8"), err.getvalue()[-2000:])
        assert code in (0, 1, 2), detail
        assert "Traceback" not in err.getvalue(), detail
        if code == 2:
            assert not store.parent.exists(), detail
        codes.append(code)
    assert {0, 1, 2} <= set(codes), codes  # sweeps that ran, ran with failed runs, were refused


def test_api_sweep_grids(tmp_path: Path) -> None:
    """`tcplab.sweep(grid=…, cells=…)` with generated override paths and values: a result, or
    ScenarioError/TypeError before any store is made."""
    base = dict(WIRED, duration="10ms")
    rng = random.Random(38383838)
    for i in range(50):
        grid = {_path(rng): [_value(rng) for _ in range(rng.randrange(1, 3))] for _ in range(rng.randrange(0, 3))}
        cells = [{_path(rng): _value(rng)} for _ in range(rng.randrange(1, 3))] if rng.random() < 0.3 else None
        store = tmp_path / f"st{i}" / "db.sqlite"
        try:
            tcplab.sweep(base, grid=grid, cells=cells, store=store, progress=False, workers=1, name="g")
        except (tcplab.ScenarioError, TypeError):
            assert not store.parent.exists(), (i, grid, cells)
        except Exception as exc:  # noqa: BLE001 - this is what the test looks for
            pytest.fail(f"#{i} tcplab.sweep(grid={grid!r}, cells={cells!r}) raised {type(exc).__name__}: {exc}")
