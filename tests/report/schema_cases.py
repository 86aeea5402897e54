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
