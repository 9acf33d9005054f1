"""No import circles: the modules of the package, read from their source, import each other in layers.

An import at a module's top level (not one inside a function, nor one under `if TYPE_CHECKING:`) is
an edge from that module to the one it names; `from package import name` is an edge to the module
`package.name` when there is one, else to the package. A cycle among those edges is a circle."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def package_folders() -> dict[str, Path]:
    """Each installed package name and the folder it is made from (pyproject's package-dir)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {name: ROOT / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


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


def _top_level_imports(tree: ast.Module):
    """Import statements run when the module loads (TYPE_CHECKING blocks left out)."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                pending.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            pending.extend(node.body + node.orelse + node.finalbody + [n for h in node.handlers for n in h.body])


def edges(known: dict[str, Path]) -> dict[str, set[str]]:
    """For each module, the modules of the package it imports at load time."""
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        targets: set[str] = set()
        for node in _top_level_imports(ast.parse(path.read_text(), str(path))):
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


def test_a_circle_is_found_when_there_is_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_back_through_others():
    found = cycles(edges(modules()))
    assert not found, "import circles:\n" + "\n".join(" -> ".join(group) for group in found)
