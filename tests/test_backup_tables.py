"""backup_games and restore_games keep tables: each table with its links and
members, each game at its table, each player the member they were; and backups from before
tables still restore."""

import json
import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring import rules
from scoring.board import standings as tables
from scoring.files import exchange
from scoring.files.backup import FIELD, restore, restore_batch, restore_table
from scoring.files.exchange import ExchangeError, loads
from scoring.management.commands import restore_games
from scoring.models import Game, Member, Player, Table, new_token
from scoring.rules import Hand, RoundEntry
from tests.conftest import thursday
from tests.test_backup import random_backup, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_tables() -> list[Table]:
    """The worked example's table (house rules set since), with a game of a guest in play;
    a second table of a kept game; and, apart, a game at no table."""
    thursday_table = exchange.import_table(thursday())
    Table.objects.filter(pk=thursday_table.pk).update(house_rules={"joker": 25})
    thursday_table.refresh_from_db()
    ana = thursday_table.members.get(name="Ana")
    game = thursday_table.new_game(["Eva", ana, "Cyril"])
    game.record_round(
        RoundEntry(hands=(Hand(value=9), Hand(), Hand(cards=("JK",), opened=False)), winner=1)
    )
    kept = Game.start(["Filip", "Gül"])
    kept.record_round(RoundEntry(hands=(Hand(), Hand(opened=False)), winner=0, hand_rummy=True))
    friday = Table.keep_together(kept, "Friday")
    Game.start(["Ana", "Boris"])
    return [thursday_table, friday]


def everything() -> dict:
    """What a restore must bring back: every table by edit token with its links, rules,
    start time, members, export and standings; every game's table and players' members."""
    return {
        "tables": {
            table.edit_token: (
                table.view_token,
                table.house_rules,
                table.created_at,
                list(table.members.values_list("name", "name_key", "position")),
                exchange.export_table(table),
                [
                    (s.name, s.games, s.wins, s.average_total, s.rounds, s.playing)
                    for s in tables.standings(table)
                ],
            )
            for table in Table.objects.all()
        },
        "games": {
            game.edit_token: (
                game.table.edit_token if game.table else None,
                list(game.players.order_by("seat").values_list("name", "member__name", "seat")),
            )
            for game in Game.objects.all()
        },
    }


def test_backup_delete_restore_brings_back_the_tables_their_members_and_links(two_tables, tmp_path):
    before = everything()
    assert run("backup_games", tmp_path) == (
        f"6 games backed up to {tmp_path}\n2 tables backed up to {tmp_path / 'tables'}\n"
    )
    Table.objects.all().delete()
    Game.objects.all().delete()
    assert run("restore_games", tmp_path) == (
        "2 tables restored, 0 already there\n6 games restored, 0 already there\n"
    )
    assert everything() == before
    # Guests stay guests.
    assert Player.objects.get(name="Eva").member is None
    assert Player.objects.get(name="Eva").game.table.name == "Thursday cards"


def test_a_table_file_is_its_document_without_games_plus_its_links(two_tables, tmp_path):
    run("backup_games", tmp_path)
    table = two_tables[0]
    path = tmp_path / "tables" / f"table-{table.pk}.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text()) == {
        "format": "rami-table/1",
        "name": "Thursday cards",
        "members": ["Ana", "Boris", "Cyril", "Dana"],
        "retired": [],
        "rules": rules.Rules(joker=25).document(),
        FIELD: {
            "edit_token": table.edit_token,
            "view_token": table.view_token,
            "created_at": table.created_at.isoformat(),
        },
    }
    # Imported as a plain file, it is a table of those members, with no game.
    copy = exchange.import_table(json.loads(path.read_text()))
    assert copy.edit_token != table.edit_token
    assert [m.name for m in copy.members.all()] == ["Ana", "Boris", "Cyril", "Dana"]


def test_a_game_file_names_its_table_and_each_players_member(two_tables, tmp_path):
    run("backup_games", tmp_path)
    game = Player.objects.get(name="Eva").game
    document = json.loads((tmp_path / f"game-{game.pk}.json").read_text())
    assert document[FIELD]["table"] == two_tables[0].edit_token
    assert document[FIELD]["members"] == [None, "Ana", "Cyril"]
    alone = Game.objects.get(table=None)
    assert set(json.loads((tmp_path / f"game-{alone.pk}.json").read_text())[FIELD]) == {
        "edit_token",
        "view_token",
        "first_dealer",
        "created_at",
    }


def test_a_player_is_restored_as_their_member_even_under_another_name(two_tables, tmp_path):
    """A game's own rename may call a member's player otherwise in that game: the backup
    links them by the member's name, not the player's."""
    cyril = two_tables[0].members.get(name="Cyril")
    Player.objects.filter(member=cyril, game__rounds__number=2).update(
        name="Cyrda", name_key="cyrda"
    )
    before = everything()
    run("backup_games", tmp_path)
    Table.objects.all().delete()
    Game.objects.all().delete()
    run("restore_games", tmp_path)
    assert everything() == before
    assert Player.objects.get(name="Cyrda").member.name == "Cyril"


def test_the_one_game_restore_links_as_the_batch_does(two_tables, tmp_path, monkeypatch):
    before = everything()
    run("backup_games", tmp_path)
    Table.objects.all().delete()
    Game.objects.all().delete()
    for path in sorted((tmp_path / "tables").glob("*.json")):
        assert isinstance(restore_table(loads(path.read_bytes())), Table)
    for path in sorted(tmp_path.glob("game-*.json")):
        assert isinstance(restore(loads(path.read_bytes())), Game)
    assert everything() == before
    # And in batches of two.
    Table.objects.all().delete()
    Game.objects.all().delete()
    monkeypatch.setattr(restore_games, "BATCH_SIZE", 2)
    run("restore_games", tmp_path)
    assert everything() == before


def test_restoring_twice_leaves_the_tables_alone(two_tables, tmp_path):
    run("backup_games", tmp_path)
    assert run("restore_games", tmp_path) == (
        "0 tables restored, 2 already there\n0 games restored, 6 already there\n"
    )
    assert Table.objects.count() == 2


def test_a_backup_from_before_tables_restores_as_it_did(tmp_path):
    chance = random.Random(5)
    for _ in range(3):
        document = random_backup(chance)
        (tmp_path / f"{document[FIELD]['edit_token']}.json").write_text(json.dumps(document))
    assert run("restore_games", tmp_path) == "3 games restored, 0 already there\n"
    assert not Game.objects.exclude(table=None).exists()
    assert not Player.objects.exclude(member=None).exists()


def test_a_bad_table_file_is_named_and_its_games_come_back_outside_any_table(two_tables, tmp_path):
    run("backup_games", tmp_path)
    friday = two_tables[1]
    path = tmp_path / "tables" / f"table-{friday.pk}.json"
    document = json.loads(path.read_text())
    document["members"] = ["Filip", "FILIP"]
    path.write_text(json.dumps(document))
    Table.objects.all().delete()
    Game.objects.all().delete()
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("restore_games", str(tmp_path), stdout=out, stderr=out)
    assert str(failed.value) == f"not restored: tables/table-{friday.pk}.json"
    assert (
        f'tables/table-{friday.pk}.json: "members": "FILIP": Two members have this name'
        in out.getvalue()
    )
    assert "1 table restored, 0 already there" in out.getvalue()
    assert "6 games restored, 0 already there" in out.getvalue()
    kept = Player.objects.get(name="Filip").game
    assert (kept.table, kept.players.exclude(member=None).count()) == (None, 0)
    assert Table.objects.get().name == "Thursday cards"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop(FIELD), 'not a backup: no "backup" field (a plain export is for import_'),
        (lambda d: d[FIELD].update(view_token="short"), '"backup": "view_token" is not a token'),
        (lambda d: d[FIELD].update(created_at="Friday"), '"backup": "created_at" is not a date'),
        (lambda d: d.update(games=[thursday()["games"][0]]), '"games": a table\'s backup holds'),
        (lambda d: d.update(name=""), '"name": Enter a name.'),
    ],
)
def test_a_table_backup_is_checked_before_anything_is_made(two_tables, tmp_path, change, message):
    run("backup_games", tmp_path)
    table = two_tables[0]
    document = json.loads((tmp_path / "tables" / f"table-{table.pk}.json").read_text())
    change(document)
    Table.objects.all().delete()
    with pytest.raises(ExchangeError) as refused:
        restore_table(document)
    assert str(refused.value).startswith(message)
    assert not Table.objects.exists()
    assert not Member.objects.exists()


def test_a_table_token_taken_by_another_table_is_refused(two_tables, tmp_path):
    run("backup_games", tmp_path)
    table = two_tables[0]
    document = json.loads((tmp_path / "tables" / f"table-{table.pk}.json").read_text())
    document[FIELD]["edit_token"] = new_token()
    with pytest.raises(ExchangeError, match=r'^"backup": a token belongs to another table$'):
        restore_table(document)
    assert Table.objects.count() == 2


def test_a_game_file_with_wrong_table_fields_is_refused(two_tables, tmp_path):
    run("backup_games", tmp_path)
    game = Player.objects.get(name="Eva").game
    document = json.loads((tmp_path / f"game-{game.pk}.json").read_text())
    Game.objects.filter(pk=game.pk).delete()
    for fields, message in (
        ({"members": ["Eva", "Ana"]}, '"backup": "members" must give each player\'s member'),
        ({"members": "Ana"}, '"backup": "members" must give each player\'s member'),
        ({"table": 7}, '"backup": "table" is not a token'),
    ):
        wrong = json.loads(json.dumps(document))
        wrong[FIELD].update(fields)
        [outcome] = restore_batch([wrong])
        assert str(outcome) == message + (", or null" if "members" in fields else "")
    assert not Game.objects.filter(edit_token=game.edit_token).exists()


def test_a_batch_of_table_games_takes_two_queries_more_however_many_games(two_tables):
    """The tables and their members are read once per batch, not once per game."""
    chance = random.Random(3)
    token = two_tables[0].edit_token
    queries = []
    for count in (5, 100):
        documents = []
        for _ in range(count):
            document = random_backup(chance)
            document[FIELD]["table"] = token
            document[FIELD]["members"] = [None] * len(document["players"])
            documents.append(document)
        with CaptureQueriesContext(connection) as captured:
            outcomes = restore_batch(documents)
        assert all(outcome.table == two_tables[0] for outcome in outcomes)
        queries.append(len(captured))
    # (One of them asks which of the batch's games were deleted on request, one whether a
    # table has one of their tokens.)
    assert queries[0] <= 14
    assert queries[1] <= queries[0] + 4
