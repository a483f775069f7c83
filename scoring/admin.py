"""The admin shows games as they are; rounds and hands are read-only there, since changing
them by hand would bypass the rules (the game page and the importer go through Game's methods)."""

from django.contrib import admin

from scoring.models import Game, GameEvent, Hand, Player, Round


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


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["__str__", "status", "version", "created_at", "updated_at"]
    list_filter = ["status"]
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
