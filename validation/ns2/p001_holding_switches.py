"""Which rule of the ns2 profile gives the FH timeouts under ACK holding (docs/validation/ack_holding.md,
"On ns-2's own TCP"): Table I's holding cells, seeds 1-3, one and two fades (seed-shifted), FH timeouts per
run, with the profile and with each of its rules switched back one at a time.

    .venv/bin/python validation/ns2/p001_holding_switches.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import tcplab
from tcplab.experiments.ack_holding import experiment as ah
base = ah.scenario(); base.pop("trace")
for label, extra in (("profile", {}), ("rto_rule=rfc6298", {"tcp.rto_rule": "rfc6298"}), ("open=handshake", {"tcp.open": "handshake"}),
                     ("rto_ssthresh=keep_in_recovery", {"tcp.rto_ssthresh": "keep_in_recovery"}), ("limited_transmit=false", {"tcp.limited_transmit": False}),
                     ("timer_tick=10ms", {"tcp.timer_tick": "10ms"}),
                     # ARP (on since issue 33's ARP work) moved the timing so that the profile alone showed no
                     # timeout; without it the holder's one-way-delay bug of issue 33 part 2 showed (before its fix).
                     ("arp=false", {"wlans.cell.arp": False}),
                     ("arp=false,open=handshake", {"wlans.cell.arp": False, "tcp.open": "handshake"})):
    tos = []
    for seed in (1, 2, 3):
        for fade in ("one", "two"):
            ov = {ah.OUTAGE_PATH: ah.shifted(ah.FADES[fade], ah.fade_offset(seed))} | extra
            r = tcplab.run(base, seed=seed, overrides=ov)
            tos.append(r.summary["flows"][0]["timeouts"])
    print(label, tos)
