"""A tiny stand-in for the compiled ``tcplab._core``, used ONLY by the runner tests of
``test_units.py`` (its ``fake`` fixture).

Why it exists: the store, resume and executor logic in ``tcplab.runner``/``tcplab.store`` can be
unit-tested without the simulator, and those tests then stay fast and independent of model changes.
It mimics the native contract's shapes (resolve/run/exception classes), not its physics: results are
a deterministic hash of (resolved scenario, seed).  Every other test uses the real ``_core``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import time
from collections.abc import Sequence
from typing import Any

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib


class TcplabError(Exception):
    """Root of the fake hierarchy (mirrors ``_core.TcplabError``)."""


class ScenarioError(TcplabError, ValueError):
    """Invalid scenario; carries ``errors()`` like the native class."""

    def __init__(self, message: str | list[dict[str, str]], errors: Any = ()) -> None:
        # The native class's signature, (message, errors); a bare error list is the fake's own shorthand.
        if not isinstance(message, str):
            message, errors = "; ".join(f"{e['loc']}: {e['msg']}" for e in message), message
        super().__init__(message)
        self._errors = [dict(e) for e in errors]

    def errors(self) -> list[dict[str, str]]:
        return list(self._errors)


class SimulationError(TcplabError):
    """Run-time failure (the fake raises it when ``fake.fail`` is true)."""


VARIANTS = ("reno", "newreno", "sack")
#: Seconds each fake run sleeps, so that a test can kill a sweep midway.
RUN_SLEEP_S = 0.05


def version() -> str:
    return "fake-0"


def schema() -> str:
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"})


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _apply(doc: dict[str, Any], path: str, value: str) -> None:
    parts = path.split(".")
    node: Any = doc
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            match = [x for x in node if isinstance(x, dict) and x.get("name") == part]
            if match:
                node = match[0]
            elif part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ScenarioError([{"loc": ".".join(parts[: i + 1]), "msg": "no such element"}])
        else:
            node = node.setdefault(part, {})
    node[parts[-1]] = _parse_value(value)


def resolve(text: str, format: str = "toml", overrides: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text) if format == "toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ScenarioError([{"loc": "", "msg": str(exc)}]) from None
    doc = copy.deepcopy(doc)
    for path, value in overrides:
        _apply(doc, path, value)
    doc.setdefault("duration", "60s")
    tcp = doc.setdefault("tcp", {})
    tcp.setdefault("variant", "newreno")
    errors = []
    if tcp["variant"] not in VARIANTS:
        errors.append({"loc": "tcp.variant", "msg": f"unknown variant; expected one of {list(VARIANTS)}"})
    for key in doc:
        if key not in {"name", "seed", "duration", "max_events", "tcp", "nodes", "links", "flows", "trace", "fake"}:
            errors.append({"loc": key, "msg": "unknown field"})
    if errors:
        raise ScenarioError(errors)
    return doc


def run(
    text: str,
    format: str = "toml",
    seed: int | None = None,
    overrides: Sequence[tuple[str, str]] = (),
    pcap_dir: str | None = None,
    events_file: str | None = None,
    events_format: str = "parquet",
) -> dict[str, Any]:
    doc = resolve(text, format, overrides)
    seed = 1 if seed is None else seed
    if doc.get("fake", {}).get("fail") or doc.get("max_events", 10**9) < 1000:
        raise SimulationError("event limit reached")
    start = time.perf_counter()
    time.sleep(RUN_SLEEP_S)
    digest = hashlib.sha256(json.dumps([doc, seed], sort_keys=True).encode()).digest()
    rng = random.Random(digest)
    flows = [
        {
            "name": flow.get("name", f"flow{i}"),
            "variant": doc["tcp"]["variant"],
            "completed": True,
            "aborted": False,
            "bytes_delivered": rng.randrange(1, 10**6),
            "response_time_s": None,
            "goodput_bps": rng.random() * 1e7,
            "segments_sent": 100,
            "retransmissions": 1,
            "timeout_retransmissions": 0,
            "fast_retransmissions": 1,
            "timeouts": 0,
            "spurious_retransmissions": 0,
            "retransmission_ratio_pct": 1.0,
        }
        for i, flow in enumerate(doc.get("flows", []))
    ]
    series = {"flow": [], "at": [], "series": [], "t_s": [], "value": []}
    if doc.get("fake", {}).get("series") or doc.get("trace", {}).get("series"):
        for k in range(5):
            series["flow"].append(flows[0]["name"])
            series["at"].append(None)
            series["series"].append("cwnd")
            series["t_s"].append(k * 0.1)
            series["value"].append(rng.random())
    return {
        "scenario": doc.get("name", ""),
        "seed": seed,
        "sim_time_s": 1.0,
        "wall_time_s": time.perf_counter() - start,
        "events": rng.randrange(1000),
        "flows": flows,
        "links": [],
        "series": series,
    }
