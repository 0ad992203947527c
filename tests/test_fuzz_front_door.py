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
