"""The shared keywords are declared once (pairboot.options): every public entry point
takes their defaults from there, accepts the same names (or says why not), and refuses a
bad value with the option's own check."""

from __future__ import annotations

import ast
import collections
import dataclasses
import inspect
import pathlib
from types import MappingProxyType

import numpy as np
import pytest

import pairboot
import pairboot.dask
import pairboot.planning
from pairboot.errors import InputError
from pairboot.options import DEFAULTS, OPTIONS, Arguments, Data, check_options
from pairboot.partitioned import parts as partitioned

FAMILY = {"baseline", "pairs", "correction"}  # a family's own options
TESTS = {"test", "exact"}
"""A test beside the interval: in memory for two systems and families; a part
carries it from part_from_arrays, and finish() reads it off the part (runs: seeds are
not exchangeable)."""
EXACT = {"exact"}
"""Parts never enumerate the swaps: their units are never in one place."""
RUNS = {"runs", "paired_runs", "estimand"}  # several runs per system: in memory only
PART_RUNS = {"paired_runs", "estimand"}
"""Parts take ``runs="samples"`` (each item's trials reduced in its part); ``"seeds"`` is
refused (its two-way variance reads every item's runs in one place), and the suite
interval is not built on parts (docs/distributed.md)."""
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
    pairboot.power: EXACT | (PLANNED - {"seed", "progress"}) | {"estimand"},  # (simulate=True
    # draws; a plan is of the population interval)
    pairboot.compare: FAMILY,
    pairboot.noise_floor: FAMILY | TESTS | {"hypothesis", "margin", "lower_is_better"},  # (an
    # A/A: of a difference, two-sided; `alternative` only sides its detectable difference)
    pairboot.agreement: FAMILY | RUNS | TESTS | {"paired", "group_weighting", "metric",
                                             "resampling", "ids", "strata",
                                             "strata_weights", "alternative",
                                             "hypothesis", "margin", "lower_is_better"},
    # (two raters' ratings of the same items: a statistic and its interval, no test)
    pairboot.gold_labels: set(OPTIONS) - {"confidence_level", "alternative"},  # (a plan
    # in closed form: the level and the sides of the interval it plans)
    pairboot.compare_ppi: FAMILY | PART_RUNS | TESTS | {"paired", "group_weighting",
                                                    "resampling", "ids"},  # (one judge's
    # and gold means of paired items, drawn in memory; runs: the judge's calls, samples)
    pairboot.compare_ppi_many: PART_RUNS | TESTS | {"paired", "group_weighting",
                                                "resampling", "ids", "hypothesis",
                                                "margin"},  # (as compare_ppi's; a
    # family of differences, no margin's test yet)
    pairboot.compare_many: set(),
    pairboot.sequential: set(OPTIONS) - {"confidence_level", "alternative", "hypothesis",
                                         "margin", "lower_is_better", "metric"},  # (a
    # sequence of a mean or a ratio, no resamples: the data and groups come with each update)
    pairboot.compare_strata: RUNS | {"baseline", "pairs"},  # (one row per stratum)
    pairboot.compare_tasks: TESTS | {"paired", "strata", "strata_weights", "alternative",
                                     "hypothesis", "margin", "resampling", "paired_runs",
                                     "estimand"},
    # (tasks are the strata, each weighing the same in the aggregate; paired classic
    # draws, two-sided differences of the aggregate, which the ranks read; runs reduced
    # per task to its units)
    pairboot.compare_metrics: TESTS | RUNS | {"baseline", "pairs", "paired", "metric",
                                              "lower_is_better", "margin", "alternative"},
    # (each metric carries its own metric, direction and margin, and its one-sided
    # p-values on its own better side; the metrics of one system share their draws)
    pairboot.compare_files: EXACT | FAMILY | RUNS | COLUMNS | {"resampling", "paired",
                                               "group_weighting"},
    pairboot.dask.compare: EXACT | FAMILY | PART_RUNS | {"ids", "resampling", "backend",
                                                       "progress"},
    pairboot.dask.compare_many: EXACT | PART_RUNS | {"ids", "resampling", "backend", "progress"},
    pairboot.dask.parts: EXACT | FAMILY | PART_RUNS | PARTS | FINISHED | {"ids"},
    partitioned.part_from_arrays: EXACT | FAMILY | PART_RUNS | (PARTS - {"backend"}) | FINISHED,
    partitioned.finish: TESTS | FAMILY | RUNS | COLUMNS | {"resampling", "backend", "progress",
                                                   "metric", "n_resamples", "seed"},
    partitioned.finish_many: TESTS | RUNS | COLUMNS | {"resampling", "backend", "progress",
                                               "metric", "n_resamples", "seed"},
}
"""The shared options each public entry point does not take, and (above) why."""

OWN_DEFAULTS = {pairboot.compare_metrics: {"correction": "none"}}
"""Defaults an entry point sets apart from the option's, and why: the rows of several
metrics are each compare()'s answer unless a correction across them is asked for (a
gate of rows that must all hold is an intersection-union test, at the level without
one)."""


def name(function) -> str:
    return f"{function.__module__}.{function.__qualname__}"


@pytest.mark.parametrize("function", list(NOT_ACCEPTED), ids=name)
def test_the_defaults_are_the_options(function):
    differ = {p.name: p.default for p in inspect.signature(function).parameters.values()
              if p.name in OPTIONS and p.default is not inspect.Parameter.empty
              and p.default != DEFAULTS[p.name]}
    assert differ == OWN_DEFAULTS.get(function, {})


@pytest.mark.parametrize("function", list(NOT_ACCEPTED), ids=name)
def test_every_entry_point_takes_the_shared_names_or_says_why_not(function):
    taken = set(inspect.signature(function).parameters)
    assert set(OPTIONS) - taken == NOT_ACCEPTED[function]


def test_every_option_is_a_field_of_the_arguments_or_of_the_data():
    arguments = {f.name for f in dataclasses.fields(Arguments)}
    data = {f.name for f in dataclasses.fields(Data)}
    assert set(OPTIONS) <= arguments | data and not arguments & data
    assert {n for n, o in OPTIONS.items() if o.check is not None} <= arguments
    assert Arguments() == check_options({})[0]  # (the fields' defaults are the options')
    assert {n: getattr(Data(), n) for n in OPTIONS if n in data} == {
        n: DEFAULTS[n] for n in OPTIONS if n in data}


GIVEN = {"paired": False, "groups": [0, 1], "group_weighting": "groups", "strata": [1, 2],
         "strata_weights": {1: 0.5, 2: 0.5}, "metric": "f1", "n_resamples": 99,
         "confidence_level": 0.9, "method": "bca", "alternative": "greater", "margin": 0.1,
         "hypothesis": "non-inferiority", "test": "permutation", "exact": True, "seed": 5,
         "resampling": "poisson", "ids": [7, 8], "runs": "seeds", "paired_runs": True,
         "estimand": "suite", "backend": "numpy", "progress": print, "correction": "holm",
         "lower_is_better": False,
         "baseline": "x", "pairs": [("x", "y")]}


def test_check_options_carries_every_option_given_into_its_field():
    assert set(GIVEN) == set(OPTIONS)
    args, data = check_options({**GIVEN, "not_an_option": 1})
    got = {n: getattr(args if hasattr(args, n) else data, n) for n in OPTIONS}
    assert got == GIVEN


def test_check_options_leaves_what_the_entry_point_fixes_unchecked():
    args, _ = check_options({"seed": "random", "n_resamples": 7},
                            fixed={"seed": 3, "resampling": "poisson"})
    assert (args.seed, args.n_resamples, args.resampling) == (3, 7, "poisson")


def test_a_family_s_margins_are_checked_once_and_the_largest_is_the_margin():
    margins = {("a", "b"): 0.1, ("a", "c"): 0.3}
    args, _ = check_options({"margin": margins, "hypothesis": "non-inferiority"}, family=True)
    assert args.margin == 0.3 and args.margins == ((("a", "b"), 0.1), (("a", "c"), 0.3))
    with pytest.raises(InputError, match="must be a non-negative number"):
        check_options({"margin": margins})  # (one comparison: one margin)


@pytest.mark.filterwarnings("ignore")  # (few resamples: what is drawn is checked)
@pytest.mark.parametrize("call", ["compare", "compare-seeds", "compare_many",
                                  "compare_many-seeds", "compare_strata"])
def test_a_random_seed_is_drawn_once_whatever_the_path(call, monkeypatch):
    """The options are checked once: ``seed="random"`` draws one seed, the one reported
    (the runs' path drew a second one where it checked them again)."""
    draws = []

    def draw(bound):
        draws.append(bound)
        return 1234

    monkeypatch.setattr("secrets.randbelow", draw)  # (options imports secrets on first use)
    rng = np.random.default_rng(0)
    a = rng.random((30, 3)) if call.endswith("seeds") else rng.random(30)
    b = a + 0.1
    kw = dict(seed="random", n_resamples=50)
    if call.endswith("seeds"):
        kw["runs"] = "seeds"
    if call.startswith("compare_many"):
        res = pairboot.compare_many({"x": a, "y": b, "z": b + 0.1}, **kw)
    elif call == "compare_strata":
        res = pairboot.compare_strata(a, b, strata=[0, 1] * 15, **kw)
    else:
        res = pairboot.compare(a, b, **kw)
    assert draws == [2**32] and res.seed == 1234


CHECKED = tuple(n for n, o in OPTIONS.items() if o.check is not None)
"""The options with a check of their own (the others are checked against the data)."""


@pytest.fixture
def checks(monkeypatch):
    """Every :class:`Option` check counted, by option: what one public call checks."""
    counts = collections.Counter()

    def counted(name, check):
        def wrapped(value):
            counts[name] += 1
            return check(value)
        return wrapped

    monkeypatch.setattr("pairboot.options.OPTIONS", MappingProxyType({
        n: dataclasses.replace(o, check=counted(n, o.check)) if o.check is not None else o
        for n, o in OPTIONS.items()}))
    return counts


ENTRY_CALLS = ("compare", "compare-permutation", "compare-seeds", "compare-samples",
               "compare_many", "compare_many-seeds", "compare_strata", "compare_files",
               "compare_files-family", "finish", "power", "power-simulate", "simulate_power")


def _entry_calls(tmp_path):
    """One call of each public entry point (and of each path below compare() and
    compare_many()): the options given where the path reads them."""
    rng = np.random.default_rng(1)
    a, b = rng.random(40), rng.random(40)
    ya, yb = rng.random((40, 3)), rng.random((40, 3))
    scores = {"x": a, "y": b, "z": (a + b) / 2}
    fast = dict(n_resamples=60, seed=3)
    table = tmp_path / "scores.csv"
    table.write_text("id,a,b\n" + "".join(f"{i},{u:.3f},{v:.3f}\n" for i, (u, v)
                                          in enumerate(zip(a, b))))
    zero_one = rng.integers(0, 2, (2, 40))
    return {
        "compare": lambda: pairboot.compare(a, b, margin=0.1, hypothesis="non-inferiority",
                                            **fast),
        "compare-permutation": lambda: pairboot.compare(a, b, test="permutation",
                                                        exact=False, **fast),
        "compare-seeds": lambda: pairboot.compare(ya, yb, runs="seeds", **fast),
        "compare-samples": lambda: pairboot.compare(ya, yb, runs="samples", **fast),
        "compare_many": lambda: pairboot.compare_many(scores, correction="holm", **fast),
        "compare_many-seeds": lambda: pairboot.compare_many(
            {"x": ya, "y": yb}, runs="seeds", **fast),
        "compare_strata": lambda: pairboot.compare_strata(a, b, strata=[0, 1] * 20, **fast),
        "compare_files": lambda: pairboot.compare_files([str(table)], a="a", b="b", id="id",
                                                        **fast),
        "compare_files-family": lambda: pairboot.compare_files(
            [str(table)], systems={"a": "a", "b": "b"}, family={"correction": "none"},
            id="id", **fast),
        "finish": lambda: partitioned.finish(partitioned.part_from_arrays(
            {"a": a, "b": b}, ids=np.arange(40), n_resamples=60, seed=3)),
        "power": lambda: pairboot.power(a=a, b=b, delta=0.1, power=0.8),
        "power-simulate": lambda: pairboot.power(
            a=zero_one[0], b=zero_one[1], delta=0.1, power=0.8, simulate=True,
            n_simulations=20, seed=3),
        "simulate_power": lambda: pairboot.planning.simulate_power(
            *zero_one, n_items=40, delta=0.1, n_simulations=20, n_resamples=60, seed=3),
    }


@pytest.mark.filterwarnings("ignore")  # (few resamples and items: the checks are counted)
@pytest.mark.parametrize("call", ENTRY_CALLS)
def test_one_public_call_checks_each_option_exactly_once(call, checks, tmp_path):
    """The options are checked once, where the entry point takes them: a path below
    it (the runs, a family, the parts, the planner's simulation) reads the checked
    values and checks nothing again."""
    calls = _entry_calls(tmp_path)
    assert list(calls) == list(ENTRY_CALLS)
    calls[call]()
    once = {n: 1 for n in CHECKED}
    if call == "finish":  # (part_from_arrays' seed is its own integer, then finish()'s)
        once = {n: 2 for n in CHECKED} | {"seed": 1}
    assert dict(checks) == once


INTERNAL_BAGS = {
    ("cli/arguments.py", "__init__"): "argparse.ArgumentParser's own keywords",
    ("cli/inputs.py", "align"): "pbio.align's own keywords (the command line's columns)",
    ("cli/inputs.py", "report_context"): "a report's fields, not options",
    ("io/guards.py", "loads"): "json.loads' keywords",
    ("io/harness/__init__.py", "read"): "a log reader's own options (its module's OPTIONS)",
    ("io/harness/table.py", "read"): "the table reader's own options",
    ("io/harness/wmt.py", "read"): "the WMT reader's own options",
    ("io/harness/sacrebleu.py", "_bleu_class"): "sacrebleu's BLEU keywords",
    ("results/power.py", "to_frame"): "the grid of sizes to tabulate",
    ("report/registry.py", "render"): "a writer's labels",
    ("rendering.py", "rendered"): "a writer's labels",
    ("__init__.py", "_render"): "a writer's labels (the report layer on first use)",
    ("tracking.py", "tracked"): "a writer's labels (a result's own tracked() takes them)",
    ("tracking.py", "log_to_mlflow"): "a writer's labels (name_a, name_b: to_html's)",
    ("tracking.py", "log_to_wandb"): "a writer's labels (name_a, name_b: to_html's)",
    ("tracking.py", "tracked_report"): "a writer's labels (name_a, name_b: to_html's)",
}
"""The functions that take a ``**`` keyword bag, and why it is no bag of options."""


def test_no_function_takes_a_bag_of_options():
    """Below the public entry points the options travel as two values (Arguments,
    Data), never as ``**keywords``: every ``**`` parameter left is listed above."""
    root = pathlib.Path(pairboot.__file__).parent
    bags = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.kwarg:
                bags.add((path.relative_to(root).as_posix(), node.name))
    assert bags <= set(INTERNAL_BAGS), sorted(bags - set(INTERNAL_BAGS))


def test_the_pipeline_takes_the_values():
    from pairboot.core.pipeline import compare_items, resample  # noqa: PLC0415

    assert list(inspect.signature(resample).parameters) == [
        "systems", "args", "data", "family", "keep_items"]
    assert list(inspect.signature(compare_items).parameters)[:4] == ["a", "b", "args", "data"]


def test_every_option_has_a_one_line_doc():
    assert all(o.doc and "\n" not in o.doc and len(o.doc) < 80 for o in OPTIONS.values())


BAD = {"paired": "yes", "group_weighting": "docs", "n_resamples": 0,
       "confidence_level": 1.5, "method": "bootstrap", "seed": -1, "resampling": "jackknife",
       "runs": "epochs", "paired_runs": 1, "estimand": "sample", "backend": "gpu",
       "correction": "fdr",
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
