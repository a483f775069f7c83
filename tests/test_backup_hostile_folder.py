"""A backup folder that someone else could have written to: no restore hands out an edit right
(every token of a restored game or table is unlike every token, edit or watch-only, of every
game and table there and of the same restore), and no file makes a restore read past the size
limit, follow a symbolic link or hang on a FIFO. Each refusal names its file."""

import json
import os
import tracemalloc
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from scoring.files.backup import FIELD, restore, restore_table
from scoring.files.backup_files import MAX_FILE_BYTES
from scoring.files.exchange import ExchangeError
from scoring.models import Game, Table
from tests.conftest import finished_game
from tests.links import url
from tests.test_backup import restore_folder

pytestmark = pytest.mark.django_db


@pytest.fixture
def backup(thursday_table, tmp_path):
    """A backup of a table (three games) and a game at no table; the database then emptied."""
    alone = finished_game()
    call_command("backup_games", str(tmp_path), stdout=StringIO())
    Game.objects.all().delete()
    Table.objects.all().delete()
    return tmp_path, thursday_table, alone


def edit(path, change) -> dict:
    document = json.loads(path.read_text())
    change(document[FIELD])
    path.write_text(json.dumps(document))
    return document


@pytest.mark.parametrize(
    ("mine", "theirs"), [("edit_token", "view_token"), ("view_token", "edit_token")]
)
def test_a_game_with_a_token_of_a_table_there_is_refused(backup, client, mine, theirs):
    """A game whose edit token is a table's watch-only token: the watch-only link would edit
    the game restored (or the other way round: the game's watch-only link opens the table)."""
    folder, _, alone = backup
    table = Table.start("Saturday", ["Ana", "Boris"])
    path = folder / f"game-{alone.pk}.json"
    document = edit(path, lambda fields: fields.update({mine: getattr(table, theirs)}))
    out, failure = restore_folder(folder)
    assert f'{path.name}: "backup": a token belongs to a table' in out
    assert failure == f"not restored: {path.name}"
    assert not Game.objects.filter(edit_token=document[FIELD]["edit_token"]).exists()
    assert client.get(url("game", getattr(table, theirs))).status_code == 404
    with pytest.raises(ExchangeError, match="a token belongs to a table"):
        restore(document)


@pytest.mark.parametrize(
    ("mine", "theirs"), [("edit_token", "view_token"), ("view_token", "edit_token")]
)
def test_a_table_with_a_token_of_a_game_there_is_refused(backup, client, mine, theirs):
    folder, thursday_table, _ = backup
    game = Game.start(["Cyril", "Dana"])
    path = folder / "tables" / f"table-{thursday_table.pk}.json"
    document = edit(path, lambda fields: fields.update({mine: getattr(game, theirs)}))
    out, failure = restore_folder(folder)
    assert f'tables/{path.name}: "backup": a token belongs to a game' in out
    assert f"tables/{path.name}" in failure
    assert not Table.objects.exists()
    with pytest.raises(ExchangeError, match="a token belongs to a game"):
        restore_table(document)


def test_a_game_and_a_table_of_one_restore_sharing_a_token_restore_the_table_only(backup, client):
    """In the same folder: the tables are restored first, and a game file that gives itself
    the table's watch-only token as its edit token is refused."""
    folder, thursday_table, alone = backup
    path = folder / f"game-{alone.pk}.json"
    edit(path, lambda fields: fields.update(edit_token=thursday_table.view_token))
    out, failure = restore_folder(folder)
    assert f'{path.name}: "backup": a token belongs to a table' in out
    assert failure == f"not restored: {path.name}"
    assert "1 table restored" in out and "3 games restored" in out
    page = client.get(url("game", thursday_table.view_token))
    assert page.status_code == 404  # the watch-only link of the table edits nothing
    assert client.get(url("table_view", thursday_table.view_token)).status_code == 200


def test_two_tables_of_one_restore_sharing_a_token_restore_the_first_only(backup):
    folder, thursday_table, _ = backup
    copy = json.loads((folder / "tables" / f"table-{thursday_table.pk}.json").read_text())
    copy[FIELD]["edit_token"] = copy[FIELD]["view_token"][::-1]
    copy[FIELD]["view_token"] = thursday_table.edit_token
    (folder / "tables" / "table-zz.json").write_text(json.dumps(copy))
    out, failure = restore_folder(folder)
    assert 'tables/table-zz.json: "backup": a token belongs to another table' in out
    assert failure == "not restored: tables/table-zz.json"
    assert Table.objects.count() == 1


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(backup):
    """A 150 MB file (sparse: it costs no disk) is refused by its size, the restore's memory
    staying far below it; the other files are restored."""
    folder, _, _ = backup
    big = folder / "game-big.json"
    with open(big, "wb") as file:
        file.truncate(150 * 1024 * 1024)
    tracemalloc.start()
    try:
        out, failure = restore_folder(folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (
        "game-big.json: 157,286,400 bytes, over the limit of 4,194,304 bytes for a backup "
        "file: not read"
    ) in out
    assert failure == "not restored: game-big.json"
    assert "4 games restored" in out
    assert peak < 20 * 1024 * 1024, peak
    assert MAX_FILE_BYTES == 4 * 1024 * 1024  # docs/formats.md says 4 MB


def test_a_symbolic_link_is_not_followed(backup, tmp_path_factory):
    """A link to a game's file outside the folder (or to anything: /etc/shadow, a device) is
    refused by name; the folder of tables as a link too."""
    folder, _, alone = backup
    path = folder / f"game-{alone.pk}.json"
    outside = tmp_path_factory.mktemp("elsewhere") / "game.json"
    path.rename(outside)
    path.symlink_to(outside)
    (folder / "game-dev.json").symlink_to("/dev/zero")
    tables = tmp_path_factory.mktemp("tables-elsewhere")
    (folder / "tables").rename(tables / "tables")
    (folder / "tables").symlink_to(tables / "tables")
    out, failure = restore_folder(folder)
    assert f"{path.name}: a symbolic link, not a file: not followed" in out
    assert "game-dev.json: a symbolic link, not a file: not followed" in out
    assert "tables: a symbolic link, not a folder: not followed" in out
    assert failure == f"not restored: tables, {path.name}, game-dev.json"
    assert not Game.objects.filter(edit_token=alone.edit_token).exists()
    assert not Table.objects.exists()


def test_a_fifo_or_a_folder_is_not_read(backup):
    """A FIFO would hang a reader waiting for a writer; a folder named *.json is no file."""
    folder, _, _ = backup
    os.mkfifo(folder / "game-fifo.json")
    (folder / "game-folder.json").mkdir()
    out, failure = restore_folder(folder)
    for name in ("game-fifo.json", "game-folder.json"):
        assert f"{name}: not a regular file (a folder, a device or a FIFO): not read" in out
    assert failure == "not restored: game-fifo.json, game-folder.json"
    assert "4 games restored" in out


def test_a_deleted_list_that_is_a_link_restores_nothing(backup):
    folder, _, _ = backup
    (folder / "deleted.json").rename(folder.parent / "deleted-elsewhere.json")
    (folder / "deleted.json").symlink_to(folder.parent / "deleted-elsewhere.json")
    with pytest.raises(CommandError, match=r"^deleted.json: a symbolic link, not a file"):
        restore_folder_strict(folder)
    assert not Game.objects.exists()


def restore_folder_strict(folder) -> None:
    call_command("restore_games", str(folder), stdout=StringIO(), stderr=StringIO())
