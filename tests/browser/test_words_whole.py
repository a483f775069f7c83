"""Every page at 360 x 740 in every language: no word is broken across two lines, and no
label takes more lines than its box allows (a tab of the standings' period and a tag: one line;
the went-out key, a switch, any other button or label: two; a column's header: three).

A word here is what stands between two spaces (a no-break space joins two words into one), and
a line may also end after a hyphen, a dash or a slash. A box that hyphenates (`hyphens: auto`
with the page's `lang`) may break a word with a hyphen, which this Chromium (without
hyphenation dictionaries) never draws, so a word there must fit too. Names as people write them
are part of the pages: a Bulgarian table's long names and a Javanese one's; and six players of
each language with a seventh who joined late, on the players page, a game's statistics and a
table's members and standings."""

import pytest
from playwright.sync_api import Page

from scoring.files import exchange
from scoring.files.exchange import import_game
from scoring.rules import Hand, RoundEntry
from scripts.layout_games import LANGUAGES, every_kind_document, group_table_document
from scripts.long_games import long_game_document
from tests.links import url

# Names at a Bulgarian, Czech, Swedish and Indonesian table, long as such names are.
NAMES = ["Цветелина", "Svatopluk", "Björn-Åke", "Wijayakusuma"]

# Each box that holds a label, with the number of lines its label may take.
LINES = [
    # A row of choices: the period of the standings.
    (".period-tab", 1),
    (".tag", 1),
    # The went-out key: two words go one a line in a narrow row, by design (rami.css).
    ("label.out-choice", 2),
    ("label.switch.not-opened", 2),
    ("label.switch.hand-rummy", 2),
    ("button", 2),
    ("a.link-button, a.button", 2),
    ("label", 2),
    ("thead th", 3),
]

FOUND = """([limits, root]) => {
  // The page, or the part of it named by `root` (a selector).
  const base = root ? document.querySelector(root) : document.body;
  const found = [];
  const visible = el => {
    for (let up = el; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.display === "none" || style.visibility === "hidden"
          || style.clipPath === "inset(50%)") return false;
    }
    return el.getClientRects().length > 0;
  };
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className.trim()
       ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  // The lines a range of text lies on: its rectangles' distinct tops (a pixel apart or more).
  const lines = rects => {
    const tops = [];
    for (const rect of rects) {
      if (rect.width === 0 || rect.height === 0) continue;
      if (!tops.some(top => Math.abs(top - rect.top) < rect.height / 2)) tops.push(rect.top);
    }
    return tops.length;
  };
  // Words broken across two lines.
  const walker = document.createTreeWalker(base, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    // A card face ("10♥", a picture of the card) is no word.
    if (!parent || parent.closest("svg, script, style, noscript, template, [role=img]")) continue;
    if (!visible(parent)) continue;
    const text = node.textContent;
    // A word: no space, hyphen, dash or slash inside (a line may end after those).
    const word = /[^ \\t\\n\\r\\u200b\\-\\u2010\\u2013\\u2014\\/]+[\\-\\u2010\\u2013\\u2014\\/]?/g;
    for (let match = word.exec(text); match; match = word.exec(text)) {
      const piece = match[0].replace(/[\\-\\u2010\\u2013\\u2014\\/]$/, "");
      if (piece.length < 2) continue;
      range.setStart(node, match.index);
      range.setEnd(node, match.index + piece.length);
      if (lines(range.getClientRects()) > 1) {
        found.push({broken: piece, in: name(parent)});
      }
    }
  }
  // A label drawn before a value (a standings card's "Games": CSS content from data-label) in
  // the first column of its grid: broken when a word of it is wider than that column.
  const measure = document.createElement("canvas").getContext("2d");
  for (const el of base.querySelectorAll("[data-label]")) {
    if (!visible(el)) continue;
    const style = getComputedStyle(el);
    const before = getComputedStyle(el, "::before");
    if (style.display !== "grid" || ["none", "normal"].includes(before.content)) continue;
    const column = parseFloat(style.gridTemplateColumns.split(" ")[0]);
    measure.font = before.font;
    for (const piece of el.dataset.label.split(/[ \\t\\n\\r]+/)) {
      if (measure.measureText(piece).width > column + 1) {
        found.push({broken: piece, in: name(el) + "::before"});
      }
    }
  }
  // Labels on more lines than their box allows.
  const seen = new Set();
  for (const [selector, most] of limits) {
    for (const el of base.querySelectorAll(selector)) {
      if (seen.has(el) || !visible(el)) continue;
      seen.add(el);
      if (el.closest("svg")) continue;
      const text = el.innerText.trim();
      if (!text) continue;
      // The lines of its words only (a radio button or a switch's knob beside them is no line).
      const rects = [];
      const inside = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = inside.nextNode(); node; node = inside.nextNode()) {
        if (!node.textContent.trim() || !visible(node.parentElement)) continue;
        range.selectNodeContents(node);
        rects.push(...range.getClientRects());
      }
      const taken = lines(rects);
      if (taken > most) {
        const label = text.replace(/\\s+/g, " ").slice(0, 60);
        found.push({label, in: name(el), lines: taken, most});
      }
    }
  }
  return found;
}"""


@pytest.fixture
def pages(live_server):
    """Every page a phone shows, by its address: a game being played (round form open) with
    long names, a finished game of every kind of round, their watch-only links, round, history,
    players and rules pages, a group's table (a game of it in play) and its rules, the start and
    help pages."""
    document = long_game_document(6, 4, seed=7)
    renamed = dict(zip(document["players"], NAMES, strict=True))
    document["players"] = NAMES
    for one in document["rounds"]:
        one["winner"] = renamed[one["winner"]]
        one["hands"] = {renamed[name]: hand for name, hand in one["hands"].items()}
    playing = import_game(document)
    finished = import_game(every_kind_document())
    table = exchange.import_table(group_table_document())
    # A game in play at the table: its standings say "+1 playing" beside a member's games.
    in_play = table.new_game([member for member in table.members.all() if not member.retired])
    in_play.record_round(
        RoundEntry(
            hands=(Hand(), Hand(value=12), Hand(value=30), Hand(value=7), Hand(value=9)), winner=0
        )
    )
    token = playing.edit_token
    return [
        "/",
        "/rules/",
        "/t/new/",
        url("game", token),
        url("view", playing.view_token),
        url("all_rounds", token),
        url("round", token, number=2),
        url("history", token),
        url("players", token),
        url("game_rules", token),
        url("keep_together", token),
        url("game", finished.edit_token),
        url("game_rules", finished.edit_token),
        url("table", table.edit_token),
        url("table_view", table.view_token),
        url("table_rules", table.edit_token),
        # The start page again, now with this phone's recent games and tables listed.
        "/",
    ]


@pytest.fixture
def phone(browser, live_server):
    """A phone set to a language, `phone(language)`, closed at the test's end: a page left
    open would go on following its game or table on the session's live server through the
    tests after this one."""
    contexts = []

    def opened(language: str) -> Page:
        context = browser.new_context(
            base_url=live_server.url,
            viewport={"width": 360, "height": 740},
            is_mobile=True,
            has_touch=True,
        )
        contexts.append(context)
        context.add_cookies(
            [{"name": "django_language", "value": language, "url": live_server.url}]
        )
        page = context.new_page()
        page.set_default_timeout(10_000)
        return page

    yield opened
    for context in contexts:
        context.close()


def what_breaks(page: Page, path: str, root: str | None = None) -> list[str]:
    """What FOUND finds on the page open at `path` (only in its part `root`, a selector, if
    given), as a failure says it."""
    found = []
    for one in page.evaluate(FOUND, [LINES, root]):
        if "broken" in one:
            found.append(f"{path}: “{one['broken']}” broken across two lines in {one['in']}")
        else:
            found.append(
                f"{path}: “{one['label']}” on {one['lines']} lines in {one['in']}"
                f" (at most {one['most']})"
            )
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_word_is_broken_and_no_label_takes_more_lines_than_its_box_allows(
    phone, static_from_the_source, pages, language
):
    page = phone(language)
    found = []
    for path in pages:
        page.goto(path)
        assert page.locator("html").get_attribute("lang") == language
        # The start page's house rules and every other folded part, unfolded.
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        found += what_breaks(page, path)
    assert found == [], "\n".join(dict.fromkeys(found))


# Six players at a table of each language, named as such people are, long names among them,
# and a seventh who joins late: the pages where names stand beside labels and
# buttons in rows and columns at 360 px.
SIX = {
    "en": ["Christopher", "Elizabeth-Anne", "Maximilian", "Alexandra", "Bartholomew", "Gwendolyn"],
    "cs": ["Kateřina Dvořáková", "Svatopluk", "Bohumila", "Přemysl", "Jaroslava", "Ludmila"],
    "sv": ["Märta-Lena", "Björn-Åke", "Ingegerd", "Östen", "Gunnborg", "Åsa-Karin"],
    "bg": ["Цветелина", "Йорданка", "Стоян", "Ангелина", "Мария", "Иван"],
    "id": ["Budi Santoso", "Nur'aini", "I Wayan", "Ma'ruf", "Wijayakusuma", "Siti"],
}
LATE = {"en": "Josephine", "cs": "Žofie", "sv": "Ylva", "bg": "Калина", "id": "Ketut"}


def six_at_a_table(language: str) -> list[tuple[str, str | None]]:
    """The pages of six players of `language`, each with the part of it checked (None: all):
    a game in play where the second left after round 2 and a seventh joined for round 3 (its
    players page; its statistics, seven seats a column each, on the edit and the watch-only
    link), and a table of the six, the last retired, with finished games enough that every
    member is ranked, and one part-game (its members, standings and head to head).

    The round table of those seven seats is left out: at 360 px a column is narrower than some
    words of a note ("nevyloženo", "стойност"), which rami.css lets break there."""
    names, late = SIX[language], LATE[language]
    hands = [{"value": 7 + seat} for seat in range(7)]

    def round_of(winner: int, playing: list[str]) -> dict:
        return {
            "winner": playing[winner],
            "hands": {name: hands[seat] for seat, name in enumerate(playing) if seat != winner},
        }

    everyone = [*names, late]
    after_the_leave = [name for name in everyone if name != names[1]]
    game = import_game(
        {
            "format": "rami-game/1",
            "players": [
                names[0],
                {"name": names[1], "leaves": 2},
                *names[2:],
                {"name": late, "joins": 3},
            ],
            "rounds": [
                round_of(0, names),
                {"winner": names[2], "hand_rummy": True},
                round_of(3, after_the_leave),
                {
                    "blocked": True,
                    "hands": {name: hands[seat] for seat, name in enumerate(after_the_leave)},
                },
            ],
        }
    )
    games = [
        {
            "format": "rami-game/1",
            "players": [names[(first + step) % 6] for step in range(3)],
            "rounds": [{"winner": names[(first + again) % 6], "hand_rummy": True}],
        }
        for again in range(2)
        for first in range(6)
    ]
    games.append(
        {
            "format": "rami-game/1",
            "players": [names[0], {"name": names[1], "leaves": 1}, names[2], names[3]],
            "rounds": [
                round_of(0, names[:4]),
                *({"winner": names[0], "hand_rummy": True} for _ in range(2)),
            ],
        }
    )
    table = exchange.import_table(
        {
            "format": "rami-table/1",
            "name": "Rami",
            "members": names,
            "retired": [names[5]],
            "games": games,
        }
    )
    return [
        (url("game", game.edit_token), ".statistics"),
        (url("players", game.edit_token), None),
        (url("view", game.view_token), ".statistics"),
        (url("table", table.edit_token), None),
        (url("table_view", table.view_token), None),
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_six_long_names_break_no_word_on_the_players_page_the_members_or_the_statistics(
    phone, static_from_the_source, language
):
    page = phone(language)
    found = []
    for path, root in six_at_a_table(language):
        page.goto(path)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        found += what_breaks(page, path, root)
    assert found == [], "\n".join(dict.fromkeys(found))
