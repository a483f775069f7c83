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

from scoring.files.exchange import import_game
from scoring.models import Game
from scoring.rules.card_names import read_typed
from tests.conftest import game_document
from tests.links import url
from tests.pages import Element, read

pytestmark = pytest.mark.django_db

# The documents' words, on the help page (matched ignoring case: a word may start a heading).
ON_THE_HELP_PAGE = {
    "cs": [
        "hodnota karet v ruce",
        "Stručně",
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
        "собствени правила",
    ],
    "id": [
        "belum pernah membuka",
        "nilai kartu di tangan",
        "kartu yang tersisa",
        "Tiga kasus khusus",
        "Sekilas",
        "seri dengan total terendah",
        "penalti sebesar batas maksimum",
        "penalti tetap untuk rami sekaligus",
        "permainan hanya berakhir jika",
    ],
}

# The documents' words on the game page too (its tie-break banner, its notes and round form).
ON_THE_GAME_PAGE = {
    "bg": ["общ брой точки"],
    "id": ["belum pernah membuka"],
}

# The words they replaced, on no page and in no CSV (matched ignoring case).
# ("belum membuka" came back in the fourth pass: the documents' words for the round form's
# switch, where "Belum pernah membuka" took three lines of a 360 px phone.)
REPLACED = {
    "cs": ["hodnota v ruce", "ještě nemá vyloženo", "ve zkratce", "do cílové hranice"],
    "sv": ["ej öppnat", "hann inte öppna", "kvar till poänggränsen"],
    "bg": ["общ сбор", "таванът"],
    "id": [
        "tidak pernah membuka",
        "poin terbanyak menurut aturan",
        "poin tetap rami sekaligus",
        "permainan baru berakhir",
        "membagikan kartu",
    ],
}

# The last row of the table of card values: its name, and what such a card costs (None: the
# name is left to the translator).
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
    return read(get(client, url("game", game.edit_token), language)).one("main")


def csv_rows(client, game: Game, language: str) -> list[list[str]]:
    content = get(client, url("export_csv", game.edit_token), language)
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
    # Czech joins "z" to "ruky" by a no-break space (tests/test_catalogues.py), in both.
    assert [text.replace("\u00a0", " ") for text in row.texts(".tag:not(.tie)")] == [name]
    kinds = {row[1] for row in csv_rows(client, tie_break, language)[1:] if row[0] == "2"}
    assert {kind.replace("\u00a0", " ") for kind in kinds} == {name}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_says_the_never_opened_cap_is_the_most_anyone_scores(client, tie_break, language):
    pages = said(help_page(client, language)) + said(game_page(client, tie_break, language))
    assert [sentence for sentence in FALSE_SENTENCE if sentence in pages] == []
    # What the example says instead, with the engine's numbers: 84 + 25 = 109, capped at 100.
    example = help_page(client, language).one("#example-four_players_one_never_opened").text
    assert "84 + 25 = 109" in example and "100" in example


# The third language pass: each word as the players read it, by the English it
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
        # (The notes and the switch beside a name went to "без откриване" in the fourth pass:
        # the participle "открил" agrees with a man only.)
        (None, "went out"): "приключи",
        (None, "out"): "приключи",
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
        # (The fourth pass changed "value", "out", "went out", the hand rummies and the way to
        # the target again: FOURTH_PASS.)
        (None, "never opened +%(points)s"): "kdo vůbec nevyložil",
        (None, "never opened at most %(points)s"): "kdo vůbec nevyložil",
        (None, "never opened without a cap"): "kdo vůbec nevyložil",
    },
}

# Words the pass replaced: in no msgstr of the language (matched ignoring case), and, where a
# word stays right elsewhere ("Hapus" deletes a round), not as the translation of the entry.
REPLACED_IN_THE_CATALOGUE = {
    "sv": ["(A, 2–10, J, Q, K)"],
    "bg": [],
    "id": ["Head-to-head", "permainan ulang"],
    "cs": ["nevyložení", "zavírá"],
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
    """Each entry's translation by (context, msgid), as the language's .po file has it: the
    plural forms of a plural entry one after another."""
    path = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
    return {
        (entry.msgctxt, entry.msgid): entry.msgstr
        or " | ".join(text for _form, text in sorted(entry.msgstr_plural.items()))
        for entry in polib.pofile(str(path))
        if not entry.obsolete
    }


def missing_in_the_catalogue(language: str, terms: dict[str, str]) -> dict:
    """The entries (by msgid) whose translation does not hold the term a reader asked for."""
    entries = catalogue(language)
    # A term written with spaces is found where Czech joins its words by no-break spaces.
    return {
        key: entries.get(key)
        for key, term in terms.items()
        if term.casefold() not in (entries.get(key) or "").casefold()
        and term.casefold() not in (entries.get(key) or "").replace("\u00a0", " ").casefold()
    }


def left_in_the_catalogue(language: str, words: list[str], translations: dict) -> list:
    """The entries that still hold a replaced word, or still read as a replaced translation."""
    entries = catalogue(language)
    left = [
        (key, text)
        for key, text in entries.items()
        for word in words
        if word.casefold() in text.casefold()
    ]
    left += [
        (key, entries.get(key))
        for key, old in translations.items()
        if entries.get(key, "").casefold() == old.casefold()
    ]
    return left


@pytest.mark.parametrize("language", sorted(THIRD_PASS))
def test_the_third_pass_words_are_in_the_catalogue(language):
    assert missing_in_the_catalogue(language, THIRD_PASS[language]) == {}


@pytest.mark.parametrize("language", sorted(REPLACED_IN_THE_CATALOGUE))
def test_the_words_the_third_pass_replaced_are_gone(language):
    words = REPLACED_IN_THE_CATALOGUE[language]
    translations = REPLACED_TRANSLATION.get(language, {})
    assert left_in_the_catalogue(language, words, translations) == []


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
    # The switch beside each name says the documents' verb in the past tense, which agrees
    # with anyone (the sixth pass; the fifth wrote a man's and a woman's ending side by side,
    # and the fourth the noun "без откриване", a second name for never opened).
    assert "приключи" in page and "Не откри" in page
    # "Победителят откри и приключи" (the hand rummy's hint) says what the winner did: the word
    # that went is the control's own.
    assert "победител" not in page.casefold().split() and "без откриване" not in page


def test_the_start_page_takes_a_game_off_the_list_with_keluarkan(client, four_players):
    client.get(url("game", four_players.edit_token))
    page = read(get(client, "/", "id"))
    button = page.one("button[value=forget]")
    assert button.text.split() == ["Keluarkan", "dari", "daftar", "ini"]


# The fourth pass of the native readers. First: where a player's name stands next to a
# word, the word agrees with anyone, man or woman (a noun, or a sentence without a gendered verb
# or participle): cs "vítěz kola" and not "zavřel" under Dana's points, bg "без откриване" and
# not the participle "открил" beside Цветелина. Then: each reader's list. Each word by the
# English it translates, as THIRD_PASS; the words they replaced below.
COPIES = "This round holds %(count)d copy of the card “%(card)s”, but the deck has only %(limit)d."
NO_JOKERS = "This game's deck has no jokers (a house rule), so no hand can hold one."
NO_JOKER_FOR = (
    "This game's deck has no jokers (a house rule), so the hand of %(player)s cannot hold one."
)
FOURTH_PASS = {
    "cs": {
        # The sixth pass: "zavřeno" agrees with anyone, as "nevyloženo" does ("vítěz" is a man).
        (None, "out"): "zavřeno",
        (None, "went out"): "zavřeno",
        # The seventh reading: "má zavřeno", as "už má vyloženo" (a blocked round's winner
        # still holds cards, so "Kolo vyhrává" said too much).
        (None, "%(player)s went out, so no cards are left in that hand."): "má zavřeno",
        (
            None,
            "%(player)s is chosen for two seats and %(missing)s for none: choose each player for "
            "one seat.",
        ): "%(player)s má vybraná dvě místa",
        (None, "New name for %(name)s"): "Nové jméno (teď %(name)s)",
        (None, "Hand rummies made"): "Zavření z ruky (vlastní)",
        (None, "Hand rummies suffered"): "Zavření z ruky (soupeřů)",
        (None, "value"): "číslo",
        (None, "Not opened yet"): "Nevyloženo",
        (None, "%(points)s to the target"): "zbývá %(points)s",
        (None, COPIES): "„%(card)s“ je v tomto kole %(count)d×",
        (None, "Save mine as round %(next)s"): "Uložit své jako kolo",
        (None, "The winner must be one of the %(count)s players."): "hráčů této hry (%(count)s)",
        (None, "In short"): "Stručně",
        (None, "points"): "body",
        ("link", "Edit round %(number)s"): "Upravit kolo %(number)s",
    },
    "sv": {
        # One line in the went-out key of a 360 px phone, which puts each word on a line.
        (None, "went out"): "gick\u00a0ut",
        (None, NO_JOKERS): "det här partiet",
        (None, NO_JOKER_FOR): "det här partiet",
        # The sixth pass: the button says what it does; "Har slutat" heads the retired.
        (None, "Retire"): "Slutar spela",
        (None, "not opened"): "aldrig öppnat",
        (None, "Not opened yet"): "Har inte öppnat",
        (None, "Caught not opened"): "Aldrig öppnat",
        (None, "Never opened"): "Aldrig öppnat",
        (
            None,
            "Keep the score of a game of Rami at your table. After each round, tap in the cards "
            "left in every hand: the app applies every rule, keeps the totals and says who has "
            "won.",
        ): "Håll koll på poängen",
        (None, "%(points)s to the target"): "%(points)s kvar",
        (None, "Hand rummies suffered"): "Handrummy (andras)",
        (
            None,
            "Shows the same scoreboard, live, but cannot change anything.",
        ): "Visar samma poängställning i realtid, men inget kan ändras där.",
        (None, "Period of the standings"): "Visa ställningen för",
        (None, "Give true or false, not “%(value)s”."): "Ange true eller false",
        ("card notation", "AH JK 5C"): "EH JK 5C",
    },
    "bg": {
        # The sixth pass: the past tense "не откри" agrees with anyone and reads as a count.
        (None, "Not opened yet"): "Не откри",
        (None, "not opened"): "не откри",
        (None, "Never opened"): "Не откри",
        (None, "Caught not opened"): "Не откри",
        (
            None,
            "%(player)s has opened, so this round cannot be a hand rummy.",
        ): "За %(player)s вече е отбелязано откриване",
        (None, "House rules"): "Собствени правила",
        (None, "House rules: %(rules)s"): "Собствени правила: %(rules)s",
        (None, NO_JOKERS): "(собствено правило)",
        (None, "Member retired"): "Член вече не играе",
        (None, "Member came back"): "Член отново играе",
        (None, "Member removed"): "Премахнат е член",
        (None, "Hand rummies made"): "Направи сухо рами",
        (None, "Hand rummies suffered"): "Получи сухо рами",
        (None, "+%(playing)s playing"): "+%(playing)s текуща",
        (None, "Take the table with you"): "Изтегляне на масата",
        (None, "value"): "стойност",
        (
            None,
            "Unknown card “%(card)s”: give a rank (A, 2-10, J, Q, K) with an optional suit "
            "(♠ ♥ ♦ ♣ or S H D C), or JK for a joker.",
        ): "въведете карта",
        (None, "%(rate)s%%"): "%(rate)s%%",
        (None, "%(worth)s + %(penalty)s → %(points)s, the cap"): "→ %(points)s (таван)",
        (None, COPIES): "„%(card)s“ се среща %(count)d пъти",
        ("the card game's name", "Rami"): "Рами",
        ("link", "Edit round %(number)s"): "Промени раздаване %(number)s",
    },
    "id": {
        (None, "Not opened yet"): "Belum membuka",
        (None, "+%(playing)s playing"): "+%(playing)s sedang berlangsung",
        (None, "total"): "total",
        (
            None,
            "Tie-break round: %(names)s share the lowest total, so one more round is played.",
        ): "seri dengan total terendah",
        (
            None,
            "<strong>Tie-break rounds:</strong> the extra round is followed by the same check, as "
            "often as needed: the game ends once one player alone has the lowest total.",
        ): "permainan hanya berakhir jika",
        (
            None,
            "The players who opened score their hand value. The one who never opened scores the "
            "maximum the rule allows: %(hand)s + %(penalty)s = %(sum)s, capped at %(cap)s points.",
        ): "penalti sebesar batas maksimum",
        (
            None,
            "The winner opened and went out in the same turn before anyone else had opened: every "
            "opponent scores the fixed points of a hand rummy, whatever is in the hand.",
        ): "penalti tetap untuk rami sekaligus",
        (None, "Take the table with you"): "Unduh data meja",
        (
            None,
            'Round %(number)s <span class="meta">· %(dealer)s deals</span>',
        ): "pembagi: %(dealer)s",
        (None, "%(order)s; %(dealer)s deals"): "pembagi: %(dealer)s",
        (
            None,
            "A letter of a name carries at most %(limit)s accents or marks.",
        ): "boleh memiliki paling banyak %(limit)s",
        (None, "Caught not opened"): "Kena penalti belum membuka",
        (None, "Never opened"): "Kena penalti belum membuka",
        (None, "Hand rummies made"): "Membuat rami sekaligus",
        (None, "Hand rummies suffered"): "Kena rami sekaligus",
        (
            None,
            "The hand value of %(player)s, %(value)s, is less than the cheapest card (%(limit)s): "
            "a player who did not go out holds at least one card.",
        ): "%(player)s (%(value)s) lebih kecil",
    },
}

# Words the fourth pass replaced, in no msgstr of the language (matched ignoring case), and the
# old translation of an entry whose words stay right elsewhere.
REPLACED_BY_THE_FOURTH_PASS = {
    "cs": [
        "zavřel z ruky",
        "ještě nemá vyloženo",
        "ve zkratce",
        "nové jméno pro",
        "uložit moje kolo",
        "hráč %(player)s",
    ],
    "sv": [
        "ej öppnat",
        "hann inte öppna",
        "det här spelet",
        "kvar till poänggränsen",
        "mot sig",
        "håll räkningen",
        "håller räkningen",
        "ange sant",
        "ställningens period",
    ],
    "bg": [
        "таванът",
        "(свои)",
        "(чужди)",
        "въведете ранг",
        "член се ",
        "член премахнат",
        "променено правило",
        "с промените в правилата",
        "карти „%(card)s“",
    ],
    "id": [
        "poin terbanyak menurut aturan",
        "poin tetap rami sekaligus",
        "permainan baru berakhir",
        "membagikan kartu",
        "membawa %(limit)s",
        "unduh meja",
        "(dilakukan)",
        "(terkena)",
        "jumlah poin terendah",
    ],
}
REPLACED_TRANSLATION_BY_THE_FOURTH_PASS = {
    "cs": {
        (None, "out"): "zavřel",
        (None, "went out"): "zavřel",
        (None, "value"): "hodnota",
        (None, "points"): "bodů",
    },
    "sv": {
        (None, "went out"): "gick ut",
    },
    "bg": {
        (None, "Not opened yet"): "Още не е открил",
        (None, "not opened"): "не е открил",
        (None, "Never opened"): "Не е открил",
        (None, "Caught not opened"): "Не е открил",
        (None, "House rules"): "Промени в правилата",
        (None, "value"): "сума",
        (None, "%(rate)s%%"): "%(rate)s\u00a0%%",
    },
    "id": {
        (None, "Not opened yet"): "Belum pernah membuka",
        (None, "total"): "jumlah",
        (None, "+%(playing)s playing"): "+%(playing)s berlangsung",
    },
}

# The fourth pass's words on the game page (its round form, round table and statistics), as
# anyone reads or hears them (a link's name, a field's placeholder).
FOURTH_PASS_ON_THE_GAME_PAGE = {
    "cs": ["zavřeno", "Nevyloženo", "číslo", "Upravit kolo 1"],
    "sv": ["gick ut", "Har inte öppnat", "Aldrig öppnat", "EH JK 5C", "Ändra omgång 1"],
    "bg": ["Не откри", "стойност", "Промени раздаване 1"],
    "id": ["Belum membuka", "Kena penalti belum membuka", "pembagi:", "Ubah ronde 1"],
}

# The card game's name in the pages' titles and brand: bg as its home-screen name.
GAME_NAME = {"en": "Rami", "cs": "Rami", "sv": "Rami", "bg": "Рами", "id": "Rami"}


@pytest.mark.parametrize("language", sorted(FOURTH_PASS))
def test_the_fourth_pass_words_are_in_the_catalogue(language):
    assert missing_in_the_catalogue(language, FOURTH_PASS[language]) == {}


@pytest.mark.parametrize("language", sorted(REPLACED_BY_THE_FOURTH_PASS))
def test_the_words_the_fourth_pass_replaced_are_gone(language):
    words = REPLACED_BY_THE_FOURTH_PASS[language]
    translations = REPLACED_TRANSLATION_BY_THE_FOURTH_PASS[language]
    assert left_in_the_catalogue(language, words, translations) == []


@pytest.mark.parametrize("language", sorted(FOURTH_PASS_ON_THE_GAME_PAGE))
def test_the_game_page_says_the_fourth_pass_words(client, tie_break, language):
    page = said(game_page(client, tie_break, language)).casefold()
    missing = [
        term for term in FOURTH_PASS_ON_THE_GAME_PAGE[language] if term.casefold() not in page
    ]
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_titles_and_the_brand_name_the_game_as_the_home_screen_does(client, language):
    name = GAME_NAME[language]
    for path in ("/", "/rules/"):
        page = read(get(client, path, language))
        assert page.one("a.brand").text.split()[-1] == name
    assert read(get(client, "/rules/", language)).one("title").text.endswith(f"· {name}")


def test_a_rounds_link_says_what_it_does_and_the_round_page_what_it_is(client, tie_break):
    # The round table's number is a link named by a command ("Upravit kolo 1"); the page it
    # opens is headed by a noun ("Úprava kola 1").
    link = game_page(client, tie_break, "cs").one("tr#round-1 a.round-number")
    assert link.get("aria-label") == "Upravit kolo 1"
    heading = read(get(client, link.get("href"), "cs")).one("h1")
    assert heading.text == "Úprava kola 1"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cards_placeholder_is_a_hand_the_field_reads_in_each_language(
    client, tie_break, language
):
    placeholder = game_page(client, tie_break, language).one("#id_cards_0").get("placeholder")
    expected = "EH JK 5C" if language == "sv" else "AH JK 5C"
    assert placeholder == expected
    # Typed as the placeholder shows it, the hand is an ace of hearts, a joker and a five of
    # clubs: the letters are the card keys' own.
    with translation.override(language):
        assert read_typed(placeholder) == ["AH", "JK", "5C"]
