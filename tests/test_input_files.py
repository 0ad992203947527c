"""Files a scenario names (``wlans[].mobility_file``), and the scenario and sweep files themselves,
are read only if they are regular files within the size limit; errors name the file (and the
line), never quote its content (issue 38, docs/validation/robustness.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tcplab

from conftest import run_cli

WLAN = """\
name = "m"
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[wlans]]
name = "w"
mode = "adhoc"
mobility_file = "{file}"
[[wlans.stations]]
node = "a"
position = ["0m", "0m"]
[[wlans.stations]]
node = "b"
position = ["10m", "0m"]
[[flows]]
name = "f"
app = "bulk"
server = "a"
client = "b"
"""


def _errors(file: str) -> list[dict[str, str]]:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(WLAN.format(file=file))
    return e.value.errors()


@pytest.mark.parametrize(
    ("file", "phrase"),
    [
        ("/dev/zero", "not a regular file"),
        ("/proc/self/environ", "pseudo-file of the operating system"),
        ("/proc/self/status", "pseudo-file of the operating system"),
        ("/etc", "is a folder"),
        ("/no/such/moves", "No such file"),
    ],
)
def test_special_files_are_refused_by_name(file: str, phrase: str) -> None:
    (e,) = _errors(file)
    assert e["loc"] == "wlans.w.mobility_file"  # the WLAN's name, as load's errors (was wlans[0])
    assert phrase in e["msg"] and file in e["msg"]


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "moves"
    os.mkfifo(fifo)
    (e,) = _errors(str(fifo))
    assert "not a regular file" in e["msg"]


def test_the_content_of_a_wrong_file_is_never_echoed(tmp_path: Path) -> None:
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\nSECRET_TOKEN=hunter2\n")
    (e,) = _errors(str(secret))
    assert e["msg"].startswith(f"'{secret}' line 1: not a movement-file line")
    assert "root" not in e["msg"].replace(str(tmp_path), "") and "hunter2" not in e["msg"]
    scen = tmp_path / "s.toml"
    scen.write_text(WLAN.format(file=str(secret)))
    r = run_cli("run", str(scen))
    assert r.returncode == 2 and "hunter2" not in r.stderr and "/bin/bash" not in r.stderr


def test_a_file_above_the_size_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.ns"
    with open(big, "wb") as f:
        f.truncate((256 << 20) + 1)  # sparse: no disk used
    (e,) = _errors(str(big))
    assert "larger than 256 MiB" in e["msg"]


@pytest.mark.parametrize("path", ["/dev/zero", "/proc/self/environ"])
def test_special_scenario_and_sweep_files_are_refused(path: str) -> None:
    for cmd in (["run", path], ["sweep", path]):
        r = run_cli(*cmd, timeout=120)
        assert r.returncode == 2, (cmd, r.stderr)
        assert path in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(ValueError, match="expected a scenario file"):
        tcplab.run(path)
