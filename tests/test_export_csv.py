"""The CSV export, and both exports from the read-only link."""

import csv
import io
import json
import re

import pytest
from django.utils import translation

from scoring.files import rounds_csv
from scoring.files.exchange import export_game, import_game
from scoring.models import Game
from scoring.rules.card_names import read_typed
from tests.links import url

pytestmark = pytest.mark.django_db

HEADER = ["Round", "Kind", "Player", "Cards", "Hand value", "Opened", "Points", "Total"]


def parsed(response) -> list[list[str]]:
    """The rows a spreadsheet (or Python's csv module) reads from the file."""
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


def test_csv_has_a_row_per_round_and_player(client, every_kind_game):
    response = client.get(url("export_csv", every_kind_game.edit_token))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    # Named by the moment the game began, to the second: an evening's games apart.
    began = f"{every_kind_game.created_at:%Y-%m-%d-%H%M%S}"
    assert response["Content-Disposition"] == f'attachment; filename="rami-game-{began}.csv"'
    json_file = client.get(url("export_json", every_kind_game.edit_token))["Content-Disposition"]
    assert json_file == f'attachment; filename="rami-game-{began}.json"'
    assert parsed(response) == [
        HEADER,
        ["1", "normal", "Ana", "", "0", "yes", "0", "0"],
        ["1", "normal", "Boris", "AH JK 5C", "36", "yes", "36", "36"],
        ["1", "normal", "Cyril", "", "20", "no", "45", "45"],
        ["1", "normal", "Dana", "JK AH", "31", "yes", "31", "31"],
        # Dana's hand rummy: nobody else had opened, and their cards were not needed.
        ["2", "hand rummy", "Ana", "", "", "no", "200", "200"],
        ["2", "hand rummy", "Boris", "", "", "no", "200", "236"],
        ["2", "hand rummy", "Cyril", "", "", "no", "200", "245"],
        ["2", "hand rummy", "Dana", "", "0", "yes", "0", "31"],
        ["3", "normal", "Ana", "", "0", "yes", "0", "200"],
        ["3", "normal", "Boris", "", "64", "yes", "64", "300"],
        ["3", "normal", "Cyril", "", "10", "yes", "10", "255"],
        ["3", "normal", "Dana", "", "169", "yes", "169", "200"],
        # Boris reached 300 with Ana and Dana sharing the lowest total: a tie-break round.
        ["4", "blocked, tie-break", "Ana", "", "5", "yes", "0", "200"],
        ["4", "blocked, tie-break", "Boris", "", "7", "yes", "7", "307"],
        ["4", "blocked, tie-break", "Cyril", "9C 2D", "11", "yes", "11", "266"],
        ["4", "blocked, tie-break", "Dana", "5H 3H 2S", "10", "yes", "10", "210"],
    ]


def test_a_normal_tie_break_round_is_just_a_tie_break():
    document = {
        "players": ["Ana", "Boris"],
        "target": 100,
        "rounds": [
            {
                "winner": "Ana",
                "hands": {"Boris": {"value": 100}},
                "points": {"Ana": 0, "Boris": 100},
            },
            {
                "winner": "Boris",
                "hands": {"Ana": {"value": 100}},
                "points": {"Ana": 100, "Boris": 0},
            },
            {"winner": "Ana", "hands": {"Boris": {"value": 3}}, "points": {"Ana": 0, "Boris": 3}},
        ],
    }
    kinds = [row[1] for row in rounds_csv.rows(document)[1::2]]
    assert kinds == ["normal", "normal", "tie-break"]


def formula_game() -> Game:
    return import_game(
        {
            "format": "rami-game/1",
            "players": ['=HYPERLINK("x")', "+1+1", "-2+3", "@SUM(A1)"],
            "rounds": [
                {
                    "winner": '=HYPERLINK("x")',
                    "hands": {
                        "+1+1": {"value": 5},
                        "-2+3": {"cards": ["KH"]},
                        "@SUM(A1)": {"value": 2},
                    },
                }
            ],
        }
    )


@pytest.mark.parametrize("link", ["g/{game.edit_token}", "v/{game.view_token}"])
def test_no_cell_becomes_a_formula(client, link):
    game = formula_game()
    rows = parsed(client.get(f"/{link.format(game=game)}/export.csv"))
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    assert [row[2] for row in rows[1:]] == ['\'=HYPERLINK("x")', "'+1+1", "'-2+3", "'@SUM(A1)"]
    assert rows[2][4:] == ["5", "yes", "5", "5"]  # numbers stay numbers


def test_tab_and_carriage_return_starts_are_made_inert_too():
    assert rounds_csv.inert("\tcmd") == "'\tcmd"
    assert rounds_csv.inert("\r=1") == "'\r=1"
    assert rounds_csv.inert("Ana-Maria") == "Ana-Maria"
    assert rounds_csv.inert(-1) == -1


def test_names_in_any_script_survive_the_round_trip(client):
    game = import_game(
        {
            "format": "rami-game/1",
            "players": ["Šárka", "Гошо"],
            "rounds": [{"winner": "Šárka", "hands": {"Гошо": {"cards": ["QS"]}}}],
        }
    )
    rows = parsed(client.get(url("view_export_csv", game.view_token)))
    assert [row[2] for row in rows[1:]] == ["Šárka", "Гошо"]


def test_view_link_exports_the_same_without_the_edit_token(client, every_kind_game):
    edit_csv = client.get(url("export_csv", every_kind_game.edit_token))
    view_csv = client.get(url("view_export_csv", every_kind_game.view_token))
    view_json = client.get(url("view_export_json", every_kind_game.view_token))
    assert view_csv.status_code == view_json.status_code == 200
    assert view_csv.content == edit_csv.content
    assert view_json["Content-Type"] == "application/json"
    assert json.loads(view_json.content) == export_game(every_kind_game)
    for response in (view_csv, view_json):
        assert every_kind_game.edit_token.encode() not in response.content
        assert every_kind_game.view_token.encode() not in response.content


@pytest.mark.parametrize(
    "path",
    [
        "g/{game.view_token}/export.csv",
        "v/{game.edit_token}/export.csv",
        "v/{game.edit_token}/export.json",
        "v/unknown/export.json",
    ],
)
def test_a_token_of_the_wrong_kind_is_404(client, every_kind_game, path):
    response = client.get("/" + path.format(game=every_kind_game))
    assert response.status_code == 404


def test_exports_answer_get_only(client, every_kind_game):
    response = client.post(url("view_export_csv", every_kind_game.view_token))
    assert response.status_code == 405


def test_a_blocked_round_says_nobody_went_out(client, every_kind_game):
    """Round 4 of every_kind is blocked: its kind says so, and no cell calls the lowest hand
    (Ana's, 0 points) "out"."""
    rows = parsed(client.get(url("export_csv", every_kind_game.edit_token)))
    blocked = [row for row in rows if row[0] == "4"]
    assert {row[1] for row in blocked} == {"blocked, tie-break"}
    assert [row[6] for row in blocked] == ["0", "7", "11", "10"]
    for row in rows:
        assert not any(re.search(r"\bout\b", cell, re.IGNORECASE) for cell in row), row


@pytest.mark.parametrize(
    ("language", "boris", "cyril"),
    [("en", "AH JK 5C", "9C 2D"), ("sv", "EH JK 5C", "9C 2D"), ("cs", "AH JK 5C", "9C 2D")],
)
def test_the_cards_are_written_as_the_languages_players_type_them(
    client, every_kind_game, language, boris, cyril
):
    # Swedish packs print E, Kn and D (the round form's keys): the spreadsheet says "EH", and
    # the round form's field reads it back as the ace of hearts.
    response = client.get(
        url("export_csv", every_kind_game.edit_token), headers={"accept-language": language}
    )
    text = response.content.decode("utf-8").removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text), delimiter="," if language == "en" else ";"))
    cards = {(row[0], row[2]): row[3] for row in rows[1:]}
    assert cards[("1", "Boris")] == boris
    assert cards[("4", "Cyril")] == cyril
    with translation.override(language):
        assert read_typed(boris) == ["AH", "JK", "5C"]
