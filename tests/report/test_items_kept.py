"""The items ``common_items`` kept, beside the verdict in every format: how many of how
many (``Aligned.common``, ``Joined.common``), and a warning naming the sources that lost
most when one lost more than 10% of its items, in Python as on the command line."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from helpers import run_in_process

import pairboot
import pairboot.io as pbio
from pairboot import PairbootWarning, report
from pairboot.io import CommonItems

FAST = ["--resamples", "200", "--seed", "2", "--no-progress"]


def write_scores(path, ids, seed):
    rng = np.random.default_rng(seed)
    path.write_text("id,score\n" + "".join(f"{i},{rng.random():.3f}\n" for i in ids))
    return str(path)


@pytest.fixture
def lopsided(tmp_path):
    """``full`` scores 100 items, ``partial`` 60 of them, ``most`` 95: 60 kept of 100."""
    ids = [f"q{i}" for i in range(100)]
    return (write_scores(tmp_path / "full.csv", ids, 1),
            write_scores(tmp_path / "partial.csv", ids[:60][::-1], 2),
            write_scores(tmp_path / "most.csv", ids[:95], 3))


def test_align_counts_the_items_kept_and_warns_of_a_large_loss(lopsided):
    full, partial, most = (pbio.read_table(p) for p in lopsided)
    with pytest.warns(PairbootWarning) as caught:
        aligned = pbio.align([full, partial, most], columns=[["score"]] * 3, id="id",
                             common_items=True)
    c = aligned.common
    assert (c.kept, c.total, c.sizes) == (60, 100, (100, 60, 95))
    (w,) = caught
    text = str(w.message)  # (the sources that lost most, the largest share first)
    assert "more than 10% of the items of 2 of the 3 files" in text
    assert text.index("full.csv: 40 of 100, 40%") < text.index("most.csv: 35 of 95, 37%")
    assert "partial.csv" not in text  # (it lost nothing)
    with warnings.catch_warnings():  # a small loss: counted, not warned of
        warnings.simplefilter("error")
        small = pbio.align([full, most], columns=[["score"]] * 2, id="id", common_items=True)
    assert (small.common.kept, small.common.total) == (95, 100)
    assert small.common.warning() is None
    assert pbio.align([full, full], columns=[["score"]] * 2, id="id").common is None


def test_harness_join_counts_and_warns_alike(lopsided):
    reads = [pbio.harness.read(p, "table", id="id") for p in lopsided]
    with pytest.warns(PairbootWarning, match="2 of the 3 logs"):
        joined = pbio.harness.join(reads, common_items=True)
    assert (joined.common.kept, joined.common.total, joined.common.unit) == (60, 100, "log")


def _context(common, cls=report.ReportContext):
    return cls(items_kept=common.renamed(["full", "partial", "most"][:len(common.sources)]))


def test_every_format_says_the_items_kept_under_its_headline():
    common = CommonItems(kept=60, total=100, sources=("a.csv", "b.csv"), sizes=(100, 60))
    rng = np.random.default_rng(0)
    a = rng.random(60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = pairboot.compare(a, a + 0.05, n_resamples=200, seed=1)
        family = pairboot.compare_many({"full": a, "partial": a + 0.05, "most": a - 0.02},
                                       n_resamples=200, seed=1)
    line = "Compared on 60 of 100 items: those every file scores (`common_items`)."
    warned = "dropped more than 10% of the items of 1 of the 2 systems (full: 40 of 100, 40%)"
    for render, result, cls, first in (
            (report.render, two, report.ReportContext, "**"),
            (report.render_family, family, report.FamilyContext, "**")):
        ctx = _context(common, cls)
        text = render(result, "text", ctx).splitlines()
        assert text[1].startswith(line) and warned in text[1]  # (right under the headline)
        markdown = render(result, "markdown", ctx).splitlines()
        assert markdown[0].startswith(first) and markdown[2].startswith(line)
        github = render(result, "github", ctx)
        assert github.index(line) < github.index("| ")  # (before the tables)
        latex = render(result, "latex", ctx)
        assert "\\caption{Compared on 60 of 100 items" in latex
        html = render(result, "html", ctx)
        assert html.index('data-field="common_items"') < html.index("<table")
        data = json.loads(render(result, "json", ctx))
        assert data["common_items"]["kept"] == 60 and data["common_items"]["total"] == 100
        assert data["common_items"]["lost"][0] == {"source": "full", "dropped": 40,
                                                   "items": 100}
        assert warned in data["common_items"]["warning"]
        assert "Compared on" not in render(result, "text", cls())  # (without: nothing)
    assert "Compared on" not in report.render(two, "text")


def test_the_command_line_says_the_items_kept(lopsided):
    full, partial, most = lopsided
    proc = run_in_process("compare", full, partial, "--id", "id", "--common-items", *FAST)
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert lines[1].startswith("Compared on 60 of 100 items: those every file scores "
                               "(--common-items). Warning: --common-items dropped")
    assert "(full: 40 of 100, 40%)" in lines[1]  # (by the system's name)
    assert proc.stderr == b""  # (the report shows it)
    proc = run_in_process("compare", full, partial, most, "--id", "id", "--common-items",
                          "--format", "json", *FAST)
    data = json.loads(proc.stdout)
    assert data["common_items"]["kept"] == 60 and data["n_items"] == 60
    err = proc.stderr.decode()
    assert "warning: --common-items dropped more than 10% of the items of 2 of the 3 " \
           "systems (full: 40 of 100, 40%; most: 35 of 95, 37%)" in err
    proc = run_in_process("compare", full, partial, "--id", "id", "--common-items",
                          "--from", "table", *FAST)  # (through the table reader)
    assert proc.stdout.decode().splitlines()[1].startswith(
        "Compared on 60 of 100 items: those every log scores (--common-items).")
