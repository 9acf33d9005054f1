"""No import circles: the modules of the package and of the benchmarks, read from their source,
import each other in layers.

Every import is an edge from the module that runs it to the one it names, wherever it stands: at
the top level, inside a function or a class, under `try:` or `if` (an import moved into a function
still makes a circle, only a later one). Imports under `if TYPE_CHECKING:` are left out: they never
run. `from package import name` is an edge to the module `package.name` when there is one, else to
the package. A cycle among those edges is a circle."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def package_folders() -> dict[str, Path]:
    """Each installed package name and the folder it is made from (pyproject's package-dir), and
    the benchmarks (`python -m benchmarks`)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    folders = {name: ROOT / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}
    return {**folders, "benchmarks": ROOT / "benchmarks"}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its __init__)."""
    found: dict[str, Path] = {}
    for package, folder in package_folders().items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _imports(tree: ast.Module):
    """Every import statement of a module, in functions and classes too (TYPE_CHECKING blocks left out)."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))


def edges(known: dict[str, Path]) -> dict[str, set[str]]:
    """For each module, the modules of the package it imports, at load time or later."""
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rsplit(".", 1)[0]
            source = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            for alias in node.names:
                targets.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source)
        graph[name] = {t for t in targets if t in known and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_the_walk_sees_the_apps_and_their_imports():
    graph = edges(modules())
    assert "officegym.apps.chat.services" in graph and "officegym.mcp_wrappers.chat" in graph
    assert "officegym.apps.chat.services" in graph["officegym.mcp_wrappers.chat"]
    assert "benchmarks.queries" in graph


def test_imports_inside_functions_count_and_type_checking_ones_do_not():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import b\n"
                     "def f():\n    import c\n    try:\n        from d import e\n    except ImportError:\n"
                     "        pass\nclass G:\n    import h\n")
    assert sorted(ast.unparse(node) for node in _imports(tree)) == [
        "from d import e", "from typing import TYPE_CHECKING", "import c", "import h"]


def test_a_circle_is_found_when_there_is_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_back_through_others():
    found = cycles(edges(modules()))
    assert not found, "import circles:\n" + "\n".join(" -> ".join(group) for group in found)
