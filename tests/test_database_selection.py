"""The tests `make test-postgres` runs again on PostgreSQL (tests/conftest.py, BY_DATABASE):
every module and test named there exists, and every test that asks which database it is on,
counts queries or locks rows is among them. Read from the tests' source, nothing imported."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import BY_DATABASE

TESTS = Path(__file__).parent
# What a test whose outcome depends on the database says in its body.
DATABASE_SPECIFIC = re.compile(
    r"connection\.vendor|num_queries|CaptureQueriesContext|select_for_update|LISTEN"
)


def sources_of_tests() -> dict[str, dict[str, str]]:
    """Each test module's name (as BY_DATABASE writes it) and its test functions' sources."""
    found = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        module = ".".join(path.relative_to(TESTS).with_suffix("").parts)
        text = path.read_text()
        found[module] = {
            node.name: ast.get_source_segment(text, node) or ""
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        }
    return found


def test_every_module_and_test_named_for_postgresql_exists():
    functions = sources_of_tests()
    for name in BY_DATABASE:
        module, _, test = name.partition("::")
        assert module in functions, f"BY_DATABASE names {module}, which is no test module"
        assert not test or test in functions[module], f"BY_DATABASE names {name}: no such test"
        assert not test or module not in BY_DATABASE, f"{name}: its whole module is named already"


def test_every_test_that_depends_on_the_database_runs_on_postgresql():
    missing = [
        f"{module}::{name}"
        for module, tests in sources_of_tests().items()
        for name, source in tests.items()
        if DATABASE_SPECIFIC.search(source)
        and module not in BY_DATABASE
        and f"{module}::{name}" not in BY_DATABASE
    ]
    assert missing == [], f"add them to BY_DATABASE in tests/conftest.py: {missing}"
