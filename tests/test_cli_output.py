"""What `tcplab run` shows: every flow (TCP and UDP/CBR), full-width tables when piped, --json equal
to summary.json, --pcap capturing every interface when the scenario lists none; and the Python
``Result`` views behind them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tcplab
from conftest import ROOT, WIRED_TOML, run_cli

# Two TCP-less UDP senders into one receiver over a 1 Mb/s link: the link drops about half.
CBR_TOML = """\
name = "cbr_pair"
duration = "2s"
[[nodes]]
name = "source"
[[nodes]]
name = "sink"
[[links]]
name = "thin"
a = "source"
b = "sink"
rate = "1Mbps"
delay = "5ms"
queue = { kind = "droptail", packets = 10 }
[[flows]]
name = "voice_over_a_very_long_flow_name"
app = "cbr"
src = "source"
dst = "sink"
rate = "1Mbps"
packet_size = "972B"
[[flows]]
name = "video"
app = "cbr"
src = "source"
dst = "sink"
rate = "1Mbps"
packet_size = "972B"
"""


def test_cbr_flows_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "cbr.toml"
    path.write_text(CBR_TOML)
    res = tcplab.run(path)
    assert res.cbr["name"].to_list() == ["voice_over_a_very_long_flow_name", "video"]
    assert res.cbr.columns[:3] == ["name", "src", "dst"]
    sent, received = res.cbr["bytes_sent"].sum(), res.cbr["bytes_received"].sum()
    assert 0 < received < sent  # 2 Mb/s offered into 1 Mb/s
    assert all(0 < p < 100 for p in res.cbr["loss_pct"])
    # Delivered payload can never beat the link (1 Mb/s of 1000-B IP packets carrying 972 B).
    assert res.cbr["throughput_bps"].sum() <= 1e6 * 972 / 1000

    table = run_cli("run", str(path), "--set", "duration=1s")
    assert table.returncode == 0, table.stderr
    assert "UDP/CBR flows" in table.stdout and "voice_over_a_very_long_flow_name" in table.stdout

    out = tmp_path / "out"
    js = run_cli("run", str(path), "--json", "--out", str(out))
    doc, stored = json.loads(js.stdout), json.loads((out / "summary.json").read_text())
    doc.pop("wall_time_s"), stored.pop("wall_time_s")
    assert doc == stored  # the same summary, links and CBR counters included
    assert [c["name"] for c in doc["cbr"]] == res.cbr["name"].to_list() and doc["links"]


def test_tables_are_full_width_when_piped(tmp_path: Path) -> None:
    path = tmp_path / "cbr.toml"
    path.write_text(CBR_TOML)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    for columns in (None, "40"):
        if columns:
            env["COLUMNS"] = columns
        proc = subprocess.run(
            [sys.executable, "-m", "tcplab", "run", str(ROOT / "examples" / "wired_bottleneck.toml")],
            capture_output=True,
            text=True,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        assert "…" not in proc.stdout
        for word in ("download", "10,000,000", "newreno", "spurious", "bottleneck", "outage drops"):
            assert word in proc.stdout, (columns, word, proc.stdout)


def test_pcap_without_a_list_captures_every_interface(tmp_path: Path) -> None:
    path = tmp_path / "wired.toml"
    path.write_text(WIRED_TOML.replace('pcap = ["bottleneck"]\n', ""))
    assert "pcap" not in tcplab.resolve(path)["trace"] or not tcplab.resolve(path)["trace"]["pcap"]
    out = tmp_path / "out"
    proc = run_cli("run", str(path), "--out", str(out), "--pcap", "--set", "flows.download.size=20KB")
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.glob("*.pcap"))
    # Two links, an interface at each end of each.
    assert names == ["access-router.pcap", "access-server.pcap", "bottleneck-client.pcap", "bottleneck-router.pcap"]
    assert f"4 pcap files in {out}" in proc.stderr

    listed = tmp_path / "listed"
    proc = run_cli("run", str(ROOT / "examples" / "wired_bottleneck.toml"), "--out", str(listed), "--pcap",
                   "--set", "flows.download.size=20KB")
    assert sorted(p.name for p in listed.glob("*.pcap")) == ["bottleneck-client.pcap", "bottleneck-router.pcap"]


def test_flow_columns_in_reading_order_and_times_without_float_noise() -> None:
    res = tcplab.run(ROOT / "examples" / "wired_lossy.toml", overrides={"duration": "60s"})
    assert res.flows.columns[:7] == [
        "name", "variant", "completed", "aborted", "bytes_delivered", "response_time_s", "goodput_bps",
    ]
    assert res.links.columns[:2] == ["name", "direction"]
    assert repr(res.summary["sim_time_s"]) == "60.0"
    # Every reported time is the double nearest its exact nanosecond count (ns / 1e9).
    assert all(t == round(t * 1e9) / 1e9 for t in res.series["t_s"].to_list())


def test_papers_are_named_by_authors_not_by_a_seed_like_number() -> None:
    """'seed 000' read like the random seed: titles and the schema name papers by their authors."""
    from tcplab.experiments.ack_holding import experiment as ack_holding
    from tcplab.experiments.mtcp_plus import experiment as mtcp_plus

    texts = [mtcp_plus.TITLE, ack_holding.TITLE, json.dumps(tcplab.schema())]
    assert not any("seed 00" in t.lower() for t in texts)
    assert "Omueti" in mtcp_plus.TITLE and "Bhutani" in ack_holding.TITLE
