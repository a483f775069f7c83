"""Each language speaks as its players' own help page "Counting points" does.

The players' documents (the same help page in Czech, Swedish, Bulgarian and Indonesian) name
the headings, the cases and the columns in words of their own; the app's pages use those words
and not the ones they replaced. The terms are written here, not read from the documents, which a
fresh clone does not have. The help page /rules/, the game page (a game at its tie-break, with a
hand rummy, a player who never opened and the round form) and the CSV export are checked in
every language.
"""

import csv
import io
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.utils import translation

from scoring.cards import read_typed
from scoring.exchange import import_game
from scoring.models import Game
from tests.conftest import game_document
from tests.pages import Element, read

pytestmark = pytest.mark.django_db

# The documents' words, on the help page (matched ignoring case: a word may start a heading).
ON_THE_HELP_PAGE = {
    "cs": [
        "hodnota karet v ruce",
        "Tři zvláštní případy",
        "Konec hry",
    ],
    "sv": [
        "Tre specialfall",
        "Kort sagt",
        "Spelets slut",
        "delar den lägsta totalsumman",
    ],
    "bg": [
        "общ брой точки",
        "изобщо не е открил",
        "Три особени случая",
        "Краят на играта",
    ],
    "id": [
        "belum pernah membuka",
        "nilai kartu di tangan",
        "kartu yang tersisa",
        "Tiga kasus khusus",
        "Sekilas",
        "seri dengan total terendah",
    ],
}

# The documents' words on the game page too (its tie-break banner, its notes and round form).
ON_THE_GAME_PAGE = {
    "bg": ["общ брой точки"],
    "id": ["belum pernah membuka"],
}

# The words they replaced, on no page and in no CSV (matched ignoring case).
REPLACED = {
    "cs": ["hodnota v ruce"],
    "sv": [],
    "bg": ["общ сбор"],
    "id": ["tidak pernah membuka", "belum membuka"],
}

# The last row of the table of card values: its name, and what such a card costs (None: the
# issue's list of terms leaves it to the translator).
TWO_TO_TEN = {
    "en": ("Two to ten", "the number on the card"),
    "cs": ("Od dvojky po desítku", "hodnota karty"),
    "sv": ("Två till tio", "kortets värde"),
    "bg": (None, "стойността на картата"),
}

# What the round table and the CSV call a hand rummy, where the short form is not the players'.
HAND_RUMMY_TAG = {"cs": "zavření z ruky"}

# The false sentence the four-player example once said in every language (the never-opened cap
# called "the most a player can score without a hand rummy": a player who opened can score more,
# JK JK A A K K Q Q J J is 122). A piece of each translation, so that none of them comes back.
FALSE_SENTENCE = [
    "the most a player can score without a hand rummy",
    "kolik lze bez zavření z ruky",
    "det mesta en spelare kan få utan handrummy",
    "което играч може да получи без сухо рами",
    "yang bisa didapat tanpa rami sekaligus",
]

LANGUAGES = ["en", "cs", "sv", "bg", "id"]
TRANSLATED = ["cs", "sv", "bg", "id"]


def said(page: Element) -> str:
    """Everything a page may show or read out, hidden now or not."""
    return " ".join(page.strings())


def get(client, path: str, language: str) -> str:
    response = client.get(path, headers={"accept-language": language})
    assert response.status_code == 200
    assert response["Content-Language"] == language
    return response.content.decode("utf-8")


@pytest.fixture
def tie_break(db) -> Game:
    """every_kind before its last round: a hand rummy (round 2), a player who never opened
    (round 1), a tie-break to play, and the round form open."""
    document = game_document("every_kind")
    document["rounds"].pop()
    return import_game(document)


def help_page(client, language: str) -> Element:
    return read(get(client, "/rules/", language)).one("article")


def game_page(client, game: Game, language: str) -> Element:
    return read(get(client, f"/g/{game.edit_token}/", language)).one("main")


def csv_rows(client, game: Game, language: str) -> list[list[str]]:
    content = get(client, f"/g/{game.edit_token}/export.csv", language)
    # Fields are separated as the language's spreadsheets expect (tests/test_csv_spreadsheets.py).
    delimiter = "," if language == "en" else ";"
    return list(csv.reader(io.StringIO(content.removeprefix("\ufeff")), delimiter=delimiter))


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_help_page_uses_the_documents_terms(client, language):
    page = help_page(client, language).text.casefold()
    missing = [term for term in ON_THE_HELP_PAGE[language] if term.casefold() not in page]
    assert missing == []


@pytest.mark.parametrize("language", sorted(ON_THE_GAME_PAGE))
def test_the_game_page_uses_the_documents_terms(client, tie_break, language):
    page = game_page(client, tie_break, language).text.casefold()
    missing = [term for term in ON_THE_GAME_PAGE[language] if term.casefold() not in page]
    assert missing == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_page_uses_the_replaced_terms(client, tie_break, language):
    pages = {
        "help page": said(help_page(client, language)),
        "game page": said(game_page(client, tie_break, language)),
        "CSV": "\n".join(",".join(row) for row in csv_rows(client, tie_break, language)),
    }
    found = [
        (where, term)
        for where, page in pages.items()
        for term in REPLACED[language]
        if term.casefold() in page.casefold()
    ]
    assert found == []


@pytest.mark.parametrize("language", sorted(TWO_TO_TEN))
def test_two_to_ten_cost_the_cards_value(client, language):
    rows = help_page(client, language).one("table.card-values").rows("tbody tr")
    name, value = rows[-1]
    expected_name, expected_value = TWO_TO_TEN[language]
    assert expected_name is None or name.endswith(expected_name), name
    assert value == expected_value


@pytest.mark.parametrize("language", sorted(HAND_RUMMY_TAG))
def test_a_hand_rummy_is_named_in_full_in_the_round_table_and_the_csv(client, tie_break, language):
    name = HAND_RUMMY_TAG[language]
    row = game_page(client, tie_break, language).one("tr#round-2")
    assert row.texts(".tag:not(.tie)") == [name]
    kinds = {row[1] for row in csv_rows(client, tie_break, language)[1:] if row[0] == "2"}
    assert kinds == {name}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_says_the_never_opened_cap_is_the_most_anyone_scores(client, tie_break, language):
    pages = said(help_page(client, language)) + said(game_page(client, tie_break, language))
    assert [sentence for sentence in FALSE_SENTENCE if sentence in pages] == []
    # What the example says instead, with the engine's numbers: 84 + 25 = 109, capped at 100.
    example = help_page(client, language).one("#example-four_players_one_never_opened").text
    assert "84 + 25 = 109" in example and "100" in example


# The third language pass (issue 25): each word as the players read it, by the English it
# translates (context, msgid), and the words it replaced, in no entry of the catalogue.
THIRD_PASS = {
    "sv": {
        # The card keys show E, Kn, D and K, and both those and A, J, Q are read (cards.read_typed).
        (
            None,
            "Unknown card “%(card)s”: give a rank (A, 2-10, J, Q, K) with an optional suit "
            "(♠ ♥ ♦ ♣ or S H D C), or JK for a joker.",
        ): "E eller A, 2–10, Kn eller J, D eller Q, K",
        (
            None,
            "Unknown card “%(card)s” in the hand of %(player)s: give a rank (A, 2-10, J, Q, K) "
            "with an optional suit (♠ ♥ ♦ ♣ or S H D C), or JK for a joker.",
        ): "E eller A, 2–10, Kn eller J, D eller Q, K",
    },
    "bg": {
        (None, "went out"): "приключи",
        (None, "out"): "приключи",
        (None, "not opened"): "не е открил",
        (None, "Not opened yet"): "не е открил",
        (None, "Never opened"): "не е открил",
        (None, "Caught not opened"): "не е открил",
        (None, "never opened +%(points)s"): "не е открил",
    },
    "id": {
        (None, "Head to head"): "Rekor pertemuan",
        ("this browser's list", "Remove"): "Keluarkan",
        (None, "deals next"): "membagi",
        (None, "Rematch"): "Main lagi",
        (None, "The game is over: start a rematch to play on."): "“Main lagi”",
        (None, "Only a finished game has a rematch: play on until someone wins."): "“Main lagi”",
    },
    "cs": {
        (None, "value"): "hodnota",
        (None, "never opened +%(points)s"): "bez vyložení",
        (None, "never opened at most %(points)s"): "bez vyložení",
        (None, "never opened without a cap"): "bez vyložení",
        (None, "out"): "zavřel",
        (None, "went out"): "zavřel",
        (None, "Hand rummies made"): "Zavřel z ruky",
        (None, "Hand rummies suffered"): "Soupeř zavřel z ruky",
        (None, "%(points)s to the target"): "ještě %(points)s do cílové hranice",
    },
}

# Words the pass replaced: in no msgstr of the language (matched ignoring case), and, where a
# word stays right elsewhere ("Hapus" deletes a round), not as the translation of the entry.
REPLACED_IN_THE_CATALOGUE = {
    "sv": ["(A, 2–10, J, Q, K)"],
    "bg": ["без откриване"],
    "id": ["Head-to-head", "permainan ulang"],
    "cs": ["nevyložení", "zavírá", "(vlastní)", "(soupeřů)"],
}
REPLACED_TRANSLATION = {
    "bg": {(None, "went out"): "победител", (None, "out"): "победител"},
    "id": {
        ("this browser's list", "Remove"): "Hapus",
        (None, "deals next"): "pembagi berikutnya",
    },
    "cs": {(None, "value"): "v ruce"},
}


def catalogue(language: str) -> dict[tuple, str]:
    """Each entry's translation by (context, msgid), as the language's .po file has it."""
    path = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
    return {
        (entry.msgctxt, entry.msgid): entry.msgstr
        for entry in polib.pofile(str(path))
        if not entry.obsolete
    }


@pytest.mark.parametrize("language", sorted(THIRD_PASS))
def test_the_third_pass_words_are_in_the_catalogue(language):
    entries = catalogue(language)
    wrong = {
        key: entries.get(key)
        for key, term in THIRD_PASS[language].items()
        if term.casefold() not in (entries.get(key) or "").casefold()
    }
    assert wrong == {}


@pytest.mark.parametrize("language", sorted(REPLACED_IN_THE_CATALOGUE))
def test_the_words_the_third_pass_replaced_are_gone(language):
    entries = catalogue(language)
    left = [
        (key, text)
        for key, text in entries.items()
        for word in REPLACED_IN_THE_CATALOGUE[language]
        if word.casefold() in text.casefold()
    ]
    left += [
        (key, entries.get(key))
        for key, old in REPLACED_TRANSLATION.get(language, {}).items()
        if entries.get(key, "").casefold() == old.casefold()
    ]
    assert left == []


def test_the_swedish_letters_the_error_lists_are_read_as_cards():
    # Every letter the Swedish error offers is one a Swedish hand may be typed with.
    with translation.override("sv"):
        assert read_typed("E Kn D K A J Q 10H KnH") == [
            "A",
            "J",
            "Q",
            "K",
            "A",
            "J",
            "Q",
            "10H",
            "JH",
        ]


def test_the_round_form_says_went_out_and_not_opened_in_the_documents_words(client, tie_break):
    page = game_page(client, tie_break, "bg").one("form.round-form").text
    assert "приключи" in page and "Още не е открил" in page
    # "Победителят откри и приключи" (the hand rummy's hint) says what the winner did: the word
    # that went is the control's own.
    assert "победител" not in page.casefold().split() and "без откриване" not in page


def test_the_start_page_takes_a_game_off_the_list_with_keluarkan(client, four_players):
    client.get(f"/g/{four_players.edit_token}/")
    page = read(get(client, "/", "id"))
    button = page.one("button[value=forget]")
    assert button.text.split() == ["Keluarkan", "dari", "daftar", "ini"]
