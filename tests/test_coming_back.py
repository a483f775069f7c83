"""A player who left comes back later in the same game, as a join of their own seat: the same
name, seat and earlier rounds, from the next round, starting with the highest total of those
playing or a total the table types (Game.come_back). Every total that says it, worked out by
hand: the game's, the board's running totals, the rounds' CSV, the game file (and a file read
back), the table's standings; its Undo; a deletion before it."""

from __future__ import annotations

import pytest

from scoring import rules
from scoring.board.scoreboard import Scoreboard
from scoring.files import rounds_csv
from scoring.files.exchange import export_game, import_game
from scoring.models import Game, GameEvent, Table
from scoring.rules import Hand, RoundEntry
from tests.pages import read

pytestmark = pytest.mark.django_db

PHONE = "Karel's phone"


def play(game: Game, points: dict[int, int], winner: int = 0) -> Game:
    """A round with these hand values by seat (the winner's 0), those not listed not playing."""
    game = Game.objects.get(pk=game.pk)
    hands = tuple(
        None if seat not in points else Hand() if seat == winner else Hand(value=points[seat])
        for seat in range(len(game.seated_players))
    )
    game.record_round(RoundEntry(hands, winner), phone=PHONE)
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def evening() -> Game:
    """Ana, Boris and Karel; Karel leaves after round 2 with 30 and comes back before round 4,
    when Boris has the highest total of those playing: 40."""
    game = Game.start(["Ana", "Boris", "Karel"])
    game = play(game, {0: 0, 1: 10, 2: 10})  # 0 10 10
    game = play(game, {0: 0, 1: 20, 2: 20})  # 0 30 30
    game.leave(2, phone=PHONE)
    game = play(game, {0: 0, 1: 10})  # 0 40 (30)
    game.come_back(2, phone=PHONE)  # Karel 40
    return play(game, {0: 0, 1: 5, 2: 7})  # 0 45 47


def test_one_who_left_comes_back_with_the_highest_total_and_keeps_their_rounds(evening):
    assert evening.totals() == [0, 45, 47]
    assert [player.name for player in evening.playing] == ["Ana", "Boris", "Karel"]
    assert evening.seated_players[2].returns == [{"from": 4, "start": 40}]
    board = Scoreboard.for_game(evening)
    # The running totals: Karel's 30 kept through round 3, then 40 + 7.
    assert [list(standing.totals) for standing in board.standings] == [
        [0, 10, 10],
        [0, 30, 30],
        [0, 40, 30],
        [0, 45, 47],
    ]
    assert list(board.standing.totals) == [0, 45, 47]


def test_the_files_say_it_and_read_back_the_same(evening):
    document = export_game(evening)
    karel = document["players"][2]
    assert karel == {
        "name": "Karel",
        "joins": 1,
        "start": 0,
        "leaves": 2,
        "back": [{"joins": 4, "start": 40, "leaves": None}],
    }
    assert document["totals"] == {"Ana": 0, "Boris": 45, "Karel": 47}
    again = import_game(document)
    assert again.totals() == [0, 45, 47]
    assert export_game(again)["players"] == document["players"]
    # The CSV: Karel's rows add up to his total, his coming back a row of its own.
    table = rounds_csv.rows(document)
    header, rows = table[0], table[1:]
    points = header.index("Points")
    theirs = [row for row in rows if row[2] == "Karel"]
    assert [row[1] for row in theirs if row[1] not in ("normal",)] == [
        "left the game",
        "comes back",
    ]
    assert sum(int(row[points] or 0) for row in theirs) == 47
    assert str(theirs[-1][-1]) == "47"


def test_its_undo_leaves_them_gone_as_before(evening):
    game = Game.start(["Ana", "Boris", "Karel"])
    game = play(game, {0: 0, 1: 10, 2: 10})
    game.leave(2, phone=PHONE)
    game = play(game, {0: 0, 1: 10})
    game.come_back(2, start=5, phone=PHONE)
    game = Game.objects.get(pk=game.pk)
    assert game.totals() == [0, 20, 5]
    coming_back = game.events.filter(kind=GameEvent.Kind.JOINED).first()
    game.undo(coming_back, PHONE)
    game = Game.objects.get(pk=game.pk)
    assert game.totals() == [0, 20, 10]
    assert [player.name for player in game.playing] == ["Ana", "Boris"]
    assert game.seating_now().dealer in (0, 1)


def test_deleting_an_earlier_round_keeps_the_round_they_came_back_for(evening):
    evening.delete_round(evening.rounds.get(number=1), PHONE)
    game = Game.objects.get(pk=evening.pk)
    # Rounds 2 to 4 are now 1 to 3: Karel came back before round 3, with the 40 he came with.
    assert game.seated_players[2].returns == [{"from": 3, "start": 40}]
    assert game.totals() == [0, 35, 47]
    assert export_game(game)["totals"] == {"Ana": 0, "Boris": 35, "Karel": 47}


def test_coming_back_is_refused_to_one_playing_and_when_six_play(evening):
    with pytest.raises(rules.Conflict) as refused:
        evening.come_back(2)
    assert refused.value.code == rules.Code.PLAYING_ALREADY
    game = Game.start(["Ana", "Boris", "Cyril", "Dana", "Emil", "Filip"])
    game = play(game, {seat: 3 for seat in range(6)})
    game.leave(5)
    game.join("Gita")
    with pytest.raises(rules.Conflict) as refused:
        Game.objects.get(pk=game.pk).come_back(5)
    assert refused.value.code == rules.Code.JOIN_FULL


def test_the_history_tells_it_by_name(client, evening):
    page = read(client.get(f"/g/{evening.edit_token}/history/"))
    told = page.texts("h2")
    assert "Karel comes back from round 4 with 40 points." in told
    assert "Karel left after round 2." in told


def test_the_tables_standings_count_the_total_they_came_back_with(db):
    table = Table.start("Friday", ["Ana", "Boris", "Karel"])
    game = table.new_game(["Ana", "Boris", "Karel"])
    game = play(game, {0: 0, 1: 10, 2: 10})
    game.leave(2)
    game = play(game, {0: 0, 1: 10})
    game.come_back(2)
    game = play(game, {0: 0, 1: 300, 2: 5})  # over the target of 200: Ana wins
    from scoring.board import standings

    seats = {seat.name: seat for seat in standings.Played.of(table).seats}
    assert seats["Karel"].total == 25
    assert seats["Karel"].part_game


def test_the_players_page_brings_one_who_left_back(client):
    """The players page offers each one who left to come back; the game page then says so,
    with the Undo on this phone. A second tap, from a page drawn before, is a 409."""
    game = Game.start(["Ana", "Boris", "Karel"])
    game = play(game, {0: 0, 1: 10, 2: 10})
    game.leave(2)
    game = play(game, {0: 0, 1: 10})
    client.get(f"/g/{game.edit_token}/")
    page = read(client.get(f"/g/{game.edit_token}/players/"))
    form = page.one("#back-form")
    assert [option.text for option in form.select("select[name=back-seat] option")] == ["Karel"]
    assert form.one("input[name=back-start]").get("placeholder") == "20"
    sent = {"back-seat": "2", "back-after": "1", "back-start": ""}
    answer = client.post(f"/g/{game.edit_token}/players/come-back/", sent, follow=True)
    banner = read(answer).one("#answer .banner")
    assert banner.text.startswith("Karel comes back from round 3 with 20 points.")
    assert banner.select("button")  # its Undo
    assert Game.objects.get(pk=game.pk).totals() == [0, 20, 20]
    again = client.post(f"/g/{game.edit_token}/players/come-back/", sent)
    assert again.status_code == 409
    assert read(again).one(".banner.conflict").text == "Karel is playing already."
    assert read(client.get(f"/g/{game.edit_token}/players/")).select("#back-form") == []


def test_before_their_next_round_every_total_says_the_one_they_came_back_with():
    game = Game.start(["Ana", "Boris", "Karel"])
    game = play(game, {0: 0, 1: 10, 2: 10})
    game.leave(2)
    game = play(game, {0: 0, 1: 10})
    game.come_back(2, start=15)
    game = Game.objects.get(pk=game.pk)
    assert game.totals() == [0, 20, 15]
    assert list(Scoreboard.for_game(game).totals) == [0, 20, 15]
    assert export_game(game)["totals"] == {"Ana": 0, "Boris": 20, "Karel": 15}
    assert import_game(export_game(game)).totals() == [0, 20, 15]
