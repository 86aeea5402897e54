"""The ``slow`` list of tests/conftest.py names tests that exist (a renamed test would
otherwise quietly join the fast subset)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import SLOW_TESTS

HERE = Path(__file__).parent


@pytest.mark.parametrize("filename", sorted(SLOW_TESTS))
def test_every_slow_name_is_a_test(filename):
    tree = ast.parse((HERE / filename).read_text(encoding="utf-8"))
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    missing = SLOW_TESTS[filename] - defined - {"*"}
    assert not missing, f"tests/conftest.py marks tests that {filename} lacks: {missing}"
