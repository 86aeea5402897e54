"""The paired permutation test's error rates, and its agreement with other references.

References and the tolerance each takes (K_SIGMA Monte Carlo standard errors, conftest):

1. type I error under simulated nulls (slow): continuous means, 0/1 scores with equal
   accuracies, clusters swapped whole (and the inflation when the clusters are ignored),
   pooled F1.  With R random swaps and ``p = (1 + c) / (R + 1)``, T and its R permuted
   copies are exchangeable under the null, so ``P(p <= k / (R + 1)) = k / (R + 1)`` for
   continuous data: the rejection rate at alpha = 10 / 200 is alpha exactly, and is held
   to within K_SIGMA binomial standard errors of it on both sides (not inflated, not
   grossly conservative).  For 0/1 scores the exact rejection rate is computed here from
   the binomial law of the discordant pairs' swaps and the simulation must match it;
2. power rising with n at a true difference;
3. corpus BLEU against sacrebleu's paired approximate randomization
   (``sacrebleu.significance.PairedTest(..., test_type="ar")``): the observed BLEU
   difference to 1e-9 and the two p-values within both Monte Carlo errors;
4. the exact enumeration (20 units) against the random swaps of the same data plus one
   unit with A = B (21 units: the null is unchanged but the random path is taken).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import K_SIGMA
from scipy import stats

import pairboot
from pairboot.errors import PairbootWarning

ALPHA = 0.05
R = 199  # alpha (R + 1) = 10 is an integer: p <= alpha has probability alpha exactly

# small simulated data sets and few resamples on purpose: the notes about them (few items,
# few resamples for the interval) are not what these tests are about
pytestmark = pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")


def rejects(p: float, alpha: float = ALPHA) -> bool:
    """``p <= alpha``, the rule under which ``(1 + c) / (R + 1)`` is valid (a hair of
    slack: 10 / 200 is the double nearest 0.05, but be safe)."""
    return p <= alpha + 1e-12


def binomial_se(rate: float, n_sim: int) -> float:
    return math.sqrt(rate * (1 - rate) / n_sim)


def simulate(make, n_sim: int, seed: int, *, units: int, n_resamples: int = R, **kwargs):
    """The permutation p-values of ``n_sim`` data sets ``make(rng) -> (a, b, extra)``,
    each with its own seed for the swaps; every one must take the random path over
    ``units`` units."""
    rng = np.random.default_rng(seed)
    out = np.empty(n_sim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        for s in range(n_sim):
            a, b, extra = make(rng)
            test = pairboot.compare(a, b, test="permutation", n_resamples=n_resamples,
                                    seed=s, **extra, **kwargs).test
            assert not test.exact and test.n == units
            assert len(test.null_distribution) == n_resamples
            out[s] = test.p_value
    return out


def rate_of(p_values, alpha: float = ALPHA) -> float:
    return float(np.mean([rejects(p, alpha) for p in p_values]))


def assert_uniform(p_values, n_resamples: int = R, bins: int = 10):
    """For continuous data ``p`` is uniform on {1, ..., R + 1} / (R + 1): a chi-square over
    ``bins`` equally likely blocks of those values, p > 1e-6 (conftest's threshold)."""
    k = np.rint(np.asarray(p_values) * (n_resamples + 1)).astype(int)  # 1 .. R + 1
    assert k.min() >= 1 and k.max() <= n_resamples + 1
    assert (n_resamples + 1) % bins == 0
    counts = np.bincount((k - 1) // ((n_resamples + 1) // bins), minlength=bins)
    pval = stats.chisquare(counts).pvalue
    assert pval > 1e-6, (counts, pval)


# --- 1. type I error under the null ------------------------------------------------------------


def exchangeable_pairs(n):
    """Item effects shared by A and B and iid skewed noise on each: (A, B) and (B, A) have
    the same joint law, item by item."""
    def make(rng):
        item = rng.normal(0.0, 1.0, n)
        a = item + rng.exponential(1.0, n)
        b = item + rng.exponential(1.0, n)
        return a, b, {}
    return make


@pytest.mark.slow
def test_type_one_error_of_a_mean_is_alpha():
    n_sim = 1200
    p = simulate(exchangeable_pairs(60), n_sim, seed=101, units=60)
    rate = rate_of(p)
    tol = K_SIGMA * binomial_se(ALPHA, n_sim)
    # at most alpha, and not grossly conservative either: the rate is alpha exactly
    assert rate <= ALPHA + tol, (rate, tol)
    assert rate >= ALPHA - tol, (rate, tol)
    # and the whole p-value is uniform on its grid, not only its 5% point
    for level in (0.01, 0.1, 0.25, 0.5):
        lvl_rate = rate_of(p, level)
        assert abs(lvl_rate - level) <= K_SIGMA * binomial_se(level, n_sim), (level, lvl_rate)
    assert_uniform(p)


def rejection_probability_of_01(n, discordant, n_resamples=R, alpha=ALPHA):
    """The exact rejection probability of the permutation test of a mean of 0/1 scores
    when each pair is discordant with probability ``discordant``, either way equally.

    With D discordant pairs, K of them (0, 1): T = (2K - D) / n and a swap gives
    T* = (2X - D) / n, X ~ Binomial(D, 1/2), so one permutation reaches |T*| >= |T| with
    probability q = P(|2X - D| >= |2K - D|); the count c of R is Binomial(R, q), and the
    test rejects when (1 + c) / (R + 1) <= alpha.  Averaged over D ~ Binomial(n, d) and
    K | D ~ Binomial(D, 1/2)."""
    c_max = math.floor(alpha * (n_resamples + 1) + 1e-9) - 1
    total = 0.0
    for d in range(n + 1):
        p_d = stats.binom.pmf(d, n, discordant)
        x = np.arange(d + 1)
        px = stats.binom.pmf(x, d, 0.5)
        dist = np.abs(2 * x - d)
        for k in range(d + 1):
            q = float(px[dist >= abs(2 * k - d)].sum())
            total += p_d * px[k] * stats.binom.cdf(c_max, n_resamples, min(q, 1.0))
    return total


@pytest.mark.slow
def test_type_one_error_of_01_scores_with_equal_accuracies():
    # a symmetric 2x2 table: both right 0.55, both wrong 0.25, one of them right 0.1 each
    n, n_sim = 60, 1200
    cells = np.array([0.55, 0.25, 0.10, 0.10])  # (1, 1), (0, 0), (1, 0), (0, 1)
    pairs = np.array([[1, 1], [0, 0], [1, 0], [0, 1]], dtype=float)

    def make(rng):
        ab = pairs[rng.choice(4, size=n, p=cells)]
        return ab[:, 0], ab[:, 1], {}

    p = simulate(make, n_sim, seed=202, units=n)
    rate = rate_of(p)
    expected = rejection_probability_of_01(n, 0.2)
    assert expected <= ALPHA  # (the oracle itself: a valid, discrete, conservative test)
    tol = K_SIGMA * binomial_se(expected, n_sim)
    assert rate <= ALPHA + K_SIGMA * binomial_se(ALPHA, n_sim), (rate, expected)
    assert abs(rate - expected) <= tol, (rate, expected, tol)


def clustered(n_groups, size, tau=1.0, sigma=1.0):
    """Items in groups; each group's differences share an effect h_g ~ N(0, tau^2):
    d = h_g + e, A = base - d / 2, B = base + d / 2.  A whole group's A and B are
    exchangeable (d -> -d has the same law), a single item's are not (its d shares h_g's
    sign with its group's)."""
    groups = np.repeat(np.arange(n_groups), size)

    def make(rng):
        base = rng.normal(0.0, 1.0, n_groups * size)
        d = np.repeat(rng.normal(0.0, tau, n_groups), size) + rng.normal(0.0, sigma,
                                                                         n_groups * size)
        return base - d / 2, base + d / 2, {"groups": groups}
    return make


@pytest.mark.slow
def test_type_one_error_with_clusters_and_the_inflation_without_them():
    n_groups, size, n_sim = 30, 4, 600
    make = clustered(n_groups, size)
    p_groups = simulate(make, n_sim, seed=303, units=n_groups)

    def ungrouped(rng):
        a, b, _ = make(rng)
        return a, b, {}

    p_items = simulate(ungrouped, n_sim, seed=303, units=n_groups * size)
    tol = K_SIGMA * binomial_se(ALPHA, n_sim)
    rate_groups, rate_items = rate_of(p_groups), rate_of(p_items)
    assert rate_groups <= ALPHA + tol, (rate_groups, rate_items)
    assert rate_groups >= ALPHA - tol, (rate_groups, rate_items)  # exact: alpha
    # ignoring the groups: the item swaps see the within-group spread only, the design
    # effect 1 + (size - 1) ICC = 2.5 (ICC 1/2) narrows the null by sqrt(2.5), about
    # 21% rejections of a nominal 5% test
    assert rate_items > ALPHA + tol, (rate_groups, rate_items)
    assert rate_items - rate_groups > K_SIGMA * math.sqrt(
        binomial_se(rate_items, n_sim) ** 2 + binomial_se(rate_groups, n_sim) ** 2), (
        rate_groups, rate_items)
    assert rate_items > 0.12, rate_items


@pytest.mark.slow
def test_type_one_error_of_pooled_f1():
    # per item: k gold positives; each system finds each with the item's own probability
    # and adds Poisson false positives, independently: A and B iid given the item
    n, n_sim = 60, 800

    def counts(rng, k, found, spurious):
        tp = rng.binomial(k, found)
        return np.column_stack([tp, rng.poisson(spurious), k - tp]).astype(float)

    def make(rng):
        k = rng.poisson(3.0, n)
        found = rng.beta(3.0, 2.0, n)
        spurious = rng.gamma(2.0, 0.5, n)
        return counts(rng, k, found, spurious), counts(rng, k, found, spurious), {}

    p = simulate(make, n_sim, seed=404, units=n, metric="f1")
    rate = rate_of(p)
    assert rate <= ALPHA + K_SIGMA * binomial_se(ALPHA, n_sim), rate
    assert rate >= ALPHA - K_SIGMA * binomial_se(ALPHA, n_sim), rate  # (few exact ties)


# --- 2. power --------------------------------------------------------------------------------


def test_power_rises_with_the_items():
    # B - A ~ N(0.2, 1): about 29% power at 50 items, 81% at 200 (the z-test's)
    n_sim, rates = 60, {}
    for n in (50, 200):
        def make(rng, n=n):
            a = rng.normal(0.0, 1.0, n)
            return a, a + rng.normal(0.2, 1.0, n), {}
        rates[n] = rate_of(simulate(make, n_sim, seed=505 + n, units=n))
    se = math.sqrt(sum(binomial_se(r, n_sim) ** 2 for r in rates.values()))
    assert rates[200] - rates[50] > K_SIGMA * se, rates


# --- 3. corpus BLEU against sacrebleu's paired approximate randomization --------------------

VOCAB = ("the a cat dog bird sat ran flew on under over mat rug tree big small red "
         "blue quickly slowly house saw").split()


def edited(rng, words, rate):
    """``words`` with each word deleted, substituted or followed by an insertion, each
    with probability rate / 3."""
    out = []
    for w in words:
        u = rng.random()
        if u < rate / 3:
            continue
        if u < 2 * rate / 3:
            out.append(str(rng.choice(VOCAB)))
        elif u < rate:
            out += [w, str(rng.choice(VOCAB))]
        else:
            out.append(w)
    return " ".join(out)


def corpus(seed, n, rate_a, rate_b):
    rng = np.random.default_rng(seed)
    refs, hyp_a, hyp_b = [], [], []
    for _ in range(n):
        ref = [str(w) for w in rng.choice(VOCAB, int(rng.integers(6, 15)))]
        refs.append(" ".join(ref))
        hyp_a.append(edited(rng, ref, rate_a))
        hyp_b.append(edited(rng, ref, rate_b))
    return refs, hyp_a, hyp_b


def test_corpus_bleu_agrees_with_sacrebleus_paired_approximate_randomization(monkeypatch):
    pytest.importorskip("sacrebleu")
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    refs, hyp_a, hyp_b = corpus(7, 80, 0.36, 0.32)

    def sufficient(hyps):
        # the per-sentence counts are the corpus computation's whatever effective_order
        # (docs/metrics.md); effective_order=True only silences sacrebleu's advice
        scorer = BLEU(effective_order=True)
        rows = [scorer.sentence_score(h, [r]) for h, r in zip(hyps, refs)]
        return np.array([[s.sys_len, s.ref_len, *s.counts, *s.totals] for s in rows], float)

    sa, sb = sufficient(hyp_a), sufficient(hyp_b)
    np.testing.assert_array_equal(sa, np.array(BLEU()._extract_corpus_statistics(hyp_a, [refs])))
    bleu_a = BLEU().corpus_score(hyp_a, [refs]).score
    bleu_b = BLEU().corpus_score(hyp_b, [refs]).score

    trials = 5000
    res = pairboot.compare(sa, sb, metric="bleu", test="permutation", n_resamples=trials,
                           seed=11)
    ours = res.test
    assert not ours.exact and ours.n == 80 and len(ours.null_distribution) == trials
    assert ours.statistic == pytest.approx(bleu_b - bleu_a, rel=0, abs=1e-9)
    assert res.estimate == pytest.approx(bleu_b - bleu_a, rel=0, abs=1e-9)
    assert res.score_a.estimate == pytest.approx(bleu_a, rel=0, abs=1e-9)
    assert res.score_b.estimate == pytest.approx(bleu_b, rel=0, abs=1e-9)

    # sacrebleu's AR (sacrebleu/significance.py, _paired_ar_test): every sentence swaps
    # with probability 1/2, |BLEU_a* - BLEU_b*| > |BLEU_a - BLEU_b| counted, p = (c + 1) /
    # (R + 1); its seed comes from SACREBLEU_SEED.  Strict > against our >= only differs on
    # exact ties, which continuous BLEU values almost never make.
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    _, scores = PairedTest([("A", hyp_a), ("B", hyp_b)], {"BLEU": BLEU()}, [refs],
                           test_type="ar", n_samples=trials)()
    baseline, system = scores["BLEU"]
    assert system.score == pytest.approx(bleu_b, abs=1e-9)
    assert baseline.score == pytest.approx(bleu_a, abs=1e-9)
    ref = system.p_value
    assert 0.05 < ref < 0.95, ref  # (a p-value with room on both sides)
    se = math.sqrt(2 * ref * (1 - ref) / trials)  # both Monte Carlo errors, in quadrature
    assert abs(ours.p_value - ref) <= K_SIGMA * se, (ours.p_value, ref, se)


# --- 4. the exact enumeration and the random swaps agree --------------------------------------


@pytest.mark.parametrize("metric", ["mean", pytest.param("f1", marks=pytest.mark.slow)])
def test_exact_and_random_p_values_agree(metric):
    rng = np.random.default_rng(606)
    if metric == "mean":
        a = rng.normal(0.0, 1.0, 20)
        b = a + rng.normal(0.1, 1.0, 20)
        same = np.array([0.7])  # one more item, scored 0.7 by both: d = 0
    else:
        a = rng.integers(0, 5, (20, 3)).astype(float)
        b = rng.integers(0, 5, (20, 3)).astype(float)
        same = np.zeros((1, 3))  # an item without counts adds nothing to either sum
    trials = 20_000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        exact = pairboot.compare(a, b, metric=metric, test="permutation",
                                 n_resamples=trials, seed=1).test
        rand = pairboot.compare(np.concatenate([a, same]), np.concatenate([b, same]),
                                metric=metric, test="permutation", n_resamples=trials,
                                seed=2).test
    assert exact.exact and exact.n == 20 and len(exact.null_distribution) == 2**20
    assert not rand.exact and rand.n == 21 and len(rand.null_distribution) == trials
    p = exact.p_value
    assert 0.05 < p < 0.95, p
    # (1 + c) / (R + 1) is a hair above c / R: at most 1 / (R + 1)
    tol = K_SIGMA * math.sqrt(p * (1 - p) / trials) + 1 / (trials + 1)
    assert abs(rand.p_value - p) <= tol, (rand.p_value, p, tol)
    # the zero-difference item rescales a mean (20 -> 21 items) and changes nothing in F1
    scale = 20 / 21 if metric == "mean" else 1.0
    assert rand.statistic == pytest.approx(exact.statistic * scale, rel=1e-12)
    # the random null is a sample of the exact one: its variance within the Monte Carlo
    # error of a sample variance of the exact (symmetric, mean 0) atoms
    atoms = exact.null_distribution * scale
    var, mu4 = float(np.mean(atoms**2)), float(np.mean(atoms**4))
    if metric == "mean":
        d = b - a
        assert var == pytest.approx(float(np.sum(d**2)) / 21**2, rel=1e-9)  # sum d^2 / n^2
    got = float(np.var(rand.null_distribution, ddof=1))
    assert abs(got - var) <= K_SIGMA * math.sqrt((mu4 - var**2) / trials), (got, var)
    assert abs(float(np.mean(rand.null_distribution))) <= K_SIGMA * math.sqrt(var / trials)
