"""A production install is the app and what it runs on, without the test tools:
`pip install -e ".[postgres,redis]"` (docs/deploy.md, "Installing"). The app, set up and
serving (its settings, every module of it, the ASGI entry and granian), imports nothing that
only the test extra brings."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)

LOADED = """
import importlib, json, pkgutil, sys
import django
django.setup()
import rami_site.asgi, granian, scoring
for module in pkgutil.walk_packages(scoring.__path__, "scoring."):
    if ".migrations." not in module.name:
        importlib.import_module(module.name)
from importlib.metadata import packages_distributions
owners = packages_distributions()
found = set()
for name in list(sys.modules):
    for distribution in owners.get(name.split(".")[0], []):
        found.add(distribution.lower())
print(json.dumps(sorted(found)))
"""


def requirement_names(requirements: list[str]) -> set[str]:
    return {
        requirement.split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
        for requirement in requirements
    }


def test_the_app_imports_nothing_of_the_test_tools():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test_only = requirement_names(project["optional-dependencies"]["test"]) - {"rami-score"}
    production = requirement_names(
        project["dependencies"]
        + project["optional-dependencies"]["postgres"]
        + project["optional-dependencies"]["redis"]
    )
    assert not test_only & production
    done = subprocess.run(  # noqa: S603 (our own interpreter)
        [sys.executable, "-c", LOADED],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "rami_site.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert not loaded & test_only, loaded & test_only
    assert {"django", "granian"} <= loaded
