"""rami-table/1 (docs/formats.md): export, import through the game importer, the commands, and every
kind of bad file refused in one line with nothing created."""

import copy
import io
import json
import sys

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from scoring import rules
from scoring.board import standings as tables
from scoring.files import exchange, table_file
from scoring.files.exchange import ExchangeError, export_game
from scoring.models import Game, Member, Player, Table
from scoring.rules import Hand, RoundEntry
from tests.conftest import GAMES, thursday
from tests.links import url

pytestmark = pytest.mark.django_db


def test_the_export_of_the_worked_example_states_its_standings(thursday_table):
    exported = exchange.export_table(thursday_table)
    assert exported["format"] == "rami-table/1"
    assert (exported["name"], exported["members"]) == (
        "Thursday cards",
        ["Ana", "Boris", "Cyril", "Dana"],
    )
    assert {
        name: (standing["games"], standing["wins"], standing["average_total"])
        for name, standing in exported["standings"].items()
    } == {
        "Ana": (2, 1, 130.0),
        "Boris": (3, 0, 166.7),
        "Cyril": (2, 1, 125.0),
        "Dana": (2, 1, 121.0),
    }
    # Each game as its own export (the computed fields with it), and when it began.
    games = thursday_table.games.order_by("created_at")
    assert exported["games"] == [
        {**export_game(game), "started": started}
        for game, started in zip(
            games,
            ["2026-11-05T19:30:00Z", "2026-11-12T19:30:00Z", "2026-11-19T19:30:00Z"],
            strict=True,
        )
    ]
    assert [game["winner"] for game in exported["games"]] == ["Ana", "Dana", "Cyril"]
    assert exported["rules"] == rules.SEEDS.document()


def a_table_with_everything() -> Table:
    """House rules, a guest, a renamed member, an unfinished game and one not begun."""
    table = exchange.import_table(thursday())
    Table.objects.filter(pk=table.pk).update(house_rules={"joker": 25})
    table.refresh_from_db()
    ana, boris, *_ = table.members.all()
    game = table.new_game([ana, "Eva", boris])
    game.record_round(
        RoundEntry(hands=(Hand(), Hand(cards=("JK", "5C")), Hand(value=7, opened=False)), winner=0)
    )
    table.new_game([boris, "Eva"])
    table.rename_member(boris, "Borek")
    return table


def test_export_import_export_is_the_identity():
    # rami-table/1 holds no token, so there is nothing to leave out of the comparison.
    first = exchange.export_table(a_table_with_everything())
    assert first["rules"]["joker"] == 25
    assert [game["status"] for game in first["games"]][-2:] == ["playing", "playing"]
    again = exchange.import_table(copy.deepcopy(first))
    assert exchange.export_table(again) == first
    # The guest stays a guest, the members are linked.
    assert set(
        Player.objects.filter(game__table=again, member=None).values_list("name", flat=True)
    ) == {"Eva"}
    assert Player.objects.filter(game__table=again, member__name="Borek").count() == 5


def test_the_standings_of_a_file_are_computed_again_not_read():
    document = thursday()
    document["standings"] = {"Ana": {"games": 99, "wins": 99, "average_total": 0.0}}
    exported = exchange.export_table(exchange.import_table(document))
    assert exported["standings"]["Ana"]["games"] == 2


def test_games_are_ordered_by_started_and_without_it_kept_in_the_order_given():
    document = thursday()
    first, second, third = document["games"]
    second.pop("started")
    document["games"] = [second, third, first]
    table = exchange.import_table(document)
    assert [[player.name for player in result.players] for result in tables.results(table)] == [
        ["Ana", "Boris", "Cyril"],
        ["Boris", "Cyril", "Dana"],
        ["Ana", "Boris", "Dana"],
    ]


def test_a_time_without_its_zone_is_taken_as_utc():
    document = thursday()
    document["games"][0]["started"] = "2026-11-05T19:30:00"
    exported = exchange.export_table(exchange.import_table(document))
    assert exported["games"][0]["started"] == "2026-11-05T19:30:00Z"


def test_a_player_is_linked_to_the_member_of_their_name_in_any_case():
    document = thursday()
    document["games"][0]["players"] = ["ANA", "Boris", "Cyril"]
    document["games"][0]["rounds"][0]["winner"] = "ANA"
    table = exchange.import_table(document)
    ana = table.members.get(name="Ana")
    assert Player.objects.filter(member=ana).count() == 2


# Bad files


def thursday_with(change) -> dict:
    document = thursday()
    change(document)
    return document


def set_in(path, value):
    def change(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


BAD_FILES = [
    ([1, 2], 'the file must hold one JSON object with "format": "rami-table/1"'),
    (
        json.loads((GAMES / "every_kind.json").read_text()),
        '"format" must be "rami-table/1", not "rami-game/1"',
    ),
    (thursday_with(set_in(["name"], None)), '"name" must be the table\'s name'),
    (thursday_with(set_in(["name"], "x" * 61)), '"name": A name has at most 60 characters.'),
    (thursday_with(set_in(["members"], "Ana, Boris")), '"members" must be a list of 1 to 30'),
    (thursday_with(set_in(["members"], [])), '"members": A table has 1 to 30 members, not 0.'),
    (thursday_with(set_in(["members"], ["Ana", 7])), '"members": 7 is not a name'),
    (
        thursday_with(set_in(["members"], ["Ana", "Boris", "ANA"])),
        '"members": "ANA": Two members have this name: make them different.',
    ),
    (
        thursday_with(set_in(["members"], ["Ana", "\u202e"])),
        '"members": "\\u202e": A name needs at least one letter, digit or sign.',
    ),
    (thursday_with(set_in(["rules"], {"jokers": 25})), '"rules": unknown key "jokers"'),
    (
        thursday_with(set_in(["rules"], {"joker": 500})),
        '"rules": "joker": Give a whole number from 0 to 100, not “500”.',
    ),
    (thursday_with(set_in(["games"], {"1": {}})), '"games" must be a list of rami-game/1'),
    (thursday_with(set_in(["games", 1], "Ana won")), 'game 2: a game must be a "rami-game/1"'),
    (
        thursday_with(set_in(["games", 1, "rounds", 0, "hands", "Dana", "cards"], ["KH", "1X"])),
        'game 2, round 1, player "Dana": Unknown card “1X”',
    ),
    (
        thursday_with(set_in(["games", 2, "rounds", 1, "winner"], "Ana")),
        'game 3, round 2: "winner": unknown player "Ana"',
    ),
    (
        thursday_with(set_in(["games", 0, "players"], ["Ana", "Boris", "ana"])),
        'game 1, player "ana": Two players have this name',
    ),
    (
        thursday_with(set_in(["games", 0, "format"], "rami-game/2")),
        'game 1: "format" must be "rami-game/1", not "rami-game/2"',
    ),
    (
        thursday_with(set_in(["games", 2, "started"], "last Thursday")),
        'game 3: "started" must be a date and time (ISO 8601) from the year 1900 to 2999, '
        'not "last Thursday"',
    ),
    (
        thursday_with(set_in(["games"], [thursday()["games"][0]] * (exchange.MAX_GAMES + 1))),
        f"a table has at most {exchange.MAX_GAMES} games",
    ),
]


@pytest.mark.parametrize(("document", "message"), BAD_FILES)
def test_a_bad_file_is_refused_in_one_line_saying_what_and_where(document, message, tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CommandError) as caught:
        call_command("import_table", str(path))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    assert not Table.objects.exists()
    assert not Game.objects.exists()
    assert not Member.objects.exists()


def test_a_file_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "table.json"
    path.write_text('{"format": "rami-table/1",')
    with pytest.raises(CommandError, match=r"^not a JSON file: .* line 1, column 27$"):
        call_command("import_table", str(path))
    assert not Table.objects.exists()


def test_a_missing_file_is_named():
    with pytest.raises(CommandError, match=r"^cannot read /nowhere/table.json: No such file"):
        call_command("import_table", "/nowhere/table.json")


def test_a_game_that_fails_late_leaves_nothing_behind(monkeypatch):
    """A failure while the games are made (here the third) leaves no table and removes the
    games made before it (tests/test_import_batches.py: in their own transactions too)."""
    made = []
    real = exchange.make_game

    def failing(parsed, **options):
        if len(made) == 2:
            raise ExchangeError("the disk is full")
        made.append(parsed)
        return real(parsed, **options)

    monkeypatch.setattr(table_file, "make_game", failing)
    with pytest.raises(ExchangeError):
        exchange.import_table(thursday())
    assert not Table.objects.exists()
    assert not Game.objects.exists()


# The commands


def test_import_table_prints_the_edit_link_and_export_table_prints_the_document(capsys):
    call_command("import_table", str(GAMES / "thursday_cards.json"))
    table = Table.objects.get()
    assert capsys.readouterr().out == f"/t/{table.edit_token}/\n"
    call_command("export_table", table.edit_token)
    assert json.loads(capsys.readouterr().out) == exchange.export_table(table)
    # The link's path is taken as well as the bare token.
    call_command("export_table", url("table", table.edit_token))
    assert json.loads(capsys.readouterr().out)["name"] == "Thursday cards"


def test_import_table_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BytesIO((GAMES / "thursday_cards.json").read_bytes()))
    )
    call_command("import_table", "-")
    table = Table.objects.get()
    assert capsys.readouterr().out.strip() == f"/t/{table.edit_token}/"
    assert table.games.count() == 3


def test_export_table_of_an_unknown_token_says_so(thursday_table):
    with pytest.raises(CommandError, match=r"^no table has this edit token$"):
        call_command("export_table", thursday_table.view_token)
