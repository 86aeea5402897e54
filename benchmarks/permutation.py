"""The paired permutation test against the bootstrap of the same data, and scipy's.

Issue 25's target: a permutation test costs at most 1.5x a bootstrap ``compare`` of the
same size (n = 1e5, R = 1e4), and is far ahead of scipy's ``permutation_test``
(``permutation_type="samples"`` on the per-item differences), side by side in one
process.  Then a family of five systems (all ten pairs): Westfall-Young's test beside
the bootstrap's max-t, and a plain numpy randomised Tukey HSD (a permutation of the
systems per item and permutation, by numpy's generator) as the peer.  Then corpus BLEU
on 3,000 sentences' statistics: pairboot's test against sacrebleu's paired approximate
randomization loop (``significance._paired_ar_test``: its swaps as a 0/1 matrix product,
then BLEU per trial in Python) on the same statistics.

    python benchmarks/permutation.py [--n 100000] [--resamples 10000] [--repeat 3]
"""

from __future__ import annotations

import warnings

import numpy as np
from timing import best, size_arguments  # (benchmarks/timing.py, beside this script)

import pairboot


def main() -> None:
    args = size_arguments(__doc__)
    rng = np.random.default_rng(0)
    a = rng.random(args.n)
    b = a + rng.normal(0.001, 0.1, args.n)
    warnings.simplefilter("ignore")
    for test in (None, "permutation"):  # (kernels loaded or compiled first)
        pairboot.compare(a, b, n_resamples=100, seed=1, test=test, backend="numba")
    boot = best(lambda: pairboot.compare(a, b, n_resamples=args.resamples, seed=1),
                args.repeat)
    both = best(lambda: pairboot.compare(a, b, n_resamples=args.resamples, seed=1,
                                         test="permutation"), args.repeat)
    perm = both - boot
    print(f"n = {args.n:,}, R = {args.resamples:,}, best of {args.repeat}")
    print(f"  pairboot bootstrap compare          {boot:8.2f} s")
    print(f"  ... with test='permutation'         {both:8.2f} s   the test alone "
          f"{perm:6.2f} s = {perm / boot:4.2f}x the bootstrap (target <= 1.5x)")
    try:
        from scipy.stats import permutation_test
    except ImportError:
        print("  (scipy is not installed: no peer)")
        return
    d = b - a
    reps = max(100, args.resamples // 10)  # (scipy's loop is slow: a tenth, scaled up)
    t = best(lambda: permutation_test((d,), np.mean, permutation_type="samples",
                                      n_resamples=reps, vectorized=True,
                                      random_state=1), 1) * args.resamples / reps
    print(f"  scipy permutation_test (vectorised) {t:8.2f} s   pairboot's test "
          f"{t / perm:5.1f}x faster")
    family(args, rng)
    corpus_bleu(args)


def corpus_bleu(args, n: int = 3000) -> None:
    """pairboot's test of corpus BLEU against sacrebleu's AR loop, same statistics."""
    try:
        from sacrebleu.metrics import BLEU
    except ImportError:
        print("  (sacrebleu is not installed: no peer)")
        return
    from bench import bleu_statistics  # (benchmarks/bench.py, beside this script)

    a, b = bleu_statistics(n, 0)
    pairboot.compare(a, b, metric="bleu", n_resamples=100, seed=1, test="permutation")
    boot = best(lambda: pairboot.compare(a, b, metric="bleu", n_resamples=args.resamples,
                                         seed=1), args.repeat)
    both = best(lambda: pairboot.compare(a, b, metric="bleu", n_resamples=args.resamples,
                                         seed=1, test="permutation"), args.repeat)
    perm = both - boot
    metric = BLEU()
    reps = max(100, args.resamples // 10)

    def sacrebleu_ar():  # (its loop, minus the extraction of statistics from text)
        gen = np.random.default_rng(1)
        pos = gen.integers(2, size=(reps, n), dtype=bool)
        neg = ~pos
        shuf_a, shuf_b = pos @ a + neg @ b, neg @ a + pos @ b
        sa = [metric._aggregate_and_compute(x).score for x in shuf_a[:, None]]
        sb = [metric._aggregate_and_compute(x).score for x in shuf_b[:, None]]
        return np.abs(np.array(sa) - np.array(sb))

    t = best(sacrebleu_ar, 1) * args.resamples / reps
    print(f"corpus BLEU, {n:,} sentences, R = {args.resamples:,}")
    print(f"  pairboot compare, interval and test {both:8.2f} s   (the test alone about "
          f"{max(perm, 0.0):.2f} s)")
    print(f"  sacrebleu paired AR loop (test)     {t:8.2f} s   pairboot's interval and "
          f"test together {t / both:5.1f}x faster")


def family(args, rng, m: int = 5) -> None:
    """Five systems, all pairs: the family's permutation test against its bootstrap and
    a numpy loop of randomised Tukey HSD."""
    base = rng.random(args.n)
    scores = {f"s{j}": base + rng.normal(0.001 * j, 0.1, args.n) for j in range(m)}
    for test in (None, "permutation"):
        pairboot.compare_many(scores, n_resamples=100, seed=1, test=test, backend="numba")
    boot = best(lambda: pairboot.compare_many(scores, n_resamples=args.resamples, seed=1),
                args.repeat)
    both = best(lambda: pairboot.compare_many(scores, n_resamples=args.resamples, seed=1,
                                              test="permutation"), args.repeat)
    perm = both - boot
    print(f"{m} systems, all pairs, n = {args.n:,}, R = {args.resamples:,}")
    print(f"  pairboot compare_many (max-t)       {boot:8.2f} s")
    print(f"  ... with test='permutation'         {both:8.2f} s   the test alone "
          f"{perm:6.2f} s = {perm / boot:4.2f}x the bootstrap")
    x = np.column_stack(list(scores.values()))
    gen = np.random.default_rng(1)
    reps = max(10, args.resamples // 100)  # (a hundredth, scaled up)

    def tukey():
        for _ in range(reps):
            p = gen.permuted(np.broadcast_to(np.arange(m), x.shape), axis=1)
            means = np.take_along_axis(x, p, axis=1).mean(axis=0)
            np.abs(means[:, None] - means[None, :]).max()

    t = best(tukey, 1) * args.resamples / reps
    print(f"  numpy randomised Tukey HSD          {t:8.2f} s   pairboot's test "
          f"{t / perm:5.1f}x faster")


if __name__ == "__main__":
    main()
