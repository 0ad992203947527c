"""Names from scenarios become capture file names only after sanitising: a link, WLAN or node
named ``../../escaped`` or ``/abs/path`` cannot make ``--pcap`` write outside ``--out`` (or
``pcap_dir``); two captures that would share a file are refused before any file is created; the
CLI reports the pcaps it wrote (issue 38)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import tcplab

from conftest import WIRED, run_cli


def _scenario(link_name: str, node_name: str = "client") -> dict[str, Any]:
    s = copy.deepcopy(WIRED)
    s["links"][1]["name"] = link_name
    s["trace"]["pcap"] = ["*"]
    for n in s["nodes"]:
        if n["name"] == "client":
            n["name"] = node_name
    s["links"][1]["b"] = node_name
    s["flows"][0]["client"] = node_name
    return s


def _all_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", ["../../escaped", "/abs/path", "..", "a/b", ".hidden"])
def test_cli_pcap_stays_inside_out(tmp_path: Path, name: str) -> None:
    work = tmp_path / "deep" / "er"
    work.mkdir(parents=True)
    scen = work / "s.json"
    scen.write_text(json.dumps(_scenario(name, node_name=name.replace("/", "|") + "n")))
    before = _all_files(tmp_path)
    r = run_cli("run", str(scen), "--out", "R", "--pcap", cwd=work)
    assert r.returncode == 0, r.stderr
    written = _all_files(tmp_path) - before
    assert written and all(f.startswith("deep/er/R/") for f in written), written
    pcaps = sorted(f.rsplit("/", 1)[1] for f in written if f.endswith(".pcap"))
    assert len(pcaps) == 4  # two links, two ends each
    assert f"{len(pcaps)} pcap files in R: {', '.join(pcaps)}" in r.stderr


def test_api_pcap_dir_stays_inside(tmp_path: Path) -> None:
    cap = tmp_path / "cap"
    cap.mkdir()
    (tmp_path / "clobber-router.pcap").write_text("keep")
    tcplab.run(_scenario("../clobber"), pcap_dir=cap)
    assert (tmp_path / "clobber-router.pcap").read_text() == "keep"
    assert sorted(p.name for p in cap.iterdir()) == [
        ".tcplab-manifest.json", "_.._clobber-client.pcap", "_.._clobber-router.pcap", "access-router.pcap",
        "access-server.pcap",
    ]


def test_colliding_capture_names_are_refused_before_any_file(tmp_path: Path) -> None:
    s = _scenario("a/b")
    s["links"][0]["name"] = "a_b"  # both become a_b-router.pcap
    s["links"][0]["b"], s["links"][0]["a"] = "router", "server"
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(s, pcap_dir=tmp_path)
    assert e.value.errors()[0]["loc"] == "trace.pcap"
    assert "would both be written to a_b-router.pcap" in e.value.errors()[0]["msg"]
    assert list(tmp_path.iterdir()) == []
    scen = tmp_path / "s.json"
    scen.write_text(json.dumps(s))
    r = run_cli("run", str(scen), "--out", str(tmp_path / "R"), "--pcap")
    assert r.returncode == 2 and "trace.pcap:" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]
