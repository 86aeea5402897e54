"""A result handed to an experiment tracker: MLflow or Weights & Biases.

A result says what it is in three dicts (:class:`Tracking`, from its ``tracked()``): its
numbers (the estimate, the interval, the p-value, the verdict as a number), its
signature (seed, resamples, method, level, version, ...) and its words (the verdict,
the systems' names); its HTML report comes through the one hook,
:func:`pairboot.rendering.rendered`.  This module writes them where each tracker keeps
such things (docs/integrations.md): it imports ``mlflow`` or ``wandb`` inside the
function that logs, and of the package only the hook, so every result may use it.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass

from pairboot.rendering import rendered

__all__ = ["ARTIFACT", "Tracked", "Tracking", "verdict_code"]

ARTIFACT = "pairboot.html"
"""The HTML report's file name in the run (after the prefix)."""

_BETTER = ("better", "better-by-margin")


def verdict_code(verdict: str | None) -> float:
    """The verdict as a number a tracker can chart (``verdict_code``, beside the word,
    ``verdict``): 1 when B is shown better (``better``,
    ``better-by-margin``), -1 when shown worse, 0 otherwise (inconclusive, undefined,
    non-inferior, equivalent: the word is logged beside it)."""
    return 1.0 if verdict in _BETTER else -1.0 if verdict == "worse" else 0.0


@dataclass(frozen=True)
class Tracking:
    """What a result logs: ``metrics`` (numbers), ``params`` (its signature) and
    ``tags`` (words)."""

    metrics: dict[str, float]
    params: dict[str, object]
    tags: dict[str, str]


class Tracked:
    """The trackers' methods of a result whose ``tracked(**labels)`` gives its
    :class:`Tracking` and whose report in :attr:`report_format` takes the same
    ``labels``."""

    __slots__ = ()

    report_format = "html"
    """The report logged beside the numbers (a result without an HTML report: its
    Markdown one, ``pairboot.md``)."""

    def tracked(self, **labels) -> Tracking:  # pragma: no cover - each result's own
        raise NotImplementedError

    def tracked_report(self, artifact: str | None, **labels) -> tuple[str, str]:
        """The report's text and its file name in the run."""
        kind = type(self).report_format
        name = artifact or (ARTIFACT if kind == "html" else "pairboot.md")
        return rendered(self, kind, **labels), name

    def log_to_mlflow(self, *, run_id: str | None = None, prefix: str = "",
                      artifact: str | None = None, **labels) -> str:
        """Log this result to MLflow (``pip install 'pairboot[mlflow]'``) and return the
        run's id: the numbers as metrics, the signature as parameters, the verdict and
        the names as tags, the HTML report as the artifact ``artifact`` (default
        ``pairboot.html``); each key begins with ``prefix`` (to log several results in
        one run).  Into the run ``run_id``, else the active run, else a new run (ended
        after) of the current experiment and tracking URI (``MLFLOW_TRACKING_URI``).
        ``labels``: as the result's ``to_html`` takes them (``name_a``, ``name_b`` for
        two systems)."""
        text, name = self.tracked_report(artifact, **labels)
        return to_mlflow(self.tracked(**labels), text, run_id=run_id, prefix=prefix,
                         artifact=name)

    def log_to_wandb(self, run=None, *, prefix: str = "", artifact: str | None = None,
                     **labels) -> str:
        """Log this result to Weights & Biases (``pip install 'pairboot[wandb]'``) and
        return the run's id: the numbers and words in the run's summary, the signature
        in its config, the HTML report as the run's file ``artifact`` (and in the
        summary as ``report``, shown by the W&B page); each key begins with ``prefix``.
        Into ``run``, else ``wandb.run``, else a new run (project ``pairboot``,
        finished after; ``WANDB_MODE=offline`` keeps it on disk).  ``labels``: as the
        result's ``to_html`` takes them."""
        text, name = self.tracked_report(artifact, **labels)
        return to_wandb(self.tracked(**labels), text, run=run, prefix=prefix, artifact=name)


def _need(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs {module}: pip install 'pairboot[{module}]'") from None


def key(text: str) -> str:
    """A key both trackers take: MLflow's characters (letters, digits, ``_ - . / ``
    and space); any other becomes ``_``."""
    return re.sub(r"[^\w\-. /]", "_", text)


def _numbers(metrics: dict[str, float], prefix: str) -> dict[str, float]:
    """The finite numbers (a tracker has no NaN to chart: an undefined p is left out)."""
    out = {}
    for name, value in metrics.items():
        if value is not None and math.isfinite(float(value)):
            out[key(prefix + name)] = float(value)
    return out


def _params(params: dict[str, object], prefix: str) -> dict[str, str]:
    return {key(prefix + name): str(value) for name, value in params.items()
            if value is not None}


def to_mlflow(tracking: Tracking, html: str, *, run_id: str | None, prefix: str,
              artifact: str) -> str:
    """Log ``tracking`` and ``html`` to the MLflow run ``run_id`` (else the active
    run, else a new one); the run's id."""
    mlflow = _need("mlflow", "log_to_mlflow")
    if run_id is None and mlflow.active_run() is None:
        with mlflow.start_run() as run:
            return to_mlflow(tracking, html, run_id=run.info.run_id, prefix=prefix,
                             artifact=artifact)
    if run_id is None:
        run_id = mlflow.active_run().info.run_id
    from mlflow.entities import Metric, Param, RunTag

    client = mlflow.MlflowClient()
    stamp = int(1000 * time.time())
    client.log_batch(
        run_id,
        metrics=[Metric(k, v, stamp, 0) for k, v in _numbers(tracking.metrics, prefix).items()],
        params=[Param(k, v) for k, v in _params(tracking.params, prefix).items()],
        tags=[RunTag(k, v) for k, v in _params(tracking.tags, prefix).items()])
    client.log_text(run_id, html, prefix + artifact)
    return run_id


def to_wandb(tracking: Tracking, html: str, *, run, prefix: str, artifact: str) -> str:
    """Log ``tracking`` and ``html`` to the W&B run ``run`` (else ``wandb.run``, else a
    new one, finished after); the run's id."""
    wandb = _need("wandb", "log_to_wandb")
    own = run is None and wandb.run is None
    if run is None:
        run = wandb.run if wandb.run is not None else wandb.init(project="pairboot")
    try:
        run.config.update({key(prefix + name): value for name, value
                           in tracking.params.items() if value is not None},
                          allow_val_change=True)
        shown = ({key(prefix + "report"): wandb.Html(html, inject=False)}
                 if artifact.endswith(".html") else {})
        run.summary.update({**_numbers(tracking.metrics, prefix),
                            **_params(tracking.tags, prefix), **shown})
        path = os.path.join(run.dir, prefix + artifact)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(html)
        run.save(path, base_path=run.dir, policy="now")
        return run.id
    finally:
        if own:
            run.finish()
