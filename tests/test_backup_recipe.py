"""The backup recipe of docs/deploy.md, run as the timer runs it: scripts/backup makes a dated
private folder with the games (and the database: pg_dump on PostgreSQL, SQLite's own copy
otherwise), keeps the newest RAMI_BACKUPS_KEPT; the restore drill (scripts/restore_drill.py)
brings every game of the newest back in a throwaway database; scripts/restore brings its whole
database back (SQLite here). On the test database, as the server's environment names it."""

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

from tests.conftest import finished_game
from tests.test_two_servers import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_the_nightly_backup_and_the_restore_drill(thursday_table, tmp_path):
    finished_game()
    environment = {**os.environ, "DATABASE_URL": database_url(), "RAMI_BACKUPS_KEPT": "2"}
    folder = tmp_path / "backups"
    made = []
    for _night in range(3):
        done = subprocess.run(  # noqa: S603 (our own script)
            [str(settings.BASE_DIR / "scripts" / "backup"), str(folder)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        # Everything it says is a JSON line on standard error, as the server's logs.
        assert done.stdout == ""
        said = [json.loads(line) for line in done.stderr.splitlines()]
        assert {line["logger"] for line in said} == {"backup", "manage.backup_games"}
        made.append(next(line["message"] for line in said if line["logger"] == "backup"))
        time.sleep(1.1)  # a new name each second
    backups = sorted(folder.iterdir())
    assert len(backups) == 2, backups  # the oldest of three removed
    assert folder.stat().st_mode & 0o777 == 0o700
    newest = backups[-1]
    assert newest.stat().st_mode & 0o777 == 0o700
    assert len(list((newest / "games").glob("game-*.json"))) == 4
    database = "database.dump" if connection.vendor == "postgresql" else "database.sqlite3"
    assert (newest / database).stat().st_size > 0

    drill = subprocess.run(  # noqa: S603 (our own script)
        [sys.executable, "-m", "scripts.restore_drill", str(newest)],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert "drill: 4 of 4 games back as backed up, at their links, and 1 tables checked" in (
        drill.stdout
    )
    assert "drill: every game came back" in drill.stderr

    if connection.vendor == "sqlite":
        # The whole database back with scripts/restore, into a file that is not there yet (on
        # PostgreSQL: tests/test_restore_postgres.py).
        restored = tmp_path / "restored.sqlite3"
        into = {**environment, "DATABASE_URL": f"sqlite:///{restored}"}
        done = restore(newest, into)
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"restored {newest / 'database.sqlite3'} to {restored}\n"
        with sqlite3.connect(restored) as database:
            assert database.execute("select count(*) from scoring_game").fetchone() == (4,)
        again = restore(newest, into)
        assert again.returncode == 1
        assert again.stderr == (
            f"restore: {restored} exists already: stop the servers and move it aside first\n"
        )


def restore(backup, environment) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 (our own script)
        [str(settings.BASE_DIR / "scripts" / "restore"), str(backup)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
