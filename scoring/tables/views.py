"""Views of a table: a group's own page, its new games, its standings across games.

A table is reached like a game: by its edit link `/t/<edit-token>/` (start games, add and rename
members) and by its watch-only link `/w/<view-token>/`, which changes nothing and shows no edit
token, neither the table's nor any of its games' (its games are linked by their view links).
Every change is an ordinary form post answered by a 303 redirect, made by a `Table` method (as
a game's by a `Game` method); the rules of tables, members and games are the models' and
scoring.rules', never written here.

A table's page reads its numbers in five queries, whatever the number of its games
(scoring.tables.standings.Played: the members and the players' totals read once for the
standings, head to head and results), and its history in one more: tests/test_table_views.py
counts them for 3 and for 200 games, and `make bench-pages` measures the page of a 200-game table.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from scoring import live, rules
from scoring.board import chart
from scoring.files import exchange
from scoring.models import Game, Member, Table, TableEvent, snapshot
from scoring.rules import house_rules
from scoring.rules.errors import rules_error_message
from scoring.tables import standings as tables
from scoring.tables.forms import (
    KeepTogetherForm,
    MemberNameForm,
    NewGameForm,
    TableRulesForm,
    TableStartForm,
)
from scoring.web import http, limits, recent, sharing
from scoring.web.http import HtmxHttpRequest, redirect


def _table_or_404(**lookup: str) -> Table:
    """The table with this token (edit_token=... or view_token=...), or 404."""
    try:
        return Table.objects.get(**lookup)
    except Table.DoesNotExist:
        raise Http404 from None


def _table_and_members_or_404(**lookup: str) -> tuple[Table, list[Member]]:
    """The table with this token and its members (Table.with_members), or 404."""
    try:
        return Table.with_members(**lookup)
    except Table.DoesNotExist:
        raise Http404 from None


@require_http_methods(["GET", "POST"])
def table_start(request: HtmxHttpRequest) -> HttpResponse:
    """Start a table: its name and its first members. Template: scoring/table_start.html;
    context: `form` (TableStartForm). Limited like new games (429 with everything typed)."""
    form = TableStartForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            limits.spend(request, "new-table")
        except rules.TooMany as error:
            form.refused(error)
            page = TemplateResponse(request, "scoring/table_start.html", {"form": form})
            raise http.Refused(error, page) from None
        table = Table.start(
            form.cleaned_data["name"],
            form.cleaned_data["members"],
            house_rules=form.cleaned_data["house_rules"],
        )
        return redirect(request, reverse("table", args=[table.edit_token]))
    return TemplateResponse(request, "scoring/table_start.html", {"form": form})


TABLE_ACTIONS = {"play", "add_member", "rename", "retire", "come_back", "remove"}
# A member's way in and out of the table (each a Table method taking the member and the
# table's version the page showed).
MEMBER_CHANGES = {
    "retire": Table.retire,
    "come_back": Table.come_back,
    "remove": Table.remove_member,
}
# The games a table's page lists, newest first: the latest in play (older ones were left
# unfinished, most likely) and the latest finished; `?games=all` lists every one.
SHOWN_IN_PLAY = 3
SHOWN_GAMES = 10
# The changes to the table itself its page lists, newest first; `?history=all` lists every one.
SHOWN_CHANGES = 20


@http.require_GET_when_watch_only
@require_http_methods(["GET", "POST"])
def table_page(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The table from its edit link: its games, standings, head to head and chart; start a
    game, add or rename a member. From the watch-only link (`editable` false) the same page,
    read-only: no form, and no edit token anywhere (the games are linked by their view
    links). Template: scoring/table.html (see _table_response).

    POST actions, from the edit link only (the `action` field): `play` (NewGameForm: the
    members who play today, guests and new members, and the game's own rules when changed
    from the table's) goes to the new game's page; `add_member` and `rename` (a member's
    `member` id and new `name`) come back here, as do `retire`, `come_back` and `remove` (a
    member's `member` id and `seen`, the table's version the page showed). A refused form is
    shown again with what was typed and the reason (a new game past the limit, with 429; a
    member's change from a page older than the table's last change, with 409).

    GET `?period=month|year|all` (tables.PERIODS; anything else is all time) chooses the
    period the standings and head to head count; `?games=all` lists every game."""
    if request.method == "GET":
        # Every read of the page at one moment (models.snapshot), its version among them.
        with snapshot():
            table, members = _table_and_members_or_404(**http.token_lookup(token, editable))
            seen = http.whole_number(request.GET.get("v"))
            if request.htmx and seen == live.table_version(table):
                return HttpResponse(status=204)  # the live update of a page that is up to date
            # Drawn inside the snapshot too: the template reads what the context holds.
            response = _table_response(request, table, members, editable).render()
        # The recent list's kind of link: "t" the edit link, "w" the watch-only one.
        recent.remember_table(request, response, table, ("w", "t")[editable])
        return response
    table, members = _table_and_members_or_404(**http.token_lookup(token, editable))
    forms: dict = {}
    action = request.POST.get("action")
    if action not in TABLE_ACTIONS:
        return HttpResponse("unknown action", status=400, content_type="text/plain")
    here = reverse("table", args=[table.edit_token])
    if action == "play":
        form = NewGameForm(request.POST, members=members, house_rules=table.rules)
        if form.is_valid():
            try:
                limits.spend(request, "new-game")
                game = table.new_game(
                    form.cleaned_data["players"], house_rules=form.cleaned_data["own_rules"]
                )
            except rules.RulesError as error:
                form.refused(error)
                page = _table_response(request, table, members, editable, play_form=form)
                return http.showing(error, page)
            return redirect(request, reverse("game", args=[game.edit_token]))
        forms["play_form"] = form
    elif action == "add_member":
        form = MemberNameForm(request.POST, prefix="add")
        if form.is_valid():
            try:
                table.add_member(form.cleaned_data["name"])
            except rules.RulesError as error:
                form.refused(error)
                page = _table_response(request, table, members, editable, add_form=form)
                return http.showing(error, page)
            return redirect(request, f"{here}#members")
        forms["add_form"] = form
    elif action == "rename":
        member = _member(members, request.POST.get("member"))
        form = MemberNameForm(request.POST, prefix=f"rename-{member.pk}")
        if form.is_valid():
            try:
                table.rename_member(member, form.cleaned_data["name"])
            except rules.RulesError as error:
                form.refused(error)
                renamed = (member.pk, form)
                page = _table_response(request, table, members, editable, renamed=renamed)
                return http.showing(error, page)
            return redirect(request, f"{here}#members")
        forms["renamed"] = (member.pk, form)
    else:
        refused = _change_member(request, table, members, action)
        if refused is None:
            return redirect(request, f"{here}#members")
        page = _table_response(request, table, members, editable, member_refused=refused)
        return http.showing(refused[1], page)
    return _table_response(request, table, members, editable, **forms)


def _change_member(
    request: HttpRequest, table: Table, members: list[Member], action: str
) -> tuple[int | None, rules.RulesError] | None:
    """Retire, bring back or remove the member posted (MEMBER_CHANGES): None when done (or
    done already: a form sent twice), else the member's id (None when they are gone) and the
    error. A member no longer there was removed by another phone, or by this form sent
    twice; a page that knew them is then out of date, unless it asked to remove them."""
    # No version: as if from a page older than any change.
    seen = http.whole_number(request.POST.get("seen"))
    seen = -1 if seen is None else seen
    posted = http.whole_number(request.POST.get("member"))
    member = next((member for member in members if member.pk == posted), None)
    if member is None:
        # Another table's member, or no member at all: no page of ours sends that.
        if posted is None or Member.objects.filter(pk=posted).exists():
            raise Http404
        return None if action == "remove" else (None, rules.Conflict(rules.Code.TABLE_CHANGED))
    try:
        MEMBER_CHANGES[action](table, member, seen)
    except rules.RulesError as error:
        return member.pk, error
    return None


def _member(members: list[Member], posted: str | None) -> Member:
    """The member a posted form is about: one of this table's, or a 404 (no page of ours
    sends another)."""
    for member in members:
        if str(member.pk) == posted:
            return member
    raise Http404


def _table_response(
    request: HttpRequest,
    table: Table,
    members: list[Member],
    editable: bool,
    play_form: NewGameForm | None = None,
    add_form: MemberNameForm | None = None,
    renamed: tuple[int, MemberNameForm] | None = None,
    member_refused: tuple[int | None, rules.RulesError] | None = None,
) -> TemplateResponse:
    """The table page, for the edit link or (`editable` false) the view link. Template:
    scoring/table.html; context: `table`, `editable`, `house_rules` (the words for the rules
    of its new games), `ranked` and `small_samples` (tables.MemberStanding: the members with
    enough finished games, by rank, then the others), `pairs` (tables.HeadToHead), `in_play`
    and `played` (tables.GameResult, newest first: the latest SHOWN_IN_PLAY and SHOWN_GAMES,
    or with `?games=all` every one; `played_count` says how many finished), `chart`
    (wins_chart), `small_sample` (tables.SMALL_SAMPLE), `members`, `games_count`, `share`
    (the links with their QR codes), `changes` (TableChange: the table's history, newest
    first, the latest SHOWN_CHANGES or with `?history=all` every one; `more_changes` when
    some are left out); on the edit link the forms: `play_form`, `add_form` and `renames`
    ((member, form) for each member who plays), `retired` (the retired members), `seen` (the
    table's version, which the members' changes carry), `removable` (the ids of the members
    who never played) and `member_error` ((member id, or None for the whole list, and the
    message) of a refused change.

    `live_url` (the stream of the table's versions, scoring/live.py), `version` (the newest
    of the table's and its games' versions, as read with them) and `live_poll_url` (this
    page again, asked for by the stream's events, or every 2 s without a stream: 204 while
    `v` is still the version).

    `period` (tables.PERIODS) is what the standings and the head to head count (from
    `period_start`, None for all time), `periods` ((period, link) for each, keeping the rest
    of the query: a view to bookmark or share). The games listed and the chart are every
    game's whatever the period: a period is a question about the standings, and a game of
    last month stays one tap away. `all_games` and `all_changes` (`?games=all`,
    `?history=all`: those parts open, listing everything), with the links to them."""
    # The members and the players' totals read once, for the standings, the games and the pairs.
    at_table = tables.Played.of(table, members)
    period = tables.chosen_period(request.GET.get("period"))
    table_standings = tables.standings(table, at_table, period)
    games = tables.results(table, at_table)
    # The version the page is drawn at: the newest of what it read (live.table_version).
    version = max([table.version, *(game.version for game in games)])
    played = [game for game in reversed(games) if game.finished]
    in_play = [game for game in reversed(games) if not game.finished]
    all_games = request.GET.get("games") == "all"
    all_changes = request.GET.get("history") == "all"
    # One more than shown, to know whether there are more.
    events = table.events.all() if all_changes else table.events.all()[: SHOWN_CHANGES + 1]
    changes = [TableChange.of(event) for event in events]
    context = {
        "table": table,
        "editable": editable,
        "members": members,
        "version": version,
        "live_url": reverse("live", args=[live.key_for("t", table.view_token)]),
        "live_poll_url": request.path + _with_query(request, v=str(version)),
        "games_count": len(games),
        "house_rules": house_rules.summary(table.rules),
        "ranked": [standing for standing in table_standings if not standing.small_sample],
        "small_samples": [standing for standing in table_standings if standing.small_sample],
        "small_sample": tables.SMALL_SAMPLE,
        # The pairs follow the period too: who finished lower this month is the same
        # question as the standings', over the same games.
        "pairs": tables.head_to_head(table, at_table, period),
        "period": period,
        # When it began (None for all time), to name the month or the year.
        "period_start": (tables.period_bounds(period) or (None,))[0],
        "periods": [
            (choice, _with_query(request, period=choice) + "#standings-title")
            for choice in tables.PERIODS
        ],
        "all_games": all_games,
        "all_games_link": _with_query(request, games="all") + "#played-title",
        "all_changes_link": _with_query(request, history="all") + "#history-title",
        "all_changes": all_changes,
        "retired": [member for member in members if member.retired],
        "in_play": in_play if all_games else in_play[:SHOWN_IN_PLAY],
        "played": played if all_games else played[:SHOWN_GAMES],
        "played_count": len(played),
        "chart": wins_chart(members, games),
        "changes": changes if all_changes else changes[:SHOWN_CHANGES],
        "more_changes": len(changes) > SHOWN_CHANGES and not all_changes,
        "share": sharing.links(
            request,
            edit=reverse("table", args=[table.edit_token]) if editable else None,
            view=reverse("table_view", args=[table.view_token]),
        ),
    }
    if editable:
        context["play_form"] = play_form or NewGameForm(members=members, house_rules=table.rules)
        context["add_form"] = add_form or MemberNameForm(prefix="add")
        context["renames"] = [
            (
                member,
                renamed[1]
                if renamed and renamed[0] == member.pk
                else MemberNameForm(prefix=f"rename-{member.pk}", initial={"name": member.name}),
            )
            for member in members
            if not member.retired
        ]
        # A rename refused is shown again in the members' part, which is then open.
        context["renaming"] = renamed is not None
        context["seen"] = table.version
        # Remove is offered to those who never played only (Table.remove_member refuses the
        # others, and says to retire them): read from the seats the page has already.
        played = at_table.who_played()
        context["removable"] = {member.pk for member in members if member.pk not in played}
        if member_refused is not None:
            member_id, error = member_refused
            named = next((member.name for member in members if member.pk == member_id), None)
            context["member_error"] = (
                member_id,
                rules_error_message(error.for_player(0), [named])
                if named
                else rules_error_message(error),
            )
    return TemplateResponse(request, "scoring/table.html", context)


@dataclass(frozen=True)
class TableChange:
    """One change to the table itself as its page lists it: the event (its kind, the member's
    name, when); for a change of its rules the rules before and after it in words (an empty
    list: the players' own rules); for a rename the name before."""

    event: TableEvent
    rules_after: list[str] | None
    rules_before: list[str] | None = None
    name_before: str = ""

    @classmethod
    def of(cls, event: TableEvent) -> TableChange:
        if event.rules_after is None:
            return cls(event, None, name_before=event.name_before)
        return cls(
            event,
            house_rules.summary(event.rules_after),
            house_rules.summary(event.rules_before or rules.Rules()),
        )


@require_http_methods(["GET", "POST"])
def table_rules(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The rules of the table's next games, from its edit link only (a watch-only token is a
    404): the house rules fields prefilled with the table's rules; sent, the table's next
    games play by them (Table.change_rules) and the table's page follows. The games started
    before keep their own. Template: scoring/table_rules.html; context: `table`, `form`
    (TableRulesForm) and `refused` (why nothing was changed: another phone changed the
    table since the page was loaded, 409, the form showing the table's rules as they are
    now). A value out of range is refused next to its field, everything typed kept."""
    table = _table_or_404(edit_token=token)
    form = TableRulesForm(request.POST or None, table=table)
    context: dict = {"table": table}
    if request.method == "POST" and form.is_valid():
        try:
            table.change_rules(form.cleaned_data["house_rules"], form.cleaned_data["seen"])
        except rules.RulesError as error:
            table.refresh_from_db()
            context |= {"form": TableRulesForm(table=table), "refused": rules_error_message(error)}
            page = TemplateResponse(request, "scoring/table_rules.html", context)
            return http.showing(error, page)
        return redirect(request, reverse("table", args=[table.edit_token]))
    context["form"] = form
    return TemplateResponse(request, "scoring/table_rules.html", context)


def _with_query(request: HttpRequest, **changed: str) -> str:
    """This page's query with `changed` set and without a live update's `v` (unless `changed`
    sets it): a link that keeps what the page already chose (the period, every game, the
    whole history), to bookmark or share as it is, or to ask for it again."""
    query = request.GET.copy()
    query.pop("v", None)
    for key, value in changed.items():
        query[key] = value
    return f"?{query.urlencode()}"


def wins_chart(members: list[Member], games: list[tables.GameResult]) -> chart.Chart | None:
    """Each member's wins so far after each of the table's finished games, oldest first, drawn
    by scoring/chart.py as a game's running totals are (one line per member who finished a
    game, the games in place of the rounds); None before the first finished game. Wins so far
    rather than each game's total: a line that only climbs stays readable over hundreds of
    games, and a member who sat a game out keeps their place instead of breaking the line."""
    finished = [game for game in games if game.finished]
    if not finished:
        return None
    drawn = [
        member
        for member in members
        if any(game.total_of(member.pk) is not None for game in finished)
    ]
    won = [
        [int(game.winner is not None and game.winner.member_id == member.pk) for game in finished]
        for member in drawn
    ]
    running = [list(accumulate(wins)) for wins in won]
    after_each = [[line[index] for line in running] for index in range(len(finished))]
    # The "target" only sets the lowest top of the scale (one win); the page draws no target.
    return chart.score_chart([member.name for member in drawn], after_each, target=1)


@require_GET
def table_export_json(request: HttpRequest, token: str, editable: bool) -> StreamingHttpResponse:
    """The table as a rami-table/1 document (scoring.files.exchange.export_table), offered as a
    file, from either link: it holds no token of any kind. `?period=month|year` (tables.PERIODS)
    chooses the period its standings count; every game is in it whatever the period."""
    table = _table_or_404(**http.token_lookup(token, editable))
    return _table_download(table, tables.chosen_period(request.GET.get("period")))


def _table_download(table: Table, period: str = tables.ALL_TIME) -> StreamingHttpResponse:
    # Streamed game by game: a table of 2,000 games is some 10 MB of JSON, which neither the
    # worker nor the phone then waits for whole before the first byte.
    response = StreamingHttpResponse(
        exchange.export_table_text(table, period), content_type="application/json"
    )
    filename = f"rami-table-{timezone.localdate():%Y-%m-%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_http_methods(["GET", "POST"])
def keep_together(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Move a game (finished, typically: the game page offers it then) into a new table of
    its players, named as typed or after them (Table.keep_together), and go to the
    table's page. A game kept already goes to its table. Template (the form again, with the
    reason, when the name is refused; and for GET): scoring/table_keep.html; context: `game`,
    `form` (KeepTogetherForm)."""
    try:
        game = Game.with_players(edit_token=token)
    except Game.DoesNotExist:
        raise Http404 from None
    form = KeepTogetherForm(request.POST or None)
    # A game kept already only goes to its table: nothing new is made, nothing counted.
    kept = game.table_id is not None
    if request.method == "POST" and form.is_valid():
        try:
            if not kept:
                limits.spend(request, "new-table")
        except rules.TooMany as error:
            form.refused(error)
            page = TemplateResponse(
                request, "scoring/table_keep.html", {"game": game, "form": form}
            )
            raise http.Refused(error, page) from None
        table = Table.keep_together(game, name=form.cleaned_data["name"])
        return redirect(request, reverse("table", args=[table.edit_token]))
    return TemplateResponse(request, "scoring/table_keep.html", {"game": game, "form": form})
