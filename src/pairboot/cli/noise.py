"""``pairboot compare --noise-floor COL,COL``: two columns of the file that ``--a`` and
``--b`` name, two runs of A's build (with ``--run``, of its trials), read as A and B are
and compared by :func:`pairboot.noise_floor` with the comparison's design; the
comparison's report then states the floor beside its verdict."""

from __future__ import annotations

import argparse

import pairboot
from pairboot.cli.options import api_options, runs_options
from pairboot.cli.stats import split_names
from pairboot.errors import InputError, spell

__all__ = ["FLOOR", "check_floor", "floor_columns", "measure_floor"]

FLOOR = ("paired", "group_weighting", "metric", "n_resamples", "confidence_level",
         "method", "alternative", "seed")
"""The scalar options the A/A comparison takes from the command line (an A/A is of a
difference: no hypothesis, margin or test)."""


def floor_columns(args) -> tuple[str, str] | None:
    """``--noise-floor``'s two columns, checked (None without it)."""
    if args.noise_floor is None:
        return None
    columns = split_names(args.noise_floor, "--noise-floor")
    if len(columns) != 2:
        raise InputError(f"--noise-floor names two columns, two runs of A's build "
                         f"(COL,COL), got {args.noise_floor!r}")
    return columns[0], columns[1]


def check_floor(args, *, logs: bool, many: bool) -> None:
    """Refuse ``--noise-floor`` where there is no one file with ``--a``/``--b`` to read
    its columns from (harness logs, two files, a family, --stream, --tasks-as family)."""
    if args.noise_floor is None:
        return
    where = ("--stream" if args.stream else "harness logs" if logs
             else "a family of systems" if many
             else "--tasks-as family" if args.tasks_as == "family"
             else "two files" if len(args.files) != 1 or args.a is None or args.b is None
             else None)
    if where is not None:
        raise InputError(f"--noise-floor with {where}: it names two columns of the one "
                         "file whose --a and --b columns are compared")
    floor_columns(args)


def with_columns(args, columns: tuple[str, str]):
    """``args`` with ``--a`` and ``--b`` naming the A/A's two columns (a copy)."""
    return argparse.Namespace(**{**vars(args), "a": columns[0], "b": columns[1]})


def measure_floor(args, columns: tuple[str, str], base, rerun, *, groups, strata,
                  strata_weights, keyed: dict, progress) -> pairboot.NoiseFloor:
    """The A/A comparison of the two columns' runs, with the comparison's options; its
    messages name the columns."""
    named = {"base": lambda v: f"--noise-floor column {columns[0]!r}",
             "rerun": lambda v: f"--noise-floor column {columns[1]!r}"}
    try:
        return pairboot.noise_floor(
            base, rerun, **api_options(args, FLOOR), groups=groups, strata=strata,
            strata_weights=strata_weights, **keyed, **runs_options(args),
            progress=progress)
    except InputError as exc:
        raise InputError(spell(str(exc), named)) from None
