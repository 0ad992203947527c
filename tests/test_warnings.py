"""A station its AP cannot hear is warned about before the run, and its flow says why it carried
nothing; a flow cut short by the run's end says so too."""

from __future__ import annotations

import tcplab
from conftest import ROOT, run_cli

WLAN = ROOT / "examples" / "wlan_download.toml"
FAR = {"wlans.bss.stations.1.position": ["400m", "0m"]}  # two-ray ground: 250 m reception


def test_station_beyond_its_ap_is_warned_and_its_flow_has_a_reason() -> None:
    near = tcplab.run(WLAN, overrides={"flows.download.size": "100KB"})
    assert near.warnings == [] and near.flows["reason"].to_list() == [None]

    far = tcplab.run(WLAN, overrides=FAR)
    assert len(far.warnings) == 1
    assert far.warnings[0].startswith("wlans.bss.stations[1].position: station sta is 400.0 m from the AP ap")
    flow = far.flows.row(0, named=True)
    assert flow["bytes_delivered"] == 0 and not flow["completed"]
    assert flow["reason"].startswith("never connected: the client's SYN was retransmitted")

    proc = run_cli("run", str(WLAN), "--set", "wlans.bss.stations.1.position=['400m', '0m']")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("warning: wlans.bss.stations[1].position: station sta is 400.0 m")
    assert "flow download: never connected" in proc.stdout


def test_isolated_adhoc_station_is_warned() -> None:
    res = tcplab.resolve(ROOT / "examples" / "adhoc_string.toml")
    n = len(res["wlans"][0]["stations"])
    last = res["wlans"][0]["stations"][-1]["node"]
    proc = run_cli("run", str(ROOT / "examples" / "adhoc_string.toml"), "--set", "duration=1s", "--set",
                   f"wlans.0.stations.{n - 1}.position=['100km', '0m']")
    assert proc.returncode == 0, proc.stderr
    assert f"station {last} hears no other station" in proc.stderr


def test_flow_cut_by_the_end_of_the_run_says_so() -> None:
    res = tcplab.run(WLAN, overrides={"duration": "2s"})
    assert res.flows["reason"][0].startswith("not finished: ") and "ended at 2 s" in res.flows["reason"][0]
