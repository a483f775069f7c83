"""The app's packages are its layers (docs/architecture.md, "Layers"): each imports only from
the layers below its own, read from the source as tests/test_imports.py reads it; the rules
import no Django but to say themselves in words; and no module or class grows past what one
reader holds at once."""

import ast
import re

import pytest
from django.conf import settings

from tests.test_imports import imported, modules

ARCHITECTURE = settings.BASE_DIR / "docs" / "architecture.md"
# The modules of the rules that say them in words, with Django's translations.
RULES_IN_WORDS = {"card_names", "house_rules", "worked_examples", "messages"}
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400


def layers() -> dict[str, int]:
    """Each package of the Layers table, by its layer's number."""
    text = ARCHITECTURE.read_text()
    section = text[text.index("## Layers") :]
    section = section[: section.index("\n## ", 1)]
    found = {}
    for number, packages in re.findall(r"^\| (\d+) \| (.+?) \|", section, re.M):
        for package in re.findall(r"`([\w.]+)`", packages):
            found[package] = int(number)
    return found


def package_of(module: str, known: dict[str, int]) -> str | None:
    """The package of the Layers table that `module` belongs to (None: the app's root)."""
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module or None


@pytest.fixture(scope="module")
def graph():
    found = modules()
    return {
        name: imported(name, tree, is_package, set(found))
        for name, (tree, is_package) in found.items()
    }


def test_the_table_names_every_package_of_the_app():
    table = layers()
    packages = {
        path.stem
        for path in (settings.BASE_DIR / "scoring").glob("*")
        if path.suffix == ".py" or (path / "__init__.py").exists()
    } - {"__init__", "apps", "migrations"}
    assert {f"scoring.{package}" for package in packages} <= set(table)
    assert table["scoring.rules"] == 1
    assert table["rami_site"] == max(table.values())


def test_each_package_imports_only_from_the_layers_below(graph):
    table = layers()
    wrong = []
    for name, imports in graph.items():
        mine = package_of(name, table)
        if mine is None:
            continue
        for other in imports:
            theirs = package_of(other, table)
            if theirs is not None and theirs != mine and table[theirs] >= table[mine]:
                wrong.append(f"{name} -> {other} (layer {table[mine]} -> {table[theirs]})")
    assert graph["scoring.views.poll"] >= {"scoring.views.games"}  # the walk sees imports
    assert wrong == []


def test_the_rules_import_no_django_but_to_say_themselves_in_words():
    leaning = []
    for path in (settings.BASE_DIR / "scoring" / "rules").glob("*.py"):
        if path.stem in RULES_IN_WORDS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            leaning += [f"{path.name}: {name}" for name in names if name.startswith("django")]
    assert leaning == []


def test_no_module_or_class_too_long_to_read_whole():
    long = []
    for path in [
        *(settings.BASE_DIR / "scoring").rglob("*.py"),
        *(settings.BASE_DIR / "rami_site").rglob("*.py"),
    ]:
        if "migrations" in path.parts:
            continue
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long.append(f"{path.name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno >= MAX_CLASS_LINES:
                long.append(f"{path.name}: class {node.name}, {node.end_lineno - node.lineno + 1}")
    assert long == []
