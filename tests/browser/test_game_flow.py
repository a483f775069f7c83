"""A whole game on a phone: the worked examples tapped in, blocked round, edit, undo, the end."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import (
    choose_winner,
    expect_preview,
    expect_totals,
    hand,
    not_opened,
    save,
    start_game,
    tap_cards,
    type_value,
)


def test_the_worked_examples_tapped_in_with_live_preview(page: Page):
    start_game(page, "Ana", "Boris", "Cyril", "Dana")
    expect(page.get_by_text("Target 300")).to_be_visible()
    assert_accessible(page)
    page.evaluate("window.stillTheSamePage = true")

    # Worked example: an ace, a joker and a five left.
    choose_winner(page, "Ana")
    tap_cards(page, "Boris", "AH JK 5C")
    expect_preview(page, "Boris", "36")
    expect_preview(page, "Ana", "0")
    expect(hand(page, "Boris").locator(".cards-text")).to_have_value("AH JK 5C")
    type_value(page, "Cyril", 10)
    type_value(page, "Dana", 4)
    save(page)
    expect_totals(page, 0, 36, 10, 4)
    expect(page.get_by_role("heading", name=re.compile("Round 2"))).to_be_visible()

    # Worked example: hand rummy (here by Cyril, with three opponents).
    choose_winner(page, "Cyril")
    page.get_by_label("Hand rummy").check()
    expect(hand(page, "Ana").locator(".picker")).to_be_hidden()
    expect_preview(page, "Ana", "200")
    save(page)
    expect_totals(page, 200, 236, 10, 204)

    # Worked example: four players, only one never opened; 8 cards in 8 taps, suits left out.
    choose_winner(page, "Ana")
    tap_cards(page, "Boris", "3H 4H")
    not_opened(page, "Cyril")
    tap_cards(page, "Cyril", "K K Q J 9 8 7 JK")
    expect(hand(page, "Cyril").locator(".cards-text")).to_have_value("K K Q J 9 8 7 JK")
    tap_cards(page, "Dana", "JK AH")
    expect_preview(page, "Boris", "7")
    expect_preview(page, "Cyril", "100")
    expect_preview(page, "Dana", "31")
    save(page)
    expect_totals(page, 200, 243, 110, 235)

    # A blocked round: the lowest hand (Ana's 5 and Cyril's 5, shared) scores 0.
    choose_winner(page, "Nobody: blocked round")
    type_value(page, "Ana", 5)
    tap_cards(page, "Boris", "9C 2D")
    tap_cards(page, "Cyril", "5H")
    type_value(page, "Dana", 12)
    expect_preview(page, "Dana", "12")
    save(page)
    expect_totals(page, 200, 254, 110, 247)
    assert page.evaluate("window.stillTheSamePage") is True  # swapped in place, no reload
    expect(page.locator("#round-4 .tag")).to_have_text("blocked")


def test_a_tapped_card_is_removed_by_tapping_it(page: Page):
    start_game(page, "Ana", "Boris")
    choose_winner(page, "Ana")
    tap_cards(page, "Boris", "KH 5")
    hand(page, "Boris").locator(".chip").first.tap()
    expect(hand(page, "Boris").locator(".cards-text")).to_have_value("5")
    expect_preview(page, "Boris", "5")


def test_two_players_never_opened_is_capped_at_half_the_target(page: Page):
    start_game(page, "Ana", "Boris")
    choose_winner(page, "Ana")
    not_opened(page, "Boris")
    tap_cards(page, "Boris", "KH KS QD JC 9H")
    expect_preview(page, "Boris", "50")
    save(page)
    expect_totals(page, 0, 50)


def test_errors_keep_what_was_tapped_and_say_what_to_fix(page: Page):
    start_game(page, "Ana", "Boris", "Cyril")
    choose_winner(page, "Ana")
    tap_cards(page, "Boris", "AH AH")
    tap_cards(page, "Cyril", "AH")
    expect(hand(page, "Cyril").locator(".field-error")).to_contain_text(
        "this round holds 3 copies of the card “ace of hearts”, but the deck has only 2"
    )
    save(page)
    expect(hand(page, "Cyril").locator(".field-error")).to_contain_text("but the deck has only 2")
    expect(hand(page, "Boris").locator(".cards-text")).to_have_value("AH AH")
    expect(hand(page, "Boris").locator(".chip")).to_have_count(2)
    assert_accessible(page)


def test_edit_a_round_then_delete_it_and_undo(page: Page):
    start_game(page, "Ana", "Boris")
    choose_winner(page, "Ana")
    type_value(page, "Boris", 30)
    save(page)
    expect_totals(page, 0, 30)

    page.get_by_role("link", name="Edit round 1").click()
    expect(hand(page, "Boris").locator(".value-input")).to_have_value("30")
    hand(page, "Boris").locator(".value-input").fill("")
    tap_cards(page, "Boris", "QH")
    expect_preview(page, "Boris", "10")
    save(page, "Save changes")
    expect_totals(page, 0, 10)

    page.get_by_role("link", name="Edit round 1").click()
    page.get_by_role("button", name="Delete round 1").click()
    expect_totals(page, 0, 0)
    expect(page.get_by_text("Round 1 was deleted.")).to_be_visible()
    page.get_by_role("button", name="Undo").click()
    expect_totals(page, 0, 10)
    expect(page.locator("#round-1 .card")).to_have_text("Q♥")


def test_play_to_the_end_through_a_tie_break(page: Page):
    start_game(page, "Ana", "Boris", "Cyril")
    choose_winner(page, "Cyril")
    type_value(page, "Ana", 60)
    type_value(page, "Boris", 60)
    save(page)
    choose_winner(page, "Nobody: blocked round")
    type_value(page, "Ana", 5)
    type_value(page, "Boris", 5)
    type_value(page, "Cyril", 200)
    save(page)
    expect_totals(page, 60, 60, 200)
    expect(page.locator(".banner.tie-break")).to_contain_text("Tie-break round")
    choose_winner(page, "Ana")
    type_value(page, "Boris", 10)
    type_value(page, "Cyril", 3)
    save(page)
    expect(page.locator(".banner.winner")).to_contain_text("Ana wins the game!")
    expect(page.locator("#round-3 .tag.tie")).to_be_visible()
    assert_accessible(page)
    page.get_by_role("button", name="Rematch").click()
    expect_totals(page, 0, 0, 0)
    expect(page.locator("#entry-title")).to_contain_text(
        "Ana deals"
    )  # 3 rounds dealt: seat 0 again


def test_start_page_is_accessible_and_adds_players(page: Page):
    page.goto("/")
    assert_accessible(page)
    expect(page.locator("#id_player_4")).to_be_hidden()
    page.locator("summary", has_text="Add a player").click()
    expect(page.locator("#id_player_4")).to_be_visible()
    for index, name in enumerate(["A", "B", "C", "D", "E"]):
        page.locator(f"#id_player_{index}").fill(name)
    expect(page.locator(".target-for:visible")).to_have_text("Target: 400 points with 5 players")


def test_a_hand_rummy_edited_into_a_normal_round_leaves_nobody_marked_not_opened(page: Page):
    """Untick "Hand rummy" on the round's page and type the hands: nobody is left marked as
    never opened by the hand rummy (37/34/30 instead of 12/9/5 before this was fixed)."""
    start_game(page, "Ana", "Boris", "Cyril", "Dana")
    choose_winner(page, "Ana")
    page.get_by_label("Hand rummy").check()
    save(page)
    expect_totals(page, 0, 200, 200, 200)

    page.get_by_role("link", name="Edit round 1").click()
    page.get_by_label("Hand rummy").uncheck()
    for name, value in (("Boris", 12), ("Cyril", 9), ("Dana", 5)):
        expect(hand(page, name).get_by_label("Not opened yet")).not_to_be_checked()
        type_value(page, name, value)
    expect_preview(page, "Boris", "12")
    save(page, "Save changes")
    expect_totals(page, 0, 12, 9, 5)


def history_of_one_round(page: Page) -> None:
    """A game of Ana and Boris started and one round saved on `page`, then its history."""
    start_game(page, "Ana", "Boris")
    choose_winner(page, "Ana")
    type_value(page, "Boris", 30)
    save(page)
    page.goto(page.url + "history/")


def test_the_history_shows_times_in_the_phones_time_zone(
    browser, live_server, static_from_the_source
):
    from datetime import datetime, timedelta

    from tests.browser.conftest import _page

    context, page, errors = _page(browser, live_server, timezone_id="Asia/Jakarta", locale="en")
    try:
        history_of_one_round(page)
        time = page.locator("time.local-time").first
        stamp = datetime.fromisoformat(time.get_attribute("datetime"))
        jakarta = stamp + timedelta(hours=7)  # UTC+7, no summer time
        expect(time).to_contain_text(f"{jakarta.hour % 12 or 12}:{jakarta.minute:02d}")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize(
    ("locale", "clock"),
    [("en-GB", r"\b\d{2}:\d{2}$"), ("en-US", r"\b\d{1,2}:\d{2}\s?[AP]M$")],
)
def test_the_history_writes_times_as_the_phone_does(
    browser, live_server, static_from_the_source, locale, clock
):
    """An English page on a phone set to English in Britain: 24 hours ("21:10", "09:10"); in
    the United States, 12 ("9:10 PM"). The page's language, in the phone's own variant."""
    from tests.browser.conftest import _page

    context, page, errors = _page(browser, live_server, timezone_id="Europe/London", locale=locale)
    try:
        history_of_one_round(page)
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("time.local-time").first).to_have_text(re.compile(clock))
        assert errors == []
    finally:
        context.close()
