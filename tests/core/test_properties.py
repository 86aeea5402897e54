"""Properties of compare() on random data (hypothesis), each stated as precisely as it holds.

- Swapping A and B negates the estimate and every resampled difference *exactly* (the
  same draws serve both systems, and ``metric(a) - metric(b)`` is the negated float);
  the percentile and basic intervals mirror, and the p-value is the same, *to rounding*
  (the quantile is interpolated from the other end of the sorted replicates).
- Adding a constant to both systems changes the mean's difference, interval and p-value
  by rounding only.  The p-value is compared only when no replicate lies within rounding
  of 0 (a replicate that rounding moves across 0 moves the p-value by a step).
- On the exact multinomial path the answer depends on the distinct (a, b) rows, their
  counts and the order in which they first appear (the documented order of the engine's
  distinct rows, which makes the swap above exact): any permutation of the items that
  keeps that order gives the same resampled differences, bit for bit, and so the same
  percentile and basic intervals and p-values; BCa's only to rounding (its acceleration
  sums the jackknife over the units in item order).  A permutation that changes the
  order draws other counts from the same distribution: only the estimate is the same.
- Duplicating every unit (every item; with groups, every group) leaves the estimate
  unchanged: to rounding for float scores, exactly for integer counts.
- For the mean difference, the percentile, basic, normal and BCa intervals contain the
  estimate whenever the differences vary beyond rounding (BCa: where it is defined).  For a
  statistic whose estimate sits in a tail of its own bootstrap distribution this fails by
  design: BCa's interval contains the estimate exactly when ``|z0| <= z_(1 - alpha/2)``
  (``test_bca_excludes_the_estimate_in_a_tail``).
- The same seed gives the same bits whatever the number of numba threads and however the
  replicates are split into the kernel's calls (memory batches), for both backends.

The examples are derandomized (the same on every run) and the example database is off, so
that the suite is reproducible; sizes keep the file at a few seconds.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pairboot
from pairboot import DegenerateDataWarning, SmallSampleWarning

EPS = 2.0**-52
SEED = 20240601
N_RESAMPLES = 300
LEVEL_Z = NormalDist().inv_cdf(0.975)

PROPERTY = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def compare(a, b, **kwargs):
    """pairboot.compare with the warnings these data are expected to raise ignored (tiny
    samples, constant differences, undefined BCa, scores on two scales); any other still
    fails the test."""
    kwargs.setdefault("seed", SEED)
    kwargs.setdefault("n_resamples", N_RESAMPLES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        warnings.simplefilter("ignore", DegenerateDataWarning)
        # (random scores: one system in [0, 1] and the other in [-5, 5] look like two scales)
        warnings.filterwarnings("ignore", ".* lie on very different scales")
        return pairboot.compare(a, b, **kwargs)


# --- strategies --------------------------------------------------------------------------

FLOATS = st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False)


@st.composite
def paired_scores(draw, min_n=5, max_n=60):
    """Two systems' scores on the same n items: B = A + a difference, both bounded."""
    n = draw(st.integers(min_n, max_n))
    a = draw(hnp.arrays(np.float64, n, elements=FLOATS))
    d = draw(hnp.arrays(np.float64, n, elements=st.floats(-10.0, 10.0)))
    return a, a + d


def _size(*arrays) -> float:
    return max(float(np.max(np.abs(x))) for x in arrays)


def _same_bits(x, y) -> bool:
    return np.asarray(x, np.float64).tobytes() == np.asarray(y, np.float64).tobytes()


def _close(x: float, y: float, tol: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= tol


# --- swapping A and B --------------------------------------------------------------------


@PROPERTY
@given(data=paired_scores(), method=st.sampled_from(["percentile", "basic"]),
       backend=st.sampled_from(["numpy", "numba"]))
@pytest.mark.slow
def test_swapping_a_and_b_negates_and_mirrors(data, method, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    a, b = data
    ab = compare(a, b, method=method, backend=backend)
    ba = compare(b, a, method=method, backend=backend)
    # exactly: one draw for both systems, and the negated difference of the same floats
    # (b - a and a - b are exact negations, where the differences are summed too)
    assert ba.estimate == -ab.estimate
    np.testing.assert_array_equal(ba.bootstrap_distribution, -ab.bootstrap_distribution)
    assert _same_bits(ba.score_a.confidence_interval, ab.score_b.confidence_interval)
    assert ba.score_a.estimate == ab.score_b.estimate
    # to rounding: the mirrored quantile is interpolated from the other end
    tol = 1e-12 * _size(ab.bootstrap_distribution)
    assert _close(ba.confidence_interval.low, -ab.confidence_interval.high, tol)
    assert _close(ba.confidence_interval.high, -ab.confidence_interval.low, tol)
    assert _close(ba.p_value, ab.p_value, 1e-12)
    assert ba.standard_error == ab.standard_error or _close(
        ba.standard_error, ab.standard_error, 1e-12 * ab.standard_error)


# --- adding a constant to both systems -----------------------------------------------------


@PROPERTY
@given(data=paired_scores(), shift=st.floats(-1000.0, 1000.0),
       method=st.sampled_from(["percentile", "basic", "normal"]))
def test_adding_a_constant_to_both_changes_nothing(data, shift, method):
    a, b = data
    base = compare(a, b, method=method)
    moved = compare(a + shift, b + shift, method=method)
    n = len(a)
    # Each resampled mean is a sum of n values of size |shift| + scores, rounded once per
    # addition, then divided by n: both runs are within 2 n eps (|shift| + scores) of the
    # exact value, for each system.
    tol = 8 * n * EPS * (abs(shift) + _size(a, b))
    note(f"tol={tol!r}")
    assert _close(moved.estimate, base.estimate, tol)
    # every endpoint is a combination of order statistics, each moved by at most tol
    assert _close(moved.confidence_interval.low, base.confidence_interval.low, 2 * tol)
    assert _close(moved.confidence_interval.high, base.confidence_interval.high, 2 * tol)
    theta = base.bootstrap_distribution
    if np.min(np.abs(theta)) > 1e6 * tol:  # no replicate within rounding of 0 (or 2 est)
        if method != "basic" or np.min(np.abs(theta - 2 * base.estimate)) > 1e6 * tol:
            event("p-value compared")
            assert _close(moved.p_value, base.p_value, 1e-8)


# --- permutations on the exact multinomial path -------------------------------------------


@st.composite
def binary_with_order_keeping_permutation(draw):
    """0/1 scores of two systems (the exact path needs n >= 16 x the distinct rows) and a
    permutation that keeps the order in which the distinct (a, b) rows first appear: the
    first occurrences stay ahead, in their order; every other item goes anywhere after."""
    n = draw(st.integers(64, 160))
    a = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0])))
    b = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0])))
    at = draw(st.integers(0, n - 2))  # both columns vary (else no draw is needed at all)
    a[at : at + 2], b[at : at + 2] = (0.0, 1.0), (1.0, 0.0)
    _, first = np.unique(np.column_stack([a, b]), axis=0, return_index=True)
    first = np.sort(first)
    rest = np.setdiff1d(np.arange(n), first)
    order = np.concatenate([first, draw(st.permutations(rest.tolist()))]).astype(int)
    return a, b, order


@PROPERTY
@given(data=binary_with_order_keeping_permutation(),
       method=st.sampled_from(["percentile", "basic", "bca"]))
@pytest.mark.slow
def test_exact_path_ignores_the_item_order(data, method):
    a, b, order = data
    base = compare(a, b, method=method)
    permuted = compare(a[order], b[order], method=method)
    assert base.engine == permuted.engine == "multinomial"
    assert permuted.estimate == base.estimate
    assert _same_bits(permuted.bootstrap_distribution, base.bootstrap_distribution)
    if method != "bca":
        assert _same_bits(permuted.confidence_interval, base.confidence_interval)
        assert _same_bits(permuted.p_value, base.p_value)
        return
    # BCa's acceleration sums the jackknife over the units in item order: to rounding
    tol = 1e-12 * _size(base.bootstrap_distribution)
    assert _close(permuted.confidence_interval.low, base.confidence_interval.low, tol)
    assert _close(permuted.confidence_interval.high, base.confidence_interval.high, tol)
    assert _close(permuted.p_value, base.p_value, 1e-9)


# --- duplicating every unit ------------------------------------------------------------------


@PROPERTY
@given(data=paired_scores(), copies=st.integers(2, 3))
def test_duplicating_every_item_keeps_the_mean(data, copies):
    a, b = data
    base = compare(a, b)
    dup = compare(np.tile(a, copies), np.tile(b, copies))
    assert dup.n_items == copies * base.n_items
    tol = 8 * copies * len(a) * EPS * _size(a, b)
    assert _close(dup.estimate, base.estimate, tol)
    assert _close(dup.score_a.estimate, base.score_a.estimate, tol)


@PROPERTY
@given(data=paired_scores(min_n=10), n_groups=st.integers(2, 8), copies=st.integers(2, 3),
       weighting=st.sampled_from(["items", "groups"]), seed=st.integers(0, 2**32 - 1))
def test_duplicating_every_group_keeps_the_mean(data, n_groups, copies, weighting, seed):
    a, b = data
    groups = np.arange(len(a)) % n_groups  # every group has items
    base = compare(a, b, groups=groups, group_weighting=weighting, seed=seed)
    labels = np.concatenate([groups + c * n_groups for c in range(copies)])
    dup = compare(np.tile(a, copies), np.tile(b, copies), groups=labels,
                  group_weighting=weighting, seed=seed)
    assert dup.n_groups == copies * base.n_groups
    tol = 8 * copies * len(a) * EPS * _size(a, b)
    assert _close(dup.estimate, base.estimate, tol)


@pytest.mark.slow
@PROPERTY
@given(n=st.integers(5, 60), data=st.data())
def test_duplicating_every_item_keeps_pooled_f1_exactly(n, data):
    counts = hnp.arrays(np.float64, (n, 3), elements=st.integers(0, 20).map(float))
    a, b = data.draw(counts), data.draw(counts)
    a[0, 0] = b[0, 0] = 1.0  # some tp: F1 is defined on the full data
    base = compare(a, b, metric="f1")
    dup = compare(np.tile(a, (2, 1)), np.tile(b, (2, 1)), metric="f1")
    assert dup.estimate == base.estimate  # integer sums are exact


# --- the interval contains the estimate --------------------------------------------------------


@PROPERTY
@given(data=paired_scores(), method=st.sampled_from(["percentile", "basic", "normal", "bca"]))
def test_interval_contains_the_mean_difference(data, method):
    a, b = data
    d = b - a
    # non-degenerate: the differences vary well beyond the rounding of the scores' sums
    if np.ptp(d) <= 1e-6 * _size(a, b):
        event("degenerate differences: skipped")
        return
    res = compare(a, b, method=method)
    low, high = res.confidence_interval
    if method == "bca" and math.isnan(low):
        # undefined only when the replicates sit all on one side of the estimate
        event("BCa undefined")
        theta = res.bootstrap_distribution
        assert (theta >= res.estimate).all() or (theta <= res.estimate).all()
        return
    assert low <= res.estimate <= high, (low, res.estimate, high)


def _squared_mean() -> pairboot.Metric:
    """mean ** 2: a biased statistic whose bootstrap values mostly exceed the estimate
    when the mean is near 0."""
    return pairboot.Metric(
        "squared_mean", ("score",), lambda S: (S[..., 0] / S[..., 1]) ** 2,
        prepare=lambda v: np.column_stack([v[:, 0], np.ones(len(v))]),
    )


@pytest.mark.parametrize("delta, inside", [(0.002, False), (0.01, True)])
def test_bca_excludes_the_estimate_in_a_tail(delta, inside):
    """BCa's endpoints sit at levels Phi(z0 + (z0 + z) / (1 - a (z0 + z))): the estimate
    (at level Phi(z0)) is inside exactly when |z0| <= z_(1 - alpha/2).  A statistic whose
    estimate lies beyond that tail of its bootstrap distribution is excluded by design
    (here mean(B)**2 with mean(B) near 0; the percentile interval excludes it too)."""
    rng = np.random.default_rng(0)
    b = rng.normal(size=50)
    b = b - b.mean() + delta
    res = compare(np.zeros(50), b, metric=_squared_mean(), method="bca", n_resamples=2000)
    theta, est = res.bootstrap_distribution, res.estimate
    z0 = NormalDist().inv_cdf((np.sum(theta < est) + np.sum(theta <= est)) / (2 * len(theta)))
    low, high = res.confidence_interval
    assert (abs(z0) <= LEVEL_Z) is inside
    assert (low <= est <= high) is inside, (z0, low, est, high)


# --- the same seed, whatever the threads and batches -------------------------------------------


KERNELS = {"numpy": "index_sums_numpy", "numba": "index_sums"}
"""The engine's index kernels by backend: the function that sums a batch of replicates."""


@contextlib.contextmanager
def split_kernel_calls(backend: str, cuts: list[int]):
    """Run the engine's index kernel on the replicates in pieces (sizes cycling through
    ``cuts``), as any memory batching would: a replicate's draws depend on its key only.

    The kernel is replaced in every pairboot module that holds it, wherever the code
    lives; the backend's kernel must have been loaded (run it once first)."""
    name = KERNELS[backend]
    holders = [m for key, m in sys.modules.items()
               if key.split(".")[0] == "pairboot" and callable(getattr(m, name, None))]
    originals = {getattr(m, name) for m in holders}
    assert len(originals) == 1, f"no single kernel named {name!r} in pairboot's modules"
    (original,) = originals

    def pieces(x, starts, sizes, keys, out, **kwargs):
        r0, i = 0, 0
        while r0 < len(keys):
            r1 = min(len(keys), r0 + cuts[i % len(cuts)])
            part = np.empty((r1 - r0, *out.shape[1:]))
            original(x, starts, sizes, keys[r0:r1], part, **kwargs)
            out[r0:r1] = part
            r0, i = r1, i + 1

    calls = []

    def counted(*args, **kwargs):
        calls.append(len(args[3]))
        pieces(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        for m in holders:
            mp.setattr(m, name, counted)
        yield calls


@contextlib.contextmanager
def numba_threads(n: int | None):
    if n is None:
        yield
        return
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _fingerprint(res) -> bytes:
    values = [res.estimate, *res.confidence_interval, res.p_value, res.standard_error,
              res.score_a.estimate, *res.score_a.confidence_interval,
              res.score_b.estimate, *res.score_b.confidence_interval]
    for s in res.strata:
        values += [s.estimate, *s.confidence_interval, s.p_value]
    return np.asarray(values).tobytes() + res.bootstrap_distribution.tobytes()


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@PROPERTY
@given(data=paired_scores(), paired=st.booleans(), strata=st.booleans(),
       method=st.sampled_from(["percentile", "bca", "studentized"]),
       cuts=st.lists(st.integers(1, 200), min_size=1, max_size=4),
       n_resamples=st.integers(200, 500))
@pytest.mark.slow
def test_same_seed_same_bits_for_any_threads_and_batches(backend, data, paired, strata,
                                                          method, cuts, n_resamples):
    if backend == "numba":
        numba = pytest.importorskip("numba")
        threads = sorted({1, numba.config.NUMBA_NUM_THREADS})
    else:
        threads = [None]
    a, b = data
    kwargs = dict(method=method, backend=backend, n_resamples=n_resamples, paired=paired)
    if strata:
        kwargs["strata"] = np.arange(len(a)) % 2
    reference = compare(a, b, **kwargs)
    assert backend in reference.engine or reference.engine in ("multinomial", "constant")
    for n in threads:
        with numba_threads(n):
            assert _fingerprint(compare(a, b, **kwargs)) == _fingerprint(reference), n
            with split_kernel_calls(backend, cuts) as calls:
                assert _fingerprint(compare(a, b, **kwargs)) == _fingerprint(reference), n
            assert calls or backend not in reference.engine  # the kernel did run in pieces
