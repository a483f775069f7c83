"""`manage.py restore_games FOLDER [--bring-back LINK ...]`: re-create the tables and games of a
backup_games folder. A game or table deleted on request (delete_game, delete_table), here or
when the backup was made (its deleted.json, merged into the database's first, and any of them
found here deleted again), is left out, unless its link is given with --bring-back. Each file
is read only when it is a regular file within the size limit (scoring/files/backup_files.py)."""

import time
from collections.abc import Iterator
from pathlib import Path

from django.core.management.base import CommandError

from scoring.files import exchange
from scoring.files.backup import (
    BATCH_SIZE,
    DELETED,
    ROUNDS_PER_BATCH,
    TABLES,
    LeftOut,
    restore_batch,
    restore_table,
)
from scoring.files.backup_files import (
    DELETED_FILE,
    delete_again,
    game_files,
    load_file,
    merge_deleted,
    read_deleted,
    subfolder,
)
from scoring.files.exchange import ExchangeError
from scoring.management.commands.backup_games import plural_tables
from scoring.management.logged import LoggedCommand
from scoring.models import DeletedLink, Game, token_of_link


class Command(LoggedCommand):
    help = (
        "Re-create every table and game backed up in FOLDER with its links (edit and view "
        "tokens). One already there is left alone; a bad file is named and skipped; one "
        "deleted on request is left out unless named with --bring-back."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="a folder written by backup_games")
        parser.add_argument(
            "--bring-back",
            action="append",
            default=[],
            metavar="LINK",
            help="a game or table deleted on request to restore all the same (its link or "
            "watch-only link); may be given more than once",
        )

    def handle(self, *args, **options):
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        links = []
        for link in options["bring_back"]:
            token = token_of_link(link)
            if token is None:
                raise CommandError(f"not a link to a game or a table: {link}")
            links.append(token)
        merged = self.merge_deleted(folder)
        for link, token in zip(options["bring_back"], links, strict=True):
            if not DeletedLink.forget(token):
                self.stderr.write(f"{link}: not deleted on request; restored as any other")
        games, tables = delete_again(merged)
        if games or tables:
            self.stdout.write(
                f"{games} games and {tables} {plural_tables(tables)} here deleted again: "
                f"deleted on request after they were saved, as {DELETED_FILE} lists them"
            )
        failed = self.restore_tables(folder)
        restored = present = deleted = read = 0
        paths = game_files(folder)
        said = time.monotonic()
        # Batches of a few hundred games, each in one short transaction (scoring.files.backup), a
        # pause between two so that a live server's saves get the lock (exchange.let_others_write).
        for batch in read_in_batches(paths):
            outcomes: dict[Path, Game | ExchangeError | LeftOut | None] = {
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
                elif outcome is DELETED:
                    deleted += 1
                else:
                    restored += 1
            read += len(batch)
            exchange.let_others_write()
            if time.monotonic() - said >= PROGRESS_SECONDS:
                said = time.monotonic()
                self.stderr.write(f"{read} of {len(paths)} games read")
        self.stdout.write(f"{restored} games restored, {present} already there")
        if deleted:
            self.stdout.write(f"{deleted} games left out: deleted on request")
        if failed:
            raise CommandError(f"not restored: {', '.join(failed)}")

    def merge_deleted(self, folder: Path) -> list[dict]:
        """The links deleted on request when the backup was made (FOLDER/deleted.json, absent
        from a backup older than it), remembered beside the database's own before anything is
        restored; a CommandError, nothing restored, when that file cannot be read."""
        path = folder / DELETED_FILE
        if not path.exists() and not path.is_symlink():
            return []
        try:
            entries = read_deleted(load_file(path))
        except ExchangeError as error:
            raise CommandError(
                f"{DELETED_FILE}: {error}; nothing restored (it lists the games and tables "
                "deleted on request, which no restore may bring back)"
            ) from None
        new = merge_deleted(entries)
        if new:
            self.stdout.write(
                f"{len(new)} deleted on request as {DELETED_FILE} lists them: remembered here, "
                "left out"
            )
        return new

    def restore_tables(self, folder: Path) -> list[str]:
        """The tables first (FOLDER/tables, absent from a backup older than tables), so that
        their games find them; the names of the files not restored."""
        try:
            tables = subfolder(folder, TABLES)
        except ExchangeError as error:
            self.stderr.write(f"{TABLES}: {error}")
            return [TABLES]
        paths = sorted(tables.glob("*.json")) if tables is not None else []
        if not paths:
            return []
        restored = present = deleted = 0
        failed = []
        for path in paths:
            name = f"{TABLES}/{path.name}"
            try:
                table = restore_table(load_file(path))
            except ExchangeError as error:
                failed.append(name)
                self.stderr.write(f"{name}: {error}")
                continue
            if table is None:
                present += 1
            elif table is DELETED:
                deleted += 1
            else:
                restored += 1
        self.stdout.write(f"{restored} {plural_tables(restored)} restored, {present} already there")
        if deleted:
            self.stdout.write(f"{deleted} {plural_tables(deleted)} left out: deleted on request")
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
            document = load_file(path)
        except ExchangeError as error:
            document = error
        batch[path] = document
        if isinstance(document, dict) and isinstance(document.get("rounds"), list):
            rounds += len(document["rounds"])
        if len(batch) >= BATCH_SIZE or rounds >= ROUNDS_PER_BATCH:
            yield batch
            batch, rounds = {}, 0
    if batch:
        yield batch
