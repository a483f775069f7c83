"""An evening at 390 by 844 px, on real phones: Ana takes back a round to put it right
while Boris's phone is open; the history after it; two phones with different versions of one
round, and the difference between them."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import _page, assert_accessible
from tests.browser.game_steps import (
    choose_winner,
    expect_totals,
    hand,
    not_opened,
    save,
    start_game,
    type_value,
)
from tests.browser.test_at_the_table import in_view


@pytest.fixture
def boris(browser, live_server, static_from_the_source) -> Page:
    """Boris's phone: another browser, so another phone (its own cookies)."""
    context, page, errors = _page(browser, live_server)
    yield page
    context.close()
    assert errors == []


def test_anas_undo_to_fix_while_boriss_phone_is_open(page: Page, boris: Page):
    ana = page
    start_game(ana, "Ana", "Boris", "Cyril", "Dana")
    choose_winner(ana, "Ana")
    for name, value in (("Boris", 10), ("Cyril", 20), ("Dana", 30)):
        type_value(ana, name, value)
    save(ana)
    boris.goto(ana.url)
    choose_winner(ana, "Boris")
    for name, value in (("Ana", 12), ("Cyril", 20), ("Dana", 8)):
        type_value(ana, name, value)
    save(ana)
    expect(boris.locator(".total .sum")).to_have_text(["12", "10", "40", "38"], timeout=5_000)

    # Ana forgot that Cyril never opened: Undo takes the round back into her form.
    ana.locator(".banner.saved").get_by_role("link", name="Undo").click()
    expect(ana.locator("#entry-title")).to_have_text(re.compile(r"Round 2, back in the form"))
    assert in_view(ana, "#entry-title")
    expect(hand(ana, "Cyril").locator(".value-input")).to_have_value("20")
    assert_accessible(ana)
    # Nothing has changed yet; Boris's phone is offered no Undo of Ana's round.
    expect_totals(boris, 12, 10, 40, 38)
    expect(boris.get_by_text("Undo", exact=True)).to_have_count(0)

    not_opened(ana, "Cyril")
    with ana.expect_response(
        lambda response: "action=correct" in (response.request.post_data or "")
    ):
        ana.get_by_role("button", name="Save the corrected round").click()
    expect(ana.locator(".banner.saved")).to_contain_text("Round 2 saved with your changes.")
    expect_totals(ana, 12, 10, 65, 38)
    # Boris's phone follows within a poll, and still has no Undo.
    expect(boris.locator(".total .sum")).to_have_text(["12", "10", "65", "38"], timeout=5_000)
    expect(boris.get_by_text("Undo", exact=True)).to_have_count(0)
    assert boris.locator("#round-rows tr").count() == 2

    # The history: one correction, and nothing to restore.
    ana.get_by_role("link", name="History").click()
    expect(ana.locator(".change h2").first).to_have_text("Round 2 corrected")
    expect(ana.locator(".change h2")).to_have_text(
        ["Round 2 corrected", "Round 2 saved", "Round 1 saved"]
    )
    expect(ana.get_by_role("button", name=re.compile("Restore"))).to_have_count(0)
    expect(ana.get_by_role("button", name="Go back to the version before")).to_have_count(1)
    assert_accessible(ana)


def test_a_deletion_is_undone_on_its_phone_and_told_on_the_other(page: Page, boris: Page):
    ana = page
    start_game(ana, "Ana", "Boris")
    choose_winner(ana, "Ana")
    type_value(ana, "Boris", 30)
    save(ana)
    boris.goto(ana.url)
    ana.locator(".round-number").first.click()
    ana.get_by_role("button", name="Delete round 1").click()
    expect(ana.locator(".banner.undo")).to_contain_text("Round 1 was deleted.")
    expect(boris.locator(".banner.undo")).to_contain_text(
        "Round 1 was deleted on another phone.", timeout=5_000
    )
    expect(boris.get_by_role("button", name="Undo")).to_have_count(0)
    ana.get_by_role("button", name="Undo").click()
    expect(ana.locator(".banner.saved")).to_contain_text("Round 1 is back as it was.")
    expect(boris.locator(".total .sum")).to_have_text(["0", "30"], timeout=5_000)
    expect(boris.locator(".banner.undo")).to_have_count(0)


def test_a_conflict_shows_the_difference_and_mine_can_replace_it(page: Page, boris: Page):
    ana = page
    start_game(ana, "Ana", "Boris", "Cyril", "Dana")
    boris.goto(ana.url)
    # Both enter round 1; Dana's hand is 12 on Ana's phone and 13 on Boris's.
    for phone, dana in ((ana, 12), (boris, 13)):
        choose_winner(phone, "Ana")
        type_value(phone, "Boris", 5)
        type_value(phone, "Cyril", 7)
        type_value(phone, "Dana", dana)
    save(ana)
    save(boris, "Save round")
    notice = boris.locator(".banner.conflict")
    expect(notice).to_contain_text("Round 1 was saved on another phone first")
    assert in_view(boris, ".banner.conflict")
    table = notice.locator("table.versions")
    expect(table.locator("tbody tr")).to_have_count(1)
    expect(table.locator("tbody th")).to_have_text("Dana")
    expect(table.locator("tbody td .points")).to_have_text(["12", "13"])
    assert_accessible(boris)

    boris.get_by_role("button", name="Replace round 1 with mine").click()
    expect(boris.locator(".banner.saved")).to_contain_text("Round 1 saved with your changes.")
    expect_totals(boris, 0, 5, 7, 13)
    expect(ana.locator(".total .sum")).to_have_text(["0", "5", "7", "13"], timeout=5_000)
    # The replacement has its own Undo, on Boris's phone only.
    expect(ana.get_by_role("button", name="Undo")).to_have_count(0)
    boris.locator(".banner.saved").get_by_role("button", name="Undo").click()
    expect(boris.locator(".banner.saved")).to_contain_text("Round 1 is back as it was.")
    expect_totals(boris, 0, 5, 7, 12)


def test_an_answer_and_its_undo_go_once_another_phone_saves_the_next_round(
    page: Page, boris: Page
):
    """Ana's "Round 1 saved." and its Undo go as soon as Boris's phone saves round 2: the
    round is no longer the one just saved, nor the latest change an Undo could take back. It
    stays while nothing else happens."""
    ana = page
    start_game(ana, "Ana", "Boris", "Cyril")
    boris.goto(ana.url)
    choose_winner(ana, "Ana")
    for name, value in (("Boris", 10), ("Cyril", 20)):
        type_value(ana, name, value)
    save(ana)
    expect(ana.locator(".banner.saved")).to_contain_text("Round 1 saved.")
    expect(ana.locator(".banner.saved").get_by_role("link", name="Undo")).to_be_visible()
    expect(boris.locator("#entry-title")).to_contain_text("Round 2", timeout=5_000)
    ana.wait_for_timeout(2_500)
    expect(ana.locator(".banner.saved")).to_contain_text("Round 1 saved.")
    # Ana has begun the next round when Boris's phone saves it.
    choose_winner(ana, "Boris")
    choose_winner(boris, "Cyril")
    for name, value in (("Ana", 7), ("Boris", 9)):
        type_value(boris, name, value)
    save(boris)
    expect(ana.locator(".total .sum")).to_have_text(["7", "19", "20"], timeout=5_000)
    expect(ana.locator("#answer")).to_be_empty()
    expect(ana.get_by_text("Round 1 saved.")).to_have_count(0)
    expect(ana.get_by_text("Undo", exact=True)).to_have_count(0)


def test_an_undo_left_on_a_phone_that_missed_the_next_round_takes_nothing_back(
    page: Page, boris: Page
):
    """Ana's phone hears nothing of the game (its stream and polls cut, as on a sleeping phone
    or a bad network), so its "Round 1 saved." keeps the Undo after Boris's phone saved round
    2. Tapped, it is refused: round 1 stays saved, and nothing comes back into the form."""
    ana = page
    start_game(ana, "Ana", "Boris", "Cyril")
    game_url = ana.url
    boris.goto(game_url)
    # "Nothing new" to every poll, and no stream (a 204 tells the browser not to reconnect).
    ana.route(re.compile(r"/(live/|[gv]/[^/]+/poll)"), lambda route: route.fulfill(status=204))
    choose_winner(ana, "Ana")
    for name, value in (("Boris", 10), ("Cyril", 20)):
        type_value(ana, name, value)
    save(ana)
    boris.goto(game_url)
    choose_winner(boris, "Cyril")
    for name, value in (("Ana", 7), ("Boris", 9)):
        type_value(boris, name, value)
    save(boris)
    undo = ana.locator(".banner.saved").get_by_role("link", name="Undo")
    with ana.expect_response(lambda response: "/fix/" in response.url):
        undo.click()
    expect(ana.locator("#answer")).to_contain_text("Round 1 can no longer be undone here")
    expect(ana.locator("#entry-title")).to_contain_text("Round 3")
    expect(ana.locator(".total .sum")).to_have_text(["7", "19", "20"])
