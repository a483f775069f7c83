"""An upgrade that carries migrations, as docs/deploy.md "Upgrading" tells it: the previous
release keeps serving while this release's migrations run, and answers no 5xx.

The previous release is the last commit whose pyproject.toml has the version before this one
(the parent of the commit that set this version: CHANGELOG.md), taken from git into a
temporary folder and served by its own scripts/serve (with this checkout's .venv) on the test
database, migrated back to that release's last migration. Phones load every kind of page, poll,
save rounds and start games through it while this checkout's `manage.py migrate` runs; then
this release's server starts beside it, as a restart one at a time does, and answers too.

It checks the rule CHANGELOG.md states for each migration: add before the code reads, remove a
release after the code stops reading. Every wait is bounded; the servers are always stopped."""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring.models import Game, Table
from scripts.throwaway_site import free_port
from tests.conftest import round_post
from tests.links import url
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROOT = Path(settings.BASE_DIR)


def git(*arguments: str) -> str:
    done = subprocess.run(  # noqa: S603 (git on this checkout)
        ["git", *arguments],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, (
        f"git {' '.join(arguments)}: {done.stderr}\nThe upgrade test needs the repository's "
        "history (a shallow clone lacks it: git fetch --unshallow)."
    )
    return done.stdout


def previous_release() -> tuple[str, str]:
    """The commit of the previous release and this release's version."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    began = git("log", "--format=%H", "--reverse", "-S", f'version = "{version}"', "--",
                "pyproject.toml").split()  # fmt: skip
    assert began, f"no commit sets version {version} in pyproject.toml"
    return git("rev-parse", f"{began[0]}^").strip(), version


def checkout(commit: str, folder: Path, environment: dict) -> Path:
    """The release's files in `folder`, with this checkout's .venv and its static files."""
    archive = subprocess.run(  # noqa: S603
        ["git", "archive", commit], cwd=ROOT, capture_output=True, timeout=60, check=True  # noqa: S607
    ).stdout
    folder.mkdir()
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True, timeout=60)  # noqa: S603, S607
    (folder / ".venv").symlink_to(Path(sys.prefix))
    subprocess.run(  # noqa: S603
        [str(folder / ".venv" / "bin" / "python"), "manage.py", "collectstatic", "--no-input",
         "-v0"],
        cwd=folder, env=environment, check=True, timeout=120,
    )  # fmt: skip
    return folder


def migrate_scoring(to: str | None) -> None:
    executor = MigrationExecutor(connection)
    target = [("scoring", to)] if to else executor.loader.graph.leaf_nodes("scoring")
    executor.migrate(target)


class Phone:
    """A phone that loads pages, polls and posts; every answer's status is counted."""

    def __init__(self, port: int, statuses: Counter, failures: list):
        self.port, self.statuses, self.failures = port, statuses, failures
        self.cookie = ""

    def ask(self, method: str, path: str, data: dict | None = None) -> str:
        connection = http.client.HTTPConnection(HOST, self.port, timeout=30)
        headers = {"Cookie": f"csrftoken={self.cookie}"} if self.cookie else {}
        body = ""
        if data is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urlencode(data)
        try:
            connection.request(method, path, body=body.encode(), headers=headers)
            response = connection.getresponse()
            text = response.read().decode(errors="replace")
        except OSError as error:
            self.statuses[type(error).__name__] += 1
            return ""
        finally:
            connection.close()
        self.statuses[response.status] += 1
        if response.status >= 500:
            self.failures.append((method, re.sub(r"/[gvtw]/[^/]+", "/…", path), text[:300]))
        cookie = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie") or "")
        if cookie:
            self.cookie = cookie.group(1)
        return text


def keep_busy(phone: Phone, game: Game, table: Table, stop: threading.Event) -> None:
    pages = [
        url("game", game.edit_token),
        url("view", game.view_token),
        url("history", game.edit_token),
        url("players", game.edit_token),
        url("export_json", game.edit_token),
        url("export_csv", game.edit_token),
        url("table", table.edit_token),
        url("table_view", table.view_token),
        url("poll", game.edit_token) + "?v=1",
        "/",
        "/rules/",
    ]
    turn = 0
    while not stop.is_set():
        for page in pages:
            phone.ask("GET", page)
        page = phone.ask("GET", url("game", game.edit_token))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if token:
            form = {"csrfmiddlewaretoken": token.group(1)}
            turn += 1
            phone.ask(
                "POST",
                url("save", game.edit_token),
                {**round_post("blocked", dict.fromkeys(range(3), 2)), **form},
            )
            phone.ask("POST", "/", {"player_0": "Ana", "player_1": f"Boris {turn}", **form})


def test_the_previous_release_serves_on_while_this_one_migrates(tmp_path):
    commit, version = previous_release()
    environment = production_environment(RAMI_NEW_GAMES_PER_MINUTE="0")
    old = checkout(commit, tmp_path / "previous", environment)
    theirs = sorted(path.stem for path in (old / "scoring" / "migrations").glob("0*.py"))
    ours = sorted(path.stem for path in (ROOT / "scoring" / "migrations").glob("0*.py"))
    new_migrations = [name for name in ours if name not in theirs]
    assert new_migrations, "this release carries no migration: the test would prove nothing"
    # A game and a table of the previous release: made here (this release's code writes this
    # release's columns), then the database taken back to the previous release's migrations.
    game = Game.start(["Ana", "Boris", "Cyril"])
    table = Table.start("Friday", ["Ana", "Boris"])
    migrate_scoring(theirs[-1])

    statuses: Counter = Counter()
    failures: list = []
    stop = threading.Event()
    servers = []
    try:
        port = free_port()
        log = tmp_path / "previous.log"
        with log.open("wb") as output:
            previous = subprocess.Popen(  # noqa: S603 (the previous release's own script)
                [str(old / "scripts" / "serve"), HOST, str(port)],
                cwd=old, env=environment, stdout=output, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        servers.append(previous)
        wait_until_healthy(previous, port, log)
        phones = [Phone(port, statuses, failures) for _ in range(3)]
        threads = [
            threading.Thread(target=keep_busy, args=(phone, game, table, stop), daemon=True)
            for phone in phones
        ]
        for thread in threads:
            thread.start()
        # Some answers before the migration begins (however busy the machine), at most 60 s.
        waited = time.monotonic() + 60
        while sum(statuses.values()) <= 20 and time.monotonic() < waited:
            time.sleep(0.1)
        before = sum(statuses.values())

        # This release's migrations, while the previous release serves.
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input"],
            cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert migrated.returncode == 0, migrated.stderr
        # Its report: JSON log lines on standard error (scoring/management/logged.py).
        for name in new_migrations:
            assert f"Applying scoring.{name}... OK" in migrated.stderr, migrated.stderr
        time.sleep(2)

        # Then this release's server beside it, as the restart of one server at a time does.
        new_port = free_port({port})
        new_log = tmp_path / "this.log"
        current = start_serve(new_port, environment, new_log)
        servers.append(current)
        wait_until_healthy(current, new_port, new_log)
        newer = Phone(new_port, statuses, failures)
        newer.ask("GET", url("game", game.edit_token))
        newer.ask("GET", url("table", table.edit_token))
        time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        stop.set()
        for server in servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=20)
        migrate_scoring(None)

    answered = sum(statuses.values())
    print(
        f"\nupgrading {commit[:10]} to {version} ({', '.join(new_migrations)}) under "
        f"{answered} requests ({before} before the migration began): {dict(statuses)}"
    )
    assert failures == []
    assert set(statuses) <= {200, 204, 303}, statuses
    assert answered > before > 20
