"""Items turned into units (``pairboot.core.units``): one set of rules and one message per
refusal for memory, runs and parts.

The units are checked against hand-computed ones; every refusal is met through each path
that can meet it (``compare``, ``compare(..., runs="seeds")``, the runs' ``Layout``, the
planner, a part, parts added) and must read the same.
"""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.comparisons.runs.variance import Layout
from pairboot.core.units import units_of
from pairboot.errors import InputError
from pairboot.inputs.itemkeys import group_keys
from pairboot.partitioned.parts import finish, part_from_arrays

pytestmark = pytest.mark.filterwarnings(
    "ignore::pairboot.errors.SmallSampleWarning")  # (few items and resamples, on purpose)

N = 40
A = np.linspace(0.0, 1.0, N)
B = A + np.where(np.arange(N) % 3 == 0, 0.2, -0.05)
IDS = np.arange(N) * 3 + 1


def test_units_of_groups_within_strata_by_hand():
    # items:   0    1    2    3    4    5
    groups = ["q", "p", "q", "r", "p", "r"]
    strata = ["y", "x", "y", "y", "x", "y"]
    x = np.array([[1.0, 1], [2, 1], [3, 1], [4, 1], [5, 1], [6, 1]])
    units = units_of(6, groups=groups, strata=strata, strata_weights={"x": 1, "y": 3},
                     keys=None, keyed=True)
    assert units.item_unit.tolist() == [1, 0, 1, 2, 0, 2]  # p, q, r
    assert units.unit_stratum.tolist() == [0, 1, 1]  # p in x; q, r in y
    assert units.strata_names == ("x", "y")
    assert units.group_sizes.tolist() == [2, 2, 2]
    assert units.items_per_stratum.tolist() == [2, 4]
    assert units.units_per_stratum.tolist() == [1, 2]
    assert units.shares.tolist() == [2 / 6, 4 / 6]
    assert units.weights.tolist() == [0.25, 0.75]
    assert units.keys.tolist() == group_keys(np.array(["p", "q", "r"])).tolist()
    assert units.order.tolist() == [0, 1, 2]
    assert units.starts.tolist() == [0, 1]
    # a group's statistics: its items' sums; with group_weighting='groups', their mean
    assert units.statistics(x).tolist() == [[7, 2], [4, 2], [10, 2]]
    means = units_of(6, groups=groups, strata=strata, group_weighting="groups")
    assert means.statistics(x).tolist() == [[3.5, 1], [2, 1], [5, 1]]
    assert means.shares.tolist() == [1 / 3, 2 / 3]  # (units, not items)
    assert means.keys is None


def test_units_of_items_in_draw_order_by_stratum():
    keys = np.array([10, 11, 12, 13], dtype=np.uint64)
    units = units_of(4, strata=[2, 1, 2, 1], keys=keys, keyed=True)
    assert units.item_unit is None and units.n_units == 4
    assert units.order.tolist() == [1, 3, 0, 2]
    assert units.keys_in_order.tolist() == [11, 13, 10, 12]
    assert units.statistics(np.arange(4.0)[:, None]).ravel().tolist() == [1, 3, 0, 2]
    plain = units_of(3)
    assert plain.strata is None and plain.order is None and plain.weights.tolist() == [1.0]


def refusals(call_memory, call_runs, call_layout, call_power, call_part):
    """The message (and argument) of every path's refusal."""
    out = []
    for call in (call_memory, call_runs, call_layout, call_power, call_part):
        if call is None:
            continue
        with pytest.raises(InputError) as err:
            call()
        out.append((str(err.value), err.value.param))
    return out


def paths(**kw):
    """compare, compare with runs, Layout.of, power from a pilot with seeds, finish of a
    part: each given the labels and options ``kw``."""
    runs_a, runs_b = np.c_[A, A + 0.1], np.c_[B, B - 0.1]
    labels = {k: kw[k] for k in ("groups", "strata") if k in kw}
    options = {k: kw[k] for k in ("group_weighting", "strata_weights") if k in kw}
    return dict(
        call_memory=lambda: pairboot.compare(A, B, n_resamples=50, seed=0, **kw),
        call_runs=lambda: pairboot.compare(runs_a, runs_b, runs="seeds", n_resamples=50,
                                           seed=0, **kw),
        call_layout=lambda: Layout.of(N, **kw),
        call_power=lambda: pairboot.power(runs_a, runs_b, runs="seeds", delta=0.1,
                                          n_runs=2, power=0.8, **kw),
        call_part=(None if options.get("group_weighting") == "groups" else  # (refused)
                   lambda: finish(part_from_arrays({"a": A, "b": B}, ids=IDS, seed=1,
                                                   n_resamples=50, **labels), **options)),
    )


STRATA = np.where(np.arange(N) < 20, "s1", "s2")
GROUPS = np.repeat(np.arange(10), 4)


@pytest.mark.parametrize("kw, message", [
    (dict(strata_weights={"s1": 1}), "`strata_weights` was given without `strata`"),
    (dict(group_weighting="groups"),
     "`group_weighting='groups'` (the mean of group means) needs `groups`, the group "
     "label of every item"),
    (dict(strata=[1, 2] * 20, strata_weights={1: 1.0, "1": 1.0, 2: 1.0}),
     "`strata_weights` has labels that are equal as text (e.g. 1 and '1')"),
    (dict(strata=STRATA, strata_weights={"s1": 1}),
     "`strata_weights` has no weight for 1 stratum/strata in the data: 's2'"),
    (dict(groups=np.where(np.arange(N) == 20, 0, GROUPS), strata=STRATA),
     "group 0 spans more than one stratum ('s1' and 's2'); a group must lie within one "
     "stratum (whole groups are resampled within it)"),
    (dict(strata=[1, "1"] * 20),
     "`strata` mixes label types (number, text): 1 and '1' would be different labels; "
     "convert them to one type"),
])
def test_one_message_per_refusal_in_memory_runs_and_parts(kw, message):
    """Before the units were built once, the runs' Layout said "needs `groups`" alone,
    and the planner from a pilot with seeds took `group_weighting='groups'` without
    groups."""
    found = refusals(**paths(**kw))
    assert {m for m, _ in found} == {message}
    assert len({p for _, p in found}) == 1


def test_parts_added_say_what_one_list_of_labels_says():
    """A group found in two strata, and stratum labels of two types, only once parts
    are added: the words of the refusal in one place (the parts name no group: they
    keep its key, not its label)."""
    one = part_from_arrays({"a": [1.0, 0.0], "b": [1.0, 1.0]}, ids=[1, 2],
                           groups=["g", "h"], strata=["s", "s"], n_resamples=10, seed=1)
    two = part_from_arrays({"a": [1.0], "b": [0.0]}, ids=[3], groups=["g"], strata=["t"],
                           n_resamples=10, seed=1)
    with pytest.raises(InputError) as parts:
        one + two
    with pytest.raises(InputError) as memory:
        pairboot.compare([1.0, 0.0, 1.0], [1.0, 1.0, 0.0], groups=["g", "h", "g"],
                         strata=["s", "s", "t"], seed=0)
    assert str(parts.value) == str(memory.value).replace("group 'g'", "a group of the parts")
    text = part_from_arrays({"a": [1.0], "b": [0.0]}, ids=[4], strata=["1"],
                            n_resamples=10, seed=1)
    number = part_from_arrays({"a": [1.0], "b": [0.0]}, ids=[5], strata=[1],
                              n_resamples=10, seed=1)
    with pytest.raises(InputError) as parts:
        text + number
    with pytest.raises(InputError) as memory:
        pairboot.compare([1.0, 0.0], [0.0, 1.0], strata=["1", 1], seed=0)
    assert (str(parts.value), parts.value.param) == (str(memory.value), memory.value.param)


@pytest.mark.parametrize("first, second", [
    ([1, 2] * 10, np.array([2, 1] * 10)),  # a list of numbers, a numpy array of them
    (["a\0", "b"] * 10, ["b", "a"] * 10),  # text with a NUL (objects), numpy text
])
def test_parts_whose_labels_are_stored_differently_add_up(first, second):
    """The same kind of label, held as objects in one part and as a numpy array in the
    other, was refused ("different types (O, number)"); the total is what memory gives."""
    strata = [*first, *second]
    part = (part_from_arrays({"a": A[:20], "b": B[:20]}, ids=IDS[:20], strata=first,
                             n_resamples=200, seed=5)
            + part_from_arrays({"a": A[20:], "b": B[20:]}, ids=IDS[20:], strata=second,
                               n_resamples=200, seed=5))
    res = finish(part)
    ref = pairboot.compare(A, B, ids=IDS, strata=strata, resampling="poisson",
                           n_resamples=200, seed=5)
    assert res.n_items == ref.n_items == N
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(res.confidence_interval, ref.confidence_interval,
                               rtol=1e-12, atol=0)
