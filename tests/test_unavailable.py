"""A database that cannot be reached (PostgreSQL down, SQLite locked beyond its timeout) is a
503 "try again in a moment" with Retry-After, never a bare 500, and saves nothing; an htmx save
gets the same answer, which htmx does not swap, so the form keeps what was typed and rami.js
says to tap Save again."""

import logging
import re
from pathlib import Path

import pytest
from django.db import InterfaceError, OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper

from rami_site.middleware import RETRY_AFTER_SECONDS
from scoring.models import Game, Round
from tests.conftest import round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

MESSAGE = "The score keeper cannot reach its database just now, so nothing was saved."
HTMX = {"HX-Request": "true"}


@pytest.fixture
def database_down(db, monkeypatch):
    """Every query fails as with a server that refuses connections; undone by `.undo()` (and
    after the test, before the test database is rolled back)."""

    def refuse(self):
        raise OperationalError("connection to server at 127.0.0.1, port 5432 failed")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)
    return monkeypatch


def assert_try_again(response):
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    shown = read(html)
    assert MESSAGE in shown.text
    assert shown.one("title").text == "Try again in a moment · Rami"
    # The site's own look, and nothing the strict CSP would refuse.
    stylesheet = shown.one('link[rel="stylesheet"]').get("href")
    assert re.fullmatch(r"/static/scoring/rami\.(\w+\.)?css", stylesheet), stylesheet
    assert "<script" not in html
    assert "style=" not in html


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_a_game_page_is_a_503_that_says_to_try_again(client, four_players, database_down, headers):
    response = client.get(url("game", four_players.edit_token), headers=headers)
    assert_try_again(response)


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_a_save_is_a_503_and_saves_nothing(client, four_players, database_down, headers):
    response = client.post(
        url("game", four_players.edit_token),
        round_post(0, {1: "AH 5C", 2: 10, 3: 4}),
        headers=headers,
    )
    assert_try_again(response)
    database_down.undo()
    assert not Round.objects.filter(game=four_players).exists()
    assert Game.objects.get(pk=four_players.pk).version == four_players.version


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_starting_a_game_is_a_503_and_starts_nothing(client, database_down, headers):
    response = client.post("/", {"player_0": "Ana", "player_1": "Boris"}, headers=headers)
    assert_try_again(response)
    database_down.undo()
    assert not Game.objects.exists()


def test_every_page_reached_by_a_token_is_a_503(client, every_kind_game, database_down):
    edit, view = every_kind_game.edit_token, every_kind_game.view_token
    for path in [
        url("round", edit, number=1),
        url("poll", edit) + "?v=0",
        url("history", edit),
        url("export_json", edit),
        url("view", view),
        url("view_poll", view) + "?v=0",
        url("view_export_csv", view),
    ]:
        assert_try_again(client.get(path))


def test_an_interface_error_is_a_503_too(client, four_players, monkeypatch):
    def closed(self):
        raise InterfaceError("connection already closed")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", closed)
    assert_try_again(client.get(url("view", four_players.view_token)))


def test_one_log_line_per_failed_request_without_the_token(
    client, four_players, database_down, caplog
):
    caplog.set_level(logging.INFO)
    client.get(url("game", four_players.edit_token))
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1, [r.getMessage() for r in records]
    (record,) = records
    assert (record.name, record.levelname, record.status_code) == (
        "rami_site.middleware",
        "ERROR",
        503,
    )
    assert "Database unavailable: GET" in record.getMessage()
    assert "OperationalError" in record.getMessage()
    assert record.exc_info is None  # one line, no traceback


def test_the_503_page_is_in_the_visitors_language(client, four_players, database_down):
    response = client.get(url("game", four_players.edit_token), headers={"Accept-Language": "cs"})
    assert response.status_code == 503
    assert '<html lang="cs">' in response.content.decode()


def test_the_health_check_keeps_its_own_plain_503(client, database_down):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.content == b"database unavailable"


def test_other_errors_are_still_500s(client, monkeypatch):
    from scoring.web import recent

    def broken(*args, **kwargs):
        raise RuntimeError("not the database")

    monkeypatch.setattr(recent, "games", broken)
    client.raise_request_exception = False
    assert client.get("/").status_code == 500


# With htmx the 503 is not swapped: the page carries the words rami.js shows instead.

ROOT = Path(__file__).resolve().parent.parent


def test_the_page_carries_the_messages_for_a_failed_save(client, four_players):
    shown = read(client.get(url("game", four_players.edit_token)))
    carrier = shown.one("[data-save-unreachable]")
    assert carrier.get("data-save-unreachable").startswith("The save could not reach the server.")
    assert carrier.get("data-save-busy").startswith(
        "The server is busy and the round was not saved."
    )
    # Where rami.js writes them: empty until then.
    assert shown.one("div#round-notice").text == ""


def test_the_script_shows_them_in_the_round_notice_on_an_htmx_error():
    script = (ROOT / "static" / "scoring" / "rami.js").read_text()
    assert 'addEventListener("htmx:sendError", saveFailed("saveUnreachable"))' in script
    assert 'addEventListener("htmx:responseError", saveFailed("saveBusy"))' in script
    assert 'querySelector("#round-notice")' in script
