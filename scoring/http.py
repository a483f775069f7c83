"""What the views of games and of tables both stand on: the typed request, the redirect that
suits htmx and plain forms alike, the method check of a view that both links open, and what a
refusal is in HTTP."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.utils.log import log_response
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from .rules import ConfirmFirst, Conflict, RulesError, TooMany

# What each kind of refusal is in HTTP (scoring.rules): the page older than the game or the
# table, or a yes asked for, is 409 Conflict (htmx swaps it in: base.html's responseHandling);
# a limit is 429 Too Many Requests. What was typed or sent wrong (RulesError itself) is the
# page shown again with the reason beside it, 200, as Django answers a form with an error
# (and as htmx swaps in).
REFUSAL_STATUS = {Conflict: 409, ConfirmFirst: 409, TooMany: 429}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """Go to `url`: a client-side redirect for htmx, a 303 See Other otherwise."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url, status=303)


def refused(response: HttpResponse, error: RulesError) -> HttpResponse:
    """`response`, the page that says why `error` refused a change, sent with the status of
    the refusal's kind (REFUSAL_STATUS), and a limit's Retry-After (its `retry_after`)."""
    response.status_code = next(
        (status for kind, status in REFUSAL_STATUS.items() if isinstance(error, kind)), 200
    )
    if isinstance(error, TooMany):
        response["Retry-After"] = str(error.details["retry_after"])
    return response


def token_lookup(token: str, editable: bool) -> dict[str, str]:
    """The lookup of a game or table by the token of its edit link (`editable`) or of its
    watch-only link."""
    return {"edit_token": token} if editable else {"view_token": token}


def require_GET_when_watch_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that both links open, which takes changes from the edit link only: from the
    watch-only link (`editable` false) anything but GET is 405 Method Not Allowed, as
    require_GET answers it."""

    @wraps(view)
    def watched(request: HttpRequest, *args, editable: bool, **kwargs) -> HttpResponse:
        if not editable and request.method != "GET":
            response = HttpResponseNotAllowed(["GET"])
            log_response(
                "Method Not Allowed (%s): %s",
                request.method,
                request.path,
                response=response,
                request=request,
            )
            return response
        return view(request, *args, editable=editable, **kwargs)

    return watched
