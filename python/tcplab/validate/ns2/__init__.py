"""``tcplab validate ns2``: the same scenario run by ns-2.35 and by tcplab, side by side.

The parts, in the order a run uses them:

* :mod:`.subset`  — what the translation carries, and the refusal (naming the field) of the rest;
* :mod:`.tcl`     — the resolved scenario as an ns-2.35 Tcl script (one script, the seed and the
  trace file are its arguments), and the map from the scenario's flows to ns-2's agents;
* :mod:`.trace`   — ns-2's trace (the old wireless format and the wired format) read into
  per-flow and per-network counters;
* :mod:`.run`     — ``ns`` run on the script per seed, a crash reported with its last lines;
* :mod:`.compare` — tcplab's summaries and ns-2's counters over the seeds, mean ± 95 % CI, ratio;
* :mod:`.command` — the CLI subcommand.

See docs/validation/ns2.md.
"""

from __future__ import annotations

from .. import ValidateError


class Untranslatable(ValidateError):
    """A scenario field with no ns-2.35 equivalent in the translation (the message names it)."""


class NsError(ValidateError):
    """``ns`` is missing or a run of it failed."""
