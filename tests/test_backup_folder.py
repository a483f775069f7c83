"""Where backup_games writes: a new folder of its own, readable by its owner only, files named
by number and never by a token; a folder with anything in it is refused; a write that fails
(a full disk) says so in one line and leaves no file of the backup behind."""

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from scoring.management.commands import backup_games
from scoring.models import Game
from tests.conftest import finished_game
from tests.test_two_servers import database_url

pytestmark = pytest.mark.django_db


def run(*arguments) -> str:
    out = StringIO()
    call_command("backup_games", *map(str, arguments), stdout=out, stderr=out)
    return out.getvalue()


@pytest.fixture
def games(thursday_table) -> list[Game]:
    return [*thursday_table.games.order_by("pk"), finished_game()]


def test_a_backup_folder_is_new_and_private_and_names_no_token(games, tmp_path):
    folder = tmp_path / "backups" / "2026-01-30"
    os.umask(0o022)
    run(folder)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / "tables").stat().st_mode & 0o777 == 0o700
    names = sorted(path.name for path in folder.rglob("*"))
    assert names == sorted(
        [
            "tables",
            "deleted.json",
            *(f"game-{game.pk}.json" for game in games),
            f"table-{games[0].table_id}.json",
        ]
    )
    tokens = [token for game in games for token in (game.edit_token, game.view_token)]
    assert not any(token in name for token in tokens for name in names)
    assert all(path.stat().st_mode & 0o777 == 0o600 for path in folder.rglob("*.json"))


def test_an_empty_folder_is_taken_and_made_private(games, tmp_path):
    folder = tmp_path / "mounted"
    folder.mkdir(mode=0o755)
    run(folder)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert len(list(folder.glob("game-*.json"))) == len(games)


def test_a_folder_with_anything_in_it_is_refused(games, tmp_path):
    run(tmp_path / "first")
    with pytest.raises(CommandError, match="is not empty: back up into a new folder each time"):
        run(tmp_path / "first")
    assert len(list((tmp_path / "first").glob("game-*.json"))) == len(games)


def test_a_full_disk_is_one_line_and_leaves_nothing(games, tmp_path, monkeypatch):
    written = []
    real = backup_games.write_privately

    def fill_up(path: Path, text: str) -> None:
        if len(written) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, text)
        written.append(path)

    monkeypatch.setattr(backup_games, "write_privately", fill_up)
    folder = tmp_path / "tonight"
    with pytest.raises(CommandError) as refused:
        run(folder)
    assert str(refused.value) == (
        f"cannot write {folder / f'game-{games[2].pk}.json'}: No space left on device; "
        "nothing of this backup was kept"
    )
    assert "\n" not in str(refused.value)
    assert not folder.exists()


@pytest.mark.django_db(transaction=True)
def test_a_write_cut_short_by_the_system_leaves_no_partial_file(games, tmp_path):
    """A real write that fails half-way, in a process that may write no file above 600 bytes (a
    backup of a game of the table is larger): the system fails the write as on a full disk
    (EFBIG here, ENOSPC there: the same path)."""
    folder = tmp_path / "tonight"

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (600, 600))

    done = subprocess.run(  # noqa: S603 (our own command)
        [sys.executable, "manage.py", "backup_games", str(folder)],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DATABASE_URL": database_url()},
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    # One line, JSON as every log line of the server (scoring/management/logged.py).
    assert done.stderr.count("\n") == 1, done.stderr
    line = json.loads(done.stderr)
    assert (line["level"], line["logger"]) == ("ERROR", "manage.backup_games")
    assert line["message"].startswith("CommandError: cannot write ")
    assert line["message"].endswith("File too large; nothing of this backup was kept")
    assert not folder.exists()
