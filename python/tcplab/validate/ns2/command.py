"""``tcplab validate ns2 SCENARIO [--seed N | --seeds 1-5] [--set …] [--out DIR]``."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from . import NsError, Untranslatable

#: The file that marks a validate-ns2 output folder (one written before manifests existed too).
OUT_MARKER = "comparison.json"


def add_parser(vsub: Any, seed_type: Any) -> None:
    q = vsub.add_parser(
        "ns2",
        help="run a scenario in ns-2.35 and in tcplab over the same seeds, side by side (docs/validation/ns2.md)",
    )
    q.add_argument("file", help="scenario file (.toml or .json) in the translated subset (docs/validation/ns2.md)")
    g = q.add_mutually_exclusive_group()
    g.add_argument("--seed", type=seed_type, help="one seed for both simulators (default: the scenario's, else 1)")
    g.add_argument("--seeds", type=seed_range, help="seeds as a range or list, e.g. 1-5 or 1,3,7")
    q.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help="override a field (repeatable)")
    q.add_argument("--out", help="folder for the .tcl and comparison.json (default: results/validate-ns2/NAME)")
    q.add_argument("--settle", type=settle_seconds, default=0.0, metavar="SECONDS",
                   help="run every event ns-2 schedules this much later (e.g. 2.5: DSDV standing in for static "
                        "routes has its first routes before traffic; docs/validation/ns2.md)")
    q.add_argument("--timeout", type=float, default=3600.0, help="give up an ns run after this many seconds")
    q.set_defaults(func=cmd_validate_ns2)


def seed_range(text: str) -> list[int]:
    seeds: list[int] = []
    try:
        for part in text.split(","):
            lo, sep, hi = part.partition("-")
            a = int(lo)
            b = int(hi) if sep else a
            if a < 1 or b < a or b - a > 1000:
                raise ValueError
            seeds += range(a, b + 1)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed list; allowed: N, N-M or N,M,… with 1 ≤ N ≤ M") from exc
    return seeds


def settle_seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v >= 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a settle time; allowed: seconds ≥ 0, e.g. 2.5")
    return v


def prepare(text: str, fmt: str, overrides: list[tuple[str, str]], base_dir: Path,
            settle_s: float = 0.0) -> tuple[dict[str, Any], dict[str, set[str]], Any]:
    """The resolved scenario, the TCP fields it sets per flow, and its ns-2 script (every scheduled event
    ``settle_s`` later, :func:`.tcl.translate`); refuses (:class:`Untranslatable`) what the translation
    cannot carry."""
    from tcplab import _core

    from . import subset, tcl

    resolved = _core.resolve(text, fmt, overrides)
    explicit = subset.explicit_tcp(text, fmt, overrides, resolved["flows"])
    subset.check(resolved, explicit)
    return resolved, explicit, tcl.translate(resolved, explicit, base_dir, settle_s)


def cmd_validate_ns2(args: argparse.Namespace) -> int:
    from tcplab import _core
    from tcplab._fs import check_out, publish, staging_dir
    from tcplab.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, _err, _print_table, _scenario_file
    from tcplab.result import Result
    from tcplab.scenario import parse_set

    from . import compare, subset
    from .run import ns_binary, run_seed, stop_all

    t0 = time.monotonic()
    overrides = [parse_set(s) for s in args.set]
    src = _scenario_file(args.file)
    try:
        resolved, explicit, script = prepare(src.text, src.format, overrides, Path(args.file).resolve().parent,
                                             args.settle)
        ns_binary()
    except (Untranslatable, NsError) as exc:
        _err(f"error: {exc}")
        return EXIT_USAGE
    seeds = args.seeds or ([args.seed] if args.seed is not None else [int(resolved.get("seed") or 1)])
    out = Path(args.out or Path("results") / "validate-ns2" / resolved["name"])
    # Refused before anything runs: a folder tcplab did not write (an earlier comparison is fine).
    check_out(out, OUT_MARKER, "validate-ns2 output")
    # Filled beside ``out`` and published into it only when everything succeeded; an interrupted
    # or terminated command (cli.main turns SIGTERM into an exception) leaves neither behind.
    stage = staging_dir(out)
    try:
        script_path = stage / f"{resolved['name']}.tcl"
        script_path.write_text(script.text, encoding="utf-8")

        def one(seed: int) -> tuple[Any, dict[str, Any]]:
            # ns runs in its own process and tcplab's core releases the GIL: seeds run side by side.
            parsed = run_seed(script_path, script, seed, stage, args.timeout)
            return parsed, Result.from_raw(_core.run(src.text, src.format, seed, overrides, None)).summary

        pool = ThreadPoolExecutor(max_workers=max(1, min(len(seeds), os.cpu_count() or 1)))
        try:
            done = list(pool.map(one, seeds))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        nss, sims = [d[0] for d in done], [d[1] for d in done]
        duration = float(sims[0]["sim_time_s"])
        fm = compare.flow_metrics(script.flows, duration, sims, nss)
        nm = compare.network_metrics(script.wireless, sims, nss)
        profiles = sorted({f["tcp"].get("profile", "classic") for f in resolved["flows"] if f["app"] != "cbr"})
        differences = list(script.notes)
        not_carried: list[str] = []
        for f in resolved["flows"]:
            if f["app"] == "cbr":
                continue
            mine = explicit.get(f["name"], set())
            differences += [f"flow {f['name']}: {d}" for d in subset.profile_differences(f["tcp"], mine)]
            not_carried += [f"flow {f['name']}: {d}" for d in subset.not_carried(f["tcp"], mine)]
        seed_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {compare.seed_span(seeds)}"
        header = ["metric", "tcplab (mean ± 95 % CI)", "ns-2.35 (mean ± 95 % CI)", "tcplab / ns-2"]
        for f in script.flows:
            rows = compare.rows([x for x in fm if x.section == f.name])
            if rows:
                _print_table(f"\nflow {f.name} ({f.sender}; tcplab profile {', '.join(profiles)}), {seed_text}:", header, rows, right=3)
        _print_table(f"\nnetwork ({script.routing or 'wired, static routes'}), {seed_text}:", header, compare.rows(nm), right=3)
        print("\nWhat ns-2 does differently here (by design):")
        for line in differences:
            print(f"  - {line}")
        if not_carried:
            print("Set in the scenario, not carried into ns-2:")
            for line in not_carried:
                print(f"  - {line}")
        doc = {
            "scenario": resolved["name"], "seeds": seeds, "tcplab_version": _core.version(),
            "tcplab_profiles": profiles, "ns2_routing": script.routing, "ns2_settle_s": script.settle_s,
            "flows": {f.name: {x.name.strip(): x.as_json() for x in fm if x.section == f.name} for f in script.flows},
            "network": {x.name.strip(): x.as_json() for x in nm},
            "differences": differences, "not_carried": not_carried,
        }
        (stage / OUT_MARKER).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        publish(stage, out, OUT_MARKER, "validate-ns2 output")
    except NsError as exc:
        stop_all()
        shutil.rmtree(stage, ignore_errors=True)
        _err(f"error: {exc}")
        return EXIT_FAILED
    except BaseException:
        stop_all()
        shutil.rmtree(stage, ignore_errors=True)
        raise
    print(f"\n{out / script_path.name}, {out / 'comparison.json'} ({time.monotonic() - t0:.1f} s)")
    return EXIT_OK

