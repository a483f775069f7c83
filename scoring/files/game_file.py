"""A whole game as one file, rami-game/1 (docs/formats.md): parse_game turns a document into names
and rules.RoundEntry values without touching the database, or raises ExchangeError saying what
is wrong and where; import_game makes the game through the same methods as the web's forms;
export_game writes it back with the computed fields.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from django.db import connection, transaction

from scoring import rules
from scoring.files.documents import ExchangeError, _fail
from scoring.models import Game, Round
from scoring.rules import MAX_ROUNDS, RoundEntry
from scoring.rules.messages import english

FORMAT = "rami-game/1"


PLAYER_FIELDS = {"name", "joins", "start", "leaves", "back"}
STAY_FIELDS = {"joins", "start", "leaves"}


def parse_names(players: object) -> list[str]:
    """The player names of a document, checked as the start form checks them (a player may be
    an object: parse_players)."""
    return parse_players(players)[0]


def parse_players(players: object) -> tuple[list[str], list[rules.Span]]:
    """The players of a document, and when each played (rules.Span; `start` None for a
    joiner's default, the highest total then). Each is a name, or an object for one who joined
    or left during the game (docs/formats.md: {"name", "joins", "start", "leaves"}). Names checked
    as the start form checks them, at most six playing any one round (the rounds say)."""
    if not isinstance(players, list) or len(players) > rules.MAX_SEATS:
        raise ExchangeError('"players" must be a list of 2 to 6 names')
    names, spans = [], []
    for player in players:
        if isinstance(player, str):
            names.append(player)
            spans.append(rules.Span())
            continue
        if not isinstance(player, Mapping) or not isinstance(player.get("name"), str):
            raise ExchangeError(f'"players": {json.dumps(player)} is not a name')
        name = player["name"]
        unknown = set(player) - PLAYER_FIELDS
        if unknown:
            raise _fail(None, f"unknown field {json.dumps(sorted(unknown)[0])}", name)
        first = _stay(player, name, after=None)
        back = player.get("back", [])
        if not isinstance(back, list) or len(back) > MAX_ROUNDS:
            raise _fail(None, '"back" must be a list of the times they came back', name)
        stays = [first]
        for stay in back:
            if not isinstance(stay, Mapping) or set(stay) - STAY_FIELDS:
                raise _fail(None, '"back" holds objects of "joins", "start" and "leaves"', name)
            stays.append(_stay(stay, name, after=stays[-1]))
        names.append(name)
        spans.append(replace(first, back=tuple(stays[1:])))
    try:
        names = rules.check_names(names, players_at_most=rules.MAX_SEATS)
    except rules.RulesError as error:
        if error.player is None:
            raise ExchangeError(english(error)) from None
        raise _fail(None, english(error), names[error.player]) from None
    first = len(rules.playing_in(1, spans))
    if not rules.MIN_PLAYERS <= first <= rules.MAX_PLAYERS:
        raise ExchangeError(english(rules.RulesError(rules.Code.PLAYER_COUNT, count=first)))
    return names, spans


def _stay(stay: Mapping, name: str, after: rules.Span | None) -> rules.Span:
    """One stretch of rounds a player of a document plays (rules.Span, without `back`): the
    first from its player's object, a later one from its "back" list, which starts after
    the stay before it ended (`after`)."""
    joins, leaves, start = stay.get("joins", 1), stay.get("leaves"), stay.get("start")
    if type(joins) is not int or not 1 <= joins <= MAX_ROUNDS + 1:
        raise _fail(None, '"joins" must be the number of the first round played', name)
    if after is not None and (after.leaves is None or joins <= after.leaves):
        raise _fail(None, 'a player comes back after the round they left "leaves"', name)
    # A player who left without a round left (their rounds deleted since): joins - 1.
    if leaves is not None and (type(leaves) is not int or not joins - 1 <= leaves <= MAX_ROUNDS):
        raise _fail(None, '"leaves" must be the number of the last round played, or null', name)
    if start is not None:
        try:
            rules.check_start_total(start)
        except rules.RulesError as error:
            raise _fail(None, english(error), name) from None
    return rules.Span(joins, leaves, start)


def _checked_hand(document: object, round_number: int, name: str) -> dict:
    """One hand of a document, its shape checked (the rules check its cards and value when
    the round is read): the same hand, with cards given as one string split into a list."""
    if not isinstance(document, Mapping):
        raise _fail(round_number, 'a hand is {"cards": [...]} or {"value": N}', name)
    unknown = set(document) - {"cards", "value", "opened"}
    if unknown:
        raise _fail(round_number, f"unknown field {json.dumps(sorted(unknown)[0])}", name)
    cards = document.get("cards", [])
    if isinstance(cards, str):
        cards = cards.split()
    if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
        raise _fail(round_number, '"cards" must be a list of card codes such as "AH"', name)
    if len(cards) > rules.DECK_SIZE:
        raise _fail(round_number, f"more than {rules.DECK_SIZE} cards in one hand", name)
    if not isinstance(document.get("opened", True), bool):
        raise _fail(round_number, '"opened" must be true or false', name)
    return {**document, "cards": cards}


ROUND_FIELDS = {"winner", "winners", "blocked", "hand_rummy", "hands", "points", "players"}


def round_players(document: Mapping, names: Sequence[str], round_number: int) -> list[int] | None:
    """The seats a round lists as its players ("players": their names), or None when it lists
    none. Export lists them only for a round whose players are not those the player objects
    give (a round brought back from the history where a later joiner did not play it)."""
    if "players" not in document:
        return None
    listed = document["players"]
    if not isinstance(listed, list) or not all(name in names for name in listed):
        raise _fail(round_number, '"players" must list the names of those who played it')
    return sorted({names.index(name) for name in listed})


def parse_round(
    document: object,
    names: Sequence[str],
    round_number: int,
    target: int,
    house_rules: rules.Rules,
    spans: Sequence[rules.Span] | None = None,
    playing: Sequence[int] | None = None,
) -> RoundEntry:
    """One round of a document, checked by the rules (its points computed once to that end).
    It is played by the players it lists ("players", when the player objects do not give
    them: round_players), else by those whose `spans` hold it, else by the seats
    `playing` (None: everyone)."""
    if not isinstance(document, Mapping):
        raise _fail(round_number, "a round must be an object")
    unknown = set(document) - ROUND_FIELDS
    if unknown:
        raise _fail(round_number, f"unknown field {json.dumps(sorted(unknown)[0])}")
    blocked = document.get("blocked", False)
    hand_rummy = document.get("hand_rummy", False)
    if not isinstance(blocked, bool) or not isinstance(hand_rummy, bool):
        raise _fail(round_number, '"blocked" and "hand_rummy" must be true or false')
    seats = {name: seat for seat, name in enumerate(names)}
    listed = round_players(document, names, round_number)
    if listed is not None:
        playing = listed
    winner_name = document.get("winner")
    # On export a blocked round carries its computed winner(s); import ignores them.
    if blocked:
        pass
    elif winner_name is None:
        raise _fail(round_number, 'a round needs a "winner", or "blocked": true')
    elif not isinstance(winner_name, str):
        raise _fail(round_number, '"winner" must be one player\'s name (a round has one winner)')
    elif winner_name not in seats:
        raise _fail(round_number, f'"winner": unknown player "{winner_name}"')
    if playing is None:
        playing = list(range(len(names)))
        if spans is not None:
            playing = rules.playing_in(round_number, spans)
    if winner_name is not None and not blocked and seats[winner_name] not in playing:
        raise _fail(round_number, "not playing this round", winner_name)

    hands_document = document.get("hands", {})
    if not isinstance(hands_document, Mapping):
        raise _fail(round_number, '"hands" must map player names to hands')
    for name in hands_document:
        if name not in seats:
            raise _fail(round_number, f'"hands": unknown player "{name}"')
        if seats[name] not in playing:
            raise _fail(round_number, "a hand for a player not playing this round", name)
    checked = {
        "blocked": blocked,
        "winner": winner_name,
        "hand_rummy": hand_rummy,
        # In seat order, so that the first mistake said is the first player's.
        "hands": {
            name: _checked_hand(hands_document[name], round_number, name)
            for name in names
            if name in hands_document
        },
    }
    try:
        # Read as the history reads a round (RoundEntry.from_document), then scored once.
        entry = RoundEntry.from_document(checked, names, playing)
        entry.points(target, house_rules)
    except rules.RulesError as error:
        name = names[error.player] if error.player is not None else None
        raise _fail(round_number, english(error.under(house_rules)), name) from None
    return entry


@dataclass(frozen=True)
class GameDocument:
    names: list[str]
    rounds: list[RoundEntry]
    rules: rules.Rules
    # When each player played: everyone throughout, in an older file.
    spans: list[rules.Span] | None = None

    @property
    def come_and_go(self) -> bool:
        return self.spans is not None and any(span != rules.Span() for span in self.spans)


def parse_rules(document: object) -> rules.Rules:
    """The `rules` object of a document (docs/formats.md), absent meaning the seeds' rules; raises
    ExchangeError saying which key is wrong and why."""
    if document is None:
        return rules.SEEDS
    if not isinstance(document, Mapping):
        raise ExchangeError('"rules" must be an object of house rules')
    known = set(rules.SEEDS.document())
    for key in document:
        if key not in known:
            raise ExchangeError(f'"rules": unknown key {json.dumps(key)}')
    try:
        return rules.Rules(**document)
    except rules.RulesError as error:
        raise ExchangeError(f'"rules": "{error.details["rule"]}": {english(error)}') from None


def parse_game(document: object) -> GameDocument:
    """A whole document, every round checked; raises ExchangeError on the first mistake."""
    if not isinstance(document, Mapping):
        raise ExchangeError('the file must hold one JSON object with "format": "rami-game/1"')
    if document.get("format") != FORMAT:
        raise ExchangeError(
            f'"format" must be "{FORMAT}", not {json.dumps(document.get("format"))}'
        )
    names, spans = parse_players(document.get("players"))
    house_rules = parse_rules(document.get("rules"))
    rounds = document.get("rounds", [])
    # The target of the first round's players.
    first = len(rules.playing_in(1, spans))
    if isinstance(rounds, list) and rounds and isinstance(rounds[0], Mapping):
        listed = round_players(rounds[0], names, 1)
        first = len(listed) if listed is not None else first
    try:
        target = house_rules.target_for(first)
    except rules.RulesError as error:
        raise ExchangeError(english(error)) from None
    if not isinstance(rounds, list):
        raise ExchangeError('"rounds" must be a list')
    if len(rounds) > MAX_ROUNDS:
        raise ExchangeError(f"a game has at most {MAX_ROUNDS} rounds")
    entries = [
        parse_round(round_, names, number, target, house_rules, spans)
        for number, round_ in enumerate(rounds, 1)
    ]
    return GameDocument(names=names, rounds=entries, rules=house_rules, spans=spans)


def import_game(document: object, dealers: Sequence[int] | None = None) -> Game:
    """A game from a rami-game/1 document, each round recorded as the web form records it (by
    `dealers`, each round's dealer's seat, when a backup says who dealt); raises ExchangeError
    (nothing created) when the document is not right."""
    parsed = parse_game(document)
    with transaction.atomic():
        return make_game(parsed, dealers=dealers)


def make_game(
    parsed: GameDocument,
    after_each_round: Callable[[Game], None] | None = None,
    dealers: Sequence[int] | None = None,
) -> Game:
    """The game of a checked document, each round recorded as the web form records it, in the
    caller's transaction: `after_each_round(game)` may end it and begin another (a long
    import, import_table)."""
    if not parsed.come_and_go:
        game = Game.start(parsed.names, house_rules=parsed.rules)
        for number, entry in enumerate(parsed.rounds, 1):
            dealer = dealers[number - 1] if dealers else None
            game.record_round(entry, past_the_end=True, dealer=dealer)
            if after_each_round is not None:
                after_each_round(game)
        return game
    return _make_game_of_comings_and_goings(parsed, after_each_round, dealers)


def _make_game_of_comings_and_goings(
    parsed: GameDocument,
    after_each_round: Callable[[Game], None] | None,
    dealers: Sequence[int] | None = None,
) -> Game:
    """A game whose players come and go, made as the web makes it. The first
    round's players start it. Each who joins joins before their first round (Game.join),
    seated after the player listed before them, no later than those listed after. Each who
    leaves leaves after their last (Game.leave). Its rounds are recorded by seat."""
    spans = parsed.spans
    # Each sits where the file lists them: a player joins no later than those listed after.
    joining = [min(span.joins for span in spans[index:]) for index in range(len(spans))]
    first = [index for index, joins in enumerate(joining) if joins <= 1]
    game = Game.start(
        [parsed.names[index] for index in first],
        house_rules=parsed.rules,
        starts=[spans[index].start or 0 for index in first],
    )
    if parsed.rounds:  # the target of the first round's players
        game.target_players = len(parsed.rounds[0].playing)
        Game.objects.filter(pk=game.pk).update(target_players=game.target_players)
    seat_of = {index: seat for seat, index in enumerate(first)}
    for number, entry in enumerate([*parsed.rounds, None], 1):
        for index, span in enumerate(spans):
            if joining[index] == number and index not in seat_of:
                before = [seat_of[i] for i in range(index) if i in seat_of]
                after = before[-1] if before else None
                try:
                    player = game.join(parsed.names[index], after, span.start, past_the_end=True)
                except rules.RulesError as error:
                    raise _fail(number, english(error), parsed.names[index]) from None
                seat_of[index] = player.seat
        # Those who left after the round before leave once the newcomers are seated: the
        # game never has fewer than two players playing on the way. Then those who left
        # earlier come back (a stay of no round leaves again at once).
        for index, span in enumerate(spans):
            for stay in span.stays:
                if stay.leaves == number - 1 and stay.leaves >= stay.joins:
                    try:
                        game.leave(seat_of[index], past_the_end=True)
                    except rules.RulesError as error:
                        raise _fail(number - 1, english(error), parsed.names[index]) from None
        for index, span in enumerate(spans):
            for stay in span.back:
                if stay.joins == number:
                    try:
                        game.come_back(seat_of[index], None, stay.start, past_the_end=True)
                        if stay.leaves is not None and stay.leaves < stay.joins:
                            game.leave(seat_of[index], past_the_end=True)
                    except rules.RulesError as error:
                        raise _fail(number, english(error), parsed.names[index]) from None
        if entry is None:
            break
        hands: list[rules.Hand | None] = [None] * len(game.seated_players)
        for index, seat in seat_of.items():
            hands[seat] = entry.hands[index]
        winner = None if entry.winner is None else seat_of[entry.winner]
        dealer = dealers[number - 1] if dealers else None
        game.record_round(
            RoundEntry(tuple(hands), winner, entry.hand_rummy), past_the_end=True, dealer=dealer
        )
        if after_each_round is not None:
            after_each_round(game)
    for index, span in enumerate(spans):  # who left without a round left
        if span.leaves is not None and span.leaves < span.joins:
            game.leave(seat_of[index], past_the_end=True)
    return game


# A long import or restore works in short transactions: SQLite has one writer at a time, and a
# live server's round saves wait for the lock (20 s, then 503). Between two transactions the
# importer waits this long, so that a writer asleep in SQLite's busy handler (which tries again
# at most every 100 ms) gets its turn before the next transaction takes the lock again.
PAUSE_BETWEEN_TRANSACTIONS = 0.1


def let_others_write() -> None:
    """A pause between two transactions of a long import (on SQLite only: PostgreSQL locks
    rows, and an import's rows are new ones), none inside an outer transaction."""
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        time.sleep(PAUSE_BETWEEN_TRANSACTIONS)


def export_game(game: Game) -> dict:
    """The whole game as rami-game/1, with the computed fields: each round's points, a blocked
    round's winners, the totals, the status. A blocked round's winners are every player with
    its lowest hand, in seat order; its "winner" is that player when there is one alone, else
    null."""
    names = game.names
    target = game.target
    rounds = list(game.rounds.with_hands())
    entries = [round_.entry(len(names)) for round_ in rounds]
    points = [
        [hand.points if hand is not None else None for hand in _hands_by_seat(round_, names)]
        for round_ in rounds
    ]
    starts = [player.start for player in game.seated_players]
    players = _exported_players(game, entries)
    spans = parse_players(players)[1]
    restarts = rules.restarts_of(spans)
    after = rules.standings(points, len(names), target, start=starts, restarts=restarts)
    documents = []
    for entry, scored in zip(entries, points, strict=True):
        document = entry.document(names)
        document["points"] = {
            name: point for name, point in zip(names, scored, strict=True) if point is not None
        }
        if entry.blocked:
            winners = [names[seat] for seat in entry.winners(game.rules)]
            document["winner"] = winners[0] if len(winners) == 1 else None
            document["winners"] = winners
        documents.append(document)
    totals = rules.totals_now(after, starts, restarts)
    standing = rules.standing(totals, target, [player.seat for player in game.playing])
    for number, (entry, document) in enumerate(zip(entries, documents, strict=True), 1):
        if list(entry.playing) != rules.playing_in(number, spans):
            document["players"] = [names[seat] for seat in entry.playing]
    return {
        "format": FORMAT,
        "players": players,
        "rules": game.rules.document(),
        "rounds": documents,
        "target": target,
        "totals": dict(zip(names, standing.totals, strict=True)),
        "status": standing.status,
        "winner": names[standing.winner] if standing.winner is not None else None,
    }


def _hands_by_seat(round_: Round, names: Sequence[str]) -> list:
    hands: list = [None] * len(names)
    for hand in round_.hands_with_players():
        hands[hand.player_seat] = hand
    return hands


def _exported_players(game: Game, entries: Sequence[RoundEntry]) -> list:
    """The players as rami-game/1 writes them (docs/formats.md): a name, or, for exactly the players
    who joined or left, an object. It says the first round they played, the total they
    started with and the last round they played (null: to the end)."""
    players: list = []
    for player in game.seated_players:
        if not (player.joined or player.left):
            players.append(player.name)
            continue
        played = [number for number, entry in enumerate(entries, 1) if player.seat in entry.playing]
        # Each stay ends before the next one begins: one who came back (Player.returns).
        returns = player.returns or []
        froms = [back["from"] for back in returns]
        stays = []
        for begins, ends, start in zip(
            [None, *froms],
            [*froms, None],
            [player.start, *(back["start"] for back in returns)],
            strict=True,
        ):
            rounds = [
                n for n in played if (begins is None or n >= begins) and (ends is None or n < ends)
            ]
            joins = begins if begins is not None else (rounds[0] if rounds else len(entries) + 1)
            leaves = None
            if ends is not None or player.left:  # after the last round of the stay; or none
                leaves = rounds[-1] if rounds else joins - 1
            stays.append({"joins": joins, "start": start, "leaves": leaves})
        players.append({"name": player.name, **stays[0]} | ({"back": stays[1:]} if returns else {}))
    return players
