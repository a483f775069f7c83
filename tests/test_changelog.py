"""CHANGELOG.md names each release by its commit: the last commit whose pyproject.toml has that
version (the one tests/test_upgrade.py and tests/test_release.py serve as the release before
the next), found in git, so that a clone without tags (CI's) checks it too. The release under
way (this checkout's version) is "(unreleased)" and names none."""

import re
import tomllib
from pathlib import Path

from django.conf import settings

from tests.test_upgrade import git

ROOT = Path(settings.BASE_DIR)


def last_commit_of(version: str) -> str:
    """The last commit whose pyproject.toml says `version`: the parent of the commit that
    changed it to the next."""
    changed = git("log", "--format=%H", "-S", f'version = "{version}"', "--",
                  "pyproject.toml").split()  # fmt: skip
    assert changed, f"no commit has version {version} in pyproject.toml"
    return git("rev-parse", f"{changed[0]}^").strip()


def test_each_release_names_its_commit():
    text = (ROOT / "CHANGELOG.md").read_text()
    current = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    entries = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert entries[0].startswith(f"{current} (unreleased)"), entries[0][:40]
    released = entries[1:]
    assert released, "no release before this one"
    for entry in released:
        version = entry.split()[0]
        commit = last_commit_of(version)
        assert f"Commit `{commit}`" in entry, (version, commit)
        shown = git("show", f"{commit}:pyproject.toml")
        assert tomllib.loads(shown)["project"]["version"] == version
