"""The game page, from its edit link (/g/) or its watch-only link (/v/): the board, the round
entry and the rounds, drawn from one snapshot of the database. Template: scoring/game.html,
whose partials are what htmx swaps (#game_body after a change, #rounds_table for every round,
#extras for the chart and the statistics).

Everything a game page says is put in its context in one place, `game_response`; what a
particular answer tells besides the board (a round saved, a refusal, a round back in the
form) are its `Told` keys. The changes the page makes are views of their own
(scoring/views/rounds.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property, partial, wraps
from typing import TypedDict, Unpack

from django.core.exceptions import BadRequest
from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_GET

from scoring import rules
from scoring.board.scoreboard import RoundRow, Scoreboard
from scoring.forms import RematchForm, RoundForm
from scoring.live.stream import key_for
from scoring.models import Game, GameEvent, Player, Round, snapshot
from scoring.rules import house_rules
from scoring.rules.messages import rules_error_message
from scoring.web import following, http, notices, phones, recent, sharing
from scoring.web.http import HtmxHttpRequest


def game_or_404(**lookup: str) -> Game:
    """The game with this token (edit_token=... or view_token=...), its players read with it
    in one query, or 404."""
    try:
        return Game.with_players(**lookup)
    except Game.DoesNotExist:
        raise Http404 from None


def edited_game(token: str) -> Game:
    """The game of this edit link's token (game_or_404): what a change view changes."""
    return game_or_404(edit_token=token)


# What a page of a game says when its game is not on the server (base.html's data-gone).
GAME_GONE = gettext_lazy(
    "This game is not on the server right now (deleted, or on its way back from a backup). "
    "The page shows it again as soon as it is back."
)


def following_game(request: HtmxHttpRequest, game: Game, **query: str) -> dict:
    """The context that makes a page of `game` besides its board follow it live
    (scoring/web/following.py), its live update asking for the page with `query` added."""
    key = key_for("g", game.view_token)
    return following.context(request, key, game.version, str(GAME_GONE), **query)


def followed(request: HtmxHttpRequest, game: Game, editable: bool) -> HttpResponse | None:
    """The answer to the live update of a page of `game` (following.seen) when it is not the
    page drawn again: 204 while the game is at the version the page shows, or the game played
    now once it has been rematched (to_next_game). None: draw the page."""
    seen = following.seen(request)
    if seen is None:
        return None
    if seen == game.version:
        return HttpResponse(status=204)
    if game.next_game_id is not None:
        return to_next_game(request, game, editable)
    return None


def tell_new_game(request: HtmxHttpRequest, game: Game) -> None:
    """Say once on this phone's next page (base.html) that the game is a new one, whichever
    request comes first: the tap on Rematch or a live update of the old game (web.notices)."""
    text = gettext("New game: %(players)s") % {"players": ", ".join(game.names)}
    notices.tell(request, f"new-game:{game.pk}", text)


def to_next_game(request: HtmxHttpRequest, game: Game, editable: bool) -> HttpResponse:
    """A phone still on a game that has since been rematched goes to the game played now (the
    newest of the rematch chain) by the link it came by, the players' or the watch-only one,
    and is told so there. Only a page that was on the game when the rematch was made: one
    opened afterwards asks from the version after it and stays, to look at the game over."""
    newest = game.played_now()
    tell_new_game(request, newest)
    link = "game" if editable else "view"
    token = newest.edit_token if editable else newest.view_token
    return http.redirect(request, reverse(link, args=[token]))


def drawn_at_one_moment(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page read and drawn inside one snapshot of the database (models.snapshot): a
    TemplateResponse reads the rounds while it renders, and every read of the page must see
    one state of the game."""

    @wraps(view)
    def drawn(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
        with snapshot():
            response = view(request, *args, **kwargs)
            if isinstance(response, TemplateResponse) and not response.is_rendered:
                response.render()
        return response

    return drawn


def round_form(
    game: Game,
    data=None,
    next_round: int | None = None,
    players: list[Player] | None = None,
    **kwargs,
) -> RoundForm:
    """The round form for the players playing `game` now, or for `players` (a round's own, to
    put it right); a new one says the round it is for."""
    form = RoundForm(
        data,
        players=game.playing if players is None else players,
        seats=len(game.seated_players),
        target=game.target,
        house_rules=game.rules,
        **kwargs,
    )
    if data is None and next_round is not None:
        form.initial["for_round"] = next_round
    return form


def with_points(game: Game, form: RoundForm, entry: rules.RoundEntry | None = None) -> RoundForm:
    """`form` with the points of the round it shows from the first paint (rules.points_so_far).
    They are the points of `entry`, the round it was filled with; else of the players whose
    hands are typed right, next to the errors of those whose hands are not."""
    typed = None
    if entry is not None:  # by seat; the rules see the form's players in order
        seats = [player.seat for player in form.players]
        winner = None if entry.winner is None else seats.index(entry.winner)
        typed = ([entry.hands[seat] for seat in seats], winner, entry.hand_rummy)
    if form.is_bound:
        form.is_valid()
        typed = form.typed_round()
    if typed is not None:
        form.shown_points = rules.points_so_far(*typed, game.target, game.rules)
    return form


def filled_with(game: Game, round_: Round) -> RoundForm:
    """The round form filled with a saved round, to put right, with its points shown."""
    entry = round_.entry(len(game.seated_players))
    initial = RoundForm.initial_for(round_, entry)
    form = round_form(game, initial=initial, players=round_players(game, round_))
    return with_points(game, form, entry)


def posted_round_form(game: Game, data) -> RoundForm:
    """The round form as a phone posted it: for the round it names (`round`, its id: one taken
    back or edited), with that round's players; else for a new round, with those playing."""
    named = http.whole_number(data.get("round"))
    round_ = game.rounds.filter(pk=named).first() if named is not None else None
    # No hands: the round was deleted between the two reads (another phone); the form is then
    # for those playing, and the change says that the round is gone (409), not that its
    # players are none.
    players = (round_players(game, round_) if round_ is not None else None) or None
    return round_form(game, data, players=players)


def round_players(game: Game, round_: Round) -> list[Player]:
    """The players of a saved round (those with a hand in it), in seat order."""
    seats = {hand.player_seat for hand in round_.hands_with_players()}
    return [player for player in game.seated_players if player.seat in seats]


class Told(TypedDict, total=False):
    """What a game page tells besides the board, each only in the answers that tell it (None
    or False, as the template reads them, when not given)."""

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
    # A live update for a phone whose player is typing (a notice only), whether what changed
    # is the players (a name, the seats), and the seats of the rows its form shows (the new
    # totals go to those: a newcomer has none until the form is drawn again).
    typing: bool
    players_changed: bool
    seats_shown: frozenset[int] | None
    # A player who just left or joined, as the page says it; `undo` is its Undo.
    player_said: str
    # Who plays the next game, as chosen and refused (a finished game's page).
    rematch_form: RematchForm
    # The round table with every round ("Show all"), and the answer that brought it.
    all_rounds: bool
    showing_all: bool


# What the page says of a round just saved, by how (saved_page): on the sheet, where each
# player's row shows the round's points beside the new total; and before the points, listed
# after it, where there is no sheet (a finished game).
SAID = {
    "saved": (gettext_lazy("Round %(number)s saved."), gettext_lazy("Round %(number)s saved:")),
    "elsewhere": (
        gettext_lazy("Round %(number)s was saved on another phone, just as you typed it."),
        gettext_lazy("Round %(number)s was saved on another phone, just as you typed it:"),
    ),
    "changed": (
        gettext_lazy("Round %(number)s saved with your changes."),
        gettext_lazy("Round %(number)s saved with your changes:"),
    ),
    "back": (
        gettext_lazy("Round %(number)s is back as it was."),
        gettext_lazy("Round %(number)s is back as it was:"),
    ),
}


class GameLinks:
    """The addresses a game's page links to, for the link it was opened by: the edit link's,
    or the watch-only link's, which hold no edit token. Each is worked out when the page
    draws it. `table` is None for a game at no table; the changes are None on the watch-only
    link."""

    def __init__(self, game: Game, editable: bool) -> None:
        self.game = game
        self.editable = editable
        self.token = game.edit_token if editable else game.view_token

    def _to(self, edit_name: str, view_name: str) -> str:
        return reverse(edit_name if self.editable else view_name, args=[self.token])

    def _change(self, name: str) -> str | None:
        return reverse(name, args=[self.token]) if self.editable else None

    page = cached_property(partial(_to, edit_name="game", view_name="view"))
    poll = cached_property(partial(_to, edit_name="poll", view_name="view_poll"))
    csv = cached_property(partial(_to, edit_name="export_csv", view_name="view_export_csv"))
    json = cached_property(partial(_to, edit_name="export_json", view_name="view_export_json"))
    rules = cached_property(partial(_to, edit_name="game_rules", view_name="view_rules"))
    all_rounds = cached_property(partial(_to, edit_name="all_rounds", view_name="view_all_rounds"))
    extras = cached_property(partial(_to, edit_name="extras", view_name="view_extras"))
    history = cached_property(partial(_change, name="history"))
    players = cached_property(partial(_change, name="players"))
    save = cached_property(partial(_change, name="save"))
    preview = cached_property(partial(_change, name="preview"))
    correct = cached_property(partial(_change, name="correct"))
    replace = cached_property(partial(_change, name="replace"))
    delete = cached_property(partial(_change, name="delete"))
    undo = cached_property(partial(_change, name="undo"))
    rematch = cached_property(partial(_change, name="rematch"))

    @cached_property
    def table(self) -> str | None:
        table = self.game.table
        if table is None:
            return None
        if self.editable:
            return reverse("table", args=[table.edit_token])
        return reverse("table_view", args=[table.view_token])

    def fix(self, round_: Round) -> str:
        """The Undo of a save: `round_` back in the form (fix_round), as this page shows it."""
        address = reverse("fix", args=[self.token, round_.pk])
        return f"{address}?number={round_.number}&revision={round_.revision}"


def game_response(
    request: HtmxHttpRequest,
    game: Game,
    form: RoundForm | None = None,
    editable: bool = True,
    board: Scoreboard | None = None,
    template: str = "scoring/game.html",
    **told: Unpack[Told],
) -> TemplateResponse:
    """The game page for the edit link or, read-only, the view link. Its context is built
    here, the one place, from the board and what the answer `told` (Told); `template` names a
    part of it when the caller draws one (a live update). Every phone is told when the latest
    change to the rounds deleted one; the phone that deleted it is offered its Undo
    (Scoreboard.deletion_shown). The share panel's links and QR codes are worked out only if
    the page draws them (a part does not)."""
    board = board or Scoreboard.for_game(game)
    context = {
        "game": game,
        "board": board,
        "editable": editable,
        "deletion": board.deletion_shown(phones.of(request) if editable else ""),
        "links": GameLinks(game, editable),
        "live_url": reverse("live", args=[key_for("g", game.view_token)]),
        "house_rules": house_rules.summary(game.rules),
        # While rounds are entered, each player's line of the board is their row of the
        # entry, as on a paper score sheet (game.html): every total and Save in one screen.
        "sheet": editable and not board.standing.finished,
        # "Show all": every round, not only the latest (Scoreboard.SHOWN_ROUNDS).
        "all_rounds": False,
        # What htmx swaps in after a change (all but the #extras part itself) asks for the
        # chart and the statistics once they come into view, instead of bringing them.
        "extras_later": bool(request.htmx) and template != EXTRAS,
        # A callable: the template calls it only where it draws the share panel.
        "share": partial(
            sharing.links,
            request,
            edit=reverse("game", args=[game.edit_token]) if editable else None,
            view=reverse("view", args=[game.view_token]),
        ),
        **told,
    }
    if editable and board.standing.finished and game.next_game_id is None:
        context.setdefault("rematch_form", RematchForm(game=game))
    if editable and not template.endswith("#changes"):  # a live update of rounds has no form
        # A fresh form for the next round is the same for every phone while the players are,
        # and _round_form.html keeps it so (RoundForm.rows_key), the standings drawn into its
        # rows, with the points of a round just saved beside them.
        context["fresh_form"] = form is None and "fixing" not in told
        form = form or round_form(game, next_round=board.next_round_number)
        # Its rows in the order the deal goes now, as the board's: a new round, and a round
        # taken back by Undo alike.
        form.deal_order = board.deal_order
        context["form"] = form
    return TemplateResponse(request, template, context)


def saved_page(
    request: HtmxHttpRequest, game: Game, board: Scoreboard, pk: int, how: str, **told: Unpack[Told]
) -> TemplateResponse:
    """The page confirming what just happened to the round with id `pk`. `how` is "saved",
    "elsewhere" (another phone saved it just as typed here), "changed", or "back" after an
    Undo. It offers the Undo of the latest change to the round when this phone made it and
    nothing depends on it since (read from what the board knows: only the latest change to
    the rounds can be undone). The Undo of a save takes the round back into the form (the
    `fix` link); that of an edit or a deletion is one more change."""
    row = next((row for row in board.rounds if row.round.pk == pk), None)
    latest, phone = board.latest_change, phones.of(request)
    if how != "elsewhere" and (latest is None or latest.round_id != pk):
        row = None  # another change to the rounds has landed since: nothing is said of it
    mine = latest is not None and bool(phone) and latest.phone == phone
    undo = latest if row and how != "elsewhere" and mine and latest.round_id == pk else None
    said = SAID[how][board.standing.finished] % {"number": row.number} if row else ""
    return game_response(request, game, board=board, saved=row, said=said, undo=undo, **told)


def player_page(request: HtmxHttpRequest, game: Game, pk: int) -> TemplateResponse:
    """The page saying that a player just left or joined (the change with id `pk`, while no
    round has been saved since). The phone that made it gets its Undo while that holds
    (Game.check_undo); after the Undo of a leave, the page says the player plays again."""
    event = game.events.filter(pk=pk, kind__in=GameEvent.PLAYER_CHANGES).first()
    later = game.events.filter(pk__gt=pk, kind__in=GameEvent.ROUND_CHANGES).exists()
    player = event and next((p for p in game.seated_players if p.seat == event.after["seat"]), None)
    if player is None or later:
        return game_response(request, game)
    points = event.after.get("start", player.start)
    if event.kind == GameEvent.Kind.LEFT:
        said = gettext("%(name)s left after round %(number)s.")
    elif event.undoes_id is not None:
        said = gettext("%(name)s plays again from round %(number)s.")
    elif event.after.get("back"):
        said = ngettext(
            "%(name)s comes back from round %(number)s with %(points)s point.",
            "%(name)s comes back from round %(number)s with %(points)s points.",
            points,
        )
    else:
        said = ngettext(
            "%(name)s joins from round %(number)s with %(points)s point.",
            "%(name)s joins from round %(number)s with %(points)s points.",
            points,
        )
    # A leave's round is the last its player played; a return is to the round after it.
    number = event.number + (event.undoes_id is not None)
    said %= {"name": player.name, "number": number, "points": points}
    undo = None
    if event.undoes_id is None:
        try:
            game.check_undo(event, phones.of(request))
            undo = event
        except rules.RulesError:
            pass
    return game_response(request, game, player_said=said, undo=undo)


def fixing_page(
    request: HtmxHttpRequest,
    game: Game,
    seen: Round,
    form: RoundForm | None = None,
    **told: Unpack[Told],
) -> TemplateResponse:
    """The page with the round `seen` (its id and the revision the phone saw) back in the
    round form, to be put right. Saving it corrects that round (rounds.correct: an edit, the
    round keeps its number), "Delete" takes it out, "Keep it" leaves it as saved. Nothing
    changes until then. A round changed or deleted since is said so, with nothing opened
    (the Undo of a save is no longer what it was)."""
    round_ = game.rounds.prefetch_related("hands__player").filter(pk=seen.pk).first()
    if round_ is None or (form is None and round_.revision != seen.revision):
        code = rules.Code.ROUND_GONE if round_ is None else rules.Code.UNDO_CHANGED
        error = rules.Conflict(code, number=seen.number)
        return game_response(request, game, refused=rules_error_message(error, game.names))
    if form is None:
        # An Undo tapped on a page that had not yet heard of a later change (another phone's
        # next round): the round is no longer this phone's to take back.
        saved = game.events.filter(round=round_).order_by("-pk").first()
        try:
            if saved is None:
                raise rules.Conflict(rules.Code.UNDO_NOT_YOURS)
            game.check_undo(saved, phones.of(request))
        except rules.Conflict as error:
            return game_response(request, game, refused=rules_error_message(error, game.names))
        form = filled_with(game, round_)
    return game_response(request, game, form, fixing=round_, **told)


def refused_page(request: HtmxHttpRequest, game: Game, error: rules.RulesError) -> TemplateResponse:
    """The game page saying why a change was not made (`error`): a change view's refusal
    (http.change_view), sent with the status of its kind."""
    return game_response(request, game, refused=rules_error_message(error, game.names))


def number(text: str | None) -> int:
    """A whole number posted by a form; anything else is a request no page of ours sends."""
    found = http.whole_number(text)
    if found is None:
        raise BadRequest
    return found


@require_GET
@drawn_at_one_moment
@http.for_htmx("game_body")
def game_page(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The game: scoreboard, round entry, round table, sharing. Template: scoring/game.html.
    From the watch-only link (`editable` false) the same scoreboard, read-only and live: no
    form, and the edit token appears nowhere. What the query asks for: _game_page."""
    game = game_or_404(**http.token_lookup(token, editable))
    response = _game_page(request, game, editable)
    # The recent list's kind of link: the edit link or the watch-only one.
    recent.remember(request, response, game, "g" if editable else "v")
    return response


def _game_page(request: HtmxHttpRequest, game: Game, editable: bool) -> TemplateResponse:
    """The page the query asks for. A change made without JavaScript lands here by a 303:
    `?saved=<round id>` confirms a save while that round is the latest, `?changed=<round id>`
    an edit, `?back=<round id>` a round brought back by an Undo or the history. Each comes
    with its Undo on the phone that made the change. `?player=<change id>` tells of a player
    who left or joined (player_page). A page drawn before the changes had their own addresses
    (one release) may ask `?fix=`, `?rounds=all` or `?part=extras`: answered as fix_round,
    all_rounds and extras."""
    board = Scoreboard.for_game(game)
    query = request.GET
    if query.get("rounds") == "all":
        return _all_rounds(request, game, board, editable)
    if request.htmx and query.get("part") == "extras":
        return game_response(request, game, editable=editable, board=board, template=EXTRAS)
    if not editable:
        return game_response(request, game, editable=False, board=board)
    done = {
        name: http.whole_number(query.get(name))
        for name in ("fix", "saved", "changed", "back", "player")
    }
    if done["player"] is not None:
        return player_page(request, game, done["player"])
    if done["fix"] is not None:
        return fixing_page(request, game, _seen(request, done["fix"]))
    if done["saved"] is not None:
        latest = board.rounds[-1].round.pk if board.rounds else None
        if latest == done["saved"]:
            return saved_page(request, game, board, latest, "saved")
    elif done["changed"] is not None:
        return saved_page(request, game, board, done["changed"], "changed")
    elif done["back"] is not None:
        return saved_page(request, game, board, done["back"], "back")
    return game_response(request, game, board=board)


def _seen(request: HtmxHttpRequest, pk: int) -> Round:
    """The round with id `pk` as the phone saw it: its `?number=` and `?revision=`."""
    query = request.GET
    return Round(pk=pk, number=number(query.get("number")), revision=number(query.get("revision")))


EXTRAS = "scoring/game.html#extras"


def _all_rounds(
    request: HtmxHttpRequest, game: Game, board: Scoreboard, editable: bool
) -> TemplateResponse:
    if request.htmx:
        template = "scoring/game.html#rounds_table"
        return game_response(
            request,
            game,
            editable=editable,
            board=board,
            template=template,
            all_rounds=True,
            showing_all=True,
        )
    return game_response(request, game, editable=editable, board=board, all_rounds=True)


@require_GET
@drawn_at_one_moment
def all_rounds(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """Every round in the round table ("Show all N rounds"): the page, or for htmx its round
    table, after which the live updates send every round."""
    game = game_or_404(**http.token_lookup(token, editable))
    return _all_rounds(request, game, Scoreboard.for_game(game), editable)


@require_GET
@drawn_at_one_moment
@http.for_htmx("extras")
def extras(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The chart and the statistics, drawn again once they come into view after a live update
    that brought only the changed rows (for htmx; the page otherwise)."""
    game = game_or_404(**http.token_lookup(token, editable))
    template = EXTRAS if request.htmx else "scoring/game.html"
    return game_response(request, game, editable=editable, template=template)


@require_GET
@drawn_at_one_moment
@http.for_htmx("game_body")
def fix_round(request: HtmxHttpRequest, token: str, pk: int) -> HttpResponse:
    """The Undo of a save: the round with id `pk`, as the phone saw it, back in the form."""
    return fixing_page(request, game_or_404(edit_token=token), _seen(request, pk))
