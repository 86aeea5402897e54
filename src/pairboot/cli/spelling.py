"""How the command line spells the library's arguments in messages: :data:`OPTIONS`
says how this command line writes each one (``--resamples``, ``--resamples 100``), and
:func:`cli_spelling` applies it to every message the user sees: errors, warnings and the
reading of the result.  Kept out of :mod:`pairboot.cli.parser` for its length."""

from __future__ import annotations

from pairboot.cli.battles_args import SPELLINGS
from pairboot.cli.judge_args import SPELLINGS as JUDGE_SPELLINGS
from pairboot.cli.watch_parser import WATCH_OPTIONS
from pairboot.errors import Spelling, spell

__all__ = ["KNOWN", "OPTIONS", "PLANNED", "cli_spelling"]


def _option(flag: str) -> Spelling:
    """``flag``, followed by the value when the message gives one."""
    return lambda value: flag if value is None else f"{flag} {value}"


_LOG_OPTIONS = ("counts", "filter", "tasks", "missing", "lp", "ref", "testset", "unrated",
                "docs", "refs", "tokenize", "lowercase", "max_ngram_order")
"""Options of the harness readers that the command line passes with --log-option."""


def _log_option(key: str) -> Spelling:
    """A reader's own option: ``--log-option KEY=VALUE``."""
    return lambda value: f"--log-option {key}" + ("" if value is None else f"={value}")


def _paired(value: str | None) -> str:
    """`` `paired=True` `` is the default, without the flag; otherwise ``--unpaired``."""
    return "without --unpaired" if value == "True" else "--unpaired"


PLANNED = ("delta", "power", "n_items", "n_groups", "n_runs")
"""The plan's options: leave exactly one out, it is solved for."""

KNOWN = ("sd", "sd_a", "sd_b", "correlation", "accuracy_a", "accuracy_b", "discordant",
         "group_size", "icc", "group_size_cv", "run_sd", "residual_sd", "rate_a", "rate_sd",
         "shift_sd")
"""Planning without data: what the user knows, as :func:`pairboot.power` takes it."""


OPTIONS: dict[str, Spelling] = {
    "n_resamples": _option("--resamples"),
    "confidence_level": _option("--level"),
    "method": _option("--method"),
    "alternative": _option("--alternative"),
    "hypothesis": _option("--hypothesis"),
    "test": _option("--test"),
    "exact": lambda value: "--exact" if value in (None, "True") else "--no-exact",
    "margin": _option("--margin"),
    "lower_is_better": _option("--lower-is-better"),
    "fail_if": _option("--fail-if"),
    "top_items": _option("--top"),
    "seed": _option("--seed"),
    "metric": _option("--metric"),
    "paired": _paired,
    "groups": _option("--group"),
    "group_weighting": _option("--group-weighting"),
    "strata": _option("--stratum"),
    "strata_weights": _option("--stratum-weights"),
    "id": _option("--id"),
    "ids": _option("--id"),
    "labels": _option("--labels"),
    "common_items": lambda value: "--common-items",
    "errors": _option("--errors"),
    "resampling": _option("--resampling"),
    "format": _option("--from"),
    "runs": _option("--runs"),
    "paired_runs": lambda value: "--paired-runs",
    "estimand": _option("--estimand"),
    "ks": _option("--ks"),
    "noise_floor": _option("--noise-floor"),
    "correction": _option("--correction"),
    "aggregate": _option("--aggregate"),
    "resample": _option("--vary"),
    "gamma": _option("--gamma"),
    "tasks": _option("--stratum"),
    "baseline": _option("--baseline"),
    "group": _option("--group"),
    "stratum": _option("--stratum"),
    "score": _option("--score"),
    "gold_a": _option("--gold-a"),
    "gold_b": _option("--gold-b"),
    "lam": _option("--lam"),
    "clip": lambda value: "--no-clip",
    "judge_a": _option("--a"),
    "judge_b": _option("--b"),
    "system": _option("--systems"),
    "correct": _option("--correct"),
    "system_column": _option("--system-column"),
    "null": _option("--null"),
    "stream": lambda value: "--stream",
    "simulate": lambda value: "--simulate",
    "n_simulations": _option("--simulate"),
    **{name: _option("--" + name.replace("_", "-"))
       for name in (*PLANNED, *KNOWN, *WATCH_OPTIONS)},
    **{key: _log_option(key) for key in _LOG_OPTIONS},
    "result.strata": lambda value: "in the strata table",  # (the report's, not an option)
    **SPELLINGS,  # (pairboot battles)
    **JUDGE_SPELLINGS,  # (pairboot agreement, pairboot gold-labels)
}
"""How the command line writes each argument of :func:`pairboot.compare` (and of
:func:`pairboot.io.align`): `` `n_resamples=100` `` reads ``--resamples 100``,
`` `group_weighting='groups'` `` ``--group-weighting groups``, `` `paired=False` ``
``--unpaired``."""


def cli_spelling(text: str) -> str:
    """``text`` (a message of the library) with its arguments written as options.

    >>> cli_spelling("consider whether `group_weighting='groups'` is the estimand you want")
    'consider whether --group-weighting groups is the estimand you want'
    >>> cli_spelling("increase `n_resamples` (now `n_resamples=100`)")
    'increase --resamples (now --resamples 100)'
    """
    return spell(text, OPTIONS)
