"""A hostile file given to a command (import_game, import_table, restore_games) is answered
with one line naming the place, never a traceback: numbers and dates are bounded before they
are converted, and restore_games names a bad file, skips it and restores the rest."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from scoring.files.exchange import dumps
from scoring.models import Game, Member, Table
from tests.conftest import GAMES, game_document, thursday
from tests.test_backup import random_backup

pytestmark = pytest.mark.django_db

HUGE = "9" * 5000  # past Python's 4,300 digits for int(): a ValueError without the bound
# The first day of the calendar, east of UTC: an OverflowError once taken to UTC.
TOO_EARLY = "0001-01-01T00:00:00+05:00"
TOO_LATE = "9999-12-31T23:00:00-05:00"


def with_raw(document: dict, placeholder: str, raw: str) -> str:
    """The document as JSON text, `placeholder` (a string in it) replaced by raw JSON."""
    return json.dumps(document).replace(json.dumps(placeholder), raw)


def refused(command: str, text: str, tmp_path) -> str:
    path = tmp_path / "file.json"
    path.write_text(text)
    with pytest.raises(CommandError) as caught:
        call_command(command, str(path))
    message = str(caught.value)
    assert "\n" not in message
    assert not Game.objects.exists()
    assert not Table.objects.exists()
    return message


def a_game_with_a_hand_value(raw: str) -> str:
    document = game_document("every_kind")
    document["rounds"][0]["hands"] = {"Boris": {"value": "HERE"}}
    return with_raw(document, "HERE", raw)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (HUGE, "not a JSON file: a number of 5000 digits at line 1, column "),
        ("-" + HUGE, "not a JSON file: a number of 5000 digits at line 1, column "),
        ("1" + "0" * 5000 + ".5", "not a JSON file: a number of 5003 characters at line 1"),
        ("1e999", "not a JSON file: a number too large (1e999) at line 1"),
        ("NaN", "not a JSON file: NaN is not a number at line 1"),
        ("-Infinity", "not a JSON file: -Infinity is not a number at line 1"),
    ],
)
def test_import_game_bounds_every_number_before_converting_it(raw, message, tmp_path):
    assert refused("import_game", a_game_with_a_hand_value(raw), tmp_path).startswith(message)


def test_a_long_number_under_the_bound_is_refused_by_its_field_as_before(tmp_path):
    message = refused("import_game", a_game_with_a_hand_value("9" * 20), tmp_path)
    assert message.startswith('round 1, player "Boris": ')


def test_import_table_bounds_numbers_too(tmp_path):
    document = thursday()
    document["rules"] = {"joker": "HERE"}
    message = refused("import_table", with_raw(document, "HERE", HUGE), tmp_path)
    assert message.startswith("not a JSON file: a number of 5000 digits at line 1, column ")
    assert not Member.objects.exists()


@pytest.mark.parametrize("started", [TOO_EARLY, TOO_LATE, "1899-12-31T23:59:59Z"])
def test_import_table_refuses_a_start_outside_the_calendar_it_keeps(started, tmp_path):
    document = thursday()
    document["games"][1]["started"] = started
    message = refused("import_table", json.dumps(document), tmp_path)
    assert message == (
        'game 2: "started" must be a date and time (ISO 8601) from the year 1900 to 2999, '
        f'not "{started}"'
    )


def test_a_start_at_the_edge_of_the_calendar_is_kept(tmp_path):
    document = thursday()
    document["games"][0]["started"] = "1900-01-01T00:00:00+05:00"
    document["games"][1]["started"] = "2999-12-31T23:59:59-05:00"
    path = tmp_path / "table.json"
    path.write_text(json.dumps(document))
    call_command("import_table", str(path), stdout=StringIO())
    assert Table.objects.get().games.count() == 3


def backup_folder(tmp_path, count: int = 4):
    """A backup folder of `count` random games, by edit token."""
    import random

    chance = random.Random(21)
    documents = {}
    for minutes in range(count):
        document = random_backup(chance, minutes=minutes)
        token = document["backup"]["edit_token"]
        (tmp_path / f"{token}.json").write_text(dumps(document))
        documents[token] = document
    return documents


def restore_with_one_bad(tmp_path, bad_token: str, text: str) -> tuple[str, str]:
    (tmp_path / f"{bad_token}.json").write_text(text)
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("restore_games", str(tmp_path), stdout=out, stderr=err)
    assert str(caught.value) == f"not restored: {bad_token}.json"
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("created_at", [TOO_EARLY, TOO_LATE])
def test_restore_games_names_a_file_with_a_date_out_of_range_and_restores_the_rest(
    created_at, tmp_path
):
    documents = backup_folder(tmp_path)
    bad_token, bad = next(iter(documents.items()))
    bad["backup"]["created_at"] = created_at
    out, err = restore_with_one_bad(tmp_path, bad_token, dumps(bad))
    assert out == "3 games restored, 0 already there\n"
    assert err == (
        f'{bad_token}.json: "backup": "created_at" is not a date and time from the year 1900 '
        "to 2999\n"
    )
    assert Game.objects.count() == 3


def test_restore_games_names_a_file_with_a_huge_number_and_restores_the_rest(tmp_path):
    documents = backup_folder(tmp_path)
    bad_token, bad = next(iter(documents.items()))
    bad["backup"]["first_dealer"] = "HERE"
    out, err = restore_with_one_bad(tmp_path, bad_token, with_raw(bad, "HERE", HUGE))
    assert out == "3 games restored, 0 already there\n"
    assert err.startswith(f"{bad_token}.json: not a JSON file: a number of 5000 digits at line")
    assert Game.objects.count() == 3


def test_restore_games_names_a_table_with_a_date_out_of_range(thursday_table, tmp_path):
    call_command("backup_games", str(tmp_path), stdout=StringIO())
    Table.objects.all().delete()
    Game.objects.all().delete()
    (path,) = (tmp_path / "tables").glob("*.json")  # the one table's file
    document = json.loads(path.read_text())
    document["backup"]["created_at"] = TOO_EARLY
    path.write_text(json.dumps(document))
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match=r"^not restored: tables/"):
        call_command("restore_games", str(tmp_path), stdout=out, stderr=err)
    assert err.getvalue().startswith(f'tables/{path.name}: "backup": "created_at" is not a date')
    # Its games come back outside any table.
    assert "3 games restored" in out.getvalue()


def test_the_example_files_still_import(tmp_path):
    call_command("import_game", str(GAMES / "every_kind.json"), stdout=StringIO())
    call_command("import_table", str(GAMES / "thursday_cards.json"), stdout=StringIO())
    assert Game.objects.count() == 4
