"""Starting a game at /."""

import pytest

from scoring.models import Game
from tests.pages import read

pytestmark = pytest.mark.django_db


def test_start_page_offers_four_name_fields_and_two_more(client):
    html = client.get("/").content.decode()
    assert html.count('name="player_') == 6
    assert html.count('class="name-row"') == 6
    assert html.index('<details class="more-players">') < html.index('name="player_4"')
    assert html.index('name="player_3"') < html.index('<details class="more-players">')
    assert read(html).one("#target-line").text == "Target: 300 points with 4 players"


def test_starting_a_game_leads_to_its_page(client):
    response = client.post("/", {"player_0": "  Ana ", "player_1": "Boris", "player_3": "Dana"})
    game = Game.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/g/{game.edit_token}/"
    assert game.names == ["Ana", "Boris", "Dana"]


def test_starting_a_game_with_htmx_redirects_the_browser(client):
    response = client.post(
        "/", {"player_0": "Ana", "player_1": "Boris"}, headers={"HX-Request": "true"}
    )
    assert response["HX-Redirect"] == f"/g/{Game.objects.get().edit_token}/"


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({"player_0": "Ana"}, "A game has 2 to 6 players, not 1."),
        ({"player_0": "Ana", "player_1": "ANA "}, "Two players have this name"),
        ({"player_0": "Ana", "player_1": "B" * 31}, "A name has at most 30 characters."),
        ({"player_0": "Ana", "player_1": "\u00ad\u200b"}, "at least one letter, digit or sign"),
        ({"player_0": "Ana", "player_1": "An\u200ba"}, "Two players have this name"),
        ({"player_0": "Jos\u00e9", "player_1": "Jose\u0301"}, "Two players have this name"),
    ],
)
def test_bad_names_say_what_to_fix_and_keep_what_was_typed(client, names, message):
    response = client.post("/", names)
    shown = read(response)
    assert response.status_code == 200
    assert message in shown.text
    for field, value in names.items():
        assert shown.one(f"input[name={field}]").get("value") == value
    assert Game.objects.count() == 0


def test_six_names_typed_show_the_six_player_target_and_keep_the_extra_fields_open(client):
    shown = read(client.post("/", {f"player_{i}": name for i, name in enumerate("ABCDE" + "A")}))
    assert shown.one("details.more-players").get("open") is not None
    assert shown.one("#target-line").text == "Target: 500 points with 6 players"


def test_the_target_line_is_drawn_again_for_the_names_and_rules_typed(client):
    typed = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril", "rules_shown": "on"}
    line = client.post(
        "/",
        {**typed, "target_per_opponent": "150", "action": "target"},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert line == '<span class="target-for">Target: 300 points with 3 players</span>'
    fixed = client.post("/", {**typed, "target": "500", "action": "target"}).content.decode()
    assert fixed == '<span class="target-for">Target: 500 points with 3 players</span>'
    # A rule out of range: the players' documents' target until it is put right.
    wrong = client.post("/", {**typed, "target": "5", "action": "target"}).content.decode()
    assert wrong == '<span class="target-for">Target: 200 points with 3 players</span>'
    assert Game.objects.count() == 0


def test_a_start_form_sent_back_shows_the_target_under_the_rules_typed(client):
    html = client.post(
        "/", {"player_0": "Ana", "player_1": "ana", "rules_shown": "on", "target": "750"}
    ).content.decode()
    assert read(html).one("#target-line").text == "Target: 750 points with 2 players"
