"""`manage.py restore_games FOLDER`: re-create the games of a backup_games folder."""

from itertools import batched
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.backup import BATCH_SIZE, restore_batch
from scoring.exchange import ExchangeError, loads
from scoring.models import Game


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
        # A few hundred files at a time, each batch in one transaction (scoring.backup).
        for paths in batched(sorted(folder.glob("*.json")), BATCH_SIZE):
            outcomes: dict[Path, Game | ExchangeError | OSError | None] = {}
            documents = {}
            for path in paths:
                try:
                    documents[path] = loads(path.read_bytes())
                except (ExchangeError, OSError) as error:
                    outcomes[path] = error
            outcomes.update(zip(documents, restore_batch(list(documents.values())), strict=True))
            for path in paths:
                outcome = outcomes[path]
                if isinstance(outcome, Exception):
                    failed.append(path.name)
                    self.stderr.write(f"{path.name}: {outcome}")
                elif outcome is None:
                    present += 1
                else:
                    restored += 1
        self.stdout.write(f"{restored} games restored, {present} already there")
        if failed:
            raise CommandError(f"not restored: {', '.join(failed)}")
