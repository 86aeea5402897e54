"""Small helpers shared by test modules (imported as ``helpers``: tests/ is on sys.path)."""

from __future__ import annotations

import pytest

from pairboot.errors import InputError


def error(call, *args, **kwargs) -> str:
    """The message of the InputError (a ValueError too) that ``call(*args, **kwargs)`` raises."""
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, ValueError)
    return str(info.value)
