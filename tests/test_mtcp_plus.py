"""Omueti & Trajković's (M-TCP+) qualitative findings, each checked on a shortened scenario built by the experiment's
own scenario function (20 MB instead of 100 MB; the outage schedules are the paper's), plus the
end-to-end guarantee that no application byte is lost, duplicated or reordered at the WH."""

from __future__ import annotations

import functools

import pytest

import tcplab
from tcplab.experiments.mtcp_plus import experiment as m
from tcplab.experiments.mtcp_plus import findings as mf
from tcplab.experiments.base import against_paper
from tcplab.stats import FAILS, HOLDS, NOT_CHECKED, NOT_SEPARATED, PAPER_CONTRADICTS

SIZE = 20_000_000


@functools.cache
def run(variant: str, disconnection: str, delack: bool, seed: int = 128) -> dict:
    s = m.scenario(variant, disconnection, size="20MB", sim_time_s=600)
    res = tcplab.run(s, seed=seed, overrides={"tcp.delayed_ack": delack, "trace.series": []})
    return res.summary["flows"][0]


def response(variant: str, disconnection: str, delack: bool) -> float:
    f = run(variant, disconnection, delack)
    return f["response_time_s"] if f["completed"] else 0.0


@pytest.mark.parametrize("delack", [True, False])
@pytest.mark.parametrize("disconnection", ["5s", "10s", "30s"])
def test_mtcp_plus_is_fastest_with_disconnections(disconnection: str, delack: bool) -> None:
    mine = response("mtcp_plus", disconnection, delack)
    assert mine > 0
    for other in ("mtcp", "newreno", "sack"):
        theirs = response(other, disconnection, delack)
        # Without delayed ACK the paper finds M-TCP within 0.2 % of M-TCP+ (a tie): with 802.11
        # collisions between the AP and the station, one seed can put either first by that much.
        tie = 0.002 if (other == "mtcp" and not delack) else 0.0
        assert theirs == 0 or mine <= theirs * (1 + tie), (other, mine, theirs)


def test_only_mtcp_plus_survives_180s_disconnections_with_delayed_ack() -> None:
    # 20 MB takes ~47 s here, so the first 180 s outage ([120 s, 300 s)) would come too late:
    # start it at 20 s instead.
    def run180(variant: str) -> dict:
        s = m.scenario(variant, "180s", size="20MB", sim_time_s=600)
        s["wlans"][0]["stations"][1]["outage"] = {"intervals": [["20s", "200s"]]}
        return tcplab.run(s, seed=128, overrides={"trace.series": []}).summary["flows"][0]

    assert run180("mtcp_plus")["completed"]
    for v in ("mtcp", "newreno", "sack"):
        f = run180(v)
        assert f["aborted"] and not f["completed"], v


@pytest.mark.parametrize("disconnection", ["5s", "10s", "30s"])
def test_without_delayed_ack_mtcp_and_mtcp_plus_are_close(disconnection: str) -> None:
    a, b = response("mtcp_plus", disconnection, False), response("mtcp", disconnection, False)
    assert abs(a - b) / a < 0.05


@pytest.mark.parametrize("delack", [True, False])
@pytest.mark.parametrize("disconnection", ["5s", "10s", "30s"])
def test_mtcp_plus_retransmits_less_than_newreno(disconnection: str, delack: bool) -> None:
    # Relative, as the paper's claim: an absolute bound would pass a model that never retransmits.
    # NewReno's RTOs during outages retransmit; the agent's zero window keeps M-TCP+ from doing so.
    # The paper's 100 MB (a 20 MB download ends before the first outage at 55 s).
    def full(v: str) -> dict:
        res = tcplab.run(m.scenario(v, disconnection), seed=128, overrides={"tcp.delayed_ack": delack, "trace.series": []})
        return res.summary["flows"][0]

    nr, mine = full("newreno"), full("mtcp_plus")
    assert nr["timeout_retransmissions"] > 0
    assert mine["retransmissions"] < nr["retransmissions"], (mine["retransmissions"], nr["retransmissions"])


def test_no_fast_recovery_without_congestion() -> None:
    # Why NewReno vs SACK is checked only where a window loses segments: here none does, so the two
    # take identical steps and comparing them could not fail.
    for sc in ("none", "10s", "30s"):
        for v in ("newreno", "sack"):
            assert run(v, sc, True)["fast_recoveries"] == 0


@pytest.mark.parametrize("delack", [True, False])
def test_without_disconnections_all_variants_agree(delack: bool) -> None:
    # The paper's 100 MB download (about 0.2 s of simulation each): M-TCP's withheld byte costs a
    # fixed start-up delay that a 20 MB transfer would weigh five times as much.
    def t(v: str) -> float:
        f = tcplab.run(m.scenario(v, "none"), seed=128, overrides={"tcp.delayed_ack": delack, "trace.series": []})
        return f.summary["flows"][0]["response_time_s"]

    times = [t(v) for v in m.VARIANTS]
    assert max(times) <= 1.01 * min(times), times


@pytest.mark.parametrize("variant", m.VARIANTS)
@pytest.mark.parametrize("disconnection", ["none", "10s", "30s", "congestion"])
def test_every_byte_arrives_once_and_in_order(variant: str, disconnection: str) -> None:
    # The receiver counts only bytes delivered in sequence; exactly the file size means nothing
    # was lost, and nothing was delivered twice (a duplicate would have to extend the in-order
    # stream past the file's end, or a hole would stop it short).
    for delack in (True, False):
        f = run(variant, disconnection, delack)
        assert f["completed"] and not f["aborted"]
        assert f["bytes_delivered"] == SIZE


# ---- the finding checks: each holds on the paper's own numbers and fails on a counter-example ----

SEEDS = (1, 2, 3)


def _paper_values() -> mf.Values:
    """Tables 2–6 as replications: each published number times a small per-seed factor (the same
    for every cell of a seed, as a shared MAC backoff draw would be); 0 s means aborted."""
    vals: mf.Values = {}

    def put(v: str, sc: str, d: bool, response: float, retx: float) -> None:
        # Under congestion the paper's variants lost segments within windows (queue losses).
        recoveries = 2.0 if sc == "congestion" and v in ("newreno", "sack") else 0.0
        vals[(v, sc, d, "fast_recoveries")] = {s: recoveries for s in SEEDS}
        jit = {s: 1.0 + 0.001 * (s - 2) for s in SEEDS}
        vals[(v, sc, d, "response")] = {s: response * jit[s] for s in SEEDS}
        vals[(v, sc, d, "retx")] = {s: retx * jit[s] for s in SEEDS}
        vals[(v, sc, d, "completed")] = {s: 1.0 if response > 0 else 0.0 for s in SEEDS}

    for d in m.DELACK:
        for i, v in enumerate(m.VARIANTS):
            put(v, "none", d, m._T2[d][i], 0.0)
            put(v, "congestion", d, m._T5[d][i], m._T6[d][i])
            for j, sc in enumerate(m.DISCONNECTIONS):
                put(v, sc, d, m._T3[d][v][j], m._T4[d][v][j])
    return vals


def _verdicts(vals: mf.Values) -> dict[str, str]:
    return {f.text: f.verdict for f in mf.findings(vals)}


def _find(fragment: str, vals: mf.Values) -> str:
    (verdict,) = [v for t, v in _verdicts(vals).items() if fragment in t]
    return verdict


def _scale(vals: mf.Values, key: tuple[str, str, bool, str], factor: float) -> None:
    vals[key] = {s: x * factor for s, x in vals[key].items()}


#: The one reading the paper's own Table 3 contradicts: cuts of 0.9, 1.7, 1.7 and 1.8 % lie below
#: the printed "2%–15%".
CONTRADICTED = ("cuts the response time by 2–15 %",)


def test_every_finding_holds_on_the_papers_own_tables_but_the_contradicted_one() -> None:
    verdicts = _verdicts(_paper_values())
    assert len(verdicts) == 19
    held = {t: v for t, v in verdicts.items() if not any(c in t for c in CONTRADICTED)}
    assert set(held.values()) == {HOLDS}, held
    assert [v for t, v in verdicts.items() if any(c in t for c in CONTRADICTED)] == [FAILS]


def test_the_module_flags_where_the_paper_contradicts_itself() -> None:
    # Our numbers equal to the paper's: every finding holds, except the contradicted reading, which is
    # shown as the paper contradicting itself (not counted as holding or failing).
    fs = against_paper(mf.findings(_paper_values()), mf.findings(m.paper_values()))
    contradicted = [f for f in fs if f.verdict == PAPER_CONTRADICTS]
    assert [f.text for f in contradicted] == [t for t in _verdicts(_paper_values()) if any(c in t for c in CONTRADICTED)]
    assert "cut 0.9 ± 0.0 %" in contradicted[0].detail
    assert all(f.verdict == HOLDS and f.paper for f in fs if f not in contradicted)


def test_the_cut_range_is_checked_at_both_printed_ends() -> None:
    vals = _paper_values()
    # Every cut at 5 % (inside 2–15): holds; one case at 1 % (the old [0, 15] reading accepted it): fails.
    for d in m.DELACK:
        for sc in ("5s", "10s", "30s"):
            nr = vals[("newreno", sc, d, "response")]
            vals[("mtcp_plus", sc, d, "response")] = {k: 0.95 * x for k, x in nr.items()}
    assert _find("cuts the response time by 2–15 %", vals) == HOLDS
    nr = vals[("newreno", "10s", False, "response")]
    vals[("mtcp_plus", "10s", False, "response")] = {k: 0.99 * x for k, x in nr.items()}
    assert _find("cuts the response time by 2–15 %", vals) == FAILS
    vals[("mtcp_plus", "10s", False, "response")] = {k: 0.80 * x for k, x in nr.items()}  # 20 %: above 15
    assert _find("cuts the response time by 2–15 %", vals) == FAILS


def test_a_tie_with_seed_noise_is_a_tie_and_an_exact_tie_is_not_faster() -> None:
    vals = _paper_values()
    # M-TCP+ vs M-TCP without delayed ACK at 30 s: equal within ±0.1 s of seed noise -> the tie holds.
    vals[("mtcp_plus", "30s", False, "response")] = {1: 489.4, 2: 489.2, 3: 489.3}
    vals[("mtcp", "30s", False, "response")] = {1: 489.2, 2: 489.4, 3: 489.3}
    assert _find("lowest download response time", vals) == HOLDS
    # ... but a tie with NewReno (where the paper claims "faster") does not hold.
    vals[("mtcp_plus", "10s", True, "response")] = dict(vals[("newreno", "10s", True, "response")])
    assert _find("lowest download response time", vals) == FAILS


# One counter-example per finding: (fragment of its text, how to break the paper's numbers).
COUNTER = {
    "lowest download response time": lambda v: _scale(v, ("mtcp_plus", "10s", True, "response"), 1.2),
    "only M-TCP+ completes": lambda v: v.__setitem__(("newreno", "180s", True, "completed"), {s: 1.0 for s in SEEDS}),
    "M-TCP is faster than NewReno": lambda v: _scale(v, ("mtcp", "5s", True, "response"), 1.05),
    "M-TCP and M-TCP+ have similar response times": lambda v: _scale(v, ("mtcp", "30s", False, "response"), 1.1),
    "the four variants have similar response times": lambda v: _scale(v, ("mtcp", "none", True, "response"), 1.05),
    "Delayed ACK on is faster": lambda v: _scale(v, ("sack", "none", True, "response"), 1.2),
    "NewReno and SACK have the same": lambda v: _scale(v, ("sack", "congestion", False, "response"), 0.95),
    "lower retransmission ratio": lambda v: v.__setitem__(("mtcp_plus", "30s", False, "retx"), dict(v[("newreno", "30s", False, "retx")])),
    "retransmit 2–8 points less": lambda v: _scale(v, ("newreno", "5s", False, "retx"), 0.2),
    "Congestion raises": lambda v: v.__setitem__(("mtcp", "congestion", True, "retx"), dict(v[("mtcp", "10s", True, "retx")])),
    "M-TCP+ is faster than M-TCP, NewReno and SACK (Table 5)":
        lambda v: v.__setitem__(("mtcp_plus", "congestion", True, "response"), dict(v[("mtcp", "congestion", True, "response")])),
    "Congestion lengthens": lambda v: _scale(v, ("sack", "congestion", False, "response"), 0.5),
    "NewReno and SACK abort, with and without":
        lambda v: v.__setitem__(("sack", "180s", False, "completed"), {s: 1.0 for s in SEEDS}),
    "no segment is retransmitted": lambda v: v.__setitem__(("sack", "none", True, "retx"), {s: 0.1 for s in SEEDS}),
    "M-TCP+ and M-TCP are faster than NewReno and SACK (Fig. 5)": lambda v: _scale(v, ("mtcp", "10s", False, "response"), 1.3),
    "faster than the other three with and without": lambda v: _scale(v, ("mtcp_plus", "congestion", False, "response"), 1.1),
    "M-TCP falls further behind": lambda v: _scale(v, ("mtcp", "10s", True, "response"), 302.4 / 316.2),
    "With congestion M-TCP+ retransmits less":
        lambda v: v.__setitem__(("mtcp", "congestion", False, "retx"), dict(v[("sack", "congestion", False, "retx")])),
}


@pytest.mark.parametrize("fragment", sorted(COUNTER))
def test_each_finding_fails_on_a_counter_example(fragment: str) -> None:
    vals = _paper_values()
    assert _find(fragment, vals) == HOLDS
    COUNTER[fragment](vals)
    assert _find(fragment, vals) == FAILS


def test_a_model_that_never_retransmits_fails_the_retransmission_findings() -> None:
    vals = _paper_values()
    for k in vals:
        if k[3] == "retx":
            vals[k] = {s: 0.0 for s in vals[k]}
    for fragment in ("lower retransmission ratio", "retransmit 2–8 points less", "Congestion raises"):
        assert _find(fragment, vals) == FAILS, fragment
    # Without a fast recovery anywhere, NewReno and SACK can only agree: not checked.
    for k in vals:
        if k[3] == "fast_recoveries":
            vals[k] = {s: 0.0 for s in vals[k]}
    assert _find("NewReno and SACK have the same", vals) == NOT_CHECKED


def test_overlapping_replications_are_not_separated() -> None:
    vals = _paper_values()
    # M-TCP vs NewReno at 5 s: a 1.5 % mean gap drowned in ±10 % seed-to-seed noise.
    vals[("mtcp", "5s", True, "response")] = {1: 250.0, 2: 310.0, 3: 275.0}
    vals[("newreno", "5s", True, "response")] = {1: 300.0, 2: 255.0, 3: 285.0}
    assert _find("M-TCP is faster than NewReno", vals) == NOT_SEPARATED


def test_an_aborted_download_is_reported_not_skipped() -> None:
    vals = _paper_values()
    vals[("mtcp_plus", "30s", True, "completed")] = {s: 0.0 for s in SEEDS}
    vals[("mtcp_plus", "30s", True, "response")] = {s: 0.0 for s in SEEDS}
    (f,) = [f for f in mf.findings(vals) if "lowest download response time" in f.text]
    assert f.verdict == FAILS
    assert "M-TCP+ 30s, delayed ACK on aborted 3/3" in f.detail


def test_findings_on_a_table_not_reproduced_do_not_show_as_holding() -> None:
    fs = mf.findings(_paper_values(), not_reproduced=("Table 4",))
    on_t4 = [f for f in fs if "(Table 4)" in f.text]
    assert on_t4 and all(f.verdict == NOT_CHECKED and "not reproduced" in f.detail for f in on_t4)


@pytest.mark.parametrize("fragment", ["retransmit 2–8 points less", "Congestion raises", "lower retransmission ratio",
                                      "With congestion M-TCP+ retransmits less"])
def test_a_finding_failing_on_a_table_not_reproduced_is_not_checked_not_failed(fragment: str) -> None:
    # Issue 39: a reading resting on data the model does not reproduce is not the paper's finding either way.
    vals = _paper_values()
    COUNTER[fragment](vals)
    (plain,) = [f for f in mf.findings(vals) if fragment in f.text]
    assert plain.verdict == FAILS  # without the rule the counter-example fails
    (f,) = [f for f in mf.findings(vals, not_reproduced=m.NOT_REPRODUCED_TABLES) if fragment in f.text]
    assert f.verdict == NOT_CHECKED
    assert f.detail.startswith("it rests on Table")
    assert "not reproduced (our numbers: fails; " in f.detail  # what our numbers say is still shown
    # The claims table gives the reason beside "not checked".
    from tcplab.experiments.base import Claim, claim_verdict
    verdict, note = claim_verdict(Claim("q", "§4", "rule", finding=fragment), [f], [])
    assert verdict == NOT_CHECKED and note.endswith("not reproduced") and "rests on Table" in note


def test_a_finding_on_reproduced_tables_still_fails() -> None:
    vals = _paper_values()
    COUNTER["M-TCP is faster than NewReno"](vals)
    (f,) = [f for f in mf.findings(vals, not_reproduced=m.NOT_REPRODUCED_TABLES) if "M-TCP is faster than NewReno" in f.text]
    assert f.verdict == FAILS
