"""Student-t quantiles and replication summaries (no simulator needed)."""

from __future__ import annotations

import math

import pytest
from tcplab.stats import FAILS, HOLDS, NOT_CHECKED, NOT_SEPARATED, above, betainc, combine, summarise, t_cdf, t_ppf, within


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [
        (0.975, 1, 12.7062),
        (0.975, 2, 4.3027),
        (0.975, 9, 2.2622),
        (0.975, 30, 2.0423),
        (0.975, 120, 1.9799),
        (0.995, 5, 4.0321),
        (0.95, 4, 2.1318),
        (0.9, 3, 1.6377),
    ],
)
def test_t_quantile_matches_tables(p: float, df: int, expected: float) -> None:
    assert t_ppf(p, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_is_symmetric_and_inverts_cdf() -> None:
    assert t_ppf(0.025, 9) == pytest.approx(-t_ppf(0.975, 9))
    assert t_ppf(0.5, 7) == 0.0
    for df in (1, 3, 10, 50):
        for p in (0.6, 0.9, 0.999):
            assert t_cdf(t_ppf(p, df), df) == pytest.approx(p, abs=1e-10)


def test_large_df_approaches_normal() -> None:
    assert t_ppf(0.975, 1e7) == pytest.approx(1.959964, abs=1e-5)


def test_incomplete_beta_known_values() -> None:
    assert betainc(1, 1, 0.3) == pytest.approx(0.3)  # uniform CDF
    assert betainc(2, 3, 0.4) == pytest.approx(0.5248)  # 1 - sum of binomial terms
    assert betainc(0.5, 0.5, 0.5) == pytest.approx(0.5)


def test_summarise() -> None:
    s = summarise([1.0, 2.0, 3.0, 4.0])
    assert (s.mean, s.n) == (2.5, 4)
    assert s.std == pytest.approx(math.sqrt(5 / 3))
    assert s.ci95 == pytest.approx(3.182446 * math.sqrt(5 / 3) / 2, rel=1e-6)


def test_summarise_degenerate() -> None:
    one = summarise([5.0])
    assert one.mean == 5.0 and one.n == 1 and math.isnan(one.ci95)
    none = summarise([])
    assert none.n == 0 and math.isnan(none.mean)
    assert summarise([2.0, 2.0]).ci95 == 0.0


# ---- the verdict rules the findings use ----

def test_above_decides_only_when_the_interval_excludes_the_threshold() -> None:
    assert above(summarise([1.0, 1.1, 0.9])) == HOLDS
    assert above(summarise([-1.0, -1.1, -0.9])) == FAILS
    assert above(summarise([0.0, 0.0, 0.0])) == FAILS  # equal is not greater
    assert above(summarise([0.0, 0.0, 0.0]), ties=True) == HOLDS
    assert above(summarise([-1.0, 1.2, 0.1])) == NOT_SEPARATED
    assert above(summarise([5.0])) == NOT_SEPARATED  # one replication has no interval
    assert above(summarise([])) == NOT_CHECKED


def test_within_a_band() -> None:
    assert within(summarise([1.0, 1.1, 0.9]), 0.0, 2.0) == HOLDS
    assert within(summarise([3.0, 3.1, 2.9]), 0.0, 2.0) == FAILS
    assert within(summarise([1.0, 3.0, 2.0]), 0.0, 2.0) == NOT_SEPARATED


def test_combine_fails_on_any_failure_and_holds_only_when_all_checked_hold() -> None:
    assert combine([HOLDS, HOLDS, NOT_CHECKED]) == HOLDS
    assert combine([HOLDS, NOT_SEPARATED]) == NOT_SEPARATED
    assert combine([HOLDS, NOT_SEPARATED, FAILS]) == FAILS
    assert combine([NOT_CHECKED]) == NOT_CHECKED
