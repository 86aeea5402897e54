"""The package's layout keeps its promises: no import cycle, small modules, a thin CLI.

Read from the source with ``ast`` (nothing is imported): the graph of the imports that run
when a module is imported (its top-level statements, not the lazy imports inside functions
nor those under ``if TYPE_CHECKING:``), the length of every module, and the modules the
command line imports, anywhere in it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "pairboot"

MAX_LINES = 650
"""No module is longer than this (the aim is ~600)."""

CLI_MAY_IMPORT = {
    "pairboot",
    "pairboot._version",
    "pairboot.errors",
    "pairboot.io",
    "pairboot.mcp_server",
    "pairboot.metrics",
    "pairboot.options",
    "pairboot.plot",
    "pairboot.report",
}
"""The command line is a thin shell over the public API and its options, the readers and
the reports (and ``pairboot mcp`` over the MCP server, a face)."""


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of one module, parsed once per session (the tests walk the
    package's ~300 modules several times; nothing here alters a tree)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(body: list[ast.stmt], top_level: bool):
    """The import statements of ``body``: with ``top_level``, those that run at import
    time (into if/try/with blocks, not into functions, classes or TYPE_CHECKING)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if top_level:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(node, ast.If) and _is_type_checking(node):
                yield from _statements(node.orelse, top_level)
                continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.AST):
                yield from _statements(inner, top_level)


def imports(name: str, path: Path, known: dict[str, Path], *, top_level: bool) -> set[str]:
    """The package's modules that module ``name`` imports.

    ``from X import y`` counts X.y when that is a module (as ``import X.y``: X is only
    its parent package), and X when y is a name X defines.
    """
    tree = parsed(path)
    is_package = path.name == "__init__.py"
    out = set()
    for node in _statements(tree.body, top_level):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        out.update(t for t in targets if t in known and t != name)
    return out


def graph(*, top_level: bool = True) -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known, top_level=top_level)
            for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, or with a self-loop
    (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_cycles_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_the_package():
    edges = graph()
    assert "pairboot.io.tables" in edges["pairboot.io"]
    assert "pairboot.io.arrow" in edges["pairboot.io.tables"]
    assert "pairboot.report" in edges["pairboot.cli.parser"]


def test_no_import_cycle():
    assert cycles(graph()) == []
    assert cycles(graph(top_level=False)) == []  # (imports inside functions count too)


LAYERS = (
    ("pairboot._version", "pairboot.errors", "pairboot.lazy", "pairboot.options",
     "pairboot.progress", "pairboot.rendering", "pairboot.tracking"),
    ("pairboot.stats",),
    ("pairboot.metrics",),
    ("pairboot.results",),
    ("pairboot.engine",),
    ("pairboot.inputs",),
    ("pairboot.io",),
    ("pairboot.core",),
    ("pairboot.comparisons",),
    ("pairboot.plans",),
    ("pairboot.partitioned",),
    ("pairboot.planning",),
    ("pairboot.report",),
    ("pairboot.cli",),
    ("pairboot", "pairboot.__main__", "pairboot.dask", "pairboot.mcp_server", "pairboot.plot",
     "pairboot.pytest_plugin"),
)
"""The folders from the bottom up (docs/architecture.md): a module imports only from its
own folder or one below, imports inside functions included.  At the bottom the
vocabulary every layer reads (the errors, the shared options, the progress protocol,
the results' text hook and trackers, the version); at the top the public faces."""

FACE_USERS = ("pairboot.cli",)
"""Folders that may import the faces: the command line is a shell over the public API."""


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the folder (or top-level module) ``module`` is in."""
    for k, names in enumerate(LAYERS):
        for name in names:
            if module == name or (name != PACKAGE and module.startswith(name + ".")):
                return k
    raise KeyError(f"{module} is in no layer: add its folder to LAYERS (and the docs)")


def test_every_module_is_in_a_layer_and_the_top_holds_the_faces():
    for name in modules():
        layer_of(name)
    top = sorted(p.name for p in (SRC / PACKAGE).glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_version.py", "dask.py", "errors.py",
                   "lazy.py", "mcp_server.py", "options.py", "plot.py", "progress.py",
                   "pytest_plugin.py", "rendering.py", "tracking.py"]


def upward_imports() -> list[str]:
    """The imports of a module from a folder above its own (inside functions too)."""
    found = []
    for name, deps in graph(top_level=False).items():
        for dep in deps:
            up = layer_of(dep) > layer_of(name)
            if up and not (layer_of(dep) == len(LAYERS) - 1
                           and any(name == f or name.startswith(f + ".") for f in FACE_USERS)):
                found.append(f"{name} -> {dep}")
    return sorted(found)


def test_no_folder_imports_one_above_it():
    assert upward_imports() == []


def private_imports() -> list[str]:
    """``from X import _name`` statements of one module of the package taking another
    module's private name (anywhere in the file, functions included)."""
    found = []
    for name, path in modules().items():
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "")
                                                     .split(".")[0] == PACKAGE):
                found += [f"{name}: from {'.' * node.level}{node.module or ''} import "
                          f"{alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


def test_no_module_takes_another_modules_private_name():
    assert private_imports() == []


def test_no_module_is_long():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


def test_cli_imports_only_the_public_api_io_and_report():
    edges = graph(top_level=False)  # lazy imports count too
    cli = {name: deps for name, deps in edges.items()
           if name == "pairboot.cli" or name.startswith("pairboot.cli.")}
    assert cli, "no pairboot.cli modules found"
    outside = {name: sorted(d for d in deps if not (d in CLI_MAY_IMPORT or d == "pairboot.cli"
                                                     or d.startswith("pairboot.cli.")))
               for name, deps in cli.items()}
    assert {name: d for name, d in outside.items() if d} == {}


def test_main_module_runs_the_cli():
    tree = ast.parse((SRC / PACKAGE / "__main__.py").read_text(encoding="utf-8"))
    assert any(isinstance(n, ast.ImportFrom) and n.module == "pairboot.cli"
               and [a.name for a in n.names] == ["run"] for n in tree.body)


def test_results_hold_no_prose():
    """No result module imports the report layer, even inside functions: the report
    layer writes a result's text through the one hook
    :func:`pairboot.rendering.rendered` (set by :func:`pairboot.rendering.set_renderer`)."""
    known = modules()
    results = [name for name in known if name.startswith("pairboot.results")]
    assert "pairboot.results.compare" in results and len(results) == 14
    for name in results:
        deps = imports(name, known[name], known, top_level=False)
        assert sorted(d for d in deps if d == "pairboot.report"
                      or d.startswith("pairboot.report.")) == [], name


TESTS = Path(__file__).resolve().parent
ROOT_TESTS = {"test_layout.py", "test_options.py"}
"""The tests of the package's top (its layout, its options); every other test lives in
the folder of the wing it tests, or in reference/ (the suites against independent
references: R's boot, coverage simulations, the golden file)."""


def test_tests_mirror_the_source():
    assert {p.name for p in TESTS.glob("test_*.py")} == ROOT_TESTS
    wings = {p.relative_to(TESTS).parent.as_posix() for p in TESTS.rglob("test_*.py")
             if p.parent != TESTS}
    missing = sorted(w for w in wings if w != "reference"
                     and not (SRC / PACKAGE / w).is_dir())
    assert missing == [], f"test folders without a source folder: {missing}"


def test_matplotlib_is_imported_only_by_the_functions_that_draw():
    """No module imports matplotlib when it is imported (its top-level statements); the
    pictures (``pairboot.report.plot``, and the HTML reports' figures) import it inside
    the functions that draw."""
    top = []
    for name, path in modules().items():
        for node in _statements(parsed(path).body, True):
            roots = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            top += [f"{name}: {r}" for r in roots if r.split(".")[0] == "matplotlib"]
    assert top == []


def test_the_plots_live_in_the_report_and_pairboot_plot_is_their_face():
    """The drawing is a part of the report layer (``pairboot.report.plot``, whose HTML
    shows it); outside it only the public face ``pairboot.plot`` imports it."""
    known = modules()
    assert "pairboot.report.plot" in known and "pairboot.plot" in known
    assert not (SRC / PACKAGE / "plot").is_dir()
    edges = graph(top_level=False)
    users = sorted(name for name, deps in edges.items()
                   if any(d == "pairboot.report.plot" or d.startswith("pairboot.report.plot.")
                          for d in deps)
                   and not (name == "pairboot.report" or name.startswith("pairboot.report.")))
    assert users == ["pairboot.plot"]


def test_ci_runs_the_readmes_test_command():
    """.ci/run runs the README's second quick-start command, written out in the script
    (its function and the string it checks the README against) exactly as the README has
    it."""
    import re  # noqa: PLC0415

    root = SRC.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    command = re.findall(r"```bash\n(.*?)\n```", readme, re.S)[1]
    script = (root / ".ci" / "run").read_text(encoding="utf-8")
    assert f"    {command}\n" in script  # (test_command's body)
    assert f"expected='{command}'" in script
