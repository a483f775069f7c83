"""Layout by language: at 320 and 390 px, in every language, nothing on the game page,
the round form or the start page's unfolded house rules is wider than its box. The page does not
scroll sideways, no table, label, name, card key or line is wider than the box it shows in (a
table of six players scrolls inside its own box, as designed), every label of the chart (the
axes, the target, the names at the line ends) lies inside the chart, and the names as players
write them show whole in the round form. One browser page a language, reused for both widths."""

import pytest
from playwright.sync_api import Page, expect

from scoring.files.exchange import import_game
from scripts.layout_games import LABELS_OUTSIDE, LANGUAGES, every_kind_document
from scripts.long_games import long_game_document
from tests.links import url

WIDTHS = [320, 390]

# Names as people at an Indonesian, Czech or Bulgarian table write them: short enough that the
# round form shows them whole at 320 px.
TABLE_NAMES = ["Siti Rahayu", "Dewi Lestari", "Agus Santoso", "Wayan Putra"]

# Every box that shows more than it holds: an element whose content is wider than its box
# (unless the box scrolls sideways by design), or that pokes out of the screen. Elements made
# invisible to the eye (a screen reader's words, clipped to a pixel) are left out.
TOO_WIDE = """selector => {
  const width = document.documentElement.clientWidth;
  const found = [];
  const hidden = el => {
    const style = getComputedStyle(el);
    return style.display === "none" || style.visibility === "hidden"
      || style.clipPath === "inset(50%)" || el.getClientRects().length === 0;
  };
  for (const root of document.querySelectorAll(selector)) {
    for (const el of [root, ...root.querySelectorAll("*")]) {
      if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
      if (hidden(el) || ["input", "textarea"].includes(el.tagName.toLowerCase())) continue;
      let inside = el.parentElement, skip = false;
      while (inside) {
        if (hidden(inside)) { skip = true; break; }
        inside = inside.parentElement;
      }
      if (skip) continue;
      const style = getComputedStyle(el);
      const rect = el.getBoundingClientRect();
      const scrolls = ["auto", "scroll"].includes(style.overflowX);
      const name = el.tagName.toLowerCase() + (el.className && typeof el.className === "string"
        ? "." + el.className.trim().split(/\\s+/).join(".") : "");
      const text = (el.textContent || "").trim().slice(0, 40);
      // Inside a box that scrolls sideways (or cuts a long name short), what matters is that box.
      let scroller = el.parentElement;
      while (scroller && ["visible"].includes(getComputedStyle(scroller).overflowX)) {
        scroller = scroller.parentElement;
      }
      if (!scroller && (rect.right > width + 0.5 || rect.left < -0.5)) {
        found.push({name, text, left: Math.round(rect.left), right: Math.round(rect.right)});
        continue;
      }
      // A long name cut short with an ellipsis is cut by design; the names as players write
      // them are checked whole on their own below.
      if (style.textOverflow === "ellipsis") continue;
      if (!scrolls && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0
          && style.display !== "inline") {
        found.push({name, text, scroll: el.scrollWidth, client: el.clientWidth});
      }
    }
  }
  return found;
}"""


@pytest.fixture
def games(live_server):
    """A long six-player game, a four-player game of long names, and a game of names as the
    players write them, still being played (nobody near the target)."""
    six = import_game(long_game_document(40, 6, seed=2))
    four = import_game(long_game_document(30, 4, seed=5))
    document = long_game_document(6, 4, seed=7)
    renamed = dict(zip(document["players"], TABLE_NAMES, strict=True))
    document["players"] = TABLE_NAMES
    for one in document["rounds"]:
        one["winner"] = renamed[one["winner"]]
        one["hands"] = {renamed[name]: hand for name, hand in one["hands"].items()}
    plain = import_game(document)
    finished = import_game(every_kind_document())
    return {
        "playing": [url("game", game.edit_token) for game in (six, four, plain)],
        # The scoreboard's own lines (a bar to the target, with words): a watch-only page and
        # a finished game, where one player has reached the target.
        "board": [url("view", plain.view_token), url("game", finished.edit_token)],
    }


def language_page(browser, live_server, language: str) -> Page:
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        extra_http_headers={"Accept-Language": language},
    )
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def assert_fits(page: Page, where: str, selector: str = "body") -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, where
    found = page.evaluate(TOO_WIDE, selector)
    assert found == [], (where, found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_nothing_is_wider_than_its_box_at_320_and_390(
    browser, live_server, static_from_the_source, games, language
):
    page = language_page(browser, live_server, language)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 844})
        for path in games["playing"]:
            page.goto(path)
            assert page.locator("html").get_attribute("lang") == language
            expect(page.locator("#round-form")).to_be_visible()
            expect(page.locator(".score-chart svg")).to_be_visible()
            where = f"{language} {width} {path}"
            assert_fits(page, where)
            # Every label inside the chart: the line-end names of the long games ("Dana
            # Kusum…") and the target's label when the target line is the plot's top line.
            outside = page.evaluate(LABELS_OUTSIDE)
            assert outside == [], (where, outside)
            # The statistics table itself, not only its box.
            sizes = page.locator(".statistics").evaluate(
                "box => [box.scrollWidth, box.clientWidth]"
            )
            assert sizes[0] <= sizes[1], (where, sizes)

        for path in games["board"]:
            page.goto(path)
            expect(page.locator("ol.totals")).to_be_visible()
            assert_fits(page, f"{language} {width} {path}")
            # The words to the target beside or under the bar, never over the total.
            lines = page.locator("ol.totals .total").evaluate_all(
                """lines => lines.map(line => {
                  const words = line.querySelector(".to-go").getBoundingClientRect();
                  const bar = line.querySelector(".bar").getBoundingClientRect();
                  const sum = line.querySelector(".sum").getBoundingClientRect();
                  const over = (a, b) => a.left < b.right && b.left < a.right
                    && a.top < b.bottom && b.top < a.bottom;
                  return [line.textContent.trim().replace(/\\s+/g, " "), over(words, sum),
                          Math.round(bar.width)];
                })"""
            )
            for text, overlaps, bar in lines:
                assert not overlaps and bar >= 40, (language, width, text, bar)

        # The round form of names as the players write them: each name whole.
        page.goto(games["playing"][2])
        names = page.locator("#round-form").evaluate(
            """form => [...form.querySelectorAll(".name, .hand-name")]
                .filter(el => (el.textContent || "").includes("Siti Rahayu"))
                .map(el => [el.scrollWidth, el.clientWidth, el.textContent.trim()])"""
        )
        assert names, language
        for scroll, client, text in names:
            assert scroll <= client + 1 or client == 0, (language, width, text, scroll, client)

        page.goto("/")
        page.locator("details.house-rules > summary").first.click()
        expect(page.locator(".rule-list").first).to_be_visible()
        assert_fits(page, f"{language} {width} start")
        # Each rule's unit stays on the line of its field.
        rows = page.locator(".rule-row:has(.unit)").evaluate_all(
            """rows => rows.map(row => {
              const field = row.querySelector("input, select");
              const unit = row.querySelector(".unit");
              if (!field || !unit.textContent.trim()) return null;
              const a = field.getBoundingClientRect(), b = unit.getClientRects()[0];
              return [row.className, Math.abs(a.top + a.height / 2 - (b.top + b.height / 2))];
            }).filter(Boolean)"""
        )
        for name, off in rows:
            assert off < 12, (language, width, name, off)
    page.context.close()


# Each label and button of the round form, by the lines its words take (a key of three lines
# pushes its row down and reads badly), and each field whose placeholder is wider than the room
# inside it (the Czech value field once showed "hodno").
KEYS_AND_PLACEHOLDERS = """form => {
  const shown = el => {
    const style = getComputedStyle(el);
    return el.getClientRects().length > 0 && style.visibility !== "hidden"
      && style.clipPath !== "inset(50%)";
  };
  // The lines of its words: the boxes of its text, one line per run of boxes at one height
  // (a box more than half a line below the last one starts the next).
  const lines = el => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const boxes = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || !shown(node.parentElement)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      boxes.push(...[...range.getClientRects()].filter(r => r.width > 0));
    }
    boxes.sort((a, b) => a.top - b.top);
    let count = 0, last = -Infinity;
    for (const box of boxes) {
      if (box.top > last + box.height / 2) { count += 1; last = box.top; }
    }
    return count;
  };
  const keys = [...form.querySelectorAll("label, button, .out-choice span")]
    .filter(el => shown(el) && el.textContent.trim())
    .map(el => [el.textContent.trim().replace(/\\s+/g, " "), lines(el)]);
  const canvas = document.createElement("canvas").getContext("2d");
  const placeholders = [...form.querySelectorAll("input[placeholder]")].filter(shown).map(input => {
    const style = getComputedStyle(input);
    canvas.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight);
    const need = canvas.measureText(input.placeholder).width;
    return [input.placeholder, Math.ceil(need), Math.floor(room)];
  });
  return {keys, placeholders};
}"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_key_takes_three_lines_and_no_placeholder_is_cut(
    browser, live_server, static_from_the_source, games, language
):
    page = language_page(browser, live_server, language)
    for width in [320, 360, 390]:
        page.set_viewport_size({"width": width, "height": 844})
        for path in games["playing"]:
            page.goto(path)
            expect(page.locator("#round-form")).to_be_visible()
            found = page.locator("#round-form").evaluate(KEYS_AND_PLACEHOLDERS)
            assert found["keys"] and found["placeholders"], (language, width, path)
            tall = [(text, lines) for text, lines in found["keys"] if lines > 2]
            assert tall == [], (language, width, path, tall)
            cut = [(text, need, room) for text, need, room in found["placeholders"] if need > room]
            assert cut == [], (language, width, path)
    page.context.close()


# The leader's badge where a row has no room for its word: first place, as each language
# writes it short; never the joker key's star.
FIRST_PLACE = {"en": "1st", "cs": "1.", "sv": "1:a", "bg": "№ 1", "id": "#1"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_leaders_badge_reads_as_first_place_on_a_narrow_phone(
    browser, live_server, static_from_the_source, games, language
):
    page = language_page(browser, live_server, language)
    for width in [320, 360]:
        page.set_viewport_size({"width": width, "height": 740})
        for path in games["playing"]:
            page.goto(path)
            badge = page.locator("#round-form .badge.lead")
            expect(badge).to_have_count(1)
            expect(badge.locator(".badge-short")).to_be_visible()
            expect(badge.locator(".badge-short")).to_have_text(FIRST_PLACE[language])
            drawn = badge.evaluate("el => getComputedStyle(el, '::after').content")
            assert drawn in ("none", "normal"), (language, width, drawn)
            assert "★" not in badge.evaluate("el => el.innerText"), (language, width)
            assert_fits(page, f"{language} {width} {path}", "#round-form")
        # Where the row has room (a tablet, each row across the page), the word itself.
        page.set_viewport_size({"width": 800, "height": 740})
        expect(page.locator("#round-form .badge.lead .badge-short")).to_be_hidden()
    page.context.close()
