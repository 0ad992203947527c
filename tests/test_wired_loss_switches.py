"""wired-loss: the deviations from the Mathis et al. model name a cause only with the switches' measured effect
(issue 39): delayed ACKs off, rto_min 0.2 s, both; the rest of a gap the switches leave is "cause not found"."""

from __future__ import annotations

from tcplab.experiments.base import TableCell
from tcplab.experiments.wired_loss import experiment as wl
from tcplab.stats import summarise


def _cells(p: float, gaps: dict[str, float]) -> list[TableCell]:
    model = wl.PUBLISHED[p].value
    return [TableCell.of(wl.SWITCH_TABLE, f"p = {p:g}", label, summarise([model * (1 + g / 100)] * 3), "Mb/s")
            for label, g in gaps.items()]


def _labels(*gaps: float) -> dict[str, float]:
    return dict(zip([label for label, _, _ in wl.SWITCHES], gaps))


def test_a_gap_the_switches_close_names_them_as_the_cause() -> None:
    cell = TableCell.of(wl.TABLE, "p = 0.01", "newreno", summarise([2.7] * 3), "Mb/s", wl.PUBLISHED[0.01])
    text = wl.deviation_cause(cell, _cells(0.01, _labels(-16.4, -6.4, -13.3, -3.9)))
    model = wl.PUBLISHED[0.01].value
    assert text.startswith("switches measured") and f"reaches {model * 0.836:.3f} Mb/s" in text
    assert f"with both {model * 0.961:.3f} Mb/s" in text and text.endswith("delayed ACKs and the timeouts' cost are the cause")


def test_what_the_switches_leave_is_cause_not_found() -> None:
    cell = TableCell.of(wl.TABLE, "p = 0.05", "newreno", summarise([0.46] * 3), "Mb/s", wl.PUBLISHED[0.05])
    text = wl.deviation_cause(cell, _cells(0.05, _labels(-69.1, -56.8, -43.5, -28.5)))
    assert "with both the gap left is 28.5 %, its cause not found" in text


def test_without_the_switch_runs_the_cause_is_not_found() -> None:
    cell = TableCell.of(wl.TABLE, "p = 0.02", "reno", summarise([1.5] * 3), "Mb/s", wl.PUBLISHED[0.02])
    assert wl.deviation_cause(cell, []) == "the switch sweep did not run: cause not found"
    # One switch missing is not enough either.
    gaps = _labels(-34.1, -19.1, -23.2, -10.7)
    gaps.pop("both")
    assert wl.deviation_cause(cell, _cells(0.02, gaps)).endswith("cause not found")


def test_the_switch_sweep_changes_only_delayed_acks_and_rto_min() -> None:
    main, switches = wl.sweeps(True)
    assert switches.name == wl.switch_sweep_name(True) and switches.base == main.base
    assert switches.grid == {wl.LOSS_PATH: [p for p in wl.LOSS_P if p > 0], wl.DELACK_PATH: [True, False],
                             wl.RTO_MIN_PATH: ["1s", "0.2s"]}
    assert {(d, r) for _, d, r in wl.SWITCHES} == {(True, "1s"), (False, "1s"), (True, "0.2s"), (False, "0.2s")}
    assert wl.SWITCHES[0][1:] == (True, "1s")  # the experiment's own settings (the defaults of [tcp])
