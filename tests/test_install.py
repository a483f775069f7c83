"""A production install is the app and what it runs on, without the test tools:
`pip install -e ".[postgres,redis]"` (docs/deploy.md, "Installing"). The app, set up and
serving (its settings, every module of it, the ASGI entry and granian), imports nothing that
only the test extra brings."""

import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

from tests.test_release import working_tree_commit

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


# The lines of docs/deploy.md's install that change the system as root, skipped here: the
# packages, the user, PostgreSQL's role and database (a throwaway cluster instead), /etc/rami
# (a file in a temporary folder instead), the backups' folder, systemd and nginx.
AS_ROOT = (
    "apt-get ",
    "adduser ",
    "runuser -u postgres -- ",
    "install -d -m 0755 /etc/rami",
    "install -m 0600 /dev/null /etc/rami/env",
    "editor ",
    "install -d -o rami -g rami -m 0700 /var/backups/rami",
    "cp /srv/rami/current/deploy/systemd/",
    "systemctl ",
    "cp /srv/rami/current/deploy/nginx/",
    "ln -s ../sites-available/",
)


def install_blocks() -> tuple[list[str], list[str]]:
    """The commands of docs/deploy.md's "Installing" (its first shell block) and the lines of
    /etc/rami/env it shows (the block after "`/etc/rami/env`, one variable a line")."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    section = text.split("\n## Installing\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)[1]
    # A line that ends in a backslash goes on on the next: one command.
    commands = [
        line.strip() for line in re.sub(r"\\\n\s*", "", block).splitlines()
        if line.strip() and not line.startswith("#")
    ]  # fmt: skip
    settings_part = section.split("`/etc/rami/env`, one variable a line", 1)[1]
    variables = re.search(r"```sh\n(.*?)```", settings_part, re.DOTALL)[1].splitlines()
    # Only settings: the file is read by the shell (`. /etc/rami/env`).
    setting = re.compile(r"[A-Z][A-Z0-9_]*=(\S*|<[^>]*>)")
    assert all(setting.fullmatch(line) for line in variables), variables
    return commands, variables


@pytest.mark.slow
def test_the_documented_install_runs(tmp_path):
    commands, env_lines = install_blocks()
    python = newest_pyenv_python("3.12")
    run, skipped = [], []
    for command in commands:
        (skipped if command.startswith(AS_ROOT) else run).append(command)
    assert len(run) == 3, run  # the clone, scripts/release and check --deploy
    for prefix in AS_ROOT:  # each kind of step skipped is in the docs
        assert any(command.startswith(prefix) for command in skipped), prefix

    # "<the repository>": this checkout's files as they are, as a repository's main branch.
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True, timeout=60)  # noqa: S603, S607
    commit = working_tree_commit(tmp_path)
    subprocess.run(  # noqa: S603
        ["git", "push", "-q", str(origin), f"{commit}:refs/heads/main"],  # noqa: S607
        cwd=ROOT, check=True, timeout=120,
    )  # fmt: skip
    subprocess.run(["git", "symbolic-ref", "HEAD", "refs/heads/main"], cwd=origin, check=True)  # noqa: S607

    srv = tmp_path / "srv"
    srv.mkdir()
    env_file = tmp_path / "env"
    written = []
    for line in env_lines:
        name = line.split("=", 1)[0]
        if name == "DJANGO_SECRET_KEY":
            line = f"{name}={secrets.token_urlsafe(50)}"
        if name != "DATABASE_URL":
            written.append(line)
    env_file.write_text("\n".join(written) + "\n")
    # The throwaway cluster's address, known once it runs.
    script = ["set -euo pipefail", f'echo "DATABASE_URL=$DATABASE_URL" >> {env_file}']
    for command in run:
        command = command.replace("runuser -u rami -- ", "")
        command = command.replace("<the repository>", str(origin))
        command = command.replace("/srv/rami", str(srv)).replace("/etc/rami/env", str(env_file))
        script += [command, "echo '# ran:' " + shlex.quote(command)]
    done = subprocess.run(  # noqa: S603 (our own script, the documented commands)
        [str(ROOT / "scripts" / "with-postgres"), "bash", "-c", "\n".join(script)],
        env={
            "PATH": f"{python.parent}:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": str(tmp_path),  # no pyenv there: the Python is the one first on PATH
            "LANG": "C.UTF-8",
            "PIP_CACHE_DIR": str(Path.home() / ".cache" / "pip"),  # the wheels built before
            # scripts/release's /srv/rami and /etc/rami/env, as in the commands.
            "RAMI_ROOT": str(srv),
            "RAMI_ENV_FILE": str(env_file),
            **{name: value for name, value in os.environ.items() if name.startswith("PIP_")},
        },
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert output.count("# ran:") == len(run), output[-4000:]
    assert "System check identified no issues (0 silenced)." in output, output[-4000:]
    current = srv / "current"
    assert current.is_symlink()
    venv_python = current / ".venv" / "bin" / "python"
    version = subprocess.run(  # noqa: S603
        [str(venv_python), "-c", "import sys; print(sys.version_info[:2] >= (3, 12))"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    assert version.strip() == "True"
    assert (current / "staticfiles" / "staticfiles.json").is_file()
    assert "Applying scoring.0001_initial... OK" in output
    # What pip installed there: the app and what it runs on, none of the test tools.
    installed = subprocess.run(  # noqa: S603
        [str(venv_python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.lower()  # fmt: skip
    for name in ("django==", "granian==", "psycopg==", "redis=="):
        assert name in installed, installed
    assert "pytest" not in installed and "playwright" not in installed


def newest_pyenv_python(at_least: str) -> Path:
    """A pyenv-built Python of the version given (3.12.x), standing for the one the Debian 12
    step of docs/deploy.md puts in /usr/local/bin."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(root.glob(f"versions/{at_least}.*/bin/python3"))
    if not found:
        found = [Path(shutil.which(f"python{at_least}") or "/nonexistent")]
    assert found[-1].exists(), f"no Python {at_least}: pyenv install {at_least}"
    return found[-1]
