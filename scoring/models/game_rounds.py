"""A game's changes to its rounds: a round recorded, edited, deleted, restored or taken back to how
it was, each inside the game's lock (Game._changing).
"""

from __future__ import annotations

from dataclasses import replace

from django.db.models import F, OuterRef, Subquery

from scoring import rules
from scoring.models.common import Status
from scoring.models.rounds import (
    GameEvent,
    Player,
    Round,
    from_history,
    history_document,
)
from scoring.rules import RoundEntry


class RoundChanges:
    """The changes to a game's rounds, a part of Game."""

    def record_round(
        self,
        entry: RoundEntry,
        key: str = "",
        past_the_end: bool = False,
        for_round: int | None = None,
        phone: str = "",
        dealer: int | None = None,
    ) -> Round:
        """Add a round after the last one. A repeated `key` (the same form sent twice) returns
        the round it recorded the first time instead of recording it again.

        `for_round` is the number the form was filled in for. When another phone has saved
        that round first, the round is refused ("round_taken") rather than silently added
        after it. A form for a round past the next one was drawn before rounds were deleted (or
        a save undone) on another phone. It still holds the next round that phone saw, and is
        recorded as the next one.

        `phone`: the phone that made the change (phones.of), to whom its Undo belongs.

        A finished game takes no new round, except from a whole game imported (`past_the_end`).
        Its history may hold rounds played before an earlier round was edited so that the game
        ended sooner; a backup must bring those back as they were.
        """
        with self._changing() as game:
            # Read after the lock is held (not as part of the locking query, whose snapshot
            # PostgreSQL takes before it waits): the last round and the key's earlier use.
            rounds = Round.objects.filter(game=OuterRef("pk")).order_by("-number")
            last_round, last_dealer, saved_by_key = (
                type(self)
                .objects.filter(pk=game.pk)
                .values_list(
                    Subquery(rounds.values("number")[:1]),
                    Subquery(rounds.values("dealer")[:1]),
                    Subquery(GameEvent.objects.filter(game=game, key=key).values("pk")[:1]),
                )
                .get()
            )
            if key and saved_by_key is not None:
                earlier = GameEvent.objects.select_related("round").get(pk=saved_by_key)
                if earlier.round is None:
                    raise rules.Conflict(rules.Code.ALREADY_SAVED)
                return earlier.round
            if game.status == Status.FINISHED and not past_the_end:
                raise rules.Conflict(rules.Code.GAME_FINISHED)
            # Round numbers run from 1 without a gap: the last is the count.
            number = (last_round or 0) + 1
            if for_round is not None and 0 < for_round < number:
                raise rules.RoundTaken(rules.Code.ROUND_TAKEN, number=for_round, next=number)
            game._check_room(number)
            if not past_the_end:  # a file's round names its own players (exchange)
                game.check_players(entry)
            if dealer is None:  # a file's round may say who dealt it (a backup's)
                if last_round and last_dealer is None:  # saved by the release before
                    last_dealer, _ = game.last_dealer()
                dealer = game.next_deal(last_dealer, number - 1).dealer
            if game.target_players is None:
                game.target_players = len(entry.playing)
                type(self).objects.filter(pk=game.pk).update(target_players=game.target_players)
            added = game._new_round(
                number, entry, GameEvent.Kind.ADDED, phone, dealer=dealer, key=key
            )
        return added.round

    def check_players(self, entry: RoundEntry) -> None:
        """A form drawn before a player left or joined on another phone is refused, everything
        typed kept, rather than saved without them or with a hand for one who left."""
        if entry.playing != tuple(player.seat for player in self.playing):
            raise rules.Conflict(rules.Code.PLAYERS_CHANGED)

    def _check_room(self, number: int) -> None:
        """A game file's limit, on every way a round comes in: every game exports and imports
        again (no real table plays that long)."""
        if number > rules.MAX_ROUNDS:
            raise rules.Conflict(rules.Code.TOO_MANY_ROUNDS, limit=rules.MAX_ROUNDS)

    def _round_as_seen(self, seen: Round) -> Round:
        """The round a phone's form is about, read again under the lock: the one with the
        identity of `seen`, still at its number and revision. Never another round in its
        place: a round deleted since is "round_gone", one moved by a deletion or an Undo
        elsewhere "round_moved", one edited since "round_changed"."""
        round_ = self.rounds.filter(pk=seen.pk).first()
        if round_ is None:
            raise rules.Conflict(rules.Code.ROUND_GONE, number=seen.number)
        if round_.number != seen.number:
            raise rules.Conflict(rules.Code.ROUND_MOVED, number=seen.number, now=round_.number)
        if round_.revision != seen.revision:
            raise rules.Conflict(rules.Code.ROUND_CHANGED, number=seen.number)
        return round_

    def edit_round(
        self,
        seen: Round,
        entry: RoundEntry,
        phone: str = "",
        kind: str = "edited",
    ) -> Round:
        """Store `entry` in the round `seen` (as a phone saw it: see _round_as_seen): the round
        keeps its number and identity, its revision moves on. `kind`: EDITED from the round's
        page, CORRECTED when a phone took back the round it had just saved to put it right."""
        with self._changing() as game:
            round_ = game._round_as_seen(seen)
            hands = round_.hands.order_by("player__seat")
            played = tuple(hands.values_list("player__seat", flat=True))
            if entry.playing != played:  # no page of ours sends another round's players
                missing = next(iter(set(entry.playing) ^ set(played)), None)
                raise rules.RulesError(rules.Code.NOT_PLAYING, missing)
            game._store_again(round_, entry, kind, phone)
        return round_

    def _seated(self, entry: RoundEntry) -> RoundEntry:
        """`entry` with a hand (or None) for every seat: one typed before a player joined has
        none for them, who did not play it."""
        missing = len(self.seated_players) - len(entry.hands)
        return replace(entry, hands=entry.hands + (None,) * missing) if missing > 0 else entry

    def _store_again(
        self,
        round_: Round,
        entry: RoundEntry,
        kind: str,
        phone: str,
        undoes: GameEvent | None = None,
    ) -> GameEvent:
        entry = self._seated(entry)
        names = self.names
        before = round_.document(names)
        round_.revision += 1
        self._store(round_, entry)
        return self.log(
            kind,
            round_,
            before=before,
            after=history_document(entry, names, round_.dealer),
            phone=phone,
            undoes=undoes,
        )

    def delete_round(self, seen: Round, phone: str = "") -> GameEvent:
        """Delete the round `seen` (as a phone saw it: see _round_as_seen), so that a second
        tap finds it gone rather than deleting the next. The phone that deleted it can undo
        the deletion (undo); the history can bring it back (restore_round)."""
        with self._changing() as game:
            event = game._delete(game._round_as_seen(seen), phone)
        return event

    def _delete(self, round_: Round, phone: str, undoes: GameEvent | None = None) -> GameEvent:
        event = self.log(
            GameEvent.Kind.DELETED,
            None,
            number=round_.number,
            before=round_.document(self.names),
            phone=phone,
            undoes=undoes,
        )
        round_.delete()
        self._shift_rounds(after=event.number, by=-1)
        return event

    def restore_round(
        self, deletion: GameEvent, phone: str = "", as_round: int | None = None
    ) -> Round:
        """Bring back the round that `deletion` deleted, from the history; once only
        ("already_restored").

        While no round has been added or brought back since the deletion, it goes back to
        the place it had (or last, if fewer rounds remain). Once its place has been filled,
        it would be one round more, played after the others. That is done only when the phone
        says so with `as_round`, the number it becomes (the count of rounds plus one, as the
        phone's confirmation showed it). Otherwise "restore_as_extra" says that number, and
        nothing changes. A finished game takes no extra round."""
        with self._changing() as game:
            # GameEvent.DoesNotExist for an event that never deleted a round of this game.
            event = game.events.get(pk=deletion.pk, kind=GameEvent.Kind.DELETED)
            if event.restored:
                raise rules.Conflict(rules.Code.ALREADY_RESTORED)
            rounds = game.rounds.count()
            filled = game.events.filter(
                pk__gt=event.pk, kind__in=[GameEvent.Kind.ADDED, GameEvent.Kind.RESTORED]
            ).exists()
            if filled:
                if as_round != rounds + 1:
                    raise rules.ConfirmFirst(
                        rules.Code.RESTORE_AS_EXTRA, number=event.number, extra=rounds + 1
                    )
                if game.status == Status.FINISHED:
                    raise rules.Conflict(rules.Code.GAME_FINISHED)
            restored = game._restore(event, rounds if filled else None, phone)
        return restored.round

    def _store(self, round_: Round, entry: RoundEntry, new: bool = False) -> None:
        """Save `round_` as `entry` says, with the engine's points for this game (scored once:
        the form that checked the entry scored it already). A seat added since the form was
        drawn (a player joined) has no hand in it; a hand for a seat that is gone since (a join
        undone) is refused as a change of players."""
        seats = len(self.seated_players)
        extra = entry.hands[seats:]
        if any(hand is not None for hand in extra):
            raise rules.Conflict(rules.Code.PLAYERS_CHANGED)
        entry = replace(entry, hands=entry.hands[:seats] + (None,) * (seats - len(entry.hands)))
        points = entry.points(self.target, self.rules)
        round_.store(entry, self.seated_players, points, new=new)

    def _new_round(
        self, number: int, entry: RoundEntry, kind: str, phone: str, dealer: int | None, **fields
    ) -> GameEvent:
        """Store `entry` as a new round at `number` (its place free), dealt by `dealer`, and log
        it as `kind` (added, or restored): the change's event, whose `round` is the new round."""
        round_ = Round(game=self, number=number, dealer=dealer)
        entry = self._seated(entry)
        self._store(round_, entry, new=True)
        after = history_document(entry, self.names, dealer)
        return self.log(kind, round_, after=after, phone=phone, **fields)

    def _restore(
        self, event: GameEvent, last: int | None, phone: str, undoes: GameEvent | None = None
    ) -> GameEvent:
        """Put the round `event` deleted back: after the `last` round, or at its own place
        (when `last` is None; last if fewer rounds remain). The restore's event."""
        rounds = self.rounds.count() if last is None else last
        self._check_room(rounds + 1)
        # The deleted round names the players as they were called then; it comes back with
        # its dealer (one deleted before dealers were kept: dealt as the deal goes now).
        entry, dealer = from_history(event.before, self.names_when(event))
        number = rounds + 1 if last is not None else min(event.number, rounds + 1)
        if dealer is None:
            dealer = self.next_deal(*self.last_dealer()).dealer
        self._shift_rounds(after=number - 1, by=1)
        event.restored = True
        event.save(update_fields=["restored"])
        return self._new_round(number, entry, GameEvent.Kind.RESTORED, phone, dealer, undoes=undoes)

    def go_back(self, change: GameEvent, seen_revision: int, phone: str = "") -> Round:
        """Edit a round back to the version it had before `change` (an edit or a correction
        of it, from the history): one more edit of that round, checked like any edit against
        the revision the phone saw. "round_gone" once the round has been deleted."""
        with self._changing() as game:
            event = game.events.get(pk=change.pk, kind__in=GameEvent.EDITS)
            round_ = game.rounds.filter(pk=event.round_id).first()
            if round_ is None:
                raise rules.Conflict(rules.Code.ROUND_GONE, number=event.number)
            round_ = game._round_as_seen(
                Round(pk=round_.pk, number=round_.number, revision=seen_revision)
            )
            entry, _dealer = from_history(event.before, game.names_when(event))
            game._store_again(round_, entry, GameEvent.Kind.EDITED, phone)
        return round_

    def _shift_rounds(self, after: int, by: int) -> None:
        """Move the numbers of the rounds after `after` by `by`, keeping them unique at every
        step: first out of the way to negative numbers, then to their new place. The changes
        of seats from those rounds on move with them (a change is from the round it was made
        before, whatever its number becomes), so that deleting or restoring an earlier round
        never makes a change look unplayed, its dealer chosen again for the next round. With
        no round after `after` (the last round deleted, to be entered again; a round restored
        as the last), nothing moves: a change made for the next round stays after it. Two
        changes from one round (the round between them deleted): the later one holds, as it
        would for every round after it anyway."""
        moved_rounds = self.rounds.filter(number__gt=after).update(number=-F("number"))
        self.rounds.filter(number__lt=-after).update(number=-F("number") + by)
        # A player came back before a round: they still did, whatever its number becomes.
        for player in self.players.filter(returns__isnull=False):
            if moved_rounds and any(back["from"] > after for back in player.returns):
                player.returns = [
                    {**back, "from": back["from"] + by} if back["from"] > after else back
                    for back in player.returns
                ]
                Player.objects.filter(pk=player.pk).update(returns=player.returns)
        if moved_rounds and any(change["from"] > after for change in self.seating):
            moved = [
                {**change, "from": change["from"] + by} if change["from"] > after else change
                for change in self.seating
            ]
            self.seating = [
                change
                for index, change in enumerate(moved)
                if index + 1 == len(moved) or moved[index + 1]["from"] != change["from"]
            ]
            type(self).objects.filter(pk=self.pk).update(seating=self.seating)
