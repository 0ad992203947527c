"""``tcplab validate linux``: the same wired scenario run by the simulator and by real Linux TCP.

Real kernel TCP endpoints live in one network namespace per node; each link is a ``tcplab-emu``
process (crates/tcplab-emu) joining two TUN devices with the scenario's queue, rate, delay, loss
and outages.  The parts, in the order a run uses them:

* :mod:`.units`      — the core's resolved quantities ("20ms", "10MB", "10Mbps") as numbers;
* :mod:`.topology`   — node addresses, interface names and static routes from the scenario;
* :mod:`.kernel_tcp` — the scenario's ``[tcp]`` as sysctls and route attributes, and what Linux
  cannot match;
* :mod:`.netns`      — namespaces created, configured and always removed;
* :mod:`.emulator`   — one emulator process per link;
* :mod:`.bulk_app`   — the bulk-download client and server on real sockets (a stdlib-only script);
* :mod:`.linux_run`  — one real run, start to cleanup;
* :mod:`.compare`    — the simulated and real runs side by side, and the cwnd figure.

See docs/validation/linux.md.
"""

from __future__ import annotations


class ValidateError(Exception):
    """A validation run cannot go on (no permission, unsupported scenario, a failed step)."""
