"""`tcplab reproduce --quick` runs every registered experiment end to end through the CLI, the
store and the report — the main job, shortened — and a rerun reuses the stored runs."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

from tcplab.experiments import all_experiments
from tcplab.stats import VERDICTS


def test_reproduce_quick_covers_every_experiment(tmp_path: Path) -> None:
    out, store = tmp_path / "report", tmp_path / "results" / "tcplab.db"
    proc = run_cli("reproduce", "--quick", "--out", str(out), "--store", str(store), timeout=1800)
    assert proc.returncode == 0, proc.stderr
    assert (out / "index.md").exists() and (out / "index.html").exists()
    for name in all_experiments():
        doc = json.loads((out / name / "tables.json").read_text())
        assert doc["experiment"] == name and doc["quick"] is True
        assert doc["cells"], name
        assert all(c["n"] > 0 and c["mean"] is not None for c in doc["cells"]), name
        assert doc["findings"], name
        assert all("cause" in d for d in doc["deviations"]), name
        # Every finding is decided by a stated rule, and the page's counts add up.
        assert all(f["verdict"] in VERDICTS and f["rule"] for f in doc["findings"]), name
        assert sum(doc["summary"]["findings"].values()) == len(doc["findings"]), name
        published = [c for c in doc["cells"] if c["published"] is not None]
        assert sum(doc["summary"]["cells"].values()) == len(published), name
        assert list((out / name).glob("*.png")), name
    # A second run executes nothing new: every run is already in the store.
    again = run_cli("reproduce", "--quick", "--out", str(out), "--store", str(store), timeout=1800)
    assert again.returncode == 0, again.stderr
    assert "(0 runs executed" in again.stdout + again.stderr
