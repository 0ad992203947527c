"""Messages of bad scenarios in the scenario's words (issue 38, docs/validation/robustness.md
§ Messages): each names the field as the user wrote it (an entry's name, not its index, where it
has one) and lists the allowed values, with no Rust or serde jargon."""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import pytest
import tcplab

from conftest import ROOT

WIRED = tomllib.loads((ROOT / "examples" / "wired_bottleneck.toml").read_text())
WLAN = tomllib.loads((ROOT / "examples" / "wlan_download.toml").read_text())

#: (label, scenario, overrides, expected location, phrases the message must hold)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str, list[str]]] = [
    ("rate in a wrong unit", WIRED, {"links.bottleneck.rate": "5mbps"}, "links.bottleneck.rate",
     ["'mbps'", "allowed: bps, kbps, Mbps, Gbps"]),
    ("rate without unit", WIRED, {"links.bottleneck.rate": 5}, "links.bottleneck.rate", ["has no unit", "Mbps"]),
    ("delay unit", WIRED, {"links.bottleneck.delay": "20 msec"}, "links.bottleneck.delay",
     ["'msec'", "allowed: ns, us, ms, s, min, h"]),
    ("size unit", WIRED, {"flows.download.size": "10 MBytes"}, "flows.download.size", ["allowed: B, kB, MB"]),
    ("queue kind", WIRED, {"links.bottleneck.queue.kind": "red2"}, "links.bottleneck.queue.kind",
     ["unknown value `red2`", "allowed: droptail, red"]),
    ("queue field", WIRED, {"links.bottleneck.queue.pakets": 5}, "links.bottleneck.queue",
     ["unknown field `pakets`", "allowed: packets, bytes"]),
    ("variant case", WIRED, {"tcp.variant": "NewReno"}, "tcp.variant",
     ["allowed: reno, newreno", "lower case: `newreno`"]),
    ("tcp field", WIRED, {"tcp.sack_enabled": True}, "tcp.sack_enabled", ["unknown field", "allowed: ", "sack"]),
    ("link field", WIRED, {"links.bottleneck.bandwidth": "5Mbps"}, "links.bottleneck.bandwidth",
     ["allowed: name, a, b, rate, delay"]),
    ("routing on a wired link", WIRED, {"links.bottleneck.routing": {"protocol": "aodv"}}, "links.bottleneck.routing",
     ["unknown field `routing`", "allowed: name, a, b"]),
    ("node field", WIRED, {"nodes.router.kind": "router"}, "nodes.router.kind", ["allowed: name"]),
    ("flow app", WIRED, {"flows.download.app": "ftp"}, "flows.download.app", ["allowed: bulk_download, bulk, cbr"]),
    ("flow client", WIRED, {"flows.download.client": "laptop"}, "flows.download.client",
     ["unknown node 'laptop'", "nodes: client, router, server"]),
    ("loss model", WIRED, {"links.bottleneck.loss": {"model": "random", "p": 0.01}}, "links.bottleneck.loss.model",
     ["allowed: bernoulli, gilbert_elliott"]),
    ("link end", WIRED, {"links.access.a": "serverr"}, "links.access.a", ["nodes: client, router, server"]),
    ("wlan mode", WLAN, {"wlans.bss.mode": "mesh"}, "wlans.bss.mode", ["allowed: infrastructure, adhoc"]),
    ("wlan field", WLAN, {"wlans.bss.ssid": "x"}, "wlans.bss.ssid", ["unknown field `ssid`", "allowed: name, mode"]),
    ("station field", WLAN, {"wlans.bss.stations.0.pos": [0, 0]}, "wlans.bss.stations[0].pos",
     ["allowed: node, position"]),
    ("position length", WLAN, {"wlans.bss.stations.0.position": ["0m", "0m", "0m"]},
     "wlans.bss.stations[0].position", ["too many values: found 3"]),
    ("propagation", WLAN, {"wlans.bss.propagation": {"model": "friis2"}}, "wlans.bss.propagation.model",
     ["allowed: unit_disk, two_ray_ground"]),
    # Inside a table tagged by `kind` or `model`, serde's path stopped at the table (harden3).
    ("queue value", WIRED, {"links.bottleneck.queue.packets": -1}, "links.bottleneck.queue.packets",
     ["expected an integer from 0 to 4294967295", "-1"]),
    ("red threshold", WIRED, {"links.bottleneck.queue": {"kind": "red", "limit": 50, "min_th": "five", "max_th": 15}},
     "links.bottleneck.queue.min_th", ["expected a number", "five"]),
    ("red limit", WIRED, {"links.bottleneck.queue": {"kind": "red", "limit": -3, "min_th": 5, "max_th": 15}},
     "links.bottleneck.queue.limit", ["expected an integer from 0 to 4294967295"]),
    ("mobility value", WLAN, {"wlans.bss.stations.1.mobility": {
        "model": "random_waypoint", "min_speed": "1m/s", "max_speed": "fast", "pause": "1s", "area": ["50m", "50m"]}},
     "wlans.bss.stations[1].mobility.max_speed", ["fast"]),
    # A missing field that takes a name lists the names (harden3).
    ("loss without a model", WIRED, {"links.access.loss.p": 0.01}, "links.access.loss",
     ["missing field `model`", "allowed: bernoulli, gilbert_elliott"]),
    ("queue without a kind", WIRED, {"links.bottleneck.queue": {"packets": 10}}, "links.bottleneck.queue",
     ["missing field `kind`", "allowed: droptail, red"]),
    ("mobility without a model", WLAN, {"wlans.bss.stations.1.mobility": {"pause": "1s"}},
     "wlans.bss.stations[1].mobility", ["missing field `model`", "allowed: static, waypoints, random_waypoint"]),
]

JARGON = ["unknown variant", "expected one of", "invalid length", "expected fewer elements", "struct ", "u64", "u32",
          "sequence", "map,"]


@pytest.mark.parametrize(("label", "scenario", "overrides", "loc", "phrases"), CASES, ids=[c[0] for c in CASES])
def test_message_names_the_field_and_the_allowed_values(
    label: str, scenario: dict[str, Any], overrides: dict[str, Any], loc: str, phrases: list[str]
) -> None:
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(copy.deepcopy(scenario), overrides)
    errs = e.value.errors()
    assert errs[0]["loc"] == loc, errs
    for p in phrases:
        assert p in errs[0]["msg"], errs
    for j in JARGON:
        assert j not in errs[0]["msg"], errs


def test_a_duplicate_name_keeps_its_index() -> None:
    """Two nodes named 'router': a name cannot point at one of them, so the index stays."""
    s = copy.deepcopy(WIRED)
    s["nodes"].append({"name": "router"})
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(s)
    assert e.value.errors() == [{"loc": "nodes[3].name", "msg": "duplicate node name 'router'"}]


def test_no_nodes_says_none_defined() -> None:
    s = copy.deepcopy(WIRED)
    s["nodes"] = []
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(s)
    assert "unknown node 'server'; nodes: none defined" in str(e.value)


def test_malformed_toml_gives_the_line_not_its_text(tmp_path) -> None:
    f = tmp_path / "notes.toml"
    f.write_text('name = "x"\nDB_PASSWORD hunter2-canary\n')
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.resolve(f)
    assert "line 2, column" in str(e.value) and "hunter2" not in str(e.value), str(e.value)
