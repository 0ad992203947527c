"""Every help screen renders (argparse formats help strings with %, so a bare '%' breaks one)."""

from __future__ import annotations

import subprocess
import sys

import pytest

COMMANDS = [[], ["run"], ["schema"], ["sweep"], ["results"], ["plot"], ["reproduce"]]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: " ".join(c) or "tcplab")
def test_help_renders(cmd: list[str]) -> None:
    p = subprocess.run([sys.executable, "-m", "tcplab", *cmd, "--help"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "usage:" in p.stdout and "Traceback" not in p.stderr



def test_reproduce_help_lists_every_experiment() -> None:
    # Issue 39: `reproduce --help` names what it can run (the registry's experiments, none missing).
    from tcplab.experiments import all_experiments

    p = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", "--help"], capture_output=True, text=True, timeout=120)
    text = " ".join(p.stdout.split())
    missing = [n for n in all_experiments() if n not in text.replace("- ", "-")]
    assert p.returncode == 0 and not missing, missing
