"""Rounds are recorded, edited, deleted and restored through Game's methods."""

import json
import time

import pytest
from django.db import IntegrityError, connection, transaction

from scoring.files.exchange import export_game, import_game
from scoring.models import Game, Round, Table
from scoring.rules import Hand, RoundEntry, Rules, RulesError, messages

pytestmark = pytest.mark.django_db


def won_by(winner, *values):
    hands = [Hand(value=v) if v is not None else Hand() for v in values]
    return RoundEntry(hands=tuple(hands), winner=winner)


def test_tokens_are_random_urlsafe_and_long_enough(three_players):
    other = Game.start(["A", "B"])
    for token in (three_players.edit_token, three_players.view_token):
        assert len(token) >= 22  # 128 bits in URL-safe base64
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert (
        len(
            {three_players.edit_token, three_players.view_token, other.edit_token, other.view_token}
        )
        == 4
    )


def test_recording_a_round_stores_the_engines_points_and_totals(three_players):
    three_players.record_round(won_by(0, None, 12, 30))
    three_players.record_round(won_by(1, 5, None, 2))
    assert three_players.totals() == [5, 12, 32]
    assert list(three_players.rounds.values_list("number", flat=True)) == [1, 2]


def test_the_version_only_grows_and_never_falls_below_the_clock(three_players):
    """A phone or a cache that saw version N never sees N again for another state, even when
    the game is deleted and restored from a backup (the new game's version starts at the
    clock, in milliseconds)."""
    versions = [three_players.version]
    for _ in range(3):
        three_players.record_round(won_by(0, None, 12, 30))
        versions.append(three_players.version)
    assert versions == sorted(set(versions))
    assert versions[0] >= time.time_ns() // 1_000_000 - 60_000
    document = export_game(three_players)
    three_players.delete()
    again = import_game(document)
    assert again.version > versions[-1]


def test_totals_are_one_query(three_players, django_assert_num_queries):
    three_players.record_round(won_by(0, None, 12, 30))
    with django_assert_num_queries(1):
        three_players.totals()


def test_an_invalid_round_stores_nothing(three_players):
    with pytest.raises(RulesError):
        three_players.record_round(won_by(0, None, 12, None))
    assert three_players.rounds.count() == 0
    assert three_players.events.count() == 0


def test_round_numbers_are_unique_per_game(three_players):
    three_players.record_round(won_by(0, None, 12, 30))
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(game=three_players, number=1)


def test_deleting_and_restoring_a_round_brings_it_back_exactly(three_players):
    for value in (10, 20, 30):
        three_players.record_round(won_by(0, None, value, 2))
    before = export_game(three_players)
    event = three_players.delete_round(three_players.rounds.get(number=2))
    assert three_players.totals() == [0, 40, 4]
    assert list(three_players.rounds.values_list("number", flat=True)) == [1, 2]
    three_players.restore_round(event)
    assert export_game(three_players) == before
    with pytest.raises(RulesError, match="already"):
        three_players.restore_round(event)


def test_deleting_the_final_round_reopens_the_game(three_players):
    three_players.record_round(won_by(0, None, 200, 2))
    three_players.delete_round(three_players.rounds.get(number=1))
    assert (three_players.status, three_players.winner_seat) == ("playing", None)


def test_a_game_takes_no_more_than_500_rounds(three_players):
    # Round rows without hands stand for 500 rounds played: only their count matters here.
    Round.objects.bulk_create(
        Round(game=three_players, number=n, winner_seat=0) for n in range(1, 501)
    )
    with pytest.raises(RulesError) as raised:
        three_players.record_round(won_by(0, None, 3, 4))
    assert raised.value.code == "too_many_rounds"
    message = "A game has at most 500 rounds: start a new game from the start page to play on."
    assert messages.english(raised.value) == message
    with pytest.raises(RulesError):
        three_players.record_round(won_by(0, None, 3, 4), past_the_end=True)
    assert three_players.rounds.count() == 500
    assert not three_players.events.exists()


def test_tokens_never_start_with_a_dash(monkeypatch):
    from scoring.models import common

    drawn = iter(["-starts-with-a-dash-xxxxxxxxxxxxx", "fine-token-xxxxxxxxxxxxxxxxxxxxxx"])
    monkeypatch.setattr(common.secrets, "token_urlsafe", lambda size: next(drawn))
    assert common.new_token() == "fine-token-xxxxxxxxxxxxxxxxxxxxxx"


@pytest.mark.django_db
@pytest.mark.parametrize("model", [Game, Table])
def test_house_rules_are_one_rules_value_stored_as_their_changes(model):
    made = model.objects.create(house_rules=Rules(joker=50, target=None))
    assert made.house_rules == Rules(joker=50)
    assert model().house_rules == Rules()
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT house_rules FROM {table} WHERE id = %s", [made.pk])  # noqa: S608
        stored = cursor.fetchone()[0]
    assert (json.loads(stored) if isinstance(stored, str) else stored) == {"joker": 50}
    read = model.objects.get(pk=made.pk)
    assert read.house_rules == Rules(joker=50)
    assert list(model.objects.values_list("house_rules", flat=True)) == [Rules(joker=50)]
    assert list(model.objects.values_list("house_rules__joker", flat=True)) == [50]


def read_by_the_orm(**lookup: str) -> Game:
    """Game.with_players as the ORM reads it: the slow way its SQL replaces."""
    from scoring.models import Player

    players = list(
        Player.objects.select_related("game__table")
        .filter(**{f"game__{field}": value for field, value in lookup.items()})
        .order_by("seat")
    )
    game = players[0].game
    game.seated_players = players
    return game


def fields_of(row) -> dict:
    """Each field's value and its type (a boolean stored as 0 is not False here)."""
    values = (getattr(row, field.attname) for field in row._meta.concrete_fields)
    return {
        field.attname: (type(value), value)
        for field, value in zip(row._meta.concrete_fields, values, strict=True)
    }


def test_a_game_read_in_sql_is_the_game_the_orm_reads(thursday_table):
    """Every field of the game, its table and its players, converted alike (dates, booleans,
    the rules, JSON), for games at a table and not, with house rules, a changed deal, a player
    who left and came back, and one who joined."""
    games = list(thursday_table.games.all())
    own = Game.start(["Ana", "Boris", "Cyril"], house_rules=Rules(joker=50, not_opened_penalty=0))
    for _ in range(2):
        own.record_round(won_by(0, None, 5, 7))
    own.leave(1)
    own.record_round(RoundEntry((Hand(), None, Hand(value=4)), winner=0))
    own.come_back(1)
    own.join("Dana")
    own.change_seating(2, [2, 0, 3, 1])
    for game in [*games, own]:
        for lookup in (
            {"edit_token": game.edit_token},
            {"view_token": game.view_token},
            {"pk": game.pk},
        ):
            fast, slow = Game.with_players(**lookup), read_by_the_orm(**lookup)
            assert fields_of(fast) == fields_of(slow)
            assert fast.table_id == slow.table_id
            if slow.table_id is not None:
                assert fields_of(fast.table) == fields_of(slow.table)
            assert [fields_of(p) for p in fast.seated_players] == [
                fields_of(p) for p in slow.seated_players
            ]
            assert all(player.game is fast for player in fast.seated_players)
            assert (fast.rules, fast.seating_now(), fast.totals()) == (
                slow.rules,
                slow.seating_now(),
                slow.totals(),
            )
    with pytest.raises(Game.DoesNotExist):
        Game.with_players(edit_token="x" * 32)
    with pytest.raises(ValueError):
        Game.with_players(name="Ana")
