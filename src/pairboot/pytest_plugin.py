"""A pytest plugin (entry point ``pytest11``, loaded by pytest wherever pairboot is
installed): the fixture :func:`pairboot_gate` turns a release gate into a test result, so
an evaluation suite run under pytest fails with the gate's reason.

::

    def test_release(pairboot_gate):
        a, b = load("baseline.csv"), load("candidate.csv")
        pairboot_gate(a, b, "gate.toml", tasks=a["task"], seed=1)

A passing gate passes the test; a failing one fails it with the gate's table (every row's
estimate, interval and p-value) and the rows that failed; an inconclusive one skips it
with the rows that could not be decided and the size that would decide them, or, as the
``pairboot_inconclusive`` ini option or the call's ``inconclusive=`` say, passes or fails
it (``"gate"``: as the policy's own ``inconclusive`` says).

pytest loads this module at start-up in every project where pairboot is installed, so it
imports nothing but pytest when loaded: numpy and the rest of pairboot are imported when
the fixture is first called.
"""

from __future__ import annotations

import pytest

__all__ = ["pairboot_gate"]

INCONCLUSIVE = ("skip", "pass", "fail", "gate")
"""What an inconclusive gate does to the test: skip it (the default), pass it, fail it,
or as the gate's own ``inconclusive`` says."""


def pytest_addoption(parser) -> None:
    parser.addini("pairboot_inconclusive", default="skip",
                  help="what an inconclusive pairboot gate does to its test: "
                       + ", ".join(INCONCLUSIVE) + " (default skip)")


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "pairboot: a test that decides a pairboot release gate (pairboot_gate)")


@pytest.fixture
def pairboot_gate(request):
    """A function ``check(a, b, gate, *, tasks=None, groups=None, names=("A", "B"),
    n_resamples=10_000, seed=None, inconclusive=None)`` that decides ``gate`` (a
    :class:`pairboot.Gate`, or the path of its TOML file) with :func:`pairboot.check_gate`
    and ends the test by its verdict; it returns the :class:`~pairboot.GateResult`
    when the test goes on (a pass, or an inconclusive gate counted as one).  The verdict
    and the policy's hash are recorded as the test's JUnit properties."""
    default = request.config.getini("pairboot_inconclusive") or "skip"

    def check(a, b, gate, *, tasks=None, groups=None, names=("A", "B"),
              n_resamples: int = 10_000, seed=None, inconclusive: str | None = None):
        import os

        import pairboot
        from pairboot.errors import InputError
        from pairboot.report import gate_reasons

        how = default if inconclusive is None else inconclusive
        if how not in INCONCLUSIVE:
            where = ("the ini option pairboot_inconclusive" if inconclusive is None
                     else "`inconclusive`")
            raise InputError(f"{where} must be one of {', '.join(INCONCLUSIVE)}, got "
                             f"{how!r}", param="inconclusive")
        if isinstance(gate, (str, os.PathLike)):
            gate = pairboot.read_gate(gate)
        res = pairboot.check_gate(a, b, gate, tasks=tasks, groups=groups, names=names,
                                  n_resamples=n_resamples, seed=seed)
        request.node.user_properties += [("pairboot_verdict", res.verdict),
                                         ("pairboot_policy_sha256", res.policy_sha256)]
        if res.verdict == "inconclusive" and how == "gate":
            how = res.inconclusive
        if res.verdict == "fail" or (res.verdict == "inconclusive" and how == "fail"):
            pytest.fail(str(res), pytrace=False)
        if res.verdict == "inconclusive" and how == "skip":
            pytest.skip("pairboot gate inconclusive: " + "; ".join(gate_reasons(res)))
        return res

    return check
