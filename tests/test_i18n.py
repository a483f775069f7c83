"""Every page in five languages: chosen from the browser, switchable, remembered, complete."""

import re

import polib
import pytest
from django.conf import settings

from scoring.files.exchange import import_game
from scoring.models import Game
from tests.conftest import game_document, round_post
from tests.links import url
from tests.pages import read
from tests.test_catalogues import SAME_AS_ENGLISH

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

LANGUAGES = [code for code, _name in settings.LANGUAGES]
TRANSLATED = [code for code in LANGUAGES if code != "en"]
PAGES = ["/", "/rules/"]
# Every state a page can be in, as visitors see it (see `visit`).
STATES = [
    "start",
    "start-with-recent-games",
    "start-with-errors",
    "rules",
    "new-game",
    "game-with-errors",
    "tie-break",
    "finished",
    "view-link",
    "edit-round",
    "history",
]
# The same in every language: the game's name, the languages' own names in the switcher, and
# the players' names of the games below.
NAMES = {"Ana", "Boris", "Cyril", "Dana"}
EVERY_LANGUAGE = {"Rami", *(name for _code, name in settings.LANGUAGES), *NAMES}


CARD_CODES = re.compile(r"\b(?:JK|(?:10|[2-9AJQK])[SHDC]?)\b")
ASIDE = re.compile(r"\b(?:" + "|".join(sorted(EVERY_LANGUAGE, key=len, reverse=True)) + r")\b")


def interface_words(text: str) -> str:
    """What is left of a text once names and card codes are set aside."""
    return CARD_CODES.sub("", ASIDE.sub("", text))


def get(client, path: str, language: str) -> str:
    response = client.get(path, headers={"accept-language": language})
    assert response.status_code == 200
    assert response["Content-Language"] == language
    return response.content.decode()


@pytest.fixture
def games(db) -> dict[str, Game]:
    finished = import_game(game_document("every_kind"))
    tie_break = game_document("every_kind")
    tie_break["rounds"].pop()
    return {
        "new": Game.start(sorted(NAMES)),
        "tie-break": import_game(tie_break),
        "finished": finished,
    }


def visit(client, state: str, language: str, games: dict[str, Game]) -> str:
    """The page in `state`, in `language`."""
    headers = {"accept-language": language}
    new, finished = games["new"], games["finished"]
    if state == "start-with-recent-games":
        for game in games.values():
            client.get(url("game", game.edit_token))
        client.get(url("view", finished.view_token))
    if state.startswith("start"):
        if state == "start-with-errors":
            response = client.post("/", {"player_0": "Ana", "player_1": "ana"}, headers=headers)
        else:
            response = client.get("/", headers=headers)
    elif state == "rules":
        response = client.get("/rules/", headers=headers)
    elif state == "game-with-errors":
        data = round_post(0, {1: "1X", 2: "AH AH AH", 3: (-3, "no")})
        response = client.post(url("game", new.edit_token), data, headers=headers)
    elif state == "view-link":
        response = client.get(url("view", finished.view_token), headers=headers)
    elif state == "edit-round":
        response = client.get(url("round", finished.edit_token, number=1), headers=headers)
    elif state == "history":
        finished.delete_round(finished.rounds.get(number=2))
        first = finished.rounds.get(number=1)
        finished.edit_round(first, first.entry(4))
        response = client.get(url("history", finished.edit_token), headers=headers)
    else:
        game = {"new-game": new, "tie-break": games["tie-break"], "finished": finished}[state]
        response = client.get(url("game", game.edit_token), headers=headers)
    assert response.status_code == 200
    assert response["Content-Language"] == language
    return response.content.decode()


def same_in(language: str) -> set[str]:
    """Messages whose translation is rightly the English word (id "Target", sv "Joker")."""
    catalogue = polib.pofile(
        str(settings.BASE_DIR / "locale" / language / "LC_MESSAGES" / "django.po")
    )
    return {entry.msgid for entry in catalogue if entry.msgstr == entry.msgid}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_accept_language_chooses_the_language_and_html_lang_says_it(client, path, language):
    assert read(get(client, path, language)).get("lang") == language


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("state", STATES)
def test_no_english_interface_string_is_left(client, games, state, language):
    """Every English text of the page (as an English visitor sees it) is gone in the other
    language, except names and words that the language shares with English."""
    english = read(visit(client, state, "en", games)).strings()
    translated = "\n".join(read(visit(client, state, language, games)).strings())
    allowed = EVERY_LANGUAGE | SAME_AS_ENGLISH[language]

    def english_words(text: str) -> bool:
        return len(re.findall(r"[A-Za-z]", interface_words(text))) >= 4 and text not in allowed

    def still_there(text: str) -> bool:
        # As whole words: Swedish "totalsumman" holds no English "total".
        return re.search(rf"(?<!\w){re.escape(text)}(?!\w)", translated) is not None

    # A card key's name is its face and the card's name ("J, jack"): each part on its own.
    left = [
        text
        for text in english
        if any(english_words(part) for part in text.split(", ")) and still_there(text)
    ]
    assert left == []


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("state", STATES)
def test_no_english_message_is_left(client, games, state, language):
    """The same from the catalogue's side: no piece of an English msgid longer than a few
    words shows on the translated page (card codes and placeholders cut out)."""
    catalogue = polib.pofile(
        str(settings.BASE_DIR / "locale" / language / "LC_MESSAGES" / "django.po")
    )
    translated = "\n".join(read(visit(client, state, language, games)).strings())
    for entry in catalogue:
        if entry.obsolete or entry.msgstr == entry.msgid:
            continue
        for piece in re.split(r"%\(\w+\)[sd]|<[^>]+>", entry.msgid):
            piece = piece.strip(" .,:;")
            if len(piece) >= 12:
                assert piece not in translated, (entry.msgid, piece)


def test_the_switcher_is_on_every_page_and_works_without_javascript(client):
    for path in PAGES:
        form = read(get(client, path, "en")).one("form.language")
        assert (form.get("action"), form.get("method")) == ("/i18n/setlang/", "post"), path
        assert form.one("input[name=csrfmiddlewaretoken]").get("value")
        following = form.one("input[name=next]")
        assert (following.get("type"), following.get("value")) == ("hidden", path)
        assert form.one("select#language-select").get("name") == "language"
        options = form.select("select option")
        assert [(option.get("value"), option.text) for option in options] == list(
            settings.LANGUAGES
        )
        assert all(option.get("lang") == option.get("value") for option in options)
        assert [option.get("value") for option in options if option.checked] == ["en"]
        assert form.one("button").get("type") == "submit"


def test_the_switcher_shows_the_current_language_selected(client):
    shown = read(get(client, "/", "bg"))
    assert shown.texts("form.language option:checked") == ["Български"]
    assert "Език" in shown.text
    assert "Смени" in shown.text


def test_the_chosen_language_is_remembered_over_the_browsers(client):
    response = client.post("/i18n/setlang/", {"language": "cs", "next": "/rules/"})
    assert response.status_code == 302
    assert response["Location"] == "/rules/"
    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "cs"
    assert int(cookie["max-age"]) >= 300 * 24 * 60 * 60
    # The cookie now wins over the browser's Accept-Language.
    assert "Počítání bodů" in read(get(client, "/rules/", "cs")).text
    response = client.get("/rules/", headers={"accept-language": "sv"})
    assert read(response).get("lang") == "cs"


def test_every_page_links_to_the_help_page(client):
    for path in PAGES:
        help_link = read(get(client, path, "sv")).one("a.help")
        assert (help_link.get("href"), help_link.text) == ("/rules/", "Räkna poäng")


@pytest.mark.parametrize("state", STATES)
def test_pages_need_no_inline_script_or_style(client, games, state):
    """The site runs under a strict Content-Security-Policy."""
    html = visit(client, state, "en", games)
    assert not re.search(r"<script(?![^>]*\ssrc=)", html)
    assert not re.search(r"\son[a-z]+=", html)
    assert " style=" not in html
    assert "<style" not in html


def test_start_page_in_indonesian(client):
    shown = read(get(client, "/", "id"))
    assert "Pencatat skor Rami" in shown.text
    assert "Catat skor permainan Rami di meja Anda." in shown.text
