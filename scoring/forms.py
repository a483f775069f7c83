"""Forms for starting a game and entering a round. Every rule is checked by scoring.rules;
a form only turns inputs into rules.Hand values and puts the engine's errors next to the
player concerned."""

from __future__ import annotations

import re
import secrets

from django import forms
from django.utils.translation import gettext_lazy as _

from . import rules
from .errors import rules_error_message
from .models import Player, Round
from .rules import RoundEntry

BLOCKED = "blocked"
# The rules' errors about a typed hand value, shown under the value field.
VALUE_ERRORS = {"not_a_number", "negative_value", "value_too_large"}


class StartForm(forms.Form):
    """Two to six player names: the first four fields shown, two more on demand."""

    FIELDS = 6
    SHOWN = 4

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for index in range(self.FIELDS):
            self.fields[f"player_{index}"] = forms.CharField(
                label=_("Player %(number)d") % {"number": index + 1},
                required=False,
                # No max_length: rules.check_names counts the characters a name keeps.
                widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "words"}),
            )
            # Not Django's "Null characters are not allowed": a NUL is one more invisible
            # character that rules.clean_name takes out.
            self.fields[f"player_{index}"].validators = []

    def name_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{index}"] for index in range(self.FIELDS)]

    def _filled(self, values) -> list[tuple[int, str]]:
        """(field index, name) of each name field in `values` that holds a name."""
        named = ((index, str(values.get(f"player_{index}") or "")) for index in range(self.FIELDS))
        # A name of invisible characters only counts as typed: check_names says what is wrong.
        return [(index, name) for index, name in named if name.strip()]

    def filled_count(self) -> int:
        """How many name fields hold a name, as typed (at most 6)."""
        return len(self._filled(self.data))

    def clean(self):
        cleaned = super().clean()
        filled = self._filled(cleaned)
        try:
            cleaned["names"] = rules.check_names([name for _index, name in filled])
        except rules.RulesError as error:
            message = rules_error_message(error)
            if error.player is None:
                raise forms.ValidationError(message, code=error.code) from None
            self.add_error(f"player_{filled[error.player][0]}", message)
        return cleaned


WINNER_MISSING = _("Tap who went out, or “Nobody: blocked round”.")


class HiddenNumber(forms.IntegerField):
    """A number that the page itself fills in (never typed): one that a form garbles is taken
    as none given, rather than an error nobody could see or fix."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, **kwargs)

    def to_python(self, value):
        try:
            return super().to_python(value)
        except forms.ValidationError:
            return None


class RoundForm(forms.Form):
    """One round: who went out (or a blocked round), hand rummy, and a hand per player.

    A hand is typed as cards in the card notation ("AH JK 5C", filled by the card picker when
    JavaScript runs) or as a number. Hidden fields carry the round this form is for and a
    fresh key, so that sending the same form twice records the round once.
    """

    winner = forms.ChoiceField(
        label=_("Who went out?"),
        widget=forms.RadioSelect,
        error_messages={"required": WINNER_MISSING, "invalid_choice": WINNER_MISSING},
    )
    hand_rummy = forms.BooleanField(label=_("Hand rummy"), required=False)
    for_round = HiddenNumber()
    # When editing: the round's identity and the revision the form shows (Game.edit_round).
    round = HiddenNumber()
    revision = HiddenNumber()
    key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(
        self, *args, players: list[Player], target: int, preview: bool = False, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.players = players
        self.target = target
        # A preview shows the points of the hands typed so far; the others are still to come.
        self.previewing = preview
        self.untyped: set[int] = set()
        self.fields["winner"].choices = [(str(p.seat), p.name) for p in players] + [
            (BLOCKED, _("Nobody: blocked round"))
        ]
        if not self.is_bound:
            self.initial.setdefault("key", secrets.token_urlsafe(16))
        for player in players:
            seat = player.seat
            self.fields[f"cards_{seat}"] = forms.CharField(
                label=_("Cards left in %(name)s's hand") % {"name": player.name},
                required=False,
                # No max_length: rules.Hand says how many cards a hand holds at most.
                widget=forms.TextInput(
                    attrs={
                        "autocomplete": "off",
                        "autocapitalize": "characters",
                        "spellcheck": "false",
                        "placeholder": "AH JK 5C",
                        "class": "cards-text",
                    }
                ),
            )
            # Text, read by _hand: rules.Hand says what a value may be, naming the player.
            self.fields[f"value_{seat}"] = forms.CharField(
                label=_("or their value"),
                required=False,
                widget=forms.NumberInput(
                    attrs={"inputmode": "numeric", "class": "value-input", "min": 0}
                ),
            )
            self.fields[f"not_opened_{seat}"] = forms.BooleanField(
                label=_("Not opened yet"), required=False
            )
        # Not Django's "Null characters are not allowed" (a message without a player): a NUL
        # is an unknown card, or not a number, which the rules say next to the player.
        for field in self.fields.values():
            field.validators = []

    @classmethod
    def initial_for(cls, round_: Round, entry: RoundEntry) -> dict:
        """The initial data that shows `entry`, stored as `round_`, again (for editing it)."""
        initial: dict = {
            "winner": BLOCKED if entry.blocked else str(entry.winner),
            "hand_rummy": entry.hand_rummy,
            "for_round": round_.number,
            "round": round_.pk,
            "revision": round_.revision,
        }
        for seat, hand in enumerate(entry.hands):
            initial[f"cards_{seat}"] = " ".join(hand.cards)
            initial[f"value_{seat}"] = hand.value
            initial[f"not_opened_{seat}"] = not hand.opened
        return initial

    def seats(self) -> list[dict]:
        """The bound fields of each player, for the template."""
        return [
            {
                "player": player,
                "cards": self[f"cards_{player.seat}"],
                "value": self[f"value_{player.seat}"],
                "not_opened": self[f"not_opened_{player.seat}"],
                "winner_choice": self["winner"][index],
            }
            for index, player in enumerate(self.players)
        ]

    def _hand(self, seat: int, winner: int | None, hand_rummy: bool) -> rules.Hand | None:
        """The rules' Hand for a seat, or None (with the error added) when it cannot be made."""
        if seat == winner:
            # The winner went out; anything typed in that hidden hand is left aside.
            return rules.Hand()
        cards = self.cleaned_data.get(f"cards_{seat}", "")
        typed = self.cleaned_data.get(f"value_{seat}", "")
        not_opened = self.cleaned_data.get(f"not_opened_{seat}", False)
        try:
            value = int(typed) if typed else None
        except ValueError:
            error = rules.RulesError("not_a_number", seat, value=typed)
            self.add_error(f"value_{seat}", rules_error_message(error, self.names))
            return None
        if not cards.split() and value is None:
            if hand_rummy:
                # As in the exchange format, an opponent of a hand rummy needs no hand.
                return rules.Hand(opened=False)
            if self.previewing:
                self.untyped.add(seat)
                return rules.Hand(value=0, opened=not not_opened)
        try:
            return rules.Hand(cards=tuple(cards.split()), value=value, opened=not not_opened)
        except rules.RulesError as error:
            field = "value" if error.code in VALUE_ERRORS else "cards"
            message = rules_error_message(error.for_player(seat), self.names)
            self.add_error(f"{field}_{seat}", message)
            return None

    @property
    def names(self) -> list[str]:
        return [player.name for player in self.players]

    def clean(self):
        cleaned = super().clean()
        # The key is the page's own (secrets.token_urlsafe): anything else is dropped, and the
        # event that records the round keeps at most 64 characters of it.
        cleaned["key"] = re.sub(r"[^A-Za-z0-9_-]", "", cleaned.get("key", ""))[:64]
        choice = cleaned.get("winner")
        if choice is None:
            return cleaned
        winner = None if choice == BLOCKED else int(choice)
        hand_rummy = bool(cleaned.get("hand_rummy"))
        hands = [self._hand(player.seat, winner, hand_rummy) for player in self.players]
        if None in hands:
            return cleaned
        entry = RoundEntry(hands=tuple(hands), winner=winner, hand_rummy=hand_rummy)
        try:
            cleaned["points"] = entry.points(self.target)
        except rules.RulesError as error:
            message = rules_error_message(error, self.names)
            if error.player is not None:
                self.add_error(f"cards_{error.player}", message)
            elif error.code == "hand_rummy_blocked":
                self.add_error("hand_rummy", message)
            else:
                self.add_error(None, message)
            return cleaned
        cleaned["entry"] = entry
        return cleaned

    def preview(self) -> list[int | None]:
        """Each player's points for the round as typed so far (None where not yet known):
        a hand not yet typed shows none, nor does anyone in a blocked round until every hand
        is in, since the lowest hand decides it. Only for a form made with `preview=True`."""
        if not self.is_valid():
            return [None] * len(self.players)
        entry = self.cleaned_data["entry"]
        if entry.blocked and self.untyped:
            return [None] * len(self.players)
        return [
            None if seat in self.untyped else points
            for seat, points in enumerate(self.cleaned_data["points"])
        ]
