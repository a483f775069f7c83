"""`manage.py restore_games FOLDER`: re-create the tables and games of a backup_games folder."""

import time
from collections.abc import Iterator
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.files import exchange
from scoring.files.backup import BATCH_SIZE, ROUNDS_PER_BATCH, TABLES, restore_batch, restore_table
from scoring.files.exchange import ExchangeError, loads
from scoring.management.commands.backup_games import plural_tables
from scoring.models import Game


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
        restored = present = read = 0
        paths = sorted(folder.glob("*.json"))
        said = time.monotonic()
        # Batches of a few hundred games, each in one short transaction (scoring.files.backup), a
        # pause between two so that a live server's saves get the lock (exchange.let_others_write).
        for batch in read_in_batches(paths):
            outcomes: dict[Path, Game | ExchangeError | OSError | None] = {
                path: error for path, error in batch.items() if isinstance(error, Exception)
            }
            documents = {
                path: document
                for path, document in batch.items()
                if not isinstance(document, Exception)
            }
            outcomes.update(zip(documents, restore_batch(list(documents.values())), strict=True))
            for path in batch:
                outcome = outcomes[path]
                if isinstance(outcome, Exception):
                    failed.append(path.name)
                    self.stderr.write(f"{path.name}: {outcome}")
                elif outcome is None:
                    present += 1
                else:
                    restored += 1
            read += len(batch)
            exchange.let_others_write()
            if time.monotonic() - said >= PROGRESS_SECONDS:
                said = time.monotonic()
                self.stderr.write(f"{read} of {len(paths)} games read")
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


# A restore of 10,000 games takes some 40 s: say how far it got this often.
PROGRESS_SECONDS = 5


def read_in_batches(paths: list[Path]) -> Iterator[dict[Path, object]]:
    """The files' documents (or the error reading one), in batches of at most BATCH_SIZE
    games and about ROUNDS_PER_BATCH rounds: a batch's transaction holds the write lock for
    about a second, however long the games."""
    batch: dict[Path, object] = {}
    rounds = 0
    for path in paths:
        try:
            document = loads(path.read_bytes())
        except (ExchangeError, OSError) as error:
            document = error
        batch[path] = document
        if isinstance(document, dict) and isinstance(document.get("rounds"), list):
            rounds += len(document["rounds"])
        if len(batch) >= BATCH_SIZE or rounds >= ROUNDS_PER_BATCH:
            yield batch
            batch, rounds = {}, 0
    if batch:
        yield batch
