"""What the views of games and of tables both stand on: the typed request, the redirect that
suits htmx and plain forms alike, a change view (change_view) and a page and a change at one
address (by_method). Also a number as a request carries it, and what a refusal is in HTTP
(RefusalMiddleware)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from scoring.rules import ConfirmFirst, Conflict, RulesError
from scoring.rules.messages import rules_error_message
from scoring.web.limits import TooMany

# What each kind of refusal is in HTTP (scoring.rules; a limit's is web.limits.TooMany): the
# page older than the game or the table, or a yes asked for, is 409 Conflict (htmx swaps it in:
# base.html's responseHandling); a limit is 429 Too Many Requests, with Retry-After. A mistake
# (a RulesError itself) said beside what was typed is a form's error, answered as any form with
# an error is (200: ON_FORM_STATUS, Refused.on_form); anywhere else (a request no page of ours
# sends), a 400.
REFUSAL_STATUS = {Conflict: 409, ConfirmFirst: 409, TooMany: 429, RulesError: 400}
ON_FORM_STATUS = {**REFUSAL_STATUS, RulesError: 200}


class Refused(Exception):
    """A change refused (`error`), raised with the page that says why (`page`, the page as it
    is now, everything typed kept): RefusalMiddleware sends it with the status of the
    refusal's kind. `on_form`: the page says it beside what was typed, on its form, where a
    mistake in it (a RulesError itself) is the form's answer (200), as Django answers a form
    with an error. A view never sets the status itself."""

    def __init__(self, error: RulesError, page: HttpResponse, on_form: bool = False) -> None:
        super().__init__(error)
        self.error = error
        self.page = page
        self.on_form = on_form


def status_of(error: RulesError, on_form: bool = False) -> int:
    """The status of a refusal of `error`'s kind (REFUSAL_STATUS; ON_FORM_STATUS said on a
    form), the most particular kind first."""
    statuses = ON_FORM_STATUS if on_form else REFUSAL_STATUS
    return next(status for kind, status in statuses.items() if isinstance(error, kind))


class RefusalMiddleware:
    """The one place where a refusal becomes an answer, as Django's response_for_exception
    turns Http404 into a 404. A view raises http.Refused with the page that says why (a change
    view's refusals are raised so by change_view), or the refusal alone (any RulesError that
    no view caught: its reason in plain text). The answer goes out with the status of its
    kind (status_of) and, for a limit, Retry-After."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Refused):
            error, response = exception.error, exception.page
            response.status_code = status_of(error, exception.on_form)
        elif isinstance(exception, RulesError):
            error = exception
            response = HttpResponse(rules_error_message(error), content_type="text/plain")
            response.status_code = status_of(error)
        else:
            return None
        if isinstance(error, TooMany):
            response["Retry-After"] = str(error.details["retry_after"])
        return response


# A whole number as our pages send one (an id, a version, a round's number, a seat): ASCII
# digits, at most 18 of them, so that it fits every integer column of the database (19 digits).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")


def whole_number(text: object) -> int | None:
    """The number `text` holds, as our pages write one (blanks around it left out, as Django's
    IntegerField does). None for anything else: digits that are not ASCII ("²", which
    isdigit() takes for a digit and int() refuses; "١٢"), a sign, blanks inside, a fraction,
    more digits than any id or version has."""
    if isinstance(text, str) and _WHOLE_NUMBER.fullmatch(text := text.strip()):
        return int(text)
    return None


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """Go to `url`: a client-side redirect for htmx, a 303 See Other otherwise."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url, status=303)


def for_htmx(part: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view whose page htmx asks for in part. For an htmx request its answer, or the page of
    a refusal it raises, is cut down to the partial `part` of its template, as django-htmx's
    example project does it. This is the one place where a view's answer becomes what htmx
    swaps. A view that names a part itself (`page.html#part`) keeps it."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def answered(request: HtmxHttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                response = view(request, *args, **kwargs)
            except Refused as refused:
                if request.htmx:
                    _cut(refused.page, part)
                raise
            if request.htmx:
                _cut(response, part)
            return response

        return answered

    return decorate


def _cut(response: HttpResponse, part: str) -> None:
    template = getattr(response, "template_name", None)
    if isinstance(template, str) and "#" not in template:
        response.template_name = f"{template}#{part}"


def by_method(**views: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """One address, a view for each method (`GET=...`, `POST=...`): where a page and a change
    share an address (a page drawn before each change had its own, scoring/views/legacy.py).
    Any other method is 405 with Allow, by Django's require_http_methods."""

    @require_http_methods(list(views))
    def view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return views[request.method](request, *args, **kwargs)

    return view


def change_view(
    find: Callable[[str], object],
    page: Callable[..., HttpResponse],
    part: str | None = None,
    on_form: bool = False,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A change from an edit link: a POST, what the link's token names found by `find` (which
    raises Http404 for none; a tuple is handed on as several arguments) and given to the
    view. Any refusal the view raises (a RulesError) is raised again with `page`, the page
    that says why: `page(request, *found, error)`, sent by RefusalMiddleware with the status
    of its kind (`on_form`: the page says it where the change was asked, Refused.on_form). A
    view that draws its own page raises Refused itself. Anything else the post names that is
    not there (an event, a round: ObjectDoesNotExist) is a 404. With `part`, for htmx the
    answer is that part of its template (for_htmx)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def changed(request: HtmxHttpRequest, token: str) -> HttpResponse:
            found = find(token)
            found = found if isinstance(found, tuple) else (found,)
            try:
                return view(request, *found)
            except ObjectDoesNotExist:
                raise Http404 from None
            except RulesError as error:
                raise Refused(error, page(request, *found, error), on_form) from None

        if part is not None:
            changed = for_htmx(part)(changed)
        return require_POST(changed)

    return decorate


def with_query(request: HttpRequest, **changed: str) -> str:
    """This page's query with `changed` set and without a live update's `v` (unless `changed`
    sets it). It makes a link that keeps what the page already chose (the period, every game,
    the whole history), to bookmark or share as it is, or to ask for it again."""
    query = request.GET.copy()
    query.pop("v", None)
    for key, value in changed.items():
        query[key] = value
    return f"?{query.urlencode()}"


def token_lookup(token: str, editable: bool) -> dict[str, str]:
    """The lookup of a game or table by its edit link's token (`editable`) or watch-only one."""
    return {"edit_token": token} if editable else {"view_token": token}
