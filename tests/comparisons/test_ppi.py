"""compare_ppi(): the prediction-powered B - A of gold labels on a random subset.

References: the ppi_py package (``ppi_mean_ci``, ``ppi_mean_pointestimate``: PPI++ with
its tuned ``lam``) per system and on the per-item differences; an independent numpy
implementation of the paired difference (and of the clustered variance); the bootstrap
against the closed form within its Monte Carlo error.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError, SmallSampleWarning


def judged(n=600, share=0.2, seed=0, bias=(0.3, 0.0), noise=0.6, delta=0.1):
    """Gold scores of A and B on n items, a judge biased towards A (``bias`` added to
    its scores) and noisy, and gold kept on a random ``share`` of the items (NaN
    elsewhere)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=n)
    gold = np.column_stack([u + rng.normal(0, 0.5, n), u + delta + rng.normal(0, 0.5, n)])
    judge = gold + np.asarray(bias) + rng.normal(0, noise, (n, 2))
    labelled = rng.random(n) < share
    return judge, np.where(labelled[:, None], gold, np.nan), labelled


def run(judge, gold, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                    gold_b=gold[:, 1], **kw)


def reference_difference(judge, gold, labelled, level=0.95):
    """PPI++ on B - A written out with numpy: lam = cov0_l(dg, dj) / ((1 + n/N)
    var1_all(dj)) clipped to [0, 1]; estimate and normal interval."""
    dj, dg = judge[:, 1] - judge[:, 0], gold[:, 1] - gold[:, 0]
    y, yh, yu = dg[labelled], dj[labelled], dj[~labelled]
    n, big_n = len(y), len(yu)
    cov = np.mean((y - y.mean()) * (yh - yh.mean()))
    lam = np.clip(cov / ((1 + n / big_n) * np.var(dj, ddof=1)), 0, 1)
    est = y.mean() + lam * (yu.mean() - yh.mean())
    se = math.sqrt(np.var(lam * yu) / big_n + np.var(y - lam * yh) / n)
    z = 1.959963984540054 if level == 0.95 else None
    return lam, est, (est - z * se, est + z * se), se


def test_each_system_is_ppi_py_s_ppi_plus_plus():
    ppi = pytest.importorskip("ppi_py")
    judge, gold, lab = judged()
    res = run(judge, gold, method="clt", confidence_level=0.9)
    for k, score in enumerate((res.score_a, res.score_b)):
        y, yh, yu = gold[lab, k], judge[lab, k], judge[~lab, k]
        low, high = ppi.ppi_mean_ci(y, yh, yu, alpha=0.1)
        assert score.estimate == pytest.approx(ppi.ppi_mean_pointestimate(y, yh, yu)[0],
                                               rel=1e-12)
        assert score.confidence_interval == pytest.approx((low[0], high[0]), rel=1e-10)


def test_the_difference_is_ppi_py_s_on_the_differences_and_the_numpy_reference():
    ppi = pytest.importorskip("ppi_py")
    judge, gold, lab = judged(seed=3)
    res = run(judge, gold, method="clt")
    lam, est, interval, se = reference_difference(judge, gold, lab)
    assert res.lam == pytest.approx(lam, rel=1e-12) and 0 < res.lam < 1
    assert res.estimate == pytest.approx(est, rel=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx(interval, rel=1e-10)
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    dj, dg = judge[:, 1] - judge[:, 0], gold[:, 1] - gold[:, 0]
    low, high = ppi.ppi_mean_ci(dg[lab], dj[lab], dj[~lab], alpha=0.05)
    assert tuple(res.confidence_interval) == pytest.approx((low[0], high[0]), rel=1e-10)
    # the gold labels alone: lam = 0; the effective labels: the variances' ratio
    y = dg[lab]
    gold_se = math.sqrt(np.var(y) / len(y))
    assert res.gold_only.estimate == pytest.approx(y.mean(), rel=1e-12)
    assert res.gold_only.standard_error == pytest.approx(gold_se, rel=1e-12)
    assert res.effective_gold == pytest.approx(len(y) * (gold_se / se) ** 2, rel=1e-12)
    assert res.effective_gold > res.n_gold  # (the judge tracks the gold labels here)
    assert res.judge_only.estimate == pytest.approx(dj.mean(), rel=1e-12)
    bias = (dg - dj)[lab]
    assert res.bias.estimate == pytest.approx(bias.mean(), rel=1e-12)
    assert res.bias.standard_error == pytest.approx(math.sqrt(np.var(bias) / len(bias)))
    assert res.bias_a.estimate == pytest.approx(-0.3, abs=0.15)  # (the judge's +0.3 on A)
    z = bias.mean() / math.sqrt(np.var(bias) / len(bias))
    assert res.bias_p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-9)
    assert res.bias_p_value < 1e-3


def test_the_bootstrap_agrees_with_the_closed_form_within_its_monte_carlo_error():
    judge, gold, _ = judged(n=800, seed=5)
    clt = run(judge, gold, method="clt")
    boot = run(judge, gold, seed=11, n_resamples=4000)
    assert boot.estimate == clt.estimate and boot.lam == clt.lam
    # the sd of 4000 resamples is within ~1.1% of the bootstrap's own; the bootstrap of
    # two strata and the closed form agree to O(1/n) beyond that
    assert boot.standard_error == pytest.approx(clt.standard_error, rel=0.05)
    half = clt.confidence_interval.high - clt.estimate
    assert tuple(boot.confidence_interval) == pytest.approx(
        tuple(clt.confidence_interval), abs=0.1 * half)
    for kind in ("judge_only", "gold_only"):
        assert getattr(boot, kind).standard_error == pytest.approx(
            getattr(clt, kind).standard_error, rel=0.06)
    assert len(boot.bootstrap_distribution) == 4000


def test_the_same_seed_gives_the_same_answer_and_none_derives_one():
    judge, gold, _ = judged(n=200, share=0.3)
    a = run(judge, gold, seed=4, n_resamples=500)
    b = run(judge, gold, seed=4, n_resamples=500)
    assert a.confidence_interval == b.confidence_interval
    c, d = run(judge, gold, n_resamples=500), run(judge, gold, n_resamples=500)
    assert c.seed == d.seed and c.confidence_interval == d.confidence_interval


def test_one_group_per_item_is_the_plain_closed_form():
    judge, gold, lab = judged(n=400, seed=2)
    plain = run(judge, gold, method="clt")
    single = run(judge, gold, method="clt", groups=np.arange(400))
    assert single.estimate == plain.estimate
    assert single.standard_error == pytest.approx(plain.standard_error, rel=1e-12)
    assert single.n_groups == 400


def test_the_clustered_variance_is_the_groups_summed_influence():
    rng = np.random.default_rng(8)
    n, size = 600, 6
    groups = np.repeat(np.arange(n // size), size)
    shared = rng.normal(size=n // size)[groups]
    gold = np.column_stack([shared + rng.normal(0, 0.5, n),
                            shared + 0.1 + rng.normal(0, 0.5, n) + 0.4 * shared])
    judge = gold + rng.normal(0, 0.4, (n, 2)) + [0.2, 0.0]
    lab = rng.random(n) < 0.3  # (items of a group labelled or not: mixed groups)
    gold = np.where(lab[:, None], gold, np.nan)
    res = run(judge, gold, method="clt", groups=groups)
    # by hand: each group's influence on the estimate at the fitted lam
    dj, dg = judge[:, 1] - judge[:, 0], gold[:, 1] - gold[:, 0]
    lam = res.lam
    r = dg[lab] - lam * dj[lab]
    psi = np.zeros(n // size)
    np.add.at(psi, groups[lab], (r - r.mean()) / lab.sum())
    np.add.at(psi, groups[~lab], lam * (dj[~lab] - dj[~lab].mean()) / (~lab).sum())
    assert res.standard_error == pytest.approx(math.sqrt(np.sum(psi**2)), rel=1e-12)
    plain = run(judge, gold, method="clt")
    assert res.standard_error > 1.2 * plain.standard_error  # (shared group effects)
    # the bootstrap of whole groups (one stratum: mixed groups) agrees with it
    boot = run(judge, gold, groups=groups, seed=3, n_resamples=3000)
    assert boot.standard_error == pytest.approx(res.standard_error, rel=0.08)


def test_groups_labelled_whole_are_two_strata_of_groups():
    rng = np.random.default_rng(9)
    n, size = 500, 5
    groups = np.repeat(np.arange(n // size), size)
    gold = rng.normal(size=(n, 2)) + rng.normal(size=n // size)[groups][:, None]
    judge = gold + rng.normal(0, 0.5, (n, 2))
    lab = (rng.random(n // size) < 0.3)[groups]
    gold = np.where(lab[:, None], gold, np.nan)
    res = run(judge, gold, groups=groups, seed=1, n_resamples=2000)
    clt = run(judge, gold, groups=groups, method="clt")
    assert not any("resamples drew no labelled" in w for w in res.warnings)
    assert np.isfinite(res.bootstrap_distribution).all()  # (every resample draws both)
    assert res.standard_error == pytest.approx(clt.standard_error, rel=0.1)


def test_the_hypothesis_machinery_reads_the_prediction_powered_interval():
    judge, gold, _ = judged(seed=6, delta=0.3)
    two = run(judge, gold, method="clt")
    one = run(judge, gold, method="clt", alternative="greater")
    assert one.confidence_interval.high == math.inf
    assert one.confidence_interval.low > two.confidence_interval.low
    assert one.p_value == pytest.approx(two.p_value / 2, rel=1e-9)
    assert one.verdict() == "better"
    ni = run(judge, gold, method="clt", hypothesis="non-inferiority", margin=0.05)
    assert ni.p_value < one.p_value and ni.verdict() in ("better", "better-by-margin")
    eq = run(judge, gold, seed=2, n_resamples=1000, hypothesis="equivalence", margin=0.01)
    assert eq.verdict() == "inconclusive" and eq.p_values is not None


@pytest.mark.filterwarnings("ignore:the judge's scores on the labelled items")  # (they
# are changed on the labelled items alone, which the selection check rightly flags)
def test_a_judge_that_does_not_track_the_gold_gets_lam_zero_and_says_so():
    judge, gold, lab = judged(seed=7)
    rng = np.random.default_rng(1)
    judge = rng.normal(size=judge.shape)  # (no relation to the gold scores)
    judge[lab, 1] -= gold[lab, 1] - gold[lab, 0]  # (anti-correlated on B - A)
    with pytest.warns(pairboot.DegenerateDataWarning, match="lam = 0"):
        res = pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                   gold_b=gold[:, 1], method="clt")
    assert res.lam == 0.0 and res.estimate == res.gold_only.estimate
    assert res.effective_gold == pytest.approx(res.n_gold)


def test_few_gold_labels_are_warned_at_the_caller_s_line():
    judge, gold, lab = judged(n=300, share=0.05, seed=1)
    with pytest.warns(SmallSampleWarning, match="labelled items") as caught:
        pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                             gold_b=gold[:, 1], method="clt")
    assert caught[0].filename == __file__


@pytest.mark.parametrize("change, param, match", [
    (lambda j, g: g.__setitem__((np.flatnonzero(~np.isnan(g[:, 0]))[0], 1), np.nan),
     "gold_b", "one system only"),
    (lambda j, g: j.__setitem__((5, 0), np.nan), "judge_a", "must score every item"),
    (lambda j, g: g.__setitem__((slice(None), slice(None)), np.nan), "gold_a",
     "0 labelled items"),
    (lambda j, g: g.__setitem__((np.flatnonzero(~np.isnan(g[:, 0]))[0], 0), np.inf),
     "gold_a", "infinite"),
])
def test_bad_gold_or_judge_scores_are_refused_in_one_line(change, param, match):
    judge, gold, _ = judged(n=100, share=0.3)
    change(judge, gold)
    with pytest.raises(InputError, match=match) as info:
        run(judge, gold, method="clt")
    assert info.value.param == param and "\n" not in str(info.value)


def test_other_refusals():
    judge, gold, _ = judged(n=100, share=0.3)
    with pytest.raises(InputError, match="`gold_b` has 99 items") as info:
        pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                             gold_b=gold[:99, 1])
    assert info.value.param == "gold_b"
    with pytest.raises(InputError, match="one of percentile, basic, normal, clt"):
        run(judge, gold, method="bca")
    full = judge.copy()
    with pytest.raises(InputError, match="unlabelled"):
        run(judge, full + 0.0)  # (every item labelled: compare the gold labels)
    with pytest.raises(InputError, match="confidence_level"):
        run(judge, gold, confidence_level=95)


def test_the_inputs_are_not_modified_and_pandas_is_read():
    pd = pytest.importorskip("pandas")
    judge, gold, _ = judged(n=120, share=0.4)
    frame = pd.DataFrame({"ja": judge[:, 0], "jb": judge[:, 1], "ga": gold[:, 0],
                          "gb": gold[:, 1]})
    before = frame.copy()
    res = pairboot.compare_ppi(frame.ja, frame.jb, gold_a=frame.ga, gold_b=frame.gb,
                               method="clt")
    pd.testing.assert_frame_equal(frame, before)
    assert res.estimate == run(judge, gold, method="clt").estimate


def test_a_fixed_or_unclipped_weight_is_ppi_py_s_at_that_weight():
    ppi = pytest.importorskip("ppi_py")
    judge, gold, lab = judged(seed=12)
    judge = judge * 0.1  # (another scale: the best weight is far above 1)
    dj, dg = judge[:, 1] - judge[:, 0], gold[:, 1] - gold[:, 0]
    y, yh, yu = dg[lab], dj[lab], dj[~lab]
    free = run(judge, gold, method="clt", clip=False)
    cov = np.mean((y - y.mean()) * (yh - yh.mean()))
    assert free.lam == pytest.approx(cov / ((1 + len(y) / len(yu)) * np.var(dj, ddof=1)),
                                     rel=1e-12)
    assert free.lam > 2 and free.tuning == "free"
    low, high = ppi.ppi_mean_ci(y, yh, yu, alpha=0.05, lam=free.lam)
    assert tuple(free.confidence_interval) == pytest.approx((low[0], high[0]), rel=1e-10)
    clipped = run(judge, gold, method="clt")
    assert clipped.lam == 1.0 and clipped.standard_error > free.standard_error
    fixed = run(judge, gold, method="clt", lam=0.5)
    low, high = ppi.ppi_mean_ci(y, yh, yu, alpha=0.05, lam=0.5)
    assert (fixed.lam, fixed.lam_a, fixed.tuning) == (0.5, 0.5, "fixed")
    assert tuple(fixed.confidence_interval) == pytest.approx((low[0], high[0]), rel=1e-10)
    with pytest.raises(InputError, match="`lam` must be None") as info:
        run(judge, gold, lam="tuned")
    assert info.value.param == "lam"
    with pytest.raises(InputError, match="`clip` must be True or False"):
        run(judge, gold, clip=None)


def stratified(seed=0, n=(300, 500), share=(0.5, 0.1)):
    """Two strata: hard items (lower gold, a noisier judge) labelled at 50%, easy ones
    at 10%."""
    rng = np.random.default_rng(seed)
    judge, gold, strata = [], [], []
    for h, (m, p) in enumerate(zip(n, share)):
        u = rng.normal(-1.0 if h == 0 else 1.0, 1.0, m)
        g = np.column_stack([u + rng.normal(0, 0.5, m), u + 0.1 + rng.normal(0, 0.5, m)])
        j = g + [0.3, 0.0] + rng.normal(0, 0.4 if h else 0.9, (m, 2))
        lab = rng.random(m) < p
        judge.append(j)
        gold.append(np.where(lab[:, None], g, np.nan))
        strata += [f"s{h}"] * m
    return np.concatenate(judge), np.concatenate(gold), np.array(strata)


def test_one_stratum_is_no_strata():
    judge, gold, _ = judged(n=300, seed=13)
    one = ["x"] * 300
    for kw in (dict(method="clt"), dict(seed=2, n_resamples=500)):
        plain, strat = run(judge, gold, **kw), run(judge, gold, strata=one, **kw)
        assert strat.estimate == pytest.approx(plain.estimate, rel=1e-14)
        assert tuple(strat.confidence_interval) == pytest.approx(
            tuple(plain.confidence_interval), rel=1e-12)
        assert strat.lam == pytest.approx(plain.lam, rel=1e-12) and strat.n_strata == 1


def test_strata_are_each_ppi_py_s_at_the_common_lam_weighted():
    ppi = pytest.importorskip("ppi_py")
    judge, gold, strata = stratified()
    weights = {"s0": 3, "s1": 5}
    res = run(judge, gold, method="clt", strata=strata, strata_weights=weights)
    dj, dg = judge[:, 1] - judge[:, 0], gold[:, 1] - gold[:, 0]
    w = np.array([3, 5]) / 8
    num = den = 0.0  # (the common lam: the combined variance's smallest, by hand)
    parts = []
    for h, name in enumerate(("s0", "s1")):
        m = strata == name
        lab = m & ~np.isnan(dg)
        y, yh, yu = dg[lab], dj[lab], dj[m & np.isnan(dg)]
        num += w[h] ** 2 * np.cov(y, yh, ddof=0)[0, 1] / len(y)
        den += w[h] ** 2 * np.var(dj[m], ddof=1) * (1 / len(y) + 1 / len(yu))
        parts.append((y, yh, yu))
    lam = min(max(num / den, 0), 1)
    assert res.lam == pytest.approx(lam, rel=1e-12)
    est, var = 0.0, 0.0
    for (y, yh, yu), wh in zip(parts, w):
        est += wh * ppi.ppi_mean_pointestimate(y, yh, yu, lam=lam)[0]
        low, high = ppi.ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
        var += (wh * (high[0] - low[0]) / (2 * 1.959963984540054)) ** 2
    assert res.estimate == pytest.approx(est, rel=1e-12)
    assert res.standard_error == pytest.approx(math.sqrt(var), rel=1e-9)
    boot = run(judge, gold, strata=strata, strata_weights=weights, seed=1, n_resamples=3000)
    assert boot.estimate == res.estimate
    assert boot.standard_error == pytest.approx(res.standard_error, rel=0.07)


def test_strata_labelled_at_different_rates_need_their_weights():
    judge, gold, strata = stratified(seed=4)
    res = run(judge, gold, method="clt", strata=strata)
    naive = run(judge, gold, method="clt")
    # the labelled items over-represent the hard stratum: the unstratified gold-only
    # mean of A is pulled towards it, the stratified one is not
    truth_a = (300 * -1.0 + 500 * 1.0) / 800
    assert abs(res.gold_only.score_a.estimate - truth_a) < 0.15
    assert naive.gold_only.score_a.estimate < truth_a - 0.4
    assert res.n_strata == 2 and res.n_gold == naive.n_gold


def test_strata_refusals():
    judge, gold, strata = stratified(seed=5)
    few = gold.copy()
    rows = np.flatnonzero((strata == "s1") & ~np.isnan(gold[:, 0]))
    few[rows[1:]] = np.nan
    with pytest.raises(InputError, match="stratum 's1' has 1 labelled") as info:
        run(judge, few, strata=strata, method="clt")
    assert info.value.param == "strata"
    groups = np.arange(len(strata)) // 7  # (group 42 spans both strata: rows 294-300)
    with pytest.raises(InputError, match="spans more than one stratum"):
        run(judge, gold, strata=strata, groups=groups, method="clt")
    with pytest.raises(InputError, match="without `strata`"):
        run(judge, gold, strata_weights={"s0": 1}, method="clt")
    with pytest.raises(InputError, match="no weight for"):
        run(judge, gold, strata=strata, strata_weights={"s0": 1}, method="clt")


def test_a_judge_that_favours_a_is_shown_and_one_that_does_not_is_not():
    judge, gold, lab = judged(seed=21, share=0.4)
    favours = run(judge, gold, seed=1, n_resamples=2000)
    # gold - judge on the labelled items, of B - A and of each system (numpy)
    off = gold[lab] - judge[lab]
    assert favours.bias.estimate == pytest.approx(np.mean(off[:, 1] - off[:, 0]), rel=1e-12)
    assert favours.bias_a.estimate == pytest.approx(off[:, 0].mean(), rel=1e-12)
    assert favours.bias_b.estimate == pytest.approx(off[:, 1].mean(), rel=1e-12)
    assert favours.bias.estimate > 0 and favours.bias_p_value < 0.01
    assert "The judge favours A" in str(favours)
    fair, gold, _ = judged(seed=21, share=0.4, bias=(0.2, 0.2))
    even = run(fair, gold, method="clt")
    assert even.bias_p_value > 0.05
    assert "does not differ between A and B" in str(even)
