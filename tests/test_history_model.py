"""One model of a change (Game's methods): random sequences of saves, edits, corrections,
deletes, undos (the phone's own and another phone's), restores from the history (with and
without the confirmation an extra round needs), "go back to the version before" and renames,
made by three phones, against a reference model of the history they intend.

After every step the game's rounds are the reference's, in order, each with the identity it
should have (an edit keeps a round's identity; a restore brings back a new one); a change
the reference refuses is refused with the same reason, and changes nothing; no round ever
appears twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from scoring import rules
from scoring.models import Game, GameEvent, Round
from scoring.rules import Hand, RoundEntry, RulesError

pytestmark = pytest.mark.django_db

PHONES = ["phone-of-ana", "phone-of-boris", "phone-of-cyril"]
PLAYERS = 3
ADDS = (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED)
EDITS = (GameEvent.Kind.EDITED, GameEvent.Kind.CORRECTED)


@st.composite
def entries(draw) -> RoundEntry:
    """A round with one winner and small typed values (a game by these rules never ends: its
    target is 10,000, so that every step can still change the rounds)."""
    winner = draw(st.integers(0, PLAYERS - 1))
    hands = tuple(
        Hand()
        if seat == winner
        else Hand(value=draw(st.integers(2, 40)), opened=draw(st.booleans()))
        for seat in range(PLAYERS)
    )
    return RoundEntry(hands=hands, winner=winner)


@dataclass
class Change:
    """One change as the reference keeps it."""

    kind: str
    phone: str
    number: int | None = None
    ident: int | None = None  # the round it is about (reference identity)
    before: RoundEntry | None = None
    event: int = 0  # the real GameEvent's id, to name it to the game
    undone: bool = False
    restored: bool = False


@dataclass
class Reference:
    """The intended history: the rounds in order (identity, entry), and every change."""

    rounds: list[tuple[int, RoundEntry]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    next_ident: int = 0

    def new_ident(self) -> int:
        self.next_ident += 1
        return self.next_ident

    def position(self, ident: int) -> int | None:
        return next((i for i, (other, _) in enumerate(self.rounds) if other == ident), None)

    def later_round_change(self, change: Change) -> Change | None:
        later = self.changes[self.changes.index(change) + 1 :]
        return next((c for c in reversed(later) if c.kind != GameEvent.Kind.RENAMED), None)


class GameHistory(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.game = Game.start(["Ana", "Boris", "Cyril"], house_rules=rules.Rules(target=10_000))
        self.reference = Reference()
        self.real_ids: dict[int, int] = {}  # reference identity -> Round id
        self.renames = 0

    # Helpers

    def attempt(self, expected: str | None, change) -> object:
        """Make `change` on the game; it must be refused with `expected` (a RulesError code),
        or succeed when that is None. A refused change changes nothing."""
        version = Game.objects.get(pk=self.game.pk).version
        try:
            result = change()
        except RulesError as error:
            assert error.code == expected, (error.code, expected)
            assert Game.objects.get(pk=self.game.pk).version == version
            return None
        assert expected is None, f"expected {expected}, but the change was made"
        return result

    def log(self, change: Change) -> Change:
        change.event = self.game.events.order_by("-pk").values_list("pk", flat=True).first()
        self.reference.changes.append(change)
        return change

    def seen(self, index: int) -> Round:
        """The round at `index` as a phone shows it now."""
        ident, _ = self.reference.rounds[index]
        round_ = Round.objects.get(pk=self.real_ids[ident])
        return Round(pk=round_.pk, number=round_.number, revision=round_.revision)

    def pick(self, kinds, index: int) -> Change | None:
        found = [change for change in self.reference.changes if change.kind in kinds]
        return found[index % len(found)] if found else None

    # Rules: the changes a phone can make

    @rule(phone=st.sampled_from(PHONES), entry=entries())
    def save(self, phone, entry):
        round_ = self.attempt(None, lambda: self.game.record_round(entry, phone=phone))
        ident = self.reference.new_ident()
        self.real_ids[ident] = round_.pk
        self.reference.rounds.append((ident, entry))
        self.log(Change(GameEvent.Kind.ADDED, phone, len(self.reference.rounds), ident))

    @rule(
        phone=st.sampled_from(PHONES),
        index=st.integers(0, 50),
        entry=entries(),
        kind=st.sampled_from(EDITS),
    )
    def edit(self, phone, index, entry, kind):
        if not self.reference.rounds:
            return
        index %= len(self.reference.rounds)
        seen = self.seen(index)
        self.attempt(None, lambda: self.game.edit_round(seen, entry, phone, kind))
        ident, before = self.reference.rounds[index]
        self.reference.rounds[index] = (ident, entry)
        self.log(Change(kind, phone, index + 1, ident, before))

    @rule(phone=st.sampled_from(PHONES), index=st.integers(0, 50))
    def delete(self, phone, index):
        if not self.reference.rounds:
            return
        index %= len(self.reference.rounds)
        seen = self.seen(index)
        self.attempt(None, lambda: self.game.delete_round(seen, phone))
        ident, before = self.reference.rounds.pop(index)
        self.log(Change(GameEvent.Kind.DELETED, phone, index + 1, ident, before))

    @rule(phone=st.sampled_from(PHONES), index=st.integers(0, 50), confirmed=st.booleans())
    def restore_from_the_history(self, phone, index, confirmed):
        deletion = self.pick([GameEvent.Kind.DELETED], index)
        if deletion is None:
            return
        reference = self.reference
        count = len(reference.rounds)
        later = reference.changes[reference.changes.index(deletion) + 1 :]
        filled = any(change.kind in ADDS for change in later)
        as_round = count + 1 if confirmed else None
        expected = None
        if deletion.restored:
            expected = "already_restored"
        elif filled and not confirmed:
            expected = "restore_as_extra"
        event = GameEvent(pk=deletion.event)
        round_ = self.attempt(
            expected, lambda: self.game.restore_round(event, phone, as_round=as_round)
        )
        if expected:
            return
        position = count if filled else min(deletion.number, count + 1) - 1
        ident = self._bring_back(deletion, position)
        self.real_ids[ident] = round_.pk
        self.log(Change(GameEvent.Kind.RESTORED, phone, position + 1, ident))

    def _bring_back(self, deletion: Change, position: int) -> int:
        """The deleted round back at `position`, as a new round (its identity)."""
        ident = self.reference.new_ident()
        self.reference.rounds.insert(position, (ident, deletion.before))
        deletion.restored = True
        return ident

    @rule(phone=st.sampled_from(PHONES), index=st.integers(0, 50))
    def go_back(self, phone, index):
        change = self.pick(EDITS, index)
        if change is None:
            return
        position = self.reference.position(change.ident)
        expected = "round_gone" if position is None else None
        revision = 0
        if position is not None:
            revision = self.seen(position).revision
        event = GameEvent(pk=change.event)
        self.attempt(expected, lambda: self.game.go_back(event, revision, phone))
        if expected:
            return
        now = self.reference.rounds[position][1]
        self.reference.rounds[position] = (change.ident, change.before)
        self.log(Change(GameEvent.Kind.EDITED, phone, position + 1, change.ident, now))

    @rule(phone=st.sampled_from(PHONES), index=st.integers(0, 50))
    def undo(self, phone, index):
        """The Undo of a change, tapped on its own phone or on another one."""
        change = self.pick(GameEvent.ROUND_CHANGES, index)
        if change is None:
            return
        reference = self.reference
        later = reference.later_round_change(change)
        expected = None
        if change.phone != phone:
            expected = "undo_not_yours"
        elif change.undone:
            expected = "undo_done"
        elif later is not None:
            expected = "undo_overtaken"
        event = GameEvent(pk=change.event)
        undone = self.attempt(expected, lambda: self.game.undo(event, phone))
        if expected:
            return
        assert undone.undoes_id == change.event
        change.undone = True
        if change.kind in ADDS:
            position = reference.position(change.ident)
            _, before = reference.rounds.pop(position)
            self.log(Change(GameEvent.Kind.DELETED, phone, position + 1, change.ident, before))
        elif change.kind == GameEvent.Kind.DELETED:
            position = min(change.number, len(reference.rounds) + 1) - 1
            ident = self._bring_back(change, position)
            self.real_ids[ident] = undone.round_id
            self.log(Change(GameEvent.Kind.RESTORED, phone, position + 1, ident))
        else:
            position = reference.position(change.ident)
            now = reference.rounds[position][1]
            reference.rounds[position] = (change.ident, change.before)
            self.log(Change(GameEvent.Kind.EDITED, phone, position + 1, change.ident, now))

    @rule(phone=st.sampled_from(PHONES), seat=st.integers(0, PLAYERS - 1))
    def rename(self, phone, seat):
        self.renames += 1
        name = f"Player {self.renames}"
        self.attempt(None, lambda: self.game.rename_players({seat: name}, phone=phone))
        self.log(Change(GameEvent.Kind.RENAMED, phone))

    # What must hold after every step

    @invariant()
    def the_rounds_are_the_references(self):
        rounds = list(Round.objects.filter(game=self.game).with_hands())
        assert [round_.number for round_ in rounds] == list(range(1, len(rounds) + 1))
        assert [round_.pk for round_ in rounds] == [
            self.real_ids[ident] for ident, _ in self.reference.rounds
        ]
        assert [round_.entry(PLAYERS) for round_ in rounds] == [
            entry for _, entry in self.reference.rounds
        ]
        # The totals follow the rounds.
        points = [round_.entry(PLAYERS).points(self.game.target) for round_ in rounds]
        assert self.game.totals() == [sum(round_[seat] for round_ in points) for seat in range(3)]


def test_random_changes_from_three_phones_follow_the_intended_history():
    run_state_machine_as_test(
        GameHistory,
        settings=settings(
            max_examples=40,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
