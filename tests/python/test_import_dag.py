"""The Python client's modules form a DAG, and each one imports on its own.

The static tests parse every module of the arrayd package (top-level and
function-level imports, ``importlib.import_module("arrayd...")`` calls) and
build the graph of imports within the package: it must have no cycle, and
no module may import another one of the package from inside a function (a
lazy import inside the package only hides a cycle). Imports under ``if
TYPE_CHECKING:`` do not run and are left out.

The dynamic test imports each module first, in a fresh interpreter, before
the package's ``__init__`` runs (a plain ``import arrayd.x`` would run the
whole ``__init__`` first, in its own order), then runs the ``__init__``: the
package must come out the same as after ``import arrayd``, so no module
works only when something else was imported before it.
"""
from __future__ import annotations

import ast
import json
import os
import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import arrayd

PACKAGE = "arrayd"
PACKAGE_DIR = Path(arrayd.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> source file."""
    mods = {PACKAGE: PACKAGE_DIR / "__init__.py"}
    for info in pkgutil.walk_packages([str(PACKAGE_DIR)], PACKAGE + "."):
        rel = Path(*info.name.split(".")[1:])
        path = (PACKAGE_DIR / rel / "__init__.py" if info.ispkg
                else PACKAGE_DIR / rel.with_suffix(".py"))
        mods[info.name] = path
    return mods


MODULES = _modules()
# Subpackages that ``import arrayd`` does not import (``import
# arrayd.testing`` does, as ``import numpy.testing``); walking the package
# above imported them into this process only.
# Parts the package does not import itself: the test helpers, arrayd.scipy
# (import arrayd.scipy, as import scipy) and the
# operator's command line (python -m arrayd).
OPTIONAL_SUBPACKAGES = {"testing", "scipy", "__main__", "_admin"}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(importer: str, module: str | None, level: int) -> str:
    """The absolute name of ``from <level dots><module> import ...``."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not _is_package(importer):
        base = base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            t = node.test
            name = (t.id if isinstance(t, ast.Name) else
                    t.attr if isinstance(t, ast.Attribute) else None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    skip.update(id(n) for n in ast.walk(child))
    return skip


def _targets(importer: str, node: ast.AST) -> list[str]:
    """The package's modules that an import node makes run (or reads the
    namespace of), as Python resolves them."""
    def chain(name: str) -> list[str]:
        # `import arrayd.a.b` runs arrayd.a and arrayd.a.b; the importer's
        # own ancestors are already running, importing them again reads
        # nothing new.
        parts = name.split(".")
        out = []
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in MODULES and not importer.startswith(prefix + "."):
                out.append(prefix)
        return out

    found: list[str] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PACKAGE:
                found.append(PACKAGE)  # `import arrayd`: for its names
            elif alias.name.startswith(PACKAGE + "."):
                found += chain(alias.name)
    elif isinstance(node, ast.ImportFrom):
        base = _resolve(importer, node.module, node.level)
        if base == PACKAGE or base.startswith(PACKAGE + "."):
            found += chain(base)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    found.append(sub)
                elif base in MODULES:
                    found.append(base)  # a name of that module's namespace
    elif (isinstance(node, ast.Call) and node.args
          and isinstance(node.args[0], ast.Constant)
          and isinstance(node.args[0].value, str)):
        f = node.func
        fname = (f.attr if isinstance(f, ast.Attribute) else
                 f.id if isinstance(f, ast.Name) else "")
        name = node.args[0].value
        if fname in ("import_module", "__import__"):
            if name == PACKAGE:
                found.append(PACKAGE)
            elif name.startswith(PACKAGE + "."):
                found += chain(name)
    return [t for t in found if t != importer]


def _import_graph() -> tuple[dict[str, set[str]], list[str]]:
    """(module -> modules it imports, function-level imports as text)."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    lazy: list[str] = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_nodes(tree)
        in_function: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.Lambda)):
                in_function.update(id(n) for n in ast.walk(node))
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets = _targets(name, node)
            graph[name].update(targets)
            if targets and id(node) in in_function:
                lazy.append(f"{path.relative_to(PACKAGE_DIR.parent)}:"
                            f"{node.lineno}: {ast.unparse(node)}")
    return graph, lazy


def _components(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm): each is a set of modules that import each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def _shortest_cycle(graph: dict[str, set[str]], start: str) -> list[str]:
    """A shortest import path from start back to itself ([] if none)."""
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while path[0] != start:
                        path.insert(0, prev[path[0]])
                    return path + [start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """A shortest cycle through each module that is on one (a cycle found
    from several of its modules is listed once)."""
    seen: set[tuple[str, ...]] = set()
    cycles = []
    for comp in _components(graph):
        for v in sorted(comp):
            c = _shortest_cycle(graph, v)
            i = c.index(min(c))
            key = tuple(c[i:-1] + c[:i])  # the same cycle from elsewhere
            if key not in seen:
                seen.add(key)
                cycles.append(c)
    return cycles


def test_the_graph_walker_finds_a_cycle():
    # The checker itself must be able to fail.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_every_module_is_found():
    assert {"arrayd._ndarray", "arrayd._session", "arrayd._math",
            "arrayd.random", "arrayd.fft", "arrayd.linalg"} <= set(MODULES)


def test_imports_within_the_package_have_no_cycle():
    graph, _ = _import_graph()
    cycles = _cycles(graph)
    assert not cycles, "import cycles in the arrayd package:\n" + "\n".join(
        " -> ".join(c) for c in cycles)


def test_no_module_imports_the_package_from_inside_a_function():
    _, lazy = _import_graph()
    assert not lazy, ("function-level imports of arrayd modules (import "
                      "them at the top; a cycle means a layer is wrong):\n"
                      + "\n".join(lazy))


# Run in a fresh interpreter: the package object is made without running
# its __init__, the module under test is imported first (it pulls in only
# what it imports itself), then the package's __init__ runs.
_FIRST_THEN_PACKAGE = """
import importlib, importlib.util, json, sys
spec = importlib.util.find_spec({package!r})
pkg = importlib.util.module_from_spec(spec)
sys.modules[{package!r}] = pkg
importlib.import_module({module!r})
spec.loader.exec_module(pkg)
print(json.dumps({{"names": sorted(dir(pkg)),
                  "ndarray": sorted(dir(pkg.ndarray))}}))
"""


def _import_first(module: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE_DIR.parent)] + ([env["PYTHONPATH"]]
                                     if env.get("PYTHONPATH") else []))
    env.pop("ARRAYD_ADDRESS", None)  # importing must not need a server
    code = _FIRST_THEN_PACKAGE.format(package=PACKAGE, module=module)
    return subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def first_imports():
    """module -> its run, all started at once (one interpreter per core)."""
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        runs = {m: pool.submit(_import_first, m) for m in sorted(MODULES)}
        yield runs


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_first_in_a_fresh_interpreter(module, first_imports):
    r = first_imports[module].result()
    assert r.returncode == 0, (f"importing {module} first failed:\n"
                               f"{r.stderr[-4000:]}")
    got = json.loads(r.stdout.strip().splitlines()[-1])
    want = {"names": sorted(set(dir(arrayd)) - OPTIONAL_SUBPACKAGES),
            "ndarray": sorted(dir(arrayd.ndarray))}
    got["names"] = sorted(set(got["names"]) - OPTIONAL_SUBPACKAGES)
    for key in ("names", "ndarray"):
        missing = sorted(set(want[key]) - set(got[key]))
        extra = sorted(set(got[key]) - set(want[key]))
        assert not missing and not extra, (
            f"with {module} imported first, the package's {key} differ: "
            f"missing {missing}, extra {extra}")
