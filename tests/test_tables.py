"""Tables (docs/at-the-table.md): members, new games from a table, keeping a game, renaming a
member, and the standings, head to head and results across the table's games."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring import rules
from scoring.board import standings as tables
from scoring.files.exchange import export_game, import_game
from scoring.models import Game, GameEvent, Member, NewMember, Player, Table
from scoring.rules import Hand, RoundEntry, RulesError
from tests.conftest import big_table, finished_game, thursday

pytestmark = pytest.mark.django_db


def by_name(table_standings) -> dict:
    return {standing.name: standing for standing in table_standings}


def went_out(seats: int, winner: int, values: dict[int, int] | None = None) -> RoundEntry:
    """A round `winner` went out of, the others holding `values` (seat -> hand value, 10 when
    not given)."""
    values = values or {}
    hands = tuple(
        Hand() if seat == winner else Hand(value=values.get(seat, 10)) for seat in range(seats)
    )
    return RoundEntry(hands=hands, winner=winner)


def hand_rummy(seats: int, winner: int) -> RoundEntry:
    hands = tuple(Hand(opened=seat == winner) for seat in range(seats))
    return RoundEntry(hands=hands, winner=winner, hand_rummy=True)


# The worked example (docs/formats.md, rami-table/1)


def test_the_worked_example_gives_the_standings_formats_md_states(thursday_table):
    standings = by_name(tables.standings(thursday_table))
    assert {
        name: (standing.games, standing.wins, standing.average_total)
        for name, standing in standings.items()
    } == {
        "Ana": (2, 1, 130.0),
        "Boris": (3, 0, 166.7),
        "Cyril": (2, 1, 125.0),
        "Dana": (2, 1, 121.0),
    }


def test_the_worked_example_counts_rounds_hand_rummies_and_best_and_worst_games(thursday_table):
    standings = by_name(tables.standings(thursday_table))
    # Ana: a hand rummy made (0), then 60 and a hand rummy suffered (200).
    ana = standings["Ana"]
    assert (ana.best_game, ana.worst_game, ana.win_rate) == (0, 260, 0.5)
    assert (ana.rounds, ana.average_round, ana.rounds_won) == (3, 86.7, 1)
    assert (ana.hand_rummies_made, ana.hand_rummies_suffered) == (1, 1)
    # Boris: 200; 0 and 200; 100 and 0 over five rounds, two of them gone out of.
    boris = standings["Boris"]
    assert (boris.best_game, boris.worst_game, boris.win_rate) == (100, 200, 0.0)
    assert (boris.rounds, boris.average_round, boris.rounds_won) == (5, 100.0, 2)
    assert (boris.hand_rummies_made, boris.hand_rummies_suffered) == (0, 2)
    dana = standings["Dana"]
    assert (dana.rounds, dana.average_round, dana.hand_rummies_made) == (4, 60.5, 1)
    assert all(standing.small_sample and standing.rank is None for standing in standings.values())
    assert [standing.name for standing in tables.standings(thursday_table)] == [
        "Ana",
        "Boris",
        "Cyril",
        "Dana",
    ]


def test_head_to_head_of_the_worked_example(thursday_table):
    assert [
        (
            pair.first.name,
            pair.second.name,
            pair.games,
            pair.first_lower,
            pair.second_lower,
            pair.ties,
        )
        for pair in tables.head_to_head(thursday_table)
    ] == [
        ("Ana", "Boris", 2, 1, 1, 0),
        ("Ana", "Cyril", 1, 1, 0, 0),
        ("Ana", "Dana", 1, 0, 1, 0),
        # Game 1: both 200, a tie; game 3: Cyril 50, Boris 100.
        ("Boris", "Cyril", 2, 0, 1, 1),
        ("Boris", "Dana", 2, 1, 1, 0),
        ("Cyril", "Dana", 1, 1, 0, 0),
    ]


def test_results_list_the_games_in_the_order_they_began(thursday_table):
    listed = tables.results(thursday_table)
    assert [
        ([(player.name, player.total) for player in result.players], result.winner.name)
        for result in listed
    ] == [
        ([("Ana", 0), ("Boris", 200), ("Cyril", 200)], "Ana"),
        ([("Ana", 260), ("Boris", 200), ("Dana", 30)], "Dana"),
        ([("Boris", 100), ("Cyril", 50), ("Dana", 212)], "Cyril"),
    ]
    assert [result.started.isoformat() for result in listed] == [
        "2026-11-05T19:30:00+00:00",
        "2026-11-12T19:30:00+00:00",
        "2026-11-19T19:30:00+00:00",
    ]
    first = listed[0]
    game = Game.objects.get(edit_token=first.edit_token)
    assert (first.view_token, first.version, first.status) == (
        game.view_token,
        game.version,
        "finished",
    )
    assert (first.rounds, first.target, first.finished) == (1, 200, True)
    assert not any(player.guest for result in listed for player in result.players)
    member = Member.objects.get(table=thursday_table, name="Dana")
    assert [result.total_of(member.pk) for result in listed] == [None, 30, 212]


# Fixed queries


def queries_of(read, table: Table) -> int:
    with CaptureQueriesContext(connection) as captured:
        read(table)
    return len(captured)


def test_a_table_is_read_in_the_same_few_queries_for_3_games_and_for_200():
    small, large = big_table(3), big_table(200)
    assert len(tables.results(large)) == 200
    for read, queries in ((tables.standings, 3), (tables.head_to_head, 2), (tables.results, 2)):
        assert queries_of(read, small) == queries_of(read, large) == queries, read.__name__


def test_a_big_table_counts_guests_and_unfinished_games_apart():
    table = big_table(21)
    standings = by_name(tables.standings(table))
    # Boris plays every game but every fifth, where Eva sits instead; every seventh game
    # is left unfinished.
    boris_games = [n for n in range(21) if n % 5 != 0]
    finished = [n for n in boris_games if n % 7 != 0]
    assert standings["Boris"].games == len(finished)
    assert standings["Boris"].playing == len(boris_games) - len(finished)
    assert "Eva" not in standings
    assert not standings["Boris"].small_sample
    assert standings["Boris"].rank is not None
    guests = [
        player for result in tables.results(table) for player in result.players if player.guest
    ]
    assert {player.name for player in guests} == {"Eva"}


# Starting a table and its games


def test_start_table_checks_the_names_as_a_game_does():
    table = Table.start("  Thursday\u200b cards ", ["Ana", " Boris  Novák", "Čeněk"])
    assert table.name == "Thursday cards"
    assert [(m.name, m.name_key, m.position) for m in table.members.all()] == [
        ("Ana", "ana", 0),
        ("Boris Novák", "boris novák", 1),
        # The key is the name's confusable skeleton, where a caron is drawn as a breve.
        ("Čeněk", "c\u0306en\u0115k", 2),
    ]
    assert Table.start("Solo", ["Ana"]).members.count() == 1


@pytest.mark.parametrize(
    ("name", "members", "code", "player"),
    [
        ("Thursday", [], "member_count", None),
        ("Thursday", [f"P{n}" for n in range(31)], "member_count", None),
        ("Thursday", ["Ana", "Boris", "ANA"], "member_duplicate", 2),
        ("Thursday", ["Ana", "x" * 31], "name_too_long", 1),
        ("Thursday", ["Ana", "\u200b"], "name_invisible", 1),
        ("Thursday", ["Ana", "  "], "name_empty", 1),
        ("", ["Ana"], "name_empty", None),
        ("x" * 61, ["Ana"], "name_too_long", None),
    ],
)
def test_start_table_refuses_wrong_names_and_makes_nothing(name, members, code, player):
    with pytest.raises(RulesError) as refused:
        Table.start(name, members)
    assert (refused.value.code, refused.value.player) == (code, player)
    assert not Table.objects.exists()


def test_a_new_game_seats_members_guests_and_new_members():
    table = Table.start("Thursday", ["Ana", "Boris", "Cyril"])
    ana, boris, _ = table.members.all()
    game = table.new_game([boris, "eva", NewMember("Filip"), "ANA"])
    assert game.table == table
    # A name that is a member's is that member, spelled as the member is.
    assert [(p.name, p.member.name if p.member else None) for p in game.seated_players] == [
        ("Boris", "Boris"),
        ("eva", None),
        ("Filip", "Filip"),
        ("Ana", "Ana"),
    ]
    assert [member.name for member in table.members.all()] == ["Ana", "Boris", "Cyril", "Filip"]
    assert list(Member.objects.filter(table=table).values_list("position", flat=True)) == [
        0,
        1,
        2,
        3,
    ]
    assert ana.players.get().game == game


def test_a_guest_who_joins_becomes_the_member_in_the_games_they_played_as_a_guest():
    table = Table.start("Thursday", ["Ana", "Boris"])
    ana, boris = table.members.all()
    first = table.new_game([ana, boris, "Eva"])
    assert first.players.get(seat=2).member is None
    eva = table.add_member("eva")
    assert eva.name == "eva"
    assert first.players.get(seat=2).member == eva
    assert table.add_member("EVA") == eva


def test_a_new_game_plays_by_the_tables_house_rules():
    table = Table.start("Fifties", ["Ana", "Boris"], house_rules=rules.Rules(joker=50))
    game = table.new_game(list(table.members.all()))
    assert game.rules.joker == 50
    assert game.house_rules.changes() == {"joker": 50}


@pytest.mark.parametrize(
    ("players", "code", "player"),
    [
        (["Ana"], "player_count", None),
        (["Ana", "b", "c", "d", "e", "f", "g"], "player_count", None),
        (["Ana", "ana"], "name_duplicate", 1),
        (["Ana", "x" * 31], "name_too_long", 1),
    ],
)
def test_a_new_game_is_refused_as_the_start_form_refuses_it(players, code, player):
    table = Table.start("Thursday", ["Ana", "Boris"])
    ana = table.members.get(name="Ana")
    with pytest.raises(RulesError) as refused:
        table.new_game([ana, *players[1:]])
    assert (refused.value.code, refused.value.player) == (code, player)
    assert not Game.objects.exists()


def test_a_table_takes_at_most_30_members():
    table = Table.start("Big", [f"P{n}" for n in range(29)])
    table.add_member("Ana")
    with pytest.raises(RulesError) as refused:
        table.new_game(["P1", NewMember("Boris")])
    assert refused.value.code == "member_count"
    assert table.members.count() == 30
    assert not Game.objects.exists()


def test_a_member_of_another_table_is_a_callers_mistake():
    table, other = Table.start("A", ["Ana"]), Table.start("B", ["Boris"])
    with pytest.raises(ValueError, match="not a member"):
        table.new_game([other.members.get(), "Eva"])


# The deal follows on from the table's last game


@pytest.fixture
def four() -> Table:
    table = Table.start("Thursday", ["Ana", "Boris", "Cyril", "Dana"])
    ana, boris, cyril, _ = table.members.all()
    game = table.new_game([ana, boris, cyril], first_dealer=0)
    # Ana dealt round 1, Boris round 2: Cyril deals next.
    game.record_round(went_out(3, 0))
    game.record_round(went_out(3, 1))
    return table


def members(table: Table, *names: str) -> list[Member]:
    by_name = {member.name: member for member in table.members.all()}
    return [by_name[name] for name in names]


def test_whoever_would_deal_next_at_the_last_game_deals_first(four):
    game = four.new_game(members(four, "Dana", "Cyril", "Ana"))
    assert game.first_dealer == 1  # Cyril


def test_when_they_do_not_play_the_next_player_at_the_last_game_deals(four):
    # After Cyril at the last game comes Ana.
    game = four.new_game(members(four, "Boris", "Ana", "Dana"))
    assert game.first_dealer == 1


def test_when_nobody_of_the_last_game_plays_seat_one_deals(four):
    game = four.new_game([members(four, "Dana")[0], "Eva"])
    assert game.first_dealer == 0


def test_a_chosen_first_dealer_is_kept(four):
    game = four.new_game(members(four, "Dana", "Cyril", "Ana"), first_dealer=2)
    assert game.first_dealer == 2


def test_the_deal_follows_the_latest_game_of_the_table(four):
    first = four.new_game(members(four, "Dana", "Cyril", "Ana"))
    assert first.first_dealer == 1
    # Cyril dealt that game's only round: Ana deals next.
    first.record_round(went_out(3, 0))
    game = four.new_game(members(four, "Ana", "Boris"))
    assert game.first_dealer == 0


# Keeping a game at a table


def finished_by_ace_one(names=("Ana", "Boris")) -> Game:
    """conftest's finished game, played by a house rule (the ace counts 1) that a table kept
    from it must carry on."""
    return finished_game(names, house_rules=rules.Rules(ace=1))


def test_keeping_a_game_makes_a_table_of_its_players():
    game = finished_by_ace_one(("Ana", "Boris", "Cyril"))
    version = game.version
    table = Table.keep_together(game, "Friday")
    assert (table.name, [m.name for m in table.members.all()]) == (
        "Friday",
        ["Ana", "Boris", "Cyril"],
    )
    # The table's new games play by the kept game's rules.
    assert table.rules.ace == 1
    game.refresh_from_db()
    assert game.table == table
    assert game.version > version
    assert [p.member.name for p in game.players.order_by("seat")] == ["Ana", "Boris", "Cyril"]
    assert by_name(tables.standings(table))["Ana"].wins == 1


def test_a_kept_game_without_a_name_is_named_after_its_players():
    assert Table.keep_together(finished_by_ace_one()).name == "Ana, Boris"
    long = [letter * 25 for letter in "ABC"]
    name = Table.keep_together(finished_by_ace_one(long)).name
    assert len(name) == 60
    assert name.endswith("…")


def test_keeping_a_game_at_a_table_links_its_players_by_name_and_adds_the_others():
    table = Table.start("Thursday", ["Ana", "Cyril"])
    game = finished_by_ace_one(("ANA", "Boris"))
    assert table.keep_game(game) == table
    assert [m.name for m in table.members.all()] == ["Ana", "Cyril", "Boris"]
    ana = table.members.get(name="Ana")
    assert game.players.get(seat=0).member == ana
    assert tables.standings(table)[0].games == 1


def test_keeping_a_game_twice_changes_nothing_and_another_table_is_refused():
    game = finished_by_ace_one()
    table = Table.keep_together(game, "Friday")
    game.refresh_from_db()
    version = game.version
    assert Table.keep_together(game) == table
    assert table.keep_game(game) == table
    game.refresh_from_db()
    assert game.version == version
    with pytest.raises(RulesError) as refused:
        Table.start("Other", ["Ana"]).keep_game(game)
    assert refused.value.code == "game_at_another_table"
    assert Table.objects.count() == 2


# Renaming a member


def test_renaming_a_member_renames_them_in_every_game_and_moves_each_version(thursday_table):
    boris = thursday_table.members.get(name="Boris")
    before = {game.pk: game.version for game in thursday_table.games.all()}
    thursday_table.rename_member(boris, " Borek ")
    boris.refresh_from_db()
    assert (boris.name, boris.name_key) == ("Borek", "borek")
    for game in thursday_table.games.all():
        player = game.players.get(member=boris)
        assert (player.name, player.name_key) == ("Borek", "borek")
        assert game.version > before[game.pk]
        event = game.events.get(kind=GameEvent.Kind.RENAMED)
        assert (event.before, event.after) == (
            {"seat": player.seat, "name": "Boris"},
            {"seat": player.seat, "name": "Borek"},
        )
        assert export_game(game)["players"][player.seat] == "Borek"
    assert by_name(tables.standings(thursday_table))["Borek"].average_total == 166.7


def test_a_member_may_change_the_case_of_their_own_name(thursday_table):
    ana = thursday_table.members.get(name="Ana")
    thursday_table.rename_member(ana, "ANA")
    assert Player.objects.filter(member=ana, name="ANA").count() == 2


def test_a_member_cannot_take_another_members_or_a_guests_name(thursday_table):
    thursday_table.new_game(["Ana", "Eva"])
    boris = thursday_table.members.get(name="Boris")
    versions = sorted(thursday_table.games.values_list("version", flat=True))
    for taken in ("cyril", "EVA"):
        with pytest.raises(RulesError) as refused:
            thursday_table.rename_member(boris, taken)
        assert refused.value.code == "name_taken"
    with pytest.raises(RulesError) as refused:
        thursday_table.rename_member(boris, "")
    assert refused.value.code == "name_empty"
    boris.refresh_from_db()
    assert boris.name == "Boris"
    assert sorted(thursday_table.games.values_list("version", flat=True)) == versions
    assert not GameEvent.objects.filter(kind=GameEvent.Kind.RENAMED).exists()


# The numbers


def test_a_finished_game_counts_its_total_an_unfinished_one_only_its_rounds():
    table = Table.start("Thursday", ["Ana", "Boris"])
    ana, boris = table.members.all()
    done = table.new_game([ana, boris])
    done.record_round(went_out(2, 0, {1: 99}))
    done.record_round(went_out(2, 0, {1: 5}))
    going = table.new_game([ana, boris])
    going.record_round(went_out(2, 1, {0: 40}))
    standings = by_name(tables.standings(table))
    ana_standing = standings["Ana"]
    assert (ana_standing.games, ana_standing.wins, ana_standing.playing) == (1, 1, 1)
    assert ana_standing.average_total == 0.0
    # 0 + 0 + 40 over three rounds.
    assert (ana_standing.rounds, ana_standing.average_round) == (3, 13.3)
    assert (standings["Boris"].average_total, standings["Boris"].win_rate) == (104.0, 0.0)
    assert [pair.games for pair in tables.head_to_head(table)] == [1]


def test_blocked_rounds_and_never_opened_are_counted_as_the_game_page_counts_them():
    table = Table.start("Thursday", ["Ana", "Boris", "Cyril"])
    game = table.new_game(list(table.members.all()))
    # Blocked: Ana holds the lowest hand (scores 0); Cyril never opened.
    game.record_round(
        RoundEntry(hands=(Hand(value=3), Hand(value=9), Hand(value=20, opened=False)), winner=None)
    )
    # Boris goes out; Ana never opened.
    game.record_round(
        RoundEntry(hands=(Hand(value=7, opened=False), Hand(), Hand(value=5)), winner=1)
    )
    # A hand rummy: Cyril and Ana had not opened, but pay the hand rummy, not the penalty.
    game.record_round(hand_rummy(3, 1))
    standings = by_name(tables.standings(table))
    # Ana won the blocked round with the lowest hand; Boris went out twice.
    assert [
        (s.rounds_won, s.never_opened, s.hand_rummies_suffered)
        for s in (standings["Ana"], standings["Boris"], standings["Cyril"])
    ] == [(1, 1, 1), (2, 0, 0), (0, 1, 1)]


def test_averages_are_rounded_half_up_as_a_hand_count_does():
    assert tables.one_decimal(401, 4) == 100.3
    assert tables.one_decimal(500, 3) == 166.7
    assert tables.one_decimal(0, 0) is None


def test_five_finished_games_rank_a_member_and_fewer_are_a_small_sample():
    table = Table.start("Thursday", ["Ana", "Boris", "Cyril"])
    ana, boris, cyril = table.members.all()
    for number in range(5):
        game = table.new_game([ana, boris], first_dealer=0)
        game.record_round(hand_rummy(2, 0 if number < 3 else 1))
    game = table.new_game([ana, cyril], first_dealer=0)
    game.record_round(hand_rummy(2, 1))
    ranked = tables.standings(table)
    assert [(s.name, s.games, s.rank, s.small_sample) for s in ranked] == [
        # Ana 3 wins of 6 (0.5), Boris 2 of 5 (0.4); Cyril 1 of 1, but a small sample.
        ("Ana", 6, 1, False),
        ("Boris", 5, 2, False),
        ("Cyril", 1, None, True),
    ]


def test_a_game_imported_on_its_own_is_not_at_any_table(thursday_table):
    game = import_game(thursday()["games"][0])
    assert game.table is None
    assert tables.standings(thursday_table)[0].games == 2
