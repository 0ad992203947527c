"""Bad input on the command line: one line on stderr naming the argument or file, exit status 2,
and never a Python traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, run_cli

EXAMPLE = str(ROOT / "examples" / "wired_bottleneck.toml")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("bad")
    binary = d / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    return {"DIR": str(d), "BINARY": str(binary), "MISSING": str(d / "missing.toml")}


# (arguments, a phrase the one error line must contain)
BAD = [
    (["run", EXAMPLE, "--seed", "-1"], "--seed"),
    (["run", EXAMPLE, "--seed", "99999999999999999999999"], "18446744073709551615"),
    (["run", EXAMPLE, "--seed", "x"], "--seed"),
    (["run", "DIR"], "is a directory"),
    (["run", "BINARY"], "BINARY: not a text file"),
    (["run", "MISSING"], "MISSING: no such file"),
    (["run"], "file"),
    (["nonsense"], "invalid choice"),
    (["run", EXAMPLE, "--set", "a"], "--set expects path=value"),
    (["run", EXAMPLE, "--pcap"], "--pcap needs --out"),
    (["run", EXAMPLE, "--pcap-80211"], "--pcap-80211 needs --out"),
    (["run", EXAMPLE, "--set", "flows.download.size=2e19B"], "9223372036854775807B"),
    (["run", EXAMPLE, "--set", "flows.download.size=1e30MB"], "9223372036854775807B"),
    (["run", EXAMPLE, "--set", "duration=1e400s"], "not a finite number"),
    (["run", EXAMPLE, "--set", "links.bottleneck.rate=1e30Gbps"], "18446744073709551615bps"),
    (["run", EXAMPLE, "--set", "max_events=-1"], "max_events: expected a non-negative integer"),
    (["run", EXAMPLE, "--set", "tcp=5"], "tcp: expected a table of TCP settings"),
    (["run", EXAMPLE, "--set", "links.bottleneck.queue=5"], "expected a table with a `kind` field"),
    (["run", EXAMPLE, "--out", "BINARY"], "refusing to overwrite"),
    (["sweep", "DIR"], "is a directory"),
    (["sweep", "MISSING"], "no such file"),
    (["results", "--store", "DIR"], "results store"),
    (["reproduce", "no-such-paper"], "unknown experiment"),
]


@pytest.mark.parametrize(("args", "phrase"), BAD, ids=[" ".join(a[:1] + a[2:] if len(a) > 2 else a) for a, _ in BAD])
def test_bad_invocation_is_one_line_and_exit_2(args: list[str], phrase: str, files: dict[str, str]) -> None:
    argv = [files.get(a, a) for a in args]
    for name, path in files.items():
        phrase = phrase.replace(name, path)
    proc = run_cli(*argv)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and phrase in lines[0], lines
    assert proc.stdout == ""


def test_event_limit_names_the_real_field() -> None:
    proc = run_cli("run", EXAMPLE, "--set", "max_events=10")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "top-level `max_events`" in proc.stderr and "simulation." not in proc.stderr
