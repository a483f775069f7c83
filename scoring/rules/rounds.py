"""A round's points: who won it, what each hand left costs, a hand rummy, a blocked round
(score_round), and a round as it is typed and stored (RoundEntry), checked whole before it is
scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scoring.rules.deck import check_deck, deck_errors
from scoring.rules.refusals import Code, RulesError
from scoring.rules.rulebook import MAX_PLAYERS, MIN_PLAYERS, SEEDS, Hand, NotOpenedSum, Rules

# Not a rule of the game but of the app, so that every game fits in a file that imports again:
# no real table plays that long.
MAX_ROUNDS = 500


def round_winners(hands: Sequence[Hand], winner: int | None, rules: Rules = SEEDS) -> list[int]:
    """The players who score 0: the one who went out, or in a blocked round (winner None)
    every player sharing the lowest hand value."""
    if winner is not None:
        return [winner]
    worth = [hand.worth(rules) for hand in hands]
    lowest = min(worth)
    return [index for index, value in enumerate(worth) if value == lowest]


def hand_errors(
    hands: Sequence[Hand | None], winner: int | None, hand_rummy: bool, rules: Rules = SEEDS
) -> list[RulesError]:
    """The first error of each player's own hand in a round, in seat order. That is a hand missing,
    or a value that no cards make: more than the deck is worth, or less than the cheapest card (a
    player who did not go out holds at least one card). The round form shows them all at once;
    score_round refuses the round on the first. The cheapest card is asked of what is typed at the
    table only: score_round scores such a value, so that a game file or a backup written before this
    check still imports. A None hand (already refused) is left out."""
    doubled = hand_rummy and rules.hand_rummy == Rules.DOUBLE
    errors = []
    for index, hand in enumerate(hands):
        if hand is None or index == winner:
            continue
        if hand.value is not None and hand.value < rules.cheapest_card:
            limit = rules.cheapest_card
            errors.append(RulesError(Code.VALUE_TOO_SMALL, index, value=hand.value, limit=limit))
        elif not hand.given and (not hand_rummy or doubled):
            code = Code.MISSING_HAND if winner is not None else Code.MISSING_BLOCKED_HAND
            errors.append(RulesError(code, index))
        elif hand.value is not None and hand.value > rules.max_hand_value:
            limit = rules.max_hand_value
            errors.append(RulesError(Code.VALUE_TOO_LARGE, index, value=hand.value, limit=limit))
    return errors


def score_round(
    hands: Sequence[Hand],
    winner: int | None,
    target: int,
    hand_rummy: bool = False,
    *,
    rules: Rules = SEEDS,
) -> list[int]:
    """The points each player scores in a round, in the order of `hands`, under `rules`.

    `winner` is the index of the player who went out, or None for a blocked round (the draw
    pile ran out). `hand_rummy` marks a winner who opened and went out in one turn while no
    opponent had opened: every opponent then scores 200 whatever is in the hand (or what the
    rules say: a fixed score, or twice the hand's value).
    """
    hands = list(hands)
    if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
        raise RulesError(Code.PLAYER_COUNT, count=len(hands))
    if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
        raise RulesError(Code.BAD_TARGET, target=target)
    if winner is not None and (
        isinstance(winner, bool) or not isinstance(winner, int) or not 0 <= winner < len(hands)
    ):
        raise RulesError(Code.WINNER_OUT_OF_RANGE, count=len(hands))

    if winner is None:
        if hand_rummy:
            raise RulesError(Code.HAND_RUMMY_BLOCKED)
    elif hands[winner].cards or hands[winner].value:
        raise RulesError(Code.WINNER_HAS_CARDS, winner)

    doubled = hand_rummy and rules.hand_rummy == Rules.DOUBLE
    if hand_rummy:
        for index, hand in enumerate(hands):
            if index != winner and hand.opened:
                raise RulesError(Code.HAND_RUMMY_OPENED, index)
    if not hand_rummy or doubled:
        for index, hand in enumerate(hands):
            if index != winner and not hand.given:
                code = Code.MISSING_HAND if winner is not None else Code.MISSING_BLOCKED_HAND
                raise RulesError(code, index)
    for index, hand in enumerate(hands):
        if index != winner and hand.value is not None and hand.value > rules.max_hand_value:
            raise RulesError(
                Code.VALUE_TOO_LARGE, index, value=hand.value, limit=rules.max_hand_value
            )
    check_deck(hands, rules)

    if hand_rummy:
        return [
            0 if index == winner else 2 * hand.worth(rules) if doubled else rules.hand_rummy
            for index, hand in enumerate(hands)
        ]
    winners = round_winners(hands, winner, rules)
    points = []
    for index, hand in enumerate(hands):
        if index in winners:
            points.append(0)
        elif not hand.opened:
            points.append(rules.not_opened_points(hand.worth(rules), target))
        else:
            points.append(hand.worth(rules))
    return points


@dataclass(frozen=True)
class RoundEntry:
    """One round as the players entered it: a hand per seat (None for a player not playing
    it, 1.5), who went out (a seat; None for a blocked round) and whether it was a hand
    rummy. The one value of a round that the form, the importer, the models and the history
    share. It is scored by `points`, over the players who played it only: "every opponent" of a
    hand rummy and the lowest hand of a blocked round are theirs."""

    hands: tuple[Hand | None, ...]
    winner: int | None
    hand_rummy: bool = False

    @property
    def blocked(self) -> bool:
        return self.winner is None

    @property
    def kind(self) -> str:
        """ "hand_rummy", "blocked" or "normal", as the round table and the history tag it."""
        if self.hand_rummy:
            return "hand_rummy"
        return "blocked" if self.blocked else "normal"

    @property
    def playing(self) -> tuple[int, ...]:
        """The seats of the players who played the round."""
        return tuple(seat for seat, hand in enumerate(self.hands) if hand is not None)

    def _played(self) -> tuple[list[Hand], int | None]:
        """The hands of the players who played, and the winner's place among them."""
        seats = self.playing
        if self.winner is not None and self.winner not in seats:
            raise RulesError(Code.NOT_PLAYING, self.winner)
        winner = None if self.winner is None else seats.index(self.winner)
        return [self.hands[seat] for seat in seats], winner

    def points(self, target: int, rules: Rules = SEEDS) -> list[int | None]:
        """Each player's points (score_round over those who played; None for the others),
        worked out once for a target and rules: the form that checks a round and the model
        that stores it share the answer."""
        scored = self.__dict__.get("_scored")
        if scored is None or scored[0] != (target, rules):
            hands, winner = self._played()
            played = iter(score_round(hands, winner, target, self.hand_rummy, rules=rules))
            points = [None if hand is None else next(played) for hand in self.hands]
            scored = ((target, rules), points)
            object.__setattr__(self, "_scored", scored)
        return list(scored[1])

    def same_round(self, other: RoundEntry) -> bool:
        """Whether `other` is this round entered again (on another phone, say): the same
        winner, kind and hands, whatever order the cards were tapped in."""

        def shape(entry: RoundEntry) -> tuple:
            hands = tuple(
                None if hand is None else (tuple(sorted(hand.cards)), hand.value, hand.opened)
                for hand in entry.hands
            )
            return entry.winner, entry.hand_rummy, hands

        return shape(self) == shape(other)

    def winners(self, rules: Rules = SEEDS) -> list[int]:
        """Who scores 0 (seats): the one who went out, or everyone with the lowest hand of a
        blocked round among those who played."""
        hands, winner = self._played()
        seats = self.playing
        return [seats[index] for index in round_winners(hands, winner, rules)]

    def document(self, names: Sequence[str]) -> dict:
        """The round as rami-game/1 writes it (docs/formats.md, without the computed fields),
        and as the history keeps it: the hands of those who played it only."""
        document: dict = {}
        if self.blocked:
            document["blocked"] = True
        else:
            document["winner"] = names[self.winner]
        if self.hand_rummy:
            document["hand_rummy"] = True
        hands = {}
        for seat, hand in enumerate(self.hands):
            if seat == self.winner or hand is None:
                continue
            written: dict = {}
            if hand.cards:
                written["cards"] = list(hand.cards)
            elif hand.value is not None:
                written["value"] = hand.value
            if not hand.opened:
                written["opened"] = False
            # A hand rummy opponent with nothing but "not opened" says nothing worth keeping.
            if self.hand_rummy and written == {"opened": False}:
                continue
            hands[names[seat]] = written
        if hands:
            document["hands"] = hands
        return document

    @classmethod
    def from_document(
        cls, document: Mapping, names: Sequence[str], playing: Iterable[int] | None = None
    ) -> RoundEntry:
        """The round that `document` (written by `document`, or checked by the importer)
        holds, played by the seats `playing` (None: every player). A hand left out is the
        winner's, or a hand rummy opponent's who had not opened."""
        playing = set(range(len(names)) if playing is None else playing)
        winner = None if document.get("blocked") else list(names).index(document["winner"])
        hand_rummy = bool(document.get("hand_rummy", False))
        written = document.get("hands", {})
        hands: list[Hand | None] = []
        for seat, name in enumerate(names):
            if seat not in playing:
                hands.append(None)
                continue
            hand = written.get(name)
            # In a hand rummy every opponent had, by definition, never opened (docs/formats.md).
            opened_unless_said = seat == winner or not hand_rummy
            if hand is None:
                hands.append(Hand(opened=opened_unless_said))
                continue
            try:
                hands.append(
                    Hand(
                        cards=tuple(hand.get("cards", ())),
                        value=hand.get("value"),
                        opened=hand.get("opened", opened_unless_said),
                    )
                )
            except RulesError as error:
                raise error.for_player(seat) from None
        return cls(hands=tuple(hands), winner=winner, hand_rummy=hand_rummy)


def round_errors(
    hands: Sequence[Hand | None], winner: int | None, hand_rummy: bool, rules: Rules = SEEDS
) -> list[RulesError]:
    """Every error of a round as typed, at once: a blocked round called a hand rummy, then
    each player's own hand (hand_errors) and the deck's (deck_errors), in seat order. The
    round form shows them all, each next to its player; score_round refuses on the first."""
    kind = [RulesError(Code.HAND_RUMMY_BLOCKED)] if winner is None and hand_rummy else []
    return [
        *kind,
        *hand_errors(hands, winner, hand_rummy, rules),
        *deck_errors(hands, rules),
    ]


def points_so_far(
    hands: Sequence[Hand | None],
    winner: int | None,
    hand_rummy: bool,
    target: int,
    rules: Rules = SEEDS,
) -> list[tuple[int | None, NotOpenedSum | None]]:
    """Each player's points in a round still being typed, and how a never-opened loser's came about
    (NotOpenedSum, else None). They are what the round scores once saved (RoundEntry.points), each
    hand not in yet (None: not typed, or typed wrong) standing in as the cheapest a hand can be.
    Those players show no points, nor does anyone in a blocked round until every hand is in, since
    the lowest hand decides it. The round's kind must be right (round_errors)."""
    if winner is None and None in hands:
        return [(None, None)] * len(hands)
    stand_in = Hand(value=rules.cheapest_card, opened=not hand_rummy)
    entry = RoundEntry(
        tuple(stand_in if hand is None else hand for hand in hands), winner, hand_rummy
    )
    points = entry.points(target, rules)
    winners = set(entry.winners(rules))
    shown = []
    for seat, hand in enumerate(hands):
        if hand is None:
            shown.append((None, None))
        elif seat in winners or hand.opened or hand_rummy:
            shown.append((points[seat], None))
        else:
            shown.append((points[seat], rules.not_opened_sum(hand.worth(rules), target)))
    return shown
