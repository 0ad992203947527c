"""A Ray instance started by tcplab listens on 127.0.0.1 only (issue 38): every listening socket
of the driver and of the processes it started (GCS server, raylet, workers) is checked with
``ss -ltnp`` while the instance is up. Connecting to an existing cluster stays the user's choice
(``--address``/``RAY_ADDRESS``, docs/sweeps.md) and is not changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import WIRED_TOML

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(shutil.which("ss") is None, reason="needs ss (iproute2)")

CHILD = r'''
import json, os, re, subprocess, sys
from tcplab.runner import Task, _run_ray
from tcplab.scenario import load

def descendants(root):
    parent = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                parent[int(p)] = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    tree, grew = {root}, True
    while grew:
        grew = False
        for p, pp in parent.items():
            if pp in tree and p not in tree:
                tree.add(p)
                grew = True
    return tree

src = load(sys.argv[1])
tasks = [Task("k", src.text, src.format, (("duration", '"1s"'),), 1)]
for outcome in _run_ray(tasks, 1, None):  # yielded while the instance is still up
    tree = descendants(os.getpid())
    lines = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout.splitlines()
    mine = [l.split()[3] for l in lines if any(int(x) in tree for x in re.findall(r"pid=(\d+)", l))]
    print(json.dumps({"status": outcome["status"], "listen": mine}))
'''


def test_a_local_ray_listens_on_loopback_only(tmp_path) -> None:
    scenario = tmp_path / "wired.toml"
    scenario.write_text(WIRED_TOML)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(scenario)], capture_output=True, text=True, env=env, timeout=600
    )
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["status"] == "ok"
    assert got["listen"], "no listening socket of Ray found: the check would prove nothing"
    hosts = {a.rsplit(":", 1)[0] for a in got["listen"]}
    assert hosts <= {"127.0.0.1", "[::ffff:127.0.0.1]", "[::1]"}, got["listen"]
