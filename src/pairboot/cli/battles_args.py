"""The options of ``pairboot battles`` (:mod:`pairboot.cli.battles` runs it), apart from
:mod:`pairboot.cli.parser`, which adds the subcommand and its spellings from here."""

from __future__ import annotations

import argparse

from pairboot.errors import Spelling

__all__ = ["SPELLINGS", "add_battles"]

FORMATS = ("arena-hard", "arena", "alpaca-eval", "table")
"""--from's choices (:data:`pairboot.io.preferences.FORMATS`, not imported: the parser
loads no reader)."""


def _option(flag: str) -> Spelling:
    return lambda value: flag if value is None else f"{flag} {value}"


SPELLINGS: dict[str, Spelling] = {
    name: _option("--" + name.replace("_", "-"))
    for name in ("model", "ties", "orders", "cluster", "ridge", "anchor", "anchor_rating",
                 "strong_weight")}
SPELLINGS["columns"] = lambda value: "--prompt, --a, --b, --verdict, --game and --weight"
"""How the command line writes :func:`pairboot.compare_preferences`' own arguments (and
:func:`pairboot.io.preferences.read`'s ``columns``)."""


def add_battles(sub, formats) -> argparse.ArgumentParser:
    """``pairboot battles``: its parser, with ``formats`` the --format choices."""
    p = sub.add_parser(
        "battles",
        help="rate systems judged against each other (pairwise preferences): "
        "Bradley-Terry or Davidson ratings, ranks, win rates, position bias",
        description="Rate systems from battles: a judge's (or people's) verdicts on two\n"
        "systems' answers to the same prompt.  Ratings (Elo scale), simultaneous rank\n"
        "sets, the chance of being best and win rates, with intervals from a bootstrap\n"
        "over prompts (every battle of a prompt drawn together); the judge's position\n"
        "bias when the pairs were judged in both orders.",
        epilog="examples:\n"
        "  pairboot battles model_judgment/gpt-4/ --baseline gpt-4-0314\n"
        "  pairboot battles arena_battles.jsonl --model davidson --anchor mixtral --ties separate\n"
        "  pairboot battles results/*/annotations.json --baseline gpt4_1106_preview\n"
        "  pairboot battles votes.csv --from table --prompt qid --a left --b right \\\n"
        "                   --verdict winner --game swapped",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="the battles: arena-hard judgment files (or their folder), Chatbot "
                   "Arena battle tables, AlpacaEval annotations, or a table")
    src = p.add_argument_group("the battles")
    src.add_argument("--from", dest="from_format", choices=FORMATS, default=None,
                     help="the files' format (default: from their first record)")
    src.add_argument("--baseline", metavar="NAME",
                     help="win rates against this system (default: against every "
                     "opponent); arena-hard's baseline, which its files do not name")
    src.add_argument("--strong-weight", type=float, default=None, metavar="W",
                     help="what a strong graded verdict (A>>B) counts (default 3 for "
                     "arena-hard, as its leaderboard; 1 otherwise)")
    for name, default, what in (("prompt", "prompt", "the prompt's id"),
                                ("a", "a", "the system shown first"),
                                ("b", "b", "the system shown second"),
                                ("verdict", "verdict", "A, B, tie, A>>B ... B>>A, or the "
                                 "first's share in [0, 1]"),
                                ("game", "game", "0 the first judging, 1 the swapped one"),
                                ("weight", "weight", "what the battle counts")):
        src.add_argument(f"--{name}", default=default, metavar="COL",
                         help=f"--from table: the column of {what} (default {default!r})")
    how = p.add_argument_group("the ratings")
    how.add_argument("--model", choices=("bradley-terry", "davidson"),
                     default="bradley-terry",
                     help="Bradley-Terry (a tie is half a win; default), or Davidson's "
                     "model, whose ties have their own probability")
    how.add_argument("--ties", choices=("half", "separate"), default="half",
                     help="win rates: a tie as half a win (default), or tie rates apart")
    how.add_argument("--orders", choices=("both", "first", "second"), default="both",
                     help="the games rated: both orders (default), or only the first "
                     "judging, or only the swapped one")
    how.add_argument("--cluster", choices=("prompt", "battle"), default="prompt",
                     help="resample prompts with all their battles (default) or battles "
                     "alone")
    how.add_argument("--anchor", metavar="NAME",
                     help="hold this system's rating at --anchor-rating (default: the "
                     "mean rating is)")
    how.add_argument("--anchor-rating", type=float, default=1000.0, metavar="R",
                     help="the anchor's rating (default 1000)")
    how.add_argument("--ridge", type=float, default=None, metavar="L",
                     help="a penalty L/2 * sum theta^2 on every fit (default: none; only "
                     "resamples without a finite maximum get a tiny one, counted)")
    how.add_argument("--resamples", type=int, default=1000, metavar="R",
                     help="bootstrap resamples (default 1000; each is a fit)")
    how.add_argument("--level", type=float, default=0.95, metavar="L",
                     help="confidence level, between 0 and 1 (default 0.95)")
    how.add_argument("--seed", default=None, metavar="S",
                     help="random seed, >= 0, or 'random' (default: from the data)")
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=formats, default="text",
                     help="report format (default text)")
    out.add_argument("--output", "-o", metavar="FILE",
                     help="write the report to FILE (atomically) instead of standard output")
    out.add_argument("--plot", metavar="FILE",
                     help="also draw the ratings with their intervals to FILE (.png, .svg "
                     "or .pdf; needs matplotlib)")
    out.add_argument("--no-progress", action="store_true",
                     help="no status line while the resamples are fitted")
    return p
