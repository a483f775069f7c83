"""The commands whose output is a log write it as the server does, JSON lines on standard error
(scoring/management/logged.py): migrate as rami-migrate.service runs it, restore_games and
delete_game as an operator does, each in a fresh process on a database of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings


def manage(folder, *arguments: str) -> subprocess.CompletedProcess:
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RAMI_"))},
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
    }
    return subprocess.run(  # noqa: S603 (our own interpreter and manage.py)
        [sys.executable, "manage.py", *arguments],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def lines_of(done: subprocess.CompletedProcess) -> list[dict]:
    assert done.stdout == ""
    return [json.loads(line) for line in done.stderr.splitlines()]


@pytest.mark.slow
def test_migrate_restore_and_delete_write_json_lines(tmp_path):
    migrated = manage(tmp_path, "migrate", "--no-input")
    assert migrated.returncode == 0, migrated.stderr
    said = lines_of(migrated)
    assert {line["logger"] for line in said} == {"manage.migrate"}
    assert {line["level"] for line in said} == {"INFO"}
    messages = [line["message"] for line in said]
    # A line written in two pieces ("Applying …", then " OK") is one line.
    assert "Applying scoring.0001_initial... OK" in messages
    assert "OK" not in messages

    restored = manage(tmp_path, "restore_games", str(tmp_path / "missing"))
    assert restored.returncode == 1
    (line,) = lines_of(restored)
    assert (line["level"], line["logger"]) == ("ERROR", "manage.restore_games")
    assert line["message"].startswith("CommandError: ")

    deleted = manage(tmp_path, "delete_game", "https://rami.example.org/g/nothing-here-at-all/")
    assert deleted.returncode == 1
    (line,) = lines_of(deleted)
    assert (line["level"], line["logger"]) == ("ERROR", "manage.delete_game")


def test_scripts_backup_help_prints_its_usage_not_its_code():
    backup = str(settings.BASE_DIR / "scripts" / "backup")
    done = subprocess.run(  # noqa: S603 (our own script)
        [backup, "--help"], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0
    assert done.stdout.startswith("usage: scripts/backup FOLDER\n")
    assert "set -eu" not in done.stdout and "#" not in done.stdout
    bare = subprocess.run(  # noqa: S603 (our own script)
        [backup], capture_output=True, text=True, timeout=30, check=False
    )
    assert bare.returncode == 2
    assert bare.stderr == done.stdout


@pytest.mark.slow
def test_a_backup_with_the_database_away_is_json_lines_and_a_failure(tmp_path):
    """Not a traceback in plain text: the command's failure is one JSON line, its traceback
    inside, and the night's backup fails (systemctl --failed lists the unit)."""
    from scripts.throwaway_site import free_port

    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RAMI_"))},
        "DATABASE_URL": f"postgres://rami:secret@127.0.0.1:{free_port()}/rami",
    }
    done = subprocess.run(  # noqa: S603 (our own script)
        [str(settings.BASE_DIR / "scripts" / "backup"), str(tmp_path / "backups")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    (line,) = lines_of(done)
    assert (line["level"], line["logger"]) == ("ERROR", "manage.backup_games")
    assert line["message"].startswith("OperationalError: ")
    assert "Traceback" in line["exception"]
