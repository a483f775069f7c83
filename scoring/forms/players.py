"""The players page's forms: names, seats and the deal, and a player who joins or comes back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from scoring import rules
from scoring.forms.common import HiddenNumber, ShowsRefusals
from scoring.models import Player, Seating
from scoring.rules.messages import MESSAGES
from scoring.web.http import whole_number


@dataclass(frozen=True)
class NameRow:
    """One row of the start form: a name field and whether its player deals first."""

    field: forms.BoundField
    index: int
    deals_first: bool


class PlayersForm(ShowsRefusals, forms.Form):
    """The players' names during a game, each in a field prefilled with the name as it is, and
    beside it (hidden) the name the page showed. A name left as shown is not renamed, so that
    a rename made on another phone meanwhile is not undone (Game.rename_players)."""

    def __init__(self, data=None, *, players: Sequence[Player]) -> None:
        super().__init__(data)
        self.players = players
        for player in players:
            self.fields[f"name_{player.seat}"] = forms.CharField(
                label=_("Player %(number)d") % {"number": player.seat + 1},
                required=False,
                initial=player.name,
                # No max_length: rules.check_names counts the characters a name keeps.
                widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "words"}),
            )
            self.fields[f"name_{player.seat}"].validators = []
            self.fields[f"seen_{player.seat}"] = forms.CharField(
                widget=forms.HiddenInput, required=False, initial=player.name, strip=False
            )

    def rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        """(name field, hidden name as shown) for each player, in seat order."""
        return [(self[f"name_{p.seat}"], self[f"seen_{p.seat}"]) for p in self.players]

    def clean(self):
        """`names` and `seen` (seat -> name) of the names typed differently from the name
        shown. A post without a name (a script's) leaves that player's name as it is; one
        without the names shown is taken as showing them as they are."""
        cleaned = super().clean()
        cleaned["names"], cleaned["seen"] = {}, {}
        for player in self.players:
            if f"name_{player.seat}" not in self.data:
                continue
            typed = cleaned.get(f"name_{player.seat}") or ""
            seen = self.data.get(f"seen_{player.seat}", player.name)
            if rules.clean_name(typed) != seen:
                cleaned["names"][player.seat] = typed
                cleaned["seen"][player.seat] = seen
        return cleaned

    def showing(self, names: Sequence[str]) -> PlayersForm:
        """The same form, everything typed kept, as if the page had shown `names`: saved
        again, it renames knowingly over another phone's rename."""
        data = self.data.copy()
        for seat, name in enumerate(names):
            data[f"seen_{seat}"] = name
        form = PlayersForm(data, players=self.players)
        form.is_valid()
        return form

    def field_for(self, error: rules.RulesError) -> str | None:
        """A refused rename, next to the name it is about."""
        return None if error.player is None else f"name_{error.player}"

    def refusal_names(self) -> list[str]:
        return [player.name for player in self.players]


class SeatingForm(ShowsRefusals, forms.Form):
    """Who deals next and the order the deal goes round, during a game (Game.change_seating):
    one choice of player per seat, prefilled with the order as it is, and the player who deals
    the next round. Hidden beside them, the seating the page showed (`seen_dealer`,
    `seen_order`), so that a change made on another phone meanwhile is not overwritten.
    Posted with `action=seating` to the players page, apart from the names."""

    ACTION = "seating"

    def __init__(self, data=None, *, players: Sequence[Player], seating: Seating) -> None:
        super().__init__(data)
        self.players = players
        choices = [(player.seat, player.name) for player in players]
        for position in range(len(players)):
            self.fields[f"seat_{position}"] = forms.TypedChoiceField(
                label=_("Seat %(number)d") % {"number": position + 1},
                choices=choices,
                coerce=int,
                initial=seating.order[position],
                error_messages={
                    "invalid_choice": MESSAGES["seating_order"],
                    "required": MESSAGES["seating_order"],
                },
            )
        self.fields["dealer"] = forms.TypedChoiceField(
            label=_("Deals next"),
            choices=choices,
            coerce=int,
            initial=seating.dealer,
            error_messages={
                "invalid_choice": MESSAGES["seating_dealer"],
                "required": MESSAGES["seating_dealer"],
            },
        )
        self.fields["seen_dealer"] = HiddenNumber(initial=seating.dealer)
        self.fields["seen_order"] = forms.CharField(
            widget=forms.HiddenInput,
            required=False,
            initial=",".join(str(seat) for seat in seating.order),
        )

    def seats(self) -> list[forms.BoundField]:
        """The choice of player for each seat, in the order the deal goes round."""
        return [self[f"seat_{position}"] for position in range(len(self.players))]

    def clean(self):
        """`dealer`, `order` (seats, in the order chosen) and `seen`: the Seating the page
        showed, or None when the post did not say it (a script's): taken as showing the
        seating as it is."""
        cleaned = super().clean()
        cleaned["order"] = [cleaned.get(f"seat_{p}") for p in range(len(self.players))]
        seen_order = [whole_number(seat) for seat in (cleaned.get("seen_order") or "").split(",")]
        seen_dealer = cleaned.get("seen_dealer")
        cleaned["seen"] = None
        if seen_dealer is not None and None not in seen_order:
            cleaned["seen"] = Seating(seen_dealer, tuple(seen_order))
        return cleaned

    def field_for(self, error: rules.RulesError) -> str | None:
        """A refused change, next to the choice it is about (the seat chosen a second time,
        the dealer), or at the top of the form."""
        if error.code == rules.Code.SEATING_TWICE:
            return f"seat_{error.details['position']}"
        if error.code == rules.Code.SEATING_DEALER:
            return "dealer"
        return None

    def refusal_names(self) -> list[str]:
        return [player.name for player in self.players]


class JoinForm(ShowsRefusals, forms.Form):
    """A player who joins a game under way (Game.join): their name, who they sit
    after in the deal, and the total they start with (empty: the highest total of those
    playing, as the field's placeholder says)."""

    name = forms.CharField(
        label=_("Name"),
        # No max_length: rules.check_name counts the characters a name keeps.
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "words"}),
    )
    after = forms.TypedChoiceField(label=_("Sits after"), coerce=int)
    start = forms.CharField(
        label=_("Starts with"),
        required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 0}),
    )

    def __init__(
        self, data=None, *, players: Sequence[Player], after: int, start: int, **kwargs
    ) -> None:
        super().__init__(data, initial={"after": after}, **kwargs)
        self.names = [player.name for player in players]
        if "name" in self.fields:
            self.fields["name"].validators = []
        self.fields["after"].choices = [(player.seat, player.name) for player in players]
        self.fields["start"].help_text = ngettext(
            "%(points)s point unless you type another total",
            "%(points)s points unless you type another total",
            start,
        ) % {"points": start}
        self.fields["start"].widget.attrs["placeholder"] = str(start)

    def clean_start(self) -> int | None:
        text = (self.cleaned_data.get("start") or "").strip()
        if not text:
            return None
        try:
            return rules.check_start_total(int(text) if text.isascii() and text.isdigit() else text)
        except rules.RulesError as error:
            raise forms.ValidationError(self.refusal_message(error)) from None

    def field_for(self, error: rules.RulesError) -> str | None:
        return "name" if error.code.startswith("name_") else None


class ComeBackForm(JoinForm):
    """A player who left comes back (Game.come_back): who, among those who left (`seat`),
    who they sit after in the deal and the total they start with, as a join's. Its fields are
    prefixed ("back-"), beside the join's on the players page."""

    name = None
    seat = forms.TypedChoiceField(label=_("Who comes back"), coerce=int)
    field_order = ["seat", "after", "start"]

    def __init__(self, data=None, *, left: Sequence[Player], **join) -> None:
        super().__init__(data, prefix="back", **join)
        self.fields["seat"].choices = [(player.seat, player.name) for player in left]

    def field_for(self, error: rules.RulesError) -> str | None:
        return None
