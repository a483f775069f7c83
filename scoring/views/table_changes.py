"""The changes a table's page makes from its edit link, each a POST of its own: start a game of
the members who play today, add a member, rename one, retire one, bring one back, remove one.
Each is a Table method's (scoring/models/table.py).

Done, each goes to the page it came from (a new game's, or the table's members). Refused, it
answers the table's page again with what was typed and the reason: a new game past the limit
with 429, a member's change from a page older than the table's last change with 409."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from scoring import rules
from scoring.forms.tables import MemberNameForm, NewGameForm
from scoring.models import Member, Table
from scoring.views.tables import table_and_members_or_404, table_response
from scoring.web import http, limits
from scoring.web.http import HtmxHttpRequest, redirect


def _edited(token: str) -> tuple[Table, list[Member]]:
    return table_and_members_or_404(edit_token=token)


def _refused(
    request: HtmxHttpRequest, table: Table, members: list[Member], error: rules.RulesError
) -> TemplateResponse:
    """The table's page saying why a change was not made, above its members."""
    return table_response(request, table, members, True, member_refused=(None, error))


# A change to the table from its edit link: the table and its members given to the view; a
# refusal the view does not answer itself is raised with the table's page saying why.
table_change = http.change_view(find=_edited, page=_refused)


def _members_part(table: Table) -> str:
    return reverse("table", args=[table.edit_token]) + "#members"


@table_change
def play(request: HtmxHttpRequest, table: Table, members: list[Member]) -> HttpResponse:
    """A new game of the members who play today, guests and new members (NewGameForm), with
    the game's own rules when changed from the table's: its page. Counted with the start
    page's new games (limits)."""
    form = NewGameForm(request.POST, members=members, house_rules=table.rules)
    if form.is_valid():
        try:
            limits.spend(request, "new-game")
            game = table.new_game(
                form.cleaned_data["players"], house_rules=form.cleaned_data["own_rules"]
            )
        except rules.RulesError as error:
            form.refused(error)
            page = table_response(request, table, members, True, play_form=form)
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, reverse("game", args=[game.edit_token]))
    return table_response(request, table, members, True, play_form=form)


@table_change
def add_member(request: HtmxHttpRequest, table: Table, members: list[Member]) -> HttpResponse:
    """A new member, by the name typed."""
    form = MemberNameForm(request.POST, prefix="add")
    if form.is_valid():
        try:
            table.add_member(form.cleaned_data["name"])
        except rules.RulesError as error:
            form.refused(error)
            page = table_response(request, table, members, True, add_form=form)
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, _members_part(table))
    return table_response(request, table, members, True, add_form=form)


@table_change
def rename_member(request: HtmxHttpRequest, table: Table, members: list[Member]) -> HttpResponse:
    """A member (`member`, their id) renamed as typed, in every game of the table."""
    member = _member(members, request.POST.get("member"))
    form = MemberNameForm(request.POST, prefix=f"rename-{member.pk}")
    if form.is_valid():
        try:
            table.rename_member(member, form.cleaned_data["name"])
        except rules.RulesError as error:
            form.refused(error)
            page = table_response(request, table, members, True, renamed=(member.pk, form))
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, _members_part(table))
    return table_response(request, table, members, True, renamed=(member.pk, form))


def member_change(change: str, gone_is_done: bool = False) -> Callable[..., HttpResponse]:
    """A member's way in or out of the table. `change` is the Table method that makes it, taking the
    member and the table's version the page showed (`seen`). Done, or done already (a form sent
    twice), it answers the members' part of the page. A member no longer there was removed by
    another phone, or by this form sent twice (`gone_is_done`: a removal): a page that knew them is
    out of date."""

    @table_change
    def changed(request: HtmxHttpRequest, table: Table, members: list[Member]) -> HttpResponse:
        # No version: as if from a page older than any change.
        seen = http.whole_number(request.POST.get("seen"))
        seen = -1 if seen is None else seen
        posted = http.whole_number(request.POST.get("member"))
        member = next((member for member in members if member.pk == posted), None)
        if member is None:
            # Another table's member, or no member at all: no page of ours sends that.
            if posted is None or Member.objects.filter(pk=posted).exists():
                raise Http404
            if not gone_is_done:
                raise rules.Conflict(rules.Code.TABLE_CHANGED)
            return redirect(request, _members_part(table))
        try:
            getattr(table, change)(member, seen)
        except rules.RulesError as error:  # said beside the member
            refused = (member.pk, error)
            page = table_response(request, table, members, True, member_refused=refused)
            raise http.Refused(error, page, on_form=True) from None
        return redirect(request, _members_part(table))

    changed.__name__ = changed.__qualname__ = change
    return changed


retire = member_change("retire")
come_back = member_change("come_back")
remove = member_change("remove_member", gone_is_done=True)


def _member(members: list[Member], posted: str | None) -> Member:
    """The member a posted form is about: one of this table's, or a 404 (no page of ours
    sends another)."""
    for member in members:
        if str(member.pk) == posted:
            return member
    raise Http404
