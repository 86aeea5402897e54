"""pairboot: does system B really beat system A on this test set, and by how much?

A paired bootstrap confidence interval for the difference of two systems' scores on the
same test items, done right for clustered and stratified test sets and for metrics that
are not plain means.  The whole public API:

- :func:`compare` and its :class:`CompareResult`;
- :class:`Metric` and :func:`builtin_metrics` for pooled metrics;
- the warnings :class:`DegenerateDataWarning`, :class:`SmallSampleWarning`.
"""

from pairboot._version import __version__
from pairboot.compare import compare
from pairboot.design import GROUP_WEIGHTINGS
from pairboot.errors import DegenerateDataWarning, InputError, PairbootWarning, SmallSampleWarning
from pairboot.intervals import METHODS
from pairboot.metrics import Metric, bleu_metric, builtin_metrics, macro_f1_metric
from pairboot.progress import Progress
from pairboot.result import CompareResult, ConfidenceInterval, StratumResult, SystemScore

__all__ = [
    "GROUP_WEIGHTINGS",
    "METHODS",
    "CompareResult",
    "ConfidenceInterval",
    "DegenerateDataWarning",
    "InputError",
    "Metric",
    "PairbootWarning",
    "Progress",
    "SmallSampleWarning",
    "StratumResult",
    "SystemScore",
    "__version__",
    "bleu_metric",
    "builtin_metrics",
    "macro_f1_metric",
    "compare",
]
