"""TCP-pgy's replications vary the flows' start times (issue 39): each seed draws every flow's start offset, the
same for every compared sender and for ns-2.35; the same seed draws the same starts."""

from __future__ import annotations

import json

from tcplab.experiments.tcp_pgy import causes
from tcplab.experiments.tcp_pgy import experiment as e
from tcplab.experiments.tcp_pgy import scenario as sc
from tcplab.experiments.tcp_pgy.points import ns2_scenario
from tcplab.runner import plan_sweep


def _starts(sweep, seed: int) -> dict[str, str]:
    cell = sweep.expand()[0]
    return {k: v for k, v in sweep.per_seed(cell, seed).items() if k.endswith(".start")} if sweep.per_seed else {}


def test_two_replications_start_their_flows_at_different_times_and_a_seed_always_at_the_same():
    grid6 = next(p for p in e.grid_points(True) if p.flows == 6).sweep(e.prefix(True), 2)
    one, two = _starts(grid6, 1), _starts(grid6, 2)
    assert sorted(one) == [f"flows.f{i}.start" for i in range(1, 7)]
    assert one != two and all(one[k] != two[k] for k in one)
    assert one == _starts(grid6, 1)  # the same seed, the same starts
    # Flow i starts at i s plus an offset in [0, START_JITTER_S).
    for i in range(6):
        t = float(one[f"flows.f{i + 1}.start"][:-1])
        assert i <= t < i + sc.START_JITTER_S


def test_every_sender_of_a_seed_starts_at_the_same_times():
    sw = next(p for p in e.grid_points(True) if p.flows == 6).sweep(e.prefix(True), 2)
    cells = sw.expand()
    assert len(cells) == 4  # the ablation point: NewReno, S1, S2, TCP-pgy
    assert len({json.dumps(dict(sw.per_seed(c, 3)), sort_keys=True) for c in cells}) == 1


def test_every_sweep_of_the_experiment_varies_the_starts():
    # The strings, the multi-flow string, the grid, the random topologies, the traced runs and the layout switches.
    for sw in e.sweeps(True):
        assert sw.per_seed is not None, sw.name
        assert _starts(sw, 1) != _starts(sw, 2), sw.name
    assert all(sw.per_seed is not None for sw in causes.sweeps("x", "100s", 2, 2))


def test_the_stored_scenarios_carry_the_drawn_starts():
    # What the core resolves (and the store keeps) for seeds 1 and 2 of the 3-flow string differs in the starts.
    sw = next(p for p in e.multi_points(True)).sweep(e.prefix(True), 2)
    _, plans = plan_sweep(sw)
    starts = {p.task.seed: json.dumps(json.loads(p.scenario_json)["flows"], sort_keys=True) for p in plans.values()}
    assert len(starts) == 2 and starts[1] != starts[2]


def test_ns2_runs_a_seed_with_the_same_starts_as_tcplab():
    p = next(p for p in e.grid_points(True) if p.flows == 6)
    sw = p.sweep(e.prefix(True), 2)
    for seed in (1, 2):
        ns2 = [f["start"] for f in ns2_scenario(p, seed)["flows"]]
        ours = [v for _, v in sorted(_starts(sw, seed).items(), key=lambda kv: int(kv[0].split(".")[1][1:]))]
        assert ns2 == ours


def test_no_jitter_gives_the_fixed_starts():
    assert sc.flow_starts(3, 7, jitter_s=0.0) == [0.0, 1.0, 2.0]
    assert sc.starts_of_seed(3, {}, 7, jitter_s=0.0) == {}
