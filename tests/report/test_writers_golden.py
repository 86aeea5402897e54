"""Every writer's output byte for byte against ``tests/report/golden/writers.json.gz``.

The cases (:mod:`writer_cases`: two systems in every design, families under every
correction, planned comparisons, tests) were recorded before the writers were reached
through one registry, and a change that only moves the writers must reproduce every
output exactly: each ``--format``, ``print(result)``, ``summary()``, ``reading``,
``repr`` and the HTML page and fragment (their SVG figures apart, whose bytes are
matplotlib's: each must be there, where it was).  Re-record only deliberately
(``writer_cases.py`` says how) and say in the commit which outputs change and why.
"""

from __future__ import annotations

import difflib

import pytest
from writer_cases import HTML, SVG, cases, expand, load, outputs

GOLDEN = load()
NAMES = list(GOLDEN["cases"])


@pytest.fixture(scope="module")
def made() -> dict:
    return {name: (kind, result, context) for name, kind, result, context in cases()}


def _check(name: str, written: dict[str, str]) -> None:
    recorded = expand(GOLDEN["cases"][name]["outputs"])
    recorded = {k: v for k, v in recorded.items() if k in written}
    assert written.keys() == recorded.keys()
    for output, text in written.items():
        if text != recorded[output]:
            diff = "\n".join(difflib.unified_diff(
                recorded[output].splitlines(), text.splitlines(), "recorded", "now",
                lineterm="", n=1))
            pytest.fail(f"{name}: {output} differs from the recorded output:\n{diff[:6000]}")


def test_every_case_is_recorded(made):
    assert list(made) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_the_reports_are_unchanged(made, name):
    kind, result, context = made[name]
    styles: dict[str, str] = {}
    _check(name, outputs(kind, result, context, styles, html=False))


@pytest.mark.slow  # (each case draws its figures four times: 1 to 4 s)
@pytest.mark.parametrize("name", NAMES)
def test_the_html_is_unchanged_and_draws_its_figures(made, name):
    pytest.importorskip("matplotlib")
    kind, result, context = made[name]
    styles: dict[str, str] = {}
    raw: dict[str, str] = {}
    written = outputs(kind, result, context, styles, html=True, raw=raw)
    _check(name, written)
    for key, style in styles.items():
        assert GOLDEN["styles"][key] == style
    # each figure an SVG drawing (the golden text has "<svg/>" where it was), read off
    # the _repr_html_ just written, before its figures became placeholders
    if "<svg/>" in written.get("_repr_html_", ""):
        figures = SVG.findall(raw["_repr_html_"])
        assert figures and all("<path" in f or "<use" in f for f in figures)
    assert set(written) == {k for k in expand(GOLDEN["cases"][name]["outputs"])
                            if k in HTML}
