"""Systems are named by their files, one rule for two files and for a family, in memory,
in chunks and through the table reader: the stems, with as many folders as tell two
alike apart (:func:`pairboot.io.names_of_files`); ``--names`` still wins."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from helpers import run_in_process

import pairboot
import pairboot.io as pbio

FAST = ["--resamples", "200", "--seed", "3", "--no-progress", "--format", "json"]


@pytest.fixture
def same_stems(tmp_path, monkeypatch):
    """``runs/a/model.csv``, ``runs/b/model.csv`` and ``base.csv``: two stems alike."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(5)
    paths = []
    for path in ("runs/a/model.csv", "runs/b/model.csv", "base.csv"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        rows = "".join(f"q{i},{int(rng.random() < 0.6)}\n" for i in range(40))
        (tmp_path / path).write_text("id,score\n" + rows)
        paths.append(path)
    return paths


def _two(*args) -> tuple[str, str]:
    proc = run_in_process("compare", *args, *FAST)
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    return out["input"]["a"], out["input"]["b"]


def _family(*args) -> list[str]:
    proc = run_in_process("compare", *args, *FAST)
    assert proc.returncode == 0, proc.stderr.decode()
    return list(json.loads(proc.stdout)["systems"])


def test_two_files_are_named_as_a_familys_are(same_stems):
    model_a, model_b, base = same_stems
    assert _two(base, model_a, "--id", "id") == ("base", "model")  # (not the paths)
    assert _two(model_a, model_b, "--id", "id") == ("a/model", "b/model")
    assert _family(model_a, model_b, base, "--id", "id") == ["a/model", "b/model", "base"]
    # a family of two is one comparison: the same names
    assert _two(model_a, model_b, "--id", "id", "--baseline", "a/model") == ("a/model",
                                                                            "b/model")


def test_through_the_table_reader_the_same_rule(same_stems):
    model_a, model_b, _ = same_stems
    assert _two(model_a, model_b, "--id", "id", "--correct", "score=1") == ("a/model",
                                                                           "b/model")
    # --names still wins
    assert _two(model_a, model_b, "--id", "id", "--names", "old,new") == ("old", "new")


@pytest.mark.slow  # (--stream: the reader of chunks' first use)
def test_in_chunks_the_same_rule(same_stems):
    model_a, model_b, _ = same_stems
    assert _two(model_a, model_b, "--id", "id", "--stream") == ("a/model", "b/model")


def test_names_of_files():
    assert pbio.names_of_files(["x/base.csv", "y/new.tsv.gz"]) == ["base", "new"]
    assert pbio.names_of_files(["x/a/m.csv", "y/a/m.csv", "m.csv"])[:2] == ["x/a/m",
                                                                            "y/a/m"]
    assert pbio.names_of_files(["d/m.csv", "d/m.jsonl"]) == ["m.csv", "m.jsonl"]
    assert pbio.names_of_files(["-", "s3://bucket/x/m.csv", "s3://bucket/y/m.csv"]) == [
        "stdin", "x/m", "y/m"]
    assert pbio.names_of_files(["a.csv", "./a.csv"])[0] != "a"  # (never one name twice)


def test_compare_files_names_a_family_by_the_same_rule(same_stems):
    model_a, model_b, base = same_stems
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (40 items: a small sample's warnings)
        result = pairboot.compare_files([model_a, model_b, base], id="id", family={},
                                        n_resamples=100, seed=1)
    assert list(result.systems) == ["a/model", "b/model", "base"]
