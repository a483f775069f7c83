"""Rounds are recorded, edited, deleted and restored through Game's methods."""

import time

import pytest
from django.db import IntegrityError, transaction

from scoring.exchange import RoundEntry
from scoring.models import Game, GameEvent, Round
from scoring.rules import Hand, RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    return Game.start(["Ana", "Boris", "Cyril"])


def won_by(winner, *values):
    hands = [Hand(value=v) if v is not None else Hand() for v in values]
    return RoundEntry(hands=tuple(hands), winner=winner)


def test_tokens_are_random_urlsafe_and_long_enough(game):
    other = Game.start(["A", "B"])
    for token in (game.edit_token, game.view_token):
        assert len(token) >= 22  # 128 bits in URL-safe base64
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert len({game.edit_token, game.view_token, other.edit_token, other.view_token}) == 4


def test_recording_a_round_stores_the_engines_points_and_totals(game):
    game.record_round(won_by(0, None, 12, 30))
    game.record_round(won_by(1, 5, None, 1))
    assert game.totals() == [5, 12, 31]
    assert list(game.rounds.values_list("number", flat=True)) == [1, 2]


def test_the_version_only_grows_and_never_falls_below_the_clock(game):
    """A phone or a cache that saw version N never sees N again for another state, even when
    the game is deleted and restored from a backup (the new game's version starts at the
    clock, in milliseconds)."""
    versions = [game.version]
    for _ in range(3):
        game.record_round(won_by(0, None, 12, 30))
        versions.append(game.version)
    assert versions == sorted(set(versions))
    assert versions[0] >= time.time_ns() // 1_000_000 - 60_000
    document = game.to_document()
    game.delete()
    again = Game.from_document(document)
    assert again.version > versions[-1]


def test_totals_are_one_query(game, django_assert_num_queries):
    game.record_round(won_by(0, None, 12, 30))
    with django_assert_num_queries(1):
        game.totals()


def test_an_invalid_round_stores_nothing(game):
    with pytest.raises(RulesError):
        game.record_round(won_by(0, None, 12, None))
    assert game.rounds.count() == 0
    assert game.events.count() == 0


def test_round_numbers_are_unique_per_game(game):
    game.record_round(won_by(0, None, 12, 30))
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(game=game, number=1)


def test_editing_a_round_recomputes_totals_and_state(game):
    game.record_round(won_by(0, None, 12, 30))
    game.record_round(won_by(0, None, 12, 200))
    assert game.status == "finished"
    game.edit_round(game.rounds.get(number=2), won_by(0, None, 12, 20))
    assert game.totals() == [0, 24, 50]
    assert game.status == "playing"
    assert game.events.first().kind == GameEvent.Kind.EDITED


def test_deleting_and_restoring_a_round_brings_it_back_exactly(game):
    for value in (10, 20, 30):
        game.record_round(won_by(0, None, value, 1))
    before = game.to_document()
    event = game.delete_round(game.rounds.get(number=2))
    assert game.totals() == [0, 40, 2]
    assert list(game.rounds.values_list("number", flat=True)) == [1, 2]
    game.restore_round(event)
    assert game.to_document() == before
    with pytest.raises(RulesError, match="already"):
        game.restore_round(event)


def test_a_finished_game_takes_no_new_rounds(game):
    game.record_round(won_by(0, None, 200, 1))
    assert (game.status, game.winner_seat) == ("finished", 0)
    with pytest.raises(RulesError) as caught:
        game.record_round(won_by(0, None, 1, 1))
    assert caught.value.code == "game_finished"


def test_deleting_the_final_round_reopens_the_game(game):
    game.record_round(won_by(0, None, 200, 1))
    game.delete_round(game.rounds.get(number=1))
    assert (game.status, game.winner_seat) == ("playing", None)


def test_the_same_key_records_a_round_once(game):
    first = game.record_round(won_by(0, None, 12, 30), key="tap-1")
    again = game.record_round(won_by(0, None, 12, 30), key="tap-1")
    assert first.pk == again.pk
    assert game.rounds.count() == 1


def test_rematch_keeps_the_players_and_moves_the_deal_on(game):
    game.record_round(won_by(0, None, 12, 300))
    rematch = game.rematch()
    assert rematch.names == ["Ana", "Boris", "Cyril"]
    assert rematch.first_dealer == 1
    assert rematch.edit_token != game.edit_token


def test_a_rematch_is_made_once_and_only_for_a_finished_game(game):
    game.record_round(won_by(0, None, 12, 30))
    with pytest.raises(RulesError) as raised:
        game.rematch()
    assert raised.value.code == "game_not_finished"
    game.record_round(won_by(0, None, 12, 300))
    version = game.version
    first, second = game.rematch(), game.rematch()
    assert first.pk == second.pk
    assert Game.objects.count() == 2
    # The finished game's watchers learn of the next game from a new version.
    game.refresh_from_db()
    assert game.version > version and game.next_game == first


def test_a_game_takes_no_more_than_500_rounds(game):
    # Round rows without hands stand for 500 rounds played: only their count matters here.
    Round.objects.bulk_create(Round(game=game, number=n, winner_seat=0) for n in range(1, 501))
    with pytest.raises(RulesError) as raised:
        game.record_round(won_by(0, None, 3, 4))
    assert raised.value.code == "too_many_rounds"
    assert str(raised.value) == "a game has at most 500 rounds"
    with pytest.raises(RulesError):
        game.record_round(won_by(0, None, 3, 4), past_the_end=True)
    assert game.rounds.count() == 500
    assert not game.events.exists()


def test_tokens_never_start_with_a_dash(monkeypatch):
    from scoring import models

    drawn = iter(["-starts-with-a-dash-xxxxxxxxxxxxx", "fine-token-xxxxxxxxxxxxxxxxxxxxxx"])
    monkeypatch.setattr(models.secrets, "token_urlsafe", lambda size: next(drawn))
    assert models.new_token() == "fine-token-xxxxxxxxxxxxxxxxxxxxxx"
