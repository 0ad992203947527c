"""Student-t quantiles and replication summaries (no simulator needed)."""

from __future__ import annotations

import math

import pytest
from tcplab.stats import (
    DIRECTION_ONLY,
    FAILS,
    HOLDS,
    NOT_CHECKED,
    NOT_REPRODUCED,
    NOT_SEPARATED,
    REPRODUCED,
    above,
    all_or_none,
    at_least,
    betainc,
    combine,
    equivalent,
    exact,
    gain_pct_by_seed,
    magnitude,
    never,
    paired_diff,
    paired_gain_pct,
    summarise,
    t_cdf,
    t_ppf,
    within,
)


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
    assert above(exact(0.0)) == FAILS  # a published tie does not "outperform" either
    assert above(summarise([-1.0, 1.2, 0.1])) == NOT_SEPARATED
    assert above(summarise([5.0])) == NOT_SEPARATED  # one replication has no interval
    assert above(summarise([])) == NOT_CHECKED


def test_paired_comparisons_pair_by_seed() -> None:
    # Seeds 1 and 3 are shared; seed 2 (only in a) and seed 4 (only in b) are left out, and the pairs
    # follow the seed whatever the dicts' order.
    a, b = {3: 13.0, 1: 11.0, 2: 99.0}, {1: 10.0, 4: 99.0, 3: 10.0}
    assert paired_diff(a, b) == summarise([1.0, 3.0])
    assert gain_pct_by_seed(a, b) == pytest.approx({1: 10.0, 3: 30.0})
    assert gain_pct_by_seed({1: 5.0, 2: 6.0}, {1: 0.0, 2: 3.0}) == {2: 100.0}  # no gain over 0
    assert paired_gain_pct(a, b) == summarise([10.0, 30.0])


def test_pm_prints_mean_and_half_width() -> None:
    s = summarise([1.0, 2.0, 3.0])  # mean 2, half-width t(0.975, 2) / sqrt(3) = 2.4841
    assert s.pm(2) == "+2.00 ± 2.48"
    assert s.pm(1, signed=False) == "2.0 ± 2.5"
    assert summarise([-4.0, -2.0]).pm(0) == "-3 ± 13"


def test_counted_rules() -> None:
    assert never(0, 4) == HOLDS and never(1, 4) == FAILS and never(0, 0) == NOT_CHECKED
    assert all_or_none(4, 4) == HOLDS and all_or_none(0, 4) == FAILS
    assert all_or_none(2, 4) == NOT_SEPARATED and all_or_none(0, 0) == NOT_CHECKED


def test_within_a_band() -> None:
    assert within(summarise([1.0, 1.1, 0.9]), 0.0, 2.0) == HOLDS
    assert within(summarise([3.0, 3.1, 2.9]), 0.0, 2.0) == FAILS
    assert within(summarise([1.0, 3.0, 2.0]), 0.0, 2.0) == NOT_SEPARATED


def test_a_range_is_checked_at_both_printed_ends() -> None:
    # "2–15 %": a 1 % cut is below the printed floor (the old reading [0, 15] accepted it) ...
    assert within(summarise([0.9, 1.0, 1.1]), 2.0, 15.0) == FAILS
    assert within(exact(1.0), 2.0, 15.0) == FAILS
    # ... and "25–50 %" has a ceiling: 60 % is not in it.
    assert within(summarise([59.0, 60.0, 61.0]), 25.0, 50.0) == FAILS
    assert within(summarise([39.0, 40.0, 41.0]), 25.0, 50.0) == HOLDS
    with pytest.raises(ValueError):
        within(exact(1.0), 3.0, 2.0)


def test_equivalence_is_a_two_one_sided_test_with_a_stated_margin() -> None:
    # A real tie with seed noise: "above" cannot decide it, TOST calls it a tie.
    noisy_tie = summarise([-0.2, 0.1, 0.15, -0.05, 0.0])
    assert above(noisy_tie) == NOT_SEPARATED
    assert equivalent(noisy_tie, 1.0) == HOLDS
    # The same data with a margin narrower than the noise: not decided, never "holds".
    assert equivalent(noisy_tie, 0.05) == NOT_SEPARATED
    # A clear difference beyond the margin fails; one inside the margin holds.
    assert equivalent(summarise([3.0, 3.1, 2.9]), 1.0) == FAILS
    assert equivalent(summarise([0.5, 0.6, 0.4]), 1.0) == HOLDS
    # Straddling the margin's edge is not separated.
    assert equivalent(summarise([0.5, 1.5, 1.0]), 1.0) == NOT_SEPARATED
    # Around a centre other than 0.
    assert equivalent(summarise([9.9, 10.1, 10.0]), 0.5, centre=10.0) == HOLDS
    # Published numbers as data: exact values decide by the mean alone.
    assert equivalent(exact(0.9), 1.0) == HOLDS and equivalent(exact(1.1), 1.0) == FAILS
    # One replication has no interval.
    assert equivalent(summarise([0.0]), 1.0) == NOT_SEPARATED
    with pytest.raises(ValueError):
        equivalent(exact(0.0), 0.0)


def test_at_least_needs_better_or_a_tost_tie() -> None:
    assert at_least(summarise([1.0, 1.1, 0.9]), 0.1) == HOLDS  # better
    assert at_least(summarise([-0.02, 0.01, 0.0, 0.01]), 0.1) == HOLDS  # a tie within the margin
    assert at_least(summarise([-1.0, -1.1, -0.9]), 0.1) == FAILS  # worse by more than a tie
    assert at_least(summarise([-0.2, 0.3, -0.1]), 0.1) == NOT_SEPARATED


def test_magnitude_has_three_verdicts() -> None:
    ours = summarise([20.0, 22.0, 21.0, 23.0])  # CI ~ [19.4, 23.6]
    assert magnitude(ours, 21.6) == REPRODUCED
    # +0.5 % keeps the sign of +21.6 % but not its value: direction only, not "reproduced".
    assert magnitude(summarise([0.4, 0.5, 0.6]), 21.6) == DIRECTION_ONLY
    # A CI straddling 0, or the opposite sign: not reproduced.
    assert magnitude(summarise([-1.0, 1.0, 0.5]), 21.6) == NOT_REPRODUCED
    assert magnitude(summarise([-5.0, -6.0, -4.0]), 21.6) == NOT_REPRODUCED
    assert magnitude(summarise([-5.0, -6.0, -4.0]), -20.0) == DIRECTION_ONLY
    # A stated relative margin widens "reproduced" to mean within margin · |published|.
    assert magnitude(summarise([17.0, 17.1, 16.9]), 21.6) == DIRECTION_ONLY
    assert magnitude(summarise([17.0, 17.1, 16.9]), 21.6, rel_margin=0.25) == REPRODUCED
    assert magnitude(exact(21.6), 21.6) == REPRODUCED
    # A value printed to 0.1 stands for its rounding interval.
    assert magnitude(exact(100 * 7688 / 6361 - 100), 20.9) == DIRECTION_ONLY
    assert magnitude(exact(100 * 7688 / 6361 - 100), 20.9, resolution=0.1) == REPRODUCED
    assert magnitude(summarise([5.0]), 21.6) == NOT_SEPARATED
    assert magnitude(summarise([]), 21.6) == NOT_CHECKED


def test_combine_fails_on_any_failure_and_holds_only_when_all_checked_hold() -> None:
    assert combine([HOLDS, HOLDS, NOT_CHECKED]) == HOLDS
    assert combine([HOLDS, NOT_SEPARATED]) == NOT_SEPARATED
    assert combine([HOLDS, NOT_SEPARATED, FAILS]) == FAILS
    assert combine([NOT_CHECKED]) == NOT_CHECKED


def test_combine_magnitudes_and_refuse_mixing() -> None:
    assert combine([REPRODUCED, REPRODUCED, NOT_CHECKED]) == REPRODUCED
    assert combine([REPRODUCED, DIRECTION_ONLY]) == DIRECTION_ONLY
    assert combine([REPRODUCED, NOT_REPRODUCED]) == NOT_REPRODUCED
    assert combine([REPRODUCED, NOT_SEPARATED]) == NOT_SEPARATED
    with pytest.raises(ValueError):
        combine([HOLDS, REPRODUCED])
    with pytest.raises(ValueError):
        combine(["maybe"])


# ---- the cause rule: a switch "accounts for" a deviation only statistically (issue 39)

from tcplab.stats import ACCOUNTS, CAUSE_NOT_FOUND, MOVES_TOWARD, cause_verdict, from_cell, interval  # noqa: E402


def test_from_cell_recovers_the_summary_a_cell_was_made_from():
    s = summarise([20.0, 21.0, 23.5, 22.0])
    back = from_cell(s.mean, s.ci95, s.n)
    assert back.mean == s.mean and back.n == s.n and abs(back.std - s.std) < 1e-9
    assert interval(back, 0.90) == pytest.approx(interval(s, 0.90))
    assert from_cell(None, None, 0).n == 0 and math.isnan(from_cell(3.0, None, 1).ci95)


def test_a_setting_accounts_for_the_paper_only_with_the_value_in_its_ci_and_equivalence_shown():
    ours = summarise([15.5, 15.6, 15.7])
    # In the CI and a narrow interval inside ±10 %: accounts for it.
    assert cause_verdict(summarise([21.0, 21.3, 21.6]), 21.3, ours) == ACCOUNTS


def test_a_mean_match_whose_ci_excludes_the_paper_does_not_account_for_it():
    ours = summarise([15.5, 15.6, 15.7])
    tight = summarise([22.30, 22.31, 22.32])  # 4.7 % off 21.3: "within 10 %" by the old mean-only rule
    assert abs(tight.mean - 21.3) <= 0.1 * 21.3
    assert cause_verdict(tight, 21.3, ours) == MOVES_TOWARD  # nearer than ours, apart from it, but not accounting
    # Nearer, but not apart from ours beyond the noise: cause not found.
    assert cause_verdict(tight, 21.3, summarise([10.0, 22.3, 30.0])) == CAUSE_NOT_FOUND


def test_a_ci_so_wide_it_holds_anything_does_not_account_for_the_paper():
    # ATCP's static-loss match: 21.7 ± 12 s against 21.3 s holds the value only by being uninformative.
    wide = summarise([10.0, 33.4, 21.7])
    lo, hi = interval(wide)
    assert lo < 21.3 < hi and abs(wide.mean - 21.3) <= 0.1 * 21.3
    assert cause_verdict(wide, 21.3, summarise([15.5, 15.6, 15.7])) == CAUSE_NOT_FOUND


def test_the_print_resolution_widens_the_interval_and_one_replication_decides_nothing():
    s = summarise([5.36, 5.37, 5.38])  # 95 % CI 5.345..5.395; the paper prints 5.3, i.e. 5.25..5.35
    assert cause_verdict(s, 5.3, None) == CAUSE_NOT_FOUND
    assert cause_verdict(s, 5.3, None, resolution=0.1) == ACCOUNTS
    assert cause_verdict(summarise([5.3]), 5.3, summarise([1.0, 1.1])) == CAUSE_NOT_FOUND
    # Farther from the paper than ours: never "toward".
    assert cause_verdict(summarise([1.0, 1.1, 1.2]), 5.3, summarise([3.0, 3.1, 3.2])) == CAUSE_NOT_FOUND
