"""The app's forms, one module a page's concern: starting a game (games.py), the players page
(players.py), the round form (rounds.py), a table's (tables.py), and what they share
(common.py). Every rule is checked by scoring.rules; a form only turns what was typed into the
rules' values and puts a refusal beside what it concerns. This package hands their names on.
"""

from scoring.forms.common import (
    HiddenNumber,
    ShowsRefusals,
    TypedText,
)
from scoring.forms.games import (
    HouseRulesForm,
    RematchForm,
    StartForm,
)
from scoring.forms.players import (
    ComeBackForm,
    JoinForm,
    NameRow,
    PlayersForm,
    SeatingForm,
)
from scoring.forms.rounds import (
    BLOCKED,
    VALUE_ERRORS,
    WINNER_MISSING,
    HandForm,
    RoundForm,
    ShowsRoundRefusals,
)

__all__ = [
    "BLOCKED",
    "VALUE_ERRORS",
    "WINNER_MISSING",
    "ComeBackForm",
    "HandForm",
    "HiddenNumber",
    "HouseRulesForm",
    "JoinForm",
    "NameRow",
    "PlayersForm",
    "RematchForm",
    "RoundForm",
    "SeatingForm",
    "ShowsRefusals",
    "ShowsRoundRefusals",
    "StartForm",
    "TypedText",
]
