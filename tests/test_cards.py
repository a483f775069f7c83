"""Card names, face letters and suit symbols in every language (scoring/rules/card_names.py)."""

from pathlib import Path

import pytest
from django.utils import translation

from scoring import rules
from scoring.rules import RulesError, card_names

LANGUAGES = ["en", "cs", "sv", "bg", "id"]

RANK_WORDS = dict(
    zip(
        rules.RANKS,
        [
            "ace",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "jack",
            "queen",
            "king",
        ],
        strict=True,
    )
)
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


@pytest.mark.parametrize(
    ("language", "code", "name"),
    [
        ("en", "AH", "ace of hearts"),
        ("en", "K", "king"),
        ("en", "JK", "joker"),
        ("cs", "AH", "srdcové eso"),
        ("cs", "KS", "pikový král"),
        ("cs", "QD", "kárová dáma"),
        ("cs", "5C", "trefová pětka"),
        ("cs", "JC", "trefový kluk"),
        ("cs", "9H", "srdcová devítka"),
        ("cs", "K", "král"),
        ("cs", "JK", "žolík"),
        ("sv", "AH", "hjärter ess"),
        ("sv", "KS", "spader kung"),
        ("sv", "5C", "klöver fem"),
        ("sv", "JK", "joker"),
        ("bg", "AH", "асо купа"),
        ("bg", "KS", "поп пика"),
        ("bg", "5C", "петица спатия"),
        ("bg", "JK", "жокер"),
        ("id", "AH", "As hati"),
        ("id", "5C", "lima keriting"),
        ("id", "QD", "ratu wajik"),
        ("id", "JK", "joker"),
    ],
)
def test_card_name_speaks_the_language_of_the_players(language, code, name):
    with translation.override(language):
        assert card_names.card_name(code) == name


def test_card_codes_are_read_as_the_rules_read_them():
    with translation.override("en"):
        assert card_names.card_name("10h") == "ten of hearts"
        assert card_names.card_name("A♥") == "ace of hearts"
        assert card_names.card_name("jk") == "joker"


def test_an_unknown_card_is_refused():
    with pytest.raises(RulesError) as raised:
        card_names.card_name("1X")
    assert raised.value.code == "unknown_card"


def test_the_table_names_every_card_once_and_matches_its_code():
    """52 cards, 13 ranks alone and the joker; each English name says its own code."""
    assert set(card_names.CARD_NAMES) == set(card_names.ALL_CODES)
    assert len(card_names.ALL_CODES) == 66
    with translation.override("en"):
        for code in card_names.ALL_CODES:
            rank, suit = rules.card_rank(code), rules.card_suit(code)
            if rank == rules.JOKER:
                expected = "joker"
            elif suit is None:
                expected = RANK_WORDS[rank]
            else:
                expected = f"{RANK_WORDS[rank]} of {SUIT_WORDS[suit]}"
            assert card_names.card_name(code) == expected


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_tells_all_66_cards_apart(language):
    with translation.override(language):
        names = {card_names.card_name(code) for code in card_names.ALL_CODES}
    assert len(names) == 66


def test_face_letters_and_suit_symbols():
    assert [card_names.rank_label(rank) for rank in ("A", "10", "J", "Q", "K")] == [
        "A",
        "10",
        "J",
        "Q",
        "K",
    ]
    assert card_names.rank_label("AH") == "A"
    assert card_names.rank_label("JK") == card_names.JOKER_FACE
    assert card_names.suit_symbol("AH") == "♥"
    assert card_names.suit_symbol("10s") == "♠"
    assert card_names.suit_symbol("K") == ""
    assert card_names.suit_symbol("JK") == ""


@pytest.mark.parametrize(
    ("language", "names"),
    [("en", "spades hearts diamonds clubs"), ("cs", "piky srdce káry trefy")],
)
def test_suit_names(language, names):
    with translation.override(language):
        assert [card_names.suit_name(suit) for suit in "SHDC"] == names.split()
        assert card_names.suit_name("♥") == names.split()[1]


def test_card_face_is_red_for_hearts_and_diamonds_and_marks_the_joker():
    with translation.override("sv"):
        heart, club, joker = card_names.card_faces(["AH", "5C", "JK"])
    assert (heart.label, heart.symbol, heart.red, heart.name) == ("E", "♥", True, "hjärter ess")
    assert (club.red, club.joker) == (False, False)
    assert (joker.joker, joker.red, joker.name) == (True, False, "joker")
    assert card_names.card_face("QD").red


def test_the_rules_module_stays_free_of_django():
    assert "django" not in Path(rules.__file__).read_text(encoding="utf-8")


def test_a_swedish_table_types_the_letters_of_its_own_packs():
    """Swedish packs print E, Kn, D and K (World of Playing Cards, "Sweden"; A. Pollett's list
    of card indices): typed in Swedish they are the ace, the jack, the queen and the king; the
    card notation's own letters are understood too."""
    with translation.override("sv"):
        assert card_names.read_typed("E KnH dd K 10D JK QS 2♥") == [
            "A",
            "JH",
            "QD",
            "K",
            "10D",
            "JK",
            "QS",
            "2♥",
        ]
        assert [card_names.rank_label(rank) for rank in ("A", "J", "Q", "K")] == [
            "E",
            "Kn",
            "D",
            "K",
        ]
    with translation.override("en"):
        assert card_names.read_typed("E KnH D") == ["E", "KnH", "D"]
