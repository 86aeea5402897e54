"""Student's t of stats/tdist.py against scipy.stats.t, at every number of degrees of
freedom a comparison can have: a few seeds to billions of items (the expansion in
1 / df past EXPANDED_DF; the continued fraction had lost every digit by 10^15)."""

from __future__ import annotations

import pytest

from pairboot.stats.tdist import EXPANDED_DF, t_quantile, t_sf

stats = pytest.importorskip("scipy.stats")

DFS = (1.0, 2.5, 7.0, 30.0, 1e3, EXPANDED_DF, EXPANDED_DF * 1.0001, 1e5, 1e8, 1e12, 1e15,
       1e20, 1e300)


@pytest.mark.parametrize("df", DFS)
def test_the_tail_is_scipys(df):
    for t in (-3.0, -0.5, 0.0, 0.5, 1.96, 5.0, 8.0, 12.0):
        want = stats.t.sf(t, df)
        assert t_sf(t, df) == pytest.approx(want, rel=1e-10, abs=0.0), t


@pytest.mark.parametrize("df", DFS)
def test_the_quantile_is_scipys(df):
    far = (1e-300, 1e-30) if df >= 1e3 else ()  # (a few df: a quantile beyond 1e150)
    for p in (*far, 1e-12, 1e-6, 0.025, 0.2, 0.8, 0.975, 1 - 1e-6, 1 - 1e-12):
        assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10), p
    assert t_quantile(0.5, df) == 0.0


def test_far_in_the_tail_of_a_large_df_the_continued_fraction_answers():
    """Past |t| = df^(1/4) the expansion is not used (the continued fraction's tail is
    within 1e-10 there, or 0 as scipy's is: never a NaN)."""
    for df in (2e4, 1e5, 1e8, 1e12):
        for k in (1.01, 2.0, 4.0):
            t = k * df ** 0.25
            assert t_sf(t, df) == pytest.approx(stats.t.sf(t, df), rel=1e-10, abs=0.0)
