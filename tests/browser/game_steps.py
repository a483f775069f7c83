"""What a player does on the game page, in a phone's browser."""

import re

from playwright.sync_api import Locator, Page, expect


def start_game(page: Page, *names: str) -> None:
    page.goto("/")
    for index, name in enumerate(names):
        field = page.locator(f"#id_player_{index}")
        if not field.is_visible():
            page.locator("summary", has_text="Add a player").click()
        field.fill(name)
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{22,}/$"))


def hand(page: Page, name: str):
    return page.locator("#round-form .hand").filter(
        has=page.locator(".hand-name", has_text=re.compile(f"^{name}$"))
    )


def choose_winner(page: Page, name: str) -> None:
    """Tap "went out" in the player's row, or the blocked-round choice under the rows."""
    if name == "Nobody: blocked round":
        page.locator("#round-form .blocked-choice").click()
    else:
        hand(page, name).locator(".out-choice").click()


def one_keyboard(page: Page) -> bool:
    """Whether the round form has one keyboard for the table (on a phone, whatever the number
    of players) rather than keys in each row (a tablet, a laptop)."""
    return page.locator("#round-form .table-keys").is_visible()


def type_here(page: Page, name: str):
    """Where the player's hand is typed: their row's keys; with one keyboard for the table,
    that keyboard, once their row is chosen ("Type this hand", a tap unless it is chosen)."""
    player = hand(page, name)
    if not one_keyboard(page):
        return player
    pick = player.locator(".hand-pick")
    if pick.get_attribute("aria-pressed") != "true":
        pick.tap()
        expect(pick).to_have_attribute("aria-pressed", "true")
    return page.locator("#round-form .table-keys")


def keys_for(row: Locator, tap) -> Locator:
    """Where the hand of a row of the round form is typed, by taps made as a finger makes them
    (`tap`, an OnScreenTaps): the row's own keys; with one keyboard for the table (on a phone),
    that keyboard, once the row is chosen (a tap on the row unless the keys type it already)."""
    if not one_keyboard(row.page):
        return row
    pick = row.locator(".hand-pick")
    if pick.get_attribute("aria-pressed") != "true":
        tap(pick)
    return row.page.locator("#round-form .table-keys")


def tap_cards(page: Page, name: str, cards: str) -> None:
    """Tap each card: its rank, then its suit when it has one ("AH JK 5" is 5 taps)."""
    keys = type_here(page, name)
    for card in cards.split():
        rank, suit = (
            (card, "")
            if card == "JK" or card[-1].isdigit() or len(card) == 1
            else (card[:-1], card[-1])
        )
        keys.locator(f'.rank[data-rank="{rank}"]').tap()
        if suit:
            keys.locator(f'.suit[data-suit="{suit}"]').tap()


def type_value(page: Page, name: str, value: int) -> None:
    type_here(page, name)
    hand(page, name).locator(".value-input").fill(str(value))


def not_opened(page: Page, name: str) -> None:
    hand(page, name).get_by_label("Not opened yet").check()


def expect_preview(page: Page, name: str, points: str) -> None:
    expect(hand(page, name).locator(".points-preview")).to_have_text(points)


def save(page: Page, button: str = "Save round") -> None:
    """Save and wait until the answer is on the page (a swap with htmx, a new page without)."""

    def is_save(response) -> bool:
        data = response.request.post_data or ""
        return response.request.method == "POST" and "action=save" in data

    with page.expect_response(is_save):
        page.get_by_role("button", name=button).click()
    page.wait_for_load_state()
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)


def expect_totals(page: Page, *totals: int) -> None:
    expect(page.locator(".total .sum")).to_have_text([str(total) for total in totals])


class OnScreenTaps:
    """Taps that a player makes without scrolling: each control must be on the screen as it is
    before it is tapped, and is tapped where it stands, as a finger does. Not locator.tap(),
    which scrolls an element into view "if needed" and, while a preview's answer is swapped in,
    now and then scrolled the page to its top with the element on the screen (1 round in 3 on
    the one keyboard; none in 6 tapped by place). `count` says how many taps there were."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.height = page.viewport_size["height"]
        self.count = 0

    def __call__(self, locator) -> None:
        found = locator.bounding_box()
        assert found["y"] >= 0 and found["y"] + found["height"] <= self.height, found
        self.page.touchscreen.tap(found["x"] + found["width"] / 2, found["y"] + found["height"] / 2)
        self.count += 1


def unfold(page: Page, *parts: str) -> None:
    """Taps the heading of each folded part of a table's page named (its <details>' id), as a
    reader does to open it; one already open stays open."""
    for part in parts:
        fold = page.locator(f"details#{part}")
        if fold.get_attribute("open") is None:
            fold.locator("> summary").click()
        expect(fold).to_have_attribute("open", "")
