"""Write two small lm-evaluation-harness output folders (deterministic: same files every run).

    python examples/make_lm_eval_logs.py

``lm_eval/model_a`` and ``lm_eval/model_b`` are laid out as ``lm_eval --log_samples
--output_path lm_eval/model_X`` lays out its output: ``<model_name_sanitized>/samples_<task>
_<time>.jsonl`` (one JSON object per document, with ``doc_id`` and the per-sample metric
fields ``acc`` and ``acc_norm``) and ``results_<time>.json`` (the aggregated scores,
``n-shot``, ``n-samples`` and the model's name).  Two tasks, ``arc_easy_mini`` (120
documents) and ``boolq_mini`` (80); model B is a little better on the first.  The text
fields are short stand-ins, not real questions.

    pairboot compare examples/lm_eval/model_a examples/lm_eval/model_b --score acc
"""

from __future__ import annotations

import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = {"arc_easy_mini": (120, 0.62, 0.70), "boolq_mini": (80, 0.71, 0.72)}
"""Task -> (documents, model A's accuracy, model B's)."""
MODELS = {"model_a": ("example/model-a", "2026-11-30T10-00-00.000000"),
          "model_b": ("example/model-b", "2026-11-30T11-00-00.000000")}


def main() -> None:
    rng = random.Random(20261130)
    easy = {task: [rng.random() for _ in range(n)] for task, (n, _, _) in TASKS.items()}
    for which, (model, time) in MODELS.items():
        folder = os.path.join(HERE, "lm_eval", which, model.replace("/", "__"))
        os.makedirs(folder, exist_ok=True)
        results = {"results": {}, "n-shot": {}, "n-samples": {}, "configs": {},
                   "model_name": model, "config": {"model": "hf",
                                                   "model_args": f"pretrained={model}"}}
        for task, (n, acc_a, acc_b) in TASKS.items():
            acc = acc_a if which == "model_a" else acc_b
            rows, total = [], 0
            for doc_id in range(n):
                correct = int(easy[task][doc_id] < acc)  # the same hard items for both
                norm = int(easy[task][doc_id] < acc + 0.03)
                total += correct
                rows.append({
                    "doc_id": doc_id,
                    "doc": {"question": f"{task} question {doc_id}", "label": doc_id % 2},
                    "target": str(doc_id % 2),
                    "arguments": {"gen_args_0": {"arg_0": f"Question {doc_id}?", "arg_1": " yes"}},
                    "resps": [[["-0.5", "False"]]],
                    "filtered_resps": [["-0.5", "False"]],
                    "filter": "none",
                    "metrics": ["acc", "acc_norm"],
                    "acc": float(correct),
                    "acc_norm": float(norm),
                })
            with open(os.path.join(folder, f"samples_{task}_{time}.jsonl"), "w") as f:
                for row in rows:
                    f.write(json.dumps(row) + "\n")
            results["results"][task] = {"alias": task, "acc,none": total / n}
            results["n-shot"][task] = 0
            results["n-samples"][task] = {"original": n, "effective": n}
            results["configs"][task] = {"task": task, "metric_list": [
                {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
                {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True}]}
        with open(os.path.join(folder, f"results_{time}.json"), "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
