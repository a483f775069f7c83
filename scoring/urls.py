from django.urls import path, register_converter

from scoring.live import check, stream
from scoring.models import TOKEN_PATTERN
from scoring.views import (
    exports,
    games,
    health,
    history,
    legacy,
    pages,
    players,
    poll,
    rounds,
    start,
    table_changes,
    tables,
)
from scoring.web.http import by_method


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


class IdConverter(RoundNumberConverter):
    """A row's id in an address (a round's, to take it back): at most 18 digits, as
    web.http.whole_number reads one."""

    regex = "[0-9]{1,18}"


register_converter(IdConverter, "id")

# What a view of both links is told: opened by the edit link, or by the watch-only one (which
# changes nothing and shows no edit token).
EDIT = {"editable": True}
WATCH = {"editable": False}

urlpatterns = [
    # The start page, and what it posts besides a new game.
    path("", by_method(GET=start.start, POST=legacy.home), name="start"),
    path("forget/", start.forget, name="forget"),
    path("target/", start.target, name="target"),
    path("healthz", pages.healthz, name="healthz"),
    # The whole site's readiness and its numbers, for a monitor (docs/deploy.md, "Monitoring").
    path("readyz", health.readyz, name="readyz"),
    path("metrics", health.metrics_page, name="metrics"),
    path("manifest.webmanifest", pages.manifest, name="manifest"),
    path("rules/", pages.rules_page, name="rules"),
    # The live updates' stream and version check (scoring/live/); under granian rami_site/asgi.py
    # answers them.
    path("live/<str:key>", stream.stream, name="live"),
    path("live/<str:key>/version", check.check, name="live_check"),
    # A game: /g/ its edit link, /v/ its watch-only link, each page told by `editable` which
    # link opened it. The edit link's own address still takes the posts of pages drawn before
    # each change had its own (legacy, one release).
    path("g/<token:token>/", by_method(GET=games.game_page, POST=legacy.game), EDIT, name="game"),
    path("v/<token:token>/", games.game_page, WATCH, name="view"),
    path("g/<token:token>/rounds/", games.all_rounds, EDIT, name="all_rounds"),
    path("v/<token:token>/rounds/", games.all_rounds, WATCH, name="view_all_rounds"),
    path("g/<token:token>/extras/", games.extras, EDIT, name="extras"),
    path("v/<token:token>/extras/", games.extras, WATCH, name="view_extras"),
    path("g/<token:token>/poll", poll.poll, EDIT, name="poll"),
    # Each link's QR code, at its own address (the share panel's <img>).
    path("g/<token:token>/qr.svg", pages.qr_code, {"link": "game"}, name="game_qr"),
    path("v/<token:token>/qr.svg", pages.qr_code, {"link": "view"}, name="view_qr"),
    path("v/<token:token>/poll", poll.poll, WATCH, name="view_poll"),
    # The changes of the game page, one address each (scoring/views/rounds.py).
    path("g/<token:token>/save/", rounds.save, name="save"),
    path("g/<token:token>/preview/", rounds.preview, name="preview"),
    path("g/<token:token>/correct/", rounds.correct, name="correct"),
    path("g/<token:token>/replace/", rounds.replace, name="replace"),
    path("g/<token:token>/delete/", rounds.delete, name="delete"),
    path("g/<token:token>/undo/", rounds.undo, name="undo"),
    path("g/<token:token>/rematch/", rounds.rematch, name="rematch"),
    path("g/<token:token>/fix/<id:pk>/", games.fix_round, name="fix"),
    path("g/<token:token>/rounds/<round:number>/", rounds.round_page, name="round"),
    path(
        "g/<token:token>/history/",
        by_method(GET=history.history_page, POST=legacy.game_history),
        name="history",
    ),
    path("g/<token:token>/history/restore/", history.restore, name="restore"),
    path("g/<token:token>/history/go-back/", history.go_back, name="go_back"),
    path(
        "g/<token:token>/players/",
        by_method(GET=players.players_page, POST=legacy.game_players),
        name="players",
    ),
    path("g/<token:token>/players/names/", players.names, name="names"),
    path("g/<token:token>/players/seats/", players.seats, name="seats"),
    path("g/<token:token>/players/leave/", players.leave, name="leave"),
    path("g/<token:token>/players/join/", players.join, name="join"),
    path("g/<token:token>/players/come-back/", players.come_back, name="player_comes_back"),
    path("g/<token:token>/export.json", exports.export_json, EDIT, name="export_json"),
    path("g/<token:token>/export.csv", exports.export_csv, EDIT, name="export_csv"),
    path("v/<token:token>/export.csv", exports.export_csv, WATCH, name="view_export_csv"),
    path("v/<token:token>/export.json", exports.export_json, WATCH, name="view_export_json"),
    path("g/<token:token>/rules/", pages.game_rules_page, EDIT, name="game_rules"),
    path("v/<token:token>/rules/", pages.game_rules_page, WATCH, name="view_rules"),
    path("g/<token:token>/keep/", tables.keep_together, name="keep_together"),
    # Tables: /t/ the edit link, /w/ the watch-only link ("new" is never a token).
    path("t/new/", tables.table_start, name="table_start"),
    path(
        "t/<token:token>/", by_method(GET=tables.table_page, POST=legacy.table), EDIT, name="table"
    ),
    path("w/<token:token>/", tables.table_page, WATCH, name="table_view"),
    path("t/<token:token>/qr.svg", pages.qr_code, {"link": "table"}, name="table_qr"),
    path("w/<token:token>/qr.svg", pages.qr_code, {"link": "table_view"}, name="table_view_qr"),
    path("t/<token:token>/play/", table_changes.play, name="play"),
    path("t/<token:token>/members/add/", table_changes.add_member, name="add_member"),
    path("t/<token:token>/members/rename/", table_changes.rename_member, name="rename_member"),
    path("t/<token:token>/members/retire/", table_changes.retire, name="retire"),
    path("t/<token:token>/members/come-back/", table_changes.come_back, name="come_back"),
    path("t/<token:token>/members/remove/", table_changes.remove, name="remove_member"),
    # The rules of a table's next games: from its edit link only.
    path("t/<token:token>/rules/", tables.table_rules, name="table_rules"),
    path("t/<token:token>/export.json", tables.table_export_json, EDIT, name="table_export_json"),
    path(
        "w/<token:token>/export.json",
        tables.table_export_json,
        WATCH,
        name="table_view_export_json",
    ),
]
