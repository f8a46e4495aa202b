"""The package's dependencies point one way (docs/ARCHITECTURE.md): no import cycle between
modules, and no module imports one of a higher layer.

The imports are read from the source with ``ast``, those inside functions included (a
function-level import is still a dependency; it only runs later). Imports under ``if
TYPE_CHECKING:`` are left out: they never run. Importing ``a.b.c`` runs the packages ``a``
and ``a.b`` first, so it counts as importing their ``__init__`` modules too: a package that
re-exports its own modules closes a cycle with any of them imported from below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"seasalt_log": ROOT / "seasalt_log", "seasalt_cli": ROOT / "cli" / "seasalt_cli"}

#: the layers, lowest first: a module may import its own layer and those below, never one
#: above. A module belongs to the first entry naming it or a package holding it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # the rules and the log format: pure data and functions, no store, no I/O of their own
    ("domain", ("seasalt_log", "seasalt_log.errors", "seasalt_log.digits",
                "seasalt_log.identifiers", "seasalt_log.outputs", "seasalt_log.arrow_text", "seasalt_log.workers",
                "seasalt_log.process_settings",
                "seasalt_log.rulebook", "seasalt_log.cards", "seasalt_log.events",
                "seasalt_log.log_lines", "seasalt_log.schema", "seasalt_log.engine", "seasalt_log.scoring",
                "seasalt_log.hand", "seasalt_log.view",
                "seasalt_log.replay")),     # pure folds of an event list
    # the DuckDB store: events, read models (and their rebuild), the store's queries
    ("store", ("seasalt_log.store", "seasalt_log.queries")),
    # what works over logs and stores: reading a game, importing, analytics, the simulator
    ("library", ("seasalt_log.rescore", "seasalt_log.narration",
                 "seasalt_log.render", "seasalt_log.turn_frames", "seasalt_log.importers",
                 "seasalt_log.analytics",
                 "seasalt_log.sim", "seasalt_log.verify", "seasalt_log.archive",
                 "seasalt_log.golden")),
    # the writing service and its HTTP and web faces
    ("service", ("seasalt_log.service", "seasalt_log.http", "seasalt_log.web")),
    # the command line
    ("cli", ("seasalt_cli", "seasalt_log.__main__")),   # python -m seasalt_log runs the CLI
)


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the packages: dotted name -> (file, is a package's __init__)."""
    out = {}
    for pkg, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            parts = [pkg, *path.relative_to(root).with_suffix("").parts]
            is_init = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_init else parts)] = (path, is_init)
    return out


def _import_nodes(tree: ast.AST):
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in _import_nodes_of(child))
            continue
        yield from _import_nodes_of(node)


def _import_nodes_of(node: ast.AST):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _import_nodes(node)


def imports_of(source: str, name: str, is_init: bool, known) -> dict[str, int]:
    """The modules of ``known`` that module ``name`` imports: dotted name -> first line."""
    package = name if is_init else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        while target and target not in known:          # a name inside a module: the module
            target = target.rpartition(".")[0]
        while target:                                  # ... and the packages it runs first
            if target != name and not name.startswith(target + "."):
                found.setdefault(target, line)
            target = target.rpartition(".")[0]
            while target and target not in known:
                target = target.rpartition(".")[0]

    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
            continue
        base = node.module or ""
        if node.level:
            up = package.split(".")[:len(package.split(".")) - (node.level - 1)]
            base = ".".join(up + ([node.module] if node.module else []))
        for alias in node.names:     # `from pkg import mod` imports the module pkg.mod
            full = f"{base}.{alias.name}"
            add(full if full in known else base, node.lineno)
    return found


def import_graph() -> dict[str, dict[str, int]]:
    """Module -> {imported module: line} over both packages."""
    mods = _modules()
    return {name: imports_of(path.read_text(encoding="utf-8"), name, is_init, mods)
            for name, (path, is_init) in mods.items()}


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None (a depth-first search)."""
    state: dict[str, int] = {}         # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of ``module`` (the most specific entry naming it)."""
    best = None
    for i, (_, names) in enumerate(LAYERS):
        for n in names:
            if (module == n or module.startswith(n + ".")) and (best is None or len(n) > best[1]):
                best = (i, len(n))
    if best is None:
        raise LookupError(f"{module} is in no layer: add it to LAYERS in tests/test_layers.py")
    return best[0]


def _where(graph, a: str, b: str) -> str:
    path = _modules()[a][0].relative_to(ROOT)
    return f"{path}:{graph[a][b]} ({a} imports {b})"


# ---------------------------------------------------------------- the checks

def test_there_is_no_import_cycle():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle) + "\n" + "\n".join(
        _where(graph, a, b) for a, b in zip(cycle, cycle[1:]))


def test_no_module_imports_a_higher_layer():
    graph = import_graph()
    wrong = [_where(graph, a, b) + f": {LAYERS[layer_of(a)][0]} below {LAYERS[layer_of(b)][0]}"
             for a in sorted(graph) for b in sorted(graph[a]) if layer_of(b) > layer_of(a)]
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_every_module_has_a_layer():
    for module in import_graph():
        layer_of(module)            # raises naming the module


# ---------------------------------------------------------------- the checker itself

KNOWN = {"p", "p.a", "p.b", "p.c", "p.sub", "p.sub.d"}


@pytest.mark.parametrize("source, name, is_init, expected", [
    ("from .b import f", "p.a", False, {"p.b"}),                        # relative
    ("def f():\n    from . import c\n", "p.a", False, {"p.c"}),        # inside a function
    ("from ..b import f", "p.sub.d", False, {"p.b"}),
    ("import p.sub.d", "p.a", False, {"p.sub.d", "p.sub"}),             # and the package it runs
    ("from .a import x", "p", True, {"p.a"}),                           # an __init__'s own
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import T\n",
     "p.a", False, set()),
    ("import json\nfrom msgspec import Struct", "p.a", False, set()),   # outside: ignored
])
def test_imports_are_read_as_python_runs_them(source, name, is_init, expected):
    assert set(imports_of(source, name, is_init, KNOWN)) == expected


def test_a_cycle_is_found_and_a_chain_is_not():
    assert find_cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {}}) is None
    assert find_cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 3}}) == ["a", "b", "c", "a"]
    # the old cycle of the read models: the store's migration called the analytics rebuild
    assert find_cycle({"store.projections": {"analytics.rebuild": 377},
                       "analytics.rebuild": {"store.projections": 29}}) is not None
