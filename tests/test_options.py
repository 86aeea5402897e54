"""The shared keywords are declared once (pairboot.options): every public entry point
takes their defaults from there, accepts the same names (or says why not), and refuses a
bad value with the option's own check."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import pairboot
import pairboot.dask
from pairboot.comparisons.many import STRATA_FAMILY_DEFAULTS
from pairboot.errors import InputError
from pairboot.options import DEFAULTS, OPTIONS
from pairboot.partitioned import parts as partitioned

FAMILY = {"baseline", "pairs", "correction"}  # a family's own options
TESTS = {"test", "exact"}
"""A test beside the interval: in memory for two systems and families; a part
carries it from part_from_arrays, and finish() reads it off the part (runs: seeds are
not exchangeable)."""
EXACT = {"exact"}
"""Parts never enumerate the swaps: their units are never in one place."""
RUNS = {"runs", "paired_runs"}  # several runs per system: in memory only
COLUMNS = {"ids", "groups", "strata"}  # files name columns instead: id, group, stratum
PARTS = {"resampling", "paired", "group_weighting", "backend", "progress"}
"""Parts are Poisson draws of paired items; finish() reads the rest off the part."""
FINISHED = {"confidence_level", "method", "alternative", "hypothesis", "margin",
            "lower_is_better", "strata_weights"}
"""What a part leaves to finish(): the interval is read off the added sums."""

PLANNED = {"paired", "n_resamples", "method", "resampling", "backend"}
"""A plan draws no resamples: its power is the paired t's (or Connor's) at a size (its
simulation check takes ``seed`` and ``progress``; ``test="mcnemar"`` plans the exact
McNemar test, and no permutation is enumerated: ``exact`` is not taken)."""

NOT_ACCEPTED = {
    pairboot.power: EXACT | (PLANNED - {"seed", "progress"}),  # (simulate=True draws)
    pairboot.compare: FAMILY,
    pairboot.compare_many: set(),
    pairboot.compare_files: EXACT | FAMILY | RUNS | COLUMNS | {"resampling", "paired",
                                               "group_weighting"},
    pairboot.dask.compare: EXACT | FAMILY | RUNS | {"ids", "resampling", "backend", "progress"},
    pairboot.dask.compare_many: EXACT | RUNS | {"ids", "resampling", "backend", "progress"},
    pairboot.dask.parts: EXACT | FAMILY | RUNS | PARTS | FINISHED | {"ids"},
    partitioned.part_from_arrays: EXACT | FAMILY | RUNS | (PARTS - {"backend"}) | FINISHED,
    partitioned.finish: TESTS | FAMILY | RUNS | COLUMNS | {"resampling", "backend", "progress",
                                                   "metric", "n_resamples", "seed"},
    partitioned.finish_many: TESTS | RUNS | COLUMNS | {"resampling", "backend", "progress",
                                               "metric", "n_resamples", "seed"},
}
"""The shared options each public entry point does not take, and (above) why."""


def name(function) -> str:
    return f"{function.__module__}.{function.__qualname__}"


@pytest.mark.parametrize("function", list(NOT_ACCEPTED), ids=name)
def test_the_defaults_are_the_options(function):
    differ = {p.name: p.default for p in inspect.signature(function).parameters.values()
              if p.name in OPTIONS and p.default is not inspect.Parameter.empty
              and p.default != DEFAULTS[p.name]}
    assert differ == {}


@pytest.mark.parametrize("function", list(NOT_ACCEPTED), ids=name)
def test_every_entry_point_takes_the_shared_names_or_says_why_not(function):
    taken = set(inspect.signature(function).parameters)
    assert set(OPTIONS) - taken == NOT_ACCEPTED[function]


def test_compare_strata_passes_on_compare_s_options_with_their_defaults():
    own = set(inspect.signature(pairboot.compare_strata).parameters) - {"a", "b",
                                                                        "compare_keywords"}
    assert own == {"strata", "names", "correction", "lower_is_better"}
    assert STRATA_FAMILY_DEFAULTS == {k: DEFAULTS[k] for k in STRATA_FAMILY_DEFAULTS}
    passed_on = set(STRATA_FAMILY_DEFAULTS) | (own - {"names"})
    assert passed_on == set(OPTIONS) - RUNS - TESTS - {"baseline", "pairs"}


def test_every_option_has_a_one_line_doc():
    assert all(o.doc and "\n" not in o.doc and len(o.doc) < 80 for o in OPTIONS.values())


BAD = {"paired": "yes", "group_weighting": "docs", "n_resamples": 0,
       "confidence_level": 1.5, "method": "bootstrap", "seed": -1, "resampling": "jackknife",
       "runs": "epochs", "paired_runs": 1, "backend": "gpu", "correction": "fdr",
       "alternative": "bigger", "margin": -0.5, "hypothesis": "noninferiority",
       "test": "wilcoxon", "exact": "yes",
       "lower_is_better": "no"}


def test_every_check_names_its_option():
    assert set(BAD) == {n for n, o in OPTIONS.items() if o.check is not None}
    for option, value in BAD.items():
        with pytest.raises(InputError) as info:
            OPTIONS[option].check(value)
        assert info.value.param == option and f"`{option}`" in str(info.value)


@pytest.mark.parametrize("option", ["paired", "group_weighting", "n_resamples", "alternative",
                                    "confidence_level", "method", "seed", "resampling",
                                    "backend"])
def test_the_entry_points_refuse_with_the_option_s_own_message(option):
    with pytest.raises(InputError) as expected:
        OPTIONS[option].check(BAD[option])
    a = np.linspace(0.0, 1.0, 30)
    calls = [lambda: pairboot.compare(a, a[::-1], **{option: BAD[option]}),
             lambda: pairboot.compare_many({"x": a, "y": a[::-1]}, **{option: BAD[option]}),
             lambda: pairboot.compare_strata(a, a[::-1], strata=[0, 1] * 15,
                                             **{option: BAD[option]})]
    for call in calls:
        with pytest.raises(InputError) as info:
            call()
        assert str(info.value) == str(expected.value)


def test_the_checks_normalise():
    assert OPTIONS["method"].check("BCa") == "bca"
    assert OPTIONS["seed"].check(np.int64(7)) == 7
    assert isinstance(OPTIONS["seed"].check("random"), int)
    assert OPTIONS["seed"].check(None) is None
    assert OPTIONS["n_resamples"].check(np.int32(100)) == 100
