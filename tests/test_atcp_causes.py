"""atcp: the switches behind Table 2's deviations (static losses, walking losses, time out of range) are
sweeps of the experiment, set what they say in the scenario, leave Table 2's own scenarios alone, and the
deviation causes are written from their cells."""

from __future__ import annotations

import json

import pytest

from tcplab import _core
from tcplab.experiments.atcp import causes, experiment
from tcplab.experiments.atcp import scenario as sc
from tcplab.experiments.base import TableCell
from tcplab.stats import summarise


def _switch(name: str) -> causes.Switch:
    return next(s for s in causes.SWITCHES if s.name == name)


def test_every_switch_setting_is_a_sweep_of_both_senders():
    for quick in (True, False):
        sweeps = {s.name: s for s in experiment.sweeps(quick)}
        specs = causes.sweep_specs(experiment.prefix(quick))
        assert len(specs) == sum(len(s.cases) * len(s.values) for s in causes.SWITCHES)
        for name, _ in specs:
            sw = sweeps[name]
            assert [sc.variant_of(c) for c in sw.expand()] == ["base", "atcp_mod"]
            assert sw.replications == experiment.REPS[quick] and sw.seed0 == 1  # Table 2's seeds


@pytest.mark.parametrize("switch", causes.SWITCHES, ids=lambda s: s.name)
def test_our_setting_is_table_2s_own_scenario(switch):
    # At the value the experiment uses, the switch's runs are Table 2's runs (same scenario, same seeds).
    for case in switch.cases:
        hops, motion, size = case
        assert causes.doc(switch, case, switch.ours) == sc.scenario(hops=hops, size_mb=size, motion=motion)


def _receiver(doc: dict) -> dict:
    r = _core.resolve(json.dumps(doc), "json", [])
    return next(st for st in r["wlans"][0]["stations"] if st["node"] == "r")


def test_the_loss_switches_set_the_receivers_losses():
    for name, case in (("static_loss", (1, "static", 10)), ("walk_loss", (1, "mobile", 30))):
        s = _switch(name)
        for v in s.values:
            st = causes.doc(s, case, v)["wlans"][0]["stations"]
            r = next(x for x in st if x["node"] == "r")
            if v == 0:
                assert "loss" not in r
            else:
                assert r["loss"] == sc.WALK_LOSS | {"mean": v} and r["loss_at"] == "packets"
            _receiver(causes.doc(s, case, v))  # the core accepts it


def test_the_away_switch_moves_the_return_only():
    s = _switch("away")
    for v in s.values:
        r = next(x for x in causes.doc(s, (1, "disconnect", 30), v)["wlans"][0]["stations"] if x["node"] == "r")
        (a, b), = r["outage"]["intervals"]
        assert float(a[:-1]) == pytest.approx(40.0) and float(b[:-1]) == pytest.approx(40.0 + v)
        _receiver(causes.doc(s, (1, "disconnect", 30), v))


def _times(values: dict[float, tuple[list[float], list[float]]], s: causes.Switch, case) -> dict:
    return {causes.sweep_name("p", s, case, v): {"base": dict(enumerate(b, 1)), "atcp_mod": dict(enumerate(m, 1))}
            for v, (b, m) in values.items()}


def _cells(s: causes.Switch, case, values) -> list[TableCell]:
    times = _times(values, s, case)
    return causes.cells(lambda sweep: times.get(sweep, {}), "p", experiment.case_label, experiment.PUBLISHED)


def _t2(case, variant: str, mean: float) -> TableCell:
    label = experiment.case_label(*case)
    return TableCell.of(experiment.T2, label, sc.LABEL[variant], summarise([mean, mean]), "s",
                        experiment.PUBLISHED[(label, variant)])


STATIC10 = (1, "static", 10)


def test_a_static_cause_quotes_the_switch_cells_and_says_cause_not_found_when_none_moves_it():
    s = _switch("static_loss")
    cells = _cells(s, STATIC10, {0.0: ([15.6, 15.6], [15.6, 15.6]), 0.01: ([15.0, 16.6], [15.5, 15.7]),
                                 0.02: ([14.1, 18.5], [16.2, 16.4])})
    base = _t2(STATIC10, "base", 15.6)  # the paper: 21.3 s
    text = experiment.deviation_cause(base, [base, *cells])
    assert "0 % loss (ours): 15.6 ± 0 s" in text and "1 % loss: 15.8 ±" in text and "2 % loss: 16.3 ±" in text
    assert "the paper: 21.3 s, a reduction of 20.2 %" in text
    # 2 % loss is nearer the paper but its CI (±28 s) holds ours: no move beyond the noise.
    assert "nearest: 16.3 ±" in text and "with 2 % loss): cause not found" in text
    # The reduction the switch gives is quoted too: 100 (1 − modified / base) with 2 % losses, per seed.
    assert "2 % loss: -1.8 ±" in text


def test_a_move_beyond_the_noise_that_misses_the_paper_moves_toward_but_does_not_account_for_it():
    s = _switch("static_loss")
    cells = _cells(s, STATIC10, {0.0: ([15.6, 15.6], [15.6, 15.6]), 0.01: ([17.0, 17.4], [15.9, 16.1]),
                                 0.02: ([18.1, 18.5], [16.2, 16.4])})
    base = _t2(STATIC10, "base", 15.6)
    text = experiment.deviation_cause(base, [base, *cells])
    assert ("2 % loss moves this cell toward the paper's value but does not account for it (18.3 ± 2.5 s: not within "
            "±10 % by a two one-sided test with the paper's value in its 95 % CI)") in text
    assert "cause not found" not in text and "accounts for the row" not in text


def test_a_static_cause_follows_the_data_when_a_setting_reaches_the_paper():
    s = _switch("static_loss")
    cells = _cells(s, STATIC10, {0.0: ([15.6, 15.6], [15.6, 15.6]), 0.01: ([17.0, 17.4], [15.9, 16.1]),
                                 0.02: ([20.9, 21.1], [16.2, 16.4])})
    base = _t2(STATIC10, "base", 15.6)
    text = experiment.deviation_cause(base, [base, *cells])
    assert ("2 % loss accounts for the row: the paper's values lie in both senders' 95 % CIs, each within ±10 % by a "
            "two one-sided test (this cell 21.0 ± 1.3 s, Modified ATCP 16.3 ± 1.3 s against 17 s)") in text
    assert "cause not found" not in text


def test_a_mean_match_whose_interval_is_too_wide_does_not_account_for_the_row():
    # Issue 39's counter-example: the old rule took 21.7 ± 12 s against 21.3 s as a match (means within 10 %).
    s = _switch("static_loss")
    cells = _cells(s, STATIC10, {0.0: ([15.6, 15.6], [15.6, 15.6]), 0.01: ([20.75, 22.65], [16.9, 17.1]),
                                 0.02: ([18.1, 18.5], [16.2, 16.4])})
    base = _t2(STATIC10, "base", 15.6)
    text = experiment.deviation_cause(base, [base, *cells])
    assert "1 % loss: 21.7 ± 12 s" in text
    assert "accounts for the row" not in text and "1 % loss accounts for this cell" not in text


def test_a_setting_that_accounts_for_one_sender_alone_does_not_account_for_the_row():
    s = _switch("static_loss")
    cells = _cells(s, STATIC10, {0.0: ([15.6, 15.6], [15.6, 15.6]), 0.01: ([17.0, 17.4], [15.9, 16.1]),
                                 0.02: ([20.9, 21.1], [20.0, 20.4])})  # modified ATCP 20.2 s: 19 % off 17.0
    base = _t2(STATIC10, "base", 15.6)
    text = experiment.deviation_cause(base, [base, *cells])
    assert "2 % loss accounts for this cell (the paper's value in its 95 % CI and within ±10 % by a two one-sided test) " \
           "but not for Modified ATCP's (20.2 ±" in text
    assert text.endswith("moves the row toward the paper's values but does not account for them")


def test_the_disconnection_cause_reads_the_away_switch():
    s = _switch("away")
    case = (1, "disconnect", 30)
    cells = _cells(s, case, {50.0: ([120.0, 121.0], [119.0, 120.0]), 60.0: ([129.0, 129.0], [126.0, 126.4]),
                             70.0: ([170.0, 171.0], [136.0, 136.5]), 80.0: ([185.0, 186.0], [146.0, 146.0])})
    base = _t2(case, "base", 129.0)  # the paper: 198 s
    text = experiment.deviation_cause(base, [base, *cells])
    assert "switching the time out of range in the disconnection moves this cell" in text
    assert "60 s out of range (ours): 129.0 ± 0 s" in text and "80 s out of range: 185.5 ± 6.4 s" in text
    # 185.5 s is within 10 % of 198 s (the old mean-only rule's "accounts for"), but its CI excludes 198 s.
    assert "80 s out of range moves this cell toward the paper's value but does not account for it" in text
    assert "accounts for the row" not in text
    # With replications that hold 198 s and show it within ±10 %, it accounts for the row.
    cells = _cells(s, case, {60.0: ([129.0, 129.0], [126.0, 126.4]), 80.0: ([197.0, 199.0], [150.0, 152.0])})
    text = experiment.deviation_cause(base, [base, *cells])
    assert "80 s out of range accounts for the row" in text


def test_a_cause_without_switch_runs_says_so():
    base = _t2(STATIC10, "base", 15.6)
    text = experiment.deviation_cause(base, [base, *_cells(_switch("static_loss"), STATIC10, {})])
    assert "was not run in this store" in text and "cause not found" in text
