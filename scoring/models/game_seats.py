"""Who sits where and deals when: a game's seating as it changed over its rounds, the next deal,
and the changes to names and seats, each inside the game's lock (Game._changing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring import rules
from scoring.models.common import Status
from scoring.models.rounds import (
    GameEvent,
)


@dataclass(frozen=True)
class Seating:
    """Who deals a round (a seat) and the order the deal goes round (every seat once), as
    Game.next_deal gives it and the players page shows it."""

    dealer: int
    order: tuple[int, ...]

    def same_as(self, other: Seating) -> bool:
        """The same dealer, and the same order round the table, whichever seat it is written
        from (the deal goes round: Ana, Boris, Cyril is Boris, Cyril, Ana)."""
        if self.dealer != other.dealer or sorted(self.order) != sorted(other.order):
            return False
        start = other.order.index(self.order[0])
        return self.order == other.order[start:] + other.order[:start]


class SeatChanges:
    """A game's seats, names and deals, a part of Game."""

    def _seating_change(self, number: int) -> dict | None:
        """The latest change to the deal (`seating`) that round `number` plays under, or None."""
        return next((change for change in reversed(self.seating) if change["from"] <= number), None)

    def _order_for(self, number: int) -> tuple[int, ...]:
        """The order the deal goes round in round `number`, every seat once: the latest change
        of seats', then any seat it does not name (a player who joined since)."""
        change = self._seating_change(number)
        order = list(change["order"]) if change else []
        return tuple(order + [p.seat for p in self.seated_players if p.seat not in order])

    def next_deal(self, last_dealer: int | None, rounds: int) -> Seating:
        """Who deals the next round, after `rounds` rounds of which `last_dealer` dealt the last
        (Round.dealer), and the order the deal goes round: every seat once, those who left
        included (the deal passes over them). A change of seats from that round on
        (change_seating, a player joining) says both. Otherwise the deal goes on to the next
        player playing after the last dealer (rules.next_dealer), along the latest change's
        order or the seat order. Before the first round, the first dealer deals."""
        number = rounds + 1
        change = self._seating_change(number)
        order = self._order_for(number)
        playing = [player.seat for player in self.playing]
        if change is not None and change["from"] == number:
            chosen = change["dealer"]
        elif rounds and last_dealer is not None:
            return Seating(rules.next_dealer(order, last_dealer, playing), order)
        else:
            chosen = self.first_dealer
        if chosen in playing:
            return Seating(chosen, order)
        return Seating(rules.next_dealer(order, chosen, playing), order)

    def last_dealer(self) -> tuple[int | None, int]:
        """The last round's dealer and the number of rounds (one query)."""
        last = self.rounds.order_by("-number").values_list("dealer", "number").first()
        if last is not None and last[0] is None:
            return self._dealt(
                list(self.rounds.order_by("number").values_list("dealer", flat=True))
            )[-1], last[1]
        return last if last is not None else (None, 0)

    def _dealt(self, dealers: list[int | None]) -> list[int]:
        """The rounds' dealers in order, a missing one the player the deal went to: a round the
        release before 0.2.0 saved while 0.2.0's migration ran or before its servers were
        restarted has none (0013 filled the others)."""
        dealt: list[int] = []
        for index, dealer in enumerate(dealers):
            if dealer is None:
                dealer = self.next_deal(dealt[-1] if dealt else None, index).dealer
            dealt.append(dealer)
        return dealt

    def rename_player(self, seat: int, name: str, seen: str | None = None) -> bool:
        """Give the player at `seat` a new name (see rename_players); whether it changed."""
        return bool(self.rename_players({seat: name}, None if seen is None else {seat: seen}))

    def rename_players(
        self, names: Mapping[int, str], seen: Mapping[int, str] | None = None, phone: str = ""
    ) -> list[int]:
        """Give the players at these seats (`names`: seat -> name) new names, each rename kept
        in the history; the seats renamed. Each new name is checked as at the start
        (rules.check_name, and its name key against every other player's, new or old: a
        RulesError names the seat), so that two players may also swap names. `seen`
        (seat -> name) is what the phone's form showed: a player renamed on another phone since
        is refused ("name_changed"), not renamed back. A name the player already has changes
        nothing, not even the version, so a form sent twice is harmless.

        The round documents kept in the history name the players as they were called at the
        time: names_when reads them back.

        This game alone: a table's game is renamed by its table (models.rename_players), so
        that a member keeps one name in every game of the table."""
        with self._changing() as game:
            players = list(game.players.order_by("seat"))
            now = [player.name for player in players]
            renamed = sorted(
                seat for seat, name in names.items() if rules.clean_name(name) != now[seat]
            )
            for seat in renamed:
                if seen is not None and seen.get(seat, now[seat]) != now[seat]:
                    raise rules.Conflict(rules.Code.NAME_CHANGED, seat)
            checked = list(now)
            for seat in renamed:
                try:
                    checked[seat] = rules.check_name(names[seat])
                except rules.RulesError as error:
                    raise error.for_player(seat) from None
            # Each new name against every other, old or new; said of the name typed, not of
            # the player who has had it all along. Two old names alike are left alone: games
            # from before look-alikes counted as one name may hold such a pair.
            keys = [rules.name_key(name) for name in checked]
            for seat in renamed:
                other = next(
                    (o for o, key in enumerate(keys) if key == keys[seat] and o != seat), None
                )
                if other is not None:
                    raise rules.same_name(checked[seat], checked[other], seat)
            if len(renamed) > 1:
                # Out of each other's way first, for the unique name key (no real key holds a
                # control character: rules.clean_name takes them out).
                for seat in renamed:
                    game.players.filter(seat=seat).update(name_key=f"\x01{seat}")
            for seat in renamed:
                player = players[seat]
                player.name = checked[seat]
                player.save(update_fields=["name", "name_key"])
                game.log(
                    GameEvent.Kind.RENAMED,
                    None,
                    before={"seat": seat, "name": now[seat]},
                    after={"seat": seat, "name": player.name},
                    phone=phone,
                )
            if renamed:
                game.seated_players = players
        return renamed

    def change_seating(
        self, dealer: int, order: Sequence[int], seen: Seating | None = None, phone: str = ""
    ) -> bool:
        """From the next round on, seat `dealer` deals and the deal moves along `order` (every
        seat once, starting anywhere: it goes round). It is for a player who sits elsewhere
        after a break, or a deal passed wrongly. The rounds played keep their dealers; the
        seats keep their players (hands and history name them by seat). The change is kept in
        the game's `seating` and in its history: it replaces one from the same round, and one
        from a later round (left by rounds deleted since) goes. Whether anything changed.

        `seen` is the seating the phone's page showed for the next round (seating_for). When it
        is no longer so (another phone changed the seats or the dealer, or saved a round, so
        that the deal moved on), the change is refused ("seating_changed") rather than made
        over what the phone did not see. The same dealer and order as now change
        nothing, not even the version, so a form sent twice is harmless. RulesError as
        rules.check_seating says, and "game_finished" for a game that is over."""
        with self._changing() as game:
            if game.status == Status.FINISHED:
                raise rules.Conflict(rules.Code.GAME_FINISHED)
            order = list(order)
            playing = [player.seat for player in game.playing]
            rules.check_seating(dealer, order, playing)
            last_dealer, rounds = game.last_dealer()
            now = game.playing_deal(game.next_deal(last_dealer, rounds))
            chosen = Seating(dealer, tuple(order))
            if chosen.same_as(now):
                return False
            if seen is not None and not seen.same_as(now):
                raise rules.Conflict(rules.Code.SEATING_CHANGED)
            game._seat(dealer, order, rounds + 1, now, phone)
        return True

    def _seat(self, dealer: int, order: list[int], number: int, now: Seating, phone: str) -> None:
        """Seat `dealer` deals round `number`, the deal moving along `order` (the players
        playing; those who left keep their places behind them): kept in `seating` and the
        history."""
        order = order + [seat for seat in self._order_for(number) if seat not in order]
        change = {"from": number, "dealer": dealer, "order": order}
        self.seating = [old for old in self.seating if old["from"] < number] + [change]
        type(self).objects.filter(pk=self.pk).update(seating=self.seating)
        before = {"from": number, "dealer": now.dealer, "order": list(now.order)}
        self.log(
            GameEvent.Kind.SEATED, None, number=number, before=before, after=change, phone=phone
        )

    def playing_deal(self, deal: Seating) -> Seating:
        """`deal` as the players page shows it: its order among the players playing."""
        playing = {player.seat for player in self.playing}
        return Seating(deal.dealer, tuple(seat for seat in deal.order if seat in playing))

    def seating_now(self) -> Seating:
        """Who deals next, and the deal's order among the players playing (two queries at most)."""
        return self.playing_deal(self.next_deal(*self.last_dealer()))

    def names_when(self, event: GameEvent) -> list[str]:
        """The players' names as they were just after `event`: today's, with every rename
        since undone. A change's round documents name the players so."""
        names = self.names
        # Those who joined since were not seated then (a joiner takes the next seat): a
        # document that names no players was played by every player seated then.
        joined = self.events.filter(kind=GameEvent.Kind.JOINED, undoes=None, pk__gt=event.pk)
        seats = [
            after["seat"]
            for after in joined.values_list("after", flat=True)
            if not after.get("back")
        ]
        if seats:
            names = names[: min(seats)]
        since = self.events.filter(kind=GameEvent.Kind.RENAMED, pk__gt=event.pk).order_by("-pk")
        for before in since.values_list("before", flat=True):
            # A player whose join was undone since is no longer seated: their renames go too.
            if before["seat"] < len(names):
                names[before["seat"]] = before["name"]
        return names
