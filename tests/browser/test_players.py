"""On a phone: start a game with a chosen first dealer, rename a player during the game and see
the new name on the board and in the history."""

import re

from playwright.sync_api import Page, expect

from scoring.models import Game
from scoring.rules import Hand, RoundEntry
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import expect_totals


def test_choose_the_dealer_rename_a_player_and_see_the_new_name(page: Page):
    page.goto("/")
    for index, name in enumerate(["Ana", "Boris", "Cyril"]):
        page.locator(f"#id_player_{index}").fill(name)
    page.get_by_label("Player 3 deals first").check()
    expect(page.get_by_label("Player 1 deals first")).not_to_be_checked()
    assert_accessible(page)
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    expect(page.locator("#entry-title")).to_have_text("Round 1 · Cyril deals")

    # A round played (the round form has browser tests of its own).
    Game.objects.get().record_round(
        RoundEntry(hands=(Hand(), Hand(value=12), Hand(value=7)), winner=0)
    )
    page.reload()
    expect_totals(page, 0, 12, 7)

    page.get_by_role("link", name="Names, seats and dealer").click()
    expect(page.get_by_role("heading", name="Names, seats and dealer")).to_be_visible()
    expect(page.get_by_label("Player 2")).to_have_value("Boris")
    assert_accessible(page)

    # A name already in the game is refused, and what was typed stays.
    page.get_by_label("Player 2").fill("ana")
    page.get_by_role("button", name="Save the names").click()
    expect(page.locator(".field-error")).to_have_text(
        "Two players have this name: make them different."
    )
    expect(page.get_by_label("Player 2")).to_have_value("ana")
    assert_accessible(page)

    page.get_by_label("Player 2").fill("Borislav")
    page.get_by_role("button", name="Save the names").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    expect(page.locator(".total .name")).to_have_text(["Ana", "Borislav", "Cyril"])
    expect_totals(page, 0, 12, 7)

    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", level=2).first).to_have_text("Boris is now called Borislav")
    expect(page.locator(".change-added th[scope=row]")).to_have_text(["Ana", "Boris", "Cyril"])
