"""A game's parts: its players (seated, each maybe a table's member), its rounds and their hands
as the rules scored them, and the history of every change (GameEvent). They change only
through the game's methods (scoring/models/game.py)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import models
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.rules import RoundEntry


def history_document(entry: RoundEntry, names: Sequence[str], dealer: int | None) -> dict:
    """A round as a change of the history keeps it (GameEvent.before and after): its
    rami-game/1 document, the names of those who played it when not everyone did
    ("players"), and the name of its dealer ("dealer"). A round brought back from the history
    then comes back as it was played."""
    document = entry.document(names)
    if len(entry.playing) < len(names):
        document["players"] = [names[seat] for seat in entry.playing]
    if dealer is not None and dealer < len(names):
        document["dealer"] = names[dealer]
    return document


def from_history(document: dict, names: Sequence[str]) -> tuple[RoundEntry, int | None]:
    """The round and its dealer's seat of a history document (history_document); one written
    before either was kept: played by everyone, its dealer unknown."""
    playing = None
    if "players" in document:
        playing = [seat for seat, name in enumerate(names) if name in document["players"]]
    entry = RoundEntry.from_document(document, names, playing)
    dealer = document.get("dealer")
    return entry, (list(names).index(dealer) if dealer in names else None)


class Player(models.Model):
    game = models.ForeignKey("Game", on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH)
    # rules.name_key(name): what two players of one game must not share.
    name_key = models.CharField(max_length=rules.MAX_NAME_KEY_LENGTH)
    # In a table's game, the member this player is (None for a guest, and outside tables).
    member = models.ForeignKey(
        "Member", on_delete=models.SET_NULL, null=True, blank=True, related_name="players"
    )
    # Players come and go (docs/rules.md): one who joined a game under way, with the total they
    # started with; one who left, who plays no more rounds of it. Which rounds each played is
    # in the hands: a round has a hand for each player who played it, none for the others.
    # Database defaults, so that the previous release, which knows none of these, still adds
    # players while this one's migration runs (docs/deploy.md, "Upgrading").
    start = models.IntegerField(default=0, db_default=0)
    joined = models.BooleanField(default=False, db_default=False)
    left = models.BooleanField(default=False, db_default=False)
    # One who left and came back: each time, the round they play again from and the total
    # they start it with ({"from": 9, "start": 312}), in order (Game.come_back). None: never.
    # Their earlier rounds stay theirs; their total counts on from the last of these.
    returns = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="unique_seat_per_game"),
            models.UniqueConstraint(fields=["game", "name_key"], name="unique_name_key_per_game"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name_key = rules.name_key(self.name)
        super().save(*args, **kwargs)


def total_after_return(game_id: int, seat: int, returns: list[dict]) -> int:
    """The total of a player who came back (Player.returns): the total they came back with,
    and their points from that round on. One query."""
    last = returns[-1]
    since = Hand.objects.filter(
        player__game_id=game_id, player__seat=seat, round__number__gte=last["from"]
    ).aggregate(points=Coalesce(Sum("points"), 0))["points"]
    return last["start"] + since


class RoundQuerySet(models.QuerySet):
    def with_hands(self) -> RoundQuerySet:
        """In order, each with its hands and their players, in two queries."""
        return self.order_by("number").prefetch_related(
            models.Prefetch("hands", queryset=Hand.objects.select_related("player"))
        )


class Round(models.Model):
    game = models.ForeignKey("Game", on_delete=models.CASCADE, related_name="rounds")
    # Not a PositiveIntegerField: renumbering passes through negative numbers (_shift_rounds).
    number = models.IntegerField()
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    hand_rummy = models.BooleanField(default=False)
    # The seat that dealt it, kept whatever is later deleted, restored or changed before it;
    # None only for a round saved by a release before this was kept.
    dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    # One more with every edit: a phone's form names the revision it shows, and an edit or a
    # delete made from an older one is refused (Game._round_as_seen).
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="unique_round_number_per_game"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number}"

    @property
    def blocked(self) -> bool:
        """A blocked round (the draw pile ran out) has no player who went out."""
        return self.winner_seat is None

    def store(
        self,
        entry: RoundEntry,
        players: Sequence[Player],
        points: Sequence[int | None],
        new: bool = False,
    ) -> None:
        """Save this round and its hands as `entry` says, one hand for each of `players` (in
        seat order) who played it, with its `points`, as the engine scored them (Game._store).
        A `new` round has no hands to replace."""
        self.winner_seat = entry.winner
        self.hand_rummy = entry.hand_rummy
        self.save()
        if not new:
            self.hands.all().delete()
        Hand.objects.bulk_create(
            Hand(
                round=self,
                player=player,
                cards=" ".join(hand.cards),
                value=hand.value,
                opened=hand.opened,
                points=point,
            )
            for player, hand, point in zip(players, entry.hands, points, strict=True)
            if hand is not None
        )

    def hands_with_players(self) -> models.QuerySet[Hand]:
        """The hands, each with its player: prefetched, or read in one query (not one more
        query per hand for its seat)."""
        if "hands" in getattr(self, "_prefetched_objects_cache", {}):
            return self.hands.all()
        return self.hands.select_related("player")

    def entry(self, players: int) -> RoundEntry:
        """The round as entered, a hand for each seat that played it (None for the others)."""
        hands: list[rules.Hand | None] = [None] * players
        for hand in self.hands_with_players():
            hands[hand.player_seat] = hand.as_rules_hand()
        return RoundEntry(hands=tuple(hands), winner=self.winner_seat, hand_rummy=self.hand_rummy)

    def document(self, names: Sequence[str]) -> dict:
        """The round as the history keeps it (history_document)."""
        return history_document(self.entry(len(names)), names, self.dealer)


class Hand(models.Model):
    """What one player held at the end of one round, and the points the engine gave."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="hands")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="hands")
    # Canonical card codes separated by spaces ("AH JK 5C"), or empty.
    cards = models.CharField(max_length=512, blank=True)
    value = models.PositiveIntegerField(null=True, blank=True)
    opened = models.BooleanField(default=True)
    points = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "player"], name="unique_hand_per_round"),
            models.CheckConstraint(condition=Q(points__gte=0), name="points_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.cards or self.value or '-'}"

    @property
    def player_seat(self) -> int:
        return self.player.seat

    @property
    def card_list(self) -> list[str]:
        return self.cards.split()

    def as_rules_hand(self) -> rules.Hand:
        return rules.Hand(cards=tuple(self.card_list), value=self.value, opened=self.opened)


class GameEvent(models.Model):
    """One change to a game, kept for its history, made by one phone: a round added, edited,
    corrected, deleted or restored, or a player renamed. An undo is one more such change
    (`undoes`); a deleted round can be restored from it."""

    class Kind(models.TextChoices):
        ADDED = "added", _("Round added")
        EDITED = "edited", _("Round edited")
        # An edit made by taking back a round just saved, to put it right.
        CORRECTED = "corrected", _("Round corrected")
        DELETED = "deleted", _("Round deleted")
        RESTORED = "restored", _("Round restored")
        RENAMED = "renamed", _("Player renamed")
        # Who deals next, or the seating order the deal follows, changed during the game.
        SEATED = "seated", _("Seats and dealer changed")
        # A player left the game, or joined it under way.
        LEFT = "left", _("Player left")
        JOINED = "joined", _("Player joined")

    # The kinds that change a round in place, and every kind that changes the rounds.
    EDITS = (Kind.EDITED, Kind.CORRECTED)
    ROUND_CHANGES = (Kind.ADDED, Kind.EDITED, Kind.CORRECTED, Kind.DELETED, Kind.RESTORED)
    # A player coming or going, and every change the phone that made it may undo.
    PLAYER_CHANGES = (Kind.LEFT, Kind.JOINED)
    UNDOABLE = (*ROUND_CHANGES, *PLAYER_CHANGES)

    game = models.ForeignKey("Game", on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    number = models.IntegerField(null=True)
    round = models.ForeignKey(Round, on_delete=models.SET_NULL, null=True, related_name="+")
    # The round in the rami-game/1 shape, before and after the change.
    before = models.JSONField(null=True)
    after = models.JSONField(null=True)
    restored = models.BooleanField(default=False)
    # The idempotency key of the form that made the change ("" for none).
    key = models.CharField(max_length=64, blank=True)
    # The phone that made the change (scoring.web.phones; "" for none, as for an import): its
    # Undo is offered there only.
    phone = models.CharField(max_length=64, blank=True)
    # The change this one undid (Game.undo), once: an undo is one more change.
    undoes = models.OneToOneField(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="undone_by"
    )
    # The game's version after the change (None for changes made before it was kept): a poll
    # from the version of one change learns from the changes after it what it has to redraw.
    version = models.BigIntegerField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "key"], condition=~Q(key=""), name="unique_event_key_per_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.number}"
