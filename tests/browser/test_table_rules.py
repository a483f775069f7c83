"""A table's rules on a phone: the group changes the rules of its next games from the table's
page and sees the change in the table's history, with the date and time; then starts a game
with its own rules from the new-game form's folded "Rules for this game", which that game
plays by while the table keeps its own."""

import os
import re

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Table
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import unfold
from tests.browser.test_tables import assert_fits
from tests.links import url

pytestmark = pytest.mark.django_db(transaction=True)

# Where to keep screenshots of the pages, when asked (RAMI_SCREENSHOTS=folder).
SCREENSHOTS = os.environ.get("RAMI_SCREENSHOTS")


def screenshot(page: Page, name: str, part: str | None = None) -> None:
    """The page (or its part, a CSS selector) as the phone shows it, when asked."""
    if SCREENSHOTS:
        path = f"{SCREENSHOTS}/{name}.png"
        if part:
            page.locator(part).first.screenshot(path=path)
        else:
            page.screenshot(path=path, full_page=True)


def test_the_tables_rules_change_for_its_next_games_and_one_game_has_its_own(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    table = Table.start("Friday", ["Ana", "Boris", "Cyril"])
    page.goto(url("table", table.edit_token))
    unfold(page, "table-history")
    expect(page.get_by_text("No change to the table's rules or members yet.")).to_be_visible()

    page.get_by_role("link", name="Change the rules for the next games").click()
    expect(page).to_have_url(re.compile(r"/t/[\w-]{22,}/rules/$"))
    expect(page.get_by_role("heading", name="Rules for the next games")).to_be_visible()
    assert_fits(page)
    assert_accessible(page)
    # Out of range: refused next to the field, what was typed kept.
    page.get_by_label("A joker left in hand counts").fill("500")
    page.get_by_role("button", name="Save the rules").click()
    expect(page.locator(".rule-joker .field-error")).to_be_visible()
    expect(page.get_by_label("A joker left in hand counts")).to_have_value("500")
    screenshot(page, "rules-refused")
    page.get_by_label("A joker left in hand counts").fill("50")
    page.get_by_role("button", name="Save the rules").click()

    expect(page).to_have_url(f"{page.url.split('/t/')[0]}/t/{table.edit_token}/")
    expect(page.locator(".table-head")).to_contain_text("House rules: joker 50")
    unfold(page, "table-history")
    change = page.locator(".table-change").first
    expect(change).to_contain_text("Rules for the next games changed")
    expect(change).to_contain_text("House rules: joker 50")
    # The phone's own date and time of the change.
    expect(change.locator("time")).to_have_text(re.compile(r"\d{4}.*\d{1,2}[:.]\d{2}"))
    assert_fits(page)
    screenshot(page, "table-head", ".table-head")
    screenshot(page, "table-history", ".table-history")

    # A game of its own: a fixed target of 300, from the folded rules of the new-game form.
    page.locator(".member-toggle", has_text="Ana").click()
    page.locator(".member-toggle", has_text="Boris").click()
    rules = page.locator(".play-form details.house-rules")
    expect(rules.get_by_label("A joker left in hand counts")).to_be_hidden()
    rules.locator("summary", has_text="Rules for this game").click()
    expect(rules.get_by_label("A joker left in hand counts")).to_have_value("50")
    rules.get_by_label("or a fixed target of").fill("300")
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, "own-rules", ".new-table-game")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    expect(page.get_by_text("Target 300").first).to_be_visible()
    page.get_by_role("link", name="This game's rules").click()
    expect(page.locator("main")).to_contain_text("joker 50, fixed target 300")

    # The table keeps its rules: its next game plays by them.
    page.goto(url("table", table.edit_token))
    expect(page.locator(".table-head")).to_contain_text("House rules: joker 50")
    expect(page.locator(".table-head")).not_to_contain_text("fixed target")
    expect(page.locator(".table-change")).to_have_count(1)
    unfold(page, "new-game")  # folded under the game in play
    page.locator(".member-toggle", has_text="Cyril").click()
    page.locator(".member-toggle", has_text="Boris").click()
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    expect(page.get_by_text("Target 100").first).to_be_visible()


def test_a_game_with_its_own_rules_without_javascript(page_without_js: Page):
    page = page_without_js
    page.set_viewport_size({"width": 390, "height": 844})
    table = Table.start("Friday", ["Ana", "Boris"])
    page.goto(url("table", table.edit_token))
    page.locator(".member-toggle", has_text="Ana").click()
    page.locator(".member-toggle", has_text="Boris").click()
    rules = page.locator(".play-form details.house-rules")
    rules.locator("summary").click()
    rules.get_by_label("An ace left in hand counts").fill("1")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    page.get_by_role("link", name="This game's rules").click()
    expect(page.locator("main")).to_contain_text("ace 1")
    page.goto(url("table_rules", table.edit_token))
    expect(page.get_by_label("An ace left in hand counts")).to_have_value("11")
