"""House rules (docs/formats.md): a game plays by its own card values, penalties, hand-rummy
score and target; the seeds' rules stay the default everywhere."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import rules
from scoring.files.exchange import ExchangeError, export_game, import_game
from scoring.models import Game
from scoring.rules import Hand, Rules, RulesError, messages, score_round
from scoring.rules.house_rules import in_words, summary
from tests.conftest import round_post, totals
from tests.links import url
from tests.pages import read

VARIANT = {
    "joker": 50,
    "ace": 1,
    "not_opened_penalty": 0,
    "not_opened_cap": None,
    "hand_rummy": "double",
    "target": 500,
}
# The worked example of docs/formats.md, house rules.
EXAMPLE = {
    "format": "rami-game/1",
    "players": ["Ana", "Boris", "Cyril"],
    "rules": VARIANT,
    "rounds": [
        {
            "winner": "Ana",
            "hands": {
                "Boris": {"cards": ["AH", "JK", "5C"]},
                "Cyril": {"value": 49, "opened": False},
            },
        },
        {
            "winner": "Boris",
            "hand_rummy": True,
            "hands": {"Ana": {"cards": ["KH", "QS"]}, "Cyril": {"cards": ["JK", "2C"]}},
        },
    ],
}


# The engine.

card_codes = st.sampled_from(
    [rank + suit for rank in rules.RANKS for suit in rules.SUITS] + list(rules.RANKS) + ["JK"]
)
loser_hands = st.one_of(
    st.builds(
        Hand, cards=st.lists(card_codes, min_size=1, max_size=6).map(tuple), opened=st.booleans()
    ),
    st.builds(Hand, value=st.integers(2, 120), opened=st.booleans()),
)


@st.composite
def rounds(draw):
    losers = draw(st.lists(loser_hands, min_size=2, max_size=5))
    winner = draw(st.one_of(st.none(), st.integers(0, len(losers))))
    if winner is not None:
        losers = losers[:5]
    hands = list(losers)
    if winner is not None:
        hands.insert(winner, Hand())
    return hands, winner


@st.composite
def house_rules(draw):
    def number(name):
        low, high = Rules.RANGES[name]
        return draw(st.integers(low, high))

    return Rules(
        joker=number("joker"),
        ace=number("ace"),
        face=number("face"),
        not_opened_penalty=number("not_opened_penalty"),
        not_opened_cap=draw(st.one_of(st.none(), st.integers(1, 1000))),
        not_opened_cap_half_target=draw(st.booleans()),
        hand_rummy=draw(st.one_of(st.just("double"), st.integers(1, 1000))),
        target=draw(st.one_of(st.none(), st.integers(50, 10000))),
        target_per_opponent=number("target_per_opponent"),
        jokers_in_deck=number("jokers_in_deck"),
    )


def scored(hands, winner, target, house=None, hand_rummy=False):
    try:
        if house is None:
            return score_round(hands, winner, target, hand_rummy=hand_rummy, rules=rules.SEEDS)
        return score_round(hands, winner, target, hand_rummy=hand_rummy, rules=house)
    except RulesError as error:
        return error.code


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_the_seeds_rules_give_what_the_rules_gave_without_them(round_):
    hands, winner = round_
    target = rules.target_for(len(hands), rules.SEEDS)
    assert scored(hands, winner, target) == scored(hands, winner, target, Rules())
    assert rules.target_for(len(hands), Rules()) == target
    for hand in hands:
        assert rules.hand_value(hand.cards, Rules()) == rules.hand_value(hand.cards, rules.SEEDS)


@settings(max_examples=300, deadline=None)
@given(rounds(), house_rules(), st.booleans())
def test_under_any_house_rules_a_winner_scores_0_and_no_points_are_negative(
    round_, house, hand_rummy
):
    hands, winner = round_
    if hand_rummy:
        hands = [Hand(cards=h.cards, value=h.value, opened=False) for h in hands]
    target = house.target_for(len(hands))
    points = scored(hands, winner, target, house, hand_rummy and winner is not None)
    if isinstance(points, str):
        return  # refused (the deck check, a value below the cheapest card, ...)
    assert all(point >= 0 for point in points)
    if winner is not None:
        assert points[winner] == 0
    for hand, point, seat in zip(hands, points, range(len(hands)), strict=True):
        if seat != winner and not hand.opened and not hand_rummy:
            if house.not_opened_cap is not None:
                assert point <= max(house.not_opened_cap, 0) or point == 0
            if house.not_opened_cap_half_target:
                assert point <= target // 2


def test_every_value_is_checked_on_creation():
    with pytest.raises(RulesError) as raised:
        Rules(joker=101)
    assert raised.value.code == "bad_rule"
    assert messages.english(raised.value) == "Give a whole number from 0 to 100, not “101”."


# The exchange format.


def test_the_worked_example_scores_by_its_rules_on_the_page_in_the_csv_and_the_export(client, db):
    game = import_game(json.loads(json.dumps(EXAMPLE)))
    document = export_game(game)
    assert [r["points"] for r in document["rounds"]] == [
        {"Ana": 0, "Boris": 56, "Cyril": 49},
        {"Ana": 40, "Boris": 0, "Cyril": 104},
    ]
    assert document["totals"] == {"Ana": 40, "Boris": 56, "Cyril": 153}
    assert (document["target"], document["status"]) == (500, "playing")
    assert document["rules"] == {**Rules().document(), **VARIANT}

    shown = read(client.get(url("game", game.edit_token)))
    assert totals(shown) == [40, 56, 153]
    assert "Target 500" in shown.text

    text = client.get(url("view_export_csv", game.view_token)).content.decode("utf-8-sig")
    table = list(csv.reader(io.StringIO(text)))
    assert [row[6] for row in table[1:]] == ["0", "56", "49", "40", "0", "104"]
    # The hand values by the game's card values: A♥ joker 5♣ is 56, K♥ Q♠ 20, joker 2♣ 52.
    assert [row[4] for row in table[1:]] == ["0", "56", "49", "20", "0", "52"]
    assert [row[7] for row in table[-3:]] == ["40", "56", "153"]

    # Export, import, export: the same document.
    assert export_game(import_game(document)) == document


BAD_RULES = [
    ([], '"rules" must be an object of house rules'),
    ({"jokers": 20}, '"rules": unknown key "jokers"'),
    ({"joker": 101}, '"rules": "joker": Give a whole number from 0 to 100'),
    ({"joker": -1}, '"rules": "joker": Give a whole number from 0 to 100'),
    ({"ace": 0}, '"rules": "ace": Give a whole number from 1 to 25'),
    ({"face": "ten"}, '"rules": "face": Give a whole number from 1 to 25'),
    ({"not_opened_cap": 0}, '"rules": "not_opened_cap": Give a whole number from 1 to 1000'),
    ({"hand_rummy": "triple"}, '"rules": "hand_rummy": Give a whole number from 1 to 1000'),
    ({"target": 49}, '"rules": "target": Give a whole number from 50 to 10000'),
    ({"jokers_in_deck": 9}, '"rules": "jokers_in_deck": Give a whole number from 0 to 8'),
    ({"not_opened_cap_half_target": "yes"}, '"rules": "not_opened_cap_half_target": Give true'),
    ({"target_per_opponent": 2.5}, '"rules": "target_per_opponent": Give a whole number'),
]


@pytest.mark.parametrize(("bad", "message"), BAD_RULES)
def test_a_bad_rules_object_is_refused_in_one_line_and_nothing_is_stored(db, bad, message):
    document = {**json.loads(json.dumps(EXAMPLE)), "rules": bad}
    with pytest.raises(ExchangeError) as raised:
        import_game(document)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)
    assert not Game.objects.exists()


# The start form and the round form.


def start_post(**house) -> dict:
    data = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril", "rules_shown": "on"}
    seeds = {
        "joker": "20",
        "ace": "11",
        "face": "10",
        "not_opened_penalty": "25",
        "not_opened_cap": "100",
        "not_opened_cap_half_target": "on",
        "hand_rummy": "fixed",
        "hand_rummy_points": "200",
        "target_per_opponent": "100",
        "target": "",
        "jokers_in_deck": "4",
    }
    return {**data, **seeds, **house}


def test_a_game_started_with_house_rules_scores_by_them(client, db):
    response = client.post("/", start_post(joker="50", ace="1", hand_rummy="double", target="500"))
    assert response.status_code == 303
    game = Game.objects.get()
    assert game.rules == Rules(joker=50, ace=1, hand_rummy="double", target=500)
    page = url("game", game.edit_token)
    preview = client.post(page, round_post(0, {1: "AH JK 5C", 2: 49}, action="preview"))
    points = read(preview).one("#points-1")
    assert (points.text, points.get("hx-swap-oob")) == ("56", "true")
    assert client.post(page, round_post(0, {1: "AH JK 5C", 2: 49})).status_code == 303
    assert game.totals() == [0, 56, 49]
    assert "Target 500" in read(client.get(page)).text


def test_a_game_started_without_house_rules_plays_the_seeds(client, db):
    client.post("/", start_post())
    client.post("/", {"player_0": "Dana", "player_1": "Emil"})
    assert [game.house_rules.changes() for game in Game.objects.all()] == [{}, {}]
    assert all(game.rules == rules.SEEDS for game in Game.objects.all())


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("joker", "101", "Give a whole number from 0 to 100, not “101”"),
        ("ace", "0", "Give a whole number from 1 to 25"),
        ("target", "10", "Give a whole number from 50 to 10000"),
        ("jokers_in_deck", "x", "Give a whole number from 0 to 8, not “x”"),
        ("hand_rummy_points", "0", "Give a whole number from 1 to 1000"),
    ],
)
def test_the_start_form_refuses_a_bad_value_next_to_it_and_keeps_everything(
    client, db, field, value, message
):
    response = client.post("/", start_post(**{field: value}))
    shown = read(response)
    assert response.status_code == 200
    assert message in shown.text
    assert shown.one("input[name=player_2]").get("value") == "Cyril"
    assert shown.one(f"input[name={field}]").get("value") == value
    assert not Game.objects.exists()


def test_typed_values_must_be_what_the_cards_can_make(client, db):
    client.post("/", start_post(joker="0"))
    cheap = Game.objects.get()
    client.post("/", {"player_0": "Dana", "player_1": "Emil", "player_2": "Fran"})
    seeds = Game.objects.exclude(pk=cheap.pk).get()
    for game, low in ((seeds, 2), (cheap, 0)):
        page = url("game", game.edit_token)
        response = client.post(page, round_post(0, {1: low - 1 if low else 0, 2: 5}))
        if low:
            assert "less than the cheapest card (2)" in read(response).text
            assert game.rounds.count() == 0
        else:
            assert response.status_code == 303
    too_much = client.post(url("game", seeds.edit_token), round_post(0, {1: 841, 2: 5}))
    assert "more than the whole deck is worth (840)" in read(too_much).text
    # Past what any deck may be worth (refused before the game's rules are asked), the
    # player is still told what their game's deck is worth: 840, not a number of no game.
    far_too_much = client.post(url("game", seeds.edit_token), round_post(0, {1: 9999, 2: 5}))
    assert "The hand value of Emil, 9999, is more than the whole deck is worth (840)." in (
        read(far_too_much).text
    )
    # Under house rules, their deck's worth: with no jokers, 840 - 4 x 20.
    client.post("/", start_post(jokers_in_deck="0"))
    jokerless = Game.objects.exclude(pk__in=[cheap.pk, seeds.pk]).get()
    answer = client.post(url("game", jokerless.edit_token), round_post(0, {1: 9999, 2: 5}))
    assert "is more than the whole deck is worth (760)." in read(answer).text


def test_a_file_with_a_hand_value_past_any_deck_names_its_games_deck(db):
    document = {
        "format": "rami-game/1",
        "players": ["Ana", "Boris"],
        "rules": {"joker": 50},
        "rounds": [{"winner": "Ana", "hands": {"Boris": {"value": 9999}}}],
    }
    with pytest.raises(ExchangeError) as refused:
        import_game(document)
    assert "more than the whole deck is worth (960)" in str(refused.value)


def test_a_rematch_keeps_the_house_rules(db):
    game = import_game({**EXAMPLE, "rules": {**VARIANT, "target": 50}})
    assert game.status == "finished"
    assert game.rematch().rules == game.rules


def test_each_link_has_a_page_of_the_games_rules_with_the_round_ends_under_them(client, db):
    game = import_game(json.loads(json.dumps(EXAMPLE)))
    page = read(client.get(url("game", game.edit_token)))
    assert "House rules: joker 50, ace 1, never opened +0, never opened without a cap" in page.text
    assert "hand rummy doubles, fixed target 500" in page.text
    assert page.select(f'a[href="/g/{game.edit_token}/rules/"]')
    edit = client.get(url("game_rules", game.edit_token)).content.decode()
    view = client.get(url("view_rules", game.view_token)).content.decode()
    for html in (edit, view):
        assert "This game plays by house rules: joker 50" in read(html).text
        # The first round end of the help page, under these rules: A♥ joker 5♣ is 1 + 50 + 5.
        example = read(html).one("#example-ace_joker_five")
        assert example.texts("td.number.points")[:2] == ["0", "56"]
    assert game.edit_token not in view
    # The help page stays the players' own rules.
    help_page = client.get("/rules/").content.decode()
    assert "unless the table sets house rules" in read(help_page).text
    example = read(help_page).one("#example-ace_joker_five")
    assert example.texts("td.number.points")[:2] == ["0", "36"]


def test_a_backup_and_a_restore_keep_the_house_rules(db, tmp_path):
    from django.core.management import call_command

    game = import_game(json.loads(json.dumps(EXAMPLE)))
    before = export_game(game)
    call_command("backup_games", str(tmp_path), stdout=io.StringIO())
    game.delete()
    call_command("restore_games", str(tmp_path), stdout=io.StringIO())
    again = Game.objects.get()
    assert again.rules == Rules(**VARIANT)
    assert export_game(again) == before


def test_the_line_of_house_rules_is_said_in_the_language_of_each_page():
    house = Rules(joker=50, jokers_in_deck=2)
    with translation.override("cs"):
        czech = summary(house)
    with translation.override("en"):
        english = summary(house)
    with translation.override("cs"):
        assert summary(house) == czech
    assert english == ["joker 50", "2 jokers in the deck"]
    assert czech != english and all(czech)
    assert summary(Rules()) == []


def test_the_rules_are_said_in_one_set_of_words_on_the_form_the_line_and_the_rules_page(client, db):
    house = Rules(not_opened_cap_half_target=False, target_per_opponent=150, jokers_in_deck=2)
    words = [
        "no half-target cap for a player who never opened",
        "target 150 per opponent",
        "2 jokers in the deck",
    ]
    assert summary(house) == words
    said = {rule.name: rule for rule in in_words(house)}
    game = Game.start(["Ana", "Boris"], house_rules=house)
    page = read(client.get(url("game", game.edit_token)))
    assert f"House rules: {', '.join(words)}" in page.text
    rules_page = read(client.get(url("game_rules", game.edit_token)))
    half = said["not_opened_cap_half_target"]
    assert [half.label, "no"] in rules_page.rows()
    assert "150 points" in rules_page.texts("td.number")
    # What a player who never opened pays is on top of the hand: "+25 points", not "25 points".
    penalty = said["not_opened_penalty"]
    assert [penalty.label, "+25 points"] in rules_page.rows()
    start_page = read(client.get("/"))
    assert half.label in start_page.texts("label span")
