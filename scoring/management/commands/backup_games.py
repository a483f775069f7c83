"""`manage.py backup_games FOLDER`: every game as a rami-game/1 backup file in FOLDER."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand

from scoring.backup import backup_document
from scoring.exchange import dumps
from scoring.models import Game


class Command(BaseCommand):
    help = (
        "Write every game to FOLDER as <edit-token>.json: its rami-game/1 export plus the "
        "tokens that restore_games needs to keep its links working."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="where the files go (made if missing)")

    def handle(self, *args, **options):
        folder: Path = options["folder"]
        folder.mkdir(parents=True, exist_ok=True)
        count = 0
        for game in Game.objects.order_by("pk").iterator(chunk_size=200):
            write_privately(folder / f"{game.edit_token}.json", dumps(backup_document(game)))
            count += 1
        self.stdout.write(f"{count} games backed up to {folder}")


def write_privately(path: Path, text: str) -> None:
    """Write the whole file or nothing (a crash leaves the previous backup), readable by its
    owner only: the edit token inside lets anyone change the game."""
    partial = path.with_name(f".{path.name}.partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text + "\n")
    partial.replace(path)
