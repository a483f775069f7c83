"""The rules module on its own: the rules of docs/rules.md one by one,
the worked examples, and properties."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import (
    DECK_SIZE,
    MAX_HAND_VALUE,
    RANKS,
    SEEDS,
    SUITS,
    Excess,
    Hand,
    NotOpenedSum,
    Rules,
    RulesError,
    card_points,
    check_deck,
    deck_errors,
    deck_excess,
    hand_errors,
    hand_value,
    messages,
    parse_card,
    points_so_far,
    round_errors,
    score_round,
    standing,
    standings,
    target_for,
)


def cards(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# The interface in docs/architecture.md, as written


def test_the_interface_in_architecture_md():
    assert card_points("JK", SEEDS) == 20
    assert card_points("10h", SEEDS) == 10
    assert hand_value(["AH", "JK", "5C"], SEEDS) == 36
    assert target_for(4, SEEDS) == 300
    assert Hand(cards=("KH", "KS"), opened=False).opened is False
    assert Hand().opened is True
    assert Hand(value=17).worth(SEEDS) == 17
    assert score_round(
        [Hand(), Hand(cards=("AH", "JK", "5C"))], winner=0, target=100, rules=SEEDS
    ) == [0, 36]
    s = standing([120, 40], target=100)
    assert (s.finished, s.winner, s.tie_break) == (True, 1, False)


# Cards and their value in hand


@pytest.mark.parametrize(
    ("code", "points"),
    [
        ("JK", 20),
        ("jk", 20),
        ("AS", 11),
        ("A", 11),
        ("KH", 10),
        ("Q", 10),
        ("jd", 10),
        ("2C", 2),
        ("9", 9),
        ("10D", 10),
        ("10", 10),
        ("A♥", 11),
        ("7♣", 7),
    ],
)
def test_card_points(code, points):
    assert card_points(code, SEEDS) == points


@pytest.mark.parametrize("code", ["1X", "1", "11H", "JKH", "", "AX", "H", "ZZ", "0S", "A H"])
def test_unknown_cards_are_refused_with_the_card_named(code):
    with pytest.raises(RulesError) as caught:
        card_points(code, SEEDS)
    assert caught.value.code == "unknown_card"
    assert caught.value.details["card"] == code.strip()
    assert f"“{code.strip()}”" in messages.english(caught.value)


def test_card_codes_are_case_insensitive_and_canonical():
    assert parse_card("10h") == "10H"
    assert Hand(cards=("ah", "jk", "5c")).cards == ("AH", "JK", "5C")


def test_an_ace_left_in_hand_costs_11_even_after_a_low_run():
    assert hand_value(["AH", "2H", "3H"], SEEDS) == 16


def test_the_deck_is_worth_what_max_hand_value_says():
    deck = [rank + suit for rank in RANKS for suit in SUITS] * 2 + ["JK"] * 4
    assert len(deck) == DECK_SIZE == 108
    assert hand_value(deck, SEEDS) == MAX_HAND_VALUE == 840


# Scoring a round


def test_winner_scores_zero_and_others_their_hand_value():
    hands = [Hand(cards=cards("5H 5S")), Hand(), Hand(value=17)]
    assert score_round(hands, winner=1, target=200, rules=SEEDS) == [10, 0, 17]


def test_never_opened_adds_25():
    hands = [Hand(), Hand(cards=cards("5H 5S"), opened=False)]
    assert score_round(hands, winner=0, target=300, rules=SEEDS) == [0, 35]


def test_never_opened_is_capped_at_half_the_target_with_two_players():
    exactly = [Hand(), Hand(value=25, opened=False)]
    over = [Hand(), Hand(value=26, opened=False)]
    assert score_round(exactly, winner=0, target=100, rules=SEEDS) == [0, 50]
    assert score_round(over, winner=0, target=100, rules=SEEDS) == [0, 50]
    assert score_round(
        [Hand(), Hand(value=24, opened=False)], winner=0, target=100, rules=SEEDS
    ) == [0, 49]


def test_never_opened_is_capped_at_100_with_four_players():
    hands = [Hand(), Hand(value=75, opened=False), Hand(value=76, opened=False), Hand(value=2)]
    assert score_round(hands, winner=0, target=300, rules=SEEDS) == [0, 100, 100, 2]


def test_never_opened_cap_does_not_apply_to_players_who_opened():
    hands = [Hand(), Hand(value=150)]
    assert score_round(hands, winner=0, target=100, rules=SEEDS) == [0, 150]


def test_hand_rummy_gives_every_opponent_200_whatever_the_hand():
    hands = [Hand(opened=False), Hand(), Hand(cards=cards("2C"), opened=False)]
    assert score_round(hands, winner=1, target=200, hand_rummy=True, rules=SEEDS) == [200, 0, 200]


def test_hand_rummy_is_refused_when_an_opponent_opened():
    hands = [Hand(), Hand(opened=False), Hand(value=3, opened=True)]
    with pytest.raises(RulesError) as caught:
        score_round(hands, winner=0, target=200, hand_rummy=True, rules=SEEDS)
    assert caught.value.code == "hand_rummy_opened"
    assert caught.value.player == 2


def test_hand_rummy_needs_a_winner():
    with pytest.raises(RulesError, match="blocked"):
        score_round(
            [Hand(value=1), Hand(value=2)], winner=None, target=100, hand_rummy=True, rules=SEEDS
        )


def test_blocked_round_lowest_hand_wins():
    hands = [Hand(cards=cards("5H")), Hand(value=7), Hand(cards=cards("9C 2D"), opened=False)]
    assert score_round(hands, winner=None, target=200, rules=SEEDS) == [0, 7, 36]


def test_blocked_round_shared_lowest_all_score_zero():
    hands = [Hand(value=7), Hand(cards=cards("3H 4C")), Hand(value=12)]
    assert score_round(hands, winner=None, target=200, rules=SEEDS) == [0, 0, 12]


def test_blocked_round_never_opened_lowest_still_wins():
    hands = [Hand(value=4, opened=False), Hand(value=9), Hand(value=30, opened=False)]
    assert score_round(hands, winner=None, target=200, rules=SEEDS) == [0, 9, 55]


def test_blocked_round_needs_every_hand():
    with pytest.raises(RulesError) as caught:
        score_round([Hand(value=3), Hand()], winner=None, target=100, rules=SEEDS)
    assert (caught.value.code, caught.value.player) == ("missing_blocked_hand", 1)


def test_a_loser_without_a_hand_is_refused():
    with pytest.raises(RulesError) as caught:
        score_round([Hand(), Hand(value=3), Hand()], winner=0, target=200, rules=SEEDS)
    assert (caught.value.code, caught.value.player) == ("missing_hand", 2)


def test_cards_and_value_give_the_same_score():
    by_cards = score_round(
        [Hand(), Hand(cards=cards("KH QS 3D"), opened=False)], 0, 300, rules=SEEDS
    )
    by_value = score_round([Hand(), Hand(value=23, opened=False)], 0, 300, rules=SEEDS)
    assert by_cards == by_value == [0, 48]


@pytest.mark.parametrize(
    ("hands", "code"),
    [
        ([Hand(), Hand(cards=cards("AH AH AH"))], "too_many_copies"),
        ([Hand(), Hand(cards=cards("AH AH")), Hand(cards=cards("AH"))], "too_many_copies"),
        ([Hand(), Hand(cards=cards("JK JK JK")), Hand(cards=cards("JK JK"))], "too_many_copies"),
        ([Hand(), Hand(cards=("K",) * 9)], "too_many_copies"),
        ([Hand(), Hand(cards=cards("KH KH KS KS KD KD KC KC K"))], "too_many_copies"),
    ],
)
def test_deck_check_refuses_more_copies_than_two_packs_hold(hands, code):
    with pytest.raises(RulesError) as caught:
        score_round(hands, winner=0, target=200, rules=SEEDS)
    assert caught.value.code == code
    assert caught.value.player == len(hands) - 1


def test_deck_check_accepts_a_full_legal_spread():
    hands = [Hand(), Hand(cards=("KH", "KH", "JK", "JK") + ("Q",) * 8), Hand(cards=("JK", "JK"))]
    assert score_round(hands, winner=0, target=200, rules=SEEDS) == [0, 140, 40]


def test_the_card_too_many_is_in_the_hand_that_takes_the_count_past_the_deck():
    hands = [Hand(), Hand(cards=cards("AH AH 5C")), Hand(cards=cards("KS AH")), Hand(value=7)]
    assert deck_excess(hands, SEEDS) == [(), (), (Excess("AH", copies=1, count=3, limit=2),), ()]
    # Whichever seat holds the two: the later hand holds the copy the deck no longer has.
    hands = [Hand(), Hand(cards=cards("AH")), Hand(cards=cards("AH AH"))]
    assert deck_excess(hands, SEEDS) == [(), (), (Excess("AH", copies=1, count=3, limit=2),)]
    # Three in one hand: that hand.
    hands = [Hand(), Hand(cards=cards("AH AH AH")), Hand(cards=cards("2C"))]
    assert deck_excess(hands, SEEDS) == [(), (Excess("AH", copies=1, count=3, limit=2),), ()]


def test_every_hand_past_the_deck_has_its_excess_and_the_others_none():
    hands = [
        Hand(),
        Hand(cards=cards("AH 9D")),
        Hand(cards=cards("AH AH")),
        Hand(cards=cards("AH")),
    ]
    third_and_fourth = Excess("AH", copies=1, count=4, limit=2)
    assert deck_excess(hands, SEEDS) == [(), (), (third_and_fourth,), (third_and_fourth,)]
    # Two cards too many in one hand, each said once.
    hands = [Hand(), Hand(cards=cards("QS QS JK")), Hand(cards=cards("QS QS QS 3D 3D 3D"))]
    assert deck_excess(hands, SEEDS) == [
        (),
        (),
        (Excess("QS", copies=3, count=5, limit=2), Excess("3D", copies=1, count=3, limit=2)),
    ]


def test_one_card_too_many_is_one_excess_not_its_suits_and_its_ranks():
    # Nine aces, three of them A♥: the third A♥ is the one card too many, not a ninth ace.
    hands = [Hand(), Hand(cards=cards("AH AH AS AS AD AD AC AC")), Hand(cards=cards("AH"))]
    assert deck_excess(hands, SEEDS) == [(), (), (Excess("AH", copies=1, count=3, limit=2),)]
    # A king of unknown suit counts against the eight kings.
    hands = [Hand(), Hand(cards=("K",) * 8), Hand(cards=cards("KH K"))]
    assert deck_excess(hands, SEEDS)[2] == (Excess("K", copies=2, count=10, limit=8),)


def test_the_jokers_count_against_the_games_deck():
    hands = [Hand(), Hand(cards=cards("JK JK")), Hand(cards=cards("JK 5C JK"))]
    assert deck_excess(hands, SEEDS) == [(), (), ()]
    assert deck_excess(hands, Rules(jokers_in_deck=3)) == [
        (),
        (),
        (Excess("JK", copies=1, count=4, limit=3),),
    ]
    errors = deck_errors(hands, Rules(jokers_in_deck=0))
    assert [(error.code, error.player, error.details["limit"]) for error in errors] == [
        ("no_jokers", 1, 0),
        ("no_jokers", 2, 0),
    ]
    with pytest.raises(RulesError) as caught:
        score_round(hands, winner=0, target=200, rules=Rules(jokers_in_deck=0))
    assert (caught.value.code, caught.value.player) == ("no_jokers", 1)


def test_deck_errors_name_each_hand_and_check_deck_refuses_on_the_first():
    # A None hand, refused already (an unknown card), is left out.
    hands = [
        Hand(),
        Hand(cards=cards("AH AH")),
        None,
        Hand(cards=cards("AH 7C 7C")),
        Hand(cards=cards("7C JK")),
    ]
    errors = deck_errors(hands, SEEDS)
    assert [(error.code, error.player, error.details) for error in errors] == [
        ("too_many_copies", 3, {"card": "AH", "count": 3, "limit": 2}),
        ("too_many_copies", 4, {"card": "7C", "count": 3, "limit": 2}),
    ]
    with pytest.raises(RulesError) as caught:
        check_deck([hand or Hand() for hand in hands], SEEDS)
    assert (caught.value.player, caught.value.details) == (3, errors[0].details)
    assert deck_errors([Hand(), Hand(cards=cards("AH AH")), Hand(value=80)], SEEDS) == []


def test_round_errors_are_every_error_of_a_round_at_once():
    hands = [None, Hand(), Hand(value=1), Hand(cards=cards("AH AH")), Hand(cards=cards("AH"))]
    found = round_errors(hands, None, True, SEEDS)
    assert [(error.code, error.player) for error in found] == [
        ("hand_rummy_blocked", None),
        ("value_too_small", 2),
        ("too_many_copies", 4),
    ]
    assert round_errors([Hand(), Hand(value=4)], 0, False, SEEDS) == []


def test_the_points_so_far_are_the_rounds_for_every_hand_typed_right():
    typed = [Hand(), Hand(value=30, opened=False), None, Hand(cards=cards("AH 5C"))]
    assert points_so_far(typed, 0, False, 300, SEEDS) == [
        (0, None),
        (55, NotOpenedSum(worth=30, penalty=25, points=55, capped_by=None)),
        (None, None),
        (16, None),
    ]
    every_hand = [hand or Hand(value=7) for hand in typed]
    points = score_round(every_hand, 0, 300, rules=SEEDS)
    assert [point for point, _ in points_so_far(every_hand, 0, False, 300, SEEDS)] == points
    # The lowest hand decides a blocked round: no points until every hand is in.
    assert points_so_far(typed[1:], None, False, 300, SEEDS) == [(None, None)] * 3
    # A hand rummy's opponents pay what the rules say, whatever their hand.
    assert points_so_far([Hand(), Hand(opened=False), None], 0, True, 200, SEEDS) == [
        (0, None),
        (200, None),
        (None, None),
    ]


def first_hand_error(hands, winner):
    """Raise the first error hand_errors finds in these hands, as the form shows it."""
    raise hand_errors(hands, winner, hand_rummy=False, rules=SEEDS)[0]


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda: Hand(value=-1), "negative_value"),
        (lambda: Hand(cards=("AH",), value=11), "cards_and_value"),
        (lambda: Hand(value=2033), "value_too_large"),
        (
            lambda: score_round([Hand(), Hand(value=841)], winner=0, target=100, rules=SEEDS),
            "value_too_large",
        ),
        (lambda: first_hand_error([Hand(), Hand(value=1)], winner=0), "value_too_small"),
        (lambda: first_hand_error([Hand(value=0), Hand()], winner=1), "value_too_small"),
        (lambda: Hand(value="12"), "not_a_number"),
        (
            lambda: score_round([Hand(), Hand(value=1)], winner=2, target=100, rules=SEEDS),
            "winner_out_of_range",
        ),
        (
            lambda: score_round([Hand(), Hand(value=1)], winner=-1, target=100, rules=SEEDS),
            "winner_out_of_range",
        ),
        (
            lambda: score_round([Hand(value=5), Hand(value=1)], winner=0, target=100, rules=SEEDS),
            "winner_has_cards",
        ),
        (lambda: score_round([Hand()], winner=0, target=100, rules=SEEDS), "player_count"),
        (
            lambda: score_round([Hand(), Hand(value=1)], winner=0, target=0, rules=SEEDS),
            "bad_target",
        ),
        (lambda: target_for(1, SEEDS), "player_count"),
        (lambda: target_for(7, SEEDS), "player_count"),
    ],
)
def test_invalid_input_raises_rules_error_with_a_code(make, code):
    with pytest.raises(RulesError) as caught:
        make()
    assert caught.value.code == code
    assert str(caught.value)


# Target and end of game


@pytest.mark.parametrize(("players", "target"), [(2, 100), (3, 200), (4, 300), (5, 400), (6, 500)])
def test_target_is_100_per_opponent(players, target):
    assert target_for(players, SEEDS) == target


def test_game_goes_on_below_the_target():
    s = standing([99, 40], target=100)
    assert (s.finished, s.winner, s.tie_break, s.status) == (False, None, False, "playing")
    assert s.leaders == (1,)


def test_reaching_the_target_exactly_ends_the_game():
    s = standing([100, 40], target=100)
    assert (s.finished, s.winner, s.status) == (True, 1, "finished")


def test_a_tie_for_lowest_at_the_end_continues_the_game():
    s = standing([300, 120, 120, 200], target=300)
    assert (s.finished, s.winner, s.tie_break, s.status) == (False, None, True, "tie_break")
    assert s.leaders == (1, 2)


def test_tie_break_round_settles_it():
    after = standings([[0, 40, 40], [200, 0, 0], [0, 0, 5]], players=3, target=200)
    assert [s.status for s in after] == ["playing", "tie_break", "finished"]
    assert after[1].leaders == (1, 2)
    assert after[-1].winner == 1


# The worked examples


def test_example_ace_joker_and_five():
    assert score_round(
        [Hand(), Hand(cards=cards("AH JK 5C"))], winner=0, target=100, rules=SEEDS
    ) == [0, 36]


def test_example_two_players_never_opened_capped_at_half_the_target():
    hands = [Hand(), Hand(cards=cards("KH KS QD JC 9H"), opened=False)]
    assert score_round(hands, winner=0, target=target_for(2, SEEDS), rules=SEEDS) == [0, 50]


def test_example_four_players_one_never_opened():
    hands = [
        Hand(),
        Hand(cards=cards("3H 4H")),
        Hand(cards=cards("KH KS QD JC 9H 8C 7D JK"), opened=False),
        Hand(cards=cards("JK AH")),
    ]
    assert score_round(hands, winner=0, target=target_for(4, SEEDS), rules=SEEDS) == [0, 7, 100, 31]


def test_example_hand_rummy_three_players():
    hands = [
        Hand(),
        Hand(cards=cards("2C"), opened=False),
        Hand(cards=cards("5D 6D"), opened=False),
    ]
    assert score_round(
        hands, winner=0, target=target_for(3, SEEDS), hand_rummy=True, rules=SEEDS
    ) == [0, 200, 200]


# Properties

card_codes = st.sampled_from(
    [rank + suit for rank in RANKS for suit in SUITS] + list(RANKS) + ["JK"]
)
loser_hands = st.one_of(
    st.builds(
        Hand,
        cards=st.lists(card_codes, min_size=1, max_size=5).map(tuple),
        opened=st.booleans(),
    ),
    st.builds(Hand, value=st.integers(2, 200), opened=st.booleans()),
)


@st.composite
def rounds(draw):
    losers = draw(st.lists(loser_hands, min_size=1, max_size=5))
    winner = draw(st.integers(0, len(losers)))
    hands = list(losers)
    hands.insert(winner, Hand())
    return hands, winner


def _scores(hands, winner):
    try:
        return score_round(hands, winner=winner, target=target_for(len(hands), SEEDS), rules=SEEDS)
    except RulesError as error:
        assert error.code == "too_many_copies"
        return None


@given(rounds())
def test_points_are_never_negative_and_the_winner_scores_zero(round_):
    hands, winner = round_
    points = _scores(hands, winner)
    if points is not None:
        assert points[winner] == 0
        assert all(point >= 0 for point in points)


@given(rounds(), st.randoms())
def test_the_order_of_the_other_hands_changes_nobodys_points(round_, random):
    hands, winner = round_
    points = _scores(hands, winner)
    if points is None:
        return
    order = list(range(len(hands)))
    random.shuffle(order)
    shuffled = [hands[i] for i in order]
    again = score_round(
        shuffled, winner=order.index(winner), target=target_for(len(hands), SEEDS), rules=SEEDS
    )
    assert again == [points[i] for i in order]


@given(st.lists(loser_hands, min_size=2, max_size=6))
def test_blocked_round_winners_hold_the_lowest_hand(hands):
    try:
        points = score_round(hands, winner=None, target=target_for(len(hands), SEEDS), rules=SEEDS)
    except RulesError:
        return
    lowest = min(hand.worth(SEEDS) for hand in hands)
    assert [p == 0 for p in points] == [hand.worth(SEEDS) == lowest for hand in hands]


def test_a_hand_holds_at_most_the_whole_deck():
    assert len(Hand(cards=("2",) * 108).cards) == 108
    with pytest.raises(RulesError) as caught:
        Hand(cards=("2",) * 109)
    assert caught.value.code == "too_many_cards"
    assert (
        messages.english(caught.value)
        == "A hand holds at most 108 cards (the whole deck), not 109."
    )
