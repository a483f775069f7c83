"""Views: thin glue between requests, forms, the Game methods and the templates.

Every page works with ordinary form posts and redirects; with htmx, the same views answer
with a named part of the page's own template (a Django template partial).
"""

from __future__ import annotations

import logging
from functools import cached_property, partial
from typing import TypedDict, Unpack

from django.contrib import messages
from django.core.exceptions import BadRequest
from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_http_methods

from scoring import live, rules
from scoring.board import history, statistics
from scoring.board.scoreboard import RoundRow, Scoreboard
from scoring.files import exchange, rounds_csv
from scoring.forms import PlayersForm, RoundForm, SeatingForm, StartForm
from scoring.models import (
    Changes,
    Game,
    GameEvent,
    Round,
    Status,
    rematch,
    rename_players,
    snapshot,
)
from scoring.rules import counting, house_rules
from scoring.rules.errors import rules_error_message
from scoring.web import http, limits, notices, phones, recent, sharing
from scoring.web.http import HtmxHttpRequest, redirect

logger = logging.getLogger(__name__)


@require_http_methods(["GET", "POST"])
# The page lists this browser's recent games and tables by their edit links: no cache may keep
# it, as none may keep a page reached by a token (rami_site.middleware).
@cache_control(private=True, no_store=True)
def start(request: HtmxHttpRequest) -> HttpResponse:
    """Start a game with 2 to 6 players; this browser's recent games. Template:
    scoring/start.html. POST `action=forget` takes a game off the recent list (the game stays);
    `action=target` answers with the target line (the #target_line part) for the names and
    the house rules typed so far.

    One client starts at most RAMI_NEW_GAMES_PER_MINUTE games a minute (scoring/limits.py);
    past that, the form comes back with the names typed, an error, status 429 and Retry-After.
    """
    if request.method == "POST" and request.POST.get("action") == "forget":
        response = redirect(request, reverse("start"))
        recent.forget(request, response, request.POST.get("token", ""))
        return response
    form = StartForm(request.POST or None)
    if request.method == "POST" and request.POST.get("action") == "target":
        form.is_valid()
        return TemplateResponse(request, "scoring/start.html#target_line", _target_line(form))
    if request.method == "POST" and form.is_valid():
        try:
            limits.spend(request, "new-game")
        except rules.TooMany as error:
            form.refused(error)
            raise http.Refused(error, _start_page(request, form)) from None
        game = Game.start(
            form.cleaned_data["names"],
            first_dealer=form.cleaned_data["first_dealer"],
            house_rules=form.cleaned_data["house_rules"],
        )
        return redirect(request, reverse("game", args=[game.edit_token]))
    return _start_page(request, form)


def _start_page(request: HtmxHttpRequest, form: StartForm) -> TemplateResponse:
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


def _target_line(form: StartForm) -> dict:
    """The start page's target line: `target_players`, the names typed (the four fields a new
    form shows, while fewer than two are), and their `target` under the house rules typed (the
    seeds' while one of them is wrong: its field says so). After the form's is_valid()."""
    filled = form.filled_count() if form.is_bound else 0
    players = filled if filled >= rules.MIN_PLAYERS else StartForm.SHOWN
    house = (form.cleaned_data.get("house_rules") if form.is_bound else None) or rules.SEEDS
    return {"target_players": players, "target": house.target_for(players)}


def _game_or_404(**lookup: str) -> Game:
    """The game with this token (edit_token=... or view_token=...), its players read with it
    in one query, or 404."""
    try:
        return Game.with_players(**lookup)
    except Game.DoesNotExist:
        raise Http404 from None


def _round_form(game: Game, data=None, next_round: int | None = None, **kwargs) -> RoundForm:
    """The round form for `game`'s players; a new one says the round it is for."""
    form = RoundForm(
        data, players=game.seated_players, target=game.target, house_rules=game.rules, **kwargs
    )
    if data is None and next_round is not None:
        form.initial["for_round"] = next_round
    return form


def _filled_with(game: Game, round_: Round) -> RoundForm:
    """The round form filled with a saved round, to put right, with its points shown."""
    entry = round_.entry(len(game.seated_players))
    form = _round_form(game, initial=RoundForm.initial_for(round_, entry))
    return _with_points(game, form, entry)


class Told(TypedDict, total=False):
    """What a game page tells besides the board, each only in the answers that tell it: the
    keys of its context that _game_response takes from its callers (None or False, as the
    template reads them, when not given)."""

    # The round just saved, changed or brought back, as the board's row shows it now, what the
    # page says of it (SAID), and the Undo offered for it (the latest change, this phone's).
    saved: RoundRow | None
    said: str
    undo: GameEvent | None
    # A saved round back in the form, to be put right (the Undo of a save).
    fixing: Round | None
    # Why a change was not made, in words.
    refused: str
    # Another phone saved this round first: its number, the next round's, the differences.
    conflict: dict | None
    # ... just as it was typed here: the round typed here, to save as the next one all the
    # same (`number`, and the form's `fields` as posted).
    next_deal: dict | None
    # A live update for a phone whose player is typing (a notice only), and whether what
    # changed is the players (a name, the seats).
    typing: bool
    players_changed: bool
    # The round table with every round ("Show all").
    showing_all: bool


# What the page says of a round just saved, by how (_saved): on the sheet, where each player's
# row shows the round's points beside the new total; and before the points, listed after it,
# where there is no sheet (a finished game).
SAID = {
    "saved": (gettext_lazy("Round %(number)s saved."), gettext_lazy("Round %(number)s saved:")),
    "elsewhere": (
        gettext_lazy("Round %(number)s was saved on another phone, just as you typed it."),
        gettext_lazy("Round %(number)s was saved on another phone, just as you typed it:"),
    ),
    "changed": (
        gettext_lazy("Round %(number)s changed."),
        gettext_lazy("Round %(number)s changed:"),
    ),
    "back": (
        gettext_lazy("Round %(number)s is back as it was."),
        gettext_lazy("Round %(number)s is back as it was:"),
    ),
}


class GameLinks:
    """The addresses a game's page links to, for the link it was opened by: the edit link's,
    or the watch-only link's, which hold no edit token. Each is worked out when the page
    draws it: a live update draws two of them. `table` is None for a game at no table;
    `history` and `players` are None on the watch-only link."""

    def __init__(self, game: Game, editable: bool) -> None:
        self.game = game
        self.editable = editable
        self.token = game.edit_token if editable else game.view_token

    def _to(self, edit_name: str, view_name: str) -> str:
        return reverse(edit_name if self.editable else view_name, args=[self.token])

    @cached_property
    def page(self) -> str:
        return self._to("game", "view")

    @cached_property
    def poll(self) -> str:
        return self._to("poll", "view_poll")

    @cached_property
    def csv(self) -> str:
        return self._to("export_csv", "view_export_csv")

    @cached_property
    def json(self) -> str:
        return self._to("export_json", "view_export_json")

    @cached_property
    def rules(self) -> str:
        return self._to("game_rules", "view_rules")

    @cached_property
    def history(self) -> str | None:
        return reverse("history", args=[self.token]) if self.editable else None

    @cached_property
    def players(self) -> str | None:
        return reverse("players", args=[self.token]) if self.editable else None

    @cached_property
    def table(self) -> str | None:
        table = self.game.table
        if table is None:
            return None
        if self.editable:
            return reverse("table", args=[table.edit_token])
        return reverse("table_view", args=[table.view_token])


def _game_response(
    request: HtmxHttpRequest,
    game: Game,
    form: RoundForm | None = None,
    partial: str = "",
    editable: bool = True,
    board: Scoreboard | None = None,
    **told: Unpack[Told],
) -> TemplateResponse:
    """The game page (or one of its parts: `partial`) for the edit link or, read-only, the
    view link: its context built here, the one place, from the board and what the answer
    `told` (Told). Every phone is told when the latest change to the rounds deleted one; the
    phone that deleted it is offered its Undo (Scoreboard.deletion_shown)."""
    board = board or Scoreboard.for_game(game)
    context = {
        "game": game,
        "board": board,
        "editable": editable,
        "deletion": board.deletion_shown(phones.of(request) if editable else ""),
        "links": GameLinks(game, editable),
        "live_url": reverse("live", args=[live.key_for("g", game.view_token)]),
        "house_rules": house_rules.summary(game.rules),
        # "Show all": every round, not only the latest (Scoreboard.SHOWN_ROUNDS).
        "all_rounds": request.GET.get("rounds") == "all",
        # While rounds are entered, each player's line of the board is their row of the
        # entry, as on a paper score sheet (game.html): every total and Save in one screen.
        "sheet": editable and not board.standing.finished,
        **told,
    }
    if editable and partial != "changes":  # a live update of what changed sends no form
        form = form or _round_form(game, next_round=board.next_round_number)
        if "fixing" not in told:  # a new round: its rows in the order the deal goes
            form.deal_order = board.deal_order
        context["form"] = form
    if not partial:
        context["share"] = sharing.links(
            request,
            edit=reverse("game", args=[game.edit_token]) if editable else None,
            view=reverse("view", args=[game.view_token]),
        )
    template = "scoring/game.html" + (f"#{partial}" if partial else "")
    return TemplateResponse(request, template, context)


def _rendered(response: HttpResponse) -> HttpResponse:
    """`response` drawn now (a TemplateResponse reads the rounds while it renders): inside a
    snapshot, so that every read of the page sees one state of the game."""
    if isinstance(response, TemplateResponse) and not response.is_rendered:
        response.render()
    return response


def _game_page(request: HtmxHttpRequest, game: Game, editable: bool) -> TemplateResponse:
    """The game page as a GET gives it: with `?saved=<round id>` (where a save without
    JavaScript lands) the confirmation of that round, while it is the latest, and with
    `?changed=<round id>` (where an edit lands) or `?back=<round id>` (where the history's
    restore and "go back" land) the line of the round as it is now, each
    with its Undo on the phone that made the change; `?fix=<round id>&revision=<n>` (the
    Undo of a save) puts that round back into the form, to be put right; with
    `?rounds=all` every round, and for htmx only the round table (the "Show all" link);
    for htmx, `?part=extras` is the chart and the statistics, drawn again after a live
    update that brought only the changed rows."""
    board = Scoreboard.for_game(game)
    if request.htmx and request.GET.get("rounds") == "all":
        return _game_response(
            request, game, partial="rounds_table", editable=editable, board=board, showing_all=True
        )
    if request.htmx and request.GET.get("part") == "extras":
        return _game_response(request, game, partial="extras", editable=editable, board=board)
    partial = "game_body" if request.htmx else ""
    if not editable:
        return _game_response(request, game, editable=False, board=board)
    query = {name: http.whole_number(request.GET.get(name)) for name in GAME_PAGE_MODES}
    if query["fix"] is not None:
        seen = Round(
            pk=query["fix"],
            number=_number(request.GET.get("number")),
            revision=_number(request.GET.get("revision")),
        )
        return _fixing(request, game, seen, partial)
    if query["saved"] is not None and board.rounds:
        latest = board.rounds[-1]
        if latest.round.pk == query["saved"]:
            return _saved(request, game, board, latest.round.pk, "saved", partial)
    elif query["changed"] is not None:
        return _saved(request, game, board, query["changed"], "changed", partial)
    elif query["back"] is not None:
        return _saved(request, game, board, query["back"], "back", partial)
    return _game_response(request, game, board=board, partial=partial)


# The game page's GET modes that name a round by its id (_game_page); a value that is no id
# is left aside, the page shown as without it.
GAME_PAGE_MODES = ("fix", "saved", "changed", "back")


def _saved(
    request: HtmxHttpRequest,
    game: Game,
    board: Scoreboard,
    pk: int,
    how: str,
    partial: str = "",
    **told: Unpack[Told],
) -> TemplateResponse:
    """The page with the confirmation of what just happened to the round with id `pk`
    (`how`: "saved", "elsewhere" when another phone saved it just as typed here, "changed",
    "back" after an Undo), and the Undo of the latest change to it when this phone made it
    and nothing depends on it since (Game.check_undo, read from what the board knows: only
    the latest change to the rounds can be undone, since a later one, an Undo among them,
    would be the latest). The Undo of a save takes the round back into the form (the `fix`
    link); that of an edit or a deletion is one more change."""
    row = next((row for row in board.rounds if row.round.pk == pk), None)
    latest, phone = board.latest_change, phones.of(request)
    mine = latest is not None and bool(phone) and latest.phone == phone
    undo = (
        latest
        if row is not None and how != "elsewhere" and mine and latest.round_id == pk
        else None
    )
    return _game_response(
        request,
        game,
        board=board,
        partial=partial,
        saved=row,
        said=SAID[how][board.standing.finished] % {"number": row.number} if row else "",
        undo=undo,
        **told,
    )


def _fixing(
    request: HtmxHttpRequest,
    game: Game,
    seen: Round,
    partial: str,
    form: RoundForm | None = None,
    **told: Unpack[Told],
) -> TemplateResponse:
    """The page with the round `seen` (its id and the revision the phone saw) back in the
    round form, to be put right: saving it corrects that round (the `correct` action: an
    edit, the round keeps its number), "Delete" takes it out, "Keep it" leaves it as saved.
    Nothing changes until then. A round changed or deleted since is said so, with nothing
    opened (the Undo of a save is no longer what it was)."""
    round_ = game.rounds.prefetch_related("hands__player").filter(pk=seen.pk).first()
    if round_ is None or (form is None and round_.revision != seen.revision):
        code = rules.Code.ROUND_GONE if round_ is None else rules.Code.UNDO_CHANGED
        error = rules.Conflict(code, number=seen.number)
        return _game_response(
            request, game, partial=partial, refused=rules_error_message(error, game.names)
        )
    if form is None:
        form = _filled_with(game, round_)
    return _game_response(request, game, form, partial=partial, fixing=round_, **told)


@http.require_GET_when_watch_only
@require_http_methods(["GET", "POST"])
def game_page(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The game: scoreboard, round entry, round table, sharing. Template: scoring/game.html.
    From the watch-only link (`editable` false) the same scoreboard, read-only and live: no
    form, and the edit token appears nowhere.

    POST actions, from the edit link only (the `action` field, ACTIONS): `save` a new round,
    `preview` its points (the #preview part), `correct` a round taken back into the form
    (its `round`, `for_round` and `revision`), `replace` a round another phone saved first
    with the one typed here (the same fields, from the conflict notice), `delete` a round
    (its `round` id, `number` and `revision` as the phone saw them), `undo` a change this
    phone made (its `event`), `rematch`. Every change is made by this phone (scoring.web.phones).
    htmx requests get the #game_body part back; others are redirected (303) after a change.
    A refused change is raised as its kind (http.Refused: 409 when another phone's change came
    first), with the page that says why.
    """
    if request.method == "GET":
        with snapshot():
            game = _game_or_404(**http.token_lookup(token, editable))
            response = _rendered(_game_page(request, game, editable))
        # The recent list's kind of link: the edit link or the watch-only one.
        recent.remember(request, response, game, "g" if editable else "v")
        return response

    game = _game_or_404(edit_token=token)
    action = ACTIONS.get(request.POST.get("action", "save"))
    if action is None:
        return HttpResponseBadRequest("unknown action", content_type="text/plain")
    try:
        return action(request, game)
    except GameEvent.DoesNotExist:
        raise Http404 from None
    except rules.RulesError as error:
        raise _refused(request, game, error) from None


def _preview(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The points of the round as typed so far, and its errors (the #preview part)."""
    form = _with_points(game, _round_form(game, request.POST))
    return TemplateResponse(request, "scoring/game.html#preview", {"game": game, "form": form})


def _save(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """A new round: the new standing with the round just saved and its Undo. A round typed
    wrong comes back with everything typed kept and every error shown at once; one that is
    not recorded says why (_not_recorded)."""
    partial = "game_body" if request.htmx else ""
    form = _round_form(game, request.POST)
    if not form.is_valid():
        return _game_response(request, game, _with_points(game, form), partial=partial)
    try:
        saved = game.record_round(
            form.cleaned_data["entry"],
            key=form.cleaned_data.get("key") or "",
            for_round=form.cleaned_data.get("for_round"),
            phone=phones.of(request),
        )
    except rules.RulesError as error:
        return _not_recorded(request, game, form, error)
    if request.htmx:
        return _saved(request, game, Scoreboard.for_game(game), saved.pk, "saved", partial)
    return redirect(request, f"{reverse('game', args=[game.edit_token])}?saved={saved.pk}")


def _rematch(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The next game: a new game, counted with the start page's and a table's (a tap on one
    made already only goes there); past the limit, refused (TooMany)."""
    if game.next_game_id is None:
        limits.spend(request, "new-game")
    next_game = rematch(game)
    _tell_new_game(request, next_game)
    return redirect(request, reverse("game", args=[next_game.edit_token]))


def _delete(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    game.delete_round(_round_as_seen(request.POST), phone=phones.of(request))
    return _changed(request, game)


def _undo(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """One more change that undoes one this phone made; a round that comes back (as it was
    before an edit, or where it was deleted) is shown as back."""
    undone = game.undo(GameEvent(pk=_number(request.POST.get("event"))), phones.of(request))
    if undone.round_id is None:
        return _changed(request, game)
    if request.htmx:
        board = Scoreboard.for_game(game)
        return _saved(request, game, board, undone.round_id, "back", "game_body")
    return redirect(request, f"{reverse('game', args=[game.edit_token])}?changed={undone.round_id}")


def _changed(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The game after a change: its body for htmx, else the page again (303)."""
    if request.htmx:
        return _game_response(request, game, partial="game_body")
    return redirect(request, reverse("game", args=[game.edit_token]))


def _store_again(request: HtmxHttpRequest, game: Game, action: str) -> HttpResponse:
    """The round form stored in a round already saved: `correct`, a round this phone took
    back to put right (kept in the history as corrected), or `replace`, a round another
    phone saved first, with the one typed here (an edit). Either is one change with its own
    Undo. A form with an error comes back as typed; a round changed or deleted since is
    refused (409) with the form kept, now showing that round's new revision, so that saving
    again replaces it knowingly."""
    partial = "game_body" if request.htmx else ""
    form = _round_form(game, request.POST)
    # A round taken back names its number as the round form does (`for_round`).
    number = request.POST.get("for_round" if action == "correct" else "number")
    seen = _round_as_seen({**request.POST.dict(), "number": number})
    if not form.is_valid():
        form = _with_points(game, form)
        if action == "correct":
            return _fixing(request, game, seen, partial, form)
        return _game_response(request, game, form, partial=partial)
    kind = GameEvent.Kind.CORRECTED if action == "correct" else GameEvent.Kind.EDITED
    try:
        round_ = game.edit_round(seen, form.cleaned_data["entry"], phones.of(request), kind)
    except rules.RulesError as error:
        now = game.rounds.filter(pk=seen.pk).first()
        if now is None or action != "correct":
            raise _refused(request, game, error) from None
        data = request.POST.copy()
        data["revision"], data["for_round"] = now.revision, now.number
        response = _fixing(
            request,
            game,
            now,
            partial,
            _with_points(game, _round_form(game, data)),
            refused=rules_error_message(error, game.names),
        )
        return http.showing(error, response)
    if request.htmx:
        board = Scoreboard.for_game(game)
        return _saved(request, game, board, round_.pk, "changed", partial)
    return redirect(request, f"{reverse('game', args=[game.edit_token])}?changed={round_.pk}")


# The game page's POST actions (game_page): each a view of the game, given the request.
ACTIONS = {
    "save": _save,
    "preview": _preview,
    "correct": partial(_store_again, action="correct"),
    "replace": partial(_store_again, action="replace"),
    "delete": _delete,
    "undo": _undo,
    "rematch": _rematch,
}


def _round_as_seen(data) -> Round:
    """The round a posted change is about, as the phone saw it: its id, number and revision
    (Game.delete_round and Game.edit_round check them against the round as it is)."""
    return Round(
        pk=_number(data.get("round")),
        number=_number(data.get("number")),
        revision=_number(data.get("revision")),
    )


def _refused(request: HtmxHttpRequest, game: Game, error: rules.RulesError) -> http.Refused:
    """The refusal to raise: the game page (for htmx, its body) saying why a change was not
    made, sent with the status of the refusal (409 for another phone's change first, 429 for
    a rematch past the limit)."""
    partial = "game_body" if request.htmx else ""
    response = _game_response(
        request, game, partial=partial, refused=rules_error_message(error, game.names)
    )
    return http.Refused(error, response)


def _not_recorded(
    request: HtmxHttpRequest, game: Game, form: RoundForm, error: rules.RulesError
) -> HttpResponse:
    """Why the round of `form` was not recorded: a refusal (the game over, its 500 rounds) is
    raised with the page that says why (http.showing).

    When another phone saved the round this form was for first, and it is this very round
    (the same hands, as happens when two people at the table enter it), it counts as saved
    here too, with the offer to save the one typed here as the next round all the same (the
    rare next deal that came out alike). Otherwise the form comes back (409) with everything
    typed, the two versions side by side for the players whose hands differ, and three
    choices: keep the saved one, replace it with this one (the `replace` action), or save this
    one as the next round (the form now says that number)."""
    partial = "game_body" if request.htmx else ""
    if error.code != rules.Code.ROUND_TAKEN:
        form.refused(error)
        return http.showing(error, _game_response(request, game, form, partial=partial))
    entry = form.cleaned_data["entry"]
    taken, following = error.details["number"], error.details["next"]
    board = Scoreboard.for_game(game)
    for row in board.rounds[taken - 1 :]:
        if row.round.entry().same_round(entry):
            offer = _next_deal(request, following)
            return _saved(request, game, board, row.round.pk, "elsewhere", partial, next_deal=offer)
    saved = board.rounds[taken - 1]
    data = request.POST.copy()
    data["for_round"] = str(following)
    # The replace button's round: the one saved first, as this answer shows it.
    data["round"], data["revision"] = saved.round.pk, saved.round.revision
    form = _with_points(game, _round_form(game, data))
    conflict = {"number": taken, "next": following, "differences": board.differences(saved, entry)}
    page = _game_response(request, game, form, partial=partial, board=board, conflict=conflict)
    return http.showing(error, page)


def _next_deal(request: HtmxHttpRequest, number: int) -> dict:
    """The round typed on this phone, as it was posted, to be saved as round `number` with one
    tap (its key kept: two taps record it once)."""
    fields = [
        (name, value)
        for name, value in request.POST.items()
        if name not in ("csrfmiddlewaretoken", "action", "for_round", "typing", "fixing")
    ]
    return {"number": number, "fields": [*fields, ("for_round", str(number))]}


def _with_points(game: Game, form: RoundForm, entry: rules.RoundEntry | None = None) -> RoundForm:
    """`form` with the points of the round it shows from the first paint (rules.points_so_far):
    of `entry`, the round it was filled with, else of the players whose hands are typed
    right, next to the errors of those whose hands are not."""
    typed = (entry.hands, entry.winner, entry.hand_rummy) if entry else None
    if form.is_bound:
        form.is_valid()
        typed = form.typed_round()
    if typed is not None:
        form.shown_points = rules.points_so_far(*typed, game.target, game.rules)
    return form


def _number(text: str | None) -> int:
    """A whole number posted by a form; anything else is a request no page of ours sends."""
    number = http.whole_number(text)
    if number is None:
        raise BadRequest
    return number


@require_GET
@never_cache
def poll(request: HttpRequest, token: str, editable: bool) -> HttpResponse:
    """Live updates for the game page, from the edit or the watch-only link; see _poll."""
    return _poll(request, token, editable)


def _poll(request: HttpRequest, token: str, editable: bool) -> HttpResponse:
    """Has the game changed since version `v`? Unchanged: 204 No Content, after one indexed
    query and no rendering, and htmx swaps nothing. Changed: everything else is read in one
    snapshot (models.snapshot), so that the version the answer gives the page and the rows
    it sends are of the same moment, and the answer is what Game.changes_since says the page
    needs (`shown`: the status the page shows; `rounds=all`: it shows every round): when
    only the rounds changed, the #changes part (the totals, the banners and the rows the
    page shows, whole); otherwise the #live part (the scoreboard, the rounds and, on the
    edit page, a fresh round form). Either way only a notice when someone is typing
    (`typing=1`): what they tapped is never swapped away under their fingers.

    The phones of a table ask for the same #changes answer at once after a save: the first
    one's is drawn, the others' taken from live.SharedAnswers."""
    field = "edit_token" if editable else "view_token"
    version = Game.current_version(field, token)
    if version is None:
        raise Http404
    seen = http.whole_number(request.GET.get("v"))
    if seen == version:
        return HttpResponse(status=204)
    if (shared := live.shared_answers.get(_asked(request, field, token, version))) is not None:
        return _changes_answer(shared)
    with snapshot():
        game = Game.with_players(**{field: token})
        if game.next_game_id is not None:
            return _to_next_game(request, game, editable)
        typing = request.GET.get("typing") == "1"
        changes = game.changes_since(
            seen,
            all_rounds=request.GET.get("rounds") == "all",
            status_shown=request.GET.get("shown", ""),
        )
        if changes.what == Changes.NOTHING:
            return HttpResponse(status=204)
        # A saved round back in this phone's form: the totals beside it leave it out.
        fixing = http.whole_number(request.GET.get("fixing"))
        told: Told = {}
        if editable and typing and fixing is not None:
            told["fixing"] = game.rounds.prefetch_related("hands").filter(pk=fixing).first()
        if changes.what == Changes.ROUNDS:
            response = _rendered(_changes(request, game, changes, editable, typing, **told))
            if changes.latest.kind != GameEvent.Kind.DELETED:  # whose Undo is one phone's
                live.shared_answers.keep(_asked(request, field, token, game.version), response)
            return response
        # Someone typing is told what changed: a round, or the players (a name, the seats).
        players_changed = typing and game.events.values_list("kind", flat=True).first() in (
            GameEvent.Kind.RENAMED,
            GameEvent.Kind.SEATED,
        )
        return _rendered(
            _game_response(
                request,
                game,
                partial="live",
                editable=editable,
                typing=typing,
                players_changed=players_changed,
                **told,
            )
        )


def _asked(request: HttpRequest, field: str, token: str, version: int) -> tuple:
    """All that a poll's #changes answer is drawn from, besides the game at `version`: each
    value of the query as the poll reads it (a value no page sends is read as none), so that
    the key is small whatever the query holds, and two queries read alike share an answer."""
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
        get_language(),
    )


def _changes_answer(content: bytes) -> HttpResponse:
    """A #changes answer drawn for another phone (live.SharedAnswers), as _changes sends it."""
    response = HttpResponse(content)
    response["HX-Reswap"] = "none"
    return response


def _to_next_game(request: HttpRequest, game: Game, editable: bool) -> HttpResponse:
    """A phone still on a game that has since been rematched goes to the game played now (the
    newest of the rematch chain) by the link it came by, the players' or the watch-only one,
    and is told so there. Only a page that was on the game when the rematch was made: one
    opened afterwards polls from the version after it and stays, to look at the game over."""
    newest = game.played_now()
    _tell_new_game(request, newest)
    link = "game" if editable else "view"
    token = newest.edit_token if editable else newest.view_token
    return redirect(request, reverse(link, args=[token]))


def _tell_new_game(request: HttpRequest, game: Game) -> None:
    """Say on the next page (base.html) that the game is a new one: once on this phone, by
    whichever of its requests comes first, the tap on Rematch or a live update of the old
    game (scoring.web.notices)."""
    text = gettext("New game: %(players)s") % {"players": ", ".join(game.names)}
    notices.tell(request, f"new-game:{game.pk}", text)


def _changes(
    request: HttpRequest,
    game: Game,
    changes: Changes,
    editable: bool,
    typing: bool,
    **told: Unpack[Told],
) -> HttpResponse:
    """The #changes part: the totals, the banners, and the rows the page shows (the latest
    Scoreboard.SHOWN_ROUNDS, with the "Show all N rounds" link), whole: what a fresh page
    shows, whatever the page had before (Scoreboard.for_changes)."""
    board = Scoreboard.for_changes(game, changes)
    response = _game_response(
        request, game, partial="changes", editable=editable, board=board, typing=typing, **told
    )
    # Everything in the answer goes to its place out of band; the scoreboard stays.
    response["HX-Reswap"] = "none"
    return response


@require_http_methods(["GET", "POST"])
def round_page(request: HtmxHttpRequest, token: str, number: int) -> HttpResponse:
    """Edit one round with the same form, prefilled. Template: scoring/round.html.

    The form carries the round's id and revision: a save is refused (409, everything typed
    kept) when that round has since been deleted, moved by a change to an earlier round, or
    edited on another phone; the page then shows the round as it is now, and saving again
    replaces it knowingly."""
    game = _game_or_404(edit_token=token)
    refused = None
    if request.method == "POST":
        form = _round_form(game, request.POST)
        if form.is_valid():
            seen = _round_as_seen({**request.POST.dict(), "number": str(number)})
            try:
                game.edit_round(seen, form.cleaned_data["entry"], phones.of(request))
            except rules.RulesError as error:
                if error.code == rules.Code.ROUND_GONE:
                    raise _refused(request, game, error) from None
                # Moved or changed: the round as it is now, the typed form kept, its hidden
                # fields brought up to date so that the next save goes to that round.
                refused = error
                number = error.details.get("now", number)
            else:
                here = reverse("game", args=[game.edit_token])
                return redirect(request, f"{here}?changed={seen.pk}")
    round_ = game.rounds.prefetch_related("hands__player").filter(number=number).first()
    if round_ is None:
        raise Http404
    if request.method == "POST":
        data = request.POST.copy()
        data["round"], data["revision"], data["for_round"] = round_.pk, round_.revision, number
        form = _round_form(game, data)
        form.is_valid()
    else:
        form = _filled_with(game, round_)
    context = {"game": game, "form": form, "round": round_}
    if refused is None:
        return TemplateResponse(request, "scoring/round.html", context)
    names = game.names
    context["refused"] = rules_error_message(refused, names)
    context["now"] = history.round_as_it_was(
        round_.document(names), names, number, game.target, game.rules
    )
    return http.showing(refused, TemplateResponse(request, "scoring/round.html", context))


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """A liveness answer that has checked the database; also the benchmark's floor.

    A database that cannot be reached is a 503 with one plain line (and a logged error), so
    that a load balancer takes this server out instead of reading a traceback page."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("healthz: the database does not answer")
        return HttpResponse("database unavailable", status=503, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")


# Exports, from the game page and from the view page. They are built from the rami-game/1
# document, which holds no token, so a view link cannot leak the edit link.


def _download(game: Game, content: str, content_type: str, extension: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    filename = f"rami-game-{game.created_at:%Y-%m-%d}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _json_download(game: Game) -> HttpResponse:
    return _download(game, exchange.dumps(exchange.export_game(game)), "application/json", "json")


def _csv_download(game: Game) -> HttpResponse:
    text = rounds_csv.csv_text(exchange.export_game(game))
    return _download(game, text, "text/csv; charset=utf-8", "csv")


@require_GET
def export_json(request: HttpRequest, token: str, editable: bool) -> HttpResponse:
    """The game as a rami-game/1 document, offered as a file, from either link."""
    return _json_download(_game_or_404(**http.token_lookup(token, editable)))


@require_GET
def export_csv(request: HttpRequest, token: str, editable: bool) -> HttpResponse:
    """The rounds as CSV, one row per round and player (scoring/rounds_csv.py), from either
    link."""
    return _csv_download(_game_or_404(**http.token_lookup(token, editable)))


# Installing the app on a phone. The colours match templates/_head_icons.html.
THEME_COLOUR = "#1d6b46"  # the table green of static/scoring/icons/icon.svg
ICONS = [
    ("scoring/icons/icon-192.png", "192x192", "any"),
    ("scoring/icons/icon-512.png", "512x512", "any"),
    ("scoring/icons/icon-maskable-512.png", "512x512", "maskable"),
]


@require_GET
@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, linked from templates/_head_icons.html."""
    document = {
        "id": "/",
        "name": gettext("Rami score keeper"),
        "short_name": gettext("Rami"),
        "description": gettext("Keeps the score of a game of Rami for everyone at the table."),
        "lang": get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": [
            {"src": static(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for path, sizes, purpose in ICONS
        ]
        + [
            {
                "src": static("scoring/icons/icon.svg"),
                "sizes": "any",
                "type": "image/svg+xml",
                "purpose": "any",
            }
        ],
    }
    return JsonResponse(
        document,
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )


@require_GET
def rules_page(request: HttpRequest) -> TemplateResponse:
    """The help page "Counting points", in the visitor's language. Template:
    scoring/rules.html; context: `numbers` (the rule numbers, by name), `card_values` (rows of
    the card value table), `targets` ((players, target) pairs) and `examples` (the worked
    round ends, computed by the rules engine)."""
    context = {
        "numbers": counting.rule_numbers(),
        "card_values": counting.card_value_rows(rules.SEEDS),
        "targets": counting.targets(rules.SEEDS),
        "examples": counting.worked_examples(rules.SEEDS),
    }
    return TemplateResponse(request, "scoring/rules.html", context)


@require_GET
def game_rules_page(request: HttpRequest, token: str, editable: bool) -> TemplateResponse:
    """The rules this game plays by, from its players' link or its watch-only link (which
    shows no edit token). See _game_rules."""
    return _game_rules(request, _game_or_404(**http.token_lookup(token, editable)), editable)


def _game_rules(request: HttpRequest, game: Game, editable: bool) -> TemplateResponse:
    """A game's rules: each value as the table set it, the card values, the targets and the
    help page's round ends worked out under them. Template: scoring/game_rules.html; context:
    `game`, `editable`, `house_rules` (what differs from the players' documents), `values`
    (label, value pairs), `card_values`, `targets`, `examples` (counting.worked_examples)."""
    house = game.rules
    said = [rule for rule in house_rules.in_words(house) if rule.said is not None]
    context = {
        "game": game,
        "editable": editable,
        "house_rules": house_rules.summary(house),
        "values": [{"label": rule.label, "value": rule.said} for rule in said],
        "card_values": counting.card_value_rows(house),
        "targets": counting.targets(house),
        "examples": counting.worked_examples(house),
    }
    return TemplateResponse(request, "scoring/game_rules.html", context)


@require_http_methods(["GET", "POST"])
def history_page(request: HttpRequest, token: str) -> HttpResponse:
    """Every change to the game, newest first, with the round before and after it. Template:
    scoring/history.html; context: `game`, `names`, `changes` (scoring.board.history.Change),
    `confirm` (a restore waiting for its confirmation) and `refused`.

    POST actions: `restore` a deleted round (its `event`): at its place while nothing has
    filled it since; else only with `as_round`, the number the confirmation showed (an extra
    round, after the others), the page first asking for it (409, nothing changed). `go_back`
    to the version a round had before an edit (its `event`, and the round's `revision` as
    the page showed it): one more edit. Done, both go to the game page."""
    game = _game_or_404(edit_token=token)
    confirm, refused = None, None
    if request.method == "POST":
        action = request.POST.get("action")
        event = GameEvent(pk=_number(request.POST.get("event")))
        phone = phones.of(request)
        here = reverse("game", args=[game.edit_token])
        try:
            if action == "restore":
                as_round = request.POST.get("as_round")
                round_ = game.restore_round(
                    event, phone, as_round=_number(as_round) if as_round else None
                )
            elif action == "go_back":
                round_ = game.go_back(event, _number(request.POST.get("revision")), phone)
            else:
                return HttpResponseBadRequest("unknown action", content_type="text/plain")
        except GameEvent.DoesNotExist:
            raise Http404 from None
        except rules.RulesError as error:
            if error.code == rules.Code.ALREADY_RESTORED:  # this form sent twice
                return redirect(request, here)
            if isinstance(error, rules.ConfirmFirst):
                confirm = {"event": event.pk, **error.details}
            refused = error
        else:
            # A deleted round restored, or a round back to a version before: "is back as it was".
            return redirect(request, f"{here}?back={round_.pk}")
    context = {
        "game": game,
        "names": game.names,
        "changes": history.changes(game),
        "confirm": confirm,
        "refused": refused and rules_error_message(refused, game.names),
    }
    response = TemplateResponse(request, "scoring/history.html", context)
    return response if refused is None else http.showing(refused, response)


@require_http_methods(["GET", "POST"])
def players_page(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The players' names, each in a field to correct it during the game; and, until the game
    is over, who deals next and the order the deal goes round. Saving either goes back to the
    game page. Template: scoring/players.html; context: `game`, `form` (forms.PlayersForm),
    `seating_form` (forms.SeatingForm, None for a finished game) and `refused`.

    Names: saving renames those changed (Game.rename_players: kept in the history, every
    phone redraws). A name refused stays as typed, with the reason next to it. A player
    renamed on another phone since this page was opened is refused with 409; the form then
    knows that name, so that saving again renames knowingly.

    Seats and dealer (posted with `action=seating`): Game.change_seating, from the next
    round on. A choice refused stays as chosen, with the reason next to it. A change made on
    another phone since (or a round saved there, which moves the deal on) is refused with
    409, the form then showing the seats and the dealer as they are now."""
    game = _game_or_404(edit_token=token)
    if request.method == "POST":
        change = _change_seats if request.POST.get("action") == SeatingForm.ACTION else _rename
        return change(request, game)
    form = PlayersForm(players=game.seated_players)
    return _players_response(request, game, form, _seating_form(game))


def _rename(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The names posted: those changed renamed, then the game page; a name refused stays as
    typed beside its reason, and one renamed on another phone since is told (409)."""
    form = PlayersForm(request.POST, players=game.seated_players)
    if form.is_valid():
        try:
            rename_players(
                game,
                form.cleaned_data["names"],
                seen=form.cleaned_data["seen"],
                phone=phones.of(request),
            )
        except rules.Conflict as error:  # a name changed on another phone: the form knows it now
            form = form.showing(game.names)
            form.refused(error)
            return http.showing(error, _players_response(request, game, form, _seating_form(game)))
        except rules.RulesError as error:
            form.refused(error)
        else:
            return redirect(request, reverse("game", args=[game.edit_token]))
    return _players_response(request, game, form, _seating_form(game))


def _change_seats(request: HtmxHttpRequest, game: Game) -> HttpResponse:
    """The seats and the dealer posted: changed from the next round on, then the game page
    saying so; a choice refused stays as chosen beside its reason, and another phone's change
    since (or the game's end) is told (409), the page showing things as they are now."""
    seating_form = _seating_form(game, request.POST)
    if seating_form is None:
        return _players_refused(request, game, rules.Conflict(rules.Code.GAME_FINISHED))
    if seating_form.is_valid():
        chosen = seating_form.cleaned_data
        try:
            game.change_seating(
                chosen["dealer"], chosen["order"], seen=chosen["seen"], phone=phones.of(request)
            )
        except rules.Conflict as error:
            # Shown as they are now, another phone's change (or the end) read again.
            return _players_refused(request, _game_or_404(edit_token=game.edit_token), error)
        except rules.RulesError as error:
            seating_form.refused(error)
        else:
            names = game.names
            said = gettext("Seats changed: %(order)s; %(dealer)s deals next.") % {
                "order": ", ".join(names[seat] for seat in chosen["order"]),
                "dealer": names[chosen["dealer"]],
            }
            messages.success(request, said)
            return redirect(request, reverse("game", args=[game.edit_token]))
    form = PlayersForm(players=game.seated_players)
    return _players_response(request, game, form, seating_form)


def _players_refused(request: HttpRequest, game: Game, error: rules.RulesError) -> HttpResponse:
    """The page as things are now, saying why a change was not made (http.showing)."""
    form = PlayersForm(players=game.seated_players)
    refused = rules_error_message(error, game.names)
    return http.showing(error, _players_response(request, game, form, _seating_form(game), refused))


def _players_response(
    request: HttpRequest, game: Game, form: PlayersForm, seating_form, refused: str | None = None
) -> TemplateResponse:
    context = {"game": game, "form": form, "seating_form": seating_form, "refused": refused}
    return TemplateResponse(request, "scoring/players.html", context)


def _seating_form(game: Game, data=None) -> SeatingForm | None:
    """The seats and the dealer as they are for the next round; None once the game is over."""
    if game.status == Status.FINISHED:
        return None
    seating = game.seating_for(game.rounds.count() + 1, len(game.seated_players))
    return SeatingForm(data, players=game.seated_players, seating=seating)
