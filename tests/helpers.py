"""Small helpers shared by test modules (imported as ``helpers``: tests/ is on sys.path)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from types import SimpleNamespace

import pytest

from pairboot import cli
from pairboot.errors import InputError


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
