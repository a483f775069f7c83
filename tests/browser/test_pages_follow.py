"""Every page of a game or a table follows it live in a real browser, as the board does: the
history shows a round saved on another phone, the players page keeps a name being typed while
the rest of it is drawn again, the rules page says when its game is deleted, a round's page
follows its round, and a page left open on a game that is rematched goes to the new one
(scoring/web/following.py, rami.js)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Game, Table
from scoring.rules import Hand, RoundEntry
from tests.browser.conftest import _page
from tests.links import url

GONE_LOGGED = re.compile(r"Failed to load resource: the server responded with a status of 404")


@pytest.fixture
def phone(browser, live_server, static_from_the_source) -> Page:
    """A phone with JavaScript, which fails the test on a script error or a console error
    (but the 404 of a page's live update once its game is deleted, which it says)."""
    context, page, errors = _page(browser, live_server)
    yield page
    context.close()
    assert [error for error in errors if not GONE_LOGGED.match(error)] == []


def played(game: Game, rounds: int = 1) -> Game:
    for _ in range(rounds):
        game.record_round(RoundEntry((Hand(), Hand(value=5), Hand(value=7)), winner=0))
    return Game.objects.get(pk=game.pk)


def test_the_history_shows_a_round_saved_on_another_phone(phone: Page):
    game = played(Game.start(["Ana", "Boris", "Cyril"]))
    phone.goto(url("history", game.edit_token))
    phone.evaluate("window.stillTheSamePage = true")
    expect(phone.locator("h2", has_text="Round 1 saved")).to_have_count(1)
    played(game)
    expect(phone.locator("h2", has_text="Round 2 saved")).to_have_count(1)
    assert phone.evaluate("window.stillTheSamePage") is True


def test_the_players_page_keeps_a_name_being_typed_through_a_live_update(phone: Page):
    game = played(Game.start(["Ana", "Boris", "Cyril"]))
    phone.goto(url("players", game.edit_token))
    name = phone.locator("#names-form input[name=name_0]")
    name.fill("Anastasia")
    Game.objects.get(pk=game.pk).rename_players({2: "Cyrillus"})
    # The page is drawn again (the seats' list names Cyrillus), the name typed stays.
    expect(phone.locator("#seating-form")).to_contain_text("Cyrillus")
    expect(name).to_have_value("Anastasia")
    # The form kept was drawn before the rename: Cyril's name, untouched here, stays Cyrillus.
    phone.get_by_role("button", name="Save the names").click()
    expect(phone.locator("#round-form .hand-name")).to_have_text(["Anastasia", "Boris", "Cyrillus"])


def test_the_rules_page_says_when_its_game_is_deleted(phone: Page):
    game = played(Game.start(["Ana", "Boris", "Cyril"]))
    phone.goto(url("view_rules", game.view_token))
    expect(phone.locator("html")).to_have_attribute("data-stream", "open")
    game.delete_on_request()
    expect(phone.locator("#page-notice")).to_contain_text(
        "This game is not on the server right now", timeout=10_000
    )


def test_a_rounds_page_follows_its_round_when_an_earlier_one_is_deleted(phone: Page):
    game = played(Game.start(["Ana", "Boris", "Cyril"]), 3)
    phone.goto(url("round", game.edit_token, number=3))
    expect(phone.locator("#entry-title")).to_have_text("Edit round 3")
    game.delete_round(game.rounds.get(number=1))
    expect(phone.locator("#entry-title")).to_have_text("Edit round 2")
    assert phone.url.endswith(url("round", game.edit_token, number=2))


def test_a_history_left_open_follows_the_rematch(phone: Page, every_kind_game):
    phone.goto(url("history", every_kind_game.edit_token))
    expect(phone.locator("html")).to_have_attribute("data-stream", "open")
    rematch = every_kind_game.rematch()
    expect(phone).to_have_url(re.compile(re.escape(url("game", rematch.edit_token)) + "$"))
    expect(phone.locator(".banner.notice")).to_have_text("New game: Ana, Boris, Cyril, Dana")


def test_the_tables_rules_page_says_when_its_table_is_deleted(phone: Page, db):
    table = Table.start("Friday", ["Ana", "Boris", "Cyril"])
    phone.goto(url("table_rules", table.edit_token))
    expect(phone.locator("html")).to_have_attribute("data-stream", "open")
    table.delete_on_request(with_games=True)
    expect(phone.locator("#page-notice")).to_contain_text(
        "This table is not on the server right now", timeout=10_000
    )
