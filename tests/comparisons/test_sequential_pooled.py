"""pairboot.sequential with a pooled metric (F1, BLEU, any Metric of summed statistics):
the sequence against an independent numpy reference of the published boundary with a
delta-method variance written out here (F1's and BLEU's gradients by hand), groups as
units of summed statistics, the refusals, and the error rate under continuous
monitoring by simulation."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.metrics import F1, Metric, bleu_metric, macro_f1_metric
from pairboot.metrics.base import central_gradient
from pairboot.metrics.builtin import ACCURACY, PRECISION, RATIO, RECALL

ALPHA = 0.05


def radius(t, n_target, alpha, one_sided=False):
    """Waudby-Smith et al.'s normal-mixture radius of a unit-variance mean, rho^2 from
    the paper's approximation; one-sided, Howard et al.'s closed form (rho_H = 1 /
    rho^2): sqrt(2 (t + rho_H) log(sqrt((t + rho_H) / rho_H) / (2 alpha) + 1)) / t."""
    la = -2 * math.log(alpha)
    rho2 = (la + math.log(1 + la)) / n_target
    if one_sided:
        rh = 1 / rho2
        return math.sqrt(2 * (t + rh) * math.log(math.sqrt((t + rh) / rh) / (2 * alpha) + 1)) / t
    return math.sqrt(2 * (t * rho2 + 1) / (t * t * rho2) * math.log(math.sqrt(t * rho2 + 1)
                                                                     / alpha))


def f1_by_hand(s):
    tp, fp, fn = s
    return 2 * tp / (2 * tp + fp + fn)


def f1_gradient_by_hand(m):
    tp, fp, fn = m
    d = 2 * tp + fp + fn
    return np.array([2 * (fp + fn) / d**2, -2 * tp / d**2, -2 * tp / d**2])


def bleu_by_hand(s, order=4):
    """sacrebleu's corpus BLEU where every order has a match: 100 times the brevity
    penalty times the geometric mean of the precisions."""
    sys_len, ref_len, correct, total = s[0], s[1], s[2:2 + order], s[2 + order:]
    bp = math.exp(1 - ref_len / sys_len) if sys_len < ref_len else 1.0
    return 100 * bp * math.exp(sum(math.log(c / n) for c, n in zip(correct, total)) / order)


def bleu_gradient_by_hand(m, order=4):
    """BLEU times the gradient of log BLEU = min(0, 1 - r/s) + sum(log c_n - log T_n)/N."""
    sys_len, ref_len = m[0], m[1]
    short = sys_len < ref_len
    d_log = np.concatenate([[ref_len / sys_len**2 if short else 0.0,
                             -1 / sys_len if short else 0.0],
                            1 / (order * m[2:2 + order]), -1 / (order * m[2 + order:])])
    return bleu_by_hand(m, order) * d_log


def reference(a, b, t, value, gradient, n_target, one_sided=False):
    """The sequence after the first ``t`` units: g(S_B) - g(S_A) plus or minus the
    sample sd of psi_i = grad g(m_B) . (b_i - m_B) - grad g(m_A) . (a_i - m_A) times
    the radius."""
    sa, sb = a[:t], b[:t]
    ma, mb = sa.mean(axis=0), sb.mean(axis=0)
    psi = (sb - mb) @ gradient(mb) - (sa - ma) @ gradient(ma)
    est = value(sb.sum(axis=0)) - value(sa.sum(axis=0))
    r = psi.std(ddof=1) * radius(t, n_target, ALPHA, one_sided)
    return est, est - r, est + r


def f1_items(rng, n, p_tp, p_fp=0.25):
    """Per-item counts of 0/1-ish spans: each item has up to 2 gold spans, found with
    probability ``p_tp``, and up to 2 spurious ones."""
    gold = rng.integers(0, 3, n)
    tp = rng.binomial(gold, p_tp)
    fp = rng.binomial(2, p_fp, n)
    return np.column_stack([tp, fp, gold - tp]).astype(float)


def bleu_items(rng, n, quality):
    length = rng.integers(8, 40, n)
    ref = length + rng.integers(1, 5, n)  # (short outputs: no kink at sys_len = ref_len)
    total = np.column_stack([length - k for k in range(4)])
    correct = rng.binomial(total, quality * np.array([0.9, 0.6, 0.45, 0.35]))
    return np.column_stack([length, ref, correct, total]).astype(float)


SIZES = (1, 1, 3, 40, 300, 455)  # (800 units in updates of every size, chunks included)


@pytest.mark.parametrize("sides", ["two-sided", "greater"])
def test_f1_sequence_is_the_published_boundary_with_the_delta_method_variance(sides):
    rng = np.random.default_rng(1)
    a, b = f1_items(rng, 800, 0.6), f1_items(rng, 800, 0.6)
    s = pairboot.sequential(metric="f1", alternative=sides, n_target=200)
    start = 0
    for size in SIZES:
        r = s.update(a[start:start + size], b[start:start + size])
        start += size
        if start < 2:
            assert r.confidence_sequence.low == -math.inf
            continue
        est, low, high = reference(a, b, start, f1_by_hand, f1_gradient_by_hand, 200,
                                   sides != "two-sided")
        assert r.estimate == pytest.approx(est, rel=1e-12)
        assert r.confidence_sequence.low == pytest.approx(low, rel=1e-9)
        assert r.confidence_sequence.high == (pytest.approx(high, rel=1e-9)
                                              if sides == "two-sided" else math.inf)
    assert not r.decided and r.n_units == 800


@pytest.mark.parametrize("gradient", ["analytic", "central differences"])
def test_bleu_sequence_is_the_published_boundary_with_the_delta_method_variance(gradient):
    rng = np.random.default_rng(2)
    a, b = bleu_items(rng, 800, 0.5), bleu_items(rng, 800, 0.5)
    metric = bleu_metric() if gradient == "analytic" else dataclasses.replace(
        bleu_metric(), gradient=None)
    s = pairboot.sequential(metric=metric, n_target=300)
    start = 0
    for size in SIZES:
        r = s.update(a[start:start + size], b[start:start + size])
        start += size
        if start < 2:
            continue
        est, low, high = reference(a, b, start, bleu_by_hand, bleu_gradient_by_hand, 300)
        assert r.estimate == pytest.approx(est, rel=1e-12)
        rel = 1e-9 if gradient == "analytic" else 1e-6  # (differences: ~1e-8 of the slope)
        assert (r.confidence_sequence.low, r.confidence_sequence.high) == pytest.approx(
            (low, high), rel=rel)
    assert r.metric == "bleu" and not r.decided


def test_a_name_and_its_metric_agree_and_bleu_takes_its_order_from_the_columns():
    rng = np.random.default_rng(3)
    a, b = bleu_items(rng, 400, 0.5), bleu_items(rng, 400, 0.56)
    by_name = pairboot.sequential(metric="bleu").update(a, b)
    assert by_name == pairboot.sequential(metric=bleu_metric(4)).update(a, b)
    two = np.column_stack([a[:, :4], a[:, 6:8]]), np.column_stack([b[:, :4], b[:, 6:8]])
    r = pairboot.sequential(metric="bleu").update(*two)  # (BLEU-2: 6 columns)
    assert r.n_units > 0 and r.metric == "bleu"
    s = pairboot.sequential(metric="bleu")
    s.update(*two)
    with pytest.raises(InputError, match="needs 6 per-item statistic"):
        s.update(a[:3], b[:3])


def test_the_builtin_gradients_are_the_formulas_slopes():
    rng = np.random.default_rng(4)
    cases = [(F1, rng.random((6, 3)) * 9 + 1), (PRECISION, rng.random((6, 2)) * 9 + 1),
             (RECALL, rng.random((6, 2)) * 9 + 1), (ACCURACY, rng.random((6, 2)) * 9 + 1),
             (RATIO, rng.random((6, 2)) * 9 + 1),
             (macro_f1_metric(2), rng.random((6, 6)) * 9 + 1),
             (bleu_metric(), bleu_items(rng, 6, 0.5) * 20 + np.r_[0, 0.5, [0] * 8])]  # (s != r)
    for metric, at in cases:
        slope = central_gradient(metric.formula, at.copy(), range(at.shape[1]),
                                 np.abs(at).max(axis=0))
        np.testing.assert_allclose(metric.gradient(at), slope, rtol=1e-6, atol=1e-9,
                                   err_msg=metric.name)
    assert np.isnan(F1.gradient(np.zeros(3))).all()  # (0/0: F1's convention value)


def test_groups_are_units_of_summed_statistics():
    rng = np.random.default_rng(5)
    a, b = f1_items(rng, 900, 0.55), f1_items(rng, 900, 0.65)
    groups = np.repeat(np.arange(300), 3)
    r = pairboot.sequential(metric="f1").update(a, b, groups=groups)
    sums = pairboot.sequential(metric="f1").update(a.reshape(300, 3, 3).sum(axis=1),
                                                   b.reshape(300, 3, 3).sum(axis=1))
    assert (r.unit, r.n_units, r.n_items) == ("groups", sums.n_units, 3 * sums.n_units)
    assert r.confidence_sequence == sums.confidence_sequence and r.decided
    ratio = pairboot.sequential(metric="ratio").update(a[:, :2], b[:, :2], groups=groups)
    ratio_sums = pairboot.sequential(metric="ratio").update(
        a[:, :2].reshape(300, 3, 2).sum(axis=1), b[:, :2].reshape(300, 3, 2).sum(axis=1))
    assert ratio.confidence_sequence == pytest.approx(ratio_sums.confidence_sequence)


def test_what_cannot_work_is_refused_in_one_line():
    a = np.array([[1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    with pytest.raises(InputError, match="not a formula on summed") as exc:
        pairboot.sequential(metric="pass^4")
    assert exc.value.param == "metric"
    with pytest.raises(InputError, match="asymptotic sequence only") as exc:
        pairboot.sequential(metric="f1", bounds=(0, 1))
    assert exc.value.param == "bounds"
    with pytest.raises(InputError, match="unknown metric") as exc:
        pairboot.sequential(metric="f2")
    assert exc.value.param == "metric"
    with pytest.raises(InputError, match="needs 3 per-item statistic") as exc:
        pairboot.sequential(metric="f1").update(a[:, :2], a[:, :2])
    assert exc.value.param == "a"
    with pytest.raises(InputError, match="item 1: .*non-negative.*'fp'") as exc:
        pairboot.sequential(metric="f1").update(a, a * [1, -1, 1])
    assert exc.value.param == "b"


def test_a_metric_not_differentiable_at_the_sums_is_refused_and_the_update_undone():
    def root(S):  # (its slope in x at x = y is infinite)
        return np.sqrt(S[..., 0] - S[..., 1])

    s = pairboot.sequential(metric=Metric("root", ("x", "y"), root), min_units=2)
    up = np.tile([3.0, 1.0], (5, 1))
    s.update(up, up)  # (x - y sums to 10)
    before = s.result
    down = np.vstack([np.tile([0.0, 5.0], (2, 1)), up])  # (to 0 at its second unit)
    with pytest.raises(InputError, match="not finite at the summed statistics after 7 "
                       "units") as exc:
        s.update(down, down)
    assert (exc.value.param, exc.value.position) == ("metric", 1)
    assert s.result == before  # (nothing of the refused update was taken)
    assert s.update(up, up).n_units == 10
    early = pairboot.sequential(metric=Metric("root", ("x", "y"), root))
    assert early.update(down, down).n_units == 7  # (before min_units: the whole line)


def _null_f1_errors(rng, reps, n):
    """The share of null F1 streams (B and A the same span finder on the same items,
    each its own draws) whose rule, read after every item, declares a difference."""
    gold = rng.integers(0, 3, (reps, n))
    tp = rng.binomial(gold[None], 0.5, (2, reps, n))
    fp = rng.binomial(1, 0.3, (2, reps, n))
    stats = np.stack([tp, fp, gold[None] - tp], axis=-1).astype(float)
    return sum(pairboot.sequential(metric="f1").update(stats[1, i], stats[0, i]).decided
               for i in range(reps)) / reps


def test_f1s_error_rate_under_continuous_monitoring():
    reps = 300
    rate = _null_f1_errors(np.random.default_rng(40), reps, 1000)
    assert rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)


@pytest.mark.slow
def test_f1s_error_rate_under_continuous_monitoring_10000():
    reps = 300
    rate = _null_f1_errors(np.random.default_rng(41), reps, 10_000)
    assert rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
