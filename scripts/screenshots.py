"""Retake the screenshots in docs/ (README.md and docs/at-the-table.md show them): the game on a
phone, the round form, after a save, Undo and the history, two phones' versions of one round,
a long game, six at a small phone, a finished game light and dark.

    .venv/bin/python -m scripts.screenshots      (or: make screenshots)

It serves the app from a throwaway database on 127.0.0.1 with Django's development server,
fills it through `import_game`, and drives Debian's Chromium at a phone's size."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

from scripts.long_games import long_game_document
from scripts.throwaway_site import ThrowawaySite

ROOT = Path(__file__).resolve().parent.parent

DOCS = ROOT / "docs"

IN_PROGRESS = {
    "format": "rami-game/1",
    "players": ["Ana", "Boris", "Cyril", "Dana"],
    "rounds": [
        {
            "winner": "Ana",
            "hands": {
                "Boris": {"cards": ["AH", "JK", "5C"]},
                "Cyril": {"cards": ["KH", "QS", "7D"], "opened": False},
                "Dana": {"value": 12},
            },
        },
        {
            "winner": "Cyril",
            "hands": {
                "Ana": {"cards": ["9S", "9H"]},
                "Boris": {"value": 4},
                "Dana": {"cards": ["JK", "2C"]},
            },
        },
        {"winner": "Dana", "hand_rummy": True},
        {
            "blocked": True,
            "hands": {
                "Ana": {"cards": ["3H"]},
                "Boris": {"value": 14},
                "Cyril": {"cards": ["10C", "4D"]},
                "Dana": {"value": 9},
            },
        },
        {
            "winner": "Boris",
            "hands": {
                "Ana": {"cards": ["QH", "5S"]},
                "Cyril": {"value": 6},
                "Dana": {"cards": ["AS", "AD"]},
            },
        },
    ],
}

# An evening of six: Dana goes home after round 3, Gita sits down for round 5.
EVENING = {
    "format": "rami-game/1",
    "players": [
        "Ana",
        "Boris",
        "Cyril",
        {"name": "Dana", "leaves": 3},
        "Emil",
        "Filip",
        {"name": "Gita", "joins": 5},
    ],
    "rounds": [
        {
            "winner": "Ana",
            "hands": {
                "Boris": {"cards": ["KH", "5C"]},
                "Cyril": {"value": 12},
                "Dana": {"cards": ["JK", "2C"]},
                "Emil": {"value": 7},
                "Filip": {"cards": ["9S", "9H", "3D"]},
            },
        },
        {
            "winner": "Emil",
            "hands": {
                "Ana": {"value": 4},
                "Boris": {"value": 18},
                "Cyril": {"cards": ["AS", "QD"]},
                "Dana": {"value": 9},
                "Filip": {"value": 6},
            },
        },
        {
            "blocked": True,
            "hands": {
                "Ana": {"value": 3},
                "Boris": {"value": 14},
                "Cyril": {"value": 10},
                "Dana": {"value": 22},
                "Emil": {"value": 8},
                "Filip": {"value": 5},
            },
        },
        {
            "winner": "Boris",
            "hands": {
                "Ana": {"cards": ["QH", "5S"]},
                "Cyril": {"value": 6},
                "Emil": {"cards": ["AS", "AD"]},
                "Filip": {"value": 11},
            },
        },
        {
            "winner": "Cyril",
            "hands": {
                "Ana": {"value": 5},
                "Boris": {"value": 9},
                "Emil": {"value": 13},
                "Filip": {"cards": ["10C", "4D"]},
                "Gita": {"value": 7},
            },
        },
    ],
}


def main() -> None:
    with ThrowawaySite(prefix="rami-shots-", RAMI_PUBLIC_URL="http://192.168.1.20:8000") as site:
        playing = site.manage("import_game", "-", stdin=json.dumps(IN_PROGRESS))
        finished = site.manage("import_game", str(ROOT / "tests" / "games" / "every_kind.json"))
        two_phones = {**IN_PROGRESS, "rounds": IN_PROGRESS["rounds"][:1]}
        two_phones = site.manage("import_game", "-", stdin=json.dumps(two_phones))
        long_document = json.dumps(long_game_document(44, seed=7))
        long_game = site.manage("import_game", "-", stdin=long_document)
        between_rounds = site.manage("import_game", "-", stdin=json.dumps(IN_PROGRESS))
        six = site.manage("import_game", "-", stdin=json.dumps(long_game_document(12, 6, seed=3)))
        evening = site.manage("import_game", "-", stdin=json.dumps(EVENING))
        base = site.serve()
        DOCS.mkdir(exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=shutil.which("chromium"),
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            phone = {
                "viewport": {"width": 390, "height": 844},
                "device_scale_factor": 2,
                "is_mobile": True,
                "has_touch": True,
            }
            page = browser.new_context(**phone).new_page()
            page.goto(base + playing)
            page.screenshot(path=DOCS / "game-in-progress.png")

            page.locator('label[for="id_winner_0"]').click()
            # On a phone the one keyboard types the hand of the row tapped (Boris's first).
            keys = page.locator("#round-form .table-keys")
            for rank, suit in (("A", "H"), ("JK", ""), ("5", "C")):
                keys.locator(f'.rank[data-rank="{rank}"]').tap()
                if suit:
                    keys.locator(f'.suit[data-suit="{suit}"]').tap()
            cyril = page.locator("#round-form .seat-2")
            cyril.locator(".hand-pick").tap()
            cyril.locator(".not-opened input").check()
            cyril.locator(".value-input").fill("81")
            page.locator("#round-form .seat-3 .hand-pick").tap()
            page.locator("#round-form .seat-3 .value-input").fill("12")
            page.wait_for_timeout(1200)
            page.locator("#round-entry").evaluate("entry => entry.scrollIntoView()")
            page.screenshot(path=DOCS / "round-entry.png")
            page.get_by_role("button", name="Save round").click()
            page.wait_for_timeout(1200)
            page.screenshot(path=DOCS / "after-save.png")

            # A 360 x 740 phone right after a save: the confirmation with its Undo, every new
            # total with the round's points, and the next round down to Save, in one screen.
            small = browser.new_context(
                **{**phone, "viewport": {"width": 360, "height": 740}}
            ).new_page()
            small.goto(base + between_rounds)
            small.locator('label[for="id_winner_2"]').tap()
            for seat, ranks in ((0, "2 5 9 K"), (1, "3 3 7 Q A"), (3, "4 6 8 10 J JK")):
                small.locator(f"#round-form .seat-{seat} .hand-pick").tap()
                for rank in ranks.split():
                    small.locator(f'#round-form .table-keys .rank[data-rank="{rank}"]').tap()
            small.wait_for_timeout(800)
            small.get_by_role("button", name="Save round").tap()
            small.wait_for_timeout(1200)
            small.screenshot(path=DOCS / "after-save-360.png")

            # Undo takes round 5 back into the form; Dana had not opened; the history after.
            page.locator(".banner.saved").get_by_role("link", name="Undo").click()
            page.wait_for_timeout(800)
            page.locator("#round-form .seat-3 .not-opened input").check()
            page.wait_for_timeout(800)
            page.screenshot(path=DOCS / "fix-round.png")
            page.get_by_role("button", name="Save the corrected round").click()
            page.wait_for_timeout(800)
            page.goto(page.url.split("?")[0] + "history/")
            page.screenshot(path=DOCS / "history-after-fix.png")

            # Two phones, two versions of round 2: the second is shown where they differ.
            other = browser.new_context(**phone).new_page()
            for phone_page, dana in ((page, 12), (other, 13)):
                phone_page.goto(base + two_phones)
                phone_page.locator('label[for="id_winner_1"]').click()
                for seat, value in ((0, 5), (2, 7), (3, dana)):
                    phone_page.locator(f"#round-form .seat-{seat} .hand-pick").tap()
                    phone_page.locator(f"#round-form .seat-{seat} .value-input").fill(str(value))
            page.get_by_role("button", name="Save round").click()
            page.wait_for_timeout(800)
            other.get_by_role("button", name="Save round").click()
            page.wait_for_timeout(1200)
            other.screenshot(path=DOCS / "conflict.png")

            # A long game: six 30-character names, 44 rounds, on the smallest phone and a laptop.
            page = browser.new_context(
                **{**phone, "viewport": {"width": 320, "height": 640}}
            ).new_page()
            page.goto(base + long_game)
            page.screenshot(path=DOCS / "long-game-320.png")
            page = browser.new_context(viewport={"width": 1366, "height": 800}).new_page()
            page.goto(base + long_game)
            page.screenshot(path=DOCS / "long-game-1366.png")

            # Six at a 360 x 640 phone: the board after a leave (the round entry, and Dana's
            # total under it), the round table of six, and the history of that evening.
            small = browser.new_context(
                **{**phone, "viewport": {"width": 360, "height": 640}}
            ).new_page()
            small.goto(base + evening)
            small.screenshot(path=DOCS / "board-after-a-leave.png")
            small.goto(base + six)
            small.locator("#rounds").evaluate("rounds => rounds.scrollIntoView()")
            small.screenshot(path=DOCS / "round-table-six.png")
            small.goto(base + evening + "history/")
            small.screenshot(path=DOCS / "history-evening.png")

            for scheme in ("light", "dark"):
                context = browser.new_context(
                    **{**phone, "device_scale_factor": 1}, color_scheme=scheme
                )
                page = context.new_page()
                page.goto(base + finished)
                page.screenshot(path=DOCS / f"finished-{scheme}.png", full_page=True)
                context.close()
            browser.close()
    for picture in sorted(DOCS.glob("*.png")):
        print(f"{picture.relative_to(ROOT)}  {picture.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
