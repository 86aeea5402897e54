"""Reports of every result: text, JSON, Markdown, LaTeX, GitHub's step summary and HTML.

One registry (:mod:`~pairboot.report.registry`) holds every writer under its result type
and format, each registered where it is written (``@writes(CompareResult, "markdown")``);
:func:`render` picks one by the result's type, :func:`formats_of` lists them (the command
line's ``--format`` choices).  Every writer has the signature
``writer(result, context=None) -> str``; ``context`` (:class:`ReportContext` for two
systems, :class:`FamilyContext` for a family) carries what the result does not know: the
names of the inputs, the grouping and stratum columns, and notes that the command line
adds.  A result's own text (``print(result)``, ``summary()``, ``reading``, ``to_html()``,
``_repr_html_``, the p-value in its repr) is :func:`render` too, through the one hook of
:mod:`pairboot.results.compare` set here.

- :mod:`~pairboot.report.parts` — what every format says: the method, the numbers and
  the signature; :mod:`~pairboot.report.verdicts` — the verdict (:func:`headline`,
  :func:`decision`, the gates) and a margin's hypothesis in words;
- :mod:`~pairboot.report.table` — a report's tables, defined once (:class:`Table`) and
  laid out as text, Markdown or LaTeX;
- :mod:`~pairboot.report.escape` — text from the data as every text format shows it
  (:func:`visible`: control characters, bidi controls and workflow commands escaped);
- :mod:`~pairboot.report.schemas` — the name of the schema that leads every JSON report
  (:func:`json_report`) and the shipped JSON Schemas (:func:`schema`, docs/schema.md);
- :mod:`~pairboot.report.numbers` — how numbers are written (:func:`percent`,
  :func:`decimals`, a p-value beside its bound);
- :mod:`~pairboot.report.reading` — the reading of a result in plain words
  (``result.reading``) and the p-value of its repr;
- :mod:`~pairboot.report.text` — the plain-text report (``print(result)``);
- :mod:`~pairboot.report.formats` — JSON, Markdown and LaTeX;
- :mod:`~pairboot.report.github` — ``github``: the Markdown of a GitHub Actions step
  summary, and the workflow commands (``::warning::``, ``::error::``) the command line
  prints beside it;
- :mod:`~pairboot.report.items` — the items behind the number (wins, ties, losses, the
  largest differences) as every format prints them;
- :mod:`~pairboot.report.family` — what a family's reports say (decisions, letters,
  ranks, the signature) and its :class:`FamilyContext`;
  :mod:`~pairboot.report.family_formats` — their text, JSON, Markdown and LaTeX writers;
- :mod:`~pairboot.report.html` -- the self-contained HTML page (``--format html``,
  ``result.to_html()``) and the notebook's display (``_repr_html_``, the format
  ``html-fragment``) of two systems, a test and a plan (a family's:
  :mod:`~pairboot.report.html_family`);
- :mod:`~pairboot.report.curve` -- a pass^k / pass@k curve's (:func:`pairboot.trials_curve`)
  text, Markdown and JSON;
- :mod:`~pairboot.report.metrics` -- several metrics of one comparison's
  (:func:`pairboot.compare_metrics`) text, Markdown, GitHub, LaTeX and JSON;
- :mod:`~pairboot.report.gate` -- a release gate's (:func:`pairboot.check_gate`) text,
  Markdown, GitHub, JSON and JUnit XML;
- :mod:`~pairboot.report.agreement` -- two raters' agreement (:func:`pairboot.agreement`):
  a row per statistic, the table of counts; text, Markdown and JSON;
- :mod:`~pairboot.report.label_plan` -- a gold-label plan's (:func:`pairboot.gold_labels`)
  text, Markdown and JSON;
- :mod:`~pairboot.report.ppi` -- a prediction-powered comparison's
  (:func:`pairboot.compare_ppi`) text, Markdown and JSON: the judge's, the gold labels'
  and the prediction-powered estimates side by side, and the judge's bias;
- :mod:`~pairboot.report.preferences` -- ratings from battles'
  (:func:`pairboot.compare_preferences`) text, Markdown, LaTeX, JSON and HTML;
- :mod:`~pairboot.report.power` -- a planned comparison's (:func:`pairboot.power`)
  summary and its text, Markdown and JSON writers;
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

import importlib
from typing import TYPE_CHECKING

from pairboot.lazy import lazy_attribute
from pairboot.rendering import set_renderer
from pairboot.report.registry import Writers, formats_of, render, schema_id, writes

if TYPE_CHECKING:  # (for type checkers and IDEs: at run time each is imported on first use)
    from pairboot.report.agreement import AgreementContext
    from pairboot.report.escape import visible
    from pairboot.report.family import UNPLANNED, FamilyContext
    from pairboot.report.family_formats import (
        family_json,
        family_latex,
        family_markdown,
        family_text,
    )
    from pairboot.report.family_method import family_signature
    from pairboot.report.figures import power_panels
    from pairboot.report.formats import write_json, write_latex, write_markdown
    from pairboot.report.gate import gate_annotations, gate_reasons
    from pairboot.report.github import write_github
    from pairboot.report.metrics import MetricsContext
    from pairboot.report.numbers import decimals
    from pairboot.report.parts import (
        ReportContext,
        describe_method,
        format_p,
        kept_line,
        kept_warnings,
        signature,
    )
    from pairboot.report.power import POWER_WRITERS
    from pairboot.report.ppi import PPIContext, ppi_annotations
    from pairboot.report.schemas import json_report, schema
    from pairboot.report.sequential import (
        SEQUENTIAL_FAIL_IF,
        sequential_failed,
        sequential_status,
    )
    from pairboot.report.text import write_text
    from pairboot.report.verdicts import (
        FAIL_IF,
        MARGIN_GATES,
        decision,
        gate_conflict,
        gate_hypothesis,
        headline,
    )
    from pairboot.report.workflow import gate_text, workflow_commands
    from pairboot.results.family import FamilyResult

_WHERE = {
    "visible": "escape",
    **dict.fromkeys(("UNPLANNED", "FamilyContext"), "family"),
    **dict.fromkeys(("family_json", "family_latex", "family_markdown", "family_text"),
                    "family_formats"),
    "family_signature": "family_method",
    "power_panels": "figures",
    **dict.fromkeys(("write_json", "write_latex", "write_markdown"), "formats"),
    "write_github": "github",
    **dict.fromkeys(("gate_annotations", "gate_reasons"), "gate"),
    "MetricsContext": "metrics",
    **dict.fromkeys(("gate_text", "workflow_commands"), "workflow"),
    "decimals": "numbers",
    **dict.fromkeys(("ReportContext", "describe_method", "format_p", "kept_line",
                     "kept_warnings", "signature"), "parts"),
    "POWER_WRITERS": "power",
    **dict.fromkeys(("PPIContext", "ppi_annotations"), "ppi"),
    "AgreementContext": "agreement",
    **dict.fromkeys(("json_report", "schema"), "schemas"),
    **dict.fromkeys(("SEQUENTIAL_FAIL_IF", "sequential_failed", "sequential_status"),
                    "sequential"),
    "write_text": "text",
    **dict.fromkeys(("FAIL_IF", "MARGIN_GATES", "decision", "gate_conflict",
                     "gate_hypothesis", "headline"), "verdicts"),
}
"""Public name -> the module of this package that defines it, imported on first use (PEP
562), as the package's face does: a text report loads neither the HTML writers nor a
family's (the registry imports a writer's module when it is first asked for)."""


def __getattr__(name: str):
    if name in ("WRITERS", "FAMILY_WRITERS"):
        module = "compare" if name == "WRITERS" else "family"
        result = "CompareResult" if name == "WRITERS" else "FamilyResult"
        value = Writers(getattr(importlib.import_module(f"pairboot.results.{module}"), result))
        globals()[name] = value
        return value
    return lazy_attribute(__name__, globals(), name, _WHERE)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AgreementContext",
    "FAIL_IF",
    "FAMILY_WRITERS",
    "MARGIN_GATES",
    "MetricsContext",
    "POWER_WRITERS",
    "PPIContext",
    "SEQUENTIAL_FAIL_IF",
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
    "gate_annotations",
    "gate_reasons",
    "family_signature",
    "family_text",
    "format_p",
    "formats_of",
    "gate_text",
    "headline",
    "html_of",
    "kept_line",
    "kept_warnings",
    "render",
    "render_family",
    "power_panels",
    "ppi_annotations",
    "render_power",
    "schema",
    "schema_id",
    "json_report",
    "signature",
    "visible",
    "workflow_commands",
    "write_github",
    "write_json",
    "write_latex",
    "write_markdown",
    "write_text",
    "writes",
    "json_report",
    "schema",
    "schema_id",
    "sequential_failed",
    "sequential_status",
]

# The results hold data only: everything they write about themselves is render's
# (:func:`pairboot.rendering.set_renderer`); until then ``import pairboot``'s hook imports
# this package on a result's first text.
set_renderer(render)

# WRITERS: format name -> writer of two systems' report; FAMILY_WRITERS: of a family's
# (views of the registry, made on first use: see __getattr__).


def render_family(result: FamilyResult, format: str = "text",
                  context: FamilyContext | None = None) -> str:
    """The report of a family of comparisons in ``format``: :func:`render`, kept by this
    name; ``context`` may carry the plan's SHA-256 or a note on how the family was
    chosen."""
    return render(result, format, context)


def render_power(result, format: str = "text", context=None) -> str:
    """The report of a planned comparison (:class:`pairboot.PowerResult`) in ``format``:
    :func:`render`, kept by this name."""
    return render(result, format, context)


def html_of(result, *, page: bool = False, name_a: str = "A", name_b: str = "B",
            lower_is_better: bool = False) -> str:
    """Any result's HTML: the fragment a notebook shows (``_repr_html_``, the format
    ``html-fragment``), or with ``page`` the whole self-contained page (``to_html()``,
    ``--format html``); ``name_a``, ``name_b`` and ``lower_is_better`` label two
    systems.  :func:`render` of either format, kept by this name."""
    labels = {k: v for k, v in (("name_a", name_a), ("name_b", name_b),
                                ("lower_is_better", lower_is_better))
              if v != {"name_a": "A", "name_b": "B", "lower_is_better": False}[k]}
    return render(result, "html" if page else "html-fragment", **labels)
