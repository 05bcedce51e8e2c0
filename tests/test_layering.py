"""The import graph of the package, read with ``ast`` (nothing is imported), keeps its layers.

Layers, lowest first; a module may import its own layer and the layers below it, never one above
(module-level, function-local and ``if TYPE_CHECKING:`` imports alike):

====  ==========  =====================================================================================
rank  layer       modules
====  ==========  =====================================================================================
0     core        ``docrag/``: types, geometry, corpus, io, config, registry, errors, devices, models,
                  ingestion/, backends/, generation/ (everything not named below)
1     index       ``index/`` = ``docrag.index``
2     facade      ``docrag.pipeline`` (``RAG``: opens the index of a corpus, then generates) and the
                  ``docrag`` package root (``docrag.RAG``, ``docrag.ingest`` on first use): core + index
3     citation    ``citation/`` = ``docrag.citation``
4     eval        ``eval/`` = ``docrag.eval``
5     apps        ``apps/`` = ``docrag.apps`` (command line, viewer, server)
====  ==========  =====================================================================================

Also checked:

* no cycle among module-level imports (``TYPE_CHECKING`` imports do not run and are left out;
  importing ``docrag.ingestion.furniture`` runs ``docrag/ingestion/__init__.py`` first, and counts);
* a function-local import is only for what is slow or optional to load: a third-party package
  other than the light ones in :data:`LIGHT`, a platform-only standard module (:data:`PLATFORM`), or
  a docrag module that (itself or through its module-level docrag imports) loads such a package;
  and it must not hide a cycle (the imported module must not reach the importer at module level).
  The command modules (``docrag.apps.cli``, ``docrag.apps.commands.*``) load at every ``docrag``
  start, ``--help`` included: they may import any docrag module they need in the command body,
  except one that start-up has loaded anyway. Lazy registry families are imported by name
  (``importlib``), which is not an import statement.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = {"docrag": "docrag", "docrag.index": "index", "docrag.citation": "citation",
                "docrag.eval": "eval", "docrag.apps": "apps"}
LAYERS = {"docrag": 0, "docrag.index": 1, "docrag.citation": 3, "docrag.eval": 4, "docrag.apps": 5}
FACADE = {"docrag", "docrag.pipeline"}   # rank 2: may import core and index
FACADE_RANK = 2
LAYER_NAMES = {0: "core", 1: "index", 2: "facade", 3: "citation", 4: "eval", 5: "apps"}
LIGHT = {"typer", "click", "rich", "tomli"}          # cheap enough to import at module level anywhere
PLATFORM = {"fcntl", "resource", "msvcrt", "winreg", "termios"}   # not on every OS: imported where used
STARTUP_ROOT = "docrag.apps.cli"
# function-local imports not yet cleaned up, in modules another branch of issue 13 is rewriting
@dataclass(frozen=True)
class Imp:
    importer: str
    target: str          # a docrag module, or a top-level third-party/stdlib name
    line: int
    local: bool          # inside a function
    typing_only: bool    # under ``if TYPE_CHECKING:``

    @property
    def internal(self) -> bool:
        return self.target == "docrag" or self.target.startswith("docrag.")


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for pkg, folder in PACKAGE_DIRS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if pkg == "docrag" and parts[0] in {d for d in PACKAGE_DIRS.values() if d != "docrag"}:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join([pkg, *parts])] = path
    return mods


MODULES = _modules()


def _resolve(name: str) -> str:
    """The docrag module ``name`` refers to (a name inside a module resolves to that module)."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@cache
def imports_of(module: str) -> tuple[Imp, ...]:
    path = MODULES[module]
    is_pkg = path.name == "__init__.py"
    out: list[Imp] = []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = node.module or ""
        if node.level:
            pkg = module if is_pkg else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                pkg = pkg.rpartition(".")[0]
            base = f"{pkg}.{base}" if base else pkg
        if base == "__future__":
            return []
        # ``from docrag.ingestion import pdfpage`` imports the submodule
        subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
        return subs or [base]

    def visit(node: ast.AST, local: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for name in targets(child):
                    internal = name == "docrag" or name.startswith("docrag.")
                    target = _resolve(name) if internal else name.partition(".")[0]
                    out.append(Imp(module, target, child.lineno, local, typing_only))
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                visit(child, local, True)
            else:
                visit(child, local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)),
                      typing_only)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False, False)
    return tuple(out)


def rank(module: str) -> int:
    if module in FACADE:
        return FACADE_RANK
    parts = module.split(".")
    return LAYERS[".".join(parts[:2])] if ".".join(parts[:2]) in LAYERS else LAYERS["docrag"]


def _packages_of(module: str) -> set[str]:
    """The packages Python imports before ``module`` (``docrag.ingestion`` before ``.furniture``)."""
    parts = module.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts))} & set(MODULES)


@cache
def _runtime_edges(module: str) -> frozenset[str]:
    """docrag modules ``module`` imports when it is imported (module level, not TYPE_CHECKING),
    with the packages each of them loads first (not the importer's own, which are loading already)."""
    direct = {i.target for i in imports_of(module) if i.internal and not i.local and not i.typing_only}
    implied = set().union(*(_packages_of(t) for t in direct)) - _packages_of(module) if direct else set()
    return frozenset((direct | implied) - {module})


@cache
def loads_heavy(module: str, _seen: frozenset[str] = frozenset()) -> bool:
    """True when importing ``module`` imports a third-party package other than :data:`LIGHT`."""
    for imp in imports_of(module):
        if imp.local or imp.typing_only:
            continue
        if not imp.internal and imp.target not in sys.stdlib_module_names and imp.target not in LIGHT:
            return True
    return any(loads_heavy(t, _seen | {module}) for t in _runtime_edges(module) if t not in _seen)


def _reaches(start: str, goal: str) -> bool:
    todo, seen = [start], {start}
    while todo:
        for nxt in _runtime_edges(todo.pop()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


@cache
def startup_modules() -> frozenset[str]:
    """docrag modules every ``docrag`` command loads before it parses its arguments."""
    todo, seen = [STARTUP_ROOT], {STARTUP_ROOT}
    while todo:
        for nxt in _runtime_edges(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def _where(imp: Imp) -> str:
    return f"{MODULES[imp.importer].relative_to(ROOT)}:{imp.line} {imp.importer} -> {imp.target}"


def test_every_module_is_found():
    assert {"docrag.types", "docrag.index.registry", "docrag.citation.judge", "docrag.eval.runner",
            "docrag.apps.cli", "docrag.pipeline"} <= set(MODULES)
    assert any(i.local for m in MODULES for i in imports_of(m))   # the parser sees function-local imports


def test_no_layer_imports_a_higher_layer():
    bad = [f"{_where(i)} ({LAYER_NAMES[rank(i.importer)]} imports {LAYER_NAMES[rank(i.target)]})"
           for m in MODULES for i in imports_of(m) if i.internal and rank(i.target) > rank(i.importer)]
    assert not bad, "imports of a higher layer:\n" + "\n".join(bad)


def test_no_module_level_import_cycle():
    graph = {m: _runtime_edges(m) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:   # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for m in sorted(graph):
        if m not in index:
            strong(m)
    assert not cycles, "module-level import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_function_local_imports_only_for_heavy_or_optional_modules():
    bad = []
    for m in MODULES:
        command = m == STARTUP_ROOT or m.startswith("docrag.apps.commands.")
        for i in imports_of(m):
            if not i.local:
                continue
            if i.internal and command:
                if i.target in startup_modules():
                    bad.append(f"{_where(i)}: loaded at start-up anyway, import it at the top")
            elif i.internal:
                # importing docrag.generation.registry runs docrag/generation/__init__.py first
                loaded_first = _packages_of(i.target) - _packages_of(m) - {m}
                if _reaches(i.target, m):
                    bad.append(f"{_where(i)}: hides an import cycle ({i.target} imports {m} at module level)")
                elif not any(loads_heavy(t) for t in {i.target, *loaded_first}):
                    bad.append(f"{_where(i)}: a light docrag module, import it at the top")
            elif i.target in sys.stdlib_module_names and i.target not in PLATFORM or i.target in LIGHT:
                bad.append(f"{_where(i)}: a standard/light module, import it at the top")
    assert not bad, "function-local imports without a reason:\n" + "\n".join(bad)


def test_rules_catch_what_they_should():
    """The checks are not vacuous: the light/heavy test and the ranks say what the docstring says."""
    assert loads_heavy("docrag.index.store")                 # numpy
    assert not loads_heavy("docrag.errors")
    assert rank("docrag.ingestion.pipeline") == 0 and rank("docrag.pipeline") == FACADE_RANK
    assert rank("docrag.index.open") < rank("docrag.pipeline") < rank("docrag.citation.judge")
    assert rank("docrag.eval.runner") < rank("docrag.apps.viewer")
    assert "docrag.apps.commands.ask" in startup_modules() and "docrag.index.store" not in startup_modules()


def test_command_line_start_up_loads_no_heavy_package():
    """``docrag --help`` imports the command modules only: no numpy, Pillow, PyMuPDF, torch, ..."""
    heavy = ["numpy", "PIL", "pymupdf", "torch", "transformers", "tqdm", "httpx", "scipy", "gradio", "fastapi"]
    code = ("import sys, docrag.apps.cli\n"
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "", f"loaded at start-up: {out.stdout.strip()}"
