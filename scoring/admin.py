"""The admin shows games and tables as they are; rounds, hands and members are read-only
there, since changing them by hand would bypass the rules (the pages and the importer go
through the models' methods).

A game or a table is found by its link pasted into the search box (either link, whole or just
the token), or by a player's or the table's name. Deleting one there is a deletion on request
(docs/deploy.md, "Privacy"), as `manage.py delete_game` and `delete_table` do: its links are
remembered so that no restore brings it back. A table deleted there keeps its games, at no
table (`delete_table --with-games` deletes them too)."""

from django.contrib import admin
from django.db.models import Q

from scoring.models import (
    Game,
    GameEvent,
    Hand,
    Member,
    Player,
    Round,
    Table,
    delete_game,
    token_of_link,
)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class PlayerInline(ReadOnlyInline):
    model = Player
    fields = ["seat", "name"]


class HandInline(ReadOnlyInline):
    model = Hand
    fields = ["player", "cards", "value", "opened", "points"]


class FoundByLink:
    """A search that is a link (or a token) finds the one row with that edit or watch-only
    token; any other search is the admin's own, by name."""

    def get_search_results(self, request, queryset, search_term):
        token = token_of_link(search_term)
        if token is not None:
            found = queryset.filter(Q(edit_token=token) | Q(view_token=token))
            if found.exists():
                return found, False
        return super().get_search_results(request, queryset, search_term)


@admin.register(Game)
class GameAdmin(FoundByLink, admin.ModelAdmin):
    list_display = ["__str__", "table", "status", "version", "created_at", "updated_at"]
    list_filter = ["status"]
    list_select_related = ["table"]
    search_fields = ["players__name", "table__name"]
    readonly_fields = [
        "edit_token",
        "view_token",
        "version",
        "first_dealer",
        "status",
        "winner_seat",
        "created_at",
        "updated_at",
    ]
    inlines = [PlayerInline]

    def delete_model(self, request, obj):
        delete_game(obj)

    def delete_queryset(self, request, queryset):
        for game in queryset:
            delete_game(game)


class MemberInline(ReadOnlyInline):
    model = Member
    fields = ["position", "name", "retired"]


class TableGameInline(ReadOnlyInline):
    model = Game
    fields = ["status", "created_at"]
    readonly_fields = ["status", "created_at"]
    show_change_link = True


@admin.register(Table)
class TableAdmin(FoundByLink, admin.ModelAdmin):
    list_display = ["name", "version", "created_at", "updated_at"]
    search_fields = ["name", "members__name"]
    readonly_fields = ["edit_token", "view_token", "version", "created_at", "updated_at"]
    fields = ["name", *readonly_fields]
    inlines = [MemberInline, TableGameInline]

    def has_change_permission(self, request, obj=None):
        # A table changes through its own methods (its page), never by hand.
        return False

    def delete_model(self, request, obj):
        obj.delete_on_request(with_games=False)

    def delete_queryset(self, request, queryset):
        for table in queryset:
            table.delete_on_request(with_games=False)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["__str__", "game", "winner_seat", "hand_rummy", "updated_at"]
    readonly_fields = ["game", "number", "winner_seat", "hand_rummy", "created_at", "updated_at"]
    inlines = [HandInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin):
    list_display = ["__str__", "game", "created_at", "restored"]
    list_filter = ["kind"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
