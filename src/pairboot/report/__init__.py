"""Reports of a comparison: text, JSON, Markdown and LaTeX, from one :class:`CompareResult`.

Every writer has the signature ``writer(result, context=None) -> str`` and is registered in
:data:`WRITERS` under its format name; :func:`render` picks one.  ``context``
(:class:`ReportContext`) carries what the result does not know: the names of the inputs,
the grouping and stratum columns, and notes that the command line adds.

- :mod:`~pairboot.report.parts` — what every format says: the method, the numbers and
  the signature; :mod:`~pairboot.report.verdicts` — the verdict (:func:`headline`,
  :func:`decision`, the gates) and a margin's hypothesis in words;
- :mod:`~pairboot.report.escape` — text from the data as every text format shows it
  (:func:`visible`: control characters, bidi controls and workflow commands escaped);
- :mod:`~pairboot.report.numbers` — how numbers are written (:func:`percent`,
  :func:`decimals`, a p-value beside its bound);
- :mod:`~pairboot.report.reading` — the reading of a result in plain words
  (``result.reading``);
- :mod:`~pairboot.report.text` — the plain-text report (``print(result)``);
- :mod:`~pairboot.report.formats` — JSON, Markdown and LaTeX;
- :mod:`~pairboot.report.github` — ``github``: the Markdown of a GitHub Actions step
  summary, and the workflow commands (``::warning::``, ``::error::``) the command line
  prints beside it;
- :mod:`~pairboot.report.items` — the items behind the number (wins, ties, losses, the
  largest differences) as every format prints them;
- :mod:`~pairboot.report.family` — what a family's reports say (decisions, letters,
  ranks, the signature) and its :class:`FamilyContext`;
  :mod:`~pairboot.report.family_formats` — their text, JSON, Markdown and LaTeX writers,
  registered in :data:`FAMILY_WRITERS` and picked by :func:`render_family`;
- :mod:`~pairboot.report.html` -- the self-contained HTML page (``--format html``,
  ``result.to_html()``) and the notebook's display (``_repr_html_``) of every result
  (a family's: :mod:`~pairboot.report.html_family`), written by :func:`html_of`;
- :mod:`~pairboot.report.power` -- a planned comparison's (:func:`pairboot.power`)
  summary and its text, Markdown and JSON writers, in :data:`POWER_WRITERS`, picked by
  :func:`render_power`;
- :mod:`~pairboot.report.plot` (public face: :mod:`pairboot.plot`) draws the bootstrap
  distribution, or a family's forest plot or matrix (matplotlib);
  :mod:`~pairboot.report.figures` holds what they say apart from the drawing (lattice
  bins, names as shown, the marks' meanings).

Every format ends with the same reproducibility line (:func:`signature`), in the manner of
sacrebleu's signature::

    pairboot 0.1.0 | paired percentile | metric mean | resamples 10000 | level 0.95 | seed 1
    | engine numba | numpy 2.4.6

(on one line).
"""

from __future__ import annotations

from collections.abc import Callable

from pairboot.family_result import FamilyResult
from pairboot.power_result import PowerResult
from pairboot.report.escape import visible
from pairboot.report.family import UNPLANNED, FamilyContext, family_signature
from pairboot.report.family_formats import (
    family_json,
    family_latex,
    family_markdown,
    family_text,
)
from pairboot.report.figures import power_panels
from pairboot.report.formats import write_json, write_latex, write_markdown
from pairboot.report.github import family_github, gate_text, workflow_commands, write_github
from pairboot.report.html import (
    compare_html,
    fragment_compare,
    fragment_power,
    fragment_test,
    power_html,
    test_html,
)
from pairboot.report.html_family import family_html, fragment_family
from pairboot.report.numbers import decimals, p_repr
from pairboot.report.parts import (
    ReportContext,
    describe_method,
    format_p,
    kept_line,
    kept_warnings,
    signature,
)
from pairboot.report.power import POWER_WRITERS, power_summary
from pairboot.report.reading import reading_text
from pairboot.report.text import write_text
from pairboot.report.verdicts import (
    FAIL_IF,
    MARGIN_GATES,
    decision,
    gate_conflict,
    gate_hypothesis,
    headline,
)
from pairboot.result import CompareResult, TestResult, set_text_writer

__all__ = [
    "FAIL_IF",
    "FAMILY_WRITERS",
    "MARGIN_GATES",
    "POWER_WRITERS",
    "FamilyContext",
    "ReportContext",
    "UNPLANNED",
    "WRITERS",
    "decimals",
    "decision",
    "describe_method",
    "family_json",
    "family_latex",
    "family_markdown",
    "gate_conflict",
    "gate_hypothesis",
    "family_signature",
    "family_text",
    "format_p",
    "gate_text",
    "headline",
    "html_of",
    "kept_line",
    "kept_warnings",
    "render",
    "render_family",
    "power_panels",
    "render_power",
    "signature",
    "visible",
    "workflow_commands",
    "write_github",
    "write_json",
    "write_latex",
    "write_markdown",
    "write_text",
]

Writer = Callable[[CompareResult, "ReportContext | None"], str]

WRITERS: dict[str, Writer] = {
    "text": write_text,
    "json": write_json,
    "markdown": write_markdown,
    "latex": write_latex,
    "github": write_github,
    "html": compare_html,
}
"""Format name -> writer; the command line's ``--format`` choices are its keys."""


def _written(writers: dict, result, format: str, context) -> str:
    """``writers[format](result, context)``; an unknown format is refused with the
    choices."""
    try:
        writer = writers[format]
    except KeyError:
        raise ValueError(
            f"unknown report format {format!r}; choose one of {', '.join(writers)}"
        ) from None
    return writer(result, context)


def render(
    result: CompareResult, format: str = "text", context: ReportContext | None = None
) -> str:
    """The report of ``result`` in ``format`` (a key of :data:`WRITERS`)."""
    return _written(WRITERS, result, format, context)


def summary_text(result: CompareResult, *, name_a: str = "A", name_b: str = "B",
                 lower_is_better: bool = False) -> str:
    """``CompareResult.summary()``: the text report, the systems labelled ``name_a`` and
    ``name_b``."""
    return write_text(result, ReportContext(name_a=name_a, name_b=name_b,
                                            lower_is_better=lower_is_better))


# The results hold data only: their summary, reading and repr's p-value are written here
# (:func:`pairboot.result.set_text_writer`), and ``import pairboot`` imports this package.
set_text_writer("summary", summary_text)
set_text_writer("family_summary", family_text)
set_text_writer("reading", reading_text)
set_text_writer("p_repr", p_repr)
set_text_writer("power_summary", power_summary)


def html_of(result, *, page: bool = False, name_a: str = "A", name_b: str = "B",
            lower_is_better: bool = False) -> str:
    """Any result's HTML: the fragment a notebook shows (``_repr_html_``), or with
    ``page`` the whole self-contained page (``to_html()``, ``--format html``) whose body
    is that same fragment.  ``name_a``, ``name_b`` and ``lower_is_better`` label a
    comparison of two systems, as :meth:`CompareResult.summary`."""
    if isinstance(result, FamilyResult):
        return (family_html if page else fragment_family)(result, None)
    if isinstance(result, PowerResult):
        return (power_html if page else fragment_power)(result, None)
    if isinstance(result, TestResult):
        return (test_html if page else fragment_test)(result, None)
    if isinstance(result, CompareResult):
        context = ReportContext(name_a=name_a, name_b=name_b, lower_is_better=lower_is_better)
        return (compare_html if page else fragment_compare)(result, context)
    raise TypeError(f"no HTML for a {type(result).__name__}")


set_text_writer("html", html_of)
# (report.power cannot import the page's module, which imports it)
POWER_WRITERS["html"] = power_html


FamilyWriter = Callable[[FamilyResult, "FamilyContext | None"], str]

FAMILY_WRITERS: dict[str, FamilyWriter] = {
    "text": family_text,
    "json": family_json,
    "markdown": family_markdown,
    "latex": family_latex,
    "github": family_github,
    "html": family_html,
}
"""Format name -> writer of a family's report (the same names as :data:`WRITERS`)."""


def render_family(
    result: FamilyResult, format: str = "text", context: FamilyContext | None = None
) -> str:
    """The report of a family of comparisons in ``format`` (a key of
    :data:`FAMILY_WRITERS`); ``context`` may carry the plan's SHA-256 or a note on how
    the family was chosen."""
    return _written(FAMILY_WRITERS, result, format, context)


def render_power(result, format: str = "text", context=None) -> str:
    """The report of a planned comparison (:class:`pairboot.PowerResult`) in ``format``
    (a key of :data:`POWER_WRITERS`)."""
    return _written(POWER_WRITERS, result, format, context)
