"""This browser's recent games, on the start page, without accounts."""

import pytest
from django.utils.formats import date_format

from scoring.models import Game
from scoring.web import recent
from tests.conftest import round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db


def meta_lines(html: str) -> list[str]:
    """What the list says under each game's names, as read (times as the server writes them;
    rami.js puts them in the phone's time zone)."""
    return read(html).texts(".recent-meta")


def started(game: Game) -> str:
    return date_format(game.created_at, "DATETIME_FORMAT")


def test_games_opened_are_listed_newest_first_with_players_and_status(
    client, four_players, every_kind_game
):
    client.get(url("game", four_players.edit_token))
    client.get(url("view", every_kind_game.view_token))
    html = client.get("/").content.decode()
    assert "Ana, Boris, Cyril, Dana" in read(html).texts(".recent-names")
    first, second = (
        html.index(f"/v/{every_kind_game.view_token}/"),
        html.index(f"/g/{four_players.edit_token}/"),
    )
    assert first < second
    assert meta_lines(html) == [
        f"Ana won · 4 rounds · {started(every_kind_game)} · watch only",
        f"Playing · 0 rounds · {started(four_players)}",
    ]
    assert "Wins in your recent games" in read(html).text
    assert every_kind_game.edit_token not in html


def test_two_games_of_the_same_players_are_told_apart_by_rounds_winner_and_start(
    client, every_kind_game
):
    rematch = Game.start(every_kind_game.names, first_dealer=1)
    client.post(url("game", rematch.edit_token), round_post(0, {1: 5, 2: 6, 3: 7}))
    client.get(url("game", every_kind_game.edit_token))
    client.get(url("game", rematch.edit_token))
    html = client.get("/").content.decode()
    names = read(html).select(".recent-names")
    assert [each.text for each in names] == ["Ana, Boris, Cyril, Dana"] * 2
    # Each name isolated, as a name written right to left would need.
    assert [each.texts("bdi") for each in names] == [["Ana", "Boris", "Cyril", "Dana"]] * 2
    assert meta_lines(html) == [
        f"Playing · 1 round · {started(rematch)}",
        f"Ana won · 4 rounds · {started(every_kind_game)}",
    ]
    times = [time.get("datetime") for time in read(html).select(".recent-meta time.local-time")]
    assert rematch.created_at.isoformat() in times


def test_a_game_can_be_removed_from_the_list_and_stays(client, four_players):
    client.get(url("game", four_players.edit_token))
    response = client.post("/", {"action": "forget", "token": four_players.edit_token})
    assert response.status_code == 303
    assert four_players.edit_token not in client.get("/").content.decode()
    assert client.get(url("game", four_players.edit_token)).status_code == 200


def test_the_list_cannot_be_forged(client, four_players):
    client.cookies[recent.COOKIE] = f'[["g", "{four_players.edit_token}"]]'
    assert four_players.edit_token not in client.get("/").content.decode()


def test_an_edit_link_is_kept_over_a_view_link(client, four_players):
    client.get(url("game", four_players.edit_token))
    client.get(url("view", four_players.view_token))
    html = client.get("/").content.decode()
    assert f"/g/{four_players.edit_token}/" in html
    assert "watch only" not in html


def test_the_start_page_lists_recent_games_in_a_fixed_number_of_queries(
    client, four_players, every_kind_game, django_assert_max_num_queries
):
    client.get(url("game", four_players.edit_token))
    client.get(url("game", every_kind_game.edit_token))
    with django_assert_max_num_queries(4):
        assert client.get("/").status_code == 200
