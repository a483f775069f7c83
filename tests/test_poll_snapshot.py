"""A live update is read in one snapshot (models.snapshot): a round saved by another phone
between two of the poll's reads is neither half in the answer nor lost from the next one.

The race, made to happen every time: the poll has read the game's version and its history
when, before it reads the rounds, another phone (another thread, with its own database
connection) saves a round. The answer must show the game as it was at the version it gives
the page, and the next poll, from that version, must bring the page to what a fresh load
shows. Run on SQLite (WAL: a reader keeps its snapshot while a writer commits) and, in CI, on
PostgreSQL (REPEATABLE READ).
"""

import threading

import pytest
from django.db import connection

from scoring.models import Game
from scoring.rules import Hand, RoundEntry
from tests.conftest import round_post, round_rows, totals
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db(transaction=True)

HTMX = {"HX-Request": "true"}


def poll(client, game: Game, version: int):
    return client.get(
        url("poll", game.edit_token), {"v": str(version), "shown": "playing"}, headers=HTMX
    )


def save_on_another_phone(game_pk: int) -> None:
    """A round saved through another database connection, as another request would."""

    def save():
        try:
            entry = RoundEntry(hands=(Hand(), Hand(value=7), Hand(value=9)), winner=0)
            Game.objects.get(pk=game_pk).record_round(entry, phone="another phone")
        finally:
            connection.close()

    thread = threading.Thread(target=save)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_a_save_between_the_reads_of_a_poll_is_in_the_next_one_and_never_half_in_this_one(
    client, monkeypatch
):
    game = Game.start(["Ana", "Boris", "Cyril"])
    page = url("game", game.edit_token)
    for boris in range(10):
        client.post(page, round_post(0, {1: 2 + boris, 2: 3}))
    seen = Game.objects.get(pk=game.pk).version
    client.post(page, round_post(1, {0: 4, 2: 5}))
    at_11 = client.get(page).content.decode()
    version_11 = Game.objects.get(pk=game.pk).version

    # The other phone's save lands right after the poll has read the history.
    changes_since = Game.changes_since
    saves = []

    def crossed(game, *args, **kwargs):
        answer = changes_since(game, *args, **kwargs)
        if not saves:
            saves.append(save_on_another_phone(game.pk))
        return answer

    monkeypatch.setattr(Game, "changes_since", crossed)
    answer = poll(client, game, seen).content.decode()
    assert saves and Game.objects.get(pk=game.pk).rounds.count() == 12
    # The answer is the game at round 11, as a page loaded then showed it, and says so.
    assert read(answer).one(".poller").get("hx-get").endswith(f"?v={version_11}")
    assert round_rows(answer) == round_rows(at_11)
    assert totals(answer) == totals(at_11)
    assert read(answer).one("#more-rounds a").text == "Show all 11 rounds"

    # The page's next poll, from there, brings round 12: the page equals a fresh one.
    monkeypatch.setattr(Game, "changes_since", changes_since)
    after = poll(client, game, version_11).content.decode()
    fresh = client.get(page).content.decode()
    assert round_rows(after) == round_rows(fresh) and len(round_rows(fresh)) == 8
    assert read(after).select("tr#round-12")
    assert totals(after) == totals(fresh)
    assert read(after).one("#more-rounds a").text == "Show all 12 rounds"
