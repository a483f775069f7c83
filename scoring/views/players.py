"""The players page of a game (its edit link): the names, and until the game is over who deals
next, the deal's order, a player leaving, joining or coming back (docs/rules.md). Each change
is a POST of its own; done, it goes back to the game page."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NoReturn

from django.contrib import messages
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET

from scoring import rules
from scoring.forms import ComeBackForm, JoinForm, PlayersForm, SeatingForm
from scoring.models import Game, GameEvent, Hand, Status, rename_players
from scoring.rules.messages import rules_error_message
from scoring.views.games import edited_game, followed, following_game, game_or_404, number
from scoring.web import http, phones
from scoring.web.http import HtmxHttpRequest, redirect


@require_GET
def players_page(request: HtmxHttpRequest, token: str) -> HttpResponse:
    game = game_or_404(edit_token=token)
    if (answer := followed(request, game, editable=True)) is not None:
        return answer
    page = _players_page(request, game, PlayersForm(players=game.seated_players))
    page.context_data |= following_game(request, game)
    return page


def _refused(
    request: HtmxHttpRequest, game: Game, error: rules.RulesError, card: str = "seating"
) -> TemplateResponse:
    """The page as things are now (the game read again: another phone's change may be why),
    saying why a change was not made: in the `card` of that change ("seating", "leave"), or
    at the top ("top", and once the game is over, which has no cards)."""
    now = game_or_404(edit_token=game.edit_token)
    refused = rules_error_message(error, now.names)
    return _players_page(request, now, refused=refused, refused_card=card)


def players_change(
    card: str = "seating",
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A change from the players page: a refusal it does not answer itself is raised with the
    page as things are now, saying why in `card` (_refused)."""
    return http.change_view(find=edited_game, page=partial(_refused, card=card))


@players_change()
def names(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The names posted: those changed renamed (Game.rename_players: kept in the history, every
    phone redraws), then the game page. A name refused stays as typed beside its reason; a
    player renamed on another phone since is refused (409), the form then knowing that name,
    so that saving again renames knowingly."""
    form = PlayersForm(request.POST, players=game.seated_players)
    if not form.is_valid():
        return _players_page(request, game, form)
    try:
        rename_players(
            game,
            form.cleaned_data["names"],
            seen=form.cleaned_data["seen"],
            phone=phones.of(request),
        )
    except rules.RulesError as error:
        if isinstance(error, rules.Conflict):  # a name changed on another phone: now known
            form = form.showing(game.names)
        form.refused(error)
        raise http.Refused(error, _players_page(request, game, form), on_form=True) from None
    return redirect(request, reverse("game", args=[game.edit_token]))


@players_change()
def seats(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The seats and the dealer posted (Game.change_seating): changed from the next round on,
    then the game page saying so. A choice refused stays as chosen beside its reason. A change
    made on another phone since (or a round saved there, which moves the deal on), or the
    game's end, is refused (409), the page showing the seats and the dealer as they are now."""
    seating_form = _seating_form(game, request.POST)
    if seating_form is None:
        raise rules.Conflict(rules.Code.GAME_FINISHED)
    if not seating_form.is_valid():
        return _players_page(request, game, seating_form=seating_form)
    chosen = seating_form.cleaned_data
    try:
        game.change_seating(
            chosen["dealer"], chosen["order"], seen=chosen["seen"], phone=phones.of(request)
        )
    except rules.Conflict:  # another phone's change, or the end: shown as they are now
        raise
    except rules.RulesError as error:  # a choice refused: beside it, as chosen
        seating_form.refused(error)
        page = _players_page(request, game, seating_form=seating_form)
        raise http.Refused(error, page, on_form=True) from None
    names = game.names
    said = gettext("Seats changed: %(order)s; %(dealer)s deals next.") % {
        "order": ", ".join(names[seat] for seat in chosen["order"]),
        "dealer": names[chosen["dealer"]],
    }
    messages.success(request, said)
    return redirect(request, reverse("game", args=[game.edit_token]))


@players_change(card="leave")
def leave(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The player at `seat` leaves after the last round saved (Game.leave): the game page then
    says so, with the Undo on this phone."""
    left = game.leave(number(request.POST.get("seat")), phone=phones.of(request))
    return redirect(request, reverse("game", args=[game.edit_token]) + f"?player={left.pk}")


@players_change()
def join(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A player joins before the next round (Game.join), named, seated and starting as the
    form says; the game page then says so, with the Undo on this phone. A name refused stays
    as typed beside its reason; so does a join that another phone's join made one too many
    (409: that change came first)."""
    form = _join_form(game, request.POST)
    if form is None:
        raise rules.Conflict(rules.Code.GAME_FINISHED)
    if not form.is_valid():
        return _players_page(request, game, join_form=form)
    chosen = form.cleaned_data
    try:
        player = game.join(
            chosen["name"], chosen["after"], chosen["start"], phone=phones.of(request)
        )
    except rules.RulesError as error:
        _refuse_sitting_down(request, game, error, form, "join_form")
    # The join of the player this phone just seated (a join taken back frees its seat: the
    # name tells this one's from an earlier one's).
    joined = game.events.filter(
        kind=GameEvent.Kind.JOINED, after__seat=player.seat, after__name=player.name
    ).latest("pk")
    return redirect(request, reverse("game", args=[game.edit_token]) + f"?player={joined.pk}")


@players_change(card="top")
def come_back(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A player who left comes back before the next round (Game.come_back), seated and
    starting as the form says; the game page then says so, with the Undo on this phone. One
    brought back on another phone meanwhile, or a game another join has filled, is refused
    (409) with what was typed kept."""
    form = _come_back_form(game, request.POST)
    if form is None:  # the game over, or nobody left to come back, meanwhile
        if game.status == Status.FINISHED:
            raise rules.Conflict(rules.Code.GAME_FINISHED)
        seat = http.whole_number(request.POST.get("back-seat"))
        seat = seat if seat is not None and seat < len(game.seated_players) else None
        raise rules.Conflict(rules.Code.PLAYING_ALREADY, seat)
    if not form.is_valid():
        return _players_page(request, game, back_form=form)
    chosen = form.cleaned_data
    try:
        event = game.come_back(
            chosen["seat"], chosen["after"], chosen["start"], phone=phones.of(request)
        )
    except rules.RulesError as error:
        _refuse_sitting_down(request, game, error, form, "back_form")
    return redirect(request, reverse("game", args=[game.edit_token]) + f"?player={event.pk}")


def _refuse_sitting_down(
    request: HtmxHttpRequest,
    game: Game,
    error: rules.RulesError,
    form: JoinForm,
    shown_as: str,
) -> NoReturn:
    """Raise the refusal of a join or a coming back (`form`, the players page's `shown_as`):
    over, the game has no such form any more, and says why at the top; else the form comes
    back as typed, saying why beside the name, or above the form (a refusal of the sitting
    down itself)."""
    if Game.objects.filter(pk=game.pk, status=Status.FINISHED).exists():  # over meanwhile
        raise http.Refused(error, _refused(request, game, error)) from None
    form.refused(error)
    page = _players_page(request, game, **{shown_as: form})
    raise http.Refused(error, page, on_form=form.field_for(error) is not None) from None


def _players_page(
    request: HtmxHttpRequest,
    game: Game,
    form: PlayersForm | None = None,
    seating_form: SeatingForm | None = None,
    refused: str | None = None,
    join_form: JoinForm | None = None,
    refused_card: str = "seating",
    back_form: ComeBackForm | None = None,
) -> TemplateResponse:
    finished = game.status == Status.FINISHED
    # Read once for the join's form and the coming back's.
    sitting = _sitting_down(game)
    context = {
        "game": game,
        "form": form or PlayersForm(players=game.seated_players),
        "seating_form": seating_form or _seating_form(game),
        "join_form": join_form or _join_form(game, sitting=sitting),
        "back_form": back_form or _come_back_form(game, sitting=sitting),
        # Each player playing may leave while more than two play, once they have played; the
        # others are told why not (a join is taken back by its Undo), with no Leave to tap.
        **({"leaving": [], "unplayed": []} if finished else _leaving(game)),
        # Why nobody may leave, or join, just now (the rules' own words), instead of the form.
        "no_leaving": _why_not(rules.check_leave, len(game.playing)),
        "no_joining": _why_not(rules.check_join, len(game.playing), len(game.seated_players)),
        "refused": refused,
        "refused_card": refused_card,
    }
    return TemplateResponse(request, "scoring/players.html", context)


NOBODY_PLAYED = gettext_lazy(
    "No round has been played yet: to play without someone, start a new game without them."
)


def _leaving(game: Game) -> dict:
    """Those playing who may leave (`leaving`: they have played a round), and why each of the
    others may not (`unplayed`: the rules' words, as the server would refuse it)."""
    played = set(Hand.objects.filter(player__game=game).values_list("player_id", flat=True))
    if not played:
        return {"leaving": [], "unplayed": [NOBODY_PLAYED]}
    unplayed = rules.Code.LEAVE_UNPLAYED
    return {
        "leaving": [player for player in game.playing if player.pk in played],
        "unplayed": [
            rules_error_message(rules.RulesError(unplayed, player.seat), game.names)
            for player in game.playing
            if player.pk not in played
        ],
    }


def _why_not(check, *counts: int) -> str | None:
    """What the rules say against a leave or a join now, in words; None when they allow it."""
    try:
        check(*counts)
    except rules.RulesError as error:
        return rules_error_message(error)
    return None


def _sitting_down(game: Game) -> dict | None:
    """Where one who sits down before the next round (a join, a coming back) sits and starts
    unless the form says otherwise: the players in the order of the deal, the one they sit
    after (the last to deal in the round, just before the next dealer) and the highest total
    of those playing. None once the game is over."""
    if game.status == Status.FINISHED:
        return None
    seating = game.seating_now()
    totals = game.totals()
    order = seating.order
    return {
        "players": [game.seated_players[seat] for seat in order],
        "after": order[order.index(seating.dealer) - 1],
        "start": rules.start_total(totals[player.seat] for player in game.playing),
    }


def _join_form(game: Game, data=None, sitting: dict | None = None) -> JoinForm | None:
    """Who may join, sitting where, starting with what (`sitting`, _sitting_down's when not
    given); None once the game is over."""
    sitting = sitting or _sitting_down(game)
    return JoinForm(data, **sitting) if sitting else None


def _come_back_form(game: Game, data=None, sitting: dict | None = None) -> ComeBackForm | None:
    """Who of those who left may come back, sitting where, starting with what, as a join
    (`sitting`, _sitting_down's when not given); None once the game is over or while nobody
    has left."""
    left = [player for player in game.seated_players if player.left]
    sitting = (sitting or _sitting_down(game)) if left else None
    return ComeBackForm(data, left=left, **sitting) if sitting else None


def _seating_form(game: Game, data=None) -> SeatingForm | None:
    """The seats and the dealer as they are for the next round; None once the game is over."""
    if game.status == Status.FINISHED:
        return None
    return SeatingForm(data, players=game.playing, seating=game.seating_now())
