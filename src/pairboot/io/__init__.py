"""Reading per-item scores: files into tables, tables into checked columns, columns aligned.

- :mod:`~pairboot.io.formats` — the one extension -> format table (:data:`FORMATS`,
  :func:`format_of`), for every reader;
- :mod:`~pairboot.io.tables` — :class:`Table` and :func:`read_table`;
- :mod:`~pairboot.io.arrow` — the optional pyarrow fast path (same values, same messages);
- :mod:`~pairboot.io.columns` — numbers, ids and labels, each value checked;
- :mod:`~pairboot.io.alignment` — :func:`align`: several systems' tables into per-item arrays in
  one item order, for :func:`pairboot.compare`;
- :mod:`~pairboot.io.runs` — long tables of runs (one row per item and run) into each
  system's items x runs table (:func:`runs_table`, :func:`runs_per_system`), for
  ``compare(..., runs=...)``;
- :mod:`~pairboot.io.harness` — evaluation-harness logs (lm-evaluation-harness, Inspect,
  COMET, sacrebleu, WMT, trec_eval) and plain tables as per-item scores;
- :mod:`~pairboot.io.stream` — a file read in chunks (files larger than memory);
- :mod:`~pairboot.io.preferences` — battles of two systems on a prompt (arena-hard
  judgments, Chatbot Arena battles, AlpacaEval annotations, tables) for
  :func:`pairboot.compare_preferences`.

A bad file is caught here, once, with a message (:class:`pairboot.errors.InputError`) that
names the file, the place in it and the column.  Nothing is ever written to an input file,
and no row is dropped silently.
"""

from typing import TYPE_CHECKING

from pairboot.io.alignment import (
    ID_HINTS,
    Aligned,
    align,
    check_row_pairing,
    join_on_ids,
    labels_by_id,
)
from pairboot.io.arrow import arrow_available, release_arrow_memory
from pairboot.io.columns import (
    all_distinct,
    distinct_fraction,
    has_repeats,
    id_column,
    label_column,
    merge_labels,
    numeric_column,
    same_labels,
    stats_columns,
    take_labels,
    to_label,
    to_number,
)
from pairboot.io.common import CommonItems
from pairboot.io.formats import FORMATS, file_stem, format_of, may_be_log, names_of_files
from pairboot.io.tables import (
    ARROW_FORMATS,
    PANDAS_INDEX_HINT,
    STDIN,
    Table,
    is_index_column,
    read_table,
)
from pairboot.lazy import lazy_attribute

if TYPE_CHECKING:  # (for type checkers and IDEs: at run time imported on first use)
    from pairboot.io import harness, preferences, stream
    from pairboot.io.runs import KINDS, RunsTables, runs_per_system, runs_table, samples_note

_LATER = dict.fromkeys(("KINDS", "RunsTables", "runs_per_system", "runs_table",
                        "samples_note"), "runs")
"""Names of modules a plain table's comparison does not need, imported on first use (PEP
562), as are the subpackage :mod:`~pairboot.io.harness` (logs of evaluation harnesses,
one reader each), :mod:`~pairboot.io.preferences` (battles: pairwise verdicts) and
:mod:`~pairboot.io.stream` (a file read in chunks)."""


def __getattr__(name: str):
    return lazy_attribute(__name__, globals(), name, _LATER,
                          submodules=("harness", "preferences", "stream", "runs"))


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

__all__ = [
    "ARROW_FORMATS",
    "FORMATS",
    "ID_HINTS",
    "KINDS",
    "PANDAS_INDEX_HINT",
    "STDIN",
    "Aligned",
    "CommonItems",
    "RunsTables",
    "Table",
    "align",
    "harness",
    "preferences",
    "stream",
    "all_distinct",
    "check_row_pairing",
    "arrow_available",
    "distinct_fraction",
    "file_stem",
    "format_of",
    "has_repeats",
    "id_column",
    "is_index_column",
    "join_on_ids",
    "labels_by_id",
    "label_column",
    "may_be_log",
    "merge_labels",
    "names_of_files",
    "numeric_column",
    "read_table",
    "release_arrow_memory",
    "runs_per_system",
    "runs_table",
    "same_labels",
    "samples_note",
    "stats_columns",
    "take_labels",
    "to_label",
    "to_number",
]
