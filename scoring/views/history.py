"""A game's history: every change, newest first, with the round before and after it
(scoring/board/history.py); a deleted round restored from it, or an edited round taken back
to the version before. Template: scoring/history.html."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from scoring import rules
from scoring.board import history
from scoring.models import Game, GameEvent, Round
from scoring.rules.messages import rules_error_message
from scoring.views.games import followed, following_game, game_or_404, number
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


def history_action(
    view: Callable[[HtmxHttpRequest, Game, GameEvent], Round],
) -> Callable[..., HttpResponse]:
    """A change made from the history (a POST naming its `event`): done, the game page says
    the round "is back as it was" (a 303); refused, the history again, saying why."""

    @require_POST
    @wraps(view)
    def action(request: HtmxHttpRequest, token: str) -> HttpResponse:
        game = game_or_404(edit_token=token)
        event = GameEvent(pk=number(request.POST.get("event")))
        here = reverse("game", args=[game.edit_token])
        try:
            round_ = view(request, game, event)
        except GameEvent.DoesNotExist:
            raise Http404 from None
        except rules.ConfirmFirst as error:
            confirm = {"event": event.pk, **error.details}
            raise http.Refused(error, _history(request, game, error, confirm)) from None
        except rules.RulesError as error:
            if error.code == rules.Code.ALREADY_RESTORED:  # this form sent twice
                return redirect(request, here)
            return http.showing(error, _history(request, game, error))
        return redirect(request, f"{here}?back={round_.pk}")

    return action


@history_action
def restore(request: HtmxHttpRequest, game: Game, deletion: GameEvent) -> Round:
    """A deleted round back: at its place while nothing has filled it since; else only with
    `as_round`, the number the confirmation showed (an extra round, after the others), the
    page first asking for it (409, nothing changed)."""
    as_round = request.POST.get("as_round")
    return game.restore_round(
        deletion, phones.of(request), as_round=number(as_round) if as_round else None
    )


@history_action
def go_back(request: HtmxHttpRequest, game: Game, change: GameEvent) -> Round:
    """A round back to the version it had before an edit (`change`): one more edit."""
    return game.go_back(change, number(request.POST.get("revision")), phones.of(request))
