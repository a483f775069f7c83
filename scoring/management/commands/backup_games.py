"""`manage.py backup_games FOLDER`: every game as a rami-game/1 backup file in FOLDER, and
every table (its name, members and house rules) in FOLDER/tables."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand

from scoring.files.backup import TABLES, backup_document, backup_table_document
from scoring.files.exchange import dumps
from scoring.models import Game, Table


class Command(BaseCommand):
    help = (
        "Write every game to FOLDER as <edit-token>.json: its rami-game/1 export plus the "
        "tokens that restore_games needs to keep its links working; and every table to "
        "FOLDER/tables/<edit-token>.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="where the files go (made if missing)")

    def handle(self, *args, **options):
        folder: Path = options["folder"]
        folder.mkdir(parents=True, exist_ok=True)
        count = 0
        for game in Game.objects.select_related("table").order_by("pk").iterator(chunk_size=200):
            write_privately(folder / f"{game.edit_token}.json", dumps(backup_document(game)))
            count += 1
        self.stdout.write(f"{count} games backed up to {folder}")
        tables = Table.objects.order_by("pk")
        if tables.exists():
            (folder / TABLES).mkdir(exist_ok=True)
            count = 0
            for table in tables.iterator(chunk_size=200):
                write_privately(
                    folder / TABLES / f"{table.edit_token}.json",
                    dumps(backup_table_document(table)),
                )
                count += 1
            self.stdout.write(f"{count} {plural_tables(count)} backed up to {folder / TABLES}")


def plural_tables(count: int) -> str:
    return "table" if count == 1 else "tables"


def write_privately(path: Path, text: str) -> None:
    """Write the whole file or nothing (a crash leaves the previous backup), readable by its
    owner only: the edit token inside lets anyone change the game."""
    partial = path.with_name(f".{path.name}.partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text + "\n")
    partial.replace(path)
