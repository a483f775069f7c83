"""Forms of a table's pages: start a table, start a game from it, change the rules
of its next games, add or rename a member, keep a finished game's group together. They only
gather what was typed; the rules of names, members and games are checked by the Table methods
(and scoring.rules under them), whose RulesError each form puts next to the field concerned
(`refused`), keeping everything typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.forms.common import HiddenNumber, ShowsRefusals
from scoring.forms.games import HouseRulesForm
from scoring.models import MAX_MEMBERS, Member, NewMember, Table


def _name_field(label, **attrs) -> forms.CharField:
    """A name as typed: no max_length and no validators (a NUL is one more invisible character
    that rules.clean_name takes out), so that the rules say what is wrong, in their words."""
    field = forms.CharField(
        label=label,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "words", **attrs}),
    )
    field.validators = []
    return field


def _filled(values, prefix: str, count: int) -> list[tuple[int, str]]:
    """(field index, name) of each `prefix`_i field holding a name. A name of invisible
    characters counts as typed: the rules say what is wrong with it."""
    named = ((index, str(values.get(f"{prefix}_{index}") or "")) for index in range(count))
    return [(index, name) for index, name in named if name.strip()]


class TableStartForm(HouseRulesForm):
    """A table's name, its first members (four fields shown, four more on demand; more can be
    added on the table's page) and the house rules of its games."""

    FIELDS = 8
    SHOWN = 4

    name = _name_field(_("Name of the table"), placeholder=_("Thursday cards"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for index in range(self.FIELDS):
            self.fields[f"member_{index}"] = _name_field(
                _("Member %(number)d") % {"number": index + 1}
            )

    def member_fields(self) -> list[forms.BoundField]:
        return [self[f"member_{index}"] for index in range(self.FIELDS)]

    def more_open(self) -> bool:
        """Whether the folded member fields hold a name (or an error) to show."""
        return any(field.value() or field.errors for field in self.member_fields()[self.SHOWN :])

    def clean(self):
        """The name and the members typed, checked as Table.start checks
        them, each error next to its field."""
        cleaned = super().clean()
        try:
            cleaned["name"] = Table.check_name(cleaned.get("name") or "")
        except rules.RulesError as error:
            self.refused(error, "name")
        typed = _filled(cleaned, "member", self.FIELDS)
        try:
            cleaned["members"] = rules.check_names(
                [name for _index, name in typed], members_at_most=MAX_MEMBERS
            )
        except rules.RulesError as error:
            if error.player is not None:
                self.refused(error, f"member_{typed[error.player][0]}")
            else:
                # No member typed: said under the first member's field.
                self.refused(error, None if typed else "member_0")
        return cleaned


class KeepTogetherForm(ShowsRefusals, forms.Form):
    """The name of the new table that a finished game moves into (empty: named after its
    players, Table.keep_together)."""

    name = _name_field(_("Name of the table"), placeholder=_("Thursday cards"))

    def clean_name(self) -> str | None:
        name = self.cleaned_data.get("name") or ""
        if not name.strip():
            return None
        try:
            return Table.check_name(name)
        except rules.RulesError as error:
            self.refused(error, "name")
            return None


class NewGameForm(HouseRulesForm):
    """Who plays today: a toggle per member who plays (toggles: not the retired), and names
    for guests or new members (a guest plays this game only; a new member joins the table; a
    retired member's name brings them back). The members' order is the seating. Folded under
    them, the rules of this game, prefilled with the table's (`house_rules`):
    `cleaned_data["own_rules"]` is the rules typed when one was changed from the page's, else
    None (the table's rules, as they are when the game starts)."""

    GUESTS = 4
    SHOWN = 2

    def __init__(
        self,
        *args,
        members: Sequence[Member],
        house_rules: rules.Rules | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, prefix="play", house_rules=house_rules, **kwargs)
        # Changed from what the page showed, not from the table's rules now: a change of the
        # table's rules on another phone meanwhile is not taken for this game's own.
        for field in self.house_rule_fields():
            field.field.show_hidden_initial = True
        self.members = list(members)
        self.fields["members"] = forms.MultipleChoiceField(
            label=_("Who plays today?"),
            choices=[(str(member.pk), member.name) for member in self.members],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )
        for index in range(self.GUESTS):
            self.fields[f"guest_{index}"] = _name_field(
                _("Guest %(number)d") % {"number": index + 1}
            )
            self.fields[f"join_{index}"] = forms.BooleanField(
                label=_("Joins the table as a member"), required=False
            )

    def toggles(self) -> list[forms.BoundWidget]:
        """The members who play, a retired one not offered. One toggled on a page from before
        they retired still plays (Table.new_game brings them back), as their name typed would."""
        offered = {str(member.pk) for member in self.members if not member.retired}
        return [toggle for toggle in self["members"] if str(toggle.data["value"]) in offered]

    def guest_rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return [(self[f"guest_{index}"], self[f"join_{index}"]) for index in range(self.GUESTS)]

    def more_open(self) -> bool:
        """Whether the folded guest rows hold a name (or an error) to show."""
        return any(
            self[f"guest_{index}"].value() or self[f"guest_{index}"].errors
            for index in range(self.SHOWN, self.GUESTS)
        )

    def clean(self):
        """`players` for Table.new_game: the members chosen (a Member each), then the
        names typed (a NewMember for those who join, else a str: a guest)."""
        cleaned = super().clean()
        chosen = set(cleaned.get("members") or [])
        players: list[Member | NewMember | str] = []
        # The field each seat comes from, to put an error about that player next to it.
        self.seat_fields: list[str] = []
        for member in self.members:
            if str(member.pk) in chosen:
                players.append(member)
                self.seat_fields.append("members")
        for index, name in _filled(cleaned, "guest", self.GUESTS):
            players.append(NewMember(name) if cleaned.get(f"join_{index}") else name)
            self.seat_fields.append(f"guest_{index}")
        cleaned["players"] = players
        cleaned["own_rules"] = cleaned.get("house_rules") if self.rules_changed() else None
        return cleaned

    def field_for(self, error: rules.RulesError) -> str | None:
        """The error of Table.new_game next to the player it names (the members' toggles, or
        the name typed), or over the form."""
        if error.player is not None and error.player < len(self.seat_fields):
            return self.seat_fields[error.player]
        return None

    def refusal_names(self) -> list[str]:
        players = self.cleaned_data.get("players", [])
        return [getattr(player, "name", player) for player in players]


class TableRulesForm(HouseRulesForm):
    """The rules of a table's next games, prefilled with its rules now (`house_rules`), and
    the table's version the page showed (`seen`), so that a change made meanwhile on another
    phone is not undone unseen (Table.change_rules)."""

    seen = HiddenNumber()

    def __init__(self, *args, table: Table, **kwargs) -> None:
        super().__init__(*args, house_rules=table.rules, initial={"seen": table.version}, **kwargs)


class MemberNameForm(ShowsRefusals, forms.Form):
    """A member's new name, or the name of a member to add: a refusal is said beside it."""

    name = _name_field(_("Name"))

    def field_for(self, error: rules.RulesError) -> str:
        return "name"
