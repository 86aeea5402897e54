"""check_gate(): a declared policy of rows over metrics and tasks, one verdict.

References: compare() of the same metric on the same draws (a gate of one row decides as
compare()'s test of the same hypothesis); scipy's exact binomial test for a rate's bound
and the regressions' share; the partial conjunction and Holm of pairboot.stats (tested
against hand values there) on the tasks' p-values; and, slow, the intersection-union
gate's error rate at the boundary by simulation.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot import Criterion, Gate, Rule
from pairboot.errors import InputError
from pairboot.plans.gate import _verdict
from pairboot.report.registry import render
from pairboot.stats.fdr import partial_conjunction
from pairboot.stats.multiple import holm

quiet = pytest.mark.filterwarnings("ignore::pairboot.PairbootWarning")

N = 300
R = 999


def data(seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    tasks = np.repeat(["math", "code", "qa"], N // 3)
    q = rng.normal(0.0, 1.0, N)
    a = {"score": q + rng.normal(0.0, 0.3, N), "cost": rng.gamma(2.0, 0.01, N),
         "ok": (rng.random(N) < 0.8) * 1.0, "violation": (rng.random(N) < 0.01) * 1.0}
    b = {"score": q + rng.normal(shift, 0.3, N), "cost": a["cost"] * 0.97,
         "ok": np.where(rng.random(N) < 0.9, a["ok"], 1.0 - a["ok"]),
         "violation": (rng.random(N) < 0.01) * 1.0}
    return a, b, tasks


METRICS = {"score": "mean", "cost": Criterion(lower_is_better=True), "ok": "mean",
           "violation": Criterion(lower_is_better=True)}


@quiet
@pytest.mark.parametrize("margin", [0.02, 0.05, 0.1])
def test_one_row_decides_as_compares_test_of_the_same_hypothesis(margin):
    a, b, _ = data(seed=3, shift=-0.03)
    gate = Gate(METRICS, (Rule("score", "non-inferior", margin=margin),))
    res = pairboot.check_gate(a, b, gate, seed=5, n_resamples=R)
    ref = pairboot.compare(a["score"], b["score"], hypothesis="non-inferiority",
                           margin=margin, seed=5, n_resamples=R)
    (row,) = res.rows
    assert row.estimate == pytest.approx(ref.estimate, abs=1e-12)
    assert (row.verdict == "pass") == (ref.verdict in ("non-inferior", "better",
                                                         "better-by-margin"))
    assert row.p_value == pytest.approx(max(ref.p_value, 1 / (R + 1)), abs=1e-9)
    assert res.verdict == row.verdict  # (one row that must hold: the gate is that row)
    assert res.exit_status == (0 if row.verdict == "pass" else 1)


@quiet
def test_a_row_over_tasks_is_the_intersection_of_the_tasks():
    a, b, tasks = data(seed=1, shift=0.1)
    gate = Gate(METRICS, (Rule("score", "non-inferior", margin=0.05, tasks="each"),
                          Rule("score", "at-least", tasks="each", at_least=2)))
    res = pairboot.check_gate(a, b, gate, tasks=tasks, seed=2, n_resamples=R)
    worse, least = res.rows
    assert worse.tasks == ("math", "code", "qa")
    for t, e, p in zip(worse.tasks, worse.task_estimates, worse.task_p_values):
        on = tasks == t
        ref = pairboot.compare(a["score"][on], b["score"][on], hypothesis="non-inferiority",
                               margin=0.05, seed=res.seed, n_resamples=R)
        assert e == pytest.approx(ref.estimate, abs=1e-12)
        # (the gate's p is at least 1 / (B + 1), as a family's)
        assert p == pytest.approx(max(ref.p_value, 1 / (R + 1)), abs=1e-9)
    assert worse.p_value == max(worse.task_p_values)
    assert (worse.verdict == "pass") == (worse.p_value < 0.05)
    assert least.p_value == pytest.approx(partial_conjunction(
        np.array(least.task_p_values), 2))


@quiet
def test_a_rate_bound_and_the_regressions_are_exact_binomial_tests():
    scipy_stats = pytest.importorskip("scipy.stats")
    a, b, _ = data(seed=4)
    gate = Gate(METRICS, (Rule("violation", "upper-bound", bound=0.05),
                          Rule("ok", "regressions", bound=0.2)))
    res = pairboot.check_gate(a, b, gate, seed=1, n_resamples=R)
    bound, reg = res.rows
    x, n = int(b["violation"].sum()), N
    assert bound.estimate == x / n
    assert bound.p_value == pytest.approx(
        scipy_stats.binomtest(x, n, 0.05, alternative="less").pvalue, rel=1e-9)
    ci = scipy_stats.binomtest(x, n).proportion_ci(0.9, method="exact")
    assert bound.interval == pytest.approx((ci.low, ci.high), rel=1e-7)
    passed = a["ok"] == 1
    x, n = int((passed & (b["ok"] == 0)).sum()), int(passed.sum())
    assert reg.estimate == x / n
    assert reg.p_value == pytest.approx(
        scipy_stats.binomtest(x, n, 0.2, alternative="less").pvalue, rel=1e-9)
    assert bound.verdict == reg.verdict == "pass"


@quiet
def test_any_rows_not_on_one_draw_are_corrected_by_holm():
    a, b, tasks = data(seed=2, shift=0.05)
    gate = Gate(METRICS, (Rule("score", "superior", require="any"),
                          Rule("cost", "superior", tasks="each", require="any"),
                          Rule("ok", "non-inferior", margin=0.1)))
    res = pairboot.check_gate(a, b, gate, tasks=tasks, seed=3, n_resamples=R)
    anys = [r for r in res.rows if r.require == "any"]
    np.testing.assert_allclose([r.p_adjusted for r in anys],
                               holm(np.array([r.p_value for r in anys])))
    assert {r.correction for r in anys} == {"Holm"}
    assert res.verdict == _verdict(res.rows)


@quiet
def test_any_rows_over_the_whole_set_are_corrected_by_max_t_on_the_joint_draws():
    # reference: the Romano-Wolf stepdown from the definitions, on B's gain's joint
    # replicates (the result's own resamples), one-sided against each row's boundary
    a, b, _ = data(seed=2, shift=0.02)
    gate = Gate(METRICS, (Rule("score", "superior", require="any"),
                          Rule("cost", "superior", margin=0.0002, require="any"),
                          Rule("ok", "non-inferior", margin=0.1, require="any")))
    res = pairboot.check_gate(a, b, gate, seed=3, n_resamples=R)
    whole = res.metrics
    sign = np.array([-1.0 if r.lower_is_better else 1.0 for r in whole.rows])
    k = [whole.metrics.index(m) for m in ("score", "cost", "ok")]
    gain = (whole.bootstrap_distribution * sign)[:, k]
    est = np.array([whole.rows[j].estimate for j in k]) * sign[k]
    null = np.array([0.0, 0.0002, -0.1])
    sd = gain.std(axis=0, ddof=1)
    roots = (gain - est) / sd
    stat = (est - null) / sd
    order = np.argsort(-stat)
    raw = [(1 + np.sum(roots[:, order[i:]].max(axis=1) >= stat[order[i]])) / (R + 1)
           for i in range(3)]
    stepdown = np.empty(3)
    stepdown[order] = np.maximum.accumulate(raw)
    anys = [r for r in res.rows if r.require == "any"]
    np.testing.assert_allclose([r.p_adjusted for r in anys], stepdown, rtol=1e-12)
    assert {r.correction for r in anys} == {"max-t"}
    assert "max-t on their joint resamples" in " ".join(render(res, "text").split())


def _row(verdict, require="all"):
    from pairboot.results.metrics import GateRow

    return GateRow("r", "m", "superior", require, verdict, 0.5, None, None, None, None, (),
                   (), (), (), False, "", None, None)


@pytest.mark.parametrize(("must", "anys", "verdict"), [
    (["pass", "pass"], [], "pass"),
    (["pass", "inconclusive"], [], "inconclusive"),
    (["pass", "fail"], [], "fail"),
    (["inconclusive", "fail"], [], "fail"),
    (["pass"], ["fail", "pass"], "pass"),
    (["pass"], ["fail", "fail"], "fail"),
    (["pass"], ["fail", "inconclusive"], "inconclusive"),
    (["fail"], ["pass"], "fail"),
])
def test_how_the_rows_combine(must, anys, verdict):
    rows = [_row(v) for v in must] + [_row(v, "any") for v in anys]
    assert _verdict(rows) == verdict


@quiet
def test_inconclusive_rows_say_the_size_that_would_decide_them_and_the_exit_status():
    a, b, _ = data(seed=6, shift=0.01)
    rows = (Rule("score", "superior"),)
    res = pairboot.check_gate(a, b, Gate(METRICS, rows), seed=1, n_resamples=R)
    (row,) = res.rows
    assert row.verdict == "inconclusive", row
    assert row.needed_items is not None and row.needed_items > N
    assert res.exit_status == 1
    lenient = pairboot.check_gate(a, b, Gate(METRICS, rows, inconclusive="pass"), seed=1,
                                  n_resamples=R)
    assert lenient.verdict == "inconclusive" and lenient.exit_status == 0
    assert f"{row.needed_items:,} items" in render(res, "text")


@quiet
def test_a_junit_failure_lists_its_own_rows_tasks_alone():
    a, b, tasks = data(seed=1, shift=0.1)
    gate = Gate(METRICS, (Rule("score", "superior", margin=0.5, tasks="each", name="s"),
                          Rule("score", "superior", margin=0.6, tasks="each",
                               name="s [strict]")))
    res = pairboot.check_gate(a, b, gate, tasks=tasks, seed=1, n_resamples=R)
    assert [r.verdict for r in res.rows] == ["fail", "fail"]
    junit = render(res, "junit")
    first = junit[junit.index('name="s"'):junit.index('name="s [strict]"')]
    assert first.count("s [math]:") == 1 and "s [strict] [math]" not in first


@quiet
def test_the_junit_report_is_read_by_a_junit_consumer(tmp_path):
    junitparser = pytest.importorskip("junitparser")
    a, b, tasks = data(seed=1, shift=0.1)
    gate = Gate(METRICS, (Rule("score", "superior", margin=0.5),  # fails: shown not
                          Rule("score", "superior", margin=0.1, name="close"),
                          Rule("cost", "non-inferior", margin=0.01)))
    res = pairboot.check_gate(a, b, gate, tasks=tasks, seed=1, n_resamples=R)
    assert [r.verdict for r in res.rows] == ["fail", "inconclusive", "pass"]
    path = tmp_path / "gate.xml"
    path.write_text(render(res, "junit"))
    xml = junitparser.JUnitXml.fromfile(str(path))
    (suite,) = list(xml)
    cases = {c.name: [type(x).__name__ for x in c.result] for c in suite}
    assert cases == {"score: superior by 0.5": ["Failure"], "close": ["Skipped"],
                     "cost: non-inferior by 0.01": []}
    assert suite.tests == 3 and suite.failures == 1 and suite.skipped == 1


def test_a_policy_file_reads_as_the_same_gate(tmp_path):
    path = tmp_path / "gate.toml"
    path.write_text("""
[gate]
confidence_level = 0.9
inconclusive = "pass"
[gate.metrics]
score = {}
cost = {lower_is_better = true}
[[gate.rows]]
metric = "score"
test = "non-inferior"
margin = 0.05
tasks = "each"
[[gate.rows]]
metric = "cost"
test = "superior"
require = "any"
""")
    gate = pairboot.read_gate(path)
    assert gate.confidence_level == 0.9 and gate.inconclusive == "pass"
    assert gate.rules == (Rule("score", "non-inferior", margin=0.05, tasks="each"),
                          Rule("cost", "superior", require="any"))
    assert gate.criteria["cost"].lower_is_better
    import hashlib

    assert gate.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("text", "says"), [
    ("[gate]\n[gate.metrics]\ns = {}\n[[gate.rows]]\nmetric = 'x'\ntest = 'superior'\n",
     "names metric 'x'"),
    ("[gate]\n[gate.metrics]\ns = {}\n[[gate.rows]]\nmetric = 's'\ntest = 'better'\n",
     "test 'better' is not one of"),
    ("[gate]\n[gate.metrics]\ns = {}\n[[gate.rows]]\nmetric = 's'\ntest = 'non-inferior'\n"
     "margin = -0.1\n", "negative"),
    ("[gate]\n[gate.metrics]\ns = {}\n[[gate.rows]]\nmetric = 's'\ntest = 'non-inferior'\n",
     "needs a margin"),
    ("[gate]\n[gate.metrics]\ns = {}\n[[gate.rows]]\nmetric = 's'\ntest = 'superior'\n"
     "margin = 0.2\n[[gate.rows]]\nmetric = 's'\ntest = 'equivalent'\nmargin = 0.1\n",
     "contradict"),
    ("[gate]\n[gate.metrics]\ns = {}\n", "[[gate.rows]] is missing"),
    ("[gate]\nrows = []\n", "[gate.metrics] is missing"),
    ("[gate]\n[gate.metrics]\ns = {}\n[[gate.rows]]\nmetric = 's'\ntest = 'superior'\n"
     "colour = 1\n", "unknown key 'colour'"),
    ("[plan]\n", "no [gate] table"),
    ("[gate\n", "line 1, column 6: not valid TOML: expected ']'"),
    ("[gate]\nrows = [\n", "line 2 (the end): not valid TOML"),
])
def test_a_bad_policy_is_one_line_naming_the_file(tmp_path, text, says):
    path = tmp_path / "gate.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        pairboot.read_gate(path)
    message = str(info.value)
    assert says in message and str(path) in message and "\n" not in message


def test_a_policy_that_cannot_be_read_or_is_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "gate.toml"
    with pytest.raises(InputError, match=r"gate file .*gate\.toml: cannot be read \("):
        pairboot.read_gate(path)
    path.write_bytes(b"[gate]\nname = '\xff'\n")
    with pytest.raises(InputError, match=r"gate\.toml: not UTF-8 text \(byte 15\)") as info:
        pairboot.read_gate(path)
    assert info.value.param == "gate"


@quiet
def test_rows_that_cannot_be_checked_on_the_data_are_refused():
    a, b, tasks = data()
    with pytest.raises(InputError, match="no tasks were given"):
        pairboot.check_gate(a, b, Gate(METRICS, (Rule("score", "non-inferior", margin=0.1,
                                                      tasks="each"),)))
    with pytest.raises(InputError, match="task 'poetry'"):
        pairboot.check_gate(a, b, Gate(METRICS, (Rule("score", "superior",
                                                      tasks=("poetry",)),)), tasks=tasks)
    with pytest.raises(InputError, match="0/1 outcomes"):
        pairboot.check_gate(a, b, Gate(METRICS, (Rule("score", "upper-bound", bound=0.1),)))
    with pytest.raises(InputError, match="has no column 'cost'"):
        pairboot.check_gate({k: v for k, v in a.items() if k != "cost"}, b,
                            Gate(METRICS, (Rule("ok", "superior"),)))


@pytest.mark.slow
def test_the_intersection_union_gate_holds_its_level_at_the_boundary():
    # Two rows that must hold, each exactly at its null's boundary (B worse by the
    # margin on both metrics): the gate passes in at most alpha of the data sets, with
    # no correction (the intersection-union test), within the Monte Carlo error
    rng = np.random.default_rng(9)
    n, n_data, margin = 200, 150, 0.1
    passed = 0
    gate = Gate({"x": "mean", "y": Criterion(lower_is_better=True)},
                (Rule("x", "non-inferior", margin=margin),
                 Rule("y", "non-inferior", margin=margin)))
    for r in range(n_data):
        z = rng.normal(size=(n, 2))
        a = {"x": z[:, 0], "y": z[:, 1]}
        b = {"x": z[:, 0] + rng.normal(-margin, 0.5, n),
             "y": z[:, 1] + rng.normal(margin, 0.5, n)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.check_gate(a, b, gate, seed=r, n_resamples=499)
        passed += res.verdict == "pass"
    assert passed / n_data <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_data)


@quiet
def test_a_task_too_small_for_any_test_does_not_pass():
    # 4 items, every difference a tie or a gain: no resample goes below 0, so the
    # bootstrap's p of "non-inferior by 0.05" is 1 / (B + 1); but no test of 4 units can
    # say less than 2**-4 = 0.0625, so the row cannot pass at 5% (found on SimpleQA's
    # "Video games" topic of 4 questions)
    tasks = np.array(["big"] * 60 + ["tiny"] * 4)
    rng = np.random.default_rng(1)
    a = {"ok": np.concatenate([(rng.random(60) < 0.5) * 1.0, [0.0, 1.0, 0.0, 1.0]])}
    b = {"ok": np.concatenate([a["ok"][:60], [1.0, 1.0, 0.0, 1.0]])}
    gate = Gate({"ok": "mean"}, (Rule("ok", "non-inferior", margin=0.05, tasks=("tiny",)),))
    res = pairboot.check_gate(a, b, gate, tasks=tasks, seed=1, n_resamples=R)
    (row,) = res.rows
    assert row.task_p_values == (2.0 ** -4,)
    assert row.verdict == "inconclusive"


@pytest.mark.slow
def test_any_rows_hold_the_level_and_max_t_beats_bonferroni_on_correlated_metrics():
    # Three "any" rows on metrics correlated 0.9: under the complete null (no metric
    # better) the group passes in at most alpha of the data sets, by max-t as by Holm
    # (rows over tasks); with a small gain on all three, max-t's group passes more often
    # than Bonferroni's (the smallest p times 3), which ignores the correlation
    rng = np.random.default_rng(21)
    n, n_data = 150, 120
    cov = np.full((3, 3), 0.9) + 0.1 * np.eye(3)
    metrics = {"x": "mean", "y": "mean", "z": "mean"}
    rules = tuple(Rule(m, "superior", require="any") for m in metrics)
    gate = Gate(metrics, rules)
    passed = {0.0: 0, 0.12: 0}
    bonferroni = 0
    for shift in passed:
        for r in range(n_data):
            d = rng.multivariate_normal(np.full(3, shift), cov, size=n)
            a = {m: np.zeros(n) for m in metrics}
            b = {m: d[:, j] for j, m in enumerate(metrics)}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = pairboot.check_gate(a, b, gate, seed=r, n_resamples=499)
            passed[shift] += res.verdict == "pass"
            if shift:
                bonferroni += 3 * min(row.p_value for row in res.rows) < 0.05
    assert passed[0.0] / n_data <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_data)
    assert passed[0.12] > bonferroni
