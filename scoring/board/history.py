"""A game's history for its page: every change, newest first, with the round as it was.

Each GameEvent keeps the round in the rami-game/1 shape before and after the change. This module
reads those documents back through the exchange parser and lets the rules engine give their
points, so that the page shows exactly what was recorded. Template: scoring/history.html.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from scoring import rules
from scoring.models import Game, GameEvent
from scoring.models.rounds import from_history


@dataclass(frozen=True)
class HandAsItWas:
    """One player's part of a round in the history."""

    name: str
    hand: rules.Hand
    points: int | None
    went_out: bool  # the player went out (a blocked round has nobody who did)
    lowest: bool = False  # held the lowest hand of a blocked round, and so scored 0

    @property
    def cards(self) -> tuple[str, ...]:
        return self.hand.cards

    @property
    def value(self) -> int | None:
        return self.hand.value

    @property
    def opened(self) -> bool:
        return self.hand.opened


@dataclass(frozen=True)
class RoundAsItWas:
    """A round as one change found it or left it."""

    kind: str  # "normal", "hand_rummy" or "blocked", as on the round table
    winners: list[str]  # who scored 0: who went out; in a blocked round, the lowest hands
    hands: list[HandAsItWas]


@dataclass(frozen=True)
class Rename:
    """A player's name before and after a rename."""

    before: str
    after: str


@dataclass(frozen=True)
class SeatingAsItWas:
    """Who dealt first from a round on, and the order the deal went round, by name."""

    dealer: str
    order: list[str]


@dataclass(frozen=True)
class Seated:
    """A change to the seats and the dealer (Game.change_seating), from round `number` on."""

    number: int
    before: SeatingAsItWas
    after: SeatingAsItWas


def seating_as_it_was(
    document: dict, names: list[str], left: frozenset[int] = frozenset()
) -> SeatingAsItWas:
    """A seating as the history shows it, by name; a seat no longer there (a player whose
    join was undone) and the players who had left by then (`left`: the deal passed over them)
    left out."""
    order = [names[seat] for seat in document["order"] if seat < len(names) and seat not in left]
    dealer = document["dealer"]
    return SeatingAsItWas(dealer=names[dealer] if dealer < len(names) else "", order=order)


@dataclass(frozen=True)
class Change:
    event: GameEvent
    before: RoundAsItWas | None
    after: RoundAsItWas | None
    rename: Rename | None = None
    seated: Seated | None = None
    # A deleted round not back yet whose place has been filled since: the number it would
    # become, one round more after the others (Game.restore_round asks to confirm it).
    extra: int | None = None
    # An edit whose round is still there: the revision it has now, for "go back to this
    # version" (Game.go_back).
    revision: int | None = None
    # A player who left or joined: their name, the total a joiner started with, and the round
    # the history names (the last one played by a player who left, the first one played by a
    # player who joins or plays again).
    player: str = ""
    start: int | None = None
    number: int | None = None

    @property
    def player_change(self) -> bool:
        """A player who left, joined, played again, or whose join was taken back."""
        return self.event.kind in GameEvent.PLAYER_CHANGES

    @property
    def restorable(self) -> bool:
        """A deleted round that has not been brought back yet."""
        return self.event.kind == GameEvent.Kind.DELETED and not self.event.restored


def round_as_it_was(
    document: dict | None,
    names: list[str],
    number: int,
    target: int,
    house_rules: rules.Rules,
) -> RoundAsItWas | None:
    if document is None:
        return None
    try:
        entry, _dealer = from_history(document, names)
        points = entry.points(target, house_rules)
    except (AttributeError, LookupError, TypeError, ValueError):
        # Not expected (every document was written by the app), but the history must still
        # show: without the points, nothing more is known.
        return None
    winners = entry.winners(house_rules)
    return RoundAsItWas(
        kind=entry.kind,
        winners=[names[seat] for seat in winners],
        hands=[
            HandAsItWas(
                name=name,
                hand=hand,
                points=point,
                went_out=seat == entry.winner,
                lowest=entry.blocked and seat in winners,
            )
            for seat, (name, hand, point) in enumerate(zip(names, entry.hands, points, strict=True))
            if hand is not None
        ],
    )


def changes(game: Game) -> list[Change]:
    """Every change to `game`, newest first. A change's rounds (and seats) name the players as
    they were called at the time: going back from today's names, each rename passed is undone
    before the older changes are read (Game.names_when does the same for one change)."""
    names = game.names
    target = game.target
    found = []
    rounds = dict(game.rounds.values_list("pk", "revision"))
    # Going back in time: whether a round has been added or brought back after each change,
    # and the seats of the players who had left (a leave read back is a player playing).
    filled = False
    left = {player.seat for player in game.seated_players if player.left}
    events = list(game.events.order_by("-created_at", "-pk"))
    # A join places its player in the deal with a change of seats logged just after it: told
    # with the join, not as a change of seats of its own.
    joins_seating = {
        older.pk: event
        for event, older in pairwise(events)
        if event.kind == GameEvent.Kind.SEATED
        and older.kind == GameEvent.Kind.JOINED
        and older.undoes_id is None
        and older.number == event.number
    }
    placed = {event.pk for event in joins_seating.values()}
    for event in events:
        if event.pk in placed:
            continue
        if event.kind == GameEvent.Kind.RENAMED:
            found.append(
                Change(event, None, None, Rename(event.before["name"], event.after["name"]))
            )
            if event.before["seat"] < len(names):  # not a player whose join was undone
                names[event.before["seat"]] = event.before["name"]
            continue
        if event.kind in GameEvent.PLAYER_CHANGES:
            seat = event.after["seat"]
            name = event.after.get("name") or (names[seat] if seat < len(names) else "")
            if not name and event.undoes_id is not None:  # a join taken back, logged nameless
                name = event.undoes.after.get("name", "")
            back = event.kind == GameEvent.Kind.JOINED and event.undoes_id is not None
            # One who left and came back (Game.come_back), and the Undo of that.
            returned = event.after.get("back", False)
            # A leave's round is the last its player played; playing again is from the next.
            number = event.number + 1 if back else event.number
            seated = None
            if (placing := joins_seating.get(event.pk)) is not None:
                gone = frozenset(left)
                seated = Seated(
                    placing.number,
                    seating_as_it_was(placing.before, names, gone),
                    seating_as_it_was(placing.after, names, gone),
                )
            found.append(
                Change(
                    event,
                    None,
                    None,
                    seated=seated,
                    player=name,
                    start=event.after.get("start"),
                    number=number,
                )
            )
            if event.kind == GameEvent.Kind.LEFT and (event.undoes_id is None or returned):
                left.discard(seat)  # before the leave (or its coming back undone), they played
            elif back or returned:
                left.add(seat)  # before the Undo of the leave, or coming back, they had left
            elif event.kind == GameEvent.Kind.JOINED:
                names = names[:seat]  # before the join, the seat was not there
            continue
        if event.kind == GameEvent.Kind.SEATED:
            # Not a round: nothing to restore or go back to (its players named as then).
            gone = frozenset(left)
            seated = Seated(
                event.number,
                seating_as_it_was(event.before, names, gone),
                seating_as_it_was(event.after, names, gone),
            )
            found.append(Change(event, None, None, seated=seated))
            continue
        found.append(
            Change(
                event=event,
                before=round_as_it_was(event.before, names, event.number, target, game.rules),
                after=round_as_it_was(event.after, names, event.number, target, game.rules),
                extra=len(rounds) + 1 if filled else None,
                revision=rounds.get(event.round_id) if event.kind in GameEvent.EDITS else None,
            )
        )
        filled = filled or event.kind in (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED)
    return found
