"""Type stub for the compiled core (``crates/tcplab-py``); the contract the Python front relies on."""

from typing import Any

class TcplabError(Exception):
    """Root of every error raised by tcplab."""

class ScenarioError(TcplabError, ValueError):
    """The scenario text or an override is invalid."""

    def errors(self) -> list[dict[str, str]]:
        """Every problem found, each ``{"loc": dotted field path, "msg": explanation}``."""

class SimulationError(TcplabError):
    """A valid scenario failed while running (e.g. the event limit was hit)."""

def version() -> str:
    """Version of the simulation core; part of every result key."""

def schema() -> str:
    """JSON Schema of the scenario format, as JSON text."""

def resolve(text: str, format: str = "toml", overrides: list[tuple[str, str]] = ...) -> dict[str, Any]:
    """Validate a scenario and return it fully resolved (defaults filled, overrides applied)."""

def warnings(text: str, format: str = "toml", overrides: list[tuple[str, str]] = ...) -> list[dict[str, str]]:
    """The scenario's warnings as [{"loc", "msg"}]; the scenario is valid, they do not stop a run."""

def captures(text: str, format: str = "toml", overrides: list[tuple[str, str]] = ...) -> dict[str, Any]:
    """What a reader of a run's captures must know (nothing runs): ``files``, the capture file
    names a run given a capture folder writes; ``window_shifts``, ``[{"flow", "shift", "open"}]``
    of the TCP flows whose windows are scaled with no option on the wire (a one-way start)."""

def run(
    text: str,
    format: str = "toml",
    seed: int | None = None,
    overrides: list[tuple[str, str]] = ...,
    pcap_dir: str | None = None,
    events_file: str | None = None,
    events_format: str = "parquet",
) -> dict[str, Any]:
    """Run one simulation with the GIL released; Ctrl-C raises KeyboardInterrupt. ``events_file``: a
    file the core writes the event trace to while the run goes, as Parquet or (``events_format="ns2"``)
    in ns-2's wireless trace format, under a temporary name beside it that is renamed to it when the
    run succeeds (a failed run leaves no file); the result's ``event_trace`` then names it and holds
    no rows."""

def ack_schedule(
    t: float,
    n_acks: int,
    mu0: float,
    sigma0: float,
    estimator: tuple[float, float, float] | None = None,
    guard: float = 0.0,
) -> dict[str, Any]:
    """Seed 001's ACK-release schedule: RTO_N(n) for every n (eq. 11), the paper's literal n, the
    feasible optimum and its gaps with the FH's RTO after each ACK. ``estimator`` is None for eqs.
    (1)-(4) as written, or (min, max, granularity) in seconds for a clamped RFC 6298 estimator."""
