"""`manage.py restore_games FOLDER`: re-create the games of a backup_games folder."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.backup import restore
from scoring.exchange import ExchangeError, loads


class Command(BaseCommand):
    help = (
        "Re-create every game backed up in FOLDER with its links (edit and view tokens). "
        "A game already there is left alone; a bad file is named and skipped."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="a folder written by backup_games")

    def handle(self, *args, **options):
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        restored = present = 0
        failed = []
        for path in sorted(folder.glob("*.json")):
            try:
                game = restore(loads(path.read_bytes()))
            except (ExchangeError, OSError) as error:
                failed.append(path.name)
                self.stderr.write(f"{path.name}: {error}")
                continue
            if game is None:
                present += 1
            else:
                restored += 1
        self.stdout.write(f"{restored} games restored, {present} already there")
        if failed:
            raise CommandError(f"not restored: {', '.join(failed)}")
