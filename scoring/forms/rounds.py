"""The round form: each player's hand (HandForm) and who went out (RoundForm), turned into one
rules.RoundEntry, every rule checked by scoring.rules and each refusal put beside the player
concerned.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import replace
from functools import cached_property

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from scoring import rules
from scoring.forms.common import HiddenNumber, ShowsRefusals, TypedText
from scoring.models import Player, Round
from scoring.rules import RoundEntry
from scoring.rules.card_names import read_typed
from scoring.rules.messages import round_form_message

BLOCKED = "blocked"
# The rules' errors about a typed hand value, shown under the value field.
VALUE_ERRORS = {
    rules.Code.NOT_A_NUMBER,
    rules.Code.NEGATIVE_VALUE,
    rules.Code.VALUE_TOO_LARGE,
    rules.Code.VALUE_TOO_SMALL,
}


WINNER_MISSING = _("Tap who went out, or “Nobody: blocked round”.")


class ShowsRoundRefusals(ShowsRefusals):
    """A form of the round entry: its refusals are said in the round form's words, with what
    to do about them (round_form_message), naming the round's players (`names`)."""

    names: list[str]

    def refusal_names(self) -> list[str]:
        return self.names

    def refusal_message(self, error: rules.RulesError) -> str:
        return round_form_message(error, self.names)


class HandForm(ShowsRoundRefusals, forms.Form):
    """One player's hand: the cards left in it, in the card notation ("AH JK 5C", filled by the
    card picker when JavaScript runs), or their value, and whether the player had opened.
    `cleaned_data["hand"]` is the rules.Hand typed (an empty one when nothing is).

    Its fields are named by seat, `cards_2`, `value_2`, `not_opened_2`, not by Django's
    `2-cards`: the names the round form has always posted, which rami.js, the scripts and the
    pages still open on phones send."""

    cards = TypedText(
        # No max_length: rules.Hand says how many cards a hand holds at most.
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "autocapitalize": "characters",
                "spellcheck": "false",
                # Translators: an example of a hand typed in the card notation (an ace of
                # hearts, a joker, a five of clubs): each rank as your card keys show it (the
                # "card face" letters, e.g. sv "E" for the ace), then the suit's letter S H D C;
                # JK is the joker. Only letters that the field reads.
                "placeholder": pgettext_lazy("card notation", "AH JK 5C"),
                "class": "cards-text",
            }
        ),
    )
    # Text, read by clean(): rules.Hand says what a value may be, naming the player.
    value = TypedText(
        label=_("or their value"),
        widget=forms.NumberInput(
            attrs={
                "inputmode": "numeric",
                "class": "value-input",
                "min": 0,
                "placeholder": _("value"),
            }
        ),
    )
    not_opened = forms.BooleanField(label=_("Not opened yet"), required=False)

    # Whether the round asks for this hand: not the winner's (anything typed in that hidden
    # hand is left aside), nor any until it is known who went out. RoundForm.clean says so
    # before it reads the hand.
    asked = True
    # Whether cards or a value were typed, right or wrong (set by clean()): the preview says
    # nothing of a hand not typed yet.
    typed = False

    def __init__(
        self, *args, player: Player, names: list[str], house_rules: rules.Rules, **kwargs
    ) -> None:
        """`names`: the game's players' names by seat, as the hand's refusals name them."""
        super().__init__(*args, prefix=str(player.seat), **kwargs)
        self.player = player
        self.names = names
        self.rules = house_rules
        self.fields["cards"].label = _("Cards left in %(name)s's hand") % {"name": player.name}

    def add_prefix(self, field_name: str) -> str:
        return f"{field_name}_{self.prefix}"

    def clean(self):
        cleaned = super().clean()
        self.typed = bool(cleaned.get("cards") or cleaned.get("value"))
        if not self.asked:
            cleaned["hand"] = rules.Hand()
            return cleaned
        seat = self.player.seat
        text = cleaned.get("value", "")
        try:
            value = int(text) if text else None
        except ValueError:
            self.refused(rules.RulesError(rules.Code.NOT_A_NUMBER, seat, value=text))
            return cleaned
        cards = " ".join(read_typed(cleaned.get("cards", ""))).split()
        try:
            cleaned["hand"] = rules.Hand(
                cards=tuple(cards), value=value, opened=not cleaned.get("not_opened")
            )
        except rules.RulesError as error:
            self.refused(error.for_player(seat).under(self.rules))
        return cleaned

    def field_for(self, error: rules.RulesError) -> str:
        """Next to the value for an error about it, else next to the cards."""
        return "value" if error.code in VALUE_ERRORS else "cards"


class RoundForm(ShowsRoundRefusals, forms.Form):
    """One round: who went out (or a blocked round) and whether it was a hand rummy, here, and
    a hand per player, each a HandForm (`hands`, in seat order). Hidden fields carry the round
    this form is for and a fresh key, so that sending the same form twice records the round
    once.

    `cleaned_data["entry"]` is the RoundEntry typed, when every hand is right; `typed_round()`
    is the round so far, for rules.points_so_far (the points shown as the hands are typed).
    Nothing is scored here: the game scores the round it records.
    """

    winner = forms.ChoiceField(
        label=_("Who went out?"),
        widget=forms.RadioSelect,
        error_messages={"required": WINNER_MISSING, "invalid_choice": WINNER_MISSING},
    )
    hand_rummy = forms.BooleanField(
        label=_("Hand rummy"),
        required=False,
        help_text=_("the winner opened and went out in one turn, before anyone else opened"),
    )
    for_round = HiddenNumber()
    # When editing: the round's identity and the revision the form shows (Game.edit_round).
    round = HiddenNumber()
    revision = HiddenNumber()
    key = TypedText(widget=forms.HiddenInput)
    # The seats of the players the form was drawn for (seat_list): see _players_changed.
    players = TypedText(widget=forms.HiddenInput)

    def __init__(
        self,
        data=None,
        *,
        players: list[Player],
        target: int,
        house_rules: rules.Rules,
        initial: dict | None = None,
        seats: int | None = None,
    ) -> None:
        super().__init__(data, initial=initial)
        # The players of the round (those playing), and how many seats the game has.
        self.players = players
        self.seat_count = seats if seats is not None else max(p.seat for p in players) + 1
        self.target = target
        self.rules = house_rules
        # The points seats() shows beside each hand (rules.points_so_far), once worked out.
        self.shown_points: list[tuple] | None = None
        self.fields["winner"].choices = [(str(p.seat), p.name) for p in players] + [
            (BLOCKED, _("Nobody: blocked round"))
        ]
        if not self.is_bound:
            self.initial.setdefault("key", secrets.token_urlsafe(16))
        self.initial["players"] = self.seat_list

    @cached_property
    def hands(self) -> list[HandForm]:
        """A HandForm a player playing, in seat order. Made when first asked for: a fresh
        form's rows often come kept (_round_form.html), and six HandForms copy 30 fields.
        A hand's own refusals name its player by seat (rules.RulesError.for_player): the
        names by seat, never by place among those playing, which a leave shifts."""
        names = [""] * self.seat_count
        for player in self.players:
            names[player.seat] = player.name
        return [
            HandForm(
                self.data if self.is_bound else None,
                initial={
                    name: self.initial[f"{name}_{player.seat}"]
                    for name in HandForm.base_fields
                    if f"{name}_{player.seat}" in self.initial
                },
                player=player,
                names=names,
                house_rules=self.rules,
            )
            for player in self.players
        ]

    @classmethod
    def initial_for(cls, round_: Round, entry: RoundEntry) -> dict:
        """The initial data that shows `entry`, stored as `round_`, again (for editing it)."""
        return {
            **cls.initial_showing(entry),
            "for_round": round_.number,
            "round": round_.pk,
            "revision": round_.revision,
        }

    @classmethod
    def initial_showing(cls, entry: RoundEntry) -> dict:
        """The initial data of a form that shows `entry` (a round taken back to be put right)."""
        initial: dict = {
            "winner": BLOCKED if entry.blocked else str(entry.winner),
            "hand_rummy": entry.hand_rummy,
        }
        for seat, hand in enumerate(entry.hands):
            if hand is None:  # a player not playing the round
                continue
            initial[f"cards_{seat}"] = " ".join(hand.cards)
            initial[f"value_{seat}"] = hand.value
            # In a hand rummy nobody had opened, and no box says so: the round form implies
            # it. Ticked here, the boxes would stay ticked, hidden, if the round were made a
            # normal one, and every opponent would pay the never-opened penalty.
            initial[f"not_opened_{seat}"] = not hand.opened and not entry.hand_rummy
        return initial

    # The seats in the order the deal goes round (Scoreboard.deal_order), set on the game page:
    # its rows, the board's, in the order the players now sit in.
    deal_order: tuple[int, ...] = ()

    def seats(self) -> list[dict]:
        """The bound fields of each player, for the template, and whether anything was typed in
        the hand. Once worked out (`shown_points`), the points and how a never-opened hand's came
        about. In the order of the deal (`deal_order`) when it is set, else in seat order."""
        if self.is_bound:
            self.errors  # noqa: B018 (the round cleaned before its hands: see clean())
        shown = self.shown_points or [(None, None)] * len(self.players)
        place = {seat: position for position, seat in enumerate(self.deal_order)}
        rows = [
            {
                "player": hand.player,
                "cards": hand["cards"],
                "value": hand["value"],
                "not_opened": hand["not_opened"],
                "typed": hand.typed,
                "winner_choice": self["winner"][index],
                "points": points,
                "explain": explain,
            }
            for index, (hand, (points, explain)) in enumerate(zip(self.hands, shown, strict=True))
        ]
        # A player the deal no longer goes to (who left since) after those it goes to.
        last = len(place)
        return sorted(
            rows, key=lambda row: place.get(row["player"].seat, last + row["player"].seat)
        )

    @property
    def rows_key(self) -> str:
        """A digest of what a fresh form's rows show besides each player's standing: the
        players playing (id, seat, name), the seats, the target and the house rules.
        _round_form.html keeps a fresh form under it (with the deal's order, the language and
        the links), and draws the standings into its rows afresh: a save changes the standings,
        not the form."""
        players = [(player.pk, player.seat, player.name) for player in self.players]
        content = repr((players, self.seat_count, self.target, self.rules))
        return hashlib.blake2b(content.encode(), digest_size=16).hexdigest()

    @property
    def names(self) -> list[str]:
        return [player.name for player in self.players]

    @property
    def seat_list(self) -> str:
        """The seats of the players the form shows, as its hidden `players` says them."""
        return " ".join(str(player.seat) for player in self.players)

    @staticmethod
    def seats_drawn(data) -> frozenset[int] | None:
        """The seats of the rows a page's round form shows, from its `players` as it was
        posted (or sent with a poll): None from a page that does not say them."""
        drawn = data.get("players")
        if drawn is None:
            return None
        return frozenset(int(seat) for seat in drawn.split() if seat.isdecimal() and len(seat) < 3)

    # The refusal of the round as a whole that this form shows, when it is a conflict with
    # another phone's change (rules.Code.PLAYERS_CHANGED): the view answers it with its status.
    conflict: rules.RulesError | None = None

    def is_valid(self) -> bool:
        return super().is_valid() and all(hand.is_valid() for hand in self.hands)

    def _players_changed(self) -> rules.RulesError | None:
        """Whether the form was drawn for other players than it has now. Its `players` says
        other seats (a player left or joined on another phone since); or, from a page that does
        not say them, a hand is typed for a seat not playing."""
        drawn = self.data.get("players")
        if drawn is not None:
            if drawn == self.seat_list:
                return None
            # The form drawn again is for the players now: saved again, it counts.
            self.data = self.data.copy()
            self.data["players"] = self.seat_list
            return rules.Conflict(rules.Code.PLAYERS_CHANGED)
        playing = {player.seat for player in self.players}
        for seat in range(self.seat_count):
            typed = self.data.get(f"cards_{seat}") or self.data.get(f"value_{seat}")
            if seat not in playing and typed:
                return rules.RulesError(rules.Code.NOT_PLAYING)
        return None

    def clean(self):
        cleaned = super().clean()
        # The key is the page's own (secrets.token_urlsafe): anything else is dropped, and the
        # event that records the round keeps at most 64 characters of it.
        cleaned["key"] = re.sub(r"[^A-Za-z0-9_-]", "", cleaned.get("key", ""))[:64]
        choice = cleaned.get("winner")
        changed = self._players_changed()
        if changed is not None:
            # Said above the form, which now shows who plays, with what was typed for them.
            self.refused(changed)
            self.conflict = changed if isinstance(changed, rules.Conflict) else None
            choice = None
        if choice is None:
            for hand in self.hands:
                hand.asked = False
            return cleaned
        # The rules see the round's players in order: the winner by their place among them.
        seats = [player.seat for player in self.players]
        winner_seat = None if choice == BLOCKED else int(choice)
        winner = None if winner_seat is None else seats.index(winner_seat)
        hand_rummy = bool(cleaned.get("hand_rummy"))
        hands: list[rules.Hand | None] = []
        for position, form in enumerate(self.hands):
            form.asked = position != winner
            hand = form.cleaned_data["hand"] if form.is_valid() else None
            if hand is not None and hand_rummy and position != winner:
                # An opponent of a hand rummy had, by definition, never opened: no box to tick.
                hand = replace(hand, opened=False)
            hands.append(hand)
        # Every player's errors at once, not only the first that the rules would refuse: the
        # deck check's too, next to each player holding a card the deck no longer has.
        kind_refused = False
        for error in rules.round_errors(hands, winner, hand_rummy, self.rules):
            self.refused(error)
            if error.player is None:
                kind_refused = True
            else:
                hands[error.player] = None
        if kind_refused:  # a blocked round called a hand rummy has no points, even so far
            return cleaned
        cleaned["typed"] = (hands, winner, hand_rummy)
        if None not in hands:
            by_seat: list[rules.Hand | None] = [None] * self.seat_count
            for seat, hand in zip(seats, hands, strict=True):
                by_seat[seat] = hand
            cleaned["entry"] = RoundEntry(tuple(by_seat), winner_seat, hand_rummy)
        return cleaned

    def typed_round(self) -> tuple[list[rules.Hand | None], int | None, bool] | None:
        """The round typed so far, for rules.points_so_far: the hands (None: not typed yet, or
        typed wrong), who went out, whether a hand rummy. None until the round's kind is right."""
        return self.cleaned_data.get("typed") if self.is_bound else None

    def refused(self, error: rules.RulesError, field: str | None = None) -> None:
        """A player's error next to their hand; any other on the hand-rummy box, or above
        the form. The rules number the round's players by their place among those playing
        (`error.player`), the hand's words name them by seat: after a leave or a join in the
        middle of the deal, a place is another seat."""
        if field is None and error.player is not None:
            hand = self.hands[error.player]
            hand.refused(error.for_player(hand.player.seat))
        else:
            super().refused(error, field)

    def field_for(self, error: rules.RulesError) -> str | None:
        if error.code == rules.Code.HAND_RUMMY_BLOCKED:
            return "hand_rummy"
        return None
