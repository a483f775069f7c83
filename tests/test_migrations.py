"""Migrations that move what is stored keep every bit of it."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(to: str):
    """The app's models as they were at migration `to`, after migrating there."""
    executor = MigrationExecutor(connection)
    target = [("scoring", to)]
    executor.migrate(target)
    executor.loader.build_graph()
    return executor.loader.project_state(target).apps


def test_a_tables_history_keeps_its_rules_changes_and_renames_in_their_own_fields():
    old = migrate("0011_live_notify")
    Table = old.get_model("scoring", "Table")
    TableEvent = old.get_model("scoring", "TableEvent")
    table = Table.objects.create(name="Friday", edit_token="e" * 32, view_token="v" * 32)
    TableEvent.objects.create(table=table, kind="rules", before={}, after={"joker": 50})
    TableEvent.objects.create(table=table, kind="renamed", name="Borek", before={"name": "Boris"})
    TableEvent.objects.create(table=table, kind="joined", name="Cyril")
    try:
        new = migrate("0012_table_event_fields")
        events = new.get_model("scoring", "TableEvent").objects.order_by("pk")
        assert [(e.kind, e.name, e.name_before, e.rules_before, e.rules_after) for e in events] == [
            ("rules", "", "", {}, {"joker": 50}),
            ("renamed", "Borek", "Boris", None, None),
            ("joined", "Cyril", "", None, None),
        ]
        # And back again, as it was.
        old = migrate("0011_live_notify")
        events = old.get_model("scoring", "TableEvent").objects.order_by("pk")
        assert [(e.before, e.after) for e in events] == [
            ({}, {"joker": 50}),
            ({"name": "Boris"}, None),
            (None, None),
        ]
    finally:
        migrate_latest()


def migrate_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("scoring"))


def test_0013_gives_each_kept_round_the_dealer_the_page_showed():
    old = migrate("0012_table_event_fields")
    Game, Player, Round = (old.get_model("scoring", name) for name in ("Game", "Player", "Round"))
    # Ana deals first; from round 3 the seats go Cyril, Boris, Ana, Cyril dealing.
    game = Game.objects.create(
        edit_token="e" * 32,
        view_token="v" * 32,
        first_dealer=0,
        seating=[{"from": 3, "dealer": 2, "order": [2, 1, 0]}],
    )
    for seat, name in enumerate(["Ana", "Boris", "Cyril"]):
        Player.objects.create(game=game, seat=seat, name=name, name_key=name.casefold())
    for number in range(1, 6):
        Round.objects.create(game=game, number=number)
    try:
        new = migrate("0013_players_come_and_go")
        rounds = new.get_model("scoring", "Round").objects.filter(game_id=game.pk)
        assert list(rounds.order_by("number").values_list("dealer", flat=True)) == [0, 1, 2, 1, 0]
        assert new.get_model("scoring", "Game").objects.get(pk=game.pk).target_players == 3
    finally:
        migrate_latest()
