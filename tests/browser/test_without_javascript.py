"""The same flows with JavaScript off: ordinary form posts and redirects."""

from playwright.sync_api import Page, expect

from tests.browser.game_steps import (
    choose_winner,
    expect_totals,
    hand,
    save,
    start_game,
    type_value,
)


def type_cards(page: Page, name: str, cards: str) -> None:
    hand(page, name).locator(".cards-text").fill(cards)


def test_a_whole_game_without_javascript(page_without_js: Page):
    page = page_without_js
    start_game(page, "Ana", "Boris", "Cyril")
    expect(hand(page, "Ana").locator(".picker")).to_be_hidden()

    choose_winner(page, "Ana")
    type_cards(page, "Boris", "AH JK 5C")
    type_value(page, "Cyril", 27)
    hand(page, "Cyril").get_by_label("Not opened yet").check()
    save(page)
    expect_totals(page, 0, 36, 52)

    # A mistake: the error says what to fix and what was typed stays.
    choose_winner(page, "Boris")
    type_cards(page, "Ana", "1X")
    type_value(page, "Cyril", 3)
    save(page)
    expect(hand(page, "Ana").locator(".field-error")).to_contain_text("Unknown card “1X”")
    expect(hand(page, "Ana").locator(".cards-text")).to_have_value("1X")
    type_cards(page, "Ana", "2C")
    save(page)
    expect_totals(page, 2, 36, 55)

    page.get_by_role("link", name="Edit round 2").click()
    type_cards(page, "Ana", "3C")
    save(page, "Save changes")
    expect_totals(page, 3, 36, 55)

    page.get_by_role("link", name="Edit round 2").click()
    page.get_by_role("button", name="Delete round 2").click()
    expect_totals(page, 0, 36, 52)
    page.get_by_role("button", name="Undo").click()
    expect_totals(page, 3, 36, 55)

    choose_winner(page, "Boris")
    page.get_by_label("Hand rummy").check()
    save(page)
    expect_totals(page, 203, 36, 255)
    expect(page.locator(".banner.winner")).to_contain_text("Boris wins the game!")
    page.get_by_role("button", name="Rematch").click()
    expect_totals(page, 0, 0, 0)
