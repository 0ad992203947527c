"""Start-up stays cheap: importing tcplab, `tcplab --version` and `tcplab run --json` load none of
the heavy libraries (polars, pyarrow, matplotlib, rich, Ray) — they are imported when a DataFrame,
a plot, a table or a cluster is asked for (issue 35).  This checks which modules are loaded, not
how long anything takes, so it does not depend on the machine's speed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("polars", "pyarrow", "matplotlib", "rich", "ray")

# Runs `body` in a fresh interpreter and prints the heavy top-level modules it left loaded.
_PROBE = """
import json, sys
{body}
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))
print("HEAVY=" + json.dumps(heavy), file=sys.stderr)
"""


def _heavy_after(body: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    code = _PROBE.format(body=body, heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("HEAVY=")]
    assert line, proc.stderr
    return json.loads(line[-1].removeprefix("HEAVY=")), proc


def test_import_tcplab_loads_no_heavy_library() -> None:
    heavy, _ = _heavy_after("import tcplab; tcplab.__version__; tcplab.run")
    assert heavy == []


def test_version_loads_no_heavy_library() -> None:
    body = "from tcplab.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit as e:\n    assert e.code == 0"
    heavy, proc = _heavy_after(body)
    assert proc.stdout.startswith("tcplab ")
    assert heavy == []


def test_run_json_loads_no_heavy_library() -> None:
    body = (
        "from tcplab.cli import main\n"
        "rc = main(['run', 'examples/adhoc_string.toml', '--json', '--set', 'duration=20s'])\n"
        "assert rc == 0, rc"
    )
    heavy, proc = _heavy_after(body)
    summary = json.loads(proc.stdout)
    assert summary["flows"][0]["bytes_delivered"] > 0
    assert heavy == []


def test_api_run_and_summary_load_no_heavy_library_until_a_frame_is_read() -> None:
    body = (
        "import tcplab\n"
        "res = tcplab.run('examples/wired_bottleneck.toml', seed=1, overrides={'flows.download.size': '100kB'})\n"
        "assert res.summary['flows'][0]['completed'] and res.to_json() and repr(res)\n"
        "assert 'polars' not in sys.modules\n"
        "assert res.flows['completed'][0] is True\n"  # a DataFrame is asked for: now polars loads
    )
    heavy, proc = _heavy_after(body)
    assert proc.returncode == 0, proc.stderr
    assert heavy == ["polars"]


def test_lazy_attributes_resolve() -> None:
    import tcplab

    assert callable(tcplab.sweep) and callable(tcplab.results)
    assert tcplab.Sweep.__name__ == "Sweep" and tcplab.SweepResult.__name__ == "SweepResult"
    assert {"sweep", "results", "Sweep"} <= set(dir(tcplab))
    try:
        tcplab.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown attribute must raise AttributeError")
