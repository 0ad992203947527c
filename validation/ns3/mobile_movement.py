#!/usr/bin/env python3
"""One movement file for both simulators: the mobile network of examples/adhoc_mobile.toml.

Writes results/mobile_<seed>.ns_movements, an ns-2 `setdest` file that ns-3's Ns2MobilityHelper
and tcplab's `mobility_file` both read, so that the routing comparison in
docs/validation/routing.md runs every protocol in both simulators over the same movement.
Nodes 0-5 are the example's s0, s1, s2, r0, r1, r2 at its fixed edge positions; nodes 6-49 are
m00..m43, starting at the example's positions and moving by random waypoint: destination
uniform in 1500 m x 300 m, speed uniform in [1, 10] m/s, no pause (the example's parameters;
plain random waypoint from those positions, not the stationary start). Python's random, seeded
with --seed, draws the walk. Also writes results/mobile_cbr_<seed>.toml: the example with its
mobility replaced by the file and its TCP flows by 32 kb/s CBR s_i -> r_i from 120 s.
"""
import argparse
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "adhoc_mobile.toml")
AREA = (1500.0, 300.0)


def example_positions():
    """(name, x, y, moves) per station of the example, in its order."""
    text = open(EXAMPLE).read()
    out = []
    for block in text.split("[[wlans.stations]]")[1:]:
        name = re.search(r'node = "(\w+)"', block).group(1)
        x, y = re.search(r'position = \["([\d.]+)m", "([\d.]+)m"\]', block).groups()
        out.append((name, float(x), float(y), "random_waypoint" in block))
    return out


def movement(seed, duration, min_speed, max_speed):
    rng = random.Random(seed)
    lines = []
    for i, (_, x, y, moves) in enumerate(example_positions()):
        lines += ["$node_(%d) set X_ %.6f" % (i, x), "$node_(%d) set Y_ %.6f" % (i, y),
                  "$node_(%d) set Z_ 0.000000" % i]
        t = 0.0
        while moves and t < duration:
            dx, dy = rng.uniform(0, AREA[0]), rng.uniform(0, AREA[1])
            v = rng.uniform(min_speed, max_speed)
            lines.append('$ns_ at %.6f "$node_(%d) setdest %.6f %.6f %.6f"' % (t, i, dx, dy, v))
            t += ((dx - x) ** 2 + (dy - y) ** 2) ** 0.5 / v
            x, y = dx, dy
    return "\n".join(lines) + "\n"


def cbr_scenario(movement_file, duration):
    """The example with the movement file and three CBR flows (tcplab scenario text)."""
    text = open(EXAMPLE).read()
    text = re.sub(r"\nmobility = \{[^\n]*\}", "", text)
    text = text.replace('duration = "600s"', 'duration = "%ds"' % duration)
    text = text.replace('position_update = "100ms"',
                        'position_update = "100ms"\nmobility_file = "%s"' % movement_file)
    head = text.split("[[flows]]")[0]
    flows = "".join(
        '[[flows]]\nname = "c%d"\napp = "cbr"\nsrc = "s%d"\ndst = "r%d"\nrate = "32kbps"\n'
        'packet_size = "512B"\nstart = "120s"\n\n' % (i, i, i) for i in range(3))
    return head + flows


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--duration", type=int, default=600)
    p.add_argument("--min-speed", type=float, default=1.0)
    p.add_argument("--max-speed", type=float, default=10.0)
    a = p.parse_args()
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    mv = "mobile_%d.ns_movements" % a.seed
    with open(os.path.join(out, mv), "w") as f:
        f.write(movement(a.seed, a.duration, a.min_speed, a.max_speed))
    with open(os.path.join(out, "mobile_cbr_%d.toml" % a.seed), "w") as f:
        f.write(cbr_scenario(mv, a.duration))
    print(os.path.join(out, mv))
