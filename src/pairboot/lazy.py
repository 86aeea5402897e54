"""Names a package imports on first use (PEP 562), by one rule: :mod:`pairboot`,
:mod:`pairboot.io`, :mod:`pairboot.report` and :mod:`pairboot.metrics` keep their
start-up light by resolving a public name in their ``__getattr__`` with
:func:`lazy_attribute`."""

from __future__ import annotations

import importlib
from collections.abc import Collection, Mapping

__all__ = ["lazy_attribute"]


def lazy_attribute(package: str, namespace: dict, name: str, where: Mapping[str, str],
                   submodules: Collection[str] | None = None):
    """The value of ``package``'s attribute ``name``, imported and kept in ``namespace``
    (the package's globals) so that the next lookup is a plain one.

    ``where`` maps a public name to the module that defines it (a module of the package,
    ``"parts"``, or a full name, ``"pairboot.results.compare"``); any other name is a
    submodule of the package, among ``submodules`` (None: any that exists).  Anything
    else raises AttributeError, as a module without the name does."""
    if name in where:
        module = where[name]
        full = module if module.startswith(f"{package}.") else f"{package}.{module}"
        value = getattr(importlib.import_module(full), name)
    elif not name.startswith("__") and (submodules is None or name in submodules):
        try:
            value = importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    namespace[name] = value
    return value
