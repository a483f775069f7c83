"""A group over time on a phone: a member retires, stays in the standings, is not
offered for a new game and comes back; the standings switch to this month and back. The page
passes axe and nothing on it is wider than a small phone at each step."""

import re
from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import Page, expect

from scoring.files import exchange
from scoring.models import Table
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import unfold
from tests.browser.test_tables import assert_fits, standing
from tests.conftest import thursday
from tests.links import url


def the_table() -> Table:
    """The worked example's three games (docs/formats.md): the last one (Boris, Cyril, Dana)
    started today, the others long ago."""
    table = exchange.import_table(thursday())
    games = list(table.games.order_by("created_at"))
    long_ago = timezone.now() - timedelta(days=800)
    for game in games[:2]:
        table.games.filter(pk=game.pk).update(created_at=long_ago)
    table.games.filter(pk=games[2].pk).update(created_at=timezone.now())
    return table


def toggles(page: Page) -> list[str]:
    return [text.strip() for text in page.locator(".member-toggle").all_inner_texts()]


def test_a_member_retires_stays_in_the_standings_and_comes_back(page: Page):
    table = the_table()
    page.goto(url("table", table.edit_token))
    assert toggles(page) == ["Ana", "Boris", "Cyril", "Dana"]

    unfold(page, "members")
    page.get_by_role("button", name="Retire Dana").click()
    expect(page).to_have_url(re.compile(r"#members$"))
    retired = page.locator(".retired-list")
    expect(retired).to_have_text(re.compile(r"Dana"))
    expect(page.get_by_role("heading", name="Retired")).to_be_visible()
    # Still in the standings, marked; no longer offered for a new game.
    assert standing(page, "Dana")[1:3] == ["2", "1"]
    expect(page.locator(".standings-table th", has_text="Dana")).to_contain_text("(retired)")
    assert toggles(page) == ["Ana", "Boris", "Cyril"]
    assert_fits(page)
    assert_accessible(page)

    page.get_by_role("button", name="Bring back Dana").click()
    expect(page.locator(".retired-list")).to_have_count(0)
    assert toggles(page) == ["Ana", "Boris", "Cyril", "Dana"]
    expect(page.locator(".standings-table")).not_to_contain_text("(retired)")


def test_the_last_two_members_cannot_retire_and_say_why(page: Page):
    table = Table.start("Three", ["Ana", "Boris", "Cyril"])
    page.goto(url("table", table.edit_token))
    unfold(page, "members")
    page.get_by_role("button", name="Retire Ana").click()
    page.get_by_role("button", name="Retire Boris").click()
    expect(page.get_by_role("alert")).to_have_text(
        "A table keeps at least 2 members who play its games, so Boris cannot leave now: add "
        "a member, or bring one back, first."
    )
    # Where the phone is: at the members, not at the top of the page.
    expect(page.get_by_role("alert")).to_be_in_viewport()
    assert_fits(page)


def test_the_standings_switch_to_this_month_and_back(page: Page):
    table = the_table()
    page.goto(url("table", table.edit_token))
    tabs = page.get_by_role("navigation", name="Period of the standings")
    expect(tabs.get_by_role("link", name="All time")).to_have_attribute("aria-current", "page")
    assert standing(page, "Boris")[1:3] == ["3", "0"]

    tabs.get_by_role("link", name="This month").click()
    expect(page).to_have_url(re.compile(r"\?period=month#standings-title$"))
    tabs = page.get_by_role("navigation", name="Period of the standings")
    expect(tabs.get_by_role("link", name="This month")).to_have_attribute("aria-current", "page")
    expect(page.get_by_text("Only the games started this month count here")).to_be_visible()
    assert standing(page, "Boris")[1:3] == ["1", "0"]
    assert standing(page, "Ana")[1:3] == ["0", "0"]
    # Every game is still listed.
    expect(page.locator("#games-played .table-games .table-game")).to_have_count(3)
    assert_fits(page)
    assert_accessible(page)

    tabs.get_by_role("link", name="All time").click()
    expect(page).to_have_url(re.compile(r"\?period=all#standings-title$"))
    assert standing(page, "Boris")[1:3] == ["3", "0"]
