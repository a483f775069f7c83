"""Player statistics and wins per name: scoring/board/statistics.py and their templates."""

import pytest
from django.template.loader import render_to_string

from scoring.board import statistics
from scoring.board.scoreboard import Scoreboard
from scoring.board.statistics import PlayedRound
from scoring.files.exchange import import_game
from scoring.models import Game

from .conftest import game_document
from .pages import read

# Two players (target 100), made by hand: every way to win a round and to be caught.
EVA_FILIP = [
    # Eva goes out; Filip never opened, 30 in hand: 55, capped at half the target.
    PlayedRound(winner=0, hand_rummy=False, points=(0, 50), opened=(True, False)),
    # Blocked, both holding 8: both lowest, both win it and score 0, neither went out.
    PlayedRound(winner=None, hand_rummy=False, points=(0, 0), opened=(True, True)),
    # Blocked, Filip never opened but holds the lowest hand (3): he wins, 0 points, not caught.
    PlayedRound(winner=None, hand_rummy=False, points=(9, 0), opened=(True, False)),
    # Filip goes out, Eva holds 15.
    PlayedRound(winner=1, hand_rummy=False, points=(15, 0), opened=(True, True)),
]


def test_statistics_of_a_hand_made_game():
    eva, filip = statistics.player_statistics(["Eva", "Filip"], EVA_FILIP)
    assert eva == statistics.PlayerStatistics(
        name="Eva",
        rounds_won=2,
        hand_rummies=0,
        never_opened=0,
        average_points=6.0,
        best_points=0,
        best_rounds=(1, 2),
        worst_points=15,
        worst_rounds=(4,),
        longest_run=2,
    )
    assert filip == statistics.PlayerStatistics(
        name="Filip",
        rounds_won=3,
        hand_rummies=0,
        never_opened=1,
        average_points=12.5,
        best_points=0,
        best_rounds=(2, 3, 4),
        worst_points=50,
        worst_rounds=(1,),
        longest_run=3,
    )


def test_a_blocked_round_is_won_by_its_lowest_hands():
    """The players' rules declare the lowest hand of a blocked round its winner: "Rounds won"
    counts it, for each player who shares it, and the table says so."""
    blocked = PlayedRound(winner=None, hand_rummy=False, points=(0, 12), opened=(True, True))
    shared = PlayedRound(winner=None, hand_rummy=False, points=(0, 0), opened=(True, False))
    eva, filip = statistics.player_statistics(["Eva", "Filip"], [blocked, shared])
    assert (eva.rounds_won, eva.best_points, eva.longest_run) == (2, 0, 2)
    # Filip never opened, but holds a lowest hand: he wins, and is not caught not opened.
    assert (filip.rounds_won, filip.never_opened) == (1, 0)
    shown = read(render_to_string("scoring/game.html#statistics", {"statistics": [eva, filip]}))
    assert shown.rows()[1] == ["Rounds won", "2", "1"]
    # The row's heading is described by the note, as a screen reader reads it out.
    heading = shown.select("tr")[1].one("th")
    note = shown.one("#" + heading.get("aria-describedby")).text
    assert "Rounds won counts the rounds a player went out in and the blocked rounds" in note
    assert "won with the lowest hand (each player who shares it)" in note
    assert "not counted" not in note


def test_a_game_without_rounds_has_nothing_to_count():
    eva, _ = statistics.player_statistics(["Eva", "Filip"], [])
    assert (eva.rounds_won, eva.average_points, eva.best_points, eva.longest_run) == (
        0,
        0.0,
        None,
        0,
    )
    assert render_to_string("scoring/game.html#statistics", {"statistics": []}).strip() == ""


@pytest.mark.django_db
def test_statistics_of_the_every_kind_game(every_kind_game, django_assert_num_queries):
    board = Scoreboard.for_game(every_kind_game)
    board.rounds  # noqa: B018 (what the game page reads anyway)
    with django_assert_num_queries(0):
        ana, boris, cyril, dana = board.statistics
    # Ana went out in rounds 1 and 3 and held the lowest hand in the blocked round 4, which
    # wins it: three rounds won.
    assert (ana.rounds_won, ana.best_rounds, ana.worst_points, ana.longest_run) == (
        3,
        (1, 3, 4),
        200,
        2,
    )
    assert ana.never_opened == 0  # not opened in Dana's hand rummy, but paid the hand rummy
    assert (boris.rounds_won, boris.average_points, boris.best_points, boris.best_rounds) == (
        0,
        76.8,
        7,
        (4,),
    )
    assert cyril.never_opened == 1  # round 1: 20 in hand, never opened, 45 points
    assert (cyril.average_points, cyril.worst_rounds) == (66.5, (2,))
    assert (dana.rounds_won, dana.hand_rummies, dana.worst_points, dana.worst_rounds) == (
        1,
        1,
        169,
        (3,),
    )


@pytest.mark.django_db
def test_the_statistics_table_shows_each_number_under_its_player(every_kind_game):
    html = render_to_string(
        "scoring/game.html#statistics",
        {"statistics": Scoreboard.for_game(every_kind_game).statistics},
    )
    assert read(html).rows() == [
        ["", "Ana", "Boris", "Cyril", "Dana"],
        ["Rounds won", "3", "0", "0", "1"],
        ["Hand rummies", "0", "0", "0", "1"],
        ["Caught not opened", "0", "0", "1", "0"],
        ["Average points a round", "50.0", "76.8", "66.5", "52.5"],
        ["Best round", "0 rounds 1, 3, 4", "7 round 4", "10 round 3", "0 round 2"],
        ["Worst round", "200 round 2", "200 round 2", "200 round 2", "169 round 3"],
        ["Most rounds in a row at 0", "2", "0", "0", "1"],
    ]
    assert "style=" not in html


def test_a_long_list_of_rounds_is_counted_not_listed():
    rounds = [PlayedRound(0, False, (0, 10), (True, True))] * 5
    html = render_to_string(
        "scoring/game.html#statistics",
        {"statistics": statistics.player_statistics(["Eva", "Filip"], rounds)},
    )
    best = read(html).rows()[5]
    assert best == ["Best round", "0 5 rounds", "10 5 rounds"]


def test_names_in_the_statistics_table_are_escaped():
    html = render_to_string(
        "scoring/game.html#statistics",
        {"statistics": statistics.player_statistics(["<b>Eva</b>", "Filip"], EVA_FILIP)},
    )
    assert "<b>" not in html
    assert "&lt;b&gt;Eva&lt;/b&gt;" in html


def two_player_game(winner: str, loser: str) -> Game:
    """A finished game of one round: the loser is caught with 100 points in hand."""
    return import_game(
        {
            "format": "rami-game/1",
            "players": [winner, loser],
            "rounds": [{"winner": winner, "hands": {loser: {"value": 100}}}],
        }
    )


@pytest.mark.django_db
def test_wins_per_name_counts_finished_games_ignoring_case(
    every_kind_game, django_assert_num_queries
):
    boris_beats_ana = two_player_game("Boris", "ana")
    ana_beats_cyril = two_player_game("ANA", "Cyril")
    unfinished = import_game({**game_document("every_kind"), "rounds": []})
    games = [unfinished, ana_beats_cyril, boris_beats_ana, every_kind_game]
    with django_assert_num_queries(1):
        table = statistics.wins_per_name(games)
    # Ana won every_kind and the last game, spelled "ANA" there; the unfinished game with
    # "Ana" in it counts for nothing.
    assert [(row.name, row.wins, row.games) for row in table] == [
        ("ANA", 2, 3),
        ("Boris", 1, 2),
        ("Cyril", 0, 2),
        ("Dana", 0, 1),
    ]
    html = render_to_string("scoring/_wins_per_name.html", {"wins_per_name": table})
    assert read(html).rows() == [
        ["Player", "Wins", "Games"],
        ["ANA", "2", "3"],
        ["Boris", "1", "2"],
        ["Cyril", "0", "2"],
        ["Dana", "0", "1"],
    ]


@pytest.mark.django_db
def test_wins_per_name_without_a_finished_game_shows_nothing(every_kind_game):
    unfinished = import_game({**game_document("every_kind"), "rounds": []})
    assert statistics.wins_per_name([unfinished]) == []
    assert render_to_string("scoring/_wins_per_name.html", {"wins_per_name": []}).strip() == ""
