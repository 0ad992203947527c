"""The "ns-2.35, same setup" column of the ns-2 papers' reproductions (001 ack-holding, 002 tcp-pgy, 004
adaptive-tcp): it appears from ns-2 runs stored with the run, the baseline findings are decided on both
simulators, the report shows published | tcplab | ns-2.35 and says which published numbers ns-2 does not
give, and without ``ns`` the column says so and nothing fails.  Fixture stores, except one small real
ns-2 run (2 seeds, 10 s) that CI runs (``make test`` installs ns-2)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tcplab.experiments import ns2_side
from tcplab.experiments.ack_holding import experiment as ah
from tcplab.experiments.adaptive_tcp import experiment as at
from tcplab.experiments.adaptive_tcp import findings as at_findings
from tcplab.experiments.adaptive_tcp import points as at_points
from tcplab.experiments.base import Claim, TableCell, claim_verdict
from tcplab.experiments.tcp_pgy import experiment as pg
from tcplab.experiments.tcp_pgy import findings as pg_findings
from tcplab.experiments.tcp_pgy import points as pg_points
from tcplab.report import Table, _ns2_blocks, claim_rows
from tcplab.stats import FAILS, HOLDS
from tcplab.store import RunRecord, Store


def _ns2_run(store: Store, sweep: str, cell: dict, seed: int, flows: list[dict]) -> None:
    """An ns-2 run as ns2_side.run stores it."""
    full = [{"name": f"f{i}", "bytes_delivered": 0, "goodput_bps": 0.0, "timeouts": 0, "retransmissions": 0,
             "spurious_retransmissions": 0, "data_lost": 0, "acks_lost": 0} | f for i, f in enumerate(flows)]
    store.record(RunRecord(f"ns2-{sweep}-{seed}-{json.dumps(cell, sort_keys=True)}", sweep,
                           json.dumps(cell, sort_keys=True, separators=(",", ":")), "tcl", seed, ns2_side.NS2_VERSION,
                           "ok", None, {"simulator": ns2_side.NS2_VERSION, "flows": full}, None, None))


@pytest.fixture
def installed(monkeypatch):
    monkeypatch.setattr(ns2_side, "ns_installed", lambda: True)


# ------------------------------------------------------------------------------------- ack-holding


def test_ack_holding_table_i_gains_the_ns2_column_from_stored_runs(tmp_path, installed):
    with Store(tmp_path / "s.db") as store:
        for job in ah.ns2_jobs():
            for seed, packets in ((1, 1200), (2, 1300), (3, 1250)):
                _ns2_run(store, ah.ns2_sweep_name(True), job.cell, seed, [{"bytes_delivered": packets * 1000}])
        cells, _ = ah.analyse(store, True)
    ns2 = [c for c in cells if ns2_side.is_ns2(c) and c.table == ah.TABLE]
    assert [c.column for c in ns2] == [f"TCP Reno{ns2_side.SEP}{ns2_side.COLUMN}"] * 2
    assert [c.mean for c in ns2] == [1250.0, 1250.0] and all(c.n == 3 and c.published is None for c in ns2)
    header, rows = ns2_side.side_by_side(cells)
    two = next(r for r in rows if r[0] == "Table I" and r[1] == ah.FADE_ROWS["two"])
    assert header[3:6] == ["published", "tcplab", ns2_side.COLUMN]
    assert two[3] == "503" and two[5].startswith("1250 ± ") and two[6] == "does not give it"
    # The report says which published number ns-2 itself does not give.
    text = _text(_ns2_blocks(cells))
    assert "Table I, Two intervals of 10 s each, TCP Reno: paper 503, ns-2.35 1250" in text
    assert "ns-2.35 itself does not give the paper's number" in text


def test_ack_holding_ns2_cell_is_the_reno_cell_with_the_seeds_fades():
    # The scenario ns-2 runs: tcplab's plain-Reno cell of that seed (same TCP, same shifted fades), less the
    # holder's link signals and the series.
    for f in ah.FADES:
        s = ah.reno_scenario(f, 2)
        assert "agents" not in s and "trace" not in s and "signals" not in s["wlans"][0]
        assert s["tcp"] == ah.scenario()["tcp"] and s["tcp"]["profile"] == "ns2"
        shifted = ah.shifted(ah.FADES[f], ah.fade_offset(2))
        assert s["wlans"][0]["stations"][1]["outage"]["intervals"] == shifted
        text = ns2_side.script(s).text
        assert "Agent/TCP/Reno" in text and "timestamps_ true" in text
        assert f'$ns_ at {float(shifted[0][0][:-1]):g} "$em_(1,in) set rate_ 1"' in text


# ------------------------------------------------------------------------------------- tcp-pgy


def _pgy_store(store: Store, ack_over_data: float) -> None:
    for p in pg.ns2_points(True):
        flows = p.flows
        for seed in (1, 2):
            data = 100 + 10 * seed
            per_flow = {"goodput_bps": 80e3 + seed, "spurious_retransmissions": 5, "timeouts": 4 + p.flows + seed,
                        "data_lost": data, "acks_lost": int(data * ack_over_data) + seed}
            _ns2_run(store, pg_points.ns2_sweep_name(pg.prefix(True), p), pg_points.ns2_job(p).cell, seed,
                     [per_flow] * flows)


def test_tcp_pgy_baseline_finding_is_decided_on_both_simulators(tmp_path, installed):
    text = "Beyond 10 hops more ACK than DATA segments are lost (Fig. 1(a), NewReno)"
    for factor, verdict in ((1.3, HOLDS), (0.5, FAILS)):
        with Store(tmp_path / f"s{factor}.db") as store:
            _pgy_store(store, factor)
            cells, found = pg.analyse(store, True)
        by = {f.text: f for f in found}
        theirs = by[ns2_side.FINDING_PREFIX + text]
        assert theirs.verdict == verdict, theirs.detail
        assert "14 hops: ACK − DATA lost" in theirs.detail
        # tcplab's own verdict on the same claim stays, right before ns-2's.
        i = [f.text for f in found].index(text)
        assert found[i + 1] is theirs
        # The paper's claim is decided by tcplab's finding only (the ns-2 one is no second match).
        claim = Claim("more ACKs than DATA", "§III-A", "rule", finding="Beyond 10 hops more ACK")
        assert claim_verdict(claim, found, cells)[1].startswith(f"finding: {text}")
        claim_rows(pg, found, cells)


def _tcplab_run(store: Store, sweep: str, cell: dict, seed: int, kbps: float) -> None:
    flow = {"goodput_bps": kbps * 1e3, "spurious_retransmissions": 1, "timeouts": 1, "fast_retransmissions": 1,
            "data_lost": 1, "acks_lost": 1, "acks_learned": 0, "early_fast_retransmits": 0}
    store.record(RunRecord(f"t-{sweep}-{seed}-{json.dumps(cell, sort_keys=True)}", sweep,
                           json.dumps(cell, sort_keys=True), "{}", seed, "test", "ok", None, {"flows": [flow]}, None,
                           None))


def test_tcp_pgy_tables_gain_newreno_ns2_cells(tmp_path, installed):
    with Store(tmp_path / "s.db") as store:
        _pgy_store(store, 1.3)
        # tcplab's runs of the 7-hop string and the 6-flow grid (the ns-2 cells sit beside their cells).
        for p in (pg.string_points(True)[1], pg.grid_points(True)[1]):
            for c in pg_points.sc.variant_cells(p.variants):
                for seed in (1, 2):
                    _tcplab_run(store, p.name(pg.prefix(True)), c, seed, 100.0)
        cells, _ = pg.analyse(store, True)
    ns2 = {(c.table, c.row, c.column.split(ns2_side.SEP)[0]): c for c in cells if ns2_side.is_ns2(c)}
    assert ns2[(pg.T1A, "14 hops", "DATA lost")].mean == 115.0
    assert ns2[(pg.T1A, "14 hops", "ACK lost")].mean == pytest.approx(151.0)
    assert ns2[(pg.T1B, "3 flows", "DATA lost")].mean == 3 * 115.0
    assert ns2[(pg.T6, "7 hops", "NewReno")].mean == pytest.approx(80.0015)
    assert ns2[(pg.T10, "6 flows", "NewReno")].mean == pytest.approx(6 * 80.0015)
    # Only NewReno: ns-2.35 has no TCP-pgy.
    assert not any(k[2] != "NewReno" for k in ns2 if k[0] in (pg.T6, pg.T7, pg.T10, pg.T11))


def test_tcp_pgy_ns2_scenario_is_shipped_aodv_and_newreno():
    p = pg.string_points(True)[0]
    s = pg_points.ns2_scenario(p, 1)
    assert s["wlans"][0]["routing"] == {"protocol": "aodv", "preset": "ns2"}
    assert s["tcp"] == {"profile": "ns2", "variant": "newreno"}
    text = ns2_side.script(s).text
    assert "Agent/TCP/Newreno" in text and "-adhocRouting AODV" in text
    # With only the profile set, ns-2 runs its own Agent/TCP defaults: no variable written.
    assert "window_" not in text and "tcpTick_" not in text


def test_baseline_findings_are_only_newreno_ones():
    runs = {h: {"newreno": {s: {"kbps": 100.0, "spurious": 1, "timeouts": 3, "data_lost": 50 + s, "acks_lost": 80 + s}
                            for s in (1, 2, 3)}} for h in (4, 14)}
    found = pg_findings.baseline_findings(runs, {}, {})
    assert {f.text.removeprefix(ns2_side.FINDING_PREFIX) for f in found} <= set(pg_findings.BASELINE)
    assert all(f.text.startswith(ns2_side.FINDING_PREFIX) for f in found)
    beyond = next(f for f in found if "Beyond 10 hops" in f.text)
    assert beyond.verdict == HOLDS


# ------------------------------------------------------------------------------------- adaptive-tcp


def test_adaptive_tcp_ns2_phy_table_pairs_tcplab_and_ns2(tmp_path, installed):
    with Store(tmp_path / "s.db") as store:
        for p in at.ns2_points(True):
            for v, c in zip(at.NS2_SENDERS, at.variant_cells(at.NS2_SENDERS)):
                for seed in (1, 2):
                    _ns2_run(store, at.ns2_sweep_name(True, p), c, seed,
                             [{"goodput_bps": (4.0e6 if v == "westwood" else 3.0e6) + 1e4 * seed}])
        cells, found = at.analyse(store, True)
    pairs = [(o, t) for o, t in ns2_side.pairs(cells) if o.table == at.TN]
    assert [(o.row, o.column) for o, _ in pairs] == [("FER 0 %", "NewReno"), ("FER 0 %", "Westwood+"),
                                                     ("FER 1 %", "NewReno"), ("FER 1 %", "Westwood+")]
    assert [t.mean for _, t in pairs] == pytest.approx([3.015, 4.015] * 2)
    # The paper's 5.99 Mb/s at 0 % is outside ns-2's interval: said so.
    assert any("FER 0 %, NewReno: paper 5.99, ns-2.35 3.015" in s for s in ns2_side.not_given(cells))
    # The baseline's order (Westwood+ > NewReno at FER > 0) decided on ns-2.35's runs: +1 Mb/s in every seed.
    theirs = next(f for f in found if f.text == ns2_side.FINDING_PREFIX + at_findings.BASELINE_ORDER)
    assert theirs.verdict == HOLDS and "FER 1 %: Westwood+ − NewReno = +1.00" in theirs.detail
    # tcplab's verdict on the same claim is there too (no tcplab runs in this store: nothing decided).
    assert any(f.text == at_findings.BASELINE_ORDER for f in found)


def test_adaptive_tcp_ns2_scenario_translates_with_the_senders_ns2_has():
    p = at.ns2_points(True)[1]
    for v, sender in (("newreno", "Agent/TCP/Newreno"), ("westwood", "Agent/TCP/Linux")):
        s = at_points.ns2_scenario(p, v)
        assert s["wlans"][0]["phy"] == "ns2_dsss" and s["wlans"][0]["rate"] == "11Mbps"
        assert s["wlans"][0]["stations"][1]["loss"] == {"model": "bernoulli", "p": 0.01}
        text = ns2_side.script(s).text
        assert sender in text and "window_ 1000" in text
        if v == "westwood":
            assert "westwood" in text


# ------------------------------------------------------------------------------------- not installed


def test_without_ns_nothing_runs_and_the_column_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(ns2_side, "ns_installed", lambda: False)
    with Store(tmp_path / "s.db") as store:
        assert ah.external_runs(store, True) == 0
        assert pg.external_runs(store, True) == 0
        assert at.external_runs(store, True) == 0
        assert store.runs().height == 0
        cells, _ = ah.analyse(store, True)
    ns2 = [c for c in cells if ns2_side.is_ns2(c) and c.table == ah.TABLE]
    assert ns2 and all(c.column.endswith(ns2_side.NOT_INSTALLED) and c.mean is None for c in ns2)
    _, rows = ns2_side.side_by_side(cells)
    assert rows and all(r[6] == ns2_side.NOT_INSTALLED for r in rows if r[0] == "Table I")
    assert "none" in _text(_ns2_blocks(cells)).split("does not give:")[-1]


def test_a_failed_ns_run_is_stored_as_failed_and_not_read(tmp_path, installed, monkeypatch):
    from tcplab.validate.ns2 import NsError

    def boom(*a, **k):
        raise NsError("ns failed on seed 1")

    monkeypatch.setattr(ns2_side, "run_seed", boom)
    with Store(tmp_path / "s.db") as store:
        assert ns2_side.run(store, "x/ns2", ah.ns2_jobs()[:1], [1, 2]) == 0
        assert set(store.runs("x/ns2")["status"]) == {"failed"}
        assert ns2_side.runs(store, "x/ns2") == []


def _text(blocks) -> str:
    return "\n".join(" ".join(" ".join(r) for r in b.rows) if isinstance(b, Table) else str(getattr(b, "text", ""))
                     for b in blocks)


# ------------------------------------------------------------------------------------- real ns-2


@pytest.mark.skipif(shutil.which("ns") is None and not os.environ.get("CI"), reason="ns-2.35 is installed by `make test`")
def test_a_real_ns2_cell_is_stored_and_resumed(tmp_path):
    """A 2-seed, 10 s cell of tcp-pgy's 4-hop string in real ns-2.35: stored with ns-2's counters, read back
    as the NewReno column, and a second run resumes from the store."""
    p = pg_points.Point("string", hops=4, variants=("newreno",), duration="10s")
    with Store(tmp_path / "s.db") as store:
        assert ns2_side.run(store, "t/ns2", [pg_points.ns2_job(p)], [1, 2]) == 2
        runs = pg_points.ns2_runs(store, "t/ns2")["newreno"]
        assert sorted(runs) == [1, 2]
        for seed, r in runs.items():
            assert r["kbps"] > 0, r
        assert all(s["simulator"] == "ns-2.35" and s["flows"][0]["bytes_delivered"] > 0
                   for _, _, s in ns2_side.runs(store, "t/ns2"))
        assert ns2_side.run(store, "t/ns2", [pg_points.ns2_job(p)], [1, 2]) == 0
