"""pairboot: does system B really beat system A on this test set, and by how much?

A paired bootstrap confidence interval for the difference of two systems' scores on the
same test items, done right for clustered and stratified test sets and for metrics that
are not plain means.  The whole public API:

- :func:`compare` and its :class:`CompareResult` (with :class:`ConfidenceInterval`,
  :class:`SystemScore`, :class:`StratumResult`); :func:`compare_many` and its
  :class:`FamilyResult` of :class:`Comparison` s; :func:`compare_strata`, each
  stratum's difference as a family; :func:`trials_curve` and its :class:`TrialsCurve`,
  pass^k or pass@k of repeated trials over k; :func:`compare_preferences` and its
  :class:`PreferenceResult`, ratings of systems judged against each other (battles);
  :func:`compare_files`, the Poisson
  bootstrap of files larger than memory, read in chunks;
- :func:`power` and its :class:`PowerResult`: before the evaluation, the items, groups
  or seeds needed to detect a difference, the power at a size, the smallest detectable
  difference;
- :class:`Metric`, :func:`builtin_metrics`, :func:`macro_f1_metric`, :func:`bleu_metric`
  for pooled metrics (more in :mod:`pairboot.metrics`);
- :func:`read_plan`, :class:`Plan` and :func:`plan_sha256`: a family decided in advance;
- :func:`schema`: the JSON Schema each kind of JSON report follows (docs/schema.md);
- :class:`Progress`, the progress protocol; :data:`METHODS`, :data:`GROUP_WEIGHTINGS`,
  :data:`RESAMPLINGS`;
- :class:`InputError` and the warnings :class:`PairbootWarning`,
  :class:`DegenerateDataWarning`, :class:`SmallSampleWarning`;
- the modules :mod:`pairboot.io` (files to aligned tables), :mod:`pairboot.report`
  (reports of a result), :mod:`pairboot.plot`, :mod:`pairboot.partitioned.parts` (the Poisson
  bootstrap from parts of the data) and :mod:`pairboot.dask`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pairboot._version import __version__
from pairboot.errors import DegenerateDataWarning, InputError, PairbootWarning, SmallSampleWarning
from pairboot.lazy import lazy_attribute
from pairboot.rendering import set_renderer

if TYPE_CHECKING:  # (for type checkers and IDEs: at run time each is imported on first use)
    from pairboot.comparisons.agreement import agreement
    from pairboot.comparisons.curve import trials_curve
    from pairboot.comparisons.many import compare_many, compare_strata
    from pairboot.comparisons.ppi import compare_ppi, compare_ppi_many
    from pairboot.comparisons.preferences import compare_preferences
    from pairboot.comparisons.sequential import Sequential, sequential
    from pairboot.comparisons.two import compare
    from pairboot.metrics import Metric, bleu_metric, builtin_metrics, macro_f1_metric
    from pairboot.options import CORRECTIONS, GROUP_WEIGHTINGS, METHODS, RESAMPLINGS
    from pairboot.partitioned.files import compare_files
    from pairboot.planning import power
    from pairboot.planning.labels import gold_labels
    from pairboot.plans.plan import Plan, plan_sha256, read_plan
    from pairboot.progress import Progress
    from pairboot.report.schemas import schema
    from pairboot.results.agreement import AgreementResult
    from pairboot.results.compare import (
        CompareResult,
        ConfidenceInterval,
        StratumResult,
        SystemScore,
    )
    from pairboot.results.family import Comparison, FamilyResult, TrialsCurve
    from pairboot.results.labels import LabelPlan
    from pairboot.results.power import PowerResult
    from pairboot.results.ppi import (
        JudgeCalls,
        PPIComparison,
        PPIEstimate,
        PPIFamilyResult,
        PPIResult,
    )
    from pairboot.results.preferences import PreferenceResult
    from pairboot.results.sequential import SequentialResult

_WHERE = {
    "trials_curve": "pairboot.comparisons.curve",
    "TrialsCurve": "pairboot.results.family",
    "compare_many": "pairboot.comparisons.many",
    "compare_tasks": "pairboot.comparisons.tasks",
    "TasksResult": "pairboot.results.tasks",
    "compare_strata": "pairboot.comparisons.many",
    "compare": "pairboot.comparisons.two",
    "compare_metrics": "pairboot.comparisons.metrics",
    "Criterion": "pairboot.metrics.joint",
    "Gate": "pairboot.plans.policy",
    "Rule": "pairboot.plans.policy",
    "check_gate": "pairboot.plans.gate",
    "read_gate": "pairboot.plans.policy",
    "MetricsResult": "pairboot.results.metrics",
    "GateResult": "pairboot.results.metrics",
    "MetricRow": "pairboot.results.metrics",
    "noise_floor": "pairboot.comparisons.two",
    "compare_preferences": "pairboot.comparisons.preferences",
    "PreferenceResult": "pairboot.results.preferences",
    "schema": "pairboot.report.schemas",
    "sequential": "pairboot.comparisons.sequential",
    "Sequential": "pairboot.comparisons.sequential",
    "SequentialResult": "pairboot.results.sequential",
    "NoiseFloor": "pairboot.results.noise",
    "compare_ppi": "pairboot.comparisons.ppi",
    "compare_ppi_many": "pairboot.comparisons.ppi",
    "PPIFamilyResult": "pairboot.results.ppi",
    "PPIComparison": "pairboot.results.ppi",
    "JudgeCalls": "pairboot.results.ppi",
    "gold_labels": "pairboot.planning.labels",
    "LabelPlan": "pairboot.results.labels",
    "agreement": "pairboot.comparisons.agreement",
    "AgreementResult": "pairboot.results.agreement",
    "PPIResult": "pairboot.results.ppi",
    "PPIEstimate": "pairboot.results.ppi",
    "Comparison": "pairboot.results.family",
    "FamilyResult": "pairboot.results.family",
    "Metric": "pairboot.metrics",
    "bleu_metric": "pairboot.metrics",
    "builtin_metrics": "pairboot.metrics",
    "macro_f1_metric": "pairboot.metrics",
    "CORRECTIONS": "pairboot.options",
    "GROUP_WEIGHTINGS": "pairboot.options",
    "METHODS": "pairboot.options",
    "RESAMPLINGS": "pairboot.options",
    "compare_files": "pairboot.partitioned.files",
    "Plan": "pairboot.plans.plan",
    "plan_sha256": "pairboot.plans.plan",
    "read_plan": "pairboot.plans.plan",
    "power": "pairboot.planning",
    "PowerResult": "pairboot.results.power",
    "Progress": "pairboot.progress",
    "CompareResult": "pairboot.results.compare",
    "ConfidenceInterval": "pairboot.results.compare",
    "StratumResult": "pairboot.results.compare",
    "SystemScore": "pairboot.results.compare",
}
"""Where each public name lives: ``import pairboot`` loads none of them (nor numpy);
the first ``pairboot.compare`` imports its module (PEP 562)."""


def __getattr__(name: str):
    """A public name, or a subpackage (``pairboot.io``, ``pairboot.report``), imported on
    first use and kept."""
    return lazy_attribute(__name__, globals(), name, _WHERE)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _render(result, format: str, **labels) -> str:
    """A result's text: the report layer, imported on a result's first text (it then
    sets its own renderer, :func:`pairboot.report.render`)."""
    from pairboot.report import render  # (on first use: see above)

    return render(result, format, **labels)


set_renderer(_render)

__all__ = [
    "LabelPlan",
    "gold_labels",
    "AgreementResult",
    "agreement",
    "CORRECTIONS",
    "GROUP_WEIGHTINGS",
    "RESAMPLINGS",
    "METHODS",
    "CompareResult",
    "Comparison",
    "FamilyResult",
    "TrialsCurve",
    "TasksResult",
    "ConfidenceInterval",
    "DegenerateDataWarning",
    "InputError",
    "Metric",
    "NoiseFloor",
    "PairbootWarning",
    "Plan",
    "PowerResult",
    "PPIEstimate",
    "PPIResult",
    "PPIFamilyResult",
    "PPIComparison",
    "JudgeCalls",
    "Progress",
    "SmallSampleWarning",
    "StratumResult",
    "SystemScore",
    "__version__",
    "bleu_metric",
    "builtin_metrics",
    "compare_files",
    "compare_strata",
    "macro_f1_metric",
    "compare",
    "compare_many",
    "compare_metrics",
    "compare_tasks",
    "Criterion",
    "Gate",
    "Rule",
    "check_gate",
    "read_gate",
    "MetricRow",
    "MetricsResult",
    "GateResult",
    "noise_floor",
    "compare_ppi",
    "compare_ppi_many",
    "compare_preferences",
    "PreferenceResult",
    "sequential",
    "Sequential",
    "SequentialResult",
    "trials_curve",
    "plan_sha256",
    "power",
    "read_plan",
    "schema",
]
