"""Pages drawn before each change had an address of its own posted every change to the page's
own address, naming it in an `action` field. For one release (CHANGELOG.md), such a post is
still answered, by the view that makes that change now; an action no page ever sent is a 400.
To be removed in the release after (tests/test_actions.py says which)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.views.decorators.http import require_POST

from scoring.views import history, players, rounds, start, table_changes
from scoring.web.http import HtmxHttpRequest


def dispatching(
    actions: Mapping[str | None, Callable[..., HttpResponse]],
    taken: tuple[str, ...] = ("token",),
    otherwise: Callable[..., HttpResponse] | None = None,
) -> Callable[..., HttpResponse]:
    """A view that answers a post by the view of its `action` (None: a post without one;
    `otherwise` for any other, else a 400), given the `taken` arguments of its address."""

    @require_POST
    def dispatched(request: HtmxHttpRequest, **kwargs) -> HttpResponse:
        action = actions.get(request.POST.get("action"), otherwise)
        if action is None:
            raise BadRequest("unknown action")
        return action(request, **{name: kwargs[name] for name in taken})

    return dispatched


game = dispatching(
    {
        None: rounds.save,
        "save": rounds.save,
        "preview": rounds.preview,
        "correct": rounds.correct,
        "replace": rounds.replace,
        "delete": rounds.delete,
        "undo": rounds.undo,
        "rematch": rounds.rematch,
    }
)
game_history = dispatching({"restore": history.restore, "go_back": history.go_back})
game_players = dispatching({None: players.names, "seating": players.seats})
table = dispatching(
    {
        "play": table_changes.play,
        "add_member": table_changes.add_member,
        "rename": table_changes.rename_member,
        "retire": table_changes.retire,
        "come_back": table_changes.come_back,
        "remove": table_changes.remove,
    }
)
# The start page's form started a game whatever else its post said.
home = dispatching(
    {"forget": start.forget, "target": start.target}, taken=(), otherwise=start.start
)
