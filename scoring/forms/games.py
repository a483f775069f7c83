"""The forms that start a game and its rematch, with the house rules a game or a table may set."""

from __future__ import annotations

from collections.abc import Sequence

from django import forms
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.forms.common import ShowsRefusals
from scoring.forms.players import NameRow
from scoring.models import Game
from scoring.rules import house_rules
from scoring.rules.messages import MESSAGES


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
