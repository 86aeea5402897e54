"""The Python API's inputs paired as the docs say (issue 21): by position, the order
passed, never re-aligned on a pandas index; DataFrames joined on their id column with
``ids="col"``, their shared columns checked as two files' are; an id column never taken
for a system."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import error

import pairboot
from pairboot import InputError

pd = pytest.importorskip("pandas")

FEW_RESAMPLES = pytest.mark.filterwarnings(
    r"ignore:(\d+ resamples leave only|the Monte Carlo error of the endpoints|only \d+ "
    "groups)"
    ":pairboot.SmallSampleWarning"
)
KEYWORDS = dict(seed=3, n_resamples=300)


def files(n=300, seed=21):
    """Two systems' files as read by pandas: B's rows shuffled, the index the row
    numbers of each file (the issue's repro)."""
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + 0.03 + rng.normal(0, 0.1, n)
    ids = [f"q{i:04d}" for i in range(n)]
    frame_a = pd.DataFrame({"id": ids, "score": a})
    frame_b = pd.DataFrame({"id": ids, "score": b}).sample(frac=1, random_state=0)
    return frame_a, frame_b.reset_index(drop=True), a, b


@FEW_RESAMPLES
def test_series_sorted_apart_are_refused_not_realigned_on_their_index():
    """`compare(a.sort_values("id").score, b.sort_values("id").score)`: the indexes are
    the files' row numbers, in other orders; pandas would pair by them (the wrong
    items, as compare did silently); refused, and either way out gives one answer."""
    fa, fb, a, b = files()
    sa, sb = fa.sort_values("id").score, fb.sort_values("id").score
    msg = error(pairboot.compare, sa, sb, **KEYWORDS)
    assert "pairs items by position" in msg and "reset_index(drop=True)" in msg
    ref = pairboot.compare(a, b, **KEYWORDS)
    by_position = pairboot.compare(sa.reset_index(drop=True), sb.reset_index(drop=True),
                                   **KEYWORDS)
    assert by_position.confidence_interval == ref.confidence_interval
    assert pairboot.compare(sa.to_numpy(), sb.to_numpy(), **KEYWORDS).p_value == ref.p_value
    with pytest.raises(InputError, match="pairs items by position"):
        pairboot.compare_many({"a": sa, "b": sb}, **KEYWORDS)
    with pytest.raises(InputError, match="pairs items by position"):
        pairboot.compare_strata(sa, sb, strata=np.arange(300) % 3, **KEYWORDS)


@FEW_RESAMPLES
def test_every_pandas_input_is_checked_against_the_others():
    a = pd.Series(np.linspace(0, 1, 60))
    b = a + 0.05 + np.sin(np.arange(60)) / 10
    order = np.random.default_rng(0).permutation(60)
    groups = pd.Series(np.arange(60) // 3)
    for keyword, value in (("groups", groups.iloc[order]), ("strata", groups.iloc[order] % 2),
                           ("ids", pd.Series([f"q{i}" for i in range(60)]).iloc[order])):
        msg = error(pairboot.compare, a, b, **{keyword: value}, **KEYWORDS)
        assert f"the index of `{keyword}`" in msg and ".reindex(" in msg
    # labels checked with each other even when the systems are arrays
    assert "`strata`" in error(pairboot.compare, a.to_numpy(), b.to_numpy(), groups=groups,
                               strata=groups.iloc[order] % 2, **KEYWORDS)
    # the same index, no index, or no label in common: only the positions pair them
    for other in (b, b.to_numpy(), list(b), b.set_axis(b.index + 1000)):
        assert pairboot.compare(a, other, groups=groups, **KEYWORDS).n_items == 60
    # unpaired, the systems' items are not paired with each other
    assert pairboot.compare(a, b.iloc[order], paired=False, **KEYWORDS).paired is False
    # several runs per system: the same rule
    runs_a = pd.DataFrame({"r1": a, "r2": a + 0.01})
    with pytest.raises(InputError, match="pairs items by position"):
        pairboot.compare(runs_a, (runs_a + 0.05).iloc[order], runs="seeds")


@FEW_RESAMPLES
def test_dataframes_are_joined_on_their_id_column():
    fa, fb, a, b = files()
    ref = pairboot.compare(a, b, **KEYWORDS)
    msg = error(pairboot.compare, fa, fb, **KEYWORDS)  # before: paired by position
    assert "id column 'id'" in msg and "give `ids='id'`" in msg
    joined = pairboot.compare(fa, fb, ids="id", **KEYWORDS)
    assert joined.confidence_interval == ref.confidence_interval
    poisson = dict(KEYWORDS, resampling="poisson")
    assert (pairboot.compare(fa, fb, ids="id", **poisson).confidence_interval
            == pairboot.compare(a, b, ids=fa.id, **poisson).confidence_interval)
    family = pairboot.compare_many({"a": fa, "b": fb}, ids="id", **KEYWORDS)
    assert family.comparisons[0].confidence_interval == ref.confidence_interval
    # what the join refuses
    assert "duplicate id" in error(pairboot.compare, fa, fb.assign(id=fb.id.iloc[0]),
                                   ids="id", **KEYWORDS)
    assert "1 only in `a`" in error(pairboot.compare, fa, fb.replace({"id": {"q0000": "x"}}),
                                    ids="id", **KEYWORDS)
    assert "has none of that name" in error(pairboot.compare, fa.score, fb.score, ids="id",
                                            **KEYWORDS)
    assert "`paired=True`" in error(pairboot.compare, fa, fb, ids="id", paired=False,
                                    **KEYWORDS)


@FEW_RESAMPLES
def test_dataframes_paired_by_position_keep_their_own_columns():
    """Two frames in one order whose ids agree, each with its model's own response: read
    by position, the responses are no evidence."""
    fa, _, a, b = files(60)
    fa = fa.assign(response=[f"A says {i}" for i in range(60)])
    fb = pd.DataFrame({"id": fa.id, "response": [f"B says {i}" for i in range(60)],
                       "score": b})
    assert (pairboot.compare(fa, fb, **KEYWORDS).confidence_interval
            == pairboot.compare(a, b, **KEYWORDS).confidence_interval)
    # the questions in another order show other items, whatever the column's name
    fb2 = fb.assign(id=fb.id.iloc[::-1].to_numpy()).rename(columns={"id": "uuid"})
    fa2 = fa.rename(columns={"id": "uuid"})
    assert "column 'uuid' that identifies the rows" in error(pairboot.compare, fa2, fb2,
                                                             **KEYWORDS)


@FEW_RESAMPLES
def test_an_id_column_is_never_a_system():
    """`compare_many(df)` took an integer `id` column for a system (best=('id',), and
    the extra comparisons inflated every adjusted p-value)."""
    rng = np.random.default_rng(2)
    base = rng.random(200)
    systems = {"base": base, "v1": base + rng.normal(0.05, 0.05, 200),
               "v2": base + rng.normal(0.0, 0.05, 200)}
    ref = pairboot.compare_many(systems, **KEYWORDS)
    gaps = np.random.default_rng(3).choice(np.arange(20, 1000), 200, replace=False)
    for column, values in (("id", np.arange(200)), ("n", np.arange(1, 201)),
                           ("qid", [f"q{i}" for i in range(200)]), ("problem", gaps)):
        frame = pd.DataFrame({column: values, **systems})
        msg = error(pairboot.compare_many, frame, **KEYWORDS)
        assert f"column {column!r} of `scores`" in msg and f"`ids={column!r}`" in msg
        fam = pairboot.compare_many(frame, ids=column, **KEYWORDS)
        assert list(fam.systems) == ["base", "v1", "v2"]
        assert [c.p_adjusted for c in fam.comparisons] == [c.p_adjusted
                                                           for c in ref.comparisons]
    assert "names no column" in error(pairboot.compare_many, pd.DataFrame(systems),
                                      ids="id", **KEYWORDS)


def test_a_structured_array_names_its_fields():
    rows = np.zeros(30, dtype=[("id", "i8"), ("score", "f8")])
    msg = error(pairboot.compare, rows, rows)
    assert "structured array (fields id, score)" in msg and "a['score']" in msg


# --------------------------------------------- integers a float64 cannot hold (issue 22)


def test_integers_beyond_2_53_are_refused_before_they_become_floats():
    """numpy int64 and Python ints near 2**63 became float64 silently (a difference of -1
    per item read as none): pairboot.inputs.precision.refuse_inexact_integers, on the values
    as given and their float64 conversion (for design.as_floats)."""
    from pairboot.inputs.precision import refuse_inexact_integers  # noqa: PLC0415

    big = 2**62
    ints = np.array([big, big + 1, 3], dtype=np.int64)
    msg = error(refuse_inexact_integers, ints, ints.astype(np.float64), "a")
    assert msg.startswith(f"`a` at item 0: {big} is an integer beyond 2**53")
    as_list = [0.5, 2**53 + 1, 2]
    msg = error(refuse_inexact_integers, as_list, np.asarray(as_list, dtype=np.float64), "b")
    assert "`b` at item 1: 9007199254740993" in msg and "it reads 9007199254740992" in msg
    stats = np.array([[1, 2], [3, -(2**60)]], dtype=np.int64)
    msg = error(refuse_inexact_integers, stats, stats.astype(np.float64), "a")
    assert msg.startswith("`a` at item 1, column 1: ")
    unsigned = np.array([2**64 - 1], dtype=np.uint64)
    assert "beyond 2**53" in error(refuse_inexact_integers, unsigned,
                                   unsigned.astype(np.float64), "a")
    for fine in ([2**53, -(2**53), 1], [1e300, 0.5], np.array([2.0**60]),
                 np.array([2**53], dtype=np.int64)):
        refuse_inexact_integers(fine, np.asarray(fine, dtype=np.float64), "a")


def test_compare_refuses_integers_beyond_2_53():
    """Near 2**63 a true difference of -1 per item read as "no difference"."""
    big = 2**62
    a = np.array([big + 2 * i for i in range(40)], dtype=np.int64)
    msg = error(pairboot.compare, a, a - 1, seed=1)
    assert "beyond 2**53" in msg and "`a`" in msg
    with pytest.warns(pairboot.DegenerateDataWarning, match="differences are constant"):
        res = pairboot.compare(a - big, a - big - 1, seed=1, n_resamples=1000)
    assert res.estimate == -1 and res.verdict() == "worse"
