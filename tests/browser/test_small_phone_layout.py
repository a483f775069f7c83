"""Six at a small phone: at 360 x 640, what a user sees after someone has left and
in a tie-break, a long dealer's name in the round's title, a table's members beside their
buttons, and the statistics of a game with seven seats (also on a laptop).

After a save, the answer, the tie-break banner, every row of the next round and its Save are
on the screen, and those who left stand under the round entry; the round's title wraps a long
name instead of cutting it; a member's name never splits letter by letter beside Rename,
Retire and Remove; the statistics keep one column a seat, none wrapped under the first."""

import pytest
from playwright.sync_api import Page, expect

from scoring.files.exchange import import_game
from scoring.models import Table
from scripts.long_games import LONG_NAMES, five_rounds_played, long_game_document
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import type_value
from tests.browser.test_one_screen import IN_VIEW
from tests.links import url

SMALL = {"width": 360, "height": 640}
NAMES = ["Иван", "Мария", "Георги", "Елена", "Димитър", "Радостина"]

# The words of the elements a selector finds that lie on more than one line: (word, where).
BROKEN_WORDS = """selector => {
  const found = [];
  const range = document.createRange();
  const lines = rects => {
    const tops = [];
    for (const rect of rects) {
      if (!rect.width || !rect.height) continue;
      if (!tops.some(top => Math.abs(top - rect.top) < rect.height / 2)) tops.push(rect.top);
    }
    return tops.length;
  };
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const word = /[^\\s\\-\\u2013\\u2014\\/]+/g;
      for (let match = word.exec(node.textContent); match; match = word.exec(node.textContent)) {
        if (match[0].length < 2) continue;
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        if (lines(range.getClientRects()) > 1) found.push([match[0], root.className]);
      }
    }
  }
  return found;
}"""


# The lines an element's text lies on: its rectangles' distinct tops.
LINES = """element => {
  const range = document.createRange();
  range.selectNodeContents(element);
  const tops = [];
  for (const rect of range.getClientRects()) {
    if (!rect.width || !rect.height) continue;
    if (!tops.some(top => Math.abs(top - rect.top) < rect.height / 2)) tops.push(rect.top);
  }
  return tops.length;
}"""


def box(page: Page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


@pytest.mark.parametrize("language", ["en", "bg"])
def test_after_a_save_those_who_left_stand_under_the_round_and_its_save_stays_in_view(
    page: Page, live_server, language
):
    """Георги left after round 5; round 6 is blocked, Иван and Мария level on 0 and the others
    past the target: after its save, the answer, the tie-break banner, each row's total and Save
    are on the 360 x 640 screen, and Георги's total stands under the round entry."""
    page.set_viewport_size(SMALL)
    page.set_extra_http_headers({"Accept-Language": language})
    document = five_rounds_played(NAMES)
    for one in document["rounds"]:  # Иван and Мария level on 16
        if "Мария" in one["hands"]:
            one["hands"]["Мария"] = {"value": 4}
    game = import_game(document)
    game.leave(2)
    page.goto(url("game", game.edit_token))
    playing = [name for name in NAMES if name != "Георги"]
    page.locator("#round-form .blocked-choice").click()
    for name, value in zip(playing, (5, 5, 520, 520, 520), strict=True):
        type_value(page, name, value)
    with page.expect_response(lambda response: "action=save" in (response.request.post_data or "")):
        page.locator("#round-form button[value=save]").click()
    expect(page.locator(".banner.tie-break")).to_be_visible()
    page.wait_for_timeout(300)  # the answer settles and is put in view (rami.js)
    for selector in ("#answer .banner.saved", ".banner.tie-break", "#entry-title"):
        assert page.evaluate(IN_VIEW, selector) == [True], selector
    assert page.evaluate(IN_VIEW, "#round-form .hand .sum") == [True] * 5
    assert page.evaluate(IN_VIEW, "#round-form button[value=save]") == [True]
    # The tie-break says itself in small type: two lines in English, three in Bulgarian.
    assert page.locator(".banner.tie-break").evaluate(LINES) <= {"en": 2, "bg": 3}[language]
    # Those who left: under the round entry, their total kept.
    left = page.locator(".left-players .total.gone")
    expect(left).to_have_count(1)
    expect(left).to_contain_text("Георги")
    assert (
        left.bounding_box()["y"]
        >= box(page, "#round-entry")["y"] + box(page, "#round-entry")["height"]
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert_accessible(page)


def test_a_long_dealers_name_wraps_whole_in_the_rounds_title(page: Page, live_server):
    page.set_viewport_size(SMALL)
    game = import_game(long_game_document(9, 6, seed=3))
    page.goto(url("game", game.edit_token))
    title = page.locator("#entry-title")
    dealer = title.locator("bdi")
    expect(title).to_contain_text("Round 10")
    expect(dealer).to_have_text(LONG_NAMES[9 % 6])
    assert title.evaluate("title => title.scrollWidth <= title.clientWidth")
    # The name whole, inside the title's box, no word of it split across two lines.
    outer, name = (
        box(page, "#entry-title"),
        dealer.evaluate(
            """name => [...name.getClientRects()].map(rect => [rect.left, rect.right])"""
        ),
    )
    assert all(outer["x"] <= left and right <= outer["x"] + outer["width"] for left, right in name)
    assert page.evaluate(BROKEN_WORDS, "#entry-title") == []


@pytest.mark.parametrize("language", ["en", "cs", "bg"])
def test_a_tables_members_keep_their_names_whole_beside_rename_and_retire(
    page: Page, live_server, language
):
    page.set_viewport_size(SMALL)
    page.set_extra_http_headers({"Accept-Language": language})
    members = ["Иван", "Marija", "Цветелина", "Svatopluk", "Wijayakusuma", "Björn-Åke Lindqvist"]
    table = Table.start("Четвъртък", members)
    page.goto(url("table", table.edit_token) + "#members")
    members_part = page.locator("#members")
    if not members_part.evaluate("part => part.open"):
        members_part.locator("summary").first.click()
    names = page.locator(".member-item .member-name")
    expect(names).to_have_count(len(members))
    assert page.evaluate(BROKEN_WORDS, ".member-item .member-name") == []
    # Each name on a line of its own, its buttons under it, all within the card.
    for index in range(len(members)):
        item = page.locator(".member-item").nth(index)
        frame = item.bounding_box()
        name = item.locator(".member-name").bounding_box()
        buttons = [
            button.bounding_box()
            for button in item.locator(":is(summary, .member-change button)").all()
        ]
        assert all(button["y"] >= name["y"] + name["height"] - 0.5 for button in buttons)
        for part in (
            item.locator(".member-name"),
            *item.locator(":is(summary, .member-change button)").all(),
        ):
            rect = part.bounding_box()
            assert frame["x"] - 0.5 <= rect["x"]
            assert rect["x"] + rect["width"] <= frame["x"] + frame["width"] + 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


# Each row of the statistics (its head first): the tops of its players' cells, and whether
# each lies inside the box.
STATISTICS_ROWS = """() => {
  const box = document.querySelector(".statistics").getBoundingClientRect();
  return [...document.querySelectorAll(".player-statistics tr")].map(row =>
    [...row.querySelectorAll(":scope > :is(td, th[scope=col])")]
      .filter(cell => cell.getClientRects().length && cell.textContent.trim())
      .map(cell => {
        const rect = cell.getBoundingClientRect();
        return [Math.round(rect.top), rect.left >= box.left - 0.5 && rect.right <= box.right + 0.5];
      }));
}"""


@pytest.mark.parametrize("size", [SMALL, {"width": 1280, "height": 800}], ids=["360", "1280"])
def test_seven_seats_keep_the_statistics_one_column_a_seat(page: Page, live_server, size):
    """Георги left after round 5 and Гергана joined: seven seats, seven columns of the
    statistics and of the round table, none wrapped under another."""
    page.set_viewport_size(size)
    document = five_rounds_played(list(NAMES))
    document["players"][2] = {"name": "Георги", "leaves": 5}
    document["players"].append({"name": "Гергана", "joins": 6})
    playing = [name for name in NAMES if name != "Георги"] + ["Гергана"]
    document["rounds"].append(
        {"winner": "Иван", "hands": {name: {"value": 8} for name in playing[1:]}}
    )
    game = import_game(document)
    page.goto(url("game", game.edit_token))
    page.locator(".statistics").scroll_into_view_if_needed()
    rows = page.evaluate(STATISTICS_ROWS)
    head, *numbers = rows
    assert len(head) == 7, rows
    for row in rows:
        assert len({top for top, _ in row}) == 1, rows  # one line across
    if size["width"] < 400:
        assert all(inside for row in rows for _, inside in row), rows
    assert len(numbers) == 7
    columns = page.locator(".round-table thead tr:first-child > th")
    expect(columns).to_have_count(8)
    tops = {round(column.bounding_box()["y"]) for column in columns.all()}
    assert len(tops) == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
