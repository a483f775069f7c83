from django.urls import path, register_converter

from scoring import live, views
from scoring.models import TOKEN_PATTERN
from scoring.tables import views as table_views


class TokenConverter:
    """A game's token as models.new_token makes it (and a backup may bring back): URL-safe
    characters, 22 to 64 of them. Anything else (a NUL, a slash, a megabyte) is a 404 before
    any query."""

    regex = TOKEN_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TokenConverter, "token")


class RoundNumberConverter:
    """A round's number in an address: at most nine digits, so that it fits the column (a
    longer one is a 404, as a number past the last round is)."""

    regex = "[0-9]{1,9}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(RoundNumberConverter, "round")

# What a view of both links is told: opened by the edit link, or by the watch-only one (which
# changes nothing and shows no edit token).
EDIT = {"editable": True}
WATCH = {"editable": False}

urlpatterns = [
    path("", views.start, name="start"),
    path("healthz", views.healthz, name="healthz"),
    # The live updates' stream (scoring/live.py); under granian rami_site/asgi.py answers it.
    path("live/<str:key>", live.stream, name="live"),
    # A game: /g/ its edit link, /v/ its watch-only link; one view for each page, told by
    # `editable` which link it was opened by.
    path("g/<token:token>/", views.game_page, EDIT, name="game"),
    path("g/<token:token>/rounds/<round:number>/", views.round_page, name="round"),
    path("g/<token:token>/poll", views.poll, EDIT, name="poll"),
    path("v/<token:token>/", views.game_page, WATCH, name="view"),
    path("v/<token:token>/poll", views.poll, WATCH, name="view_poll"),
    path("g/<token:token>/export.json", views.export_json, EDIT, name="export_json"),
    path("g/<token:token>/export.csv", views.export_csv, EDIT, name="export_csv"),
    path("v/<token:token>/export.csv", views.export_csv, WATCH, name="view_export_csv"),
    path("v/<token:token>/export.json", views.export_json, WATCH, name="view_export_json"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("rules/", views.rules_page, name="rules"),
    path("g/<token:token>/rules/", views.game_rules_page, EDIT, name="game_rules"),
    path("v/<token:token>/rules/", views.game_rules_page, WATCH, name="view_rules"),
    path("g/<token:token>/history/", views.history_page, name="history"),
    # Tables: /t/ the edit link, /w/ the watch-only link ("new" is never a token).
    path("t/new/", table_views.table_start, name="table_start"),
    path("t/<token:token>/", table_views.table_page, EDIT, name="table"),
    path(
        "t/<token:token>/export.json", table_views.table_export_json, EDIT, name="table_export_json"
    ),
    # The rules of a table's next games: from its edit link only.
    path("t/<token:token>/rules/", table_views.table_rules, name="table_rules"),
    path("w/<token:token>/", table_views.table_page, WATCH, name="table_view"),
    path(
        "w/<token:token>/export.json",
        table_views.table_export_json,
        WATCH,
        name="table_view_export_json",
    ),
    path("g/<token:token>/keep/", table_views.keep_together, name="keep_together"),
    path("g/<token:token>/players/", views.players_page, name="players"),
]
