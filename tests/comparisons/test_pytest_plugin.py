"""The pytest plugin (``pairboot.pytest_plugin``, entry point ``pytest11``): its
``pairboot_gate`` fixture passes a test whose gate passes, fails one whose gate fails with
the gate's table (the interval in the output), skips an inconclusive one with the reason
(or as ``pairboot_inconclusive`` or ``inconclusive=`` say), run in pytest's own
``pytester``; and loading it imports no numpy."""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import pairboot
import pairboot.report

if sys.version_info >= (3, 11):
    import tomllib
else:  # (Python 3.10 has no tomllib; tomli is the same parser)
    import tomli as tomllib

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

SUITE = '''
import numpy as np
import pytest

from pairboot import Criterion, Gate, Rule

N = 240
GATE = Gate({"score": "mean", "cost": Criterion(lower_is_better=True)},
            (Rule("score", "non-inferior", margin=0.05), Rule("cost", "non-inferior",
                                                               margin=0.01)))


def data(shift):
    rng = np.random.default_rng(4)
    q = rng.normal(0.0, 1.0, N)
    a = {"score": q + rng.normal(0.0, 0.3, N), "cost": rng.gamma(2.0, 0.01, N)}
    b = {"score": q + rng.normal(shift, 0.3, N), "cost": a["cost"] * 0.97}
    return a, b


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("shift", [0.1, -0.2, -0.05])
def test_release(pairboot_gate, shift, request):
    a, b = data(shift)
    how = request.config.getoption("--how")
    res = pairboot_gate(a, b, GATE if how != "file" else "gate.toml", seed=2,
                        n_resamples=499, **({"inconclusive": how} if how not in
                                            ("", "file") else {}))
    assert res.verdict in ("pass", "inconclusive")
'''

CONFTEST = '''
def pytest_addoption(parser):
    parser.addoption("--how", default="")
'''

POLICY = '''
[gate]
[gate.metrics]
score = {}
cost = {lower_is_better = true}
[[gate.rows]]
metric = "score"
test = "non-inferior"
margin = 0.05
[[gate.rows]]
metric = "cost"
test = "non-inferior"
margin = 0.01
'''


def plugin_args() -> list[str]:
    """``-p pairboot.pytest_plugin`` unless pytest loads it already (pairboot installed
    with its entry point): it must not be registered twice."""
    installed = any(ep.value == "pairboot.pytest_plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "pairboot.pytest_plugin"]


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(test_suite=SUITE)
    pytester.makeconftest(CONFTEST)
    (pytester.path / "gate.toml").write_text(POLICY)
    return pytester


SHIFTS = {"0.1": "pass", "-0.2": "fail", "-0.05": "inconclusive"}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    """The suite's three gates decided by check_gate itself, on the same data and seed.

    Module-scoped, so that the modules these import are in the snapshot of sys.modules
    that pytester restores after each test: a module imported afresh by one in-process
    run and dropped after it would give the next run a second Gate class."""
    policy = tmp_path_factory.mktemp("policy") / "gate.toml"
    policy.write_text(POLICY)
    pairboot.read_gate(policy)
    ns: dict = {}
    exec(compile(SUITE, "suite", "exec"), ns)  # (the suite's own data and gate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {shift: pairboot.check_gate(*ns["data"](float(shift)), ns["GATE"], seed=2,
                                          n_resamples=499) for shift in SHIFTS}
    for res in out.values():
        str(res), pairboot.report.gate_reasons(res)
    return out


def test_a_gate_passes_fails_with_its_interval_or_skips_with_its_reason(results, suite):
    res = results
    assert {k: r.verdict for k, r in res.items()} == SHIFTS
    run = suite.runpytest(*plugin_args(), "-rfs", "--junitxml=out.xml")
    run.assert_outcomes(passed=1, failed=1, skipped=1)
    out = run.stdout.str()
    failed = res["-0.2"]
    row = next(r for r in failed.rows if r.verdict == "fail")
    low, high = row.interval
    assert "FAILED test_suite.py::test_release[-0.2]" in out
    assert "Gate: FAIL" in out and f"[{low:.4g}, {high:.4g}]" in out
    assert "pairboot gate inconclusive: " in out and "items would decide it" in out
    xml = (suite.path / "out.xml").read_text()  # (pytest's own JUnit: the verdicts)
    for verdict in SHIFTS.values():
        assert f'<property name="pairboot_verdict" value="{verdict}" />' in xml


@pytest.mark.parametrize(("how", "where", "outcome"), [
    ("fail", "ini", "failed"),
    *(pytest.param(*case, marks=pytest.mark.slow) for case in [  # (a pytest run each)
        ("pass", "ini", "passed"),
        ("pass", "call", "passed"),
        ("gate", "call", "failed"),  # (the gate's own: "fail")
        ("skip", "file", "skipped")]),  # (and the gate from a policy file's path)
])
def test_what_an_inconclusive_gate_does_is_configurable(results, suite, how, where,
                                                        outcome):
    assert results["-0.05"].verdict == "inconclusive"
    if where == "ini":
        suite.makeini(f"[pytest]\npairboot_inconclusive = {how}\n")
    extra = ["--how", "file" if where == "file" else how] if where != "ini" else []
    run = suite.runpytest(*plugin_args(), *extra, "test_suite.py::test_release[-0.05]")
    run.assert_outcomes(**{outcome: 1})


@pytest.mark.slow
def test_a_bad_setting_is_one_line_naming_it(results, suite):
    suite.makeini("[pytest]\npairboot_inconclusive = maybe\n")
    run = suite.runpytest(*plugin_args(), "test_suite.py::test_release[0.1]")
    run.assert_outcomes(failed=1)
    assert "the ini option pairboot_inconclusive must be one of skip, pass, fail, gate, " \
           "got 'maybe'" in run.stdout.str()


def test_the_plugin_is_declared_as_a_pytest11_entry_point():
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["entry-points"]["pytest11"] == {"pairboot": "pairboot.pytest_plugin"}


@pytest.mark.slow  # (a fresh Python process)
def test_loading_the_plugin_imports_no_numpy():
    code = ("import sys; import pairboot.pytest_plugin; "
            "print(sorted(m for m in ('numpy', 'pairboot.plans', 'pairboot.report') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(ROOT / "src")})
    assert out.stdout.strip() == "[]", out.stderr
