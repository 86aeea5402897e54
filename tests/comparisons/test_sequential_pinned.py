"""What pairboot.sequential and ``pairboot watch`` answered before a change that must
not alter it, byte for byte: every update's result of a few streams (the mean's two
sequences, a ratio of sums), and watch's JSON reports.  The answers are recorded in
``golden/sequential_pins.json`` (recorded with the code of 2026-12-06, before the
moments were computed once per update, watch's batches and the pooled metrics);
``python tests/comparisons/test_sequential_pinned.py`` rewrites it, which only a change
meant to alter the answers may do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from helpers import run_in_process

import pairboot

GOLDEN = Path(__file__).parent / "golden" / "sequential_pins.json"
BATCHES = (1, 1, 7, 30, 200, 300, 1000, 1461)
"""Update sizes (4,000 items): single items, then batches past the rule's first chunk
(256), so that both the per-item path and the state carried between chunks count."""


def _fields(result) -> dict:
    out = result.to_dict()
    out.pop("version")
    return out


def _stream(make, a, b, **update):
    s = make()
    out, start = [], 0
    for size in BATCHES:
        keywords = {k: v[start:start + size] for k, v in update.items()}
        out.append(_fields(s.update(a[start:start + size], b[start:start + size],
                                    **keywords)))
        start += size
    return out


def library_cases() -> dict:
    rng = np.random.default_rng(4040)
    n = sum(BATCHES)
    x = rng.normal(0.0, 1.0, n)
    den = rng.poisson(4, (n, 2)) + 1
    num_null = rng.binomial(den, 0.3)
    num_up = np.column_stack([rng.binomial(den[:, 0], 0.30), rng.binomial(den[:, 1], 0.34)])
    u = rng.random(n)
    a01 = (u < 0.4).astype(float)
    b01 = np.where(u < 0.05, 0.0, np.where(u < 0.47, 1.0, a01))

    def ratio(num):
        return (np.column_stack([num[:, 0], den[:, 0]]).astype(float),
                np.column_stack([num[:, 1], den[:, 1]]).astype(float))

    return {
        "ratio null": _stream(lambda: pairboot.sequential(metric="ratio"), *ratio(num_null)),
        "ratio decided": _stream(lambda: pairboot.sequential(metric="ratio", n_target=300),
                                 *ratio(num_up)),
        "ratio greater": _stream(lambda: pairboot.sequential(
            metric="ratio", alternative="greater", hypothesis="superiority", margin=0.01),
            *ratio(num_up)),
        "mean asymptotic null": _stream(lambda: pairboot.sequential(), x, x + rng.normal(
            0.0, 1.0, n)),
        "mean asymptotic decided": _stream(lambda: pairboot.sequential(n_target=200),
                                           x, x + rng.normal(0.1, 1.0, n)),
        "mean asymptotic groups": _stream(lambda: pairboot.sequential(), x, x + rng.normal(
            0.02, 1.0, n), groups=np.concatenate([k * 10_000 + np.arange(size) // 3
                                                  for k, size in enumerate(BATCHES)])),
        "mean betting": _stream(lambda: pairboot.sequential(bounds=(0, 1), grid_size=400),
                                a01, b01),
    }


def _records(n, seed, up, down):
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    d = np.where(u < down, -1, np.where(u < down + up, 1, 0))
    a = np.where(d == 0, rng.random(n) < 0.6, d < 0).astype(int)
    return [{"id": f"q{i}", "a": int(a[i]), "b": int(a[i] + d[i]), "doc": i // 3,
             "x": float(np.round(a[i] + rng.normal(0, 0.3), 6)),
             "y": float(np.round(a[i] + d[i] + rng.normal(0, 0.3), 6))} for i in range(n)]


def _watch(folder: Path, name: str, rows, *options, tail: str = ""):
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + tail)
    proc = run_in_process("watch", path, "--no-progress", "--format", "json", *options)
    if proc.returncode not in (0, 1):
        return {"status": proc.returncode, "stderr": proc.stderr.decode()}
    out = json.loads(proc.stdout)
    out.pop("version")
    out.pop("signature")
    return {"status": proc.returncode, "report": out}


def watch_cases(folder: Path) -> dict:
    rows = _records(900, 5, 0.15, 0.05)
    null = _records(300, 6, 0.08, 0.08)
    long = [row for r in rows for row in ({"id": r["id"], "m": "new", "s": r["b"]},
                                          {"id": r["id"], "m": "base", "s": r["a"]})]
    mixed = [row for r in rows for row in ({"id": r["id"], "a": r["a"]},
                                           {"id": r["id"], "b": r["b"]})]
    return {
        "betting": _watch(folder, "betting", rows, "--a", "a", "--b", "b", "--bounds", "0,1"),
        "betting gate": _watch(folder, "gate", rows, "--bounds", "0,1", "--fail-if",
                               "different"),
        "asymptotic": _watch(folder, "asymptotic", rows, "--a", "x", "--b", "y"),
        "asymptotic null": _watch(folder, "null", null, "--a", "a", "--b", "x"),
        "groups": _watch(folder, "groups", rows, "--bounds", "0,1", "--group", "doc"),
        "groups null": _watch(folder, "groups_null", null, "--bounds", "0,1", "--group",
                              "doc"),
        "system column": _watch(folder, "long", long, "--system-column", "m", "--a", "base",
                                "--b", "new", "--score", "s", "--bounds", "0,1"),
        "one system a record": _watch(folder, "mixed", mixed, "--bounds", "0,1"),
        "budget": _watch(folder, "budget", null, "--bounds", "0,1", "--budget", "120"),
        "bad line after the stop": _watch(folder, "bad_after", rows, "--bounds", "0,1",
                                          tail="{oops\n"),
        "out of bounds after the stop": _watch(folder, "out_after", rows, "--bounds", "0,1",
                                               tail='{"id": "late", "a": 1, "b": 7}\n'),
        "bad line undecided": _watch(folder, "bad_null", null, "--bounds", "0,1",
                                     tail="{oops\n"),
        "out of bounds undecided": _watch(folder, "out_null", null, "--bounds", "0,1",
                                          tail='{"id": "late", "a": 1, "b": 7}\n'),
    }


def all_cases(folder: Path) -> dict:
    return {"library": library_cases(), "watch": watch_cases(folder)}


def _stable(cases: dict) -> dict:
    """As written to and read from the file (tuples as lists, the folder's name out of
    the error lines)."""
    return json.loads(json.dumps(cases))


def _strip_folder(cases: dict, folder: Path) -> dict:
    for case in cases["watch"].values():
        if "stderr" in case:
            case["stderr"] = case["stderr"].replace(str(folder), "FOLDER")
    return cases


def test_the_library_answers_are_unchanged():
    expected = json.loads(GOLDEN.read_text())["library"]
    got = _stable(library_cases())
    assert got.keys() == expected.keys()
    for name in expected:
        for k, (g, e) in enumerate(zip(got[name], expected[name], strict=True)):
            assert g == e, (name, k, {f: (g[f], e[f]) for f in e if g[f] != e[f]})


def _close(got, expected) -> bool:
    """Equal, numbers to 1e-12 relative (and 1e-15 absolute)."""
    if isinstance(expected, dict):
        return got.keys() == expected.keys() and all(_close(got[k], expected[k])
                                                     for k in expected)
    if isinstance(expected, list):
        return len(got) == len(expected) and all(map(_close, got, expected))
    if isinstance(expected, float) and isinstance(got, float):
        return abs(got - expected) <= 1e-15 + 1e-12 * abs(expected)
    return type(got) is type(expected) and got == expected


def test_watchs_answers_are_unchanged(tmp_path):
    """Everything but the last bits of the numbers: watch now feeds the records of one
    read in one update, whose moments are summed at once rather than one record at a
    time (the stop, the verdict, the counts and the errors are the same)."""
    expected = json.loads(GOLDEN.read_text())["watch"]
    got = _strip_folder(_stable({"watch": watch_cases(tmp_path)}), tmp_path)["watch"]
    assert got.keys() == expected.keys()
    for name in expected:
        assert _close(got[name], expected[name]), (name, got[name], expected[name])


if __name__ == "__main__":  # (record: only for a change meant to alter the answers)
    import tempfile

    sys.path.insert(0, str(Path(__file__).parents[1]))
    with tempfile.TemporaryDirectory() as tmp:
        cases = _strip_folder(_stable(all_cases(Path(tmp))), Path(tmp))
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
