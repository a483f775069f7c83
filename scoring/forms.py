"""Forms for starting a game and entering a round. Every rule is checked by scoring.rules;
a form only turns inputs into rules.Hand values and puts the engine's errors next to the
player concerned."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django import forms
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from scoring import rules
from scoring.models import Game, Player, Round, Seating
from scoring.rules import RoundEntry, house_rules
from scoring.rules.cards import read_typed
from scoring.rules.errors import MESSAGES, round_form_message, rules_error_message
from scoring.web.http import whole_number

BLOCKED = "blocked"
# The rules' errors about a typed hand value, shown under the value field.
VALUE_ERRORS = {
    rules.Code.NOT_A_NUMBER,
    rules.Code.NEGATIVE_VALUE,
    rules.Code.VALUE_TOO_LARGE,
    rules.Code.VALUE_TOO_SMALL,
}


class ShowsRefusals:
    """A form that shows the rules' refusals (a RulesError of any kind) where they belong:
    `refused(error)` is the one way a form takes one. Each form says beside which field
    (`field_for`; None is the top of the form) and which players' names the words may use
    (`refusal_names`); the words are the catalogue's (scoring/errors.py)."""

    def field_for(self, error: rules.RulesError) -> str | None:
        return None

    def refusal_names(self) -> Sequence[str]:
        return ()

    def refusal_message(self, error: rules.RulesError) -> str:
        return rules_error_message(error, self.refusal_names())

    def refused(self, error: rules.RulesError, field: str | None = None) -> None:
        """Show `error` beside `field` when given, else where the form says it belongs."""
        self.add_error(field or self.field_for(error), self.refusal_message(error))


class HouseRulesForm(ShowsRefusals, forms.Form):
    """A form that sets house rules: the start form's for a game, a table's for its
    games (when it starts, and later on its rules page), and the rules of one game started at
    a table. `cleaned_data["house_rules"]` is the rules.Rules typed (None when a value is
    wrong; the error is next to it).

    The fields are prefilled with `house_rules` (None: the seeds'), which a post without them
    (a script's) plays by. A form whose rules may change while its page is shown (a table's
    new game) sets `show_hidden_initial` on its rule fields. The page then carries each value
    as it showed it (shown_values), and rules_changed tells what was typed from what another
    phone changed meanwhile."""

    def __init__(self, *args, house_rules: rules.Rules | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.shown_rules = house_rules or rules.SEEDS
        self._add_house_rule_fields()

    def house_rule_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in house_rules.FIELDS]

    def shown_values(self) -> str:
        """The hidden inputs of each rule's value as the page showed it, for the fields that
        keep it (show_hidden_initial); the page lays out some fields choice by choice, so
        they are written together here rather than beside each field."""
        return format_html_join(
            "",
            "{}",
            (
                (field.as_hidden(only_initial=True),)
                for field in self.house_rule_fields()
                if field.field.show_hidden_initial
            ),
        )

    def rules_changed(self) -> bool:
        """Whether a rule was typed differently from the value the page showed (a form sent
        without the rules, a script's, changes none)."""
        if not self.is_bound or not self["rules_shown"].data:
            return False
        return any(name in self.changed_data for name in house_rules.FIELDS)

    def house_rules_open(self) -> bool:
        """Unfold the house rules when one needs fixing, or changed from what the page showed."""
        return self.rules_changed() or any(field.errors for field in self.house_rule_fields())

    def _add_house_rule_fields(self) -> None:
        """The house rules in their words (house_rules.in_words), prefilled with
        `shown_rules`. `rules_shown` tells a form that carried them from a post that did not
        (a script's): that one plays by `shown_rules`."""
        self.fields["rules_shown"] = forms.BooleanField(
            widget=forms.HiddenInput, required=False, initial=True
        )
        for rule in house_rules.in_words(self.shown_rules):
            if rule.name == "not_opened_cap_half_target":
                field = forms.BooleanField(label=rule.label, required=False)
            elif rule.name == "hand_rummy":
                field = forms.ChoiceField(
                    label=rule.label,
                    choices=house_rules.HAND_RUMMY_CHOICES,
                    widget=forms.RadioSelect,
                    required=False,
                )
            else:
                low, high = rules.Rules.RANGES[house_rules.RULE_KEYS.get(rule.name, rule.name)]
                field = forms.CharField(
                    label=rule.label,
                    help_text=rule.unit,
                    required=False,
                    widget=forms.NumberInput(
                        attrs={"inputmode": "numeric", "min": low, "max": high}
                    ),
                )
            field.validators = []
            self.fields[rule.name] = field
            self.initial[rule.name] = rule.value

    def _house_rules(self, cleaned: dict) -> rules.Rules | None:
        """The rules the form sets (the seeds' value where one is left empty and may not be),
        or None, with our message next to each value that is out of range."""
        if not cleaned.get("rules_shown"):
            return self.shown_rules
        values: dict = {
            "not_opened_cap_half_target": bool(cleaned.get("not_opened_cap_half_target"))
        }
        for name in house_rules.FIELDS:
            if name in ("not_opened_cap_half_target", "hand_rummy"):
                continue
            key = house_rules.RULE_KEYS.get(name, name)
            text = str(cleaned.get(name) or "").strip()
            if not text:
                value = None if key in rules.Rules.MAY_BE_NONE else getattr(rules.SEEDS, key)
            else:
                try:
                    value = int(text)
                except ValueError:
                    value = text
            try:
                rules.Rules(**{key: value})
            except rules.RulesError as error:
                self.refused(error, name)
                continue
            values[key] = value
        if cleaned.get("hand_rummy") == rules.Rules.DOUBLE:
            values["hand_rummy"] = rules.Rules.DOUBLE
        if any(name in self.errors for name in house_rules.FIELDS):
            return None
        return rules.Rules(**values)

    def clean(self):
        cleaned = super().clean()
        cleaned["house_rules"] = self._house_rules(cleaned)
        return cleaned


class StartForm(HouseRulesForm):
    """Two to six player names (the first four fields shown, two more on demand), who deals
    first, and the house rules."""

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
        # The name field (its index) of the player who deals the first round: a radio button
        # on each name's row, the first one chosen unless another is.
        self.fields["first_dealer"] = forms.TypedChoiceField(
            choices=[(index, index + 1) for index in range(self.FIELDS)],
            coerce=int,
            empty_value=None,
            required=False,
            initial=0,
            error_messages={"invalid_choice": MESSAGES["first_dealer_unknown"]},
        )

    def name_fields(self) -> list[forms.BoundField]:
        return [self[f"player_{index}"] for index in range(self.FIELDS)]

    def name_rows(self) -> list[NameRow]:
        """Each name field with its "deals first" choice, as the page shows them."""
        chosen = self["first_dealer"].value()
        chosen = "0" if chosen in (None, "") else str(chosen)
        return [
            NameRow(field, index, str(index) == chosen)
            for index, field in enumerate(self.name_fields())
        ]

    def more_players_open(self) -> bool:
        """Whether the fields of players 5 and 6 show unfolded: when one of them holds a
        name, an error or the first deal."""
        return any(
            row.field.value() or row.field.errors or row.deals_first
            for row in self.name_rows()[self.SHOWN :]
        )

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
            # The player it names is the nth name typed: beside that row.
            self.refused(
                error, None if error.player is None else f"player_{filled[error.player][0]}"
            )
        cleaned["first_dealer"] = self._first_dealer(cleaned.get("first_dealer"), filled)
        return cleaned

    def _first_dealer(self, chosen: int | None, filled: list[tuple[int, str]]) -> int:
        """The seat of the player chosen to deal first (the first name when the post chose
        none, as a script's may not), or an error on the chosen row when it has no name."""
        if chosen is None:
            return 0
        rows = [index for index, _name in filled]
        if chosen not in rows:
            self.refused(rules.RulesError(rules.Code.FIRST_DEALER_UNNAMED), f"player_{chosen}")
            return 0
        return rows.index(chosen)


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
    """A player who joins a game under way (SPEC 1.5, Game.join): their name, who they sit
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
        self.fields["start"].help_text = _("%(points)s points unless you type another total") % {
            "points": start
        }
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


class RematchForm(ShowsRefusals, forms.Form):
    """Who plays the next game (models.rematch): each player of this one, ticked when they
    play at its end (not those who left), and a name to add. `choosing` tells this form's
    post from a plain Rematch button's (a page of the release before), which keeps those
    playing."""

    plays = forms.TypedMultipleChoiceField(
        label=_("Who plays again?"), coerce=int, required=False, widget=forms.CheckboxSelectMultiple
    )
    add = forms.CharField(
        label=_("Add a player"),
        required=False,
        # No max_length: rules.check_names counts the characters a name keeps.
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "words"}),
    )
    choosing = forms.CharField(widget=forms.HiddenInput, initial="1", required=False)

    def __init__(self, data=None, *, game: Game) -> None:
        super().__init__(data, initial={"plays": [player.seat for player in game.playing]})
        self.players = game.seated_players
        self.fields["plays"].choices = [(player.seat, player.name) for player in self.players]
        self.fields["add"].validators = []

    def chosen(self) -> tuple[list[int], list[str]]:
        """The seats ticked and the names added (none, or the one typed)."""
        added = (self.cleaned_data.get("add") or "").strip()
        return self.cleaned_data.get("plays", []), [added] if added else []

    def refusal_names(self) -> Sequence[str]:
        """The next game's names in their order (as rules.check_names numbers them)."""
        seats, added = self.chosen()
        named = {player.seat: player.name for player in self.players}
        return [named[seat] for seat in seats] + added

    def field_for(self, error: rules.RulesError) -> str | None:
        if error.player is not None and error.player >= len(self.chosen()[0]):
            return "add"
        return None


WINNER_MISSING = _("Tap who went out, or “Nobody: blocked round”.")


class HiddenNumber(forms.IntegerField):
    """A number that the page itself fills in (never typed): one that a form garbles is taken
    as none given, rather than an error nobody could see or fix."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, **kwargs)

    def to_python(self, value):
        return whole_number(value)


class TypedText(forms.CharField):
    """Text typed in a round form, never required, that a reader of the rules checks. Not
    Django's "Null characters are not allowed" (a message without a player): a NUL is an
    unknown card, or not a number, which the rules say next to the player."""

    def __init__(self, **kwargs) -> None:
        super().__init__(required=False, **kwargs)
        self.validators = []


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
        # The players of the round (those playing: SPEC 1.5), and how many seats the game has.
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
        # A hand's own refusals name its player by seat (rules.RulesError.for_player): the
        # names by seat, never by place among those playing, which a leave shifts.
        names = [""] * self.seat_count
        for player in players:
            names[player.seat] = player.name
        self.hands = [
            HandForm(
                data,
                initial={
                    name: self.initial[f"{name}_{player.seat}"]
                    for name in HandForm.base_fields
                    if f"{name}_{player.seat}" in self.initial
                },
                player=player,
                names=names,
                house_rules=house_rules,
            )
            for player in players
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
    def names(self) -> list[str]:
        return [player.name for player in self.players]

    @property
    def seat_list(self) -> str:
        """The seats of the players the form shows, as its hidden `players` says them."""
        return " ".join(str(player.seat) for player in self.players)

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
