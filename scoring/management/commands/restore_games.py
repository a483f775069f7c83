"""`manage.py restore_games FOLDER`: re-create the tables and games of a backup_games folder."""

from itertools import batched
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.backup import BATCH_SIZE, TABLES, restore_batch, restore_table
from scoring.exchange import ExchangeError, loads
from scoring.models import Game

from .backup_games import plural_tables


class Command(BaseCommand):
    help = (
        "Re-create every table and game backed up in FOLDER with its links (edit and view "
        "tokens). One already there is left alone; a bad file is named and skipped."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="a folder written by backup_games")

    def handle(self, *args, **options):
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        failed = self.restore_tables(folder)
        restored = present = 0
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

    def restore_tables(self, folder: Path) -> list[str]:
        """The tables first (FOLDER/tables, absent from a backup older than tables), so that
        their games find them; the names of the files not restored."""
        paths = sorted((folder / TABLES).glob("*.json"))
        if not paths:
            return []
        restored = present = 0
        failed = []
        for path in paths:
            name = f"{TABLES}/{path.name}"
            try:
                table = restore_table(loads(path.read_bytes()))
            except (ExchangeError, OSError) as error:
                failed.append(name)
                self.stderr.write(f"{name}: {error}")
                continue
            if table is None:
                present += 1
            else:
                restored += 1
        self.stdout.write(f"{restored} {plural_tables(restored)} restored, {present} already there")
        return failed
