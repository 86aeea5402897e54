"""Metrics by name: the registry of built-ins, a user's metric from ``FILE.py:NAME``, and
which input columns hold which statistic."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from pairboot.errors import InputError
from pairboot.metrics.base import Metric
from pairboot.metrics.builtin import (
    ACCURACY,
    F1,
    MEAN,
    PRECISION,
    RATIO,
    RECALL,
    bleu_metric,
    macro_f1_metric,
)
from pairboot.metrics.trials import NEEDS_SAMPLES, trials_metric

# --- name registry ------------------------------------------------------------------------


def _macro_f1_for(n_columns: int) -> Metric:
    if n_columns < 3 or n_columns % 3:
        raise InputError(
            "metric 'macro_f1' needs 3 per-item statistics per class "
            "(tp_1, fp_1, fn_1, ..., tp_C, fp_C, fn_C), a multiple of 3 columns; "
            f"got {n_columns} column(s)",
            param="metric",
        )
    return macro_f1_metric(n_columns // 3)


def _bleu_for(n_columns: int) -> Metric:
    if n_columns < 4 or n_columns % 2:
        raise InputError(
            "metric 'bleu' needs sacrebleu's per-sentence statistics, 2 + 2N columns "
            "(sys_len, ref_len, correct_1..N, total_1..N; 10 for N = 4); "
            f"got {n_columns} column(s)",
            param="metric",
        )
    return bleu_metric((n_columns - 2) // 2)


_BUILTIN: dict[str, Metric] = {m.name: m for m in (MEAN, RATIO, ACCURACY, F1, PRECISION, RECALL)}

_FACTORIES: dict[str, Callable[[int], Metric]] = {
    "macro_f1": _macro_f1_for,
    "bleu": _bleu_for,
}
"""Metrics whose number of statistics follows from the input's number of columns."""


def builtin_metrics() -> tuple[str, ...]:
    """Names of the built-in metrics."""
    return (*_BUILTIN, *_FACTORIES)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def builtin_stats(name: str) -> tuple[str, ...] | None:
    """Default per-item statistic names of a built-in metric (e.g. the CLI's columns).

    ``"bleu"`` gives sacrebleu's default 4-gram names; ``"macro_f1"`` gives None, since
    its columns depend on the number of classes (name them explicitly).  Raises
    ``ValueError`` for an unknown name.

    >>> builtin_stats("f1")
    ('tp', 'fp', 'fn')
    >>> builtin_stats("bleu")[-2:], builtin_stats("macro_f1")
    (('total_3', 'total_4'), None)
    """
    key = _key(name)
    if key in _BUILTIN:
        return _BUILTIN[key].stats
    if trials_metric(name) is not None:  # (one 0/1 score per item and trial)
        return ("score",)
    if key == "bleu":
        return bleu_metric().stats
    if key in _FACTORIES:
        return None
    raise _unknown(name, "")


def _unknown(name: str, more: str) -> InputError:
    """An unknown metric's error; a name that is a Python file (``metrics.py``) is told
    how to name the metric in it (``metrics.py:NAME``)."""
    where = name.strip()
    if where.endswith(".py") or os.path.isfile(where):
        return InputError(
            f"`metric={where}` names a file, not a metric: give the pairboot.Metric in it "
            f"as FILE.py:NAME ({where}:NAME)", param="metric")
    return InputError(f"unknown metric {name!r}; choose one of "
                      f"{', '.join(builtin_metrics())}, pass@K, pass^K, maj@K (with "
                      f"runs='samples'){more}", param="metric")


def _is_file(where: str) -> bool:
    """Whether the part before ``:NAME`` is a file (else a module's name)."""
    return where.endswith(".py") or os.sep in where


def metric_file(spec: str) -> str | None:
    """The file :func:`load_metric` would run for ``spec`` (``FILE.py:NAME``, or the
    module's source found as its import would find it, the current folder first),
    without running anything; None for a built-in metric or a module not found as a
    file.  The command line never writes a report over it."""
    import importlib.machinery

    where, sep, _ = str(spec).rpartition(":")
    if not sep or not where:
        return None
    if _is_file(where):
        return where
    import sys

    path: list[str] | None = [os.getcwd(), *sys.path]
    spec_found = None
    for part in where.split("."):
        if path is None:
            return None
        try:
            spec_found = importlib.machinery.PathFinder.find_spec(part, path)
        except (ImportError, ValueError):
            return None
        if spec_found is None:
            return None
        locations = spec_found.submodule_search_locations
        path = list(locations) if locations is not None else None
    origin = getattr(spec_found, "origin", None)
    return origin if origin and os.path.isfile(origin) else None


def load_metric(spec: str) -> Metric:
    """A user's :class:`Metric` named as ``"path/to/file.py:NAME"`` or ``"package.module:NAME"``.

    This is how the command line takes a user-defined metric (``--metric
    my_metrics.py:token_f1``).  Loading it runs that file's or module's code, as an
    import does.  Raises ``ValueError`` naming what could not be loaded.
    """
    import importlib
    import importlib.util
    import os
    import sys

    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise InputError(
            f"a metric must be named FILE.py:NAME or MODULE:NAME, got {spec!r}", param="metric"
        )
    if _is_file(where) and not os.path.isfile(where):
        raise InputError(f"metric file {where} does not exist", param="metric")
    try:
        if _is_file(where):
            name = "pairboot_user_metric_" + os.path.splitext(os.path.basename(where))[0]
            module_spec = importlib.util.spec_from_file_location(name, where)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            # As `python -m` does, the current folder is importable, for this import
            # only: left on the path, a file there (./scipy.py) would shadow a package
            # imported later in the run.
            added = os.getcwd() not in sys.path and "" not in sys.path
            if added:
                sys.path.insert(0, os.getcwd())
            try:
                module = importlib.import_module(where)
            finally:
                if added and os.getcwd() in sys.path:
                    sys.path.remove(os.getcwd())
    except Exception as exc:  # the user's code: any error becomes one message
        raise InputError(
            f"cannot load metric {spec!r}: {type(exc).__name__}: {exc}", param="metric"
        ) from None
    metric = getattr(module, attr, None)
    if not isinstance(metric, Metric):
        raise InputError(
            f"{where} has no pairboot.Metric named {attr!r}"
            + (f" (found {type(metric).__name__})" if metric is not None else ""),
            param="metric",
        )
    return metric


def resolve_metric(metric: str | Metric, n_columns: int) -> Metric:
    """The :class:`Metric` for a name or object, checked against the input's columns.

    ``n_columns`` is the number of per-item input columns of ``a`` (1 for a 1-D input).
    ``"macro_f1"`` and ``"bleu"`` are built for that many columns.  Raises ``ValueError``
    naming the expected statistics when the count does not fit.  A metric of k trials
    (``"pass^4"``) is refused: it reads items x trials with ``runs="samples"``, whose
    path turns it into its per-item values first (:class:`pairboot.metrics.Trials`).
    """
    trials = trials_metric(metric)
    if trials is not None:
        raise InputError(f"`metric='{trials.name}'` needs {NEEDS_SAMPLES}", param="metric")
    if isinstance(metric, Metric):
        m = metric
    elif isinstance(metric, str):
        key = _key(metric)
        if key in _FACTORIES:
            return _FACTORIES[key](n_columns)
        if key not in _BUILTIN:
            raise _unknown(metric, " or pass a pairboot.Metric")
        m = _BUILTIN[key]
    else:
        raise TypeError(f"`metric` must be a name or a pairboot.Metric, got {type(metric)!r}")
    if len(m.stats) != n_columns:
        raise InputError(
            f"metric {m.name!r} needs {len(m.stats)} per-item statistic(s) "
            f"({', '.join(m.stats)}), got {n_columns} column(s)",
            param="metric",
        )
    return m


def statistics_for(metric: str | Metric, n_columns: int) -> tuple[str, ...]:
    """The statistic names ``metric`` reads: a fixed metric's own (whatever ``n_columns``),
    and for ``macro_f1`` and ``bleu``, whose size follows the input, those of
    ``n_columns`` columns (``ValueError`` when no size fits)."""
    if isinstance(metric, Metric):
        return metric.stats
    if trials_metric(metric) is not None:
        return ("score",)
    if _key(str(metric)) in _FACTORIES:
        return resolve_metric(metric, n_columns).stats
    stats = builtin_stats(metric)
    assert stats is not None  # only the factories have no fixed names
    return stats


def _name_parts(name: str) -> list[str]:
    return re.split(r"[_\-. ]+", name.strip().lower())


def holds(stat: str, name: str) -> bool:
    """Whether column ``name`` names statistic ``stat``: it is the statistic, in any case,
    or has it as a ``_``/``-``/``.``-separated part (``base_tp`` holds ``tp``)."""
    return name.lower() == stat.lower() or stat.lower() in _name_parts(name)


def match_statistics(
    stats: Sequence[str], names: Sequence[str], *, extra: bool = False
) -> tuple[int, ...] | None:
    """Which of ``names`` (column names) holds each of ``stats``, judged by the names.

    A statistic is held by the one name that is it exactly, in another case, or as a
    ``_``/``-``/``.``-separated part (``base_tp`` holds ``tp``), every name holding one
    (with ``extra``, names that hold none are allowed and left out).  Otherwise, names
    that keep the statistics' order, each carrying its kind, and whose other parts
    group them as the statistics are grouped (``tp_cat, fp_cat, fn_cat, tp_dog, ...``
    for macro-F1's ``tp_1, fp_1, fn_1, tp_2, ...``) are taken in that order.  None when
    the names do not say: the caller must not guess by position then.

    >>> match_statistics(("tp", "fp", "fn"), ["fn", "fp", "tp"])
    (2, 1, 0)
    >>> match_statistics(("correct", "total"), ["c", "t"]) is None
    True
    >>> match_statistics(("tp_1", "fp_1", "tp_2", "fp_2"), ["tp_a", "fp_a", "tp_b", "fp_b"])
    (0, 1, 2, 3)
    >>> match_statistics(("tp_1", "fp_1", "tp_2", "fp_2"), ["tp_a", "fp_b", "tp_b", "fp_a"]) is None
    True
    """
    if len(stats) > len(names) or (len(stats) < len(names) and not extra):
        return None
    if len(stats) == len(names) == 1:
        return (0,)
    chosen: list[int] = []
    for stat in stats:
        found = [j for j, c in enumerate(names) if c == stat]
        found = found or [j for j, c in enumerate(names) if holds(stat, c)]
        if len(found) != 1 or found[0] in chosen:
            break
        chosen.append(found[0])
    else:
        return tuple(chosen)
    if len(stats) == len(names) and _same_kinds_and_groups(stats, names):
        return tuple(range(len(stats)))
    return None


def _same_kinds_and_groups(stats: Sequence[str], names: Sequence[str]) -> bool:
    """Each name carries its statistic's kind (its first part), and the rest of the
    names groups them exactly as the rest of the statistics does (class by class)."""
    pairs = {}
    for stat, name in zip(stats, names):
        kind, *group = _name_parts(stat)
        parts = _name_parts(name)
        if kind not in parts:
            return False
        parts.remove(kind)
        pairs.setdefault(tuple(group), set()).add(tuple(parts))
    named = [next(iter(v)) for v in pairs.values() if len(v) == 1]
    return len(named) == len(pairs) and len(set(named)) == len(named)
