"""The composite GitHub Action (``action.yml`` at the repository's root): its YAML is an
action's (every input declared is used and every one used is declared, the outputs are
the gate step's), and its gate step's script, run with bash as the runner runs it (``bash
--noprofile --norc -eo pipefail``) with the inputs and the runner's files in its
environment, writes the step summary, the JUnit file and the outputs, and exits with the
gate's status."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_gate import files

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
USED = re.compile(r"\binputs\.([A-Za-z0-9_-]+)")
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@pytest.fixture(scope="module")
def action():
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_the_action_is_composite_and_its_inputs_are_all_used(action):
    assert action["runs"]["using"] == "composite"
    assert {"name", "description", "inputs", "outputs", "runs"} <= set(action)
    declared = set(action["inputs"])
    used = set(USED.findall(ACTION.read_text(encoding="utf-8")))
    assert used == declared
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
        assert spec.get("required") or "default" in spec, name  # (an optional one has one)
    for step in action["runs"]["steps"]:
        assert ("uses" in step) != ("run" in step), step
        if "run" in step:
            assert step["shell"] == "bash", step  # (a composite's run step names its shell)
    gate = next(s for s in action["runs"]["steps"] if s.get("id") == "gate")
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"
        assert f"{name}=" in gate["run"]
    for step in action["runs"]["steps"]:  # (no input pasted into a script: only in env)
        assert "inputs." not in step.get("run", ""), step["name"]


def gate_step(action, values: dict, tmp_path: Path):
    """The gate step's script and its environment, the inputs substituted (the given
    ``values``, else each input's default) as the runner would."""
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "gate")
    inputs = {k: str(values.get(k, spec.get("default", "")))
              for k, spec in action["inputs"].items()}

    def substitute(text: str) -> str:
        def value(m: re.Match) -> str:
            expr = m.group(1)
            if expr.startswith("inputs."):
                return inputs[expr.removeprefix("inputs.")]
            assert expr == "github.action_path", expr
            return str(ROOT)
        return EXPRESSION.sub(value, text)

    env = {k: substitute(str(v)) for k, v in step.get("env", {}).items()}
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("earlier step\n")
    run_env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path)),
               "PYTHONPATH": str(ROOT / "src"), "RUNNER_TEMP": str(tmp_path),
               "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output), **env}
    return substitute(step["run"]), run_env, summary, output


def run_action(action, values, tmp_path):
    script, env, summary, output = gate_step(action, values, tmp_path)
    bin_dir = Path(sys.executable).parent  # (the script's `python` is this one)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    (tmp_path / "step.sh").write_text(script)
    proc = subprocess.run([shutil.which("bash"), "--noprofile", "--norc", "-eo", "pipefail",
                           str(tmp_path / "step.sh")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines()
                   if output.exists())
    return proc, summary.read_text(), outputs


@pytest.mark.slow  # (two fresh Python processes)
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("cost_factor", "verdict", "status"), [
    (0.5, "pass", 0), (1.5, "fail", 1)])
def test_the_gate_step_writes_the_summary_the_junit_file_and_exits_as_the_gate(
        action, tmp_path, cost_factor, verdict, status):
    fa, fb, policy, *_ = files(tmp_path, cost_factor=cost_factor)
    proc, summary, outputs = run_action(action, {
        "a": fa, "b": fb, "gate": policy, "id": "id", "task": "task", "resamples": 499,
        "seed": 3, "junit": "reports/gate.xml"}, tmp_path)
    assert proc.returncode == status, proc.stderr
    assert summary.startswith(f"earlier step\n### pairboot gate: {verdict} (b against a)")
    junit = (tmp_path / "reports" / "gate.xml").read_text()
    assert f'<property name="verdict" value="{verdict}"/>' in junit
    assert outputs == {"verdict": verdict, "exit-status": str(status),
                       "junit": "reports/gate.xml"}
    errors = [line for line in proc.stderr.splitlines() if line.startswith("::error")]
    assert bool(errors) == (verdict == "fail")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bad_input_fails_the_step_with_its_one_line(action, tmp_path):
    fa, fb, policy, *_ = files(tmp_path)
    proc, summary, outputs = run_action(action, {
        "a": fa, "b": fb, "gate": policy, "id": "id", "task": "no_such_column",
        "resamples": 99}, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "no_such_column" in proc.stderr
    assert summary == "earlier step\n" and outputs == {"exit-status": "2"}
