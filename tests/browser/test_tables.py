"""A group's table on a phone: start it from the start page, play two short games from it (one
with a guest), rename a member, and see the standings and head to head change; its page and
its forms pass axe, and nothing on it is wider than a small phone."""

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import choose_winner, save, unfold


def assert_fits(page: Page) -> None:
    """Nothing makes the page scroll sideways (the wide tables scroll inside their box)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"]


def standing(page: Page, name: str) -> list[str]:
    """A member's row of the standings: name, games, wins, win rate."""
    row = page.locator(".standings-table tbody tr").filter(
        has=page.locator("th bdi", has_text=re.compile(f"^{name}$"))
    )
    return [cell.strip() for cell in row.locator("th, td").all_inner_texts()[:4]]


def head_to_head(page: Page) -> list[str]:
    unfold(page, "head-to-head")
    return [
        " ".join(text.split()) for text in page.locator(".pairs-table tbody th").all_inner_texts()
    ]


def play_a_hand_rummy(page: Page, winner: str) -> None:
    """One round that ends the game: `winner` makes a hand rummy, everyone else scores 200."""
    choose_winner(page, winner)
    page.get_by_label("Hand rummy").check()
    save(page)
    expect(page.get_by_text(re.compile(f"{winner}\\s+wins the game"))).to_be_visible()


def test_a_table_from_the_start_page_to_standings_across_two_games(page: Page):
    page.goto("/")
    page.get_by_role("link", name="Start a table for your group").click()
    # The new page in place (the click does not wait for it) before axe reads it.
    expect(page.get_by_label("Name of the table")).to_be_visible()
    assert_accessible(page)
    page.get_by_label("Name of the table").fill("Thursday cards")
    for index, name in enumerate(["Ana", "Boris", "Cyril"]):
        page.locator(f"#id_member_{index}").fill(name)
    page.get_by_role("button", name="Start the table").click()
    expect(page).to_have_url(re.compile(r"/t/[\w-]{22,}/$"))
    table = page.url
    expect(page.get_by_role("heading", name="Thursday cards")).to_be_visible()
    unfold(page, "games-played")
    expect(page.get_by_text("No finished game yet.")).to_be_visible()
    assert_accessible(page)

    # One member only: refused, the toggle kept.
    page.locator(".member-toggle", has_text="Ana").click()
    page.get_by_role("button", name="Start the game").click()
    expect(page.get_by_text("A game has 2 to 6 players, not 1.")).to_be_visible()
    expect(page.get_by_role("checkbox", name="Ana")).to_be_checked()
    assert_accessible(page)

    # Game 1: Ana and Boris; Ana makes a hand rummy.
    page.locator(".member-toggle", has_text="Boris").click()
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))
    play_a_hand_rummy(page, "Ana")
    page.goto(table)
    assert standing(page, "Ana") == ["Ana", "1", "1", "100%"]
    assert standing(page, "Boris") == ["Boris", "1", "0", "0%"]
    assert head_to_head(page) == ["Ana 1 : 0 Boris"]

    # Game 2: Boris, Cyril and a guest, Eva; Cyril makes a hand rummy. Who plays today
    # starts as the last game ended: Ana and Boris ticked.
    expect(page.get_by_role("checkbox", name="Ana")).to_be_checked()
    expect(page.get_by_role("checkbox", name="Boris")).to_be_checked()
    expect(page.get_by_role("checkbox", name="Cyril")).not_to_be_checked()
    page.locator(".member-toggle", has_text="Ana").click()
    page.locator(".member-toggle", has_text="Cyril").click()
    page.get_by_label("Guest 1").fill("Eva")
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".total .name")).to_have_text(["Boris", "Cyril", "Eva"])
    play_a_hand_rummy(page, "Cyril")
    page.goto(table)
    assert standing(page, "Boris") == ["Boris", "2", "0", "0%"]
    assert standing(page, "Cyril") == ["Cyril", "1", "1", "100%"]
    assert head_to_head(page) == ["Ana 1 : 0 Boris", "Boris 0 : 1 Cyril"]
    # The guest played, and is no member: in the game's line, not in the standings.
    expect(page.locator(".table-game").first).to_contain_text("Eva (guest)")
    expect(page.locator(".standings-table").get_by_text("Eva")).to_have_count(0)
    unfold(page, "wins-over-games")
    expect(page.locator(".wins-chart svg")).to_be_visible()

    # Boris is renamed: everywhere on the table, and in both games.
    unfold(page, "members")
    page.locator(".member-item", has_text="Boris").locator("summary").click()
    assert_accessible(page)
    page.get_by_label("New name for Boris").fill("Borek")
    page.get_by_role("button", name="Rename", exact=True).click()
    expect(page).to_have_url(re.compile(r"/t/[\w-]{22,}/#members$"))
    expect(page.locator("#members")).to_have_attribute("open", "")  # where the change was
    assert standing(page, "Borek") == ["Borek", "2", "0", "0%"]
    assert head_to_head(page) == ["Ana 1 : 0 Borek", "Borek 0 : 1 Cyril"]
    expect(page.locator(".table-games").get_by_text("Boris")).to_have_count(0)
    assert_fits(page)
    assert_accessible(page)

    page.set_viewport_size({"width": 320, "height": 640})
    assert_fits(page)


def test_a_finished_games_group_kept_together(page: Page):
    page.goto("/")
    page.locator("#id_player_0").fill("Ana")
    page.locator("#id_player_1").fill("Boris")
    page.get_by_role("button", name="Start the game").click()
    play_a_hand_rummy(page, "Boris")
    page.get_by_label("Name of the table (optional)").fill("Sunday")
    page.get_by_role("button", name="Keep this group's games together").click()
    expect(page).to_have_url(re.compile(r"/t/[\w-]{22,}/$"))
    expect(page.get_by_role("heading", name="Sunday")).to_be_visible()
    assert standing(page, "Boris") == ["Boris", "1", "1", "100%"]
    assert_accessible(page)
