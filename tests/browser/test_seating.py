"""On a phone: change the seating order and who deals next from the players page during a game,
play on, and see each round's dealer and the next one."""

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import choose_winner, save, start_game, type_value

NAMES = ("Ana", "Boris", "Cyril", "Dana")


def play_round(page: Page) -> None:
    """Ana goes out; the others hold a few points."""
    choose_winner(page, "Ana")
    for name, value in (("Boris", 5), ("Cyril", 6), ("Dana", 7)):
        type_value(page, name, value)
    save(page)


def dealt(page: Page) -> list[str]:
    """Who dealt each round the table shows, newest first."""
    return page.locator("tr[id^=round-] .dealt").all_inner_texts()


def test_change_the_seats_and_the_dealer_mid_game_and_play_on(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, *NAMES)
    play_round(page)
    play_round(page)
    expect(page.locator("#entry-title")).to_have_text("Round 3 · Cyril deals")

    page.get_by_role("link", name="Names, seats and dealer").click()
    section = page.locator("section.seating")
    expect(section.get_by_role("heading", name="Seats and dealer")).to_be_visible()
    expect(section.get_by_label("Seat 2")).to_have_value("1")
    expect(section.get_by_label("Deals next")).to_have_value("2")
    assert_accessible(page)

    # Repeating a player is refused next to the seat, the choice kept.
    section.get_by_label("Seat 2").select_option(label="Cyril")
    section.get_by_role("button", name="Save seats and dealer").click()
    expect(page.locator("section.seating .field-error")).to_have_text(
        "Cyril is chosen for two seats and Boris for none: choose each player for one seat."
    )
    expect(page.locator("section.seating").get_by_label("Seat 2")).to_have_value("2")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390

    # Cyril and Boris swap places; Dana deals next.
    section = page.locator("section.seating")
    section.get_by_label("Seat 3").select_option(label="Boris")
    section.get_by_label("Deals next").select_option(label="Dana")
    section.get_by_role("button", name="Save seats and dealer").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    expect(page.locator("#entry-title")).to_have_text("Round 3 · Dana deals")
    # Said once, on the game page: the new seating, in the order the deal goes.
    expect(page.locator(".banner.notice")).to_have_text(
        "Seats changed: Ana, Cyril, Boris, Dana; Dana deals next."
    )
    assert dealt(page) == ["Boris dealt", "Ana dealt"]
    # The board's rows in the order the deal now goes; the rounds played keep their columns.
    expect(page.locator("#round-form .hand-name")).to_have_text(["Ana", "Cyril", "Boris", "Dana"])
    expect(page.locator(".round-table thead tr:first-child th")).to_have_text(
        ["Round", "Ana", "Boris", "Cyril", "Dana"]
    )

    # Two more rounds: the deal goes Dana, then Ana, then Cyril (Ana, Cyril, Boris, Dana).
    play_round(page)
    expect(page.locator("#entry-title")).to_have_text("Round 4 · Ana deals")
    play_round(page)
    expect(page.locator("#entry-title")).to_have_text("Round 5 · Cyril deals")
    assert dealt(page) == ["Ana dealt", "Dana dealt", "Boris dealt", "Ana dealt"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    page.get_by_role("link", name="History").click()
    change = page.locator("li.change-seated")
    expect(change.locator("h2")).to_have_text("Seats and dealer changed · from round 3")
    expect(change.locator("p.seating")).to_have_text("Ana, Cyril, Boris, Dana; Dana deals")

    page.goto(page.url.replace("/history/", "/players/"))
    section = page.locator("section.seating")
    expect(section.get_by_label("Seat 2")).to_have_value("2")
    expect(section.get_by_label("Deals next")).to_have_value("2")


def test_a_round_taken_back_by_undo_keeps_the_order_of_the_deal(page: Page):
    """After a change of seats, the round's rows go in the order the deal goes, on the fresh
    form and on the round that Undo takes back into it, not in the seats' first order."""
    start_game(page, *NAMES)
    play_round(page)
    page.get_by_role("link", name="Names, seats and dealer").click()
    section = page.locator("section.seating")
    section.get_by_label("Seat 2").select_option(label="Dana")
    section.get_by_label("Seat 4").select_option(label="Boris")
    section.get_by_role("button", name="Save seats and dealer").click()
    in_the_deal = ["Ana", "Dana", "Cyril", "Boris"]
    expect(page.locator("#round-form .hand-name")).to_have_text(in_the_deal)
    play_round(page)
    page.locator(".banner.saved").get_by_role("link", name="Undo").click()
    expect(page.locator("#entry-title")).to_have_text(re.compile("Round 2, back in the form"))
    expect(page.locator("#round-form .hand-name")).to_have_text(in_the_deal)
    expect(page.locator("#round-form .hand").nth(3).locator(".value-input")).to_have_value("5")
