"""The items behind the number (CompareResult.items_summary, result.items()) against a
hand count on a small fixture, and in every report format."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pairboot
from pairboot.core.items import largest
from pairboot.errors import InputError
from pairboot.partitioned.parts import finish, part_from_arrays
from pairboot.report import render

# Scores in quarters (exact in binary): B - A per item, by hand:
#   q0 +.25  q1 0  q2 -.25  q3 -.5  |  q4 0  q5 +.5  q6 +.5  q7 -.25
A = [0.5, 1.0, 0.25, 0.75, 0.5, 0.25, 0.0, 0.75]
B = [0.75, 1.0, 0.0, 0.25, 0.5, 0.75, 0.5, 0.5]
IDS = [f"q{i}" for i in range(8)]
STRATA = ["s"] * 4 + ["t"] * 4
GROUPS = ["g0", "g0", "g1", "g1", "g2", "g2", "g3", "g3"]
KW = {"n_resamples": 500, "seed": 1}
pytestmark = pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")

A01 = [1, 1, 0, 0, 1, 0, 1, 0, 1, 1]  # both 0, 4, 8; only A 1, 6, 9; only B 2, 5;
B01 = [1, 0, 1, 0, 1, 1, 0, 0, 1, 0]  # neither 3, 7


def tally(c):
    return c.n, c.wins, c.ties, c.losses


def ids_of(rows):
    return [r.id for r in rows]


@pytest.fixture(scope="module")
def result():
    return pairboot.compare(A, B, ids=IDS, strata=STRATA, groups=GROUPS, top_items=2, **KW)


def test_wins_ties_losses_and_the_largest_differences_by_hand(result):
    s = result.items_summary
    assert tally(s.items) == (8, 3, 2, 3)
    assert s.items.wins + s.items.ties + s.items.losses == s.n == result.n_items
    assert ids_of(s.items.top_wins) == ["q5", "q6"]  # (+.5 twice: in the order given)
    assert ids_of(s.items.top_losses) == ["q3", "q2"]  # (-.5, then the first -.25)
    q5 = s.items.top_wins[0]
    assert (q5.a, q5.b, q5.difference, q5.stratum, q5.size) == (0.25, 0.75, 0.5, "t", None)
    assert s.items.table is None  # (not 0/1 scores)


def test_per_stratum_by_hand(result):
    s, t = result.items_summary.strata
    assert (s.name, tally(s)) == ("s", (4, 1, 1, 2))
    assert (t.name, tally(t)) == ("t", (4, 2, 1, 1))
    assert ids_of(s.top_wins) == ["q0"] and ids_of(s.top_losses) == ["q3", "q2"]
    assert ids_of(t.top_wins) == ["q5", "q6"] and ids_of(t.top_losses) == ["q7"]


def test_per_group_by_their_sums_by_hand(result):
    s = result.items_summary
    # sums A: g0 1.5, g1 1.0, g2 .75, g3 .75; B: 1.75, .25, 1.25, 1.0
    assert s.group_statistic == "sum" and tally(s.groups) == (4, 3, 0, 1)
    assert ids_of(s.groups.top_wins) == ["g2", "g0"] and ids_of(s.groups.top_losses) == ["g1"]
    g2 = s.groups.top_wins[0]
    assert (g2.a, g2.b, g2.size, g2.stratum) == (0.75, 1.25, 2, "t")
    assert [tally(c) for c in s.group_strata] == [(2, 1, 0, 1), (2, 2, 0, 0)]


def test_groups_by_their_means_with_group_weighting_groups():
    s = pairboot.compare(A, B, groups=GROUPS, group_weighting="groups", **KW).items_summary
    assert s.group_statistic == "mean"
    assert [(r.id, r.a, r.b) for r in s.groups.top_wins] == [
        ("g2", 0.375, 0.625), ("g0", 0.75, 0.875), ("g3", 0.375, 0.5)]


def test_the_2x2_table_of_0_1_scores_by_hand():
    s = pairboot.compare(A01, B01, **KW).items_summary
    t = s.items.table
    assert (t.both, t.only_a, t.only_b, t.neither) == (3, 3, 2, 2)
    assert tally(s.items) == (10, 2, 5, 3)
    assert ids_of(s.items.top_wins) == [2, 5]  # (positions without ids)
    assert ids_of(s.items.top_losses) == [1, 6, 9]  # (5 at most: all 3)


def test_items_frame_has_every_item(result):
    pd = pytest.importorskip("pandas")
    frame = result.items()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["id", "a", "b", "difference", "stratum", "group"]
    assert frame["id"].tolist() == IDS and frame["a"].tolist() == A
    assert frame["difference"].tolist() == [b - a for a, b in zip(A, B)]
    assert frame["stratum"].tolist() == STRATA and frame["group"].tolist() == GROUPS


def test_items_keep_the_order_given_under_poisson_weights():
    order = [3, 0, 7, 1, 6, 2, 5, 4]
    res = pairboot.compare([A[i] for i in order], [B[i] for i in order],
                           ids=[IDS[i] for i in order], resampling="poisson", **KW)
    assert res.items()["id"].tolist() == [IDS[i] for i in order]
    assert ids_of(res.items_summary.items.top_wins) == ["q6", "q5", "q0"]  # (order now)


def test_top_items_zero_keeps_counts_only_and_a_bad_one_is_refused():
    s = pairboot.compare(A, B, top_items=0, **KW).items_summary
    assert tally(s.items) == (8, 3, 2, 3) and s.items.top_wins == s.items.top_losses == ()
    for bad in (-1, 2.5, True):
        with pytest.raises(InputError, match="`top_items`"):
            pairboot.compare(A, B, top_items=bad, **KW)


def test_the_largest_are_found_without_sorting_all():
    rng = np.random.default_rng(0)
    values = rng.integers(-5, 6, 1000).astype(float)  # (many ties)
    for k in (0, 1, 7, 500, 2000):
        positive = [i for i in sorted(range(1000), key=lambda i: (-values[i], i))
                    if values[i] > 0][:k]
        assert largest(values, k).tolist() == positive


def test_no_items_for_pooled_metrics_unpaired_and_parts_and_the_reports_say_why():
    tp = np.array([[3, 1, 0], [2, 0, 1], [4, 1, 1]] * 4, dtype=float)
    cases = {
        "pooled over the items": pairboot.compare(tp, tp[::-1], metric="f1", **KW),
        "unpaired": pairboot.compare(A * 3, B * 3, paired=False, **KW),
        "never in one place": finish(part_from_arrays(
            {"A": np.array(A * 3), "B": np.array(B * 3)}, ids=np.arange(24), seed=1,
            n_resamples=500)),
    }
    for why, res in cases.items():
        assert res.items_summary is None
        with pytest.raises(ValueError, match="items"):
            res.items()
        assert why in render(res, "text") and why in render(res, "markdown")
        assert why in json.loads(render(res, "json"))["items_note"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "github"])
def test_every_format_shows_the_counts_and_the_top_items(result, fmt):
    report = render(result, fmt)
    assert "B wins 3, ties 2 and loses 3 of the 8 items" in report
    assert "B wins 3, ties 0 and loses 1 of the 4 groups" in report
    for item in ("q5", "q6", "q3", "q2", "g2", "g1"):
        assert item in report


def test_the_json_carries_the_whole_summary(result):
    out = json.loads(render(result, "json"))
    s = out["items_summary"]
    assert (s["n"], s["top"], s["group_statistic"]) == (8, 2, "sum")
    assert {k: s["items"][k] for k in ("n", "wins", "ties", "losses")} == {
        "n": 8, "wins": 3, "ties": 2, "losses": 3}
    assert s["items"]["top_wins"][0] == {"id": "q5", "a": 0.25, "b": 0.75, "stratum": "t",
                                         "size": None, "difference": 0.5}
    assert [r["id"] for r in s["items"]["top_losses"]] == ["q3", "q2"]
    assert [st["name"] for st in s["strata"]] == ["s", "t"]
    assert s["groups"]["wins"] == 3 and len(s["group_strata"]) == 2
    assert out["items_note"] is None


def test_the_json_carries_the_2x2_table():
    res = pairboot.compare(A01, B01, **KW)
    table = json.loads(render(res, "json"))["items_summary"]["items"]["table"]
    assert table == {"both": 3, "only_a": 3, "only_b": 2, "neither": 2}
    assert "both right 3, only A right 3, only B right 2, both wrong 2" in render(res)


def test_summaries_compare_by_their_content():
    one, two = (pairboot.compare(A, B, ids=IDS, **KW).items_summary for _ in range(2))
    assert one == two and one is not two
    assert one != pairboot.compare(A, B[::-1], ids=IDS, **KW).items_summary


def test_the_command_line_lists_the_items_by_id_and_takes_top(tmp_path):
    from helpers import run_in_process

    rows = {"base.csv": A, "new.csv": B}
    for name, scores in rows.items():  # (B's rows in another order: joined on the ids)
        order = range(8) if name == "base.csv" else reversed(range(8))
        (tmp_path / name).write_text("id,score\n" + "".join(
            f"{IDS[i]},{scores[i]}\n" for i in order), encoding="utf-8")
    files = [tmp_path / "base.csv", tmp_path / "new.csv"]
    run = run_in_process("compare", *files, "--id", "id", "--format", "json", "--top", "1",
                         "--seed", "1", "--resamples", "500", "--no-progress")
    s = json.loads(run.stdout)["items_summary"]["items"]
    assert (s["wins"], s["ties"], s["losses"]) == (3, 2, 3)
    assert [r["id"] for r in s["top_wins"] + s["top_losses"]] == ["q5", "q3"]
    bad = run_in_process("compare", *files, "--id", "id", "--top", "-1", "--no-progress")
    assert bad.returncode == 2 and b"--top" in bad.stderr and b"top_items" not in bad.stderr
