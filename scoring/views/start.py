"""The start page: a new game, this browser's recent games and tables. Template:
scoring/start.html; its #target_line part is the target for the names typed so far."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_http_methods, require_POST

from scoring import rules
from scoring.board import statistics
from scoring.forms import StartForm
from scoring.models import Game
from scoring.web import http, limits, recent
from scoring.web.http import HtmxHttpRequest, redirect

# The page lists this browser's recent games and tables by their edit links: no cache may keep
# it, as none may keep a page reached by a token (rami_site.middleware).
_KEPT_PRIVATE = {"private": True, "no_store": True}


def private(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Django's cache_control(private=True, no_store=True), on the page of a refusal too."""

    @wraps(view)
    @cache_control(**_KEPT_PRIVATE)
    def kept_private(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except http.Refused as refused:
            patch_cache_control(refused.page, **_KEPT_PRIVATE)
            raise

    return kept_private


@require_http_methods(["GET", "POST"])
@private
def start(request: HtmxHttpRequest) -> HttpResponse:
    """Start a game with 2 to 6 players, who deals first and the house rules; this browser's
    recent games and tables. One client starts at most RAMI_NEW_GAMES_PER_MINUTE games a
    minute (scoring/web/limits.py); past that, the form comes back with the names typed, an
    error, status 429 and Retry-After."""
    form = StartForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            limits.spend(request, "new-game")
            game = Game.start(
                form.cleaned_data["names"],
                first_dealer=form.cleaned_data["first_dealer"],
                house_rules=form.cleaned_data["house_rules"],
            )
        except rules.RulesError as error:
            form.refused(error)
            raise http.Refused(error, start_page(request, form), on_form=True) from None
        return redirect(request, reverse("game", args=[game.edit_token]))
    return start_page(request, form)


def start_page(request: HtmxHttpRequest, form: StartForm) -> TemplateResponse:
    games = recent.games(request)
    context = {
        "form": form,
        **_target_line(form),
        "more_players_open": form.more_players_open(),
        "recent": games,
        "wins": statistics.wins_per_name([game for game, _kind in games]),
        "recent_tables": recent.tables(request),
    }
    return TemplateResponse(request, "scoring/start.html", context)


@require_POST
@private
def target(request: HtmxHttpRequest) -> HttpResponse:
    """The target line (the #target_line part) for the names and house rules typed so far."""
    form = StartForm(request.POST)
    form.is_valid()
    return TemplateResponse(request, "scoring/start.html#target_line", _target_line(form))


def _target_line(form: StartForm) -> dict:
    """`target_players`, the names typed (the four fields a new form shows, while fewer than
    two are), and their `target` under the house rules typed (the seeds' while one of them is
    wrong: its field says so). After the form's is_valid()."""
    filled = form.filled_count() if form.is_bound else 0
    players = filled if filled >= rules.MIN_PLAYERS else StartForm.SHOWN
    house = (form.cleaned_data.get("house_rules") if form.is_bound else None) or rules.SEEDS
    return {"target_players": players, "target": house.target_for(players)}


@require_POST
@private
def forget(request: HtmxHttpRequest) -> HttpResponse:
    """Take a game or a table (its `token`) off this browser's recent list; it stays."""
    response = redirect(request, reverse("start"))
    recent.forget(request, response, request.POST.get("token", ""))
    return response
