"""The gate's JUnit XML (``--format junit``): valid against the JUnit schema the Jenkins
xUnit plugin validates with (``schemas/junit-10.xsd``, restated from the plugin's, see its
header), for a passing, a failing and an inconclusive gate, hostile names included, and
read by a real consumer (junitparser): one test case per row, a failed row a failure with
its interval in the message, an inconclusive row skipped with the reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pairboot
from pairboot import Criterion, Gate, Rule
from pairboot.report import render

etree = pytest.importorskip("lxml.etree")
junitparser = pytest.importorskip("junitparser")

quiet = pytest.mark.filterwarnings("ignore::pairboot.PairbootWarning")

SCHEMA = Path(__file__).parent / "schemas" / "junit-10.xsd"
N = 240


@pytest.fixture(scope="module")
def schema():
    return etree.XMLSchema(etree.parse(str(SCHEMA)))


def data(shift):
    rng = np.random.default_rng(4)
    q = rng.normal(0.0, 1.0, N)
    a = {"score": q + rng.normal(0.0, 0.3, N), "cost": rng.gamma(2.0, 0.01, N)}
    b = {"score": q + rng.normal(shift, 0.3, N), "cost": a["cost"] * 0.97}
    return a, b, np.repeat(["math", "code"], N // 2)


METRICS = {"score": "mean", "cost": Criterion(lower_is_better=True)}
GATES = {  # verdict: (B's shift, the rows)
    "pass": (0.2, (Rule("score", "superior"), Rule("cost", "non-inferior", margin=0.01),
                   Rule("score", "non-inferior", margin=0.2, tasks="each"))),
    "fail": (-0.2, (Rule("score", "non-inferior", margin=0.05),
                    Rule("cost", "non-inferior", margin=0.01))),
    "inconclusive": (0.0, (Rule("score", "superior", name="better?"),
                           Rule("cost", "non-inferior", margin=0.01))),
}


def gate_result(verdict, names=("A", "B"), **rows):
    shift, rules = GATES[verdict]
    a, b, tasks = data(shift)
    res = pairboot.check_gate(a, b, Gate(METRICS, rules, **rows), tasks=tasks, seed=2,
                              n_resamples=499, names=names)
    assert res.verdict == verdict
    return res


@quiet
@pytest.mark.parametrize("verdict", sorted(GATES))
def test_the_junit_xml_is_valid_and_read_as_one_case_per_row(schema, tmp_path, verdict):
    res = gate_result(verdict)
    path = tmp_path / "gate.xml"
    path.write_text(render(res, "junit"), encoding="utf-8")
    doc = etree.parse(str(path))
    assert schema.validate(doc), schema.error_log
    (suite,) = list(junitparser.JUnitXml.fromfile(str(path)))
    kinds = {"pass": [], "fail": ["Failure"], "inconclusive": ["Skipped"]}
    cases = [(c.name, [type(x).__name__ for x in c.result]) for c in suite]
    assert cases == [(r.name, kinds[r.verdict]) for r in res.rows]
    assert suite.tests == len(res.rows)
    assert suite.failures == sum(r.verdict == "fail" for r in res.rows)
    assert suite.skipped == sum(r.verdict == "inconclusive" for r in res.rows)
    for case, row in zip(suite, res.rows):
        for outcome in case.result:  # the interval's ends in the message
            low, high = row.interval
            assert f"[{low:.4g}, {high:.4g}]" in outcome.message
            if row.verdict == "inconclusive":
                assert "items would decide it" in outcome.message


def test_the_schema_rejects_what_the_format_does_not_allow(schema):
    """The schema is not a rubber stamp: an undeclared attribute, a test case without a
    name, and a suite without its counts are invalid."""
    good = ('<testsuites><testsuite name="s" tests="1" failures="0" errors="0">'
            '<testcase name="c"/></testsuite></testsuites>')
    assert schema.validate(etree.fromstring(good))
    for bad in (good.replace("<testsuites>", '<testsuites skipped="0">'),
                good.replace('<testcase name="c"/>', "<testcase/>"),
                good.replace(' errors="0"', ""),
                good.replace('<testcase name="c"/>', '<testcase name="c"><flaky/></testcase>')):
        assert not schema.validate(etree.fromstring(bad)), bad


@quiet
def test_hostile_names_stay_valid_xml_and_visible(schema):
    """Names from the data and the policy with control characters (which XML 1.0 cannot
    hold at all), markup and quotes are shown escaped: the document stays valid."""
    res = gate_result("fail", names=("a\x1b[31m<x>", 'b"&\x00'))
    xml = render(res, "junit").encode()
    doc = etree.fromstring(xml)
    assert schema.validate(doc), schema.error_log
    assert doc[0].get("name") == 'pairboot gate: b"&\\x00 against a\\x1b[31m<x>'
