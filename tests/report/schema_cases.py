"""Example JSON reports of every kind: what test_schemas.py validates against the shipped
schemas, and what ``tools/schema_draft.py --cases`` infers a draft schema from.

:func:`examples` yields ``(name, result, context)``: every case of :mod:`writer_cases`
(two systems in every design, families under every correction, planned comparisons),
then the cases below, for the kinds and the fields those do not reach (several metrics,
a gate, an A/A floor, a pass^k curve; a comparison with its noise floor, its flaky items,
the suite estimand).  A new kind of JSON report adds its cases to :data:`EXTRA`: the
schema test fails, naming the type, while a type with a ``json`` writer has none.
"""

from __future__ import annotations

import warnings

import numpy as np

R = 400


def _trials(n=40, trials=4, seed=11, shift=0.1):
    """Two systems' 0/1 outcomes, items x trials."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.2, 0.9, n)
    a = (rng.random((n, trials)) < p[:, None]).astype(float)
    b = (rng.random((n, trials)) < np.clip(p + shift, 0, 1)[:, None]).astype(float)
    return a, b


def _columns(n=120, seed=2, shift=0.03):
    rng = np.random.default_rng(seed)
    q = rng.normal(0.0, 1.0, n)
    a = {"score": q + rng.normal(0.0, 0.3, n), "cost": rng.gamma(2.0, 0.01, n),
         "ok": (rng.random(n) < 0.8) * 1.0, "violation": (rng.random(n) < 0.02) * 1.0}
    b = {"score": q + rng.normal(shift, 0.3, n), "cost": a["cost"] * 0.97,
         "ok": np.where(rng.random(n) < 0.9, a["ok"], 1.0 - a["ok"]),
         "violation": (rng.random(n) < 0.02) * 1.0}
    return a, b, np.repeat(["math", "code", "qa"], n // 3)


def _extra():
    """``(name, result, context)`` of the kinds and fields writer_cases does not cover."""
    import pairboot
    from pairboot import Criterion, Gate, Rule
    from pairboot.io.common import CommonItems
    from pairboot.report import FamilyContext, MetricsContext, ReportContext

    common = dict(n_resamples=R, seed=7, backend="numpy")
    rng = np.random.default_rng(5)
    base = rng.random(60)
    rerun = np.clip(base + rng.normal(0, 0.03, 60), 0, 1)
    new = np.clip(base + rng.normal(0.05, 0.1, 60), 0, 1)
    ta, tb = _trials()
    a, b, tasks = _columns()
    metrics = {"score": "mean", "cost": Criterion(lower_is_better=True, margin=0.001),
               "ok": "mean", "violation": Criterion(lower_is_better=True)}
    out = []
    # two systems: the fields no writer case reaches
    floor = pairboot.noise_floor(base, rerun, **common)
    out.append(("compare noise floor", pairboot.compare(base, new, noise_floor=(
        base, rerun), **common), ReportContext(name_a="base", name_b="new")))
    out.append(("compare flaky", pairboot.compare(ta, tb, runs="samples", **common), None))
    out.append(("compare flaky ids", pairboot.compare(
        ta, tb, runs="samples", ids=np.array([f"t{i}" for i in range(len(ta))]), **common),
        None))
    out.append(("compare suite", pairboot.compare(ta, tb, runs="samples", estimand="suite",
                                                  **common), None))
    # a family of files with items dropped to their common set
    kept = CommonItems(kept=50, total=60, sources=("a.csv", "b.csv", "c.csv"),
                       sizes=(60, 55, 50))
    out.append(("family common items", pairboot.compare_many(
        {"a": base[:50], "b": new[:50], "c": rerun[:50]}, **common),
        FamilyContext(items_kept=kept, files=("a.csv", "b.csv", "c.csv"))))
    tc, _ = _trials(seed=12)
    out.append(("family suite", pairboot.compare_many(
        {"a": ta, "b": tb, "c": tc}, runs="samples", estimand="suite", **common), None))
    # an A/A floor
    out.append(("noise plain", floor, None))
    out.append(("noise runs", pairboot.noise_floor(ta, tb, runs="samples", **common), None))
    out.append(("noise groups one-sided", pairboot.noise_floor(
        base, rerun, groups=np.repeat(np.arange(15), 4), alternative="greater", **common),
        None))
    # a pass^k / pass@k curve
    out.append(("curve pass^k", pairboot.trials_curve(ta, tb, seed=7, n_resamples=R), None))
    out.append(("curve pass@k", pairboot.trials_curve(ta, tb, kind="pass@k", ks=[1, 3],
                                                      names=("base", "new"), seed=7,
                                                      n_resamples=R), None))
    # several metrics
    out.append(("metrics plain", pairboot.compare_metrics(a, b, metrics=metrics, **common),
                MetricsContext(files=("a.csv", "b.csv"))))
    out.append(("metrics max-t non-inferiority", pairboot.compare_metrics(
        a, b, metrics={"score": Criterion(margin=0.05), "ok": Criterion(margin=0.02)},
        hypothesis="non-inferiority", correction="max-t", strata=tasks, **common), None))
    out.append(("metrics holm", pairboot.compare_metrics(
        a, b, metrics=metrics, correction="holm", names=("base", "new"), **common), None))
    # plans: the fields the writer cases' plans leave out
    runs_a = base[:, None] + rng.normal(0, 0.05, (60, 3))
    runs_b = new[:, None] + rng.normal(0, 0.05, (60, 3))
    out.append(("power runs", pairboot.power(runs_a, runs_b, runs="seeds", n_runs=4,
                                             delta=0.05, power=0.8), None))
    out.append(("power trials", pairboot.power(rate_a=0.5, rate_sd=0.3, shift_sd=0.5,
                                               metric="pass^3", runs="samples", n_runs=6,
                                               delta=0.1, power=0.8), None))
    out.append(("power mcnemar", pairboot.power(
        (base > 0.5) * 1.0, (new > 0.45) * 1.0, delta=0.05, power=0.8, test="mcnemar"),
        None))
    out.append(("power sds", pairboot.power(sd_a=0.3, sd_b=0.35, correlation=0.5,
                                            delta=0.05, power=0.8), None))
    out.append(("power groups cv", pairboot.power(sd=0.5, delta=0.1, power=0.8, group_size=4,
                                                  icc=0.1, group_size_cv=0.5), None))
    # a gate
    gate = Gate(metrics, (Rule("score", "non-inferior", margin=0.05, tasks="each"),
                          Rule("score", "at-least", tasks="each", at_least=2),
                          Rule("violation", "upper-bound", bound=0.05),
                          Rule("ok", "regressions", bound=0.2),
                          Rule("cost", "superior", require="any")))
    out.append(("gate tasks", pairboot.check_gate(a, b, gate, tasks=tasks, n_resamples=R,
                                                  seed=3, backend="numpy"), None))
    out.append(("gate one row", pairboot.check_gate(
        a, b, Gate(metrics, (Rule("score", "superior"),), inconclusive="pass"),
        names=("base", "new"), n_resamples=R, seed=3, backend="numpy"), None))
    return out + _judged() + _sequences()


def _sequences():
    """``(name, result, context)`` of confidence sequences (:func:`pairboot.sequential`):
    decided, stopped by the budget, undecided, with a margin, groups, a ratio, a pooled
    F1 of groups."""
    import pairboot

    rng = np.random.default_rng(9)
    u = rng.random(800)
    d = np.where(u < 0.06, -1.0, np.where(u < 0.2, 1.0, 0.0))
    a = np.where(d == 0, rng.random(800) < 0.6, d < 0).astype(float)
    b = a + d
    x = rng.normal(0.0, 1.0, 300)
    y = x + rng.normal(0.02, 0.5, 300)
    return [
        ("sequential betting", pairboot.sequential(bounds=(0, 1), grid_size=200)
         .update(a, b), None),
        ("sequential budget", pairboot.sequential(bounds=(0, 1), budget=40, grid_size=200)
         .update(a, b), None),
        ("sequential asymptotic undecided", pairboot.sequential().update(x, y),
         None),
        ("sequential non-inferiority one-sided", pairboot.sequential(
            hypothesis="non-inferiority", margin=0.1, alternative="greater",
            lower_is_better=True).update(x, y - 0.05), None),
        ("sequential groups", pairboot.sequential(bounds=(0, 1), grid_size=200).update(
            a, b, groups=np.repeat(np.arange(400), 2)), None),
        ("sequential ratio", pairboot.sequential(metric="ratio").update(
            np.column_stack([np.abs(x), np.ones(300)]),
            np.column_stack([np.abs(x) + 0.2, np.ones(300)])), None),
        ("sequential f1 groups", pairboot.sequential(metric="f1").update(
            np.column_stack([a, 1 - a, 1 - a]), np.column_stack([b, 1 - b, 1 - b]),
            groups=np.repeat(np.arange(400), 2)), None),
    ]


def _judged():
    """``(name, result, context)`` of the kinds merged after the first schemas: a
    judge's scores with gold labels (PPI) and the labels to plan, two raters'
    agreement, an aggregate over tasks, ratings from battles."""
    import pairboot
    from pairboot.report.ppi import PPIContext

    out = []
    # prediction-powered B - A: a judge on every item, gold labels on a quarter
    rng = np.random.default_rng(0)
    n = 240
    quality = rng.normal(0.5, 0.2, (n, 2)) + [0.0, 0.05]
    judge = quality + [0.1, 0.0] + rng.normal(0, 0.05, (n, 2))
    gold = np.where(rng.random(n)[:, None] < 0.3, quality, np.nan)
    ppi = dict(gold_a=gold[:, 0], gold_b=gold[:, 1])
    docs = np.repeat(np.arange(n // 4), 4)
    halves = np.where(np.arange(n) < n // 2, "first", "second")
    out.append(("ppi percentile", pairboot.compare_ppi(
        judge[:, 0], judge[:, 1], **ppi, n_resamples=R, seed=1), PPIContext(
        name_a="base", name_b="new", files=("judged.csv",),
        columns=("ja", "jb", "ga", "gb"))))
    out.append(("ppi clt groups lam", pairboot.compare_ppi(
        judge[:, 0], judge[:, 1], **ppi, groups=docs, lam=0.5, method="clt"), None))
    out.append(("ppi strata no-clip non-inferiority", pairboot.compare_ppi(
        judge[:, 0], judge[:, 1], **ppi, strata=halves,
        strata_weights={"first": 1, "second": 3}, clip=False, method="basic",
        hypothesis="non-inferiority", margin=0.05, n_resamples=R, seed=2), None))
    out.append(("ppi equivalence lower", pairboot.compare_ppi(
        judge[:, 0], judge[:, 1], **ppi, hypothesis="equivalence", margin=0.2,
        lower_is_better=True, method="normal", n_resamples=R, seed=3), None))
    blind = rng.random((n, 2))  # (a judge that does not track the gold: lam 0)
    out.append(("ppi blind judge one-sided", pairboot.compare_ppi(
        blind[:, 0], blind[:, 1], **ppi, alternative="greater", method="clt"), None))
    # pooled F1 from judged counts, judge calls as runs; a family of three systems
    tp = rng.integers(0, 4, (n, 2)).astype(float)
    counts = [np.column_stack([tp[:, s], rng.integers(0, 2, n), rng.integers(0, 2, n)])
              .astype(float) for s in (0, 1)]
    labelled = rng.random(n) < 0.4
    gold_counts = [np.where(labelled[:, None], c, np.nan) for c in counts]
    out.append(("ppi f1 clt", pairboot.compare_ppi(
        counts[0], counts[1], gold_a=gold_counts[0], gold_b=gold_counts[1], metric="f1",
        method="clt"), None))
    calls = judge[:, None, :] + rng.normal(0, 0.05, (n, 3, 2))
    out.append(("ppi runs", pairboot.compare_ppi(
        calls[:, :, 0], calls[:, :, 1], **ppi, runs="samples", n_resamples=R, seed=1),
        None))
    three_judge = {"base": judge[:, 0], "new": judge[:, 1], "third": judge[:, 1] + 0.02}
    three_gold = {"base": gold[:, 0], "new": gold[:, 1], "third": gold[:, 1]}
    out.append(("ppi family max-t", pairboot.compare_ppi_many(
        three_judge, three_gold, n_resamples=R, seed=1), None))
    out.append(("ppi family bonferroni clt baseline", pairboot.compare_ppi_many(
        three_judge, three_gold, baseline="base", correction="bonferroni", method="clt",
        groups=docs), None))
    # the gold labels to plan
    out.append(("labels half-width", pairboot.gold_labels(
        sd=1.0, correlation=0.7, n_items=5000, half_width=0.1), None))
    out.append(("labels delta one-sided", pairboot.gold_labels(
        sd=0.5, correlation=-0.9, n_items=2000, delta=0.05, power=0.9,
        alternative="greater", confidence_level=0.9), None))
    out.append(("labels out of reach", pairboot.gold_labels(
        sd=1.0, correlation=0.3, n_items=100, half_width=0.01), None))
    # two raters' agreement: a 1-5 scale, 0/1 verdicts, text categories
    first = rng.integers(1, 6, 120)
    second = np.clip(first + rng.integers(-1, 2, 120), 1, 5)
    out.append(("agreement default", pairboot.agreement(
        first, second, n_resamples=R, seed=1), None))
    out.append(("agreement every ordinal statistic groups", pairboot.agreement(
        first, second, statistics=("kappa-linear", "kappa-quadratic", "alpha-ordinal",
                                   "alpha-interval"), categories=[0, 1, 2, 3, 4, 5, 6],
        groups=np.repeat(np.arange(30), 4), method="basic", n_resamples=R, seed=2),
        None))
    verdict = (rng.random(80) < 0.7) * 1
    people = np.where(rng.random(80) < 0.85, verdict, 1 - verdict)
    out.append(("agreement verdicts", pairboot.agreement(
        verdict, people, statistics=("accuracy", "sensitivity", "specificity", "kappa"),
        method="normal", n_resamples=R, seed=3), None))
    out.append(("agreement text categories", pairboot.agreement(
        np.where(verdict == 1, "pass", "fail"), np.where(people == 1, "pass", "fail"),
        statistics="ac1", n_resamples=R, seed=4), None))
    # an aggregate over tasks, every aggregate and level resampled
    levels = np.repeat([0.2, 0.4, 0.5, 0.6, 0.8], 24)
    labels = np.repeat(["t1", "t2", "t3", "t4", "t5"], 24)
    scores = {name: (rng.random(120) < levels + shift) * 1.0
              for name, shift in (("base", 0.0), ("mid", 0.15), ("new", 0.17))}
    tasks = dict(tasks=labels, n_resamples=R, seed=1)
    out.append(("tasks win-rate both baseline", pairboot.compare_tasks(
        scores, aggregate="win-rate", resample="both", baseline="base", **tasks), None))
    out.append(("tasks mean", pairboot.compare_tasks(scores, **tasks), None))
    out.append(("tasks median tasks holm", pairboot.compare_tasks(
        scores, aggregate="median", resample="tasks", correction="holm", **tasks), None))
    out.append(("tasks iqm pairs none", pairboot.compare_tasks(
        scores, aggregate="iqm", pairs=[("base", "new")], correction="none", **tasks),
        None))
    out.append(("tasks optimality gap", pairboot.compare_tasks(
        scores, aggregate="optimality-gap", gamma=0.9, **tasks), None))
    out.append(("tasks borda lower", pairboot.compare_tasks(
        scores, aggregate="borda", lower_is_better=True, **tasks), None))
    nested = {f"t{t}": {name: 0.1 * t + shift + rng.normal(0, 0.3, (10, 4))
                        for name, shift in (("x", 0.0), ("y", 0.2))} for t in range(4)}
    out.append(("tasks runs seeds", pairboot.compare_tasks(
        nested, runs="seeds", n_resamples=R, seed=1), None))
    # ratings from battles: both orders of each pair (the position bias), or one
    battles = {"prompt": [], "a": [], "b": [], "verdict": [], "game": []}
    strength = {"x": 0.8, "y": 0.0, "z": -0.6}
    names = list(strength)
    for p in range(60):
        i, j = rng.choice(3, 2, replace=False)
        for game, (one, two) in enumerate(((names[i], names[j]), (names[j], names[i]))):
            d = strength[one] - strength[two] + 0.3
            v = "A=B" if rng.random() < 0.1 else (
                "A>B" if rng.random() < 1 / (1 + np.exp(-d)) else "B>A")
            for key, value in zip(battles, (f"q{p}", one, two, v, game)):
                battles[key].append(value)
    rate = dict(n_resamples=200, seed=3)
    out.append(("preferences bradley-terry", pairboot.compare_preferences(
        battles, **rate), None))
    out.append(("preferences davidson separate baseline", pairboot.compare_preferences(
        battles, model="davidson", ties="separate", baseline="y", anchor="y",
        anchor_rating=1200, **rate), None))
    one_order = {k: v for k, v in battles.items() if k != "game"}
    out.append(("preferences battles first ridge", pairboot.compare_preferences(
        one_order, cluster="battle", ridge=0.1, **rate), None))
    out.append(("preferences first order", pairboot.compare_preferences(
        battles, orders="first", **rate), None))
    return out


EXTRA = _extra
"""The cases beyond writer_cases' (a function: they are computed when asked)."""


def examples():
    """Every example result: ``(name, result, context)``."""
    from writer_cases import cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = [(name, result, context) for name, kind, result, context in cases()
                 if kind != "test"]
        return found + EXTRA()


def reports() -> list[tuple[str, str]]:
    """Every example's JSON report: ``(name, text)``."""
    from pairboot.report import render

    return [(name, render(result, "json", context)) for name, result, context in examples()]
