"""``tcplab validate linux SCENARIO [--set …]``: the simulation and a real Linux run, side by side."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from . import ValidateError

# What the comparison reads from the simulation, at every change (RTOs are found in the rto
# series, so it must not be decimated).
SIM_TRACE = [("trace.series", '["cwnd", "rto", "rcv_nxt"]'), ("trace.interval", '"0s"')]


def add_parser(sub: Any, seed_type: Any) -> None:
    p = sub.add_parser(
        "validate", help="compare the simulation with real kernel TCP or ns-2.35 (docs/validation/linux.md, ns2.md)"
    )
    vsub = p.add_subparsers(dest="target", required=True)
    q = vsub.add_parser(
        "linux",
        help="run a wired scenario simulated and on Linux TCP through emulated links (needs root)",
    )
    q.add_argument("file", help="scenario file (.toml or .json): wired links, one bulk_download flow")
    q.add_argument("--seed", type=seed_type, help="random seed of both runs (default: the scenario's)")
    q.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help="override a field (repeatable)")
    q.add_argument("--out", help="folder for the figure, pcaps and JSON (default: results/validate-linux/NAME)")
    q.add_argument("--timeout", type=float, default=600.0, help="give up the real run after this many seconds")
    q.set_defaults(func=cmd_validate_linux)
    from .ns2.command import add_parser as add_ns2

    add_ns2(vsub, seed_type)


def cmd_validate_linux(args: argparse.Namespace) -> int:
    from tcplab import _core
    from tcplab.cli import EXIT_FAILED, EXIT_OK, _err, _print_table, _scenario_file
    from tcplab.result import Result
    from tcplab.scenario import parse_set

    from . import compare
    from .linux_run import run_linux, supported
    from .netns import check_permitted

    overrides = [parse_set(s) for s in args.set]
    src = _scenario_file(args.file)
    resolved = _core.resolve(src.text, src.format, overrides)
    try:
        supported(resolved)
        check_permitted()
    except ValidateError as exc:
        _err(f"error: {exc}")
        return EXIT_FAILED
    for w in _core.warnings(src.text, src.format, overrides):
        _err(f"warning: {w['loc']}: {w['msg']}")
    sim = Result.from_raw(_core.run(src.text, src.format, args.seed, [*overrides, *SIM_TRACE], None))
    seed = int(sim.summary["seed"])
    out = Path(args.out or Path("results") / "validate-linux" / resolved["name"])
    try:
        real = run_linux(src.text, src.format, overrides, seed, resolved, out, args.timeout)
    except ValidateError as exc:
        _err(f"error: {exc}")
        return EXIT_FAILED
    s, r = compare.simulated(sim, resolved), compare.real(real, resolved)
    _print_table(
        f"{resolved['name']} (seed {seed}): simulated vs Linux {_kernel()}",
        ["metric", "simulated", "Linux", "sim vs Linux"],
        compare.rows(s, r),
        right=3,
    )
    end = max(s.completion_s or 0.0, r.completion_s or 0.0)
    fig = compare.cwnd_figure(s, r, compare.outages(resolved, end), out / "cwnd.png", f"{resolved['name']}: cwnd")
    print("\nNot matched by the real run (Linux does it differently):")
    for line in real.unmatched or ["nothing"]:
        print(f"  - {line}")
    for note in s.notes + r.notes:
        print(f"note: {note}")
    (out / "comparison.json").write_text(
        json.dumps(
            {"seed": seed, "simulated": s.__dict__, "linux": r.__dict__, "links": real.links, "unmatched": real.unmatched}
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"\ncwnd figure: {fig}; pcaps: {', '.join(str(p) for p in real.pcaps)}")
    return EXIT_OK if real.finished else EXIT_FAILED


def _kernel() -> str:
    import platform

    return platform.release()
