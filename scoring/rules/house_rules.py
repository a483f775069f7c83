"""The house rules in words, said in one place (the rules: docs/formats.md, house rules).

`in_words(house)` gives each rule as the form that sets it labels it (the start form's, a
table's), its value as a game's rules page says it, and a few words when it differs from the
players' documents' (the seeds'). `summary(house)` is those few words, for the line under a
game's target: "joker 50, ace 1, hand rummy doubles". The rules themselves are
scoring.rules.Rules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.utils.translation import get_language, gettext_lazy, ngettext, pgettext_lazy
from django.utils.translation import gettext as _

from scoring.rules import SEEDS, Rules

# The word after a number field of points (not the round form's label "points").
POINTS = pgettext_lazy("after a number field", "points")
# The house rules a game may set, in plain words: the form field of each value, by its key in
# the rules object, with the words before and after the number.
FIELDS = {
    "joker": (gettext_lazy("A joker left in hand counts"), POINTS),
    "ace": (gettext_lazy("An ace left in hand counts"), POINTS),
    "face": (gettext_lazy("A king, queen or jack left in hand counts"), POINTS),
    "not_opened_penalty": (
        gettext_lazy("A player who never opened pays"),
        gettext_lazy("points more,"),
    ),
    "not_opened_cap": (gettext_lazy("at most"), gettext_lazy("points (empty: no limit)")),
    "not_opened_cap_half_target": (gettext_lazy("and never more than half the target"), ""),
    "hand_rummy": (gettext_lazy("After a hand rummy each opponent scores"), ""),
    "hand_rummy_points": (gettext_lazy("Points for each opponent of a hand rummy"), POINTS),
    "target_per_opponent": (gettext_lazy("The target is, for each opponent,"), POINTS),
    "target": (
        gettext_lazy("or a fixed target of"),
        gettext_lazy("points (empty: it follows from the players)"),
    ),
    "jokers_in_deck": (gettext_lazy("Jokers in the deck (besides two packs of 52 cards)"), ""),
}
# The form's fields that set a value under another key of the rules object.
RULE_KEYS = {"hand_rummy_points": "hand_rummy"}
# What a hand rummy scores: the choice of the field "hand_rummy".
FIXED = "fixed"
HAND_RUMMY_CHOICES = [
    (FIXED, gettext_lazy("a fixed number of points")),
    (Rules.DOUBLE, gettext_lazy("twice the value of the cards in hand")),
]


@dataclass(frozen=True)
class RuleInWords:
    """One rule of a game, as the form, the rules page and the rules line say it.

    `name` is its form field; `label` and `unit` are the words before and after its value on
    the form. `value` is what the form field holds for it (a number, None for an empty field,
    True or False, or a hand rummy's choice). `said` is the value as the rules page says it
    (None: not said, such as the points of a hand rummy that doubles). `change` is a few words
    for the rules line when it differs from the seeds' (else None)."""

    name: str
    label: str
    unit: str
    value: int | str | bool | None
    said: str | None
    change: str | None


def in_words(house: Rules) -> list[RuleInWords]:
    """Every rule of `house`, in the order of the form, in the active language."""
    return [
        RuleInWords(name, label, unit, *_value_and_words(house, name))
        for name, (label, unit) in FIELDS.items()
    ]


def summary(house: Rules) -> list[str]:
    """The house rules that differ from the seeds', each in a few words."""
    return list(_summary(house, get_language()))


@functools.lru_cache(maxsize=256)
def _summary(house: Rules, language: str | None) -> tuple[str, ...]:
    """summary's words, kept by the rules and the language they are said in (the active one):
    every game page and every answer that draws the scoreboard says them, and saying every
    rule to keep those that changed takes some 40 translations (0.3 ms)."""
    return tuple(rule.change for rule in in_words(house) if rule.change)


def _value_and_words(house: Rules, name: str) -> tuple[object, str | None, str | None]:
    """A rule's form value, its value said, and the words of its change from the seeds'."""
    doubled = house.hand_rummy == Rules.DOUBLE
    if name == "hand_rummy":
        choice = Rules.DOUBLE if doubled else FIXED
        change = None
        if house.hand_rummy != SEEDS.hand_rummy:
            change = (
                _("hand rummy doubles")
                if doubled
                else _("hand rummy %(points)s") % {"points": house.hand_rummy}
            )
        return choice, str(dict(HAND_RUMMY_CHOICES)[choice]), change
    if name == "hand_rummy_points":
        if doubled:
            return None, None, None
        return house.hand_rummy, _points(house.hand_rummy), None
    value = getattr(house, name)
    changed = value != getattr(SEEDS, name)
    if name == "not_opened_cap_half_target":
        change = _("no half-target cap for a player who never opened")
        return value, _("yes") if value else _("no"), change if changed else None
    if name == "jokers_in_deck":
        change = ngettext("%(count)s joker in the deck", "%(count)s jokers in the deck", value)
        return value, str(value), change % {"count": value} if changed else None
    if value is None:  # no cap, or a target that follows from the players
        return None, "-", _("never opened without a cap") if changed else None
    if name == "target":
        return value, _points(value), _("fixed target %(points)s") % {"points": value}
    if name == "target_per_opponent" and house.target is not None:
        changed = False  # the fixed target says it all
    change = {
        "joker": _("joker %(points)s"),
        "ace": _("ace %(points)s"),
        "face": _("king, queen, jack %(points)s"),
        "not_opened_penalty": _("never opened +%(points)s"),
        "not_opened_cap": _("never opened at most %(points)s"),
        "target_per_opponent": _("target %(points)s per opponent"),
    }[name]
    said = _points(value)
    if name == "not_opened_penalty":
        said = f"+{said}"  # on top of the hand's value, never a flat sum
    return value, said, change % {"points": value} if changed else None


def _points(value: int) -> str:
    return ngettext("%(count)s point", "%(count)s points", value) % {"count": value}
