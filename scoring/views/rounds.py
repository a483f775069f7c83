"""The changes the game page makes, each a POST of its own from the edit link: save a round,
preview its points, correct a round taken back, replace one another phone saved first, delete
one, undo a change, rematch. Each answers with the game page (for htmx, its #game_body part)
or, without JavaScript, a 303 to the page; a refusal is raised with the page that says why
(game_change). Every change is made by this phone (scoring.web.phones), through the Game's own
methods. And the round's own page, to edit it (round_page)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from scoring import rules
from scoring.board import history
from scoring.board.scoreboard import Scoreboard
from scoring.forms import RematchForm, RoundForm
from scoring.models import Game, GameEvent, Round
from scoring.models import rematch as rematch_game
from scoring.rules.messages import rules_error_message
from scoring.views.games import (
    edited_game,
    filled_with,
    fixing_page,
    followed,
    following_game,
    game_or_404,
    game_response,
    number,
    player_page,
    posted_round_form,
    refused_page,
    round_form,
    saved_page,
    tell_new_game,
    with_points,
)
from scoring.web import following, http, limits, phones
from scoring.web.http import HtmxHttpRequest, redirect

# A change to the game from its edit link: a refusal that the view does not answer itself is
# raised with the game page that says why; an event that is not the game's is a 404.
game_change = http.change_view(find=edited_game, page=refused_page, part="game_body")


def _page_after(request: HtmxHttpRequest, game: Game, query: str = "") -> HttpResponse:
    """The game after a change: its page for htmx (cut to #game_body), else a 303 to it."""
    if request.htmx:
        return game_response(request, game)
    return redirect(request, reverse("game", args=[game.edit_token]) + query)


@game_change
def save(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A new round: the new standing with the round just saved and its Undo. A round typed
    wrong comes back with everything typed kept and every error shown at once; one that is
    not recorded says why, or, taken first by another phone, shows both (_taken_first)."""
    form = round_form(game, request.POST)
    if not form.is_valid():
        page = game_response(request, game, with_points(game, form))
        if form.conflict:  # the form drawn before another phone's change: 409
            raise http.Refused(form.conflict, page)
        return page
    try:
        saved = game.record_round(
            form.cleaned_data["entry"],
            key=form.cleaned_data.get("key") or "",
            for_round=form.cleaned_data.get("for_round"),
            phone=phones.of(request),
        )
    except rules.RoundTaken as error:
        return _taken_first(request, game, form, error)
    except rules.RulesError as error:
        # A refusal (the game over, its 500 rounds): the page says why, everything typed kept.
        form.refused(error)
        raise http.Refused(error, game_response(request, game, form), on_form=True) from None
    if request.htmx:
        return saved_page(request, game, Scoreboard.for_game(game), saved.pk, "saved")
    return redirect(request, f"{reverse('game', args=[game.edit_token])}?saved={saved.pk}")


def _taken_first(
    request: HtmxHttpRequest, game: Game, form: RoundForm, error: rules.RoundTaken
) -> HttpResponse:
    """Another phone saved the round this form was for first. When it is this very
    round (the same hands, as happens when two people at the table enter it), it counts as
    saved here too. The phone is offered to save the one typed here as the next round all the
    same (the rare next deal that came out alike). Otherwise the form comes back (409) with
    everything typed and the two versions side by side for the players whose hands differ.
    It offers three choices: keep the saved one, replace it with this one (`replace`), or
    save this one as the next round (the form now says that number)."""
    entry = form.cleaned_data["entry"]
    taken, following = error.details["number"], error.details["next"]
    board = Scoreboard.for_game(game)
    for row in board.rounds[taken - 1 :]:
        if row.round.entry().same_round(entry):
            offer = _next_deal(request, following)
            return saved_page(request, game, board, row.round.pk, "elsewhere", next_deal=offer)
    saved = board.rounds[taken - 1]
    data = request.POST.copy()
    data["for_round"] = str(following)
    # The replace button's round: the one saved first, as this answer shows it.
    data["round"], data["revision"] = saved.round.pk, saved.round.revision
    form = with_points(game, round_form(game, data))
    conflict = {"number": taken, "next": following, "differences": board.differences(saved, entry)}
    raise http.Refused(error, game_response(request, game, form, board=board, conflict=conflict))


def _next_deal(request: HtmxHttpRequest, number: int) -> dict:
    """The round typed on this phone, as it was posted, to be saved as round `number` with one
    tap (its key kept: two taps record it once)."""
    fields = [
        (name, value)
        for name, value in request.POST.items()
        if name not in ("csrfmiddlewaretoken", "action", "for_round", "typing", "fixing")
    ]
    return {"number": number, "fields": [*fields, ("for_round", str(number))]}


@game_change
def preview(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The points of the round as typed so far, and its errors (the #preview part), in the
    rows the phone's form has (its `players`): one typed in while the players changed (kept
    as typed, with a notice) has no row for a newcomer, nor a place for their points."""
    form = with_points(game, posted_round_form(game, request.POST))
    context = {"game": game, "form": form, "seats_shown": RoundForm.seats_drawn(request.POST)}
    return TemplateResponse(request, "scoring/game.html#preview", context)


def round_as_seen(data, number_field: str = "number") -> Round:
    """The round a posted change is about, as the phone saw it: its id, number and revision
    (Game.delete_round and Game.edit_round check them against the round as it is)."""
    return Round(
        pk=number(data.get("round")),
        number=number(data.get(number_field)),
        revision=number(data.get("revision")),
    )


def _store_again(request: HtmxHttpRequest, game: Game, taken_back: bool) -> HttpResponse:
    """The round form stored in a round already saved: one this phone took back to put right
    (`taken_back`: kept in the history as corrected), or one another phone saved first,
    replaced with the one typed here (an edit). Either is one change with its own Undo. A
    form with an error comes back as typed; a round changed or deleted since is refused (409)
    with the form kept, now showing that round's new revision, so that saving again replaces
    it knowingly."""
    form = posted_round_form(game, request.POST)
    # A round taken back names its number as the round form does (`for_round`).
    seen = round_as_seen(request.POST, "for_round" if taken_back else "number")
    if not form.is_valid():
        form = with_points(game, form)
        if taken_back:
            return fixing_page(request, game, seen, form)
        return game_response(request, game, form)
    kind = GameEvent.Kind.CORRECTED if taken_back else GameEvent.Kind.EDITED
    try:
        round_ = game.edit_round(seen, form.cleaned_data["entry"], phones.of(request), kind)
    except rules.RulesError as error:
        now = game.rounds.filter(pk=seen.pk).first()
        if now is None or not taken_back:
            raise
        data = request.POST.copy()
        data["revision"], data["for_round"] = now.revision, now.number
        form = with_points(game, posted_round_form(game, data))
        refused = rules_error_message(error, game.names)
        page = fixing_page(request, game, now, form, refused=refused)
        raise http.Refused(error, page, on_form=True) from None
    if request.htmx:
        return saved_page(request, game, Scoreboard.for_game(game), round_.pk, "changed")
    return redirect(request, f"{reverse('game', args=[game.edit_token])}?changed={round_.pk}")


@game_change
def correct(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A round this phone took back (the Undo of its save), put right (_store_again)."""
    return _store_again(request, game, taken_back=True)


@game_change
def replace(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A round another phone saved first, replaced with the one typed here (_store_again)."""
    return _store_again(request, game, taken_back=False)


@game_change
def delete(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """Delete a round: its `round` id, `number` and `revision` as the phone saw them."""
    game.delete_round(round_as_seen(request.POST), phone=phones.of(request))
    return _page_after(request, game)


@game_change
def undo(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """One more change that undoes one this phone made (its `event`); a round that comes back
    (as it was before an edit, or where it was deleted) is shown as back."""
    undone = game.undo(GameEvent(pk=number(request.POST.get("event"))), phones.of(request))
    if undone.kind == GameEvent.Kind.JOINED:  # a leave undone: the player plays again
        if request.htmx:
            return player_page(request, game, undone.pk)
        return _page_after(request, game, f"?player={undone.pk}")
    if undone.round_id is None:
        return _page_after(request, game)
    if request.htmx:
        return saved_page(request, game, Scoreboard.for_game(game), undone.round_id, "back")
    return _page_after(request, game, f"?changed={undone.round_id}")


@game_change
def rematch(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The next game, with the players ticked and a name added (forms.RematchForm; a post
    without the choice keeps those playing). A new game is counted with the start page's and
    a table's (a tap on one made already only goes there); past the limit, refused (TooMany).
    Players refused (fewer than two, a name taken) stay as chosen beside why."""
    seats, added, form = None, [], None
    if "choosing" in request.POST and game.next_game_id is None:
        form = RematchForm(request.POST, game=game)
        if not form.is_valid():
            return game_response(request, game, rematch_form=form)
        seats, added = form.chosen()
    if game.next_game_id is None:
        limits.spend(request, "new-game")
    try:
        next_game = rematch_game(game, seats, added)
    except rules.Conflict:  # another phone's change came first: the game page says why
        raise
    except rules.RulesError as error:
        if form is None:  # a plain Rematch button's: no choice to say it beside
            raise
        form.refused(error)  # who plays, as chosen, beside why not
        page = game_response(request, game, rematch_form=form)
        raise http.Refused(error, page, on_form=True) from None
    tell_new_game(request, next_game)
    return redirect(request, reverse("game", args=[next_game.edit_token]))


def _round_followed(request: HtmxHttpRequest, game: Game, number: int) -> HttpResponse | None:
    """The live update of a round's page (followed), which names the round it shows (`round`,
    its id): a round that has moved (a round before it deleted or restored) is followed to its
    new address; one deleted since is left on the page as it was, whose save then says so."""
    if request.method != "GET" or following.seen(request) is None:
        return None
    if (answer := followed(request, game, editable=True)) is not None:
        return answer
    shown = http.whole_number(request.GET.get("round"))
    now = game.rounds.filter(pk=shown).values_list("number", flat=True).first()
    if now is None:
        return HttpResponse(status=204)
    if now != number:
        return redirect(request, reverse("round", args=[game.edit_token, now]))
    return None


@require_http_methods(["GET", "POST"])
def round_page(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    """Edit one round with the same form, prefilled. Template: scoring/round.html.

    The form carries the round's id and revision. A save is refused (409, everything typed
    kept) when that round has since been deleted, moved by a change to an earlier round, or
    edited on another phone. The page then shows the round as it is now, and saving again
    replaces it knowingly."""
    game = game_or_404(edit_token=token)
    if (answer := _round_followed(request, game, number)) is not None:
        return answer
    refused = None
    if request.method == "POST":
        form = posted_round_form(game, request.POST)
        if form.is_valid():
            seen = round_as_seen({**request.POST.dict(), "number": str(number)})
            try:
                game.edit_round(seen, form.cleaned_data["entry"], phones.of(request))
            except rules.RulesError as error:
                now = game.rounds.filter(pk=seen.pk).values_list("number", flat=True).first()
                if now is None:  # deleted since: the game page says so
                    raise http.Refused(error, refused_page(request, game, error)) from None
                # Moved or changed: the round as it is now, the typed form kept, its hidden
                # fields brought up to date so that the next save goes to that round.
                refused = error
                number = now
            else:
                here = reverse("game", args=[game.edit_token])
                return redirect(request, f"{here}?changed={seen.pk}")
    round_ = game.rounds.prefetch_related("hands__player").filter(number=number).first()
    if round_ is None:
        raise Http404
    if request.method == "POST":
        data = request.POST.copy()
        data["round"], data["revision"], data["for_round"] = round_.pk, round_.revision, number
        form = posted_round_form(game, data)
        form.is_valid()
    else:
        form = filled_with(game, round_)
    context = {"game": game, "form": form, "round": round_}
    if refused is None:
        if request.method == "GET":
            context |= following_game(request, game, round=str(round_.pk))
        return TemplateResponse(request, "scoring/round.html", context)
    names = game.names
    context["refused"] = rules_error_message(refused, names)
    context["now"] = history.round_as_it_was(
        round_.document(names), names, number, game.target, game.rules
    )
    page = TemplateResponse(request, "scoring/round.html", context)
    raise http.Refused(refused, page, on_form=True)
