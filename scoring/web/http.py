"""What the views of games and of tables both stand on: the typed request, the redirect that
suits htmx and plain forms alike, and a page and a change at one address (by_method). Also a
number as a request carries it, and what a refusal is in HTTP (RefusalMiddleware)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from scoring.rules import ConfirmFirst, Conflict, RulesError
from scoring.rules.errors import rules_error_message
from scoring.web.limits import TooMany

# What each kind of refusal is in HTTP (scoring.rules; a limit's is web.limits.TooMany): the
# page older than the game or the table, or a yes asked for, is 409 Conflict (htmx swaps it in:
# base.html's responseHandling); a limit is 429 Too Many Requests, with Retry-After. A mistake
# in what was typed is no refusal: it is a form's error, beside its field, on the page answered
# as any form with an error is (200). Raised all the same (a request no page of ours sends), it
# is a 400.
REFUSAL_STATUS = {Conflict: 409, ConfirmFirst: 409, TooMany: 429, RulesError: 400}


class Refused(Exception):
    """Raised by a view whose change was refused (`error`), with the page that says why
    (`page`, the page as it is now, everything typed kept): RefusalMiddleware sends it with
    the status of the refusal. A view never sets that status itself."""

    def __init__(self, error: RulesError, page: HttpResponse) -> None:
        super().__init__(error)
        self.error = error
        self.page = page


def showing(error: RulesError, page: HttpResponse) -> HttpResponse:
    """`page`, which shows `error`. A mistake in what was typed (a RulesError itself) is a
    form's error, and the page is the answer. Any other kind is a refusal, raised (Refused)
    for RefusalMiddleware to send with the status of its kind."""
    if type(error) is RulesError:
        return page
    raise Refused(error, page)


def status_of(error: RulesError) -> int:
    """The status of a refusal of `error`'s kind (REFUSAL_STATUS), the most particular first."""
    return next(status for kind, status in REFUSAL_STATUS.items() if isinstance(error, kind))


class RefusalMiddleware:
    """The one place where a refusal becomes an answer, as Django's response_for_exception
    turns Http404 into a 404. A view raises http.Refused with the page that says why, or the
    refusal alone (any RulesError that no view caught: its reason in plain text). The answer
    goes out with the status of its kind (status_of) and, for a limit, Retry-After."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Refused):
            error, response = exception.error, exception.page
        elif isinstance(exception, RulesError):
            error = exception
            response = HttpResponse(rules_error_message(error), content_type="text/plain")
        else:
            return None
        response.status_code = status_of(error)
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
