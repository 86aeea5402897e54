"""Golden results: every case of ``tests/reference/golden/cases.py`` against
``tests/reference/golden/compare.json``.

The golden file was recorded from commit 7870465 (before the modules were restructured),
in a separate worktree so that no work in progress could leak into it, and re-recorded
whole for issues 21 and 22, where the results changed on purpose: the Monte Carlo error's
estimator (every case), the studentized interval keeping resamples without a standard
error (small_n_studentized), the warnings' words, and the observed sums taken column by
column (the last digits of a few estimates and studentized ends, by up to 3e-11).  The
bits of every distribution are 7870465's.  Issue 33 added the note on skewed
differences to the warnings of three cases (groups_in_strata_groups_basic,
ratio_undefined_resamples, recall_undefined_resamples), copied in alone.
A restructure that only moves code must reproduce it, on any processor: no BLAS kernel
or numpy exp/log (whose last bits vary with AVX-512) decides a recorded bit (the exact
multinomial path sums up to 64 distinct rows in order; its golden cases have fewer).

Re-record only deliberately, when a change of results is meant, and say in the commit
message which results change and why::

    git worktree add /tmp/golden-src HEAD       # the commit whose results are the reference
    PYTHONPATH=/tmp/golden-src/src python tests/reference/golden/record.py
    git worktree remove --force /tmp/golden-src

(``record.py`` prints the pairboot it imported; it must be the worktree's.)
"""

from __future__ import annotations

import json
import math

import pytest
from golden.cases import CASES
from golden.record import GOLDEN, run

# Moving code between modules keeps the arithmetic, and then every value is bit-identical
# (test_bootstrap_distribution_bits checks the bits).  The float tolerance only absorbs a
# reordering of the same arithmetic; a change that needs anything looser than this must be
# justified in its commit message.
REL, ABS = 1e-12, 1e-14


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def results() -> dict:
    """Each case is run once, for both tests of it."""
    return {}


def _result(results: dict, case: dict) -> dict:
    if case["name"] not in results:
        results[case["name"]] = run(case)
    return results[case["name"]]


def _differences(expected, actual, path: str = "") -> list[str]:
    """Where ``actual`` differs from ``expected``: floats to REL/ABS, the rest exactly."""
    if isinstance(expected, float) and isinstance(actual, float):
        if math.isclose(actual, expected, rel_tol=REL, abs_tol=ABS):
            return []
        return [f"{path}: {actual!r} != {expected!r} (golden)"]
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        if expected.keys() != actual.keys():
            out.append(f"{path}: keys {sorted(actual)} != {sorted(expected)} (golden)")
        for key in expected.keys() & actual.keys():
            out += _differences(expected[key], actual[key], f"{path}.{key}")
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {actual!r} != {expected!r} (golden)"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out += _differences(e, a, f"{path}[{i}]")
        return out
    if isinstance(expected, str) and isinstance(actual, str):
        # Messages: exactly, but for the backticks that now mark an argument's name
        # (`group_weighting='groups'`), added after the recording so that the command
        # line can spell arguments as its options (pairboot.errors.spell).
        actual, expected = actual.replace("`", ""), expected.replace("`", "")
    # ints, strings, bools, None ("NaN"), "inf": exactly, and of the same type
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path}: {actual!r} != {expected!r} (golden)"]
    return []


def test_every_case_is_recorded(golden):
    assert sorted(golden) == sorted(c["name"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden(case, golden, results):
    actual = _result(results, case)
    expected = golden[case["name"]]
    # the digest is checked on its own, below
    actual = {**actual, "bootstrap_distribution": {
        k: v for k, v in actual["bootstrap_distribution"].items() if k != "sha256"}}
    expected = {**expected, "bootstrap_distribution": {
        k: v for k, v in expected["bootstrap_distribution"].items() if k != "sha256"}}
    diffs = _differences(expected, actual)
    assert not diffs, f"{case['name']} differs from the golden results:\n" + "\n".join(diffs)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bootstrap_distribution_bits(case, golden, results):
    """Every resampled difference bit for bit (SHA-256 of the array's bytes)."""
    actual = _result(results, case)["bootstrap_distribution"]["sha256"]
    assert actual == golden[case["name"]]["bootstrap_distribution"]["sha256"], (
        f"{case['name']}: the bootstrap distribution changed in its bits (test_golden "
        "says whether beyond the tolerance)"
    )
