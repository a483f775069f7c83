"""A game's house rules said in a few words, for the line under its target: only the values
that differ from the players' documents' (the seeds'), e.g. "joker 50, ace 1, hand rummy
doubles". The rules themselves are scoring.rules.Rules."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .rules import SEEDS, Rules


def summary(house: Rules) -> list[str]:
    """The house rules that differ from the seeds', each in a few words."""
    said = []
    if house.joker != SEEDS.joker:
        said.append(_("joker %(points)s") % {"points": house.joker})
    if house.ace != SEEDS.ace:
        said.append(_("ace %(points)s") % {"points": house.ace})
    if house.face != SEEDS.face:
        said.append(_("king, queen, jack %(points)s") % {"points": house.face})
    if house.not_opened_penalty != SEEDS.not_opened_penalty:
        said.append(_("never opened +%(points)s") % {"points": house.not_opened_penalty})
    if house.not_opened_cap != SEEDS.not_opened_cap:
        if house.not_opened_cap is None:
            said.append(_("never opened without a cap"))
        else:
            said.append(_("never opened at most %(points)s") % {"points": house.not_opened_cap})
    if house.not_opened_cap_half_target != SEEDS.not_opened_cap_half_target:
        said.append(_("never opened not capped at half the target"))
    if house.hand_rummy != SEEDS.hand_rummy:
        if house.hand_rummy == Rules.DOUBLE:
            said.append(_("hand rummy doubles"))
        else:
            said.append(_("hand rummy %(points)s") % {"points": house.hand_rummy})
    if house.target is not None:
        said.append(_("fixed target"))
    elif house.target_per_opponent != SEEDS.target_per_opponent:
        said.append(_("target %(points)s per opponent") % {"points": house.target_per_opponent})
    if house.jokers_in_deck != SEEDS.jokers_in_deck:
        said.append(
            ngettext(
                "%(count)s joker in the deck",
                "%(count)s jokers in the deck",
                house.jokers_in_deck,
            )
            % {"count": house.jokers_in_deck}
        )
    return said
