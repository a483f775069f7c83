"""The pull: what a game page asks for when its stream tells of a newer version, or when its
version check says to (docs/architecture.md, "Live updates"). Answered with the parts of the
game page's template that change (#changes, #live)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_htmx.http import reswap

from scoring.board.scoreboard import Scoreboard
from scoring.forms import RoundForm
from scoring.live.answers import shared_answers
from scoring.models import Changes, Game, GameEvent, Status, snapshot
from scoring.views.games import Told, game_response, to_next_game
from scoring.web import http
from scoring.web.http import HtmxHttpRequest


@require_GET
@never_cache
def poll(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """Has the game changed since version `v`? Unchanged: 204 No Content, after one indexed
    query and no rendering, and htmx swaps nothing. Changed: everything else is read in one
    snapshot, so that the version the answer gives the page and the rows it sends are of the
    same moment. The answer is what Game.changes_since says the page needs (`shown`: the
    status the page shows; `rounds=all`: it shows every round). When only the rounds changed,
    it is the #changes part (the totals, the banners and the rows the page shows, whole);
    otherwise the #live part (the scoreboard, the rounds and, on the edit page, a fresh form).
    Either way only a notice when someone is typing (`typing=1`): what they tapped is never
    swapped away under their fingers. The phones of a table ask for the same #changes answer
    at once after a save: the first one's is drawn, the others' taken from shared_answers
    (those asking while it is drawn wait for it)."""
    field = "edit_token" if editable else "view_token"
    version = Game.current_version(field, token)
    if version is None:
        raise Http404
    seen = http.whole_number(request.GET.get("v"))
    if seen == version:
        return HttpResponse(status=204)
    with shared_answers.drawn_once(_asked(request, field, token, version)) as shared:
        if shared is not None:
            return reswap(HttpResponse(shared), "none")
        return _drawn(request, field, token, editable, seen)


def _drawn(
    request: HtmxHttpRequest, field: str, token: str, editable: bool, seen: int | None
) -> HttpResponse:
    """The poll's answer drawn from one snapshot (poll says which)."""
    with snapshot():
        game = Game.with_players(**{field: token})
        if game.next_game_id is not None:
            return to_next_game(request, game, editable)
        typing = request.GET.get("typing") == "1"
        all_rounds = request.GET.get("rounds") == "all"
        changes = game.changes_since(
            seen, all_rounds=all_rounds, status_shown=request.GET.get("shown", "")
        )
        if changes.what == Changes.NOTHING:
            return HttpResponse(status=204)
        # A saved round back in this phone's form: the totals beside it leave it out.
        fixing = http.whole_number(request.GET.get("fixing"))
        told: Told = {"typing": typing, "all_rounds": all_rounds}
        if editable and typing:
            told["seats_shown"] = RoundForm.seats_drawn(request.GET)
        if editable and typing and fixing is not None:
            told["fixing"] = game.rounds.prefetch_related("hands").filter(pk=fixing).first()
        if changes.what == Changes.ROUNDS:
            response = _changes(request, game, changes, editable, told).render()
            if changes.latest.kind != GameEvent.Kind.DELETED:  # whose Undo is one phone's
                shared_answers.keep(_asked(request, field, token, game.version), response)
            return response
        # Someone typing is told what changed: a round, or the players (a name, the seats).
        told["players_changed"] = typing and game.events.values_list("kind", flat=True).first() in (
            GameEvent.Kind.RENAMED,
            GameEvent.Kind.SEATED,
            *GameEvent.PLAYER_CHANGES,
        )
        template = "scoring/game.html#live"
        return game_response(request, game, editable=editable, template=template, **told).render()


def _asked(request: HtmxHttpRequest, field: str, token: str, version: int) -> tuple:
    """All that a poll's #changes answer is drawn from, besides the game at `version`: each
    value of the query as the poll reads it (a value no page sends is read as none). The key
    stays small whatever the query holds, and two queries read alike share an answer."""
    query = request.GET
    typing = query.get("typing") == "1"
    shown = query.get("shown")
    return (
        field,
        token,
        version,
        http.whole_number(query.get("v")),
        shown if shown in Status.values else None,
        query.get("rounds") == "all",
        typing,
        http.whole_number(query.get("fixing")) if typing else None,
        RoundForm.seats_drawn(query) if typing else None,
        get_language(),
    )


def _changes(
    request: HtmxHttpRequest, game: Game, changes: Changes, editable: bool, told: Told
) -> TemplateResponse:
    """The #changes part: the totals, the banners, and the rows the page shows (the latest
    Scoreboard.SHOWN_ROUNDS, with the "Show all N rounds" link), whole: what a fresh page
    shows, whatever the page had before (Scoreboard.for_changes). Everything in it goes to its
    place out of band; the scoreboard stays (HX-Reswap: none)."""
    board = Scoreboard.for_changes(game, changes)
    template = "scoring/game.html#changes"
    response = game_response(
        request, game, editable=editable, board=board, template=template, **told
    )
    return reswap(response, "none")
