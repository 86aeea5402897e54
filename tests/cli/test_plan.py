"""Plans: reading a TOML plan, refusing a bad one, its hash, and refusing a run outside it.

References: :mod:`hashlib` for the hash; :func:`pairboot.compare_many` called by hand with
the plan's values for the keywords.
"""

from __future__ import annotations

import hashlib
import textwrap

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.errors import InputError
from pairboot.plans.plan import Plan, plan_sha256, read_plan

quiet = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

BASE_PLAN = """\
systems = ["base", "v1", "v2"]
baseline = "base"
metric = "mean"
confidence_level = 0.9
correction = "holm"
n_resamples = 300
seed = 20261201
"""

RNG = np.random.default_rng(1301)
N = 60
_DIFFICULTY = RNG.random(N)
SCORES = {name: _DIFFICULTY + RNG.normal(shift, 0.1, N)
          for name, shift in (("base", 0.0), ("v1", 0.05), ("v2", -0.02))}
GROUPS = np.repeat(np.arange(20), 3)
STRATA = np.where(np.arange(N) < 30, "web", "news")  # (groups of 3 stay whole)


def write(tmp_path, text: str, name: str = "plan.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def refusal(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message, message
    return info.value


# ------------------------------------------------------------------ a valid plan


def test_a_plan_is_read_with_its_values_and_defaults(tmp_path):
    path = write(tmp_path, BASE_PLAN)
    plan = read_plan(path)
    assert plan == Plan(
        path=str(path), sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        systems=("base", "v1", "v2"), baseline="base", metric="mean",
        confidence_level=0.9, correction="holm", n_resamples=300, seed=20261201,
    )
    assert (plan.pairs, plan.method, plan.paired, plan.lower_is_better) == (
        None, "percentile", True, False)
    assert (plan.group, plan.stratum, plan.stratum_weights) == (None, None, None)
    assert plan.comparisons() == (("base", "v1"), ("base", "v2"))
    with pytest.raises(AttributeError):
        plan.seed = 1  # frozen


@quiet
def test_the_plan_runs_as_compare_many_with_its_values(tmp_path):
    plan = read_plan(write(tmp_path, BASE_PLAN))
    keywords = plan.compare_many_keywords()
    assert keywords == {
        "baseline": "base", "pairs": None, "correction": "holm", "lower_is_better": False,
        "alternative": "two-sided", "hypothesis": "difference", "margin": None,
        "paired": True, "groups": None, "group_weighting": "items", "strata": None,
        "strata_weights": None, "metric": "mean", "n_resamples": 300,
        "confidence_level": 0.9, "method": "percentile", "seed": 20261201,
    }
    res = pairboot.compare_many(SCORES, **keywords)
    by_hand = pairboot.compare_many(SCORES, baseline="base", correction="holm",
                                    n_resamples=300, confidence_level=0.9, seed=20261201)
    assert [(c.a, c.b) for c in res.comparisons] == list(plan.comparisons())
    assert (res.seed, res.n_resamples, res.confidence_level, res.correction) == (
        20261201, 300, 0.9, "holm")
    assert res.to_dict() == by_hand.to_dict()


@quiet
def test_all_pairs_and_listed_pairs_run_in_the_plans_order(tmp_path):
    every = read_plan(write(tmp_path, BASE_PLAN.replace('baseline = "base"\n', ""), "all.toml"))
    assert every.comparisons() == (("base", "v1"), ("base", "v2"), ("v1", "v2"))
    res = pairboot.compare_many(SCORES, **every.compare_many_keywords())
    assert [(c.a, c.b) for c in res.comparisons] == list(every.comparisons())
    assert res.rank_intervals is not None  # (all pairs: the ranks are read off them)

    listed = read_plan(write(tmp_path, BASE_PLAN.replace(
        'baseline = "base"', 'pairs = [["v2", "v1"], ["base", "v2"]]'), "pairs.toml"))
    assert listed.pairs == (("v2", "v1"), ("base", "v2"))
    res = pairboot.compare_many(SCORES, **listed.compare_many_keywords())
    assert [(c.a, c.b) for c in res.comparisons] == [("v2", "v1"), ("base", "v2")]


@quiet
def test_a_plan_with_groups_strata_and_options(tmp_path):
    path = write(tmp_path, BASE_PLAN + """\
        method = "basic"
        paired = true
        lower_is_better = true
        group = "doc"
        group_weighting = "groups"
        stratum = "domain"
        stratum_weights = { web = 3, news = 1.5 }
    """.replace("        ", ""))
    plan = read_plan(path)
    assert (plan.method, plan.lower_is_better, plan.group, plan.group_weighting,
            plan.stratum) == ("basic", True, "doc", "groups", "domain")
    assert dict(plan.stratum_weights) == {"web": 3.0, "news": 1.5}
    assert refusal(plan.compare_many_keywords, strata=STRATA).param == "groups"
    assert "'doc'" in str(refusal(plan.compare_many_keywords, strata=STRATA))
    assert refusal(plan.compare_many_keywords, groups=GROUPS).param == "strata"
    keywords = plan.compare_many_keywords(groups=GROUPS, strata=STRATA)
    assert keywords["strata_weights"] == {"web": 3.0, "news": 1.5}
    res = pairboot.compare_many(SCORES, **keywords)
    assert (res.method, res.n_groups, res.n_strata, res.lower_is_better) == (
        "basic", 20, 2, True)
    # a plan without a group column refuses the labels: they would change the design
    bare = read_plan(write(tmp_path, BASE_PLAN, "bare.toml"))
    assert refusal(bare.compare_many_keywords, groups=GROUPS).param == "groups"


@quiet
def test_a_metric_file_is_relative_to_the_plans_folder(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "mine.py").write_text(
        "import pathlib, pairboot\n"
        "pathlib.Path(__file__).with_name('ran').touch()\n"
        "ratio = pairboot.Metric('my_ratio', ('num', 'den'),\n"
        "                        lambda S: S[..., 0] / S[..., 1])\n")
    plan = read_plan(write(folder, BASE_PLAN.replace('"mean"', '"mine.py:ratio"')))
    monkeypatch.chdir(tmp_path)  # (not the plan's folder)
    # the plan alone never runs the file: the run must name it too
    err = refusal(plan.compare_many_keywords)
    assert err.param == "metric" and "study/mine.py:ratio" in str(err)
    assert not (folder / "ran").exists()
    metric = plan.compare_many_keywords(metric="study/mine.py:ratio")["metric"]
    assert isinstance(metric, pairboot.Metric) and metric.name == "my_ratio"
    assert (folder / "ran").exists()
    assert refusal(plan.compare_many_keywords, metric="mean").param == "metric"
    stats = {k: np.column_stack([v, np.ones(N)]) for k, v in SCORES.items()}
    res = pairboot.compare_many(stats, **plan.compare_many_keywords(metric=metric))
    assert res.metric == "my_ratio"
    plan.check_family(["base", "v1", "v2"], metric="study/mine.py:ratio")  # the same file
    assert refusal(plan.check_family, ["base", "v1", "v2"], metric="mine.py:ratio"
                   ).param == "metric"
    assert refusal(plan.check_family, ["base", "v1", "v2"], metric="mean").param == "metric"


# ------------------------------------------------------------------ refusals

BAD = [
    # (what is changed, the key named, a fragment of the message)
    ({"seed": "sed"}, "sed", "did you mean 'seed'"),
    ({"seed = 20261201\n": "seed = 20261201\n[options]\nx = 1\n"}, "options", "not a plan key"),
    ({"seed = 20261201\n": ""}, "seed", "is missing"),
    ({'"v1", "v2"]': '"v1", "v1"]'}, "systems", "'v1' twice"),
    ({'["base", "v1", "v2"]': '["base"]'}, "systems", "at least two"),
    ({'["base", "v1", "v2"]': '["base", 1]'}, "systems", "list of system names"),
    ({'baseline = "base"': 'baseline = "bsae"'}, "baseline", "'bsae' is not one of the systems"),
    ({'baseline = "base"': 'pairs = [["base", "v3"]]'}, "pairs", "'v3' is not one of"),
    ({'baseline = "base"': 'pairs = [["base", "v1", "v2"]]'}, "pairs",
     '["base", "v1", "v2"] must be a pair of system names'),
    ({'baseline = "base"': 'pairs = [["v1", "v1"]]'}, "pairs", "with itself"),
    ({'baseline = "base"': 'pairs = [["v1", "v2"], ["v2", "v1"]]'}, "pairs", "twice"),
    ({'baseline = "base"': "pairs = []"}, "pairs", "empty; leave it out"),
    ({'baseline = "base"': 'baseline = "base"\npairs = [["v1", "v2"]]'}, "pairs", "not both"),
    ({"0.9": "1.5"}, "confidence_level", "between 0 and 1, got 1.5"),
    ({"0.9": "0"}, "confidence_level", "between 0 and 1, got 0"),
    ({"0.9": "1"}, "confidence_level", "between 0 and 1, got 1"),
    ({"0.9": "nan"}, "confidence_level", "between 0 and 1"),
    ({"0.9": "true"}, "confidence_level", "a number"),
    ({"= 300": "= 0"}, "n_resamples", "positive integer, got 0"),
    ({"= 300": "= -5"}, "n_resamples", "positive integer, got -5"),
    ({"= 300": "= 300.0"}, "n_resamples", "positive integer, got 300.0"),
    ({"= 20261201": "= -1"}, "seed", "non-negative integer, got -1"),
    ({"= 20261201": "= 1.5"}, "seed", "non-negative integer"),
    ({"= 20261201": "= true"}, "seed", "non-negative integer, got true"),
    ({'"holm"': '"sidak"'}, "correction", 'max-t, holm, bonferroni, bh, by, none, got "sidak"'),
    ({"seed = 20261201\n": 'seed = 20261201\nmethod = "bootstrap"\n'}, "method",
     'percentile, basic, normal, bca, studentized, score, got "bootstrap"'),
    ({'"mean"': '"meen"'}, "metric", "unknown metric 'meen'"),
    ({'"mean"': '"nowhere.py:f1"'}, "metric", "does not exist"),
    ({'"mean"': '":f1"'}, "metric", "FILE.py:NAME"),
    ({"seed = 20261201\n": 'seed = 20261201\npaired = "yes"\n'}, "paired", "true or false"),
    ({"seed = 20261201\n": 'seed = 20261201\ngroup = ""\n'}, "group", "non-empty string"),
    ({"seed = 20261201\n": 'seed = 20261201\ngroup_weighting = "groups"\n'},
     "group_weighting", "without 'group'"),
    ({"seed = 20261201\n": 'seed = 20261201\ngroup = "d"\ngroup_weighting = "all"\n'},
     "group_weighting", "items, groups"),
    ({"seed = 20261201\n": "seed = 20261201\nstratum_weights = { a = 1 }\n"},
     "stratum_weights", "without 'stratum'"),
    ({"seed = 20261201\n": 'seed = 20261201\nstratum = "s"\nstratum_weights = { a = -1 }\n'},
     "stratum_weights", "stratum 'a' must be a positive number, got -1"),
    ({"seed = 20261201\n": 'seed = 20261201\nstratum = "s"\nstratum_weights = { a = "x" }\n'},
     "stratum_weights", "positive number"),
    ({"seed = 20261201\n": 'seed = 20261201\nhypothesis = "non-inferiority"\n'},
     "hypothesis", "needs a `margin`"),
    ({"seed = 20261201\n": "seed = 20261201\nmargin = -1\n"}, "margin",
     "must be a finite number >= 0, got -1"),
    ({"seed = 20261201\n": 'seed = 20261201\nmargin = { "v3 - base" = 0.1 }\n'}, "margin",
     "'v3 - base' is not a comparison of the plan"),
    ({"seed = 20261201\n": 'seed = 20261201\nmargin = { "v1 - base" = 0.1 }\n'}, "margin",
     "no margin for 'v2 - base'"),
    ({"seed = 20261201\n": 'seed = 20261201\nhypothesis = "equivalence"\nmargin = 0\n'},
     "margin", "above 0"),
    ({"seed = 20261201\n": 'seed = 20261201\nalternative = "bigger"\n'}, "alternative",
     'two-sided, greater, less, got "bigger"'),
    ({"seed = 20261201\n": 'seed = 20261201\nhypothesis = "non-inferiority"\nmargin = 0.1'
      '\nalternative = "less"\n'}, "alternative", "the side where B is better"),
]


@pytest.mark.parametrize("change, key, fragment", BAD,
                         ids=[f"{key}-{i}" for i, (_, key, _) in enumerate(BAD)])
def test_a_bad_plan_is_refused_naming_the_file_and_key(tmp_path, change, key, fragment):
    text = BASE_PLAN
    for old, new in change.items():
        assert old in text
        text = text.replace(old, new, 1)
    path = write(tmp_path, text)
    err = refusal(read_plan, path)
    message = str(err)
    assert message.startswith(f"{path}: key {key!r}"), message
    assert fragment in message, message
    assert err.param is None  # (the content of a file, not an argument)


@pytest.mark.parametrize("text, line", [
    (BASE_PLAN + "seed = 1\n", 8),  # TOML refuses a key given twice
    (BASE_PLAN + "seed = 1", 8),  # (tomllib says "at end of document")
    (BASE_PLAN.replace("n_resamples = 300", "n_resamples = 300 300"), 6),
    (BASE_PLAN.replace("0.9", "0.9,"), 4),
])
def test_invalid_toml_is_one_line_naming_the_file_and_line(tmp_path, text, line):
    path = write(tmp_path, text)
    message = str(refusal(read_plan, path))
    assert message.startswith(f"{path}, line {line}"), message
    assert "not valid TOML" in message


def test_an_unreadable_plan_is_refused_naming_the_file(tmp_path):
    missing = tmp_path / "nowhere.toml"
    assert str(missing) in str(refusal(read_plan, missing))
    assert str(missing) in str(refusal(plan_sha256, missing))
    path = tmp_path / "latin1.toml"
    path.write_bytes(BASE_PLAN.replace("base", "b\xe4se").encode("latin-1"))
    assert "not UTF-8" in str(refusal(read_plan, path))


# ------------------------------------------------------------------ the hash


@pytest.mark.parametrize(("text", "words"), [
    ("systems = [\n", "line 1"),
    (BASE_PLAN.replace("seed", "sede"), "'sede': not a plan key"),
    (BASE_PLAN.replace("0.9", "9"), "confidence_level"),
])
def test_no_hash_for_a_file_that_is_no_plan(tmp_path, text, words):
    """A hash is published to fix a plan in advance: one of a file no run can follow
    (not TOML, a misspelt key, a value out of range) is refused as read_plan refuses it,
    by the API and by ``pairboot plan hash`` (one line, exit 2)."""
    path = write(tmp_path, text)
    message = str(refusal(plan_sha256, path))
    assert message == str(refusal(read_plan, path)) and words in message
    proc = run_in_process("plan", "hash", str(path))
    assert_one_line_error(proc, str(path), words)


def test_the_hash_is_sha256_of_the_bytes(tmp_path):
    path = write(tmp_path, BASE_PLAN)
    expected = hashlib.sha256(BASE_PLAN.encode()).hexdigest()
    assert plan_sha256(path) == expected == read_plan(path).sha256
    assert len(expected) == 64 and int(expected, 16) >= 0

    # one byte more (a space in a comment): the same plan, another hash
    other = write(tmp_path, BASE_PLAN + "# \n", "other.toml")
    assert plan_sha256(other) != expected
    assert read_plan(other).sha256 == plan_sha256(other)
    assert read_plan(other).compare_many_keywords() == read_plan(path).compare_many_keywords()
    # one byte changed
    flipped = bytearray(BASE_PLAN.encode())
    flipped[-2] = ord("2")  # seed 20261201 -> 20261202
    path.write_bytes(bytes(flipped))
    assert plan_sha256(path) == hashlib.sha256(bytes(flipped)).hexdigest() != expected


# ------------------------------------------------------------------ runs outside the plan

EQUAL = dict(metric="mean", confidence_level=0.9, correction="holm", n_resamples=300,
             seed=20261201, method="percentile", paired=True, lower_is_better=False)


def test_a_run_equal_to_the_plan_is_accepted(tmp_path):
    plan = read_plan(write(tmp_path, BASE_PLAN))
    assert plan.check_family(["v2", "base", "v1"]) is None  # (any order; nothing given)
    plan.check_family(("base", "v1", "v2"), baseline="base", **EQUAL)
    plan.check_family(["base", "v1", "v2"], pairs=[("base", "v2"), ("base", "v1")])
    plan.check_family(["base", "v1", "v2"], metric="Mean", confidence_level=0.9,
                      n_resamples=np.int64(300), seed=np.uint32(20261201))


@pytest.mark.parametrize("names, fragment", [
    (["base", "v1", "v2", "v3"], "system 'v3' is not in the plan"),
    (["base", "v1"], "the plan's system 'v2' is missing from the run"),
    (["base", "v1", "v1", "v2"], "'v1' twice"),
])
def test_a_run_with_other_systems_is_refused(tmp_path, names, fragment):
    path = write(tmp_path, BASE_PLAN)
    message = str(refusal(read_plan(path).check_family, names))
    assert fragment in message
    assert f'{path}: systems = ["base", "v1", "v2"]' in message or "twice" in fragment


@pytest.mark.parametrize("family, fragment", [
    ({"pairs": [("base", "v1"), ("base", "v2"), ("v1", "v2")]}, "asks for v2 - v1, outside"),
    ({"pairs": [("base", "v1")]}, "leaves out the plan's v2 - base"),
    ({"pairs": [("v1", "base"), ("base", "v2")]}, "the other way round"),
    ({"baseline": "v1"}, "`baseline='v1'` asks for base - v1"),
    ({"baseline": "v9"}, "'v9' is not one of the systems"),
    ({"baseline": "base", "pairs": [("base", "v1")]}, "not both"),
    ({"pairs": [("base", "v1", "v2")]}, "must be a pair"),
])
def test_a_run_with_another_family_is_refused(tmp_path, family, fragment):
    path = write(tmp_path, BASE_PLAN)
    message = str(refusal(read_plan(path).check_family, ["base", "v1", "v2"], **family))
    assert fragment in message, message
    if "outside" in fragment or "leaves out" in fragment:
        assert f'({path}: baseline = "base")' in message


def test_a_family_from_a_plan_of_all_pairs(tmp_path):
    plan = read_plan(write(tmp_path, BASE_PLAN.replace('baseline = "base"\n', "")))
    names = ["base", "v1", "v2"]
    plan.check_family(names, pairs=[("v1", "v2"), ("base", "v1"), ("base", "v2")])
    assert "leaves out the plan's v2 - v1" in str(
        refusal(plan.check_family, names, baseline="base"))


@pytest.mark.parametrize("option, value, shown", [
    ("seed", 7, '`seed=7` differs from the plan ({path}: seed = 20261201)'),
    ("seed", "random", "`seed='random'` differs"),
    ("confidence_level", 0.95, "`confidence_level=0.95` differs from the plan "
                               "({path}: confidence_level = 0.9)"),
    ("n_resamples", 10_000, "({path}: n_resamples = 300)"),
    ("correction", "max-t", '({path}: correction = "holm")'),
    ("metric", "accuracy", '({path}: metric = "mean")'),
    ("method", "bca", '({path}: method = "percentile")'),
    ("paired", False, "`paired=False` differs from the plan ({path}: paired = true)"),
    ("lower_is_better", True, "({path}: lower_is_better = false)"),
    ("group", "doc", "`groups='doc'` differs from the plan ({path} has no 'group')"),
    ("stratum", "domain", "`strata='domain'` differs"),
    ("stratum_weights", {"web": 1.0}, "`strata_weights` differs"),
])
def test_a_run_with_other_options_is_refused(tmp_path, option, value, shown):
    path = write(tmp_path, BASE_PLAN)
    err = refusal(read_plan(path).check_family, ["base", "v1", "v2"], **{option: value})
    assert shown.format(path=path) in str(err), str(err)
    assert err.param == {"group": "groups", "stratum": "strata",
                         "stratum_weights": "strata_weights"}.get(option, option)


def test_a_run_of_a_grouped_plan_checks_its_columns_and_weights(tmp_path):
    plan = read_plan(write(tmp_path, BASE_PLAN + textwrap.dedent("""\
        group = "doc"
        stratum = "domain"
        stratum_weights = { web = 3, news = 1 }
    """)))
    names = ["base", "v1", "v2"]
    plan.check_family(names, group="doc", group_weighting="items", stratum="domain",
                      stratum_weights={"web": 3.0, "news": 1})
    assert "group = \"doc\"" in str(refusal(plan.check_family, names, group="topic"))
    assert refusal(plan.check_family, names, group_weighting="groups").param == (
        "group_weighting")
    assert refusal(plan.check_family, names, stratum_weights={"web": 1, "news": 1}
                   ).param == "strata_weights"


MARGIN_PLAN = BASE_PLAN + """hypothesis = "non-inferiority"

[margin]
"v1 - base" = 0.02
"v2 - base" = 0.05
"""


@quiet
def test_a_plan_fixes_each_comparison_s_margin(tmp_path):
    plan = read_plan(write(tmp_path, MARGIN_PLAN))
    assert plan.hypothesis == "non-inferiority"
    assert dict(plan.margin) == {("base", "v1"): 0.02, ("base", "v2"): 0.05}
    result = pairboot.compare_many(SCORES, **plan.compare_many_keywords())
    assert [(c.b, c.margin) for c in result.comparisons] == [("v1", 0.02), ("v2", 0.05)]
    assert result.hypothesis == "non-inferiority" and result.margin is None
    # every row's finite end against its own boundary: significant exactly when above
    for c in result.comparisons:
        assert c.significant == (c.confidence_interval.low > -c.margin)


def test_a_run_cannot_change_a_plan_s_margin_or_hypothesis(tmp_path):
    path = write(tmp_path, MARGIN_PLAN)
    plan = read_plan(path)
    message = str(refusal(plan.check_family, SCORES, margin=0.02))
    assert message.startswith("`margin=0.02` differs from the plan"), message
    assert '"v1 - base" = 0.02' in message  # (the plan's table, as the file writes it)
    message = str(refusal(plan.check_family, SCORES, hypothesis="equivalence"))
    assert "differs from the plan" in message and "non-inferiority" in message
    plan.check_family(SCORES, hypothesis="non-inferiority")  # (the plan's own: no error)
