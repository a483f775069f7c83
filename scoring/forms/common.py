"""What every form of the app shares: a refusal of the rules shown where it belongs
(ShowsRefusals), and the fields a page carries unseen or a player types freely.
"""

from __future__ import annotations

from collections.abc import Sequence

from django import forms

from scoring import rules
from scoring.rules.messages import rules_error_message
from scoring.web.http import whole_number


class ShowsRefusals:
    """A form that shows the rules' refusals (a RulesError of any kind) where they belong:
    `refused(error)` is the one way a form takes one. Each form says beside which field
    (`field_for`; None is the top of the form) and which players' names the words may use
    (`refusal_names`); the words are the catalogue's (scoring/rules/messages.py)."""

    def field_for(self, error: rules.RulesError) -> str | None:
        return None

    def refusal_names(self) -> Sequence[str]:
        return ()

    def refusal_message(self, error: rules.RulesError) -> str:
        return rules_error_message(error, self.refusal_names())

    def refused(self, error: rules.RulesError, field: str | None = None) -> None:
        """Show `error` beside `field` when given, else where the form says it belongs."""
        self.add_error(field or self.field_for(error), self.refusal_message(error))


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
