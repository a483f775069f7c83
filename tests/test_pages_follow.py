"""Every page of a game or a table follows it live, as the board does (scoring/web/following.py):
the history, the players, a round, the game's rules from either link and the table's rules.
Each holds the stream of its game or table and asks for itself again with `?v=` the version it
shows: 204 while nothing changed, the page as a fresh load draws it once something has, a 404
once the game is deleted (the page then says it is gone), and the game played now once it has
been rematched. Page by page."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.live.stream import key_for
from scoring.models import Game, Table
from scoring.rules import Hand, RoundEntry
from tests.links import url
from tests.pages import read

HTMX = {"HX-Request": "true"}

GAME_GONE = "This game is not on the server right now"

# Each page of a game that follows it: its name in scoring/urls.py, and the token it takes.
PAGES = [
    ("history", "edit_token", {}),
    ("players", "edit_token", {}),
    ("round", "edit_token", {"number": 1}),
    ("game_rules", "edit_token", {}),
    ("view_rules", "view_token", {}),
]


def played(game: Game, rounds: int = 1) -> Game:
    for _ in range(rounds):
        game.record_round(RoundEntry((Hand(), Hand(value=5), Hand(value=7)), winner=0))
    return Game.objects.get(pk=game.pk)


def page_of(name: str, field: str, kwargs: dict, game: Game) -> str:
    return url(name, getattr(game, field), **kwargs)


def followed(client: Client, address: str):
    """The page and what it follows: its poller's address to ask again, and its stream's."""
    page = read(client.get(address))
    poller = page.one("#followed #poller")
    return page, poller.get("hx-get"), poller.get("data-live")


@pytest.fixture
def game(db) -> Game:
    return played(Game.start(["Ana", "Boris", "Cyril"]))


@pytest.mark.parametrize(("name", "field", "kwargs"), PAGES)
def test_a_page_of_a_game_holds_its_stream_and_draws_itself_again_after_a_change(
    client, game, name, field, kwargs
):
    address = page_of(name, field, kwargs, game)
    page, pull, live = followed(client, address)
    assert live == f"/live/{key_for('g', game.view_token)}?v={game.version}"
    assert pull.startswith(f"{address}?") and f"v={game.version}" in pull
    assert page.one("body").get("data-gone").startswith(GAME_GONE)
    assert client.get(pull, headers=HTMX).status_code == 204
    Game.objects.get(pk=game.pk).rename_players({1: "Bogdan"})
    again = client.get(pull, headers=HTMX)
    assert again.status_code == 200
    fresh = read(again).one("#followed")
    assert "Bogdan" in fresh.text or "Bogdan" in [
        field.get("value") for field in fresh.select("input")
    ]
    moved = fresh.one("#poller")
    assert f"v={Game.objects.get(pk=game.pk).version}" in moved.get("hx-get")
    # A link with `?v=` in it, opened as a page, is the page whole.
    assert client.get(pull).status_code == 200


@pytest.mark.parametrize(("name", "field", "kwargs"), PAGES)
def test_a_page_of_a_deleted_game_is_told_it_is_gone(client, game, name, field, kwargs):
    _page, pull, _live = followed(client, page_of(name, field, kwargs, game))
    game.delete_on_request()
    assert client.get(pull, headers=HTMX).status_code == 404


@pytest.mark.parametrize(("name", "field", "kwargs"), PAGES)
def test_a_page_of_a_rematched_game_goes_to_the_game_played_now(
    client, every_kind_game, name, field, kwargs
):
    game = every_kind_game
    _page, pull, _live = followed(client, page_of(name, field, kwargs, game))
    rematch = game.rematch()
    answer = client.get(pull, headers=HTMX)
    board = url("game" if field == "edit_token" else "view", getattr(rematch, field))
    assert answer["HX-Redirect"] == board
    assert read(client.get(board)).texts(".banner.notice") == ["New game: Ana, Boris, Cyril, Dana"]


def test_the_history_shows_a_round_saved_on_another_phone(client, game):
    _page, pull, _live = followed(client, url("history", game.edit_token))
    played(game)
    fresh = read(client.get(pull, headers=HTMX)).one("#followed")
    assert "Round 2 saved" in fresh.texts("h2")


def test_a_rounds_page_follows_its_round_when_it_moves_and_stays_when_it_is_deleted(client, game):
    game = played(game, 2)
    second = game.rounds.get(number=2)
    _page, pull, _live = followed(client, url("round", game.edit_token, number=2))
    assert f"round={second.pk}" in pull
    game.delete_round(game.rounds.get(number=1), "")
    answer = client.get(pull, headers=HTMX)
    assert answer["HX-Redirect"] == url("round", game.edit_token, number=1)
    _page, pull, _live = followed(client, answer["HX-Redirect"])
    Game.objects.get(pk=game.pk).delete_round(game.rounds.get(pk=second.pk), "")
    # Deleted: the page stays as it was, and its save says so (test_views_round).
    assert client.get(pull, headers=HTMX).status_code == 204


def test_the_tables_rules_page_follows_the_table(client, db):
    table = Table.start("Friday", ["Ana", "Boris", "Cyril"])
    address = url("table_rules", table.edit_token)
    _page, pull, live = followed(client, address)
    assert live.startswith(f"/live/{key_for('t', table.view_token)}?v=")
    assert client.get(pull, headers=HTMX).status_code == 204
    table.add_member("Dana")
    assert client.get(pull, headers=HTMX).status_code == 200
    table.delete_on_request(with_games=True)
    assert client.get(pull, headers=HTMX).status_code == 404


def test_a_refused_change_is_answered_with_a_page_that_does_not_follow(client, game):
    """The page of a refusal keeps what was typed: a live update would draw it away."""
    seen = {f"seen_{seat}": name for seat, name in enumerate(game.names)}
    refused = client.post(url("names", game.edit_token), {"name_0": "Ana", "name_1": "ana", **seen})
    assert "ana" in [field.get("value") for field in read(refused).select("input")]
    assert read(refused).select("#followed") == []
