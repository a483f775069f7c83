"""A game's history: every change, newest first, with the round before and after it
(scoring/board/history.py); a deleted round restored from it, or an edited round taken back
to the version before. Template: scoring/history.html."""

from __future__ import annotations

from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from scoring import rules
from scoring.board import history
from scoring.models import Game, GameEvent, Round
from scoring.rules.messages import rules_error_message
from scoring.views.games import edited_game, followed, following_game, game_or_404, number
from scoring.web import http, phones
from scoring.web.http import HtmxHttpRequest, redirect


@require_GET
def history_page(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Every change to the game, newest first (_history), following the game live."""
    game = game_or_404(edit_token=token)
    if (answer := followed(request, game, editable=True)) is not None:
        return answer
    page = _history(request, game)
    page.context_data |= following_game(request, game)
    return page


def _history(
    request: HtmxHttpRequest,
    game: Game,
    refused: rules.RulesError | None = None,
    confirm: dict | None = None,
) -> TemplateResponse:
    """The history page. Template: scoring/history.html; context: `game`, `names`, `changes`
    (scoring.board.history.Change), `confirm` (a restore waiting for its yes) and `refused`."""
    context = {
        "game": game,
        "names": game.names,
        "changes": history.changes(game),
        "confirm": confirm,
        "refused": refused and rules_error_message(refused, game.names),
    }
    return TemplateResponse(request, "scoring/history.html", context)


# A change made from the history (a POST naming its `event`): done, the game page says the
# round "is back as it was" (_back, a 303); refused, the history again, saying why beside the
# changes it lists.
history_change = http.change_view(find=edited_game, page=_history, on_form=True)


def _back(request: HtmxHttpRequest, game: Game, round_: Round | None = None) -> HttpResponse:
    """The game page, saying that `round_` is back as it was."""
    here = reverse("game", args=[game.edit_token])
    return redirect(request, here if round_ is None else f"{here}?back={round_.pk}")


@history_change
def restore(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A deleted round (the `event` that deleted it) back: at its place while nothing has
    filled it since; else only with `as_round`, the number the confirmation showed (an extra
    round, after the others), the page first asking for it (409, nothing changed)."""
    deletion = GameEvent(pk=number(request.POST.get("event")))
    as_round = request.POST.get("as_round")
    try:
        round_ = game.restore_round(
            deletion, phones.of(request), as_round=number(as_round) if as_round else None
        )
    except rules.ConfirmFirst as error:
        confirm = {"event": deletion.pk, **error.details}
        raise http.Refused(error, _history(request, game, error, confirm)) from None
    except rules.Conflict:
        if game.events.filter(pk=deletion.pk, restored=True).exists():
            return _back(request, game)  # restored already: this form sent twice
        raise
    return _back(request, game, round_)


@history_change
def go_back(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A round back to the version it had before an edit (the `event` of that change): one
    more edit."""
    change = GameEvent(pk=number(request.POST.get("event")))
    revision = number(request.POST.get("revision"))
    return _back(request, game, game.go_back(change, revision, phones.of(request)))
