"""Record ``tests/reference/golden/compare.json``: every case of ``cases.py`` run by pairboot.

Re-record only deliberately (a change of results that is meant), from a clean checkout of
the commit whose results are the reference, and say why in the commit message::

    git worktree add /tmp/golden-src HEAD
    PYTHONPATH=/tmp/golden-src/src python tests/reference/golden/record.py
    git worktree remove --force /tmp/golden-src

It prints which ``pairboot`` it imported: check that it is the one meant.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).with_name("compare.json")
N_FIRST = 5


def _float(value) -> float | str | None:
    """A float for JSON: NaN as null, infinities as the strings "inf" and "-inf"."""
    value = float(value)
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _optional_int(value) -> int | None:
    return None if value is None else int(value)


def _interval(ci) -> list:
    return [_float(ci.low), _float(ci.high)]


def _system(score) -> dict:
    return {
        "estimate": _float(score.estimate),
        "confidence_interval": _interval(score.confidence_interval),
        "standard_error": _float(score.standard_error),
    }


def distribution_digest(values: np.ndarray) -> str:
    """SHA-256 of the float64 bytes, every NaN written as numpy's ``nan`` first (the
    sign and payload of a NaN carry no meaning and vary with how it was made)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    values = np.where(np.isnan(values), np.nan, values)
    return hashlib.sha256(values.tobytes()).hexdigest()


def summarize(res, categories) -> dict:
    """The recorded fields of one CompareResult (``categories``: the class names of the
    pairboot warnings it emitted, in order)."""
    dist = np.asarray(res.bootstrap_distribution)
    return {
        "estimate": _float(res.estimate),
        "confidence_interval": _interval(res.confidence_interval),
        "p_value": _float(res.p_value),
        "standard_error": _float(res.standard_error),
        "score_a": _system(res.score_a),
        "score_b": _system(res.score_b),
        "n_items": int(res.n_items),
        "n_groups": _optional_int(res.n_groups),
        "n_strata": _optional_int(res.n_strata),
        "n_resamples": int(res.n_resamples),
        "seed": int(res.seed),
        "confidence_level": _float(res.confidence_level),
        "method": res.method,
        "metric": res.metric,
        "paired": bool(res.paired),
        "group_weighting": res.group_weighting,
        "engine": res.engine,
        "warnings": list(res.warnings),
        "warning_categories": list(categories),
        "strata": [
            {
                "name": s.name,
                "weight": _float(s.weight),
                "n_items": int(s.n_items),
                "n_groups": _optional_int(s.n_groups),
                "estimate": _float(s.estimate),
                "confidence_interval": _interval(s.confidence_interval),
                "standard_error": _float(s.standard_error),
                "p_value": _float(s.p_value),
                "score_a": _float(s.score_a),
                "score_b": _float(s.score_b),
            }
            for s in res.strata
        ],
        "monte_carlo_error": _interval(res.monte_carlo_error),
        "verdict": res.verdict(),
        "reading": res.reading,
        "bootstrap_distribution": {
            "length": int(dist.size),
            "sha256": distribution_digest(dist),
            "first": [_float(v) for v in dist[:N_FIRST]],
        },
    }


def run(case: dict) -> dict:
    """Run one case with the pairboot that is imported, and summarize it."""
    import pairboot
    from golden.cases import build

    kwargs = build(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pairboot.compare(**kwargs)
    categories = [type(w.message).__name__ for w in caught
                  if isinstance(w.message, pairboot.PairbootWarning)]
    return summarize(res, categories)


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: golden.cases
    import pairboot
    from golden.cases import CASES

    print(f"recording with pairboot {pairboot.__version__} from {pairboot.__file__}")
    out = {}
    for case in CASES:
        t0 = time.perf_counter()
        out[case["name"]] = run(case)
        print(f"  {case['name']:40s} {out[case['name']]['engine']:22s} "
              f"{time.perf_counter() - t0:6.2f} s")
    text = json.dumps(out, indent=1, sort_keys=True, allow_nan=False) + "\n"
    GOLDEN.write_text(text, encoding="utf-8")
    print(f"wrote {len(out)} cases to {GOLDEN}")


if __name__ == "__main__":
    main()
