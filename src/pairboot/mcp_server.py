"""``pairboot mcp``: pairboot for coding agents, over the Model Context Protocol (stdio).

Three tools on files, each the command of the same name with the options it takes:
``compare`` and ``compare_many`` (``pairboot compare``: two systems, or a family) and
``power`` (``pairboot power``: a plan from a pilot's files, or from what is known).  A
tool's arguments are spelled into the command's argv and run in this process
(:mod:`pairboot.cli`'s parser and commands), so its answer is the command's: the JSON
result (also as the tool's structured content) and the text report.  Bad input is a
tool error of one line, the command's ``error: ...``, never a traceback.  Needs the
official SDK: ``pip install 'pairboot[mcp]'`` (docs/integrations.md).
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from typing import Literal

__all__ = ["argv_of", "build_server", "run_command", "serve"]

_LOCK = threading.Lock()
"""One command at a time: a command redirects the process's standard streams and its
warnings filters while it runs, and the SDK runs each call in a thread of its own."""

REFUSED = ("--output", "-o", "--plot", "--format", "--no-progress", "--help", "-h",
           "--version")
"""Options ``options`` may not carry: the server writes no file and chooses the formats."""

Report = Literal["text", "markdown", "none"]

_INPUTS = ("a", "b", "id", "score", "metric", "stats", "group", "stratum", "from_format",
           "level", "seed", "lower_is_better")
_BOOTSTRAP = ("resamples", "method", "alternative", "margin", "hypothesis", "test")
_FAMILY = ("systems", "names", "baseline", "correction")
_PLAN = ("delta", "power", "n_items", "n_groups", "n_runs", "sd", "accuracy_a",
         "accuracy_b", "discordant", "correlation", "simulate")


def _flag(name: str) -> str:
    return "--from" if name == "from_format" else "--" + name.replace("_", "-")


def argv_of(command: str, files: list[str], given: dict, options: list[str] | None) -> list[str]:
    """The command line the tool's arguments spell: ``command``, the files, each given
    option (a list is joined by commas, ``True`` is a bare flag, ``None`` and ``False``
    are left out), then ``options`` (further options as the command spells them)."""
    if "-" in files:  # (standard input is the protocol's channel)
        raise ValueError("files: '-' (standard input) is not for the MCP tool: give a path")
    argv = [command, *files]
    for name, value in given.items():
        if value is None or value is False:
            continue
        if value is True:
            argv.append(_flag(name))
        else:
            text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
            argv.append(f"{_flag(name)}={text}")
    for option in options or []:
        if option.split("=", 1)[0] in REFUSED:
            raise ValueError(f"options: {option.split('=', 1)[0]} is not for the MCP tool "
                             "(it writes no file and returns the JSON and the report)")
    return [*argv, *(options or [])]


def run_command(argv: list[str], also: dict | None = None) -> tuple[int, str, str]:
    """Run the command line ``argv`` in this process: (exit status, standard output,
    the one-line error or ""), as ``pairboot`` would print them.  ``also``: formats
    whose reports of the same result are wanted besides, filled in (a report the
    command does not render through :func:`pairboot.cli.output.report_text` stays
    None)."""
    from pairboot.cli.compare import run_compare
    from pairboot.cli.output import one_line
    from pairboot.cli.parser import build_parser, parse
    from pairboot.cli.power import run_power
    from pairboot.cli.signals import quiet_arrow

    out, err = io.StringIO(), io.StringIO()
    with _LOCK, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            args = parse(build_parser(), argv)
            if args.output is not None or args.plot is not None:  # (however abbreviated)
                return 2, "", ("options: --output and --plot are not for the MCP tool (it "
                               "writes no file and returns the JSON and the report)")
            args.also = also
            quiet_arrow()
            status = run_power(args) if args.command == "power" else run_compare(args)
        except SystemExit as exc:  # (a usage error: argparse's line on standard error)
            lines = [line for line in err.getvalue().splitlines() if "error: " in line]
            message = lines[-1].split("error: ", 1)[1] if lines else f"usage: {argv}"
            return (exc.code if isinstance(exc.code, int) else 2), "", message
        except (ValueError, OSError, ImportError, MemoryError) as exc:
            text = (f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError)
                    and exc.strerror and exc.filename else str(exc) or type(exc).__name__)
            return 2, "", one_line(text)
    return status, out.getvalue(), ""


def answer(command: str, files: list[str], given: dict, options: list[str] | None,
           report: Report):
    """The tool's result: the command's JSON (text and structured) and its report in
    ``report``, both of one run (a command that renders no report beside its JSON runs
    again for it: the seed, derived from the data and options when not given, makes it
    the same answer)."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent

    try:
        argv = argv_of(command, files, given, options)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    also = {} if report == "none" else {report: None}
    status, text, error = run_command([*argv, "--format=json", "--no-progress"], also)
    if error:
        raise ToolError(error)
    blocks = [TextContent(type="text", text=text)]
    if report != "none":
        page = also[report]
        if page is None:
            status, page, error = run_command([*argv, f"--format={report}", "--no-progress"])
            if error:  # pragma: no cover - the same command just ran
                raise ToolError(error)
        blocks.append(TextContent(type="text", text=page))
    return CallToolResult(content=blocks, structured_content=json.loads(text))


def compare(files: list[str], a: str | None = None, b: str | None = None,
            id: str | None = None, score: str | None = None, metric: str | None = None,
            stats: list[str] | None = None, group: str | None = None,
            stratum: str | None = None, from_format: str | None = None,
            level: float | None = None, resamples: int | None = None,
            seed: int | None = None, method: str | None = None,
            alternative: str | None = None, margin: float | None = None,
            hypothesis: str | None = None, test: str | None = None,
            lower_is_better: bool = False, options: list[str] | None = None,
            report: Report = "text"):
    """Does system B beat system A on the same test items? B - A, its paired bootstrap
    confidence interval, p-value and verdict (`pairboot compare`).  files: a file per
    system (A then B, one row per item, joined on `id`, scores in `score`), or one file
    with a column per system (`a`, `b`); CSV, TSV, JSON Lines, JSON, Parquet, or a
    harness log (lm-eval, Inspect, HELM, promptfoo, Every Eval Ever, ...; `from_format`
    when not recognised).  metric: mean (default), accuracy, f1, bleu, ... with `stats`
    columns; group: clustered items; stratum: strata.  options: any further option of
    `pairboot compare`, spelled as there (e.g. ["--errors", "fail"]).  Returns the JSON
    result and the report (`report`: text, markdown or none)."""
    given = {name: value for name, value in locals().items() if name in _INPUTS + _BOOTSTRAP}
    return answer("compare", files, given, options, report)


def compare_many(files: list[str], systems: list[str] | None = None,
                 names: list[str] | None = None, baseline: str | None = None,
                 correction: str | None = None, id: str | None = None,
                 score: str | None = None, metric: str | None = None,
                 stats: list[str] | None = None, group: str | None = None,
                 stratum: str | None = None, from_format: str | None = None,
                 level: float | None = None, resamples: int | None = None,
                 seed: int | None = None, method: str | None = None,
                 lower_is_better: bool = False, options: list[str] | None = None,
                 report: Report = "text"):
    """Three or more systems on the same test items: every pair (or each against
    `baseline`), with simultaneous intervals and adjusted p-values (`correction`: max-t,
    holm, bonferroni, bh, by, none).  files: a file per system, or one file with a
    column per system named in `systems`; `names` labels the files' systems.  Other
    arguments as `compare`'s; options: any further option of `pairboot compare`.
    Returns the JSON result and the report."""
    given = {name: value for name, value in locals().items()
             if name in _INPUTS + _BOOTSTRAP + _FAMILY}
    return answer("compare", files, given, options, report)


def power(files: list[str] | None = None, delta: float | None = None,
          power: float | None = None, n_items: int | None = None,
          n_groups: int | None = None, n_runs: int | None = None,
          sd: float | None = None, accuracy_a: float | None = None,
          accuracy_b: float | None = None, discordant: float | None = None,
          correlation: float | None = None, a: str | None = None, b: str | None = None,
          id: str | None = None, score: str | None = None, metric: str | None = None,
          group: str | None = None, stratum: str | None = None,
          level: float | None = None, seed: int | None = None,
          simulate: int | None = None, options: list[str] | None = None,
          report: Report = "text"):
    """Plan an evaluation (`pairboot power`): give two of the difference to detect
    (`delta`), the `power` and the size (`n_items`, `n_groups`, `n_runs`): the third is
    solved for.  The spread comes from a pilot's files (as `compare` reads them) or,
    without files, from what is known: `sd`, or for 0/1 scores `accuracy_a`,
    `accuracy_b` and `discordant`.  options: any further option of `pairboot power`.
    Returns the JSON plan and the report."""
    given = {name: value for name, value in locals().items() if name in _INPUTS + _PLAN}
    return answer("power", files or [], given, options, report)


def build_server():
    """The MCP server of the three tools (not started)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from pydantic import ValidationError
    except ImportError:
        raise ImportError("pairboot mcp needs the MCP SDK 2 or later: pip install "
                          "'pairboot[mcp]'") from None
    from pairboot._version import __version__

    class Server(MCPServer):
        async def call_tool(self, name, arguments, context=None):
            """Arguments the tool's schema refuses: one line naming each argument."""
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if not isinstance(cause, ValidationError):
                    raise
                said = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in cause.errors())
                raise ToolError(f"Error executing tool {name}: {said}") from None

    server = Server("pairboot", version=__version__, instructions=(
        "Paired bootstrap confidence intervals: does system B beat system A on the same "
        "test items, and by how much. compare (two systems), compare_many (three or "
        "more), power (plan the size). Give absolute paths: relative ones are read from "
        "the server's working directory."))
    for tool in (compare, compare_many, power):
        server.add_tool(tool, structured_output=False)
    return server


def serve() -> None:
    """Serve the tools over standard input and output until the client closes them."""
    build_server().run("stdio")
