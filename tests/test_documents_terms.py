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

import pytest

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
    return list(csv.reader(io.StringIO(content.removeprefix("\ufeff"))))


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
