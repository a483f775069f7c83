"""The Undo of a change: the phone that made it takes it back while nothing came after it, inside
the game's lock (Game._changing).
"""

from __future__ import annotations

from scoring import rules
from scoring.models.rounds import (
    GameEvent,
    from_history,
)


class Undo:
    """A change taken back, a part of Game."""

    def undo(self, change: GameEvent, phone: str) -> GameEvent:
        """Undo `change`: one more change that does the opposite (a save's round deleted, a
        deleted round back at its place, an edit's round as it was before), never a deletion
        of history. Only the phone that made the change can (RulesError "undo_not_yours"),
        once ("undo_done"), and only while no later change to the rounds depends on it
        ("undo_overtaken", naming the round of the latest); a rename does not count. A
        refused Undo changes nothing. The undo's own event is returned."""
        with self._changing() as game:
            event = game.events.get(pk=change.pk, kind__in=GameEvent.UNDOABLE)
            game.check_undo(event, phone)
            if event.kind in GameEvent.PLAYER_CHANGES and event.undoes_id is not None:
                # The Undo of a leave or a join is not undone in turn: the players page
                # makes the leave (or the join) again.
                raise rules.Conflict(rules.Code.UNDO_DONE, number=event.number)
            if event.kind in (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED):
                round_ = game.rounds.get(pk=event.round_id)
                return game._delete(round_, phone, undoes=event)
            if event.kind == GameEvent.Kind.DELETED:
                return game._restore(event, None, phone, undoes=event)
            if event.kind == GameEvent.Kind.LEFT:
                return game._come_back(event, phone)
            if event.kind == GameEvent.Kind.JOINED:
                return game._unjoin(event, phone)
            round_ = game.rounds.get(pk=event.round_id)
            entry, _dealer = from_history(event.before, game.names_when(event))
            return game._store_again(round_, entry, GameEvent.Kind.EDITED, phone, undoes=event)

    def check_undo(self, event: GameEvent, phone: str) -> None:
        """Whether `phone` may undo `event` now (see undo): a RulesError saying why not."""
        if not phone or event.phone != phone:
            raise rules.Conflict(rules.Code.UNDO_NOT_YOURS, number=event.number)
        if GameEvent.objects.filter(undoes=event).exists():
            raise rules.Conflict(rules.Code.UNDO_DONE, number=event.number)
        # A player's leave or join holds until the next round is saved, and a join
        # until the next one (the seats are taken in turn); a change to the rounds, until any
        # later one.
        depends: tuple[str, ...] = GameEvent.ROUND_CHANGES
        if event.kind == GameEvent.Kind.LEFT:
            depends = (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED)
        elif event.kind == GameEvent.Kind.JOINED:
            depends = (GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED, GameEvent.Kind.JOINED)
        later = (
            self.events.filter(pk__gt=event.pk, kind__in=depends)
            .order_by("-pk")
            .values_list("number", flat=True)
            .first()
        )
        if later is not None and event.kind in GameEvent.PLAYER_CHANGES:
            raise rules.Conflict(rules.Code.PLAYER_OVERTAKEN)
        if later is not None:
            raise rules.Conflict(rules.Code.UNDO_OVERTAKEN, number=event.number, later=later)
