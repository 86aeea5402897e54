"""What a margin's hypothesis tests and how its answer is read, unit by unit.

:mod:`pairboot.stats.hypotheses` is pure: ``nulls`` (the one-sided tests of a hypothesis
and their boundaries), ``read_test`` (which interval and which p-values it asks for),
``verdict_of`` (what an interval shows), ``half_width`` and ``detectable``.  Each is
checked against the definitions written out here by hand: every verdict on both sides of
every boundary (the boundary itself included), lower is better, a margin of 0, NaN
ends.  :func:`pairboot.options.hypothesis_sides` refuses what cannot be tested, each refusal an
InputError naming its option.

Then the p-value of a boundary ``c`` (``intervals.p_value(..., null=c)``), the one piece
of :mod:`pairboot.stats.intervals` the margins added: it is the p-value of 0 for the
bootstrap shifted by ``c`` (exact identity up to the rounding of the shift), and it
inverts the interval, ``p < a`` exactly when :func:`~pairboot.stats.intervals.bounds` at
``1 - a`` excludes ``c``, as tests/comparisons/test_alternative.py checks for ``c = 0``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pairboot
from pairboot import options
from pairboot.errors import InputError
from pairboot.options import HYPOTHESES
from pairboot.stats.hypotheses import (
    SHOWN,
    VERDICTS,
    claim_boundary,
    claim_tests,
    detectable,
    half_width,
    interval_alpha,
    nulls,
    read_test,
    verdict_of,
)
from pairboot.stats.intervals import Bootstrap, bounds, p_value

INF, NAN = math.inf, math.nan
sides_of = options.hypothesis_sides  # (not imported by its name: pytest would collect it)
MARGIN_HYPOTHESES = ("non-inferiority", "superiority", "equivalence")


# --- nulls ------------------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_a_difference_is_tested_against_zero_on_its_sides(alternative):
    for margin in (None, 0.0, 0.3):  # (a difference's margin decides nothing)
        assert nulls("difference", margin, alternative) == ((alternative, 0.0),)
        assert nulls("difference", margin, alternative, True) == ((alternative, 0.0),)


@pytest.mark.parametrize(("hypothesis", "lower_is_better", "expected"), [
    # H0 B - A <= -d, rejected on the greater side
    ("non-inferiority", False, (("greater", -0.25),)),
    # lower is better: H0 B - A >= d, rejected on the less side
    ("non-inferiority", True, (("less", 0.25),)),
    # H0 B - A <= d
    ("superiority", False, (("greater", 0.25),)),
    # lower is better: H0 B - A >= -d
    ("superiority", True, (("less", -0.25),)),
    # TOST: H0 B - A <= -d and H0 B - A >= d, whatever the direction of "better"
    ("equivalence", False, (("greater", -0.25), ("less", 0.25))),
    ("equivalence", True, (("greater", -0.25), ("less", 0.25))),
])
def test_the_nulls_of_a_margin(hypothesis, lower_is_better, expected):
    got = nulls(hypothesis, 0.25, "two-sided", lower_is_better)
    assert got == expected
    # the sides come from the hypothesis, not from `alternative` (hypothesis_sides checked it)
    assert nulls(hypothesis, 0.25, "greater", lower_is_better) == expected


def test_a_margin_of_zero_is_the_boundary_zero():
    assert nulls("non-inferiority", 0.0, "two-sided") == (("greater", 0.0),)
    assert nulls("superiority", 0.0, "two-sided", True) == (("less", 0.0),)
    (_, b), = nulls("non-inferiority", 0.0, "two-sided")
    assert math.copysign(1.0, b) in (1.0, -1.0)  # (-0.0 is fine: it compares equal to 0)


# --- read_test --------------------------------------------------------------------------------


class Recorder:
    """Fake interval and p-value functions that remember how they were asked."""

    def __init__(self, interval=(-0.1, 0.2), p=None):
        self.interval_calls, self.p_calls = [], []
        self.interval = interval
        self.p = p or {}

    def interval_at(self, alpha, sides):
        self.interval_calls.append((alpha, sides))
        return self.interval

    def p_at(self, sides, boundary):
        self.p_calls.append((sides, boundary))
        return self.p.get((sides, boundary), 0.5)


@pytest.mark.parametrize("lower_is_better", [False, True])
@pytest.mark.parametrize("hypothesis", ["non-inferiority", "superiority"])
def test_a_one_sided_margin_reads_its_side_at_the_level(hypothesis, lower_is_better):
    rec = Recorder(interval=(-0.05, INF), p={})
    ((side, boundary),) = nulls(hypothesis, 0.1, "two-sided", lower_is_better)
    rec.p[(side, boundary)] = 0.0123
    interval, p, parts = read_test(hypothesis, 0.1, side, 0.05, rec.interval_at, rec.p_at,
                                   lower_is_better)
    assert rec.interval_calls == [(0.05, side)]  # the level's own alpha, one-sided
    assert rec.p_calls == [(side, boundary)]
    assert interval == (-0.05, INF) and p == 0.0123 and parts is None


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_a_difference_reads_its_alternative_against_zero(alternative):
    rec = Recorder(p={(alternative, 0.0): 0.2})
    interval, p, parts = read_test("difference", None, alternative, 0.1, rec.interval_at,
                                   rec.p_at)
    assert rec.interval_calls == [(0.1, alternative)] and rec.p_calls == [(alternative, 0.0)]
    assert (interval, p, parts) == ((-0.1, 0.2), 0.2, None)


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_tost_reads_the_two_sided_interval_at_twice_alpha(lower_is_better):
    rec = Recorder(p={("greater", -0.1): 0.03, ("less", 0.1): 0.07})
    interval, p, parts = read_test("equivalence", 0.1, "two-sided", 0.05, rec.interval_at,
                                   rec.p_at, lower_is_better)
    assert rec.interval_calls == [(0.1, "two-sided")]
    # lower boundary first, then upper; the p-value is the larger
    assert rec.p_calls == [("greater", -0.1), ("less", 0.1)]
    assert parts == (0.03, 0.07) and p == 0.07
    # the other way round too: max, not "the second"
    rec = Recorder(p={("greater", -0.1): 0.09, ("less", 0.1): 0.001})
    _, p, parts = read_test("equivalence", 0.1, "two-sided", 0.05, rec.interval_at, rec.p_at)
    assert parts == (0.09, 0.001) and p == 0.09


def test_tost_beyond_half_reads_the_whole_line_and_nan_parts_give_nan():
    rec = Recorder(p={("greater", -0.1): NAN, ("less", 0.1): 0.01})
    _, p, parts = read_test("equivalence", 0.1, "two-sided", 0.6, rec.interval_at, rec.p_at)
    assert rec.interval_calls == [(1.0, "two-sided")]  # min(1, 2 alpha)
    assert math.isnan(p) and math.isnan(parts[0]) and parts[1] == 0.01
    # (max() would have given 0.01 or NaN by the order of its arguments)
    rec = Recorder(p={("greater", -0.1): 0.01, ("less", 0.1): NAN})
    _, p, _ = read_test("equivalence", 0.1, "two-sided", 0.05, rec.interval_at, rec.p_at)
    assert math.isnan(p)
    assert interval_alpha("equivalence", 0.05) == 0.1
    assert interval_alpha("equivalence", 0.7) == 1.0
    for hyp in ("difference", "non-inferiority", "superiority"):
        assert interval_alpha(hyp, 0.05) == 0.05


# --- verdict_of -------------------------------------------------------------------------------


def mirrored(interval):
    """The interval of -(B - A): what lower is better reads as B's gain."""
    low, high = interval
    return (-high, -low)


D = 0.1
DIFFERENCE_CASES = [
    ((0.2, 0.3), "better-by-margin"),
    ((D, 0.3), "better"),  # the low end at the margin exactly: not beyond it
    ((0.05, 0.3), "better"),
    ((0.0, 0.3), "inconclusive"),  # touching 0 does not exclude it
    ((-0.1, 0.1), "inconclusive"),
    ((-0.3, 0.0), "inconclusive"),
    ((-0.3, -0.05), "worse"),
    ((-0.3, -0.2), "worse"),  # no "worse-by-margin"
    ((0.05, INF), "better"),  # one-sided: alternative="greater"
    ((-INF, -0.05), "worse"),
    ((-INF, 0.05), "inconclusive"),
]

# (gain's one-sided lower bound, verdict) for non-inferiority at margin D: the most the
# bound shows
NI_CASES = [
    (0.2, "better-by-margin"),
    (D, "better"),
    (0.05, "better"),
    (0.0, "non-inferior"),
    (-0.05, "non-inferior"),
    (-D, "inconclusive"),  # at the boundary: H0 not rejected
    (-0.3, "inconclusive"),  # never "worse": the test says nothing on that side
]
# superiority asks one question: beyond +D or not
SUPERIORITY_CASES = [
    (0.2, "better-by-margin"),
    (D * (1 + 1e-12), "better-by-margin"),
    (D, "inconclusive"),
    (0.05, "inconclusive"),
    (0.0, "inconclusive"),
    (-0.3, "inconclusive"),
]
ONE_SIDED_CASES = [("non-inferiority", g, v) for g, v in NI_CASES] + [
    ("superiority", g, v) for g, v in SUPERIORITY_CASES]


@pytest.mark.parametrize(("interval", "expected"), DIFFERENCE_CASES)
def test_the_verdicts_of_a_difference(interval, expected):
    assert verdict_of("difference", D, interval) == expected
    # lower is better reads the mirrored interval the same way
    assert verdict_of("difference", D, mirrored(interval), lower_is_better=True) == expected


def test_a_difference_without_a_margin_or_with_zero_is_never_by_margin():
    assert verdict_of("difference", None, (0.2, 0.3)) == "better"
    assert verdict_of("difference", 0.0, (0.2, 0.3)) == "better"
    assert verdict_of("difference", 0.0, (-0.3, -0.2), lower_is_better=True) == "better"
    assert verdict_of("difference", None, (-0.3, -0.2)) == "worse"


@pytest.mark.parametrize(("hypothesis", "gain_low", "expected"), ONE_SIDED_CASES)
def test_the_verdicts_of_a_one_sided_margin(hypothesis, gain_low, expected):
    assert verdict_of(hypothesis, D, (gain_low, INF)) == expected
    # lower is better: the interval is (-inf, high] on B - A, the gain's bound is -high
    assert verdict_of(hypothesis, D, (-INF, -gain_low), lower_is_better=True) == expected
    # ... and a two-sided interval with the same low end says the same
    assert verdict_of(hypothesis, D, (gain_low, gain_low + 1.0)) == expected


def test_only_the_shown_verdicts_reject():
    # what rejects each null, by the definitions: NI rejects when the gain's bound
    # exceeds -d, superiority when it exceeds +d
    for hypothesis, gain_low, verdict in ONE_SIDED_CASES:
        rejects = gain_low > (-D if hypothesis == "non-inferiority" else D)
        assert (verdict in SHOWN[hypothesis]) == rejects, (hypothesis, gain_low, verdict)
    for interval, verdict in DIFFERENCE_CASES:
        excludes = interval[0] > 0 or interval[1] < 0
        assert (verdict in SHOWN["difference"]) == excludes
    assert set(SHOWN) == set(HYPOTHESES)
    assert all(v in VERDICTS for shown in SHOWN.values() for v in shown)


@pytest.mark.parametrize("lower_is_better", [False, True])
@pytest.mark.parametrize(("interval", "expected"), [
    ((-0.05, 0.05), "equivalent"),
    ((-0.099, 0.099), "equivalent"),
    ((-D, 0.05), "inconclusive"),  # touching -d: H0 B - A <= -d not rejected
    ((-0.05, D), "inconclusive"),
    ((-0.2, 0.05), "inconclusive"),
    ((-0.05, 0.2), "inconclusive"),
    ((0.2, 0.3), "inconclusive"),  # clearly different is not equivalent
    ((0.0, 0.0), "equivalent"),
])
def test_the_verdicts_of_equivalence(interval, expected, lower_is_better):
    # symmetric in B - A: lower is better changes nothing
    assert verdict_of("equivalence", D, interval, lower_is_better) == expected
    assert verdict_of("equivalence", D, mirrored(interval), lower_is_better) == expected
    assert (expected in SHOWN["equivalence"]) == (-D < interval[0] and interval[1] < D)


def test_margin_zero_verdicts():
    # non-inferiority at 0 is "better or inconclusive": -0 < gain is gain > 0
    assert verdict_of("non-inferiority", 0.0, (0.01, INF)) == "better"
    assert verdict_of("non-inferiority", 0.0, (0.0, INF)) == "inconclusive"
    assert verdict_of("non-inferiority", 0.0, (-0.01, INF)) == "inconclusive"
    assert verdict_of("superiority", 0.0, (0.0, INF)) == "inconclusive"
    assert verdict_of("superiority", 0.0, (-0.01, INF)) == "inconclusive"
    # (options refuse equivalence at 0; the function itself finds nothing within +-0)
    assert verdict_of("equivalence", 0.0, (0.0, 0.0)) == "inconclusive"


@pytest.mark.parametrize("hypothesis", HYPOTHESES)
@pytest.mark.parametrize("interval", [(NAN, INF), (-INF, NAN), (NAN, NAN), (NAN, 0.3),
                                      (0.2, NAN)])
@pytest.mark.parametrize("lower_is_better", [False, True])
def test_a_nan_end_is_undefined(hypothesis, interval, lower_is_better):
    # (a NaN compares False both ways: without the check, NaN would read "inconclusive"
    # or, through `not gain_high < m`, something worse)
    assert verdict_of(hypothesis, D, interval, lower_is_better) == "undefined"


def test_the_doctests_of_verdict_of_by_hand():
    assert verdict_of("non-inferiority", 0.05, (-0.01, INF)) == "non-inferior"
    assert verdict_of("non-inferiority", 0.05, (-INF, 0.01), lower_is_better=True) == (
        "non-inferior")
    assert verdict_of("non-inferiority", 0.05, (-INF, 0.06), lower_is_better=True) == (
        "inconclusive")


# --- half_width, detectable -------------------------------------------------------------------


@pytest.mark.parametrize(("estimate", "interval", "expected"), [
    (0.1, (0.0, 0.3), 0.15),  # half the width, not the distance to either end
    (0.1, (0.04, INF), 0.06),
    (0.1, (-INF, 0.25), 0.15),
    (0.1, (-INF, INF), INF),
    (0.1, (0.1, 0.1), 0.0),
])
def test_half_width(estimate, interval, expected):
    assert half_width(estimate, interval) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("interval", [(NAN, NAN), (NAN, INF), (-INF, NAN), (NAN, 0.2)])
def test_half_width_of_nan_ends_is_nan(interval):
    assert math.isnan(half_width(0.1, interval))


@pytest.mark.parametrize(("margin", "estimate", "interval", "expected"), [
    (0.2, 0.0, (-0.1, 0.1), True),  # reaches 0.1 < 0.2
    (0.05, 0.0, (-0.1, 0.1), False),
    (0.1, 0.0, (-0.1, 0.1), False),  # reaching exactly the margin: not less than it
    (0.2, 0.3, (0.15, INF), True),  # one-sided: 0.15 from the estimate
    (0.1, 0.3, (0.15, INF), False),
    (0.2, -0.3, (-INF, -0.15), True),
    (0.2, 0.0, (-INF, INF), False),
    (None, 0.0, (-0.1, 0.1), None),
    (0.0, 0.0, (-0.1, 0.1), None),  # a margin of 0 has nothing to detect
    (0.2, 0.0, (NAN, NAN), None),
    (0.2, 0.0, (NAN, INF), None),
])
def test_detectable(margin, estimate, interval, expected):
    got = detectable(margin, estimate, interval)
    assert got is expected  # a bool, not numpy's bool_, nor a truthy number


# --- hypothesis_sides: what can be tested, and the refusals ---------------------------


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_a_difference_keeps_its_alternative(alternative):
    for lower_is_better in (False, True):
        assert sides_of("difference", None, alternative, lower_is_better) == alternative


@pytest.mark.parametrize("hypothesis", ["non-inferiority", "superiority"])
@pytest.mark.parametrize("lower_is_better", [False, True])
def test_a_one_sided_margin_takes_the_better_side(hypothesis, lower_is_better):
    better = "less" if lower_is_better else "greater"
    for margin in ((0.0, 0.1) if hypothesis == "non-inferiority" else (0.1,)):
        assert sides_of(hypothesis, margin, "two-sided", lower_is_better) == better
        assert sides_of(hypothesis, margin, better, lower_is_better) == better


def test_equivalence_is_two_sided():
    for lower_is_better in (False, True):
        assert sides_of("equivalence", 0.1, "two-sided", lower_is_better) == "two-sided"
    assert sides_of("equivalence", 0.1, "two-sided", False, 0.51) == "two-sided"


def refusal(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("hypothesis", MARGIN_HYPOTHESES)
def test_a_margin_hypothesis_without_a_margin_is_refused(hypothesis):
    err = refusal(sides_of, hypothesis, None, "two-sided", False)
    assert err.param == "margin"
    assert "`margin`" in str(err) and hypothesis in str(err)


def test_equivalence_within_zero_is_refused():
    err = refusal(sides_of, "equivalence", 0.0, "two-sided", False)
    assert err.param == "margin" and "above 0" in str(err)


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_superiority_by_zero_is_refused(lower_is_better):
    # (better by more than 0 is the plain one-sided difference; and verdict_of gives
    # superiority at 0 no verdict that SHOWN counts as a rejection)
    err = refusal(sides_of, "superiority", 0.0, "two-sided", lower_is_better)
    assert err.param == "margin" and "above 0" in str(err)
    assert verdict_of("superiority", 0.0, (0.5, INF)) not in SHOWN["superiority"]


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_equivalence_one_sided_is_refused(alternative):
    for lower_is_better in (False, True):
        err = refusal(sides_of, "equivalence", 0.1, alternative, lower_is_better)
        assert err.param == "alternative" and alternative in str(err)


@pytest.mark.parametrize(("hypothesis", "alternative", "lower_is_better"), [
    ("non-inferiority", "less", False),
    ("non-inferiority", "greater", True),
    ("superiority", "less", False),
    ("superiority", "greater", True),
])
def test_a_side_contradicting_the_hypothesis_is_refused(hypothesis, alternative,
                                                        lower_is_better):
    err = refusal(sides_of, hypothesis, 0.1, alternative, lower_is_better)
    assert err.param == "alternative"
    assert repr("less" if lower_is_better else "greater") in str(err)


@pytest.mark.parametrize("level", [0.5, 0.3, 0.05])
def test_equivalence_at_half_or_less_is_refused(level):
    # (the 1 - 2 alpha interval would be of level 2L - 1 <= 0)
    err = refusal(sides_of, "equivalence", 0.1, "two-sided", False, level)
    assert err.param == "confidence_level"
    # the other hypotheses take any level
    assert sides_of("non-inferiority", 0.1, "two-sided", False, level) == "greater"


A_SMALL = np.linspace(0.0, 1.0, 30)
B_SMALL = A_SMALL[::-1].copy()


@pytest.mark.parametrize(("kwargs", "param"), [
    ({"hypothesis": "non-inferiority"}, "margin"),
    ({"hypothesis": "equivalence", "margin": 0}, "margin"),
    ({"hypothesis": "superiority", "margin": 0.0}, "margin"),
    ({"hypothesis": "equivalence", "margin": 0.1, "alternative": "less"}, "alternative"),
    ({"hypothesis": "superiority", "margin": 0.1, "alternative": "less"}, "alternative"),
    ({"hypothesis": "non-inferiority", "margin": 0.1, "alternative": "greater",
      "lower_is_better": True}, "alternative"),
    ({"hypothesis": "equivalence", "margin": 0.1, "confidence_level": 0.5},
     "confidence_level"),
    ({"hypothesis": "likeness", "margin": 0.1}, "hypothesis"),
])
def test_compare_refuses_them_naming_the_option(kwargs, param):
    # the same checks, through the public entry points (check_options calls hypothesis_sides)
    for call, data in ((pairboot.compare, (A_SMALL, B_SMALL)),
                       (pairboot.compare_many, ({"a": A_SMALL, "b": B_SMALL},))):
        err = refusal(call, *data, n_resamples=50, seed=0, **kwargs)
        assert err.param == param, (call.__name__, str(err))


# --- p_value against a boundary ---------------------------------------------------------------


def boot_of(estimate, theta, method, *, influence=None, se_hat=math.nan, se_star=None):
    if method == "bca":
        return Bootstrap.from_replicates(estimate, theta, influence=influence)
    if method == "studentized":
        return Bootstrap.from_replicates(estimate, theta, se_hat=se_hat, se_star=se_star)
    return Bootstrap.from_replicates(estimate, theta)


def replicates(seed: int, r: int = 1999):
    """A skewed continuous bootstrap distribution (no ties), its estimate, a jackknife
    and per-replicate standard errors: what every method needs."""
    rng = np.random.default_rng(seed)
    x = rng.gamma(2.0, 1.0, 40) - 1.5
    idx = rng.integers(0, len(x), (r, len(x)))
    theta = x[idx].mean(axis=1)
    se_star = x[idx].std(axis=1, ddof=1) / math.sqrt(len(x))
    jack = (x.sum() - x) / (len(x) - 1)
    return float(x.mean()), theta, [jack], float(x.std(ddof=1) / math.sqrt(len(x))), se_star


METHODS = ("percentile", "basic", "normal", "bca", "studentized")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("method", ["percentile", "basic", "normal"])
def test_the_p_value_of_a_boundary_is_that_of_the_shifted_bootstrap(method, alternative):
    est, theta, _, _, _ = replicates(1)
    sd = float(theta.std())
    seen = []
    for c in (-0.3, -0.1, -0.02, 0.05, est - 2 * sd, est - 0.1 * sd, est + 1.5 * sd,
              est + 4 * sd):
        got = p_value(method, Bootstrap.from_replicates(est, theta), alternative, null=c)
        shifted = Bootstrap.from_replicates(est - c, theta - c)
        want = p_value(method, shifted, alternative)
        # (to the tie tolerance: an end within 1e-9 of the values' scale is on the null,
        # and the shifted replicates' scale is another)
        assert got == pytest.approx(want, abs=1e-8), (c, got, want)
        seen.append(got)
    # the grid of boundaries reaches small, middling and large p-values: the identity is
    # not checked on p = 0 and p = 1 alone
    assert min(seen) < 0.05 and max(seen) > 0.5 and any(0.05 < p < 0.5 for p in seen)


@pytest.mark.parametrize("method", METHODS)
def test_the_boundary_moves_the_p_value_as_it_should(method):
    # one-sided "greater" (H0 theta <= c) is less and less rejected as c rises: its
    # p-value is non-decreasing in c, and the other side's non-increasing
    est, theta, jack, se_hat, se_star = replicates(2)
    boot = boot_of(est, theta, method, influence=jack, se_hat=se_hat, se_star=se_star)
    cs = est + theta.std() * np.linspace(-4, 4, 41)
    greater = [p_value(method, boot, "greater", null=c) for c in cs]
    less = [p_value(method, boot, "less", null=c) for c in cs]
    assert np.all(np.diff(greater) >= 0) and np.all(np.diff(less) <= 0)
    assert greater[0] < 0.01 and greater[-1] > 0.99
    assert less[0] > 0.99 and less[-1] < 0.01


def excludes(interval, c) -> bool:
    return interval[0] > c or interval[1] < c


GRID = (0.001, 0.01, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.2, 0.3, 0.5)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("method", METHODS)
def test_p_below_a_exactly_when_the_interval_excludes_the_boundary(method, alternative):
    est, theta, jack, se_hat, se_star = replicates(3)
    boot = boot_of(est, theta, method, influence=jack, se_hat=se_hat, se_star=se_star)
    # a boundary on the side the test looks at, about 2 standard errors off: p near 0.03
    sd = float(theta.std())
    for c in (est - 1.9 * sd, est + 1.9 * sd):
        if (alternative == "greater" and c > est) or (alternative == "less" and c < est):
            c = 2 * est - c
        p = p_value(method, boot, alternative, null=c)
        assert 0.003 < p < 0.2, (c, p)  # inside the grid: the check can fail both ways
        seen = set()
        for a in (*GRID, p * (1 - 1e-6), p * (1 + 1e-6)):
            interval = bounds(method, boot, a, alternative)
            assert (p < a) == excludes(interval, c), (c, a, p, interval)
            seen.add(p < a)
        assert seen == {True, False}


# --- the claims a verdict makes beyond its hypothesis ---------------------------------------


def test_the_claims_beyond_each_hypothesis_and_their_boundaries():
    # "better" under non-inferiority is H0 B - A <= 0 on the same side; "better by the
    # margin" is H0 B - A <= +margin (a difference: either side, two-sided); superiority
    # and equivalence claim only what they test; a margin of 0 makes "better" the test
    assert claim_tests("non-inferiority", 0.05, "greater") == (("greater", 0.0),
                                                               ("greater", 0.05))
    assert claim_tests("non-inferiority", 0.05, "less", True) == (("less", 0.0),
                                                                  ("less", -0.05))
    assert claim_tests("difference", 0.05, "two-sided") == (("two-sided", -0.05),
                                                            ("two-sided", 0.05))
    assert claim_tests("difference", None, "two-sided") == ()
    for hypothesis in ("superiority", "equivalence"):
        assert claim_tests(hypothesis, 0.05, "greater") == ()
    assert claim_tests("non-inferiority", 0.0, "greater") == ()
    assert claim_boundary("better", "non-inferiority", 0.05) == 0.0
    assert claim_boundary("better", "non-inferiority", 0.0) is None
    assert claim_boundary("better-by-margin", "non-inferiority", 0.05, True) == -0.05
    assert claim_boundary("better-by-margin", "difference", 0.05) == 0.05
    assert claim_boundary("better-by-margin", "superiority", 0.05) is None
    assert claim_boundary("non-inferior", "non-inferiority", 0.05) is None
    assert claim_boundary("better", "difference", 0.05) is None
