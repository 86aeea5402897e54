"""Small helpers shared by test modules (imported as ``helpers``: tests/ is on sys.path)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from pairboot import cli
from pairboot.errors import InputError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""The checkout these tests belong to (wherever it lives)."""

REAL_DATA = PROJECT_ROOT.parent / "shared" / "data" / "real"
"""Real outputs of public projects (``SOURCES.md`` there says which): the shared folder
sits beside the checkout, ``../shared``."""


def real_data(*parts: str) -> Path:
    """The path ``parts`` under :data:`REAL_DATA`; the test is skipped, saying where it
    looked and what is missing, when that path is not there."""
    path = REAL_DATA.joinpath(*parts)
    if not path.exists():
        missing = (f"{path} is not there" if REAL_DATA.is_dir() else
                   f"no {REAL_DATA} beside the checkout {PROJECT_ROOT}")
        pytest.skip(f"reads the real files of shared/data/real (../shared from the "
                    f"project root), but {missing}")
    return path


def error(call, *args, **kwargs) -> str:
    """The message of the InputError (a ValueError too) that ``call(*args, **kwargs)`` raises."""
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def run_cli(*args, input: bytes | None = None, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "pairboot", *map(str, args)],
        input=input,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def run_in_process(*args):
    """main() with captured output, shaped like run_cli's result (faster, same checks)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    return SimpleNamespace(returncode=code, stdout=out.getvalue().encode(),
                           stderr=err.getvalue().encode())


def assert_one_line_error(proc, *words):
    """Exit 2, one line 'error: ...' on stderr, no traceback, nothing on stdout."""
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: "), err
    assert proc.stdout == b""
    for w in words:
        assert w in err, (w, err)
    return err


# --- small harness logs ---------------------------------------------------------------------


def lm_eval_output(folder, tasks: dict, model: str = "org__m", order=None,
                   time: str = "2026-01-01T00-00-00.000000"):
    """An lm-eval ``--output_path`` folder: ``folder/<model>/samples_<task>_<time>.jsonl``
    per task, a row per document (``doc_id`` i, filter ``none``, metric ``acc`` =
    ``tasks[task][i]``), rows in ``order`` (default: by doc_id); no results file."""
    import json  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    out = Path(folder) / model
    out.mkdir(parents=True, exist_ok=True)
    for task, values in tasks.items():
        rows = range(len(values)) if order is None else order
        (out / f"samples_{task}_{time}.jsonl").write_text("".join(
            json.dumps({"doc_id": int(i), "filter": "none", "metrics": ["acc"],
                        "acc": float(values[i])}) + "\n" for i in rows))
    return Path(folder)


def inspect_log(path, model: str, values, subjects=None, task: str = "quiz"):
    """An Inspect log of ``values`` (samples x epochs of "C"/"I"/"P" or numbers; sample
    ids 1, 2, ...) scored by ``match``: a JSON log when ``path`` ends in ``.json``, else
    an ``.eval`` zip; ``subjects``, a metadata ``subject`` per sample."""
    import json  # noqa: PLC0415
    import zipfile  # noqa: PLC0415

    n, epochs = len(values), len(values[0])
    samples = [{"id": i + 1, "epoch": e + 1,
                "scores": {"match": {"value": values[i][e]}},
                "metadata": {} if subjects is None else {"subject": str(subjects[i])}}
               for i in range(n) for e in range(epochs)]
    spec = {"task": task, "model": model, "config": {"epochs": epochs},
            "dataset": {"samples": n}, "scorers": [{"name": "match"}]}
    head = {"version": 2, "status": "success", "plan": {}, "results": {}, "stats": {}}
    if str(path).endswith(".json"):
        with open(path, "w") as f:
            json.dump({**head, "eval": spec, "samples": samples}, f)
        return path
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": spec}))
        for s in samples:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        z.writestr("header.json", json.dumps({**head, "eval": spec}))
    return path


def f1_counts(rng, n: int, runs: int, p: float):
    """Per item and run, F1's statistics (tp, fp, fn) of 4 positives found with
    probability ``p`` and Binomial(2, 0.3) false positives: items x runs x 3, float."""
    import numpy as np  # noqa: PLC0415

    tp = rng.binomial(4, p, (n, runs))
    return np.stack([tp, rng.binomial(2, 0.3, (n, runs)), 4 - tp], axis=2).astype(float)
