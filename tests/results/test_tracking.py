"""result.log_to_mlflow() and result.log_to_wandb(): written by the real packages in their
local modes (MLflow's file store in a temporary folder, W&B offline) and read back from
there, not mocked."""

from __future__ import annotations

import json
import math
import struct
import sys
from pathlib import Path

import pytest

import pairboot

A = [0.2, 0.5, 0.4, 0.7, 0.1, 0.9, 0.3, 0.6] * 6
B = [0.3, 0.6, 0.4, 0.9, 0.2, 0.8, 0.5, 0.6] * 6
C = [0.2, 0.4, 0.5, 0.7, 0.1, 0.9, 0.2, 0.6] * 6


@pytest.fixture(scope="module")
def two():
    return pairboot.compare(A, B, n_resamples=999, seed=7)


@pytest.fixture(scope="module")
def family():
    return pairboot.compare_many({"base": A, "new": B, "other": C}, n_resamples=999, seed=7)


# --- MLflow -------------------------------------------------------------------------------


@pytest.fixture
def mlflow_store(tmp_path, monkeypatch):
    """MLflow's file store in ``tmp_path`` (the file store needs its opt-in since MLflow
    3.7: it is what mlflow-skinny writes without a database)."""
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    before = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    yield mlflow
    if mlflow.active_run() is not None:
        mlflow.end_run()
    mlflow.set_tracking_uri(before)


def _artifact(mlflow, run_id: str, path: str, tmp_path: Path) -> str:
    local = mlflow.MlflowClient().download_artifacts(run_id, path, str(tmp_path / "dl"))
    return Path(local).read_text(encoding="utf-8")


@pytest.mark.slow  # (the tracker's start and the HTML's figure: seconds)
def test_mlflow_run_holds_the_numbers_the_signature_and_the_report(mlflow_store, two,
                                                                    tmp_path):
    mlflow = mlflow_store
    run_id = two.log_to_mlflow(name_a="base", name_b="new")
    run = mlflow.MlflowClient().get_run(run_id)
    assert run.info.status == "FINISHED"  # (a run of its own, ended)
    m, p, t = run.data.metrics, run.data.params, run.data.tags
    assert m["estimate"] == pytest.approx(two.estimate, abs=1e-15)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx(tuple(two.confidence_interval),
                                                       abs=1e-15)
    assert m["p_value"] == pytest.approx(two.p_value, abs=1e-15)
    assert two.verdict() == "better" and m["verdict_code"] == 1.0 and t["verdict"] == "better"
    assert m["score_a"] == pytest.approx(two.score_a.estimate)
    assert m["n_items"] == len(A)
    assert (p["seed"], p["n_resamples"], p["method"], p["confidence_level"]) == (
        "7", "999", "percentile", "0.95")
    assert p["version"] == pairboot.__version__ and p["metric"] == "mean"
    assert "margin" not in p  # (None: not a parameter)
    assert (t["name_a"], t["name_b"]) == ("base", "new")
    names = [a.path for a in mlflow.MlflowClient().list_artifacts(run_id)]
    assert names == ["pairboot.html"]
    html = _artifact(mlflow, run_id, "pairboot.html", tmp_path)
    assert html == two.to_html(name_a="base", name_b="new")


@pytest.mark.slow
def test_mlflow_logs_into_the_active_run_with_a_prefix(mlflow_store, two, family, tmp_path):
    mlflow = mlflow_store
    with mlflow.start_run() as active:
        assert two.log_to_mlflow(prefix="two/") == active.info.run_id
        assert family.log_to_mlflow(prefix="family/") == active.info.run_id
    client = mlflow.MlflowClient()
    data = client.get_run(active.info.run_id).data
    assert data.metrics["two/estimate"] == pytest.approx(two.estimate)
    row = next(c for c in family.comparisons if (c.a, c.b) == ("base", "new"))
    assert data.metrics["family/new - base/estimate"] == pytest.approx(row.estimate)
    assert data.metrics["family/new - base/p_adjusted"] == pytest.approx(row.p_adjusted)
    assert data.metrics["family/base/score"] == pytest.approx(family.systems["base"].estimate)
    assert data.tags["family/new - base/verdict"] == row.verdict
    assert data.params["family/correction"] == family.correction == "max-t"
    assert data.params["family/seed"] == data.params["two/seed"] == "7"
    names = sorted(a.path for a in client.list_artifacts(active.info.run_id))
    assert names == ["family", "two"]
    assert _artifact(mlflow, active.info.run_id, "family/pairboot.html",
                     tmp_path) == family.to_html()


def test_mlflow_logs_into_a_run_named_by_its_id(mlflow_store, two):
    mlflow = mlflow_store
    with mlflow.start_run() as earlier:
        pass
    assert two.log_to_mlflow(run_id=earlier.info.run_id) == earlier.info.run_id
    metrics = mlflow.MlflowClient().get_run(earlier.info.run_id).data.metrics
    assert metrics["estimate"] == pytest.approx(two.estimate)


def test_an_undefined_number_is_left_out_not_logged_as_nan(mlflow_store):
    from pairboot.tracking import Tracking, to_mlflow

    tracking = Tracking({"estimate": 0.25, "p_value": math.nan, "ci_high": math.inf},
                        {"seed": 3, "margin": None}, {"verdict": "undefined"})
    run_id = to_mlflow(tracking, "<p>report</p>", run_id=None, prefix="", artifact="r.html")
    data = mlflow_store.MlflowClient().get_run(run_id).data
    assert data.metrics == {"estimate": 0.25}
    assert data.params == {"seed": "3"} and data.tags["verdict"] == "undefined"


def test_an_undefined_verdict_is_0_beside_its_word(mlflow_store):
    with pytest.warns(pairboot.SmallSampleWarning):
        tiny = pairboot.compare([0.1, 0.2], [0.3, 0.1], n_resamples=99, seed=1)
    run_id = tiny.log_to_mlflow()
    data = mlflow_store.MlflowClient().get_run(run_id).data
    assert (data.metrics["verdict_code"], data.tags["verdict"]) == (0.0, "undefined")


def test_a_missing_tracker_is_one_line(monkeypatch, two):
    monkeypatch.setitem(sys.modules, "mlflow", None)
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(ImportError, match=r"^log_to_mlflow needs mlflow: pip install "
                       r"'pairboot\[mlflow\]'$"):
        two.log_to_mlflow()
    with pytest.raises(ImportError, match=r"^log_to_wandb needs wandb: pip install "
                       r"'pairboot\[wandb\]'$"):
        two.log_to_wandb()


# --- Weights & Biases -------------------------------------------------------------------


@pytest.fixture
def wandb_offline(tmp_path, monkeypatch):
    wandb = pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DISABLE_GIT", "true")
    wandb.teardown()  # (W&B's settings are read once per process: WANDB_DIR anew)
    yield wandb, tmp_path
    if wandb.run is not None:
        wandb.run.finish()
    wandb.teardown()


def records(path: Path) -> list[bytes]:
    """The records of a W&B run file (``run-ID.wandb``): LevelDB's log format after a
    7-byte header; blocks of 32 KiB, each record a 7-byte header (CRC, length, type:
    1 full, 2 first, 3 middle, 4 last) and its bytes."""
    raw, block, pos, out, part = path.read_bytes(), 32768, 7, [], b""
    assert raw[:4] == b":W&B"
    while pos + 7 <= len(raw):
        if block - pos % block < 7:  # (a block's tail too short for a header: padding)
            pos += block - pos % block
            continue
        _, n, kind = struct.unpack("<IHB", raw[pos:pos + 7])
        if (n, kind) == (0, 0):
            break
        part, pos = part + raw[pos + 7:pos + 7 + n], pos + 7 + n
        if kind in (1, 4):
            out.append(part)
            part = b""
    return out


def offline_run(folder: Path, run_id: str) -> tuple[dict, dict, list[str], Path]:
    """The summary, config and saved files of the offline run ``run_id``, read from
    disk with W&B's own record type, once W&B's service has stopped (it writes the run's
    file on its own time: after ``finish()``, not always by then)."""
    import wandb
    from wandb.proto import wandb_internal_pb2 as pb

    wandb.teardown()

    (run_dir,) = (folder / "wandb").glob(f"offline-run-*-{run_id}")
    summary, config, files = {}, {}, []
    for data in records(run_dir / f"run-{run_id}.wandb"):
        record = pb.Record()
        record.ParseFromString(data)
        kind = record.WhichOneof("record_type")
        if kind == "summary":
            for item in record.summary.update:
                summary["/".join(item.nested_key) or item.key] = json.loads(item.value_json)
        elif kind == "config":
            for item in record.config.update:
                config[item.key] = json.loads(item.value_json)
        elif kind == "files":
            files += [f.path for f in record.files.files]
    return summary, config, files, run_dir / "files"


@pytest.mark.slow  # (the tracker's start and the HTML's figure: seconds)
def test_wandb_offline_run_holds_the_numbers_the_signature_and_the_report(wandb_offline,
                                                                          two):
    wandb, folder = wandb_offline
    run_id = two.log_to_wandb(name_a="base", name_b="new")
    assert wandb.run is None  # (a run of its own, finished)
    summary, config, files, saved = offline_run(folder, run_id)
    assert summary["estimate"] == pytest.approx(two.estimate, abs=1e-15)
    assert (summary["ci_low"], summary["ci_high"]) == pytest.approx(
        tuple(two.confidence_interval), abs=1e-15)
    assert summary["p_value"] == pytest.approx(two.p_value, abs=1e-15)
    assert (summary["verdict"], summary["name_b"]) == ("better", "new")
    assert summary["report"]["_type"] == "html-file"
    assert (config["seed"], config["n_resamples"], config["method"]) == (7, 999, "percentile")
    assert summary["verdict_code"] == 1.0
    assert config["version"] == pairboot.__version__
    assert "pairboot.html" in files
    html = (saved / "pairboot.html").read_text(encoding="utf-8")
    assert html == two.to_html(name_a="base", name_b="new")


@pytest.mark.slow
def test_wandb_logs_a_family_into_the_active_run(wandb_offline, family):
    wandb, folder = wandb_offline
    run = wandb.init(project="pairboot-test")
    assert family.log_to_wandb(prefix="family/") == run.id
    assert wandb.run is run  # (the caller's run: left open)
    run.finish()
    summary, config, files, saved = offline_run(folder, run.id)
    row = next(c for c in family.comparisons if (c.a, c.b) == ("new", "other"))
    assert summary["family/other - new/estimate"] == pytest.approx(row.estimate)
    assert summary["family/other - new/verdict"] == row.verdict
    assert config["family/correction"] == "max-t"
    assert "family/pairboot.html" in files
    assert (saved / "family" / "pairboot.html").read_text(
        encoding="utf-8") == family.to_html()


# --- the other results --------------------------------------------------------------------


def test_several_metrics_log_each_row_and_the_markdown_report(mlflow_store, tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    q, cost = rng.random(60), rng.gamma(2.0, 0.01, 60)
    a = {"quality": q, "cost": cost}
    b = {"quality": q + rng.normal(0.05, 0.05, 60), "cost": cost * 0.9}
    res = pairboot.compare_metrics(a, b, metrics={"quality": "mean", "cost": "mean"},
                                   names=("base", "new"), seed=2, n_resamples=499)
    run_id = res.log_to_mlflow()
    data = mlflow_store.MlflowClient().get_run(run_id).data
    for row in res.rows:
        assert data.metrics[f"{row.name}/estimate"] == pytest.approx(row.estimate)
        assert data.metrics[f"{row.name}/p_adjusted"] == pytest.approx(row.p_adjusted)
        assert data.tags[f"{row.name}/verdict"] == row.verdict
    assert (data.params["seed"], data.tags["name_b"]) == ("2", "new")
    assert _artifact(mlflow_store, run_id, "pairboot.md",
                     tmp_path) == pairboot.report.render(res, "markdown")


@pytest.mark.slow  # (the plan's HTML draws its power curves)
def test_a_plan_logs_its_size(mlflow_store, tmp_path):
    plan = pairboot.power(sd=0.5, delta=0.05, power=0.8)
    run_id = plan.log_to_mlflow(prefix="plan/")
    data = mlflow_store.MlflowClient().get_run(run_id).data
    assert data.metrics["plan/n_items"] == plan.n_items == 787
    assert data.metrics["plan/delta"] == 0.05 and data.params["plan/solved"] == "n_items"
    html = _artifact(mlflow_store, run_id, "plan/pairboot.html", tmp_path)
    assert html.startswith("<!DOCTYPE html>") and "787" in html


def test_a_curve_logs_each_k(mlflow_store):
    import numpy as np

    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, 200)[:, None]
    a = (rng.random((200, 4)) < p) * 1.0
    b = (rng.random((200, 4)) < np.minimum(p + 0.1, 1.0)) * 1.0
    curve = pairboot.trials_curve(a, b, ks=[1, 2, 4], seed=1, n_resamples=499)
    data = mlflow_store.MlflowClient().get_run(curve.log_to_mlflow()).data
    for point in curve.points:
        assert data.metrics[f"k{point.k}/difference"] == pytest.approx(point.difference)
        assert data.metrics[f"k{point.k}/p_adjusted"] == pytest.approx(point.p_adjusted)
    assert data.params["ks"] == "1,2,4" and data.params["kind"] == "pass^k"


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")  # (only their count)
def test_a_large_family_is_logged_whole(mlflow_store):
    """20 systems, all 190 pairs: 1,160 numbers and 193 words, beyond one MLflow batch's
    1,000 and 100 (MLflow's client splits them)."""
    import numpy as np

    from pairboot.tracking import to_mlflow

    rng = np.random.default_rng(0)
    scores = {f"s{k}": rng.random(30) for k in range(20)}
    tracking = pairboot.compare_many(scores, n_resamples=99, seed=1,
                                     correction="holm").tracked()
    assert len(tracking.metrics) > 1000 and len(tracking.tags) > 100
    run_id = to_mlflow(tracking, "<p>report</p>", run_id=None, prefix="", artifact="r.html")
    data = mlflow_store.MlflowClient().get_run(run_id).data
    assert len(data.metrics) == len(tracking.metrics)
    assert data.tags["s19 - s18/verdict"] == tracking.tags["s19 - s18/verdict"]
