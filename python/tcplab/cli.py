"""The ``tcplab`` command: run a scenario, print the schema, run sweeps, query results, reproduce papers.

Conventions that scripts can rely on:

* exit status 0 = success, 1 = the simulation (or some runs of a sweep) failed, 2 = bad input
  (invalid scenario or override, missing file, bad arguments), 130 = interrupted;
* machine-readable output (``--json``, ``schema``) goes to stdout and nothing else does; errors and
  progress go to stderr, one ``loc: msg`` line per scenario problem;
* output folders and exports are written under temporary names and renamed when complete, so a
  failed or interrupted command leaves nothing behind that looks like a result.
"""

from __future__ import annotations

import os  # os and sys are loaded by the interpreter's start-up
import sys

# Everything else is imported where it is used, so that ``tcplab --version`` loads only the
# compiled core and a command loads what it needs (issue 35: start-up under 60 ms).  argparse,
# pathlib and typing alone would cost more instructions than the interpreter's own start-up.
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path
    from typing import NoReturn

    from rich.console import Console
    from rich.table import Table

    from tcplab.result import Result
    from tcplab.scenario import ScenarioText

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C so that every ``finally`` runs: staging
    folders and temporary files are removed and worker processes stopped before the exit."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def _err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


class UsageError(Exception):
    """Bad command-line input, reported on stderr with exit status 2."""


def _parser(**kwargs: object) -> argparse.ArgumentParser:
    """The top-level parser (argparse is imported here, not with the module); its subparsers are
    of the same class."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        """argparse, but a usage error is one line naming the argument (no usage dump), exit status 2."""

        def error(self, message: str) -> NoReturn:
            self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    return _Parser(**kwargs)  # type: ignore[arg-type]


def _seed(text: str) -> int:
    """A seed by the API's rule (``check_seed``: a u64, what the core takes), before a run starts."""
    import argparse

    from tcplab._args import SEED_MAX, check_seed

    try:
        seed = int(text, 0)
        check_seed(seed)
    except ValueError:  # not an integer, or out of range (ScenarioError)
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed; allowed: an integer from 0 to {SEED_MAX}") from None
    return seed


def _scenario_file(name: str) -> ScenarioText:
    """Read a scenario file, turning the ways it can be unreadable into one line naming it."""
    from pathlib import Path

    from tcplab.scenario import load

    try:
        return load(Path(name))
    except FileNotFoundError as exc:
        raise UsageError(f"{name}: no such file") from exc
    except IsADirectoryError as exc:  # refused by _fs.read_input
        raise UsageError(f"{name}: is a directory; expected a scenario file (.toml or .json)") from exc
    except PermissionError as exc:
        raise UsageError(f"{name}: permission denied") from exc


# ------------------------------------------------------------------ tables


def console() -> Console:
    """A console for tables and messages; text lines are never wrapped or cut (soft wrap)."""
    from rich.console import Console

    return Console(soft_wrap=True)


def print_table(con: Console, table: Table) -> None:
    """Print a table at its full natural width: names and numbers are never truncated.

    rich otherwise fits tables to the console width, which is 80 columns whenever stdout is piped
    or redirected ("downl…", "10,274,…"); a terminal narrower than the table wraps its lines.
    """
    from rich.console import Console

    natural = con.measure(table, options=con.options.update_width(1_000_000)).maximum
    if natural > con.width:  # rich caps print(width=) at the console's width: widen the console
        con = Console(width=natural, soft_wrap=True, file=con.file, force_terminal=con.is_terminal)
    con.print(table)


# ------------------------------------------------------------------ tcplab run


#: The file whose presence marks a folder written by ``tcplab run --out`` (before manifests existed).
RUN_MARKER = "summary.json"


def cmd_run(args: argparse.Namespace) -> int:
    import json
    import shutil
    from pathlib import Path

    from tcplab import _core
    from tcplab._capture import capture_lists, window_notes
    from tcplab._fs import check_out, publish, staging_dir, write_text
    from tcplab.result import Result
    from tcplab.scenario import parse_set

    for flag, wanted in (("--pcap", args.pcap), ("--pcap-80211", args.pcap_80211)):
        if wanted and not args.out:
            raise UsageError(f"{flag} needs --out DIR (the pcaps are written there)")
    overrides = [parse_set(s) for s in args.set]
    src = _scenario_file(args.file)
    for w in _core.warnings(src.text, src.format, overrides):  # valid, but likely not what was meant
        _err(f"warning: {w['loc']}: {w['msg']}")
    captures = args.pcap or args.pcap_80211
    if captures:  # every interface (every station's 802.11 frames) unless the scenario lists some
        overrides = capture_lists(src.text, src.format, overrides, args.pcap, args.pcap_80211)
    from tcplab.events import events_request, run_traced

    overrides, ev_file, ev_format = events_request(src.text, src.format, overrides, args.trace_events,
                                                   "--trace-events")
    out = Path(args.out) if args.out else None
    if out is not None:
        check_out(out, RUN_MARKER, "run output")
    staging = staging_dir(out) if out is not None else None
    written: list[str] = []
    try:
        pcaps = os.fspath(staging) if captures and staging else None
        raw = run_traced(
            lambda file, fmt: _core.run(src.text, src.format, args.seed, overrides, pcaps, file, fmt),
            ev_file, ev_format,
        )
        notes = window_notes(src.text, src.format, overrides) if captures else []
        if notes:  # how to read the windows of a one-way start in the captures (summary.json too)
            raw["warnings"] = [*(raw.get("warnings") or []), *notes]
        result = Result.from_raw(raw)
        if out is not None and staging is not None:
            write_text(staging / "summary.json", result.to_json(indent=2) + "\n")
            if result.has_series:  # polars is only imported when there is a frame to write
                result.series.write_parquet(staging / "series.parquet")
            if result.has_frames:
                result.frames.write_parquet(staging / "frames.parquet")
            written = publish(staging, out, RUN_MARKER, "run output")
            staging = None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    if args.json:
        # The same summary as summary.json, and the series (series.parquet) when any were asked for.
        print(json.dumps(result.json_doc(), allow_nan=False))
    else:
        _print_result(result, out)
    if captures and out is not None:
        pcaps = [f for f in written if f.endswith(".pcap")]  # what this run wrote, not what was there
        _err(f"{len(pcaps)} pcap file{'s' if len(pcaps) != 1 else ''} in {out}: {', '.join(pcaps) or 'none'}")
        for n in notes:
            _err(f"note: {n}")
    return EXIT_OK


def cmd_view(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tcplab import _core, viewer
    from tcplab.result import Result
    from tcplab.scenario import parse_set
    from tcplab.viewer.data import seconds

    overrides = [parse_set(s) for s in args.set]
    src = _scenario_file(args.file)
    resolved = _core.resolve(src.text, src.format, overrides)  # a bad scenario exits 2 here
    viewer.check_window(seconds(resolved["duration"]), args.t_from, args.t_to)
    out = Path(args.out) if args.out else Path(f"{resolved.get('name') or Path(args.file).stem}.html")
    if out.is_dir():
        raise UsageError(f"--out: {out} is a directory; give the HTML file to write")
    for w in _core.warnings(src.text, src.format, overrides):
        _err(f"warning: {w['loc']}: {w['msg']}")
    raw = _core.run(src.text, src.format, args.seed, overrides + viewer.traced_overrides(resolved), None)
    result = Result.from_raw(raw)
    # A run whose flows all finished stops before its duration: the window must hold some of it.
    viewer.check_window(result.summary["sim_time_s"], args.t_from, None)
    viewer.write(result, out, args.t_from, args.t_to)
    size = out.stat().st_size
    _err(f"wrote {out} ({size / 1e6:.1f} MB); open it in a browser (it needs no network)")
    return EXIT_OK


def _window_time(text: str) -> float:
    import argparse

    from tcplab.viewer.data import seconds

    try:
        return seconds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _print_result(result: Result, out: Path | None) -> None:
    from rich import box
    from rich.table import Table

    s = result.summary
    con = console()
    con.print(
        f"[bold]{s.get('scenario')}[/] seed {s.get('seed')}: {s.get('sim_time_s'):.3f} s simulated in "
        f"{s.get('wall_time_s'):.3f} s wall, {s.get('events'):,} events"
    )
    flows = Table(title="flows", box=box.SIMPLE_HEAD)
    for col in ("flow", "variant", "done", "delivered B", "goodput Mb/s", "response s", "retx", "RTOs", "spurious"):
        flows.add_column(
            col, justify="left" if col in ("flow", "variant") else "right", min_width=len(col), no_wrap=True
        )
    for f in s.get("flows", []):
        rt = f.get("response_time_s")
        flows.add_row(
            f["name"],
            f["variant"],
            "aborted" if f["aborted"] else ("yes" if f["completed"] else "no"),
            f"{f['bytes_delivered']:,}",
            f"{f['goodput_bps'] / 1e6:.3f}",
            "–" if rt is None else f"{rt:.3f}",
            str(f["retransmissions"]),
            str(f["timeouts"]),
            str(f["spurious_retransmissions"]),
        )
    if s.get("flows") or not s.get("cbr"):
        print_table(con, flows)
    for f in s.get("flows", []):
        if f.get("reason"):
            con.print(f"flow {f['name']}: {f['reason']}")
    if s.get("cbr"):
        cbr = Table(title="UDP/CBR flows", box=box.SIMPLE_HEAD)
        for col in ("flow", "from", "to", "sent", "delivered", "delivered B", "loss %", "throughput Mb/s"):
            cbr.add_column(
                col, justify="left" if col in ("flow", "from", "to") else "right", min_width=len(col), no_wrap=True
            )
        for c in s["cbr"]:
            cbr.add_row(
                c["name"],
                c["src"],
                c["dst"],
                f"{c['sent']:,}",
                f"{c['received']:,}",
                f"{c['bytes_received']:,}",
                f"{c['loss_pct']:.2f}",
                f"{c['throughput_bps'] / 1e6:.3f}",
            )
        print_table(con, cbr)
    if s.get("links"):
        links = Table(title="links", box=box.SIMPLE_HEAD)
        for col in ("link", "direction", "packets", "bytes", "queue drops", "loss drops", "outage drops"):
            links.add_column(
                col, justify="left" if col in ("link", "direction") else "right", min_width=len(col), no_wrap=True
            )
        for ln in s["links"]:
            links.add_row(
                ln["name"],
                ln["direction"],
                f"{ln['packets_sent']:,}",
                f"{ln['bytes_sent']:,}",
                str(ln["drops_queue"]),
                str(ln["drops_loss"]),
                str(ln["drops_outage"]),
            )
        print_table(con, links)
    if s.get("wifi"):
        wifi = Table(title="802.11 stations", box=box.SIMPLE_HEAD)
        # tx collisions: this station's exchanges lost to an overlapping frame (beside its retries);
        # rx collisions: receptions here destroyed by one (the JSON's `collisions`).
        cols = ("wlan", "node", "frames", "retries", "tx collisions", "rx collisions", "errors", "pkt errors",
                "retry drops", "queue drops", "outage drops")
        for col in cols:
            wifi.add_column(col, justify="left" if col in ("wlan", "node") else "right", min_width=len(col), no_wrap=True)
        for w in s["wifi"]:
            wifi.add_row(
                w["wlan"],
                w["node"],
                f"{w['frames_sent']:,}",
                str(w["retries"]),
                str(w["tx_collisions"]),
                str(w["collisions"]),
                str(w["frame_errors"]),
                str(w["packet_errors"]),
                str(w["drops_retry_limit"]),
                str(w["drops_queue"]),
                str(w["drops_outage"]),
            )
        print_table(con, wifi)
    if s.get("nodes"):
        nodes = Table(title="network layer", box=box.SIMPLE_HEAD)
        cols = (
            "node", "routing", "no route", "discovery failed", "buffer drops", "link broken", "ttl",
            "icmp sent", "control pkts", "RREQ", "RREP", "RERR",
        )
        for col in cols:
            nodes.add_column(col, justify="left" if col in ("node", "routing") else "right", min_width=len(col), no_wrap=True)
        for n in s["nodes"]:
            nodes.add_row(
                n["node"],
                n["routing"],
                str(n["drops_no_route"]),
                str(n["drops_discovery_failed"]),
                str(n["drops_buffer_full"] + n["drops_buffer_timeout"]),
                str(n["drops_link_broken"]),
                str(n["drops_ttl"]),
                str(n["icmp_sent"]),
                f"{n['control_packets']:,}",
                str(n["route_requests"]),
                str(n["route_replies"]),
                str(n["route_errors"]),
            )
        print_table(con, nodes)
    for a in s.get("agents") or []:
        stats = ", ".join(f"{k} {v}" for k, v in a["stats"].items() if v)
        con.print(f"agent {a['kind']} at {a['node']} for {a['mobile']}: {stats or 'idle'}")
    if s.get("byte_conservation_checked"):
        con.print("byte conservation: checked (every TCP stream and UDP flow delivered only what was sent, in order)")
    else:
        con.print("byte conservation: not checked")
    if out is not None:
        con.print(f"results written to {out}")


# ------------------------------------------------------------------ tcplab schema / sweep / results / reproduce


def cmd_schema(args: argparse.Namespace) -> int:
    from tcplab import _core

    print(_core.schema())
    return EXIT_OK


def _executor_args(p: argparse.ArgumentParser) -> None:
    from tcplab._fs import DEFAULT_STORE

    p.add_argument("--executor", choices=("local", "ray"), default="local", help="where runs execute (default: local)")
    p.add_argument(
        "--address",
        help="Ray cluster address, or auto for the one `ray start` started (default: start a Ray of its own, on 127.0.0.1)",
    )
    p.add_argument("--workers", type=int, help="parallel runs (default: number of CPUs)")
    p.add_argument("--store", default=str(DEFAULT_STORE), help=f"results database (default: {DEFAULT_STORE})")


def cmd_sweep(args: argparse.Namespace) -> int:
    from tcplab.exceptions import ScenarioError, format_error
    from tcplab.runner import Sweep, plan_sweep, run_sweep
    from tcplab.store import Store

    if args.address and args.executor != "ray":
        raise UsageError("--address names a Ray cluster: add --executor ray")
    try:
        sweep = Sweep.from_toml(args.file)
    except ValueError as exc:  # includes TOML syntax errors
        raise UsageError(f"{args.file}: {exc}") from exc
    try:
        plan = plan_sweep(sweep)  # a value the scenario refuses: exit 2 before the store is opened
    except ScenarioError as exc:
        _err(*format_error(exc), f"sweep {sweep.name} not run: nothing was simulated or stored")
        return EXIT_USAGE
    with Store(args.store) as store:
        rep = run_sweep(
            sweep, store, executor=args.executor, workers=args.workers, address=args.address, verbose=args.verbose,
            plan=plan,
        )
    _err(
        f"sweep {rep.sweep}: {rep.total} runs, {rep.cached} already stored, {len(rep.executed)} executed, "
        f"{len(rep.failed)} failed; results in {args.store}"
    )
    _print_failures(rep.failures, args.store)
    return EXIT_FAILED if rep.failed else EXIT_OK


#: Failed runs listed by ``tcplab sweep`` (the rest are counted), and the lines of each reason.
_FAILURES_SHOWN, _REASON_LINES, _REASON_CHARS = 10, 3, 300


def _print_failures(failures: Sequence[tuple[str, int, str]], store: str) -> None:
    """Why each run of this sweep failed: its cell and seed, then the first lines of the reason."""
    from tcplab.runner import cell_label

    for cell, seed, reason in failures[:_FAILURES_SHOWN]:
        lines = [ln for part in reason.split("; ") for ln in part.splitlines() if ln.strip()] or [""]
        shown = [ln if len(ln) <= _REASON_CHARS else ln[: _REASON_CHARS - 1] + "…" for ln in lines[:_REASON_LINES]]
        _err(f"  failed: {cell_label(cell)} seed {seed}: {shown[0]}")
        for ln in shown[1:]:
            _err(f"    {ln}")
        if len(lines) > _REASON_LINES:
            _err(f"    … {len(lines) - _REASON_LINES} more (tcplab results --store {store} --status failed)")
    if len(failures) > _FAILURES_SHOWN:
        _err(f"  … and {len(failures) - _FAILURES_SHOWN} more failed runs (tcplab results --store {store} --status failed)")


def _print_table(title: str | None, header: Sequence[str], rows: Sequence[Sequence[str]], right: int = 0) -> None:
    """A table with every cell in full: folded in a narrow terminal, never cut; as wide as it needs
    when stdout is not a terminal (a file, a pipe).  The last ``right`` columns are right-aligned."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    if title:
        print(title)
    table = Table(box=box.SIMPLE_HEAD)
    for i, col in enumerate(header):
        table.add_column(col, justify="right" if i >= len(header) - right else "left", overflow="fold")
    for row in rows:
        table.add_row(*row)
    console = Console()
    if not console.is_terminal:
        needed = Console(width=1_000_000).measure(table).maximum
        console = Console(width=max(console.width, needed))
    console.print(table)


def _number(x: float | int | None) -> str:
    """A table number with at least 6 significant digits, in fixed notation with thousands
    separators when that stays short (4,242,660 rather than 4.24266e+06); an en dash when missing."""
    import math

    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if x == 0 or 1e-4 <= abs(x) < 1e12:
        decimals = max(0, 5 - math.floor(math.log10(abs(x)))) if x else 0
        return f"{x:,.{decimals}f}"
    return f"{x:.6g}"


def cmd_results(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tcplab.store import Store

    if not Path(args.store).is_file():
        raise UsageError(f"{args.store}: no results store (run a sweep first, or pass --store)")
    if args.metric is not None and args.summary is None:
        args.summary = ""
    for flag, given in (("--by", args.by), ("--flow", args.flow), ("--sum-flows", args.sum_flows)):
        if given and args.summary is None:
            raise UsageError(f"{flag} belongs to a summary: add --summary [METRIC]")
    if args.summary is not None:
        if args.summary and args.metric and args.summary != args.metric:
            raise UsageError(f"--summary {args.summary} and --metric {args.metric}: name one metric")
        args.summary = args.summary or args.metric or "goodput_bps"
        return _results_summary(args)
    with Store(args.store, readonly=True) as store:
        if args.csv or args.parquet:
            n = store.export(args.csv or args.parquet, sweep=args.sweep, status=args.status)
            _err(f"wrote {n} rows to {args.csv or args.parquet}")
            return EXIT_OK
        runs = store.listing(args.sweep, args.status)
    params = runs.columns[runs.columns.index("error") + 1 : runs.columns.index("wall_time_s")]
    header = ["sweep", "key", *params, "seed", "status", "wall s", "error"]
    rows = [
        [
            r["sweep"],
            r["key"][:12],
            *("–" if r[p] is None else str(r[p]) for p in params),
            str(r["seed"]),
            r["status"],
            "–" if r["wall_time_s"] is None else f"{r['wall_time_s']:.3f}",
            r["error"] or "",
        ]
        for r in runs.iter_rows(named=True)
    ]
    _print_table(None, header, rows)
    ok = int((runs["status"] == "ok").sum())
    print(f"{runs.height} runs: {ok} ok, {runs.height - ok} failed")
    return EXIT_OK


def _results_summary(args: argparse.Namespace) -> int:
    """``tcplab results --summary METRIC [--by PATH...]``: mean ± 95 % CI per cell."""
    from pathlib import Path

    from tcplab.sweeps import results

    res = results(args.store, args.sweep)
    summary = res.summary(args.summary, by=args.by or None, flow=args.flow, sum_flows=args.sum_flows)
    if args.csv or args.parquet:
        from tcplab.store import write_frame

        out = Path(args.csv or args.parquet)
        write_frame(summary, out, "csv" if args.csv else "parquet")
        _err(f"wrote {summary.height} rows to {out}")
        return EXIT_OK
    header = [*summary.by, "mean", "± 95 % CI", "n"]
    rows = [
        [*("–" if r[c] is None else str(r[c]) for c in summary.by), _number(r["mean"]), _number(r["ci95"]), str(r["n"])]
        for r in summary.iter_rows(named=True)
    ]
    from tcplab.metrics import what

    of = what(args.summary)
    which = f" of {args.flow}" if args.flow else f" summed over each run's {of}" if args.sum_flows else ""
    title = f"{res.name}: {args.summary}{which}, mean ± 95 % CI (Student t) over n ok runs per cell"
    _print_table(title, header, rows, right=3)
    failed = res.failed["key"].n_unique()
    if failed:
        _err(f"{failed} failed runs left out (list them with: tcplab results --sweep {res.name} --status failed)")
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tcplab.sweeps import results

    res = results(args.store, args.sweep)
    for flag, path in (("--x", args.x), ("--hue", args.hue)):
        if path is not None and path not in res.parameters:
            raise UsageError(f"{flag}: {path!r} is not a swept parameter of {res.name}; expected one of "
                             f"{list(res.parameters)}")
    per_flow = args.flow is None and not args.sum_flows
    default = res.default_by(args.y, per_flow=per_flow)
    if args.hue is not None and "flow" in default:
        raise UsageError(
            f"--hue {args.hue}: {args.y} has {len(res.flows_of(args.y))} flows per run "
            f"({', '.join(res.flows_of(args.y))}), so each line would mix them; pick one with --flow NAME "
            "or add them up with --sum-flows"
        )
    by = [args.x, *(p for p in default if p != args.x)]
    summary = res.summary(args.y, by=by, flow=args.flow, sum_flows=args.sum_flows)
    metric = args.y.replace(".", "_")
    out = Path(args.output or f"{res.name.replace('/', '_')}_{metric}_vs_{args.x.rsplit('.', 1)[-1]}.png")
    summary.plot(
        x=args.x,
        hue=args.hue,
        band=args.band,
        logx=args.logx,
        logy=args.logy,
        title=f"{res.name}: {args.y}{f' of {args.flow}' if args.flow else ' (sum per run)' if args.sum_flows else ''} vs. {args.x}",
        path=out,
    )
    _err(f"wrote {out}")
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tcplab.experiments import select
    from tcplab.report import check_report_folder, reproduce
    from tcplab.store import Store

    try:
        experiments = select(args.papers)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from exc
    check_report_folder(Path(args.out), Path(args.store))  # before the store is created
    with Store(args.store) as store:
        index, reports = reproduce(
            experiments,
            store,
            Path(args.out),
            args.quick,
            executor=args.executor,
            workers=args.workers,
            address=args.address,
        )
    failed = sum(len(r.failed) for r in reports)
    executed = sum(len(r.executed) for r in reports)
    # The same count as the report's pages: runs per sweep (a run two sweeps share counts in each).
    total = sum(r.total for r in reports)
    _err(f"report written to {index} ({executed} runs executed, {total - executed} already stored: {total} runs in the "
         f"sweeps of {len(experiments)} experiment(s), as the pages count them; {failed} failed)")
    if args.quick:
        from tcplab.report import quick_warnings

        wide = quick_warnings(Path(args.out))
        if wide:
            _err(f"warning: quick mode: {wide} finding(s) have a 95 % CI wider than the effect they judge "
                 "(verdict 'not separated'); the report lists them, a full run replicates more")
    return EXIT_FAILED if failed else EXIT_OK


# ------------------------------------------------------------------ entry point


def _flow_args(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group()
    which.add_argument("--flow", metavar="NAME",
                       help="only this flow (or link direction LINK:A->B, station WLAN:NODE, node) of each run")
    which.add_argument("--sum-flows", action="store_true",
                       help="add up the metric over each run's flows (links, stations, nodes) first")


def _version() -> str:
    from tcplab import _core

    return f"tcplab {_core.version()}"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser.  Given the ``command`` a command line names, the subcommands
    that need imports of their own to describe themselves (``reproduce``: the experiments;
    ``validate``: the ns-2 translator) are added only if it is one of them, or names none."""
    from tcplab._args import SEED_MAX
    from tcplab._fs import DEFAULT_STORE

    parser = _parser(prog="tcplab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="run one scenario")
    p.add_argument("file", help="scenario file (.toml or .json)")
    p.add_argument("--seed", type=_seed, help=f"random seed, 0 to {SEED_MAX} (default: the scenario's)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override a field, e.g. links.bottleneck.rate=5Mbps (repeatable)",
    )
    p.add_argument("--out", help="write summary.json and series.parquet into this folder")
    p.add_argument(
        "--pcap",
        action="store_true",
        help="also write pcap traces into --out: the links and WLANs in trace.pcap, or all of them",
    )
    p.add_argument(
        "--pcap-80211",
        action="store_true",
        help="also write 802.11 captures (radiotap: RTS, CTS, DATA, ACK) into --out, one per station "
        "(<wlan>-<node>-80211.pcap): the WLANs in trace.pcap_80211, or all of them",
    )
    p.add_argument(
        "--trace-events",
        metavar="FILE",
        help="write the event trace (one row per packet event: docs/trace.md) to FILE: Parquet, or ns-2's "
        "wireless trace format for a .tr file or trace.events.format = \"ns2\"; every layer and node unless "
        "the scenario's trace.events chooses",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("view", help="run a scenario and write a self-contained HTML viewer of it (docs/viewer.md)")
    p.add_argument("file", help="scenario file (.toml or .json)")
    p.add_argument("--seed", type=_seed, help=f"random seed, 0 to {SEED_MAX} (default: the scenario's)")
    p.add_argument(
        "--set", action="append", default=[], metavar="PATH=VALUE", help="override a field (repeatable)"
    )
    p.add_argument("--from", dest="t_from", type=_window_time, metavar="T", help="show from T (e.g. 30s; default 0)")
    p.add_argument("--to", dest="t_to", type=_window_time, metavar="T", help="show up to T (default: the end)")
    p.add_argument("--out", help="HTML file to write (default: NAME.html, NAME the scenario's name)")
    p.set_defaults(func=cmd_view)

    p = sub.add_parser("schema", help="print the JSON Schema of the scenario format")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("sweep", help="run a sweep file (docs/sweeps.md); resumes, skipping runs already stored")
    p.add_argument("file", help="sweep file (.toml with a [sweep] table)")
    _executor_args(p)
    p.add_argument("--verbose", action="store_true", help="show Ray's start-up messages")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("results", help="list, summarise or export stored runs")
    p.add_argument("--store", default=str(DEFAULT_STORE), help=f"results database (default: {DEFAULT_STORE})")
    p.add_argument("--sweep", help="only this sweep (needed with --summary when the store holds several)")
    p.add_argument("--status", choices=("ok", "failed"), help="only runs with this status")
    p.add_argument(
        "--summary", nargs="?", const="", metavar="METRIC",
        help="mean ± 95 %% CI of a metric per cell (default goodput_bps; or name it with --metric)",
    )
    p.add_argument(
        "--metric", metavar="METRIC",
        help="the metric of --summary: a TCP flow's (goodput_bps…), cbr.*, link.*, wifi.*, node.* (docs/sweeps.md)",
    )
    _flow_args(p)
    p.add_argument(
        "--by", nargs="+", metavar="PATH", help="group the summary by these columns (default: the swept parameters)"
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", metavar="OUT", help="export one row per run and flow (or the summary) as CSV")
    fmt.add_argument("--parquet", metavar="OUT", help="export one row per run and flow (or the summary) as Parquet")
    p.set_defaults(func=cmd_results)

    p = sub.add_parser("plot", help="plot a metric of a stored sweep against a swept parameter, with 95 %% CIs")
    p.add_argument("store", help="results database (e.g. results/tcplab.db)")
    p.add_argument("--sweep", help="the sweep (needed when the store holds several)")
    p.add_argument("--x", required=True, metavar="PATH", help="swept parameter on the x axis")
    p.add_argument("--y", "--metric", dest="y", default="goodput_bps", metavar="METRIC",
                   help="the metric: a TCP flow's (default: goodput_bps), cbr.*, link.*, wifi.*, node.* (docs/sweeps.md)")
    _flow_args(p)
    p.add_argument("--hue", metavar="PATH", help="one line per value of this swept parameter (e.g. tcp.variant)")
    p.add_argument("-o", "--output", metavar="FILE.png", help="output file (default: <sweep>_<y>_vs_<x>.png)")
    p.add_argument("--band", action="store_true", help="draw the CI as a shaded band instead of error bars")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.set_defaults(func=cmd_plot)

    if command in _LIGHT_COMMANDS:
        return parser
    from tcplab.experiments import names as experiment_names

    p = sub.add_parser(
        "reproduce",
        help="run the papers' experiments and write the report",
        description="Run the papers' experiments (resuming from the store) and write the report. "
        f"Experiments: {', '.join(experiment_names())}.",
    )
    p.add_argument(
        "papers", nargs="*", metavar="EXPERIMENT",
        help=f"experiment names (default: all): {', '.join(experiment_names())}",
    )
    p.add_argument(
        "--quick", action="store_true",
        help="fewer replications and shorter runs; warns when a 95 %% CI is wider than the effect it judges",
    )
    p.add_argument("--out", default="report", help="report folder (default: report)")
    _executor_args(p)
    p.set_defaults(func=cmd_reproduce)

    if command == "reproduce":
        return parser
    from tcplab.validate.command import add_parser as add_validate

    add_validate(sub, _seed)
    return parser


#: The commands whose parsers need no imports beyond argparse's (the others are added after them).
_LIGHT_COMMANDS = ("run", "view", "schema", "sweep", "results", "plot")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` console script; returns the exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    if words == ["--version"]:  # what argparse's version action prints, without argparse (issue 35)
        print(_version())
        return EXIT_OK
    import signal

    from tcplab._fs import remove_staging

    # The top level takes only options without values: its first other word names the command.
    command = next((w for w in words if not w.startswith("-")), None)
    args = build_parser(command).parse_args(words)
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (main() called from a thread): leave signals alone
        previous = None
    try:
        return _dispatch(args)
    finally:
        remove_staging()  # what an interrupted or failed command was still filling
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _dispatch(args: argparse.Namespace) -> int:
    from tcplab.exceptions import ScenarioError, TcplabError, format_error

    try:
        return int(args.func(args))
    except ScenarioError as exc:
        _err(*format_error(exc))
        return EXIT_USAGE
    except (UsageError, ValueError) as exc:
        _err(f"error: {exc}")
        return EXIT_USAGE
    except FileNotFoundError as exc:
        _err(f"{exc.filename}: no such file")
        return EXIT_USAGE
    except IsADirectoryError as exc:
        _err(f"{exc.filename}: is a directory; expected a file")
        return EXIT_USAGE
    except BrokenPipeError:  # stdout closed early (e.g. piped into head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (TcplabError, RuntimeError, OSError) as exc:
        _err(*format_error(exc))
        return EXIT_FAILED
    except Terminated:
        _err("terminated")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:
        # sqlite3 is imported by the commands that use the results store, not at start-up: an
        # exception can only be one of its errors if it was imported.
        sqlite3 = sys.modules.get("sqlite3")
        if sqlite3 is not None and isinstance(exc, sqlite3.Error):  # e.g. --store names a folder
            _err(f"error: results store {getattr(args, 'store', '')}: {exc}")
            return EXIT_USAGE
        raise


if __name__ == "__main__":
    sys.exit(main())
