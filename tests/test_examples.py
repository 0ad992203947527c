"""Every example scenario runs, and runs identically twice with the same seed (the summary minus
wall time, and the time series), while another seed changes a run that has randomness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
# Shortened so the suite stays quick; every example keeps its structure.
SHORTER = {
    "wired_bottleneck.toml": {"flows.download.size": "2MB"},
    "wired_outage.toml": {"flows.download.size": "20MB"},
    "wired_lossy.toml": {"duration": "20s"},
    "wlan_download.toml": {"flows.download.size": "2MB"},
    "wlan_saturation.toml": {"duration": "5s"},
    "adaptive_tcp_4aps.toml": {"duration": "5s"},
    "adhoc_string.toml": {"duration": "20s"},
    "adhoc_mobile.toml": {"duration": "20s"},
}


def fingerprint(res: tcplab.Result) -> str:
    s = dict(res.summary)
    s.pop("wall_time_s")
    return json.dumps(s, sort_keys=True) + res.series.write_csv()


def test_every_shortening_names_an_existing_example() -> None:
    # A renamed or removed example would otherwise leave its entry here silently unused (and the
    # renamed example would run at full length).
    assert set(SHORTER) <= {p.name for p in EXAMPLES}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_is_deterministic(path: Path) -> None:
    ov = {**SHORTER.get(path.name, {}), "trace.pcap": []}
    a = tcplab.run(path, seed=11, overrides=ov)
    b = tcplab.run(path, seed=11, overrides=ov)
    assert a.summary["events"] > 0
    assert fingerprint(a) == fingerprint(b)


def test_another_seed_changes_a_random_run() -> None:
    # Saturated stations draw their backoff from the seed's streams.
    path = ROOT / "examples" / "wlan_saturation.toml"
    a = tcplab.run(path, seed=11, overrides=SHORTER[path.name])
    b = tcplab.run(path, seed=12, overrides=SHORTER[path.name])
    assert fingerprint(a) != fingerprint(b)
