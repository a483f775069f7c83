"""The game page keeps what most of its drawing costs (game.html's {% cache %}s: the rounds,
the chart and the statistics; the shown rows; each round's row; a fresh round form), each
under a digest of what it shows (the form without the standings drawn into its rows); so
are each board's points and standings (scoring.board.kept).
A page drawn from what is kept must be the page drawn afresh: each page and live update here
is drawn twice at every step of a game that meets every kind of change, once with the caches
as served and once with nothing kept, and the two compared."""

from __future__ import annotations

import difflib
import re
from unittest.mock import patch

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client
from django.test.utils import override_settings

from scoring.board import kept as kept_boards
from scoring.board.kept import Kept
from scoring.live.answers import shared_answers
from scoring.models import Game, Round
from scoring.rules import Hand, RoundEntry
from scoring.templatetags.rami import StandingsIn
from tests.links import url
from tests.pages import VARYING

HTMX = {"HX-Request": "true"}
NOTHING_KEPT = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
MASKED = re.compile(VARYING)


def drawn(game: Game, seen: int, language: str) -> dict[str, str]:
    """The pages of `game` and a live update from the version `seen`, as a phone gets them."""
    client = Client(headers={"Accept-Language": language})
    addresses = {
        "game page": url("game", game.edit_token),
        "watch-only page": url("view", game.view_token),
        "every round": url("all_rounds", game.edit_token),
        "every round, watch-only": url("view_all_rounds", game.view_token),
    }
    latest = game.rounds.order_by("-number").first()
    if latest is not None:
        # The page that says a round was saved (as the save's answer does): its points in the
        # form's rows, beside each total.
        addresses["saved page"] = f"{addresses['game page']}?saved={latest.pk}"
    pages = {name: client.get(address) for name, address in addresses.items()}
    pages["the save's answer"] = client.get(addresses["game page"], headers=HTMX)
    poll = url("poll", game.edit_token)
    pages["live update"] = client.get(poll, {"v": seen, "shown": "playing"}, headers=HTMX)
    view_poll = url("view_poll", game.view_token)
    pages["watch-only update"] = client.get(view_poll, {"v": seen}, headers=HTMX)
    shared_answers.clear()
    return {name: MASKED.sub("", page.content.decode()) for name, page in pages.items()}


def both_ways(game: Game, seen: int, language: str = "en") -> None:
    game.refresh_from_db()
    kept = drawn(game, seen, language)
    nothing_kept = {alias: NOTHING_KEPT for alias in settings.CACHES}
    with (
        override_settings(CACHES=nothing_kept),
        patch.object(kept_boards, "boards", Kept(0)),
        # The round form's rows with each standing drawn in place, not put in afterwards.
        patch.object(StandingsIn, "render", lambda node, context: node.nodelist.render(context)),
    ):
        afresh = drawn(game, seen, language)
    for name in kept:
        lines = difflib.unified_diff(
            afresh[name].splitlines(), kept[name].splitlines(), "afresh", "kept", lineterm=""
        )
        assert kept[name] == afresh[name], f"{name}:\n" + "\n".join(list(lines)[:40])


def won(winner: int, *values: int | None, hand_rummy: bool = False) -> RoundEntry:
    """A round `winner` went out of, the others' hands of these values (None: not playing)."""
    opened = not hand_rummy
    hands = [None if value is None else Hand(value=value, opened=opened) for value in values]
    hands.insert(winner, Hand())
    return RoundEntry(tuple(hands), winner=winner, hand_rummy=hand_rummy)


@pytest.mark.parametrize("language", ["en", "cs"])
def test_pages_drawn_from_kept_fragments_are_the_pages_drawn_afresh(db, language):
    game = Game.start(["Ana", "Boris", "Cyril", "Dana"])
    steps = []

    def step(change) -> None:
        seen = Game.objects.get(pk=game.pk).version
        change()
        steps.append(change)
        both_ways(game, seen, language)

    # A new game's pages (its form says how to enter a round), then, the deal back at the
    # same seat, the same form with rounds in.
    both_ways(game, game.version, language)
    # Enough rounds that the page folds the older ones away ("Show all").
    for number in range(1, 11):
        step(lambda n=number: game.record_round(won(0, n % 4, n % 3 + 1, 2)))
    step(lambda: game.record_round(won(1, 5, 9, 4, hand_rummy=True)))

    def edited(number: int, entry: RoundEntry) -> None:
        seen = game.rounds.get(number=number)
        game.edit_round(Round(pk=seen.pk, number=number, revision=seen.revision), entry)

    # An older round changed: every later row's running totals move.
    step(lambda: edited(4, won(1, 9, 12, 3)))
    # A round deleted: the later rounds' numbers move up.
    step(lambda: game.delete_round(game.rounds.get(number=6)))
    # A name changed (the dealer's, the head's), a player leaving, one joining, one back.
    step(lambda: game.rename_player(1, "Bob"))
    # Two players swap names: the same names, now at other seats.
    step(lambda: game.rename_players({0: "Bob", 1: "Ana"}))
    step(lambda: game.leave(2))
    step(lambda: game.record_round(won(0, 6, None, 2)))
    step(lambda: game.join("Eva"))
    step(lambda: game.record_round(won(1, 3, None, 8, 4)))
    step(lambda: game.come_back(2))
    step(lambda: game.record_round(won(3, 3, 4, 11, 2)))
    # The game played to its end.
    while Game.objects.get(pk=game.pk).status != "finished":
        step(lambda: game.record_round(won(0, 60, 70, 80, 90)))
    assert len(steps) > 20


def test_a_process_keeps_the_latest_boards_worked_out_and_no_more():
    made: list[str] = []

    def making(key: str):
        def make() -> tuple:
            made.append(key)
            return (key,)

        return make

    boards = Kept(2)
    for key in ["a", "b", "a", "c", "a", "b"]:
        assert boards.get(key, making(key)) == (key,)
    # "a" and "b" kept, then "c" pushes out the first kept ("a"), and "a" back pushes out "b".
    assert made == ["a", "b", "c", "a", "b"]
    nothing = Kept(0)
    assert [nothing.get("a", making("a")) for _ in range(2)] == [("a",), ("a",)]
    assert made[-2:] == ["a", "a"]


def test_the_fresh_form_of_every_table_of_an_evening_is_kept_with_the_round_rows(db):
    """A fresh round form is kept among the round rows (CACHES["rows"]), room enough for each
    of 2,000 tables' eight shown rows, its form and its two share panels (the players' page's
    and the watch-only page's), not in the default cache of 300 fragments: at 2,000 tables
    that one turns over within seconds, and every save's answer drew its form's rows again
    (bench/RESULTS.md, "2,000 tables")."""
    rows, default = caches["rows"], caches["default"]
    rows.clear()
    default.clear()
    client = Client()
    for players in (["Ana", "Boris"], ["Cyril", "Dana", "Eva"]):
        game = Game.start(players)
        assert client.get(url("game", game.edit_token)).status_code == 200

    def forms(cache) -> list[str]:
        return [key for key in cache._cache if ".round_form_fresh." in key]

    assert len(forms(rows)) == 2
    assert forms(default) == []
    assert settings.CACHES["rows"]["OPTIONS"]["MAX_ENTRIES"] >= 2_000 * (8 + 1 + 2)
