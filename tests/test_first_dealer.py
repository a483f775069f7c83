"""Who deals the first round, chosen on the start form: a "deals first" radio button on each
name's row, the first one chosen unless another is."""

import re
from html import unescape

import pytest

from scoring.models import Game
from tests.conftest import round_post

pytestmark = pytest.mark.django_db


def chosen(html: str) -> list[str]:
    """The values of the "deals first" radio buttons that are checked."""
    return re.findall(r'name="first_dealer" value="(\d)" checked', html)


def game_page(client, game: Game) -> str:
    """The game page's text as read, without its tags."""
    html = client.get(f"/g/{game.edit_token}/").content.decode()
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_each_name_row_offers_deals_first_and_the_first_is_chosen(client):
    html = client.get("/").content.decode()
    assert html.count('name="first_dealer"') == 6
    assert html.count("> deals first</label>") == 6
    assert 'aria-label="Player 3 deals first"' in html
    assert chosen(html) == ["0"]


def test_the_chosen_player_deals_round_1_and_the_deal_moves_on_from_there(client):
    names = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril", "player_3": "Dana"}
    response = client.post("/", {**names, "first_dealer": "2"})
    assert response.status_code == 303
    game = Game.objects.get()
    assert game.first_dealer == 2
    assert "Round 1 · Cyril deals" in game_page(client, game)

    client.post(f"/g/{game.edit_token}/", round_post(0, {1: 5, 2: 6, 3: 7}))
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
    html = unescape(response.content.decode())
    assert response.status_code == 200
    assert Game.objects.count() == 0
    message = "The player chosen to deal first has no name: type one, or choose another dealer."
    assert html.count(message) == 1
    # Next to the fourth row: after its field, before the fifth.
    assert html.index('name="player_3"') < html.index(message) < html.index('name="player_4"')
    for name in ("Ana", "Boris", "Cyril"):
        assert f'value="{name}"' in html
    assert chosen(html) == ["3"]


def test_a_chosen_row_among_the_folded_ones_opens_them_to_show_the_error(client):
    response = client.post("/", {"player_0": "Ana", "player_1": "Boris", "first_dealer": "5"})
    html = response.content.decode()
    assert '<details class="more-players" open>' in html
    assert "has no name" in html
    assert chosen(html) == ["5"]


@pytest.mark.parametrize("choice", ["6", "-1", "Ana", "1.5"])
def test_a_choice_no_row_has_is_refused(client, choice):
    response = client.post("/", {"player_0": "Ana", "player_1": "Boris", "first_dealer": choice})
    html = response.content.decode()
    assert response.status_code == 200
    assert "Choose one of the players to deal first." in html
    assert 'value="Ana"' in html and 'value="Boris"' in html
    assert Game.objects.count() == 0


def test_the_choice_is_kept_when_a_name_is_refused(client):
    response = client.post(
        "/", {"player_0": "Ana", "player_1": "ana", "player_2": "Cyril", "first_dealer": "2"}
    )
    html = response.content.decode()
    assert "Two players have this name" in html
    assert chosen(html) == ["2"]
