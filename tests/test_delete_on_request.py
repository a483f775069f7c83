"""A game or a table deleted on request (manage.py delete_game, delete_table, the admin) is
gone for good: its pages are 404s, and no restore of a backup made before brings it back,
unless it is asked for by its link (restore_games --bring-back)."""

import json
from datetime import datetime
from io import StringIO

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.urls import path

from scoring.models import DeletedLink, Game, Table
from scoring.models.deleted import digest
from tests.conftest import finished_game
from tests.links import url

pytestmark = pytest.mark.django_db

urlpatterns = [path("admin/", admin.site.urls)]


def run(command: str, *arguments) -> str:
    out = StringIO()
    call_command(command, *map(str, arguments), stdout=out, stderr=out)
    return out.getvalue()


def link(game: Game) -> str:
    return f"https://rami.example.org/g/{game.edit_token}/"


def test_delete_game_by_its_link_removes_it_and_its_pages(client, every_kind_game):
    game = every_kind_game
    assert client.get(url("game", game.edit_token)).status_code == 200
    said = run("delete_game", link(game))
    assert said == "deleted the game of Ana, Boris, Cyril, Dana (4 rounds)\n"
    assert not Game.objects.filter(pk=game.pk).exists()
    for name, token in (("game", game.edit_token), ("view", game.view_token)):
        assert client.get(url(name, token)).status_code == 404
    # Remembered by digests, never by the tokens themselves.
    (deleted,) = DeletedLink.objects.all()
    assert (deleted.kind, deleted.edit_digest, deleted.view_digest) == (
        "game",
        digest(game.edit_token),
        digest(game.view_token),
    )
    assert game.edit_token not in str(list(DeletedLink.objects.values()))


def test_delete_game_takes_the_watch_only_link_or_the_token_alone(four_players, three_players):
    run("delete_game", f"/v/{four_players.view_token}/")
    run("delete_game", three_players.edit_token)
    assert not Game.objects.exists()


def test_an_unknown_link_deletes_nothing(four_players):
    with pytest.raises(CommandError, match="no game has this link"):
        run("delete_game", f"https://rami.example.org/g/{'x' * 32}/")
    with pytest.raises(CommandError, match="not a link to a game"):
        run("delete_game", "https://rami.example.org/rules/")
    assert Game.objects.count() == 1


def test_a_tables_game_is_deleted_by_its_table_which_is_told(client, thursday_table):
    games = list(thursday_table.games.order_by("pk"))
    before = thursday_table.version
    run("delete_game", link(games[0]))
    thursday_table.refresh_from_db()
    assert thursday_table.version > before
    assert list(thursday_table.games.order_by("pk")) == games[1:]
    assert client.get(url("table", thursday_table.edit_token)).status_code == 200


def test_delete_table_keeps_its_games_at_no_table(client, thursday_table):
    games = list(thursday_table.games.order_by("pk"))
    versions = [game.version for game in games]
    said = run("delete_table", f"https://rami.example.org/t/{thursday_table.edit_token}/")
    assert said == "deleted the table Thursday cards; its 3 games stay, at no table\n"
    assert client.get(url("table", thursday_table.edit_token)).status_code == 404
    for game, version in zip(games, versions, strict=True):
        game.refresh_from_db()
        assert game.table_id is None
        assert game.version > version  # its pages are told
        assert not game.players.filter(member__isnull=False).exists()
        assert client.get(url("game", game.edit_token)).status_code == 200


def test_delete_table_with_its_games(thursday_table):
    said = run("delete_table", f"/w/{thursday_table.view_token}/", "--with-games")
    assert said == "deleted the table Thursday cards and its 3 games\n"
    assert not Table.objects.exists() and not Game.objects.exists()
    assert DeletedLink.objects.filter(kind="game").count() == 3
    assert DeletedLink.objects.filter(kind="table").count() == 1


def test_a_deleted_game_stays_deleted_through_a_restore_unless_asked_for(
    client, every_kind_game, tmp_path
):
    kept = finished_game()
    run("backup_games", tmp_path / "friday")
    run("delete_game", link(every_kind_game))
    kept.delete()  # lost, not deleted on request: the restore brings it back

    said = run("restore_games", tmp_path / "friday")
    assert said == "1 games restored, 0 already there\n1 games left out: deleted on request\n"
    assert client.get(url("game", every_kind_game.edit_token)).status_code == 404
    assert client.get(url("game", kept.edit_token)).status_code == 200

    # Asked for by its link, it is back, at the same links.
    said = run("restore_games", tmp_path / "friday", "--bring-back", link(every_kind_game))
    assert said == "1 games restored, 1 already there\n"
    assert client.get(url("game", every_kind_game.edit_token)).status_code == 200
    assert not DeletedLink.objects.exists()


def test_a_table_deleted_with_its_games_stays_deleted_through_a_restore(thursday_table, tmp_path):
    run("backup_games", tmp_path / "backup")
    run("delete_table", thursday_table.edit_token, "--with-games")
    said = run("restore_games", tmp_path / "backup")
    assert said == (
        "0 tables restored, 0 already there\n1 table left out: deleted on request\n"
        "0 games restored, 0 already there\n3 games left out: deleted on request\n"
    )
    assert not Table.objects.exists() and not Game.objects.exists()


@pytest.fixture
def operator(client):
    client.force_login(User.objects.create_superuser("volunteer", password="not-used-here"))
    return client


@pytest.mark.urls(__name__)
def test_the_admin_finds_a_game_by_its_pasted_link(operator, four_players, three_players):
    for pasted in (link(four_players), f"https://rami.example.org/v/{four_players.view_token}/"):
        page = operator.get("/admin/scoring/game/", {"q": pasted}).content.decode()
        assert f"/admin/scoring/game/{four_players.pk}/change/" in page
        assert f"/admin/scoring/game/{three_players.pk}/change/" not in page
    page = operator.get("/admin/scoring/game/", {"q": "Cyril"}).content.decode()
    assert f"/admin/scoring/game/{four_players.pk}/change/" in page


@pytest.mark.urls(__name__)
def test_the_admin_shows_tables_and_deletes_on_request(operator, thursday_table, friday_table):
    page = operator.get("/admin/scoring/table/").content.decode()
    assert "Thursday cards" in page and "Friday" in page
    found = operator.get(
        "/admin/scoring/table/", {"q": f"https://rami.example.org/w/{friday_table.view_token}/"}
    ).content.decode()
    assert "Friday" in found and "Thursday cards" not in found
    shown = operator.get(f"/admin/scoring/table/{thursday_table.pk}/change/").content.decode()
    assert "Boris" in shown and thursday_table.edit_token in shown

    game = thursday_table.games.order_by("pk").first()
    operator.post(f"/admin/scoring/game/{game.pk}/delete/", {"post": "yes"})
    operator.post(f"/admin/scoring/table/{friday_table.pk}/delete/", {"post": "yes"})
    assert not Game.objects.filter(pk=game.pk).exists()
    assert not Table.objects.filter(pk=friday_table.pk).exists()
    assert DeletedLink.deleted([game.edit_token, friday_table.view_token]) == {
        game.edit_token,
        friday_table.view_token,
    }


def lose_the_database() -> None:
    """What a new database rebuilt from backups starts from: nothing, not even the list of
    links deleted on request."""
    Game.objects.all().delete()
    Table.objects.all().delete()
    DeletedLink.objects.all().delete()


def test_a_deleted_table_stays_deleted_when_an_older_backup_follows_the_newest(
    client, thursday_table, tmp_path
):
    """The database rebuilt from the newest backup, then an older night's restored: the table
    deleted on request in between stays deleted, because every backup carries the deleted
    links (deleted.json) and every restore remembers them first."""
    kept = finished_game()
    run("backup_games", tmp_path / "monday")
    run("delete_table", link_of_table(thursday_table), "--with-games")
    run("backup_games", tmp_path / "tuesday")
    lose_the_database()

    said = run("restore_games", tmp_path / "tuesday")
    assert said == (
        "4 deleted on request as deleted.json lists them: remembered here, left out\n"
        "1 games restored, 0 already there\n"
    )
    said = run("restore_games", tmp_path / "monday")
    assert said == (
        "0 tables restored, 0 already there\n1 table left out: deleted on request\n"
        "0 games restored, 1 already there\n3 games left out: deleted on request\n"
    )
    assert not Table.objects.exists()
    assert list(Game.objects.values_list("edit_token", flat=True)) == [kept.edit_token]
    assert client.get(url("table", thursday_table.edit_token)).status_code == 404
    assert client.get(url("table_view", thursday_table.view_token)).status_code == 404

    # An older backup restored first into the new database (or an older night's whole
    # database.dump): the newest one's list is honoured as well, whichever comes first, and what
    # it names that the older one brought back is deleted again.
    lose_the_database()
    run("restore_games", tmp_path / "monday")
    assert Table.objects.exists()  # nothing said it was deleted yet: it was not, on Monday
    said = run("restore_games", tmp_path / "tuesday")
    assert said == (
        "4 deleted on request as deleted.json lists them: remembered here, left out\n"
        "3 games and 1 table here deleted again: deleted on request after they were saved, as "
        "deleted.json lists them\n"
        "0 games restored, 1 already there\n"
    )
    assert not Table.objects.exists()
    assert list(Game.objects.values_list("edit_token", flat=True)) == [kept.edit_token]
    assert client.get(url("table_view", thursday_table.view_token)).status_code == 404
    # ...and the list is in the database from then on, for every later restore.
    assert DeletedLink.deleted([thursday_table.edit_token]) == {thursday_table.edit_token}


def test_a_link_brought_back_is_not_deleted_again(thursday_table, tmp_path):
    """The newest backup's list names a table that an older restore brought back: named with
    --bring-back, it stays."""
    run("backup_games", tmp_path / "monday")
    run("delete_table", link_of_table(thursday_table))  # its games stay, at no table
    run("backup_games", tmp_path / "tuesday")
    lose_the_database()
    run("restore_games", tmp_path / "monday")
    said = run("restore_games", tmp_path / "tuesday", "--bring-back", link_of_table(thursday_table))
    assert said == (
        "1 deleted on request as deleted.json lists them: remembered here, left out\n"
        "0 games restored, 3 already there\n"
    )
    assert Table.objects.get().edit_token == thursday_table.edit_token
    assert not DeletedLink.objects.exists()


def link_of_table(table: Table) -> str:
    return f"https://rami.example.org/t/{table.edit_token}/"


def test_an_older_backup_brings_a_deleted_table_back_only_when_asked(thursday_table, tmp_path):
    run("backup_games", tmp_path / "monday")
    games = [game.edit_token for game in thursday_table.games.all()]
    run("delete_table", link_of_table(thursday_table), "--with-games")
    run("backup_games", tmp_path / "tuesday")
    lose_the_database()
    run("restore_games", tmp_path / "tuesday")
    said = run(
        "restore_games",
        tmp_path / "monday",
        "--bring-back",
        link_of_table(thursday_table),
        *(arg for token in games for arg in ("--bring-back", token)),
    )
    assert said == ("1 table restored, 0 already there\n3 games restored, 0 already there\n")
    assert Table.objects.get().edit_token == thursday_table.edit_token


def test_the_deleted_links_of_a_backup_are_digests_only(four_players, three_players, tmp_path):
    run("delete_game", link(four_players))
    run("backup_games", tmp_path)
    path = tmp_path / "deleted.json"
    assert path.stat().st_mode & 0o777 == 0o600
    document = json.loads(path.read_text())
    assert document["format"] == "rami-deleted/1"
    [entry] = document["deleted"]
    assert entry["kind"] == "game"
    assert entry["edit_digest"] == digest(four_players.edit_token)
    assert entry["view_digest"] == digest(four_players.view_token)
    assert datetime.fromisoformat(entry["deleted_at"]) == DeletedLink.objects.get().deleted_at
    text = path.read_text()
    assert four_players.edit_token not in text and four_players.view_token not in text

    # Merged into another database, it keeps when the game was deleted.
    lose_the_database()
    run("restore_games", tmp_path)
    assert DeletedLink.objects.get().deleted_at == datetime.fromisoformat(entry["deleted_at"])


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.update(format="rami-game/1"), 'not a list of deleted links: "format"'),
        (
            lambda d: d["deleted"][0].update(edit_digest="abc"),
            '"deleted" 1: "edit_digest" is not a SHA-256',
        ),
        (
            lambda d: d["deleted"][0].update(kind="round"),
            '"deleted" 1: "kind" is "game" or "table"',
        ),
        (lambda d: d["deleted"][0].pop("deleted_at"), '"deleted" 1: must have kind, edit_digest'),
    ],
)
def test_a_backup_whose_deleted_links_cannot_be_read_restores_nothing(
    four_players, three_players, tmp_path, change, why
):
    """Restored without its list, a backup could bring back what was deleted on request."""
    run("delete_game", link(four_players))
    run("backup_games", tmp_path)
    path = tmp_path / "deleted.json"
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
    lose_the_database()
    with pytest.raises(CommandError) as refused:
        run("restore_games", tmp_path)
    assert str(refused.value).startswith(f"deleted.json: {why}")
    assert str(refused.value).endswith(
        "; nothing restored (it lists the games and tables "
        "deleted on request, which no restore may bring back)"
    )
    assert not Game.objects.exists()


def test_a_backup_from_before_the_deleted_links_restores_as_it_did(four_players, tmp_path):
    run("backup_games", tmp_path)
    (tmp_path / "deleted.json").unlink()
    Game.objects.all().delete()
    assert run("restore_games", tmp_path) == "1 games restored, 0 already there\n"
