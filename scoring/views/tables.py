"""A table's pages, by its edit link `/t/<edit-token>/` and its watch-only link `/w/<view-token>/`
(which changes nothing and shows no edit token): its games, members and standings across games,
read in five queries whatever the number of its games (scoring.board.standings.Played;
tests/test_table_views.py counts them). Its changes are table_changes.py's."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import accumulate

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from scoring import rules
from scoring.board import chart
from scoring.board import standings as tables
from scoring.files import exchange
from scoring.forms.tables import (
    KeepTogetherForm,
    MemberNameForm,
    NewGameForm,
    TableRulesForm,
    TableStartForm,
)
from scoring.live import reader as reading
from scoring.live import stream
from scoring.models import Game, Member, Table, TableEvent, snapshot
from scoring.rules import house_rules
from scoring.rules.messages import rules_error_message
from scoring.web import following, http, limits, recent, sharing
from scoring.web.http import HtmxHttpRequest, redirect


def table_or_404(**lookup: str) -> Table:
    """The table with this token (edit_token=... or view_token=...), or 404."""
    try:
        return Table.objects.get(**lookup)
    except Table.DoesNotExist:
        raise Http404 from None


def table_and_members_or_404(**lookup: str) -> tuple[Table, list[Member]]:
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
    page = TemplateResponse(request, "scoring/table_start.html", {"form": form})
    if request.method == "POST" and form.is_valid():
        try:
            limits.spend(request, "new-table")
            table = Table.start(
                form.cleaned_data["name"],
                form.cleaned_data["members"],
                house_rules=form.cleaned_data["house_rules"],
            )
        except rules.RulesError as error:
            form.refused(error)
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, reverse("table", args=[table.edit_token]))
    return page


# The games a table's page lists, newest first: the latest in play (older ones were left
# unfinished, most likely) and the latest finished; `?games=all` lists every one.
SHOWN_IN_PLAY = 3
SHOWN_GAMES = 10
# The changes to the table itself its page lists, newest first; `?history=all` lists every one.
SHOWN_CHANGES = 20


@require_GET
def table_page(request: HtmxHttpRequest, token: str, editable: bool) -> HttpResponse:
    """The table: its games, standings, head to head and chart; from the edit link, the forms
    to start a game and to add, rename, retire, bring back or remove a member
    (scoring/views/table_changes.py). From the watch-only link (`editable` false) the same page,
    read-only: no form, and no edit token anywhere (the games are linked by their view
    links). Template: scoring/table.html (table_response). `?period=month|year|all`
    (standings.PERIODS; anything else is all time) chooses the period the standings and head
    to head count; `?games=all` lists every game, `?history=all` every change."""
    # Every read of the page at one moment (models.snapshot), its version among them.
    with snapshot():
        table, members = table_and_members_or_404(**http.token_lookup(token, editable))
        seen = http.whole_number(request.GET.get("v"))
        if request.htmx and seen == reading.table_version(table):
            return HttpResponse(status=204)  # the live update of a page that is up to date
        # Drawn inside the snapshot too: the template reads what the context holds.
        response = table_response(request, table, members, editable).render()
    # The recent list's kind of link: "t" the edit link, "w" the watch-only one.
    recent.remember_table(request, response, table, ("w", "t")[editable])
    return response


def table_response(
    request: HtmxHttpRequest,
    table: Table,
    members: list[Member],
    editable: bool,
    **forms: object,
) -> TemplateResponse:
    """The table page, for the edit link or (`editable` false) the view link. It holds its
    numbers (_numbers), its lists (_lists), the live update's addresses and, on the edit link,
    its forms (_forms). `forms` are those a refused change shows again: `play_form`,
    `add_form`, `renamed` (member id, form), `member_refused` (member id, error)."""
    # The members and the players' totals read once, for the standings, the games and the pairs.
    at_table = tables.Played.of(table, members)
    games = tables.results(table, at_table)
    # The version the page is drawn at: the newest of what it read (reading.table_version).
    version = max([table.version, *(game.version for game in games)])
    context = {
        "table": table,
        "editable": editable,
        "members": members,
        "version": version,
        "live_url": reverse("live", args=[stream.key_for("t", table.view_token)]),
        # This page again, asked for by the stream's events, or every 2 s without a stream:
        # 204 while `v` is still the version.
        "live_poll_url": request.path + http.with_query(request, v=str(version)),
        "house_rules": house_rules.summary(table.rules),
        # A callable: the template calls it only where it draws the share panel.
        "share": partial(
            sharing.links,
            request,
            edit=reverse("table", args=[table.edit_token]) if editable else None,
            view=reverse("table_view", args=[table.view_token]),
        ),
        **_numbers(request, table, members, at_table, games),
        **_lists(request, table, members, games),
    }
    if editable:
        context |= _forms(table, members, at_table, **forms)
    return TemplateResponse(request, "scoring/table.html", context)


def _numbers(
    request: HtmxHttpRequest,
    table: Table,
    members: list[Member],
    at_table: tables.Played,
    games: list[tables.GameResult],
) -> dict:
    """The standings and the head to head over the period chosen (`?period=`, PERIODS: from
    `period_start`, None for all time; `periods` links to each, keeping the rest of the query). Also
    the members with enough finished games first (`ranked`, then `small_samples`), and the chart of
    wins. The games listed and the chart are every game's whatever the period: a period is a
    question about the standings, and a game of last month stays one tap away."""
    period = tables.chosen_period(request.GET.get("period"))
    table_standings = tables.standings(table, at_table, period)
    return {
        "ranked": [standing for standing in table_standings if not standing.small_sample],
        "small_samples": [standing for standing in table_standings if standing.small_sample],
        "small_sample": tables.SMALL_SAMPLE,
        # The pairs follow the period too: who finished lower this month is the same
        # question as the standings', over the same games.
        "pairs": tables.head_to_head(table, at_table, period),
        "period": period,
        "period_start": (tables.period_bounds(period) or (None,))[0],
        "periods": [
            (choice, http.with_query(request, period=choice) + "#standings-title")
            for choice in tables.PERIODS
        ],
        "chart": wins_chart(members, games),
    }


def _lists(
    request: HtmxHttpRequest, table: Table, members: list[Member], games: list[tables.GameResult]
) -> dict:
    """The games in play and played (newest first: the latest SHOWN_IN_PLAY and SHOWN_GAMES,
    or with `?games=all` every one), the table's history (the latest SHOWN_CHANGES, or with
    `?history=all` every change), the retired members, and the links that open each list."""
    played = [game for game in reversed(games) if game.finished]
    in_play = [game for game in reversed(games) if not game.finished]
    all_games = request.GET.get("games") == "all"
    all_changes = request.GET.get("history") == "all"
    # One more than shown, to know whether there are more.
    events = table.events.all() if all_changes else table.events.all()[: SHOWN_CHANGES + 1]
    changes = [TableChange.of(event) for event in events]
    return {
        "games_count": len(games),
        "all_games": all_games,
        "all_games_link": http.with_query(request, games="all") + "#played-title",
        "all_changes": all_changes,
        "all_changes_link": http.with_query(request, history="all") + "#history-title",
        "in_play": in_play if all_games else in_play[:SHOWN_IN_PLAY],
        "played": played if all_games else played[:SHOWN_GAMES],
        "played_count": len(played),
        "changes": changes if all_changes else changes[:SHOWN_CHANGES],
        "more_changes": len(changes) > SHOWN_CHANGES and not all_changes,
        "retired": [member for member in members if member.retired],
    }


def _forms(
    table: Table,
    members: list[Member],
    at_table: tables.Played,
    play_form: NewGameForm | None = None,
    add_form: MemberNameForm | None = None,
    renamed: tuple[int, MemberNameForm] | None = None,
    member_refused: tuple[int | None, rules.RulesError] | None = None,
) -> dict:
    """The edit link's forms: who plays today, a new member, and a rename for each member who
    plays (`renaming`: one refused, shown again in the open members' part). Also the table's
    version that the members' changes carry (`seen`), and the members who may be removed
    (those who never played: Table.remove_member says to retire the others). `member_error`
    says why a member's change was refused: the member's id (None for the whole list) and
    the words."""
    renames = [
        (member, renamed[1] if renamed and renamed[0] == member.pk else _rename_form(member))
        for member in members
        if not member.retired
    ]
    played = at_table.who_played()
    if play_form is None:
        # Who plays today starts as the last game ended: its members still playing ticked.
        retired = {member.pk for member in members if member.retired}
        ticked = at_table.who_played_last() - retired
        play_form = NewGameForm(
            members=members,
            house_rules=table.rules,
            initial={"members": [str(pk) for pk in sorted(ticked)]},
        )
    context = {
        "play_form": play_form,
        "add_form": add_form or MemberNameForm(prefix="add"),
        "renames": renames,
        "renaming": renamed is not None,
        "seen": table.version,
        "removable": {member.pk for member in members if member.pk not in played},
    }
    if member_refused is not None:
        member_id, error = member_refused
        named = next((member.name for member in members if member.pk == member_id), None)
        said = rules_error_message(error.for_player(0), [named]) if named else None
        context["member_error"] = (member_id, said or rules_error_message(error))
    return context


def _rename_form(member: Member) -> MemberNameForm:
    return MemberNameForm(prefix=f"rename-{member.pk}", initial={"name": member.name})


@dataclass(frozen=True)
class TableChange:
    """One change to the table itself as its page lists it: the event (its kind, the member's
    name, when). For a change of its rules, the rules before and after it in words (an empty
    list: the players' own rules); for a rename, the name before."""

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


# What a page of a table says when the table is not on the server (base.html's data-gone).
TABLE_GONE = gettext_lazy(
    "This table is not on the server right now (deleted, or on its way back from a backup). "
    "The page shows it again as soon as it is back."
)


@require_http_methods(["GET", "POST"])
def table_rules(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The rules of the table's next games, from its edit link only (a watch-only token is a
    404). The house rules fields are prefilled with the table's rules; sent, the table's next
    games play by them (Table.change_rules) and the table's page follows. The games started
    before keep their own. Template: scoring/table_rules.html; context: `table`, `form`
    (TableRulesForm) and `refused`. `refused` says why nothing was changed: another phone
    changed the table since the page was loaded (409), and the form shows the table's rules
    as they are now. A value out of range is refused next to its field, everything typed
    kept."""
    table = table_or_404(edit_token=token)
    version = reading.table_version(table)
    if request.method == "GET" and following.seen(request) == version:
        return HttpResponse(status=204)  # the live update of a page that is up to date
    form = TableRulesForm(request.POST or None, table=table)
    context: dict = {"table": table}
    if request.method == "POST" and form.is_valid():
        try:
            table.change_rules(form.cleaned_data["house_rules"], form.cleaned_data["seen"])
        except rules.RulesError as error:
            table.refresh_from_db()
            context |= {"form": TableRulesForm(table=table), "refused": rules_error_message(error)}
            page = TemplateResponse(request, "scoring/table_rules.html", context)
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, reverse("table", args=[table.edit_token]))
    context["form"] = form
    if request.method == "GET":
        key = stream.key_for("t", table.view_token)
        context |= following.context(request, key, version, str(TABLE_GONE))
    return TemplateResponse(request, "scoring/table_rules.html", context)


def wins_chart(members: list[Member], games: list[tables.GameResult]) -> chart.Chart | None:
    """Each member's wins so far after each of the table's finished games, oldest first, drawn
    by scoring/board/chart.py as a game's running totals are: one line per member who finished
    a game, the games in place of the rounds. None before the first finished game. Wins so far
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
    """The table as a rami-table/1 document, offered as a file from either link: it holds no
    token. `?period=` (tables.PERIODS) chooses what its standings count; every game is in it."""
    table = table_or_404(**http.token_lookup(token, editable))
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
    page = TemplateResponse(request, "scoring/table_keep.html", {"game": game, "form": form})
    # A game kept already only goes to its table: nothing new is made, nothing counted.
    kept = game.table_id is not None
    if request.method == "POST" and form.is_valid():
        try:
            if not kept:
                limits.spend(request, "new-table")
            table = Table.keep_together(game, name=form.cleaned_data["name"])
        except rules.RulesError as error:
            form.refused(error)
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, reverse("table", args=[table.edit_token]))
    return page
