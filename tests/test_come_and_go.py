"""Players who leave or join during a game (docs/rules.md, "Players who come and go"): the
rules' decisions, a game file of such players, and the players page's leave and join with their
answers, Undo and refusals; a round form drawn before a player left or joined; each round's
dealer kept through a deletion."""

import contextlib
import json

import pytest
from django.test import Client

from scoring import rules
from scoring.files import rounds_csv
from scoring.files.exchange import export_game, import_game
from scoring.models import Game, GameEvent, Status
from scoring.rules import Hand, RoundEntry, RulesError, Span
from tests.conftest import delete_post, game_document, round_post, totals
from tests.links import url
from tests.pages import read

# The rules: plain functions, no database.


def test_a_leaver_with_the_lowest_total_cannot_win():
    # Ana left with 10; Cyril reaches the target: Boris, lowest of those still playing, wins.
    after = rules.standing([10, 120, 310], target=300, playing=[1, 2])
    assert (after.finished, after.winner) == (True, 1)
    # Nor does a leaver end the game, or share a tie.
    assert not rules.standing([400, 50, 60], target=300, playing=[1, 2]).finished
    tie = rules.standing([5, 50, 50, 310], target=300, playing=[1, 2, 3])
    assert (tie.tie_break, tie.leaders) == (True, (1, 2))


def test_a_joiner_starts_with_the_highest_total_of_those_playing():
    assert rules.start_total([10, 120, 55]) == 120
    assert rules.start_total([]) == 0
    assert rules.check_start_total(0) == 0
    for wrong in (-1, 10_001, "12", 2.5, True):
        with pytest.raises(RulesError) as refused:
            rules.check_start_total(wrong)
        assert refused.value.code == rules.Code.START_TOTAL


def test_a_hand_rummy_after_a_leave_charges_every_opponent_still_playing():
    # Seat 1 left: no hand; seats 2 and 3 pay the hand rummy, seat 1 nothing.
    entry = RoundEntry(
        (Hand(), None, Hand(value=3, opened=False), Hand(value=8, opened=False)),
        winner=0,
        hand_rummy=True,
    )
    assert entry.points(target=300) == [0, None, 200, 200]
    assert entry.playing == (0, 2, 3)


def test_a_blocked_round_after_a_leave_is_won_by_the_lowest_hand_of_those_playing():
    entry = RoundEntry((Hand(value=9), None, Hand(value=4), Hand(value=7)), winner=None)
    assert entry.winners() == [2]
    assert entry.points(target=300) == [9, None, 0, 7]


def test_a_winner_who_is_not_playing_is_refused():
    entry = RoundEntry((Hand(value=9), None, Hand()), winner=1)
    with pytest.raises(RulesError) as refused:
        entry.points(target=200)
    assert refused.value.code == rules.Code.NOT_PLAYING


def test_the_deal_passes_over_a_leaver():
    # Round the table 0, 1, 2, 3; seat 1 left: after seat 0 deals, seat 2 does.
    assert rules.next_dealer([0, 1, 2, 3], 0, playing=[0, 2, 3]) == 2
    assert rules.next_dealer([0, 1, 2, 3], 3, playing=[1, 2, 3]) == 1
    assert rules.next_dealer([2, 0, 1], None, playing=[0, 1, 2]) == 2


def test_at_least_two_keep_playing_and_at_most_six_play():
    rules.check_leave(3)
    with pytest.raises(RulesError) as refused:
        rules.check_leave(2)
    assert refused.value.code == rules.Code.LEAVE_LAST
    rules.check_join(5)
    with pytest.raises(RulesError) as refused:
        rules.check_join(6)
    assert refused.value.code == rules.Code.JOIN_FULL


def test_standings_count_only_those_who_played_each_round():
    # Three players; the third leaves after round 1 with the lowest total, another reaches
    # the target in round 2: the lower of the two still playing wins.
    after = rules.standings([[10, 20, 0], [300, 0, None]], players=3, target=300)
    assert [s.status for s in after] == ["playing", "finished"]
    assert after[-1].totals == (310, 20, 0) and after[-1].winner == 1


def test_a_span_says_which_rounds_a_player_plays():
    spans = [Span(), Span(leaves=1), Span(joins=2, start=30)]
    assert rules.playing_in(1, spans) == [0, 1]
    assert rules.playing_in(2, spans) == [0, 2]


# A game file of players who come and go (docs/formats.md).


@pytest.mark.django_db
def test_the_game_file_of_a_leave_and_a_join():
    game = import_game(game_document("comings_and_goings"))
    assert game.totals() == [310, 35, 65, 0, 39]
    assert (game.target, game.status) == (300, Status.FINISHED)
    assert game.names[game.refresh_standing().winner] == "Boris"
    exported = export_game(game)
    assert exported["winner"] == "Boris"
    assert exported["totals"] == {"Ana": 310, "Boris": 35, "Cyril": 65, "Dana": 0, "Emil": 39}
    # The object form for exactly those who left or joined; it reads back to the same game.
    assert exported["players"][:3] == ["Ana", "Boris", "Cyril"]
    assert exported["players"][3]["leaves"] == 1
    assert exported["players"][4] == {"name": "Emil", "joins": 2, "start": 30, "leaves": None}
    again = import_game(json.loads(json.dumps(exported)))
    assert export_game(again)["rounds"] == exported["rounds"]
    assert again.totals() == game.totals()
    # The round table's file: a row a player of each round, none for one not playing it; Dana
    # leaving after round 1 and Emil's starting total before his first round, so that every
    # player's points add up to their total.
    table = rounds_csv.rows(exported)
    played = [(row[0], row[1], row[2], row[6], row[7]) for row in table[1:]]
    assert played[:10] == [
        (1, "normal", "Ana", 10, 10),
        (1, "normal", "Boris", 20, 20),
        (1, "normal", "Cyril", 30, 30),
        (1, "normal", "Dana", 0, 0),
        (1, "left the game", "Dana", "", 0),
        (2, "starting total", "Emil", 30, 30),
        (2, "normal", "Ana", 0, 10),
        (2, "normal", "Boris", 15, 35),
        (2, "normal", "Cyril", 25, 55),
        (2, "normal", "Emil", 5, 35),
    ]
    for name, total in exported["totals"].items():
        assert sum(row[6] or 0 for row in table[1:] if row[2] == name) == total, name


@pytest.mark.django_db
def test_an_older_file_reads_and_writes_as_before():
    document = game_document("every_kind")
    exported = export_game(import_game(document))
    assert exported["players"] == document["players"]
    assert all(isinstance(name, str) for name in exported["players"])


# The players page: a leave and a join, each one change of the game's history.

NAMES = ["Ana", "Boris", "Cyril", "Dana"]


def play(game: Game, rounds: int = 1, winner: int = 0) -> None:
    """Rounds with small hands among those playing, so that the game goes on."""
    game = Game.objects.get(pk=game.pk)
    playing = {player.seat for player in game.playing}
    for _ in range(rounds):
        hands = tuple(
            None if seat not in playing else Hand() if seat == winner else Hand(value=2)
            for seat in range(len(game.seated_players))
        )
        game.record_round(RoundEntry(hands=hands, winner=winner))


@pytest.fixture
def game(db) -> Game:
    """Ana, Boris, Cyril and Dana after three rounds: Ana 0, the others 6 each."""
    game = Game.start(NAMES)
    play(game, 3)
    return game


@pytest.fixture
def phone(game) -> Client:
    """The phone on which a change is made: its own cookie, so that it is offered the Undo."""
    client = Client()
    client.get(url("game", game.edit_token))
    return client


def leave(client: Client, game: Game, seat: int):
    return client.post(url("leave", game.edit_token), {"seat": str(seat)}, follow=True)


def join(client: Client, game: Game, name: str, after: int | None = None, start: str = ""):
    data = {"name": name, "start": start}
    if after is None:
        after = Game.objects.get(pk=game.pk).playing[-1].seat
    data["after"] = str(after)
    return client.post(url("join", game.edit_token), data, follow=True)


def form_names(answer) -> list[str]:
    """Whose hands the round form asks for, as the page shows them."""
    return read(answer).texts("#round-form .hand-name")


def test_a_player_leaves_from_the_players_page(game, phone):
    page = read(phone.get(url("players", game.edit_token)))
    assert page.texts(".leave-form button") == [f"{name} leaves" for name in NAMES]
    answer = leave(phone, game, 3)
    assert answer.redirect_chain[-1][1] == 303
    page = read(answer)
    assert page.one("#answer .banner").text.startswith("Dana left after round 3.")
    assert page.select("#answer .undo-form")  # this phone may take it back
    assert "Dana" not in form_names(answer)
    gone = page.one(".left-players .total.gone")
    assert "left after round 3" in gone.text and gone.one(".sum").text == "6"
    assert Game.objects.get(pk=game.pk).events.first().kind == GameEvent.Kind.LEFT
    # The next round goes on without her, and the deal passes over her.
    assert game.seating_now().dealer == 0  # Ana dealt round 1, Boris 2, Cyril 3; Dana would deal 4
    answer = phone.post(url("save", game.edit_token), round_post(0, {1: 4, 2: 4}, players="0 1 2"))
    assert answer.status_code in (200, 303)
    assert Game.objects.get(pk=game.pk).rounds.get(number=4).dealer == 0
    page = read(phone.get(url("game", game.edit_token)))
    assert page.texts(".left-players .sum") == ["6"]  # Dana apart, her total kept


def test_the_undo_of_a_leave_is_the_phone_s_until_the_next_round(game, phone):
    answer = leave(phone, game, 1)
    left = Game.objects.get(pk=game.pk).events.first()
    # Another phone sees the board without Boris in the form, and no Undo.
    other = Client()
    page = read(other.get(url("game", game.edit_token) + f"?player={left.pk}"))
    assert not page.select("#answer .undo-form")
    refused = other.post(url("undo", game.edit_token), {"event": str(left.pk)})
    assert refused.status_code == 409
    # This phone takes it back: Boris plays again from round 4.
    answer = phone.post(url("undo", game.edit_token), {"event": str(left.pk)}, follow=True)
    assert read(answer).one("#answer .banner").text.startswith("Boris plays again from round 4.")
    assert "Boris" in form_names(answer)
    # Left again, then a round saved: the leave holds.
    leave(phone, game, 1)
    left = Game.objects.get(pk=game.pk).events.first()
    play(game)
    refused = phone.post(url("undo", game.edit_token), {"event": str(left.pk)})
    assert refused.status_code == 409
    assert "a round was saved or another player joined since" in read(refused).text
    assert [p.name for p in Game.objects.get(pk=game.pk).playing] == ["Ana", "Cyril", "Dana"]


def test_a_leave_is_refused_when_two_would_be_left_or_the_game_is_over(db):
    game = Game.start(["Ana", "Boris", "Cyril"])
    client = Client()
    assert leave(client, game, 2).status_code == 400  # no round played yet
    assert "start a new game without this player" in read(leave(client, game, 2)).text
    play(game)
    assert leave(client, game, 2).status_code == 200
    answer = leave(client, game, 1)
    assert answer.status_code == 400
    assert "at least 2 players playing, so Boris cannot leave now" in read(answer).text
    assert [p.name for p in Game.objects.get(pk=game.pk).playing] == ["Ana", "Boris"]
    game = Game.objects.get(pk=game.pk)
    game.record_round(RoundEntry((Hand(), Hand(value=400), None), winner=0))
    assert leave(client, game, 0).status_code == 409


def test_a_player_joins_with_the_highest_total_of_those_playing(game, phone):
    form = read(phone.get(url("players", game.edit_token))).one(".join-form")
    assert form.one("input[name=start]").get("placeholder") == "6"
    assert form.one("#id_start_helptext").text == "6 points unless you type another total"
    answer = join(phone, game, "Emil", after=1)
    page = read(answer)
    assert page.one("#answer .banner").text.startswith("Emil joins from round 4 with 6 points.")
    assert page.select("#answer .undo-form")
    assert form_names(answer) == ["Ana", "Boris", "Emil", "Cyril", "Dana"]
    assert totals(answer)[-1] == 6
    game = Game.objects.get(pk=game.pk)
    assert game.target == 300  # the first round's four set it
    # A total the table types, 0 allowed.
    join(phone, game, "Filip", start="0")
    assert Game.objects.get(pk=game.pk).totals()[-1] == 0


@pytest.mark.parametrize("after", [None, 1, 3])
def test_a_player_joins_when_the_last_seat_dealt_the_last_round(db, after):
    """The deal went round once, the last seat dealing the last round: the joiner's seat is
    the next after it, yet the deal goes on to the first seat, whoever sits where. A join then
    answered 500 (the joiner taken for the next dealer, who is not in the deal yet)."""
    game = Game.start(NAMES)
    play(game, 4)
    assert [row.dealer for row in game.rounds.order_by("number")] == [0, 1, 2, 3]
    answer = join(Client(), game, "Emil", after=after)
    assert answer.status_code == 200
    assert read(answer).one("#answer .banner").text.startswith("Emil joins from round 5")
    deal = Game.objects.get(pk=game.pk).seating_now()
    assert deal.dealer == 0  # Ana, as before the join
    emil = {None: 3, 1: 1, 3: 3}[after]  # after the seat named; the page's default: Dana
    assert deal.order.index(4) == deal.order.index(emil) + 1


def test_a_join_says_the_player_this_phone_seated(game, phone, monkeypatch):
    """Two phones seat a player at once: each is told of its own, whichever join came last."""
    seat = Game.join

    def and_another_phone_too(self, *args, **kwargs):
        mine = seat(self, *args, **kwargs)
        seat(Game.objects.get(pk=self.pk), "Filip", phone="the other phone")
        return mine

    monkeypatch.setattr(Game, "join", and_another_phone_too)
    page = read(join(phone, game, "Emil"))
    # Not Filip, whose join came after (and so takes away the Undo of Emil's).
    assert page.one("#answer .banner").text.startswith("Emil joins from round 4")


def test_the_undo_of_a_join_takes_the_player_out_again(game, phone):
    join(phone, game, "Emil")
    joined = Game.objects.get(pk=game.pk).events.filter(kind=GameEvent.Kind.JOINED).first()
    answer = phone.post(url("undo", game.edit_token), {"event": str(joined.pk)}, follow=True)
    assert answer.status_code == 200
    assert Game.objects.get(pk=game.pk).names == NAMES
    assert "Emil" not in form_names(answer)


def test_the_players_page_offers_a_leave_only_to_those_who_have_played(game, phone):
    """A player who joined and has not played yet is offered no Leave, which the server would
    refuse: the page says why, and how to take the join back. Before any round, nobody is."""
    join(phone, game, "Emil")
    page = read(phone.get(url("players", game.edit_token)))
    assert page.texts(".leave-form button") == [f"{name} leaves" for name in NAMES]
    why = page.texts(".leave-list li.meta")
    assert why == [
        "Emil has not played a round yet, so cannot leave: take the join back with its Undo, "
        "on the phone that made it."
    ]
    assert leave(phone, game, 4).status_code == 400
    new = Game.start(["Ana", "Boris", "Cyril"])
    page = read(phone.get(url("players", new.edit_token)))
    assert page.texts(".leave-form button") == []
    assert page.texts(".leave-list li.meta") == [
        "No round has been played yet: to play without someone, start a new game without them."
    ]


def test_a_join_refused_keeps_what_was_typed(game, phone):
    answer = join(phone, game, "Emil", start="10001")
    assert answer.status_code == 200
    form = read(answer).one(".join-form")
    assert form.one("input[name=name]").get("value") == "Emil"
    assert "Give a starting total from 0 to 10000 points, not “10001”." in form.text
    answer = join(phone, game, "ana")
    assert answer.status_code == 200
    assert read(answer).one(".join-form input[name=name]").get("value") == "ana"
    join(phone, game, "Emil")
    answer = join(phone, game, "Filip")
    assert answer.status_code == 200
    # The form was offered before the sixth joined: another phone's change came first.
    answer = join(phone, game, "Gita")
    assert answer.status_code == 409
    form = read(answer).one(".join-form")
    assert "at most 6 players playing: one must leave first" in form.text
    assert form.one("input[name=name]").get("value") == "Gita"
    assert len(Game.objects.get(pk=game.pk).playing) == 6


def test_a_round_typed_before_a_player_left_is_refused_with_what_was_typed(game, phone):
    typed = round_post(0, {1: 7, 2: 8, 3: 9}, players="0 1 2 3")
    leave(Client(), game, 3)  # on another phone, meanwhile
    answer = phone.post(url("save", game.edit_token), typed)
    assert answer.status_code == 409
    page = read(answer)
    assert "A player left or joined on another phone while this round was typed" in page.text
    assert form_names(answer) == ["Ana", "Boris", "Cyril"]
    assert page.one("input[name=value_1]").get("value") == "7"
    assert page.one("input[name=players]").get("value") == "0 1 2"
    assert Game.objects.get(pk=game.pk).rounds.count() == 3
    # Saved again as the page now shows it, it counts.
    answer = phone.post(url("save", game.edit_token), {**typed, "players": "0 1 2"})
    assert Game.objects.get(pk=game.pk).rounds.count() == 4


def test_a_hand_for_a_player_not_playing_is_refused(game, phone):
    leave(phone, game, 3)
    # A form that does not say its players (a page of the release before), with Dana's hand.
    answer = phone.post(url("save", game.edit_token), round_post(0, {1: 7, 2: 8, 3: 9}))
    assert answer.status_code == 200
    assert "A hand is given for a player who is not playing this round." in read(answer).text
    assert Game.objects.get(pk=game.pk).rounds.count() == 3


def test_every_round_keeps_its_dealer_when_an_old_one_is_deleted(game, phone):
    play(game, 3)  # rounds 1-6 dealt by Ana, Boris, Cyril, Dana, Ana, Boris
    game = Game.objects.get(pk=game.pk)
    before = dict(game.rounds.values_list("number", "dealer"))
    assert list(before.values()) == [0, 1, 2, 3, 0, 1]
    phone.post(url("delete", game.edit_token), delete_post(game, 2))
    after = list(game.rounds.order_by("number").values_list("number", "dealer"))
    assert after == [(1, 0), (2, 2), (3, 3), (4, 0), (5, 1)]
    # The next round goes on from the last round's dealer, Boris: Cyril deals.
    assert Game.objects.get(pk=game.pk).seating_now().dealer == 2
    page = read(phone.get(url("game", game.edit_token)))
    assert "Cyril deals" in page.one("#entry-title").text


def test_rounds_the_release_before_saved_during_the_upgrade_keep_the_deal_going(game, phone):
    # Rounds 3 to 5 saved by 0.1.0's servers after 0013 ran (or before they were restarted):
    # their dealer column is empty. The page says who dealt them and the deal goes on.
    play(game, 2)  # rounds 4 and 5: Dana, Ana
    game.rounds.filter(number__gte=3).update(dealer=None)
    page = read(phone.get(url("game", game.edit_token)))
    assert "Boris deals" in page.one("#entry-title").text
    assert [row[10] for row in game.stored_rounds()] == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4 + [
        0
    ] * 4
    phone.post(url("save", game.edit_token), round_post(0, {1: 7, 2: 8, 3: 9}))
    assert game.rounds.get(number=6).dealer == 1
    assert "Cyril deals" in read(phone.get(url("game", game.edit_token))).one("#entry-title").text


# The next game: who plays again.


def finish(game: Game) -> Game:
    """One round that ends the game: the first player playing goes out, the others pay 400."""
    game = Game.objects.get(pk=game.pk)
    playing = [player.seat for player in game.playing]
    hands = tuple(
        None if seat not in playing else Hand() if seat == playing[0] else Hand(value=400)
        for seat in range(len(game.seated_players))
    )
    game.record_round(RoundEntry(hands=hands, winner=playing[0]))
    return Game.objects.get(pk=game.pk)


def test_a_rematch_asks_who_plays_again(game, phone):
    leave(phone, game, 1)  # Boris went home
    game = finish(game)
    form = read(phone.get(url("game", game.edit_token))).one("form.rematch")
    ticked = {
        box.get("value"): box.get("checked") is not None
        for box in form.select("input")
        if box.get("name") == "plays"
    }
    assert ticked == {"0": True, "1": False, "2": True, "3": True}
    # Cyril stays home too, Emil comes.
    chosen = {"choosing": "1", "plays": ["0", "3"], "add": "Emil"}
    answer = phone.post(url("rematch", game.edit_token), chosen)
    assert answer.status_code == 303
    rematch = Game.objects.get(pk=game.pk).next_game
    assert rematch.names == ["Ana", "Dana", "Emil"]
    assert rematch.target == 200


def test_a_rematch_refused_keeps_the_choice(game, phone):
    game = finish(game)
    answer = phone.post(
        url("rematch", game.edit_token), {"choosing": "1", "plays": ["0"], "add": ""}
    )
    assert answer.status_code == 200
    form = read(answer).one("form.rematch")
    assert "2 to 6 players" in form.text or "at least 2" in form.text
    assert [box.get("value") for box in form.select("input[name=plays][checked]")] == ["0"]
    answer = phone.post(
        url("rematch", game.edit_token), {"choosing": "1", "plays": ["0", "1"], "add": "ana"}
    )
    form = read(answer).one("form.rematch")
    assert form.one("input[name=add]").get("value") == "ana"
    assert form.select(".field-error")
    assert Game.objects.get(pk=game.pk).next_game is None


def test_a_rematch_without_the_choice_keeps_those_playing(game, phone):
    leave(phone, game, 2)
    game = finish(game)
    phone.post(url("rematch", game.edit_token))
    # Seated as the deal went round, the deal moving on: Dana dealt the last round, Ana next.
    rematch = Game.objects.get(pk=game.pk).next_game
    assert (rematch.names, rematch.first_dealer) == (["Ana", "Boris", "Dana"], 0)


# A table: who plays today, the standings and head to head.


@pytest.mark.django_db
def test_at_a_table_the_last_game_s_players_are_ticked_and_a_leaver_counts_as_not_won():
    from scoring.board import standings as tables
    from scoring.models import Table

    table = Table.start("Friday", ["Ana", "Boris", "Cyril", "Dana"])
    members = {member.name: member for member in table.members.all()}
    game = table.new_game([members[name] for name in ("Ana", "Boris", "Cyril")])
    play(game, 2, winner=1)
    game.leave(2)  # Cyril leaves; Ana goes out in the last round, Boris pays 400
    finish(game)
    page = read(Client().get(url("table", table.edit_token)))
    ticked = {box.get("value") for box in page.select(".who-plays input[checked]")}
    assert ticked == {str(members["Ana"].pk), str(members["Boris"].pk)}
    assert "A game a member left before its end counts as played and not won" in page.text
    played = tables.Played.of(table)
    by_name = {s.member.name: s for s in tables.standings(table, played)}
    assert (by_name["Cyril"].games, by_name["Cyril"].wins) == (1, 0)
    assert (by_name["Ana"].games, by_name["Ana"].wins) == (1, 1)
    pairs = {(h.first.name, h.second.name) for h in tables.head_to_head(table, played)}
    assert pairs == {("Ana", "Boris")}
    # Cyril's four points of two rounds are no best game: a part-game compares with none.
    assert (by_name["Cyril"].part_games, by_name["Cyril"].rounds) == (1, 2)
    assert (by_name["Cyril"].average_total, by_name["Cyril"].best_game) == (None, None)
    assert (by_name["Ana"].part_games, by_name["Ana"].best_game) == (0, 4)
    row = next(tr for tr in page.select(".standings-table tr") if "Cyril" in tr.text)
    assert "incl. 1 part-game" in row.text
    assert "in no average total, best game or worst game" in page.text


# Any order of changes: rounds saved, edited, deleted, restored and undone, players renamed,
# leaving, joining and coming back, as the convergence test's writers make them (one at a time
# here). After each run the game's history page, its file and its backup hold.


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(6))
def test_any_order_of_changes_keeps_the_history_the_file_and_the_backup(seed):
    import random

    from scoring.files import backup
    from tests.browser import test_convergence as writers

    rng = random.Random(f"come and go {seed}")
    game = Game.start(NAMES, house_rules=rules.Rules(target=10_000))
    for _ in range(4):
        game.record_round(writers.entry_now(game, rng), for_round=None)
    actions = [name for name in writers.ACTIONS if name != "save as a phone"]
    for _ in range(120):
        with contextlib.suppress(RulesError):  # overtaken, as a phone's change can be
            writers.ACTIONS[rng.choice(actions)].change(game.pk, rng, f"phone {rng.randrange(2)}")
    game = Game.objects.get(pk=game.pk)
    assert Client().get(url("history", game.edit_token)).status_code == 200
    exported = export_game(game)
    again = import_game(json.loads(json.dumps(exported)))
    assert again.totals() == game.totals()
    assert export_game(again)["rounds"] == exported["rounds"]
    dealers = list(game.rounds.order_by("number").values_list("dealer", flat=True))
    document = backup.backup_document(game)
    game.delete()
    restored = backup.restore(json.loads(json.dumps(document)))
    assert restored.totals() == again.totals()
    assert list(restored.rounds.order_by("number").values_list("dealer", flat=True)) == dealers


@pytest.mark.django_db
def test_the_players_page_says_why_nobody_may_leave_or_join_now():
    two = Game.start(["Ana", "Boris"])
    play(two)
    page = read(Client().get(url("players", two.edit_token)))
    assert not page.select(".leave-form")
    assert "A game keeps at least 2 players playing" in page.select("section.coming-going")[0].text
    six = Game.start(["Ana", "Boris", "Cyril", "Dana", "Emil", "Filip"])
    page = read(Client().get(url("players", six.edit_token)))
    assert not page.select(".join-form")
    assert "at most 6 players playing: one must leave first" in page.text


# After a leave, every row of the round form and of its answer is its own player's, by seat.


@pytest.fixture
def after_a_leave(db) -> Game:
    """Ana, Ondřej, Kateřina and Dana; Ondřej left after round 1."""
    game = Game.start(["Ana", "Ondřej", "Kateřina", "Dana"])
    play(game)
    game.leave(1)
    return game


def test_a_mistake_in_a_row_after_a_leave_is_told_with_that_rows_player(after_a_leave, client):
    client.get(url("game", after_a_leave.edit_token))
    page = read(client.post(url("save", after_a_leave.edit_token), round_post(0, {2: "XZ", 3: 4})))
    said = page.one("#errors-2").text
    assert "Unknown card “XZ” in the hand of Kateřina" in said
    assert page.one("#errors-3").text == ""


def test_the_saved_banner_names_who_played_with_no_stray_separator(db, client):
    """Dana, the last seat, left: the banner of the round that ends the game (where the points
    stand in the banner, not in the rows) ends with Kateřina's points."""
    game = Game.start(["Ana", "Ondřej", "Kateřina", "Dana"])
    play(game)
    game.leave(3)
    client.get(url("game", game.edit_token))
    page = read(
        client.post(url("save", game.edit_token), round_post(0, {1: 400, 2: 407}), follow=True)
    )
    banner = " ".join(page.one(".banner.saved p").text.split())
    assert banner.endswith("Kateřina 407")
    assert "Dana" not in banner


def test_the_round_another_phone_saved_first_lists_only_who_played_it(after_a_leave):
    """Two phones type round 2 after Ondřej left; the second is shown the first's round,
    naming its players: Ondřej, who did not play it, not among them with 0."""
    first, second = Client(), Client()
    for phone in (first, second):
        phone.get(url("game", after_a_leave.edit_token))
    saved = first.post(
        url("save", after_a_leave.edit_token), round_post(0, {2: 5, 3: 4}, for_round="2")
    )
    assert saved.status_code == 303
    refused = second.post(
        url("save", after_a_leave.edit_token), round_post(2, {0: 9, 3: 8}, for_round="2")
    )
    assert refused.status_code == 409
    summary = read(refused).one(".saved-rounds").text
    assert "Kateřina" in summary and "Ondřej" not in summary


def test_each_hands_refusal_names_its_own_player_after_a_leave_and_a_join_in_the_middle(db):
    """Dana (seat 3) left, Gita (seat 6) joined after Cyril: the rows go Ana, Boris, Cyril, Gita,
    Emil, Filip. The rules number a round's players by their place among those playing; each
    row's refusal names its own player (Gita's named Filip, Emil's nobody)."""
    game = Game.start(["Ana", "Boris", "Cyril", "Dana", "Emil", "Filip"])
    play(game, 2)
    Game.objects.get(pk=game.pk).leave(3)
    play(game)
    Game.objects.get(pk=game.pk).join("Gita", after=2)
    client = Client()
    page = read(client.get(url("game", game.edit_token)))
    data = {
        field.get("name"): field.get("value") or ""
        for field in page.select("#round-form input[type=hidden]")
        if field.get("name")
    }
    data |= {"winner": "0", "action": "save"} | {f"value_{seat}": "1" for seat in (1, 2, 4, 5, 6)}
    rows = read(client.post(url("save", game.edit_token), data)).select("#round-form .hand")
    told = {row.texts(".hand-name")[0]: " ".join(row.texts(".field-error")) for row in rows}
    for name in ("Boris", "Cyril", "Gita", "Emil", "Filip"):
        assert told[name].startswith(f"The hand value of {name}, 1, is less than"), told
