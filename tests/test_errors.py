"""Rules errors said in the player's language, naming the player and the card."""

import re
from pathlib import Path

import pytest
from django.utils import translation

import scoring
from scoring import rules
from scoring.rules import Hand, RulesError, messages
from scoring.web import limits
from tests.links import url

LANGUAGES = ["en", "cs", "sv", "bg", "id"]
# Enough details for any code's English message to format.
DETAILS = {
    "card": "AH",
    "value": 5,
    "limit": 2,
    "count": 3,
    "target": 0,
    "number": 4,
    "next": 5,
    "now": 3,
    "rule": "joker",
    "low": 0,
    "high": 100,
    "extra": 6,
    "later": 5,
    "missing": 2,
}
NAMES = ["Ana", "Boris", "Cyril"]


SOURCE = "\n".join(
    path.read_text()
    for path in Path(scoring.__file__).parent.rglob("*.py")
    if "migrations" not in path.parts
)


def test_every_code_has_its_words_in_the_one_catalogue():
    codes = {code.value for code in [*rules.Code, *limits.LimitCode]}
    assert codes - {"too_many_copies"} == set(messages.MESSAGES)
    assert set(messages.PLAYER_MESSAGES) <= set(messages.MESSAGES)
    # Every refusal is raised with a Code (the enum), never a string of its own.
    raised = r"\b(RulesError|Conflict|ConfirmFirst|TooMany)\(\s*['\"]"
    assert re.findall(raised, SOURCE) == []
    named = set(re.findall(r"\bCode\.([A-Z_]+)\b", SOURCE))
    assert {"UNKNOWN_CARD", "ROUND_GONE", "NAME_DUPLICATE", "MISSING_BLOCKED_HAND"} <= named
    assert named <= {code.name for code in rules.Code}


def test_an_unknown_code_is_refused_when_raised():
    with pytest.raises(ValueError, match="no_such_code"):
        RulesError("no_such_code")


def test_a_limit_is_the_webs_refusal_not_a_rule():
    # The rules know nothing of limits: their codes and their refusal are the web's.
    assert not hasattr(rules, "TooMany")
    assert not {code.value for code in limits.LimitCode} & {code.value for code in rules.Code}
    with pytest.raises(ValueError, match="too_many_games"):
        RulesError("too_many_games")
    with pytest.raises(ValueError, match="unknown_card"):
        limits.TooMany("unknown_card", retry_after=60)
    assert isinstance(limits.TooMany("too_many_games", retry_after=60), RulesError)


def test_a_rules_error_speaks_english_through_the_catalogue():
    error = RulesError("unknown_card", card="1X")
    assert messages.english(error).startswith("Unknown card “1X”")
    # The plain module's own words, whether Django is loaded or not.
    assert str(error) == "unknown_card (card='1X')"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("code", [*sorted(messages.MESSAGES), "too_many_copies"])
@pytest.mark.parametrize("player", [None, 1])
def test_every_code_reads_in_every_language(language, code, player):
    kind = limits.TooMany if code in set(limits.LimitCode) else RulesError
    error = kind(code, player, **DETAILS)
    with translation.override(language):
        message = messages.rules_error_message(error, NAMES)
    with translation.override("en"):
        english = messages.rules_error_message(error, NAMES)
    assert message
    assert "%(" not in message
    assert message[0] == message[0].upper()
    if language != "en":
        assert message != english
    if player is not None and (code in messages.PLAYER_MESSAGES or code == "too_many_copies"):
        assert "Boris" in message


def test_a_deck_check_failure_names_the_player_and_the_card():
    hands = [Hand(), Hand(cards=("AH", "AH")), Hand(cards=("AH",))]
    with pytest.raises(RulesError) as raised:
        rules.score_round(hands, winner=0, target=200, rules=rules.SEEDS)
    with translation.override("cs"):
        message = messages.rules_error_message(raised.value, NAMES)
    assert message == (
        # Czech joins each one-letter word to the next by a no-break space.
        "Cyril – s\u00a0kartami v\u00a0ruce je „srdcové eso“ v\u00a0tomto kole 3×, ve hře ale "
        "jen 2×."
    )
    with translation.override("en"):
        message = messages.rules_error_message(raised.value, NAMES)
    assert message == (
        "With the hand of Cyril, this round holds 3 copies of the card “ace of hearts”, "
        "but the deck has only 2."
    )


def test_a_joker_in_a_game_without_jokers_is_refused_naming_the_player():
    hands = [Hand(), Hand(cards=("5C", "JK"))]
    with pytest.raises(RulesError) as raised:
        rules.score_round(hands, winner=0, target=100, rules=rules.Rules(jokers_in_deck=0))
    with translation.override("en"):
        message = messages.rules_error_message(raised.value, NAMES)
    assert message == (
        "This game's deck has no jokers (a house rule), so the hand of Boris cannot hold one."
    )
    with translation.override("sv"):
        message = messages.rules_error_message(raised.value, NAMES)
    assert message == (
        "Leken i det här partiet har inga jokrar (en husregel), så Boris kan inte ha någon joker "
        "på handen."
    )


def test_czech_counts_the_copies_of_a_card_in_times():
    # "9 times" whatever the card's gender and the count's plural form (the Czech reader's wording).
    many_kings = RulesError("too_many_copies", card="K", count=9, limit=8)
    with translation.override("cs"):
        assert messages.rules_error_message(many_kings) == (
            "„král“ je v\u00a0tomto kole 9×, ve hře ale jen 8×."
        )


def test_a_hand_rummy_with_an_opened_opponent_names_that_opponent():
    hands = [Hand(), Hand(opened=False), Hand(opened=True)]
    with pytest.raises(RulesError) as raised:
        rules.score_round(hands, winner=0, target=200, hand_rummy=True, rules=rules.SEEDS)
    with translation.override("bg"):
        message = messages.rules_error_message(raised.value, NAMES)
    assert message == (
        "За Cyril вече е отбелязано откриване, затова раздаването не може да е сухо рами."
    )
    with translation.override("id"):
        message = messages.rules_error_message(raised.value, NAMES)
    assert message == "Cyril sudah membuka, jadi ronde ini tidak bisa menjadi rami sekaligus."


def test_an_unknown_card_is_quoted_as_typed():
    with pytest.raises(RulesError) as raised:
        Hand(cards=("1X",))
    with translation.override("sv"):
        message = messages.rules_error_message(raised.value.for_player(2), NAMES)
    assert message.startswith("Okänt kort ”1X” på handen hos Cyril:")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("code", sorted(messages.WAYS_OUT))
def test_a_hand_refused_on_the_round_form_says_what_to_do(language, code):
    """The round form says what is wrong and then the way out ("tap a chosen card to take it
    back"), in the page's language; the importer and the command line say what is wrong."""
    error = RulesError(code, 1, **DETAILS)
    with translation.override(language):
        wrong = messages.rules_error_message(error, NAMES)
        said = messages.round_form_message(error, NAMES)
        way_out = str(messages.WAYS_OUT[code])
    with translation.override("en"):
        english_way_out = str(messages.WAYS_OUT[code])
    assert said == f"{wrong} {way_out}"
    if language != "en":
        assert way_out != english_way_out
    assert english_way_out not in messages.english(error, NAMES)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("hands", "way_out"),
    [
        ({1: "KS KS KS", 2: 5}, "Tap a chosen card to take it back."),
        ({1: "abc", 2: 5}, None),  # an unknown card says how cards are written already
        ({1: 5}, "Tap the cards left in it, or type their value."),
    ],
)
def test_the_round_form_shows_the_way_out_next_to_the_hand(client, hands, way_out):
    from scoring.models import Game
    from tests.conftest import round_post
    from tests.pages import read

    game = Game.start(NAMES)
    page = read(client.post(url("game", game.edit_token), round_post(0, hands)).content.decode())
    said = " ".join(page.texts(".seat-errors .field-error, .hand .field-error"))
    assert said
    if way_out:
        assert said.endswith(way_out), said
    else:
        assert not any(str(way) in said for way in set(messages.WAYS_OUT.values())), said
