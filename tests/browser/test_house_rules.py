"""A game with house rules on a phone: set them when starting, see them on the board, score a
round by them (the live preview too), and a doubled hand rummy that asks for the hands."""

import re

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Table
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import (
    choose_winner,
    expect_preview,
    expect_totals,
    not_opened,
    save,
    tap_cards,
    type_here,
    type_value,
)
from tests.links import url


def test_a_game_with_house_rules_from_the_start_form_to_the_board(page: Page):
    page.goto("/")
    for index, name in enumerate(["Ana", "Boris", "Cyril"]):
        page.locator(f"#id_player_{index}").fill(name)
    page.locator("summary", has_text="House rules").click()
    expect(page.locator("#id_joker")).to_have_value("20")
    page.locator("#id_joker").fill("50")
    page.locator("#id_ace").fill("1")
    page.locator("#id_not_opened_penalty").fill("0")
    page.locator("#id_not_opened_cap").fill("")
    page.get_by_label("twice the value of the cards in hand").check()
    page.locator("#id_target_per_opponent").fill("150")
    expect(page.locator(".target-for:not([hidden])")).to_have_text(
        "Target: 300 points with 3 players"
    )
    page.locator("#id_target").fill("500")
    expect(page.locator(".target-for:not([hidden])")).to_have_text(
        "Target: 500 points with 3 players"
    )
    assert_accessible(page)
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))

    expect(page.locator("#board-line")).to_contain_text("Target 500")
    expect(page.locator(".rules-line")).to_contain_text(
        "House rules: joker 50, ace 1, never opened +0, never opened without a cap, "
        "hand rummy doubles, fixed target 500"
    )

    # The house rules' worked example (docs/formats.md), round 1: A♥ joker 5♣ is 1 + 50 + 5;
    # Cyril never opened, 49.
    choose_winner(page, "Ana")
    tap_cards(page, "Boris", "AH JK 5C")
    expect_preview(page, "Boris", "56")
    type_value(page, "Cyril", 49)
    not_opened(page, "Cyril")
    expect_preview(page, "Cyril", "49")
    save(page)
    expect_totals(page, 0, 56, 49)

    # Round 2: Boris makes a hand rummy, which doubles the opponents' hands: they are asked for.
    choose_winner(page, "Boris")
    page.get_by_label("Hand rummy").check()
    # The keys that type Ana's hand are there (her row's, or the phone's one keyboard).
    expect(type_here(page, "Ana").locator('.rank[data-rank="K"]')).to_be_visible()
    tap_cards(page, "Ana", "KH QS")
    tap_cards(page, "Cyril", "JK 2C")
    expect_preview(page, "Ana", "40")
    expect_preview(page, "Cyril", "104")
    save(page)
    expect_totals(page, 40, 56, 153)

    page.get_by_role("link", name="This game's rules").click()
    expect(page.get_by_role("heading", name="This game's rules")).to_be_visible()
    assert_accessible(page)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("form", ["start", "table"])
def test_the_points_of_a_hand_rummy_are_asked_only_while_they_are_fixed(page: Page, form):
    """ "twice the value of the cards in hand" needs no number: the field of a fixed hand
    rummy's points goes while it is chosen, on the start form and on a table's rules, and
    comes back with "a fixed number of points" (what was in it kept)."""
    if form == "start":
        page.goto("/")
        page.locator("summary", has_text="House rules").click()
    else:
        table = Table.start("Friday", ["Ana", "Boris", "Cyril"])
        page.goto(url("table_rules", table.edit_token))
    points = page.get_by_label("Points for each opponent of a hand rummy")
    expect(points).to_be_visible()
    page.get_by_label("twice the value of the cards in hand").check()
    expect(points).to_be_hidden()
    page.get_by_label("a fixed number of points").check()
    expect(points).to_be_visible()
    expect(points).to_have_value("200")
