"""A family's permutation test against its recorded p-values: the kernel may change, its
answers may not.

``golden/permutation_family.json`` holds, for a grid of families (3, 5 and 10 systems;
all pairs and against a baseline; groups; strata; pooled F1; exact enumeration and
random relabellings; Poisson and classic resampling; both backends), every row's raw
and adjusted p-value and the global p-value as ``float.hex``, and a SHA-256 of the
maxima's bits where the numba kernel drew them (its sums are added in a fixed order,
so its bits are the same on every processor; the numpy reference's go through BLAS).
Besides, the numba kernel's relabelled sums of a few raw tables (2 to 18 systems, every
kind of difference column, several strata, a start past zero) as SHA-256 of their bits.

Recorded from commit 567cc4f, before the family kernel was rewritten for issue 35, with::

    PYTHONPATH=src python tests/comparisons/test_permutation_golden.py --record

Re-record only when a change of the relabellings is meant, and say so in the commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import pairboot
from pairboot.engine.keys import position_keys, seed_word
from pairboot.engine.permutations import relabelled_row_sums

GOLDEN = Path(__file__).with_name("golden") / "permutation_family.json"

quiet = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def _scores(m: int, n: int, seed: int, spread: float = 0.004) -> dict:
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return {f"s{j}": np.round(base + rng.normal(spread * j, 0.1, n), 3) for j in range(m)}


def _f1(m: int, n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {f"s{j}": (rng.integers(0, 4, (n, 3)) + j * (rng.random((n, 3)) < 0.08)
                      ).astype(float) for j in range(m)}


def family_cases():
    """(name, scores, keywords, random?) of every recorded family."""
    for m in (3, 5, 10):
        for family in ("all", "baseline"):
            extra = {"baseline": "s0"} if family == "baseline" else {}
            yield f"mean-m{m}-{family}", _scores(m, 150, m), extra, True
    groups = np.repeat(np.arange(40), 4)
    yield "groups-m5-all", _scores(5, 160, 51), {"groups": groups}, True
    yield "groups-m3-weighted", _scores(3, 160, 52), {"groups": groups,
                                                   "group_weighting": "groups"}, True
    strata = np.array(["a", "b", "c"])[np.arange(150) % 3]
    yield "strata-m5-baseline", _scores(5, 150, 53), {"strata": strata,
                                                      "baseline": "s0"}, True
    yield "strata-groups-m3", _scores(3, 160, 54), {
        "strata": np.array(["x", "y"])[np.arange(160) // 4 % 2], "groups": groups}, True
    yield "f1-m3-all", _f1(3, 120, 55), {"metric": "f1"}, True
    yield "f1-m5-baseline", _f1(5, 120, 56), {"metric": "f1", "baseline": "s0"}, True
    yield "poisson-m5-all", _scores(5, 150, 57), {"resampling": "poisson"}, True
    yield "poisson-m10-baseline", _scores(10, 150, 58), {"resampling": "poisson",
                                                          "baseline": "s0"}, True
    yield "poisson-m2", _scores(2, 150, 59, 0.02), {"resampling": "poisson"}, True
    yield "greater-m5", _scores(5, 150, 60), {"alternative": "greater",
                                              "baseline": "s0"}, True
    yield "less-lower-m3", _scores(3, 150, 61), {"alternative": "less",
                                                 "lower_is_better": True}, True
    yield "two-batches-m5", _scores(5, 300, 62), {"n_resamples": 5000}, True
    yield "exact-m3", _scores(3, 6, 63, 0.05), {"exact": True}, False
    yield "exact-m5", _scores(5, 2, 64, 0.05), {"exact": True}, False
    yield "exact-m3-groups", _scores(3, 12, 65, 0.05), {
        "exact": True, "groups": np.repeat(np.arange(5), [2, 3, 2, 3, 2])}, False
    yield "exact-f1-m3", _f1(3, 5, 66), {"metric": "f1", "exact": True}, False


def _hex(values) -> list[str]:
    return [float(v).hex() for v in values]


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f8").tobytes()).hexdigest()


def run_family(scores, extra, backend: str) -> dict:
    kw = {"seed": 7, "n_resamples": 999, **extra}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_many(scores, test="permutation", backend=backend, **kw)
    out = {"p_value": _hex([c.test_p_value for c in res.comparisons]),
           "p_adjusted": _hex([c.test_p_adjusted for c in res.comparisons]),
           "global": float(res.test.p_value).hex()}
    if backend == "numba":
        out["maxima"] = _digest(res.test.null_distribution)
    return out


def kernel_cases():
    """(name, arguments of relabelled_row_sums but the backend) of the recorded kernels."""
    rng = np.random.default_rng(70)
    for m, k, differences, sizes, r0, r1 in [
            (2, 2, 1, [300], 0, 257), (2, 1, 0, [120, 80], 5, 90),
            (3, 2, 0, [250], 0, 100), (3, 3, 3, [90, 60, 50], 33, 140),
            (5, 2, 5, [400], 0, 130), (5, 1, 0, [1, 2, 300], 64, 200),
            (9, 2, 0, [200], 0, 70), (10, 2, 10, [150, 50], 7, 77),
            (12, 1, 0, [180], 0, 65), (18, 2, 0, [100], 0, 40)]:
        n = sum(sizes)
        own = rng.normal(0, 1, (n, m * k))
        if k == 2:  # (a mean's count column, 1 for every system)
            own[:, 1::2] = 1.0
        rows = np.column_stack([own, rng.normal(0, 1, (n, differences))])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        yield (f"m{m}-k{k}-d{differences}",
               (rows, position_keys(3, n), starts, np.array(sizes),
                seed_word(m, 0x70657270), r0, r1, m, k, differences))


def run_kernel(args) -> str:
    sums, name = relabelled_row_sums(*args, backend="numba")
    assert name == "numba"
    return _digest(sums)


def record() -> None:
    print(f"pairboot from {Path(pairboot.__file__).parent}")
    out = {"families": {}, "kernels": {}}
    for name, scores, extra, random in family_cases():
        out["families"][name] = {b: run_family(scores, extra, b)
                                 for b in (("numba", "numpy") if random else ("numpy",))}
        print(name, out["families"][name]["numpy"]["p_adjusted"][:2])
    for name, args in kernel_cases():
        out["kernels"][name] = run_kernel(args)
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


CASES = list(family_cases())


def test_the_grid_is_the_recorded_one(golden):
    assert [c[0] for c in CASES] == list(golden["families"])
    assert [c[0] for c in kernel_cases()] == list(golden["kernels"])


# (an enumerated case draws nothing: it runs no kernel, so once, on numpy)
RUNS = [pytest.param(case, backend, id=f"{case[0]}-{backend}") for case in CASES
        for backend in (("numba", "numpy") if case[3] else ("numpy",))]


@quiet
@pytest.mark.parametrize(("case", "backend"), RUNS)
def test_the_p_values_are_the_recorded_ones(golden, case, backend):
    name, scores, extra, random = case
    if backend == "numba":
        pytest.importorskip("numba")
    assert run_family(scores, extra, backend) == golden["families"][name][backend]


@pytest.mark.parametrize("case", list(kernel_cases()), ids=[c[0] for c in kernel_cases()])
def test_the_numba_kernel_s_sums_are_the_recorded_bits(golden, case):
    pytest.importorskip("numba")
    assert run_kernel(case[1]) == golden["kernels"][case[0]]


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(f"usage: python {sys.argv[0]} --record")
    record()
