"""Following the game: when a game is rematched, every page that was on it moves to
the new game by its next poll, the players' phones by the players' link and the watchers by the
watch-only link, and the new page says "New game: …" once."""

from __future__ import annotations

import json

from django.test import Client
from django.utils import translation

from scoring.files.exchange import import_game
from scoring.models import Game
from scoring.rules import Hand, RoundEntry
from tests.conftest import game_document
from tests.links import url
from tests.pages import read

HTMX = {"HX-Request": "true"}


def poll(client, game: Game, version: int, editable: bool = True):
    link, token = ("g", game.edit_token) if editable else ("v", game.view_token)
    return client.get(f"/{link}/{token}/poll?v={version}&shown=finished", headers=HTMX)


def notices(response) -> list[str]:
    return read(response).texts(".banner.notice")


# The model: the game played now.


def test_the_game_played_now_is_the_newest_rematch_of_the_chain(every_kind_game):
    assert every_kind_game.played_now() == every_kind_game
    second = every_kind_game.rematch()
    assert every_kind_game.played_now() == second
    assert second.played_now() == second


# The players' link and the watch-only link.


def test_a_players_phone_on_the_game_goes_to_the_rematch_by_its_next_poll(client, every_kind_game):
    seen = every_kind_game.version
    rematch = every_kind_game.rematch()
    answer = poll(client, every_kind_game, seen)
    assert answer.status_code == 200
    assert answer["HX-Redirect"] == f"/g/{rematch.edit_token}/"
    arrived = client.get(answer["HX-Redirect"])
    assert notices(arrived) == ["New game: Ana, Boris, Cyril, Dana"]
    # Said once: the page drawn again (a reload) says nothing more.
    assert notices(client.get(answer["HX-Redirect"])) == []


def test_a_watcher_goes_by_the_watch_only_link_and_never_learns_the_edit_token(
    client, every_kind_game
):
    seen = every_kind_game.version
    rematch = every_kind_game.rematch()
    answer = poll(client, every_kind_game, seen, editable=False)
    assert answer["HX-Redirect"] == f"/v/{rematch.view_token}/"
    arrived = client.get(answer["HX-Redirect"])
    assert notices(arrived) == ["New game: Ana, Boris, Cyril, Dana"]
    for response in (answer, arrived):
        assert rematch.edit_token not in response.content.decode()
        assert every_kind_game.edit_token not in response.content.decode()


def test_a_page_opened_after_the_rematch_stays_on_the_game_it_shows(client, every_kind_game):
    every_kind_game.rematch()
    every_kind_game.refresh_from_db()
    # Someone looks at last week's game: its poll, from the version after the rematch, stays.
    assert poll(client, every_kind_game, every_kind_game.version).status_code == 204
    page = client.get(url("game", every_kind_game.edit_token))
    assert "Next game" in read(page).text and notices(page) == []


def test_a_page_two_rematches_behind_goes_to_the_game_played_now(client, every_kind_game):
    seen = every_kind_game.version
    second = every_kind_game.rematch()
    # Ana makes hand rummy twice: 400 each for the others, past the target of 300.
    hand_rummy = RoundEntry(hands=(Hand(), *[Hand(opened=False)] * 3), winner=0, hand_rummy=True)
    second.record_round(hand_rummy)
    second.record_round(hand_rummy)
    third = second.rematch()
    answer = poll(client, every_kind_game, seen)
    assert answer["HX-Redirect"] == f"/g/{third.edit_token}/"


def test_the_phone_that_tapped_rematch_is_told_too(client, every_kind_game):
    answer = client.post(
        url("game", every_kind_game.edit_token), {"action": "rematch"}, follow=True
    )
    assert notices(answer) == ["New game: Ana, Boris, Cyril, Dana"]


def test_the_new_game_notice_escapes_names_and_speaks_the_phones_language(client, db):
    document = json.dumps(game_document("every_kind")).replace('"Ana"', '"<b>Ana</b>"')
    game = import_game(json.loads(document))
    seen = game.version
    game.rematch()
    with translation.override("cs"):
        answer = client.get(
            url("poll", game.edit_token) + f"?v={seen}", headers={**HTMX, "Accept-Language": "cs"}
        )
    arrived = client.get(answer["HX-Redirect"], headers={"Accept-Language": "cs"})
    html = arrived.content.decode()
    assert "<b>Ana</b>" not in html and "&lt;b&gt;Ana&lt;/b&gt;" in html
    assert notices(arrived) == ["Nová hra: <b>Ana</b>, Boris, Cyril, Dana"]


# Told once, whichever request comes first (scoring.web.notices): the phone that taps Rematch may
# have a live update of the old game on its way, which sees the rematch too.


def test_a_poll_answered_after_the_tap_adds_no_second_notice(client, every_kind_game):
    seen = every_kind_game.version
    tapped = client.post(url("game", every_kind_game.edit_token), {"action": "rematch"})
    # The poll goes with the cookies the tap's answer left, before the new page is asked for.
    answer = poll(client, every_kind_game, seen)
    assert answer["HX-Redirect"] == tapped["Location"]
    assert notices(client.get(tapped["Location"])) == ["New game: Ana, Boris, Cyril, Dana"]
    assert notices(client.get(answer["HX-Redirect"])) == []


def test_a_poll_sent_before_the_tap_and_answered_after_the_new_page_says_nothing(
    client, every_kind_game
):
    seen = every_kind_game.version
    client.get(url("game", every_kind_game.edit_token))
    cookies_before_the_tap = client.cookies.output(header="", sep=";")
    arrived = client.post(
        url("game", every_kind_game.edit_token), {"action": "rematch"}, follow=True
    )
    assert notices(arrived) == ["New game: Ana, Boris, Cyril, Dana"]
    # The old poll carried the cookies of before the tap; its answer's cookies reach the phone.
    late = Client()
    late.cookies.load(cookies_before_the_tap)
    answer = poll(late, every_kind_game, seen)
    client.cookies.update(answer.cookies)
    assert notices(client.get(answer["HX-Redirect"])) == []
    assert notices(client.get(answer["HX-Redirect"])) == []


def test_the_players_and_the_watchers_link_on_one_phone_tell_it_once(client, every_kind_game):
    seen = every_kind_game.version
    every_kind_game.rematch()
    to_play = poll(client, every_kind_game, seen)
    to_watch = poll(client, every_kind_game, seen, editable=False)
    assert notices(client.get(to_play["HX-Redirect"])) == ["New game: Ana, Boris, Cyril, Dana"]
    assert notices(client.get(to_watch["HX-Redirect"])) == []


def test_a_phone_told_of_one_rematch_is_told_of_the_next(client, every_kind_game):
    seen = every_kind_game.version
    second = every_kind_game.rematch()
    assert notices(client.get(poll(client, every_kind_game, seen)["HX-Redirect"])) == [
        "New game: Ana, Boris, Cyril, Dana"
    ]
    hand_rummy = RoundEntry(hands=(Hand(), *[Hand(opened=False)] * 3), winner=0, hand_rummy=True)
    second.record_round(hand_rummy)
    second.record_round(hand_rummy)
    second.refresh_from_db()
    seen = second.version
    second.rematch()
    assert notices(client.get(poll(client, second, seen)["HX-Redirect"])) == [
        "New game: Ana, Boris, Cyril, Dana"
    ]
