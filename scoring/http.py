"""What the views of games and of tables both stand on: the typed request, the redirect that
suits htmx and plain forms alike, and the method check of a view that both links open."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.utils.log import log_response
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """Go to `url`: a client-side redirect for htmx, a 303 See Other otherwise."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url, status=303)


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
