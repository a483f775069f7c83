"""Players who come and go: one leaves a game under way, joins it late or comes back, and each of
those taken back (their Undo), each inside the game's lock (Game._changing). The rules of it:
docs/rules.md.
"""

from __future__ import annotations

from scoring import rules
from scoring.models.common import Status
from scoring.models.rounds import (
    GameEvent,
    Player,
)


class ComingAndGoing:
    """Players leaving, joining and coming back, a part of Game."""

    # Players coming and going (docs/rules.md).

    def leave(self, seat: int, phone: str = "", past_the_end: bool = False) -> GameEvent:
        """The player at `seat` leaves after the last round saved. From the next round on they
        are not in it and the deal passes over them; their total stays, but they can no longer
        win (refresh_standing counts the players still playing). Refused: fewer than
        MIN_PLAYERS left playing ("leave_last"); a player who has played no round yet
        ("leave_unplayed": their join's Undo, or before the first round a new game); one who
        left already ("left_already": a form sent twice); anyone from a finished game. A game
        file's players leave as its rounds say (`past_the_end`: exchange's import)."""
        with self._changing() as game:
            player = game._player(seat)
            if player.left:
                raise rules.Conflict(rules.Code.LEFT_ALREADY, seat)
            if game.status == Status.FINISHED and not past_the_end:
                raise rules.Conflict(rules.Code.GAME_FINISHED)
            last = player.hands.order_by("-round__number").values_list("round__number", flat=True)
            after = last.first()
            if not past_the_end:  # a file's players leave as its rounds say
                if after is None:
                    # A late joiner is named, and their join's Undo is the way; before the
                    # first round nobody is, and the way is a new game without them.
                    named = seat if game.rounds.exists() else None
                    raise rules.RulesError(rules.Code.LEAVE_UNPLAYED, named)
                rules.check_leave(len(game.playing), seat)
            player.left = True
            Player.objects.filter(pk=player.pk).update(left=True)
            return game.log(
                GameEvent.Kind.LEFT, None, number=after, after={"seat": seat}, phone=phone
            )

    def join(
        self,
        name: str,
        after: int | None = None,
        start: int | None = None,
        phone: str = "",
        past_the_end: bool = False,
    ) -> Player:
        """A new player, `name`, joins before the next round, seated after `after` in the deal
        (a seat; None: before the next dealer, the last to deal in the round), while fewer than
        MAX_PLAYERS play ("join_full"). They start with `start` points, or the highest total of
        those playing (rules.start_total). The target stays what the first round's players
        set; before any round, they are one of those. Not in a finished game, but for a
        game file's rounds past its end (`past_the_end`: record_round's)."""
        name = rules.check_name(name)
        with self._changing() as game:
            game._check_joining(past_the_end)
            key = rules.name_key(name)
            other = next((p for p in game.seated_players if p.name_key == key), None)
            if other is not None:
                raise rules.same_name(name, other.name)
            playing = [player.seat for player in game.playing]
            start = game._starting_total(playing, start)
            seat = max(player.seat for player in game.seated_players) + 1
            # The deal as it goes before the joiner sits down: the next dealer is one of those
            # playing, never the joiner, whose seat would otherwise come next after the last.
            now, order, number = game._deal_with(seat, after, playing)
            player = Player.objects.create(
                game=game, seat=seat, name=name, name_key=key, start=start, joined=True
            )
            game.seated_players = [*game.seated_players, player]
            if number == 1:
                game.target_players = len(playing) + 1
                type(self).objects.filter(pk=game.pk).update(target_players=game.target_players)
            game._sit_down(now, order, number, {"seat": seat, "name": name, "start": start}, phone)
        self.seated_players = game.seated_players
        return player

    def come_back(
        self,
        seat: int,
        after: int | None = None,
        start: int | None = None,
        phone: str = "",
        past_the_end: bool = False,
    ) -> GameEvent:
        """The player at `seat`, who left, comes back before the next round, as a join of
        their own seat: their name, seat and earlier rounds stay theirs. They sit after `after`
        in the deal (None: before the next dealer) and start with `start` points, or the
        highest total of those playing. Refused as a join is ("join_full": another phone's
        join came first), and for one who is playing ("playing_already"). A game file's
        players come back as its rounds say (`past_the_end`). The change, for its Undo."""
        with self._changing() as game:
            player = game._player(seat)
            # One playing is refused as such, but in a finished game, which is refused as one.
            if not player.left and (past_the_end or game.status != Status.FINISHED):
                raise rules.Conflict(rules.Code.PLAYING_ALREADY, seat)
            game._check_joining(past_the_end)
            playing = [other.seat for other in game.playing]
            start = game._starting_total(playing, start)
            now, order, number = game._deal_with(seat, after, playing)
            was = {"joined": player.joined, "returns": player.returns}
            player.left, player.joined = False, True
            player.returns = [*(player.returns or []), {"from": number, "start": start}]
            Player.objects.filter(pk=player.pk).update(
                left=False, joined=True, returns=player.returns
            )
            logged = {"seat": seat, "start": start, "back": True, "was": was}
            event = game._sit_down(now, order, number, logged, phone)
        self.seated_players = game.seated_players
        return event

    def _check_joining(self, past_the_end: bool) -> None:
        """Whether a player may sit down before the next round (join, come_back): not in a
        finished game, and while fewer than MAX_PLAYERS play ("join_full": a Conflict, the
        page having offered it before another join filled the game). A game file's players
        come and go as its rounds say (`past_the_end`): each of its rounds has 2 to 6 players
        (the rules score none with more), whoever else has not left yet."""
        if past_the_end:
            return
        if self.status == Status.FINISHED:
            raise rules.Conflict(rules.Code.GAME_FINISHED)
        try:
            rules.check_join(len(self.playing), len(self.seated_players))
        except rules.RulesError as full:
            raise rules.Conflict(full.code, full.player, **full.details) from None

    def _starting_total(self, playing: list[int], start: int | None) -> int:
        """The total one who sits down starts with: `start`, or the highest of those playing."""
        if start is None:
            totals = self.totals()
            start = rules.start_total(totals[seat] for seat in playing)
        return rules.check_start_total(start)

    def _deal_with(self, seat: int, after: int | None, playing: list[int]):
        """The next deal, the order of `playing` with `seat` sat after `after` (None: before
        the next dealer, the last to deal in the round), and the next round's number."""
        last_dealer, rounds = self.last_dealer()
        now = self.next_deal(last_dealer, rounds)
        order = [other for other in now.order if other in playing]
        place = order.index(after) + 1 if after in order else order.index(now.dealer)
        order.insert(place, seat)
        return now, order, rounds + 1

    def _sit_down(self, now, order: list[int], number: int, logged: dict, phone: str) -> GameEvent:
        """The join (`logged`: its event's `after`), then the joiner's place in the deal from
        round `number` (the history, read back in time, meets the seat before the player who
        took it)."""
        event = self.log(GameEvent.Kind.JOINED, None, number=number, after=logged, phone=phone)
        self._seat(now.dealer, order, number, self.playing_deal(now), phone)
        return event

    def _player(self, seat: int) -> Player:
        player = next((player for player in self.seated_players if player.seat == seat), None)
        if player is None:
            raise rules.RulesError(rules.Code.SEATING_ORDER)
        return player

    def _come_back(self, leaving: GameEvent, phone: str) -> GameEvent:
        """The Undo of a leave: the player plays again from the next round."""
        seat = leaving.after["seat"]
        Player.objects.filter(game=self, seat=seat).update(left=False)
        self._player(seat).left = False
        return self.log(
            GameEvent.Kind.JOINED,
            None,
            number=leaving.number,
            after={"seat": seat},
            phone=phone,
            undoes=leaving,
        )

    def _unjoin(self, joining: GameEvent, phone: str) -> GameEvent:
        """The Undo of a join: the player, who has played no round and took the last seat
        (check_undo: no join since), is taken out again. One who came back has left again,
        as before."""
        seat = joining.after["seat"]
        if joining.after.get("back"):
            return self._leave_again(joining, phone)
        Player.objects.filter(game=self, seat=seat).delete()
        self.seated_players = [p for p in self.seated_players if p.seat != seat]
        self.seating = [
            {**change, "order": [s for s in change["order"] if s != seat]}
            for change in self.seating
        ]
        type(self).objects.filter(pk=self.pk).update(seating=self.seating)
        return self.log(
            GameEvent.Kind.LEFT,
            None,
            number=joining.number,
            after={"seat": seat, "name": joining.after.get("name", "")},
            phone=phone,
            undoes=joining,
        )

    def _leave_again(self, coming_back: GameEvent, phone: str) -> GameEvent:
        """The Undo of a coming back (come_back): the player has left as before, out of the
        deal from the round they came back for."""
        seat = coming_back.after["seat"]
        was = coming_back.after["was"]
        Player.objects.filter(game=self, seat=seat).update(
            left=True, joined=was["joined"], returns=was["returns"]
        )
        player = self._player(seat)
        player.left, player.joined, player.returns = True, was["joined"], was["returns"]
        self.seating = [
            {**change, "order": [s for s in change["order"] if s != seat]}
            if change["from"] >= coming_back.number
            else change
            for change in self.seating
        ]
        type(self).objects.filter(pk=self.pk).update(seating=self.seating)
        return self.log(
            GameEvent.Kind.LEFT,
            None,
            number=coming_back.number,
            after={"seat": seat, "back": True},
            phone=phone,
            undoes=coming_back,
        )
