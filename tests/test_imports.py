"""The code's layers as docs/architecture.md draws them: no module of the app imports, however
indirectly, a module that imports it back (at any level, for types too), so that each can be
read, and changed, from the bottom up."""

import ast
from collections import defaultdict
from pathlib import Path

from django.conf import settings

PACKAGES = ("scoring",)


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in (settings.BASE_DIR / package).rglob("*.py"):
        if "migrations" in path.parts:
            continue
        parts = path.relative_to(settings.BASE_DIR).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules among `known` that module `name` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = node.module or ""
            target = (f"{base}.{module}" if module else base) if node.level else module
            candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found |= {candidate for candidate in candidates if candidate in known} - {name}
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other (strongly connected, more than one)."""
    order, low, stack, found = {}, {}, [], []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in graph[module]:
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_no_module_imports_one_that_imports_it_back():
    known = {name: path for package in PACKAGES for name, path in modules(package).items()}
    graph = defaultdict(set)
    for name, path in known.items():
        graph[name] = imports(name, path, set(known))
    assert len(known) > 40
    assert graph["scoring.models.table"] >= {"scoring.models.game"}
    assert cycles(graph) == []


def test_a_circle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
