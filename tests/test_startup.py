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


# What each entry point may load beyond what the bare interpreter already has: nothing but
# tcplab's own modules it needs, so that none of the standard library's dearer modules (argparse,
# pathlib, typing, json, re, enum...) comes back by accident.  Checked by module names, not time.
_NEW_MODULES = """
import sys
before = set(sys.modules)
{body}
print("NEW=" + ",".join(sorted(set(sys.modules) - before)), file=sys.stderr)
"""


def _new_modules(body: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _NEW_MODULES.format(body=body)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("NEW=")]
    assert proc.returncode == 0 and line, proc.stderr
    return [m for m in line[-1].removeprefix("NEW=").split(",") if m]


def test_import_tcplab_loads_only_the_package() -> None:
    assert _new_modules("import tcplab") == ["__future__", "tcplab"]


def test_version_loads_only_the_command_module_and_the_core() -> None:
    body = "from tcplab.cli import main\nassert main(['--version']) == 0"
    # tcplab._exceptions: the core's exception classes' module, registered by the core itself
    assert _new_modules(body) == ["__future__", "tcplab", "tcplab._core", "tcplab._exceptions", "tcplab.cli"]


def test_version_prints_what_argparse_would() -> None:
    from tcplab import _core
    from tcplab.cli import build_parser

    fast = subprocess.run([sys.executable, "-m", "tcplab", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert fast.returncode == 0 and fast.stdout == f"tcplab {_core.version()}\n"
    try:  # the parser's own --version action (taken when --version comes with other words)
        build_parser().parse_args(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    slow = subprocess.run([sys.executable, "-m", "tcplab", "--version", "--version"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert slow.returncode == 0 and slow.stdout == fast.stdout


def test_the_probes_see_an_import_added_back() -> None:
    # The checks above would catch a heavy import put back on these paths: the same probes, given
    # one, report it.
    heavy, _ = _heavy_after("import tcplab\nimport tcplab.sweeps")
    assert "polars" in heavy
    assert "argparse" in _new_modules("import tcplab\nimport argparse")


def test_a_light_command_builds_without_the_experiments_or_validate() -> None:
    body = "from tcplab.cli import build_parser\nbuild_parser('run').parse_args(['run', 'x.toml', '--json'])"
    new = _new_modules(body)
    assert not [m for m in new if m.startswith(("tcplab.experiments", "tcplab.validate"))], new
    # with no command named (tcplab --help, an unknown command), every subcommand is there
    body = "from tcplab.cli import build_parser\nprint(sorted(build_parser()._subparsers._group_actions[0].choices))"
    proc = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "'reproduce'" in proc.stdout and "'validate'" in proc.stdout, proc.stderr
