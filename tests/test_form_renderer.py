"""rami_site/form_renderer.py writes Django's <input> templates in Python: what it draws must be
what Django's own templates draw, for every input of the app's forms, typed values included."""

import pytest
from django.forms.renderers import DjangoTemplates

from rami_site.form_renderer import FormRenderer
from scoring.forms import RoundForm, StartForm
from scoring.models import Game

pytestmark = pytest.mark.django_db

TYPED = {
    "winner": "1",
    "hand_rummy": "on",
    "for_round": "3",
    "key": 'k"<&>',
    "cards_0": 'AH "JK" <5C> & 10h',
    "value_2": "17",
    "not_opened_3": "on",
}


def drawn(form) -> list[str]:
    """Every input the templates draw: each field, and each radio button alone and labelled."""
    html = [str(field) for field in form]
    for choice in form["winner"]:
        html += [choice.tag(), str(choice)]
    return html


@pytest.mark.parametrize("data", [None, TYPED, {"winner": "nobody", "value_1": "-3"}])
def test_round_form_inputs_are_drawn_as_django_draws_them(data):
    game = Game.start(["Ana", 'Bo"ris', "<Cyril>", "D&na"])
    players = list(game.players.order_by("seat"))

    def form(renderer):
        made = RoundForm(data, players=players, target=300, renderer=renderer)
        made.initial["key"] = "the-same-key"
        if data:
            made.is_valid()
        return made

    assert drawn(form(FormRenderer())) == drawn(form(DjangoTemplates()))


def test_start_form_inputs_are_drawn_as_django_draws_them():
    data = {"player_0": "Ana", "player_1": '"Bo" <b>', "player_2": "a" * 40}
    for bound in (None, data):
        ours, django = (StartForm(bound, renderer=r) for r in (FormRenderer(), DjangoTemplates()))
        assert drawn_start(ours) == drawn_start(django)


def drawn_start(form) -> list[str]:
    form.is_bound and form.is_valid()
    return [str(field) for field in form]
