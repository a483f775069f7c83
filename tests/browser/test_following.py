"""Three browsers at one table follow a rematch (issue 24): two phones on the players' link and
a watch-only laptop. One phone taps Rematch; the other phone and the laptop move to the new
game by themselves within one poll (every 2 s), each by its own link, saying "New game: …"."""

import re

import pytest
from playwright.sync_api import expect

from scoring.exchange import import_game
from tests.browser.conftest import PHONE
from tests.conftest import game_document

LAPTOP = {"viewport": {"width": 1366, "height": 768}}


@pytest.fixture
def opened(browser, live_server, static_from_the_source):
    """Open pages in browsers of their own (no shared cookies), closed at the end; no page
    may meet a script error."""
    contexts, errors = [], []

    def open_(path: str, **options):
        context = browser.new_context(base_url=live_server.url, **options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert errors == []


def test_two_phones_and_a_watching_laptop_follow_a_rematch(db, opened):
    game = import_game(game_document("every_kind"))
    tapping = opened(f"/g/{game.edit_token}/", **PHONE)
    other_phone = opened(f"/g/{game.edit_token}/", **PHONE)
    laptop = opened(f"/v/{game.view_token}/", **LAPTOP)
    for page in (tapping, other_phone, laptop):
        expect(page.locator(".banner.winner")).to_contain_text("Ana wins the game!")

    tapping.get_by_role("button", name="Rematch").click()
    expect(tapping.locator(".banner.notice")).to_have_text("New game: Ana, Boris, Cyril, Dana")
    rematch = game.__class__.objects.get(pk=game.pk).next_game

    # Within one poll (2 s) and its answer.
    expect(other_phone).to_have_url(re.compile(f"/g/{rematch.edit_token}/$"), timeout=3_000)
    expect(laptop).to_have_url(re.compile(f"/v/{rematch.view_token}/$"), timeout=3_000)
    for page in (other_phone, laptop):
        expect(page.locator(".banner.notice")).to_have_text("New game: Ana, Boris, Cyril, Dana")
        expect(page.locator(".total .sum")).to_have_text(["0", "0", "0", "0"])
    # The phones can enter round 1 at once; the laptop only watches.
    expect(other_phone.locator("#round-form")).to_be_visible()
    expect(laptop.locator("#round-form")).to_have_count(0)
    assert rematch.edit_token not in laptop.content()

    # And they stay there: the next polls of the new game change nothing.
    laptop.wait_for_timeout(2_500)
    assert laptop.url.endswith(f"/v/{rematch.view_token}/")
    expect(laptop.locator(".banner.notice")).to_have_count(1)
