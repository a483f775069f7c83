"""How the project's parts import each other, read from their source (nothing is imported): no
import circle in scoring/, bench/ or scripts/, counting every import, inside a function or for
types only too, so that each module can be read, and changed, from the bottom up; and the
tools in layers. The tests import bench/ and scripts/, bench/ imports scripts/, and scripts/
imports neither, so that the benchmark never runs a test's module and a shared helper lives in
one place."""

import ast
from graphlib import CycleError, TopologicalSorter

import pytest
from django.conf import settings

PACKAGES = ("scoring", "bench", "scripts", "tests", "rami_site")


def modules() -> dict[str, tuple[ast.Module, bool]]:
    """Each module by its dotted name: its syntax tree, and whether it is a package."""
    found = {}
    for package in PACKAGES:
        for path in (settings.BASE_DIR / package).rglob("*.py"):
            if "migrations" in path.parts or "node_modules" in path.parts:
                continue
            name = ".".join(path.relative_to(settings.BASE_DIR).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = (
                ast.parse(path.read_text()),
                path.name == "__init__.py",
            )
    return found


def imported(name: str, tree: ast.Module, is_package: bool, known: set[str]) -> set[str]:
    """The project's modules `name` imports anywhere: at its top, inside a function, or under
    `if TYPE_CHECKING:` (a circle for the type checker is one for a reader too)."""
    parts = name.split(".") if is_package else name.split(".")[:-1]
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    resolved = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    found = modules()
    return {
        name: imported(name, tree, is_package, set(found))
        for name, (tree, is_package) in found.items()
    }


@pytest.mark.parametrize("package", ["scoring", "bench", "scripts"])
def test_no_import_circle(graph, package):
    assert graph["scoring.models.table"] >= {"scoring.models.game"}  # the walk sees imports
    inside = {
        name: {other for other in imported if other.split(".")[0] == package}
        for name, imported in graph.items()
        if name.split(".")[0] == package
    }
    try:
        tuple(TopologicalSorter(inside).static_order())
    except CycleError as error:
        pytest.fail(f"an import circle: {' -> '.join(error.args[1])}")


@pytest.mark.parametrize(
    ("package", "never"), [("bench", {"tests"}), ("scripts", {"tests", "bench"})]
)
def test_the_tools_import_down_only(graph, package, never):
    wrong = sorted(
        f"{name} -> {other}"
        for name, imported in graph.items()
        if name.split(".")[0] == package
        for other in imported
        if other.split(".")[0] in never
    )
    assert wrong == []
