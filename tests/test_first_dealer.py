"""Who deals the first round, chosen on the start form: a "deals first" radio button on each
name's row, the first one chosen unless another is."""

import pytest

from scoring.models import Game
from tests.conftest import round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db


def chosen(html: str) -> list[str]:
    """The values of the "deals first" radio buttons that are checked."""
    return [button.get("value") for button in read(html).select("input[name=first_dealer]:checked")]


def game_page(client, game: Game) -> str:
    """The game page's text as read."""
    return read(client.get(url("game", game.edit_token))).text


def test_each_name_row_offers_deals_first_and_the_first_is_chosen(client):
    html = client.get("/").content.decode()
    shown = read(html)
    buttons = shown.select("input[name=first_dealer]")
    assert [button.get("type") for button in buttons] == ["radio"] * 6
    assert shown.texts("label").count("deals first") == 6
    assert buttons[2].get("aria-label") == "Player 3 deals first"
    assert chosen(html) == ["0"]


def test_the_chosen_player_deals_round_1_and_the_deal_moves_on_from_there(client):
    names = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril", "player_3": "Dana"}
    response = client.post("/", {**names, "first_dealer": "2"})
    assert response.status_code == 303
    game = Game.objects.get()
    assert game.first_dealer == 2
    assert "Round 1 · Cyril deals" in game_page(client, game)

    client.post(url("game", game.edit_token), round_post(0, {1: 5, 2: 6, 3: 7}))
    assert "Round 2 · Dana deals" in game_page(client, game)


def test_the_choice_follows_its_row_when_a_row_above_is_left_empty(client):
    """Names in fields 1, 2 and 4: the fourth field's player sits at seat 3 (index 2)."""
    client.post(
        "/", {"player_0": "Ana", "player_1": "Boris", "player_3": "Dana", "first_dealer": 3}
    )
    game = Game.objects.get()
    assert game.names == ["Ana", "Boris", "Dana"]
    assert game.first_dealer == 2
    assert "Round 1 · Dana deals" in game_page(client, game)


def test_with_htmx_the_game_starts_with_the_chosen_dealer(client):
    response = client.post(
        "/",
        {"player_0": "Ana", "player_1": "Boris", "first_dealer": "1"},
        headers={"HX-Request": "true"},
    )
    game = Game.objects.get()
    assert response["HX-Redirect"] == f"/g/{game.edit_token}/"
    assert game.first_dealer == 1


def test_a_post_without_a_choice_lets_the_first_name_deal(client):
    client.post("/", {"player_1": "Boris", "player_2": "Cyril"})
    game = Game.objects.get()
    assert game.first_dealer == 0
    assert "Round 1 · Boris deals" in game_page(client, game)


def test_a_chosen_row_without_a_name_says_so_and_keeps_everything(client):
    typed = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril", "first_dealer": "3"}
    response = client.post("/", typed)
    html = response.content.decode()
    shown = read(html)
    assert response.status_code == 200
    assert Game.objects.count() == 0
    message = "The player chosen to deal first has no name: type one, or choose another dealer."
    assert shown.text.count(message) == 1
    # Next to the fourth row: after its field, before the fifth.
    assert html.index('name="player_3"') < html.index(message) < html.index('name="player_4"')
    typed_names = [shown.one(f"input[name=player_{seat}]").get("value") for seat in range(3)]
    assert typed_names == ["Ana", "Boris", "Cyril"]
    assert chosen(html) == ["3"]


def test_a_chosen_row_among_the_folded_ones_opens_them_to_show_the_error(client):
    response = client.post("/", {"player_0": "Ana", "player_1": "Boris", "first_dealer": "5"})
    html = response.content.decode()
    assert read(html).one("details.more-players").get("open") is not None
    assert "has no name" in read(html).text
    assert chosen(html) == ["5"]


@pytest.mark.parametrize("choice", ["6", "-1", "Ana", "1.5"])
def test_a_choice_no_row_has_is_refused(client, choice):
    response = client.post("/", {"player_0": "Ana", "player_1": "Boris", "first_dealer": choice})
    shown = read(response)
    assert response.status_code == 200
    assert "Choose one of the players to deal first." in shown.text
    typed_names = [shown.one(f"input[name=player_{seat}]").get("value") for seat in range(2)]
    assert typed_names == ["Ana", "Boris"]
    assert Game.objects.count() == 0


def test_the_choice_is_kept_when_a_name_is_refused(client):
    response = client.post(
        "/", {"player_0": "Ana", "player_1": "ana", "player_2": "Cyril", "first_dealer": "2"}
    )
    html = response.content.decode()
    assert "Two players have this name" in read(html).text
    assert chosen(html) == ["2"]
