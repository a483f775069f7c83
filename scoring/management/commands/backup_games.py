"""`manage.py backup_games FOLDER`: every game as a rami-game/1 backup file in FOLDER, and
every table (its name, members and house rules) in FOLDER/tables, and the links deleted on
request, as digests, in FOLDER/deleted.json.

The files hold the edit tokens, the keys to every game: FOLDER is made readable by its owner
only (0700), and each file too (0600). The files are named by the game's (or table's) number
in the database, never by a token, so that a listing of the folder gives no key away. A
backup goes into a folder of its own: one that holds anything already is refused, as merging
two backups would mix games deleted since with those still there. A write that fails (a full
disk) leaves no file of this backup behind, and says so in one line."""

import os
import shutil
from pathlib import Path

from django.core.management.base import CommandError

from scoring.files.backup import TABLES, backup_document, backup_table_document
from scoring.files.backup_files import DELETED_FILE, deleted_document
from scoring.files.exchange import dumps
from scoring.management.logged import LoggedCommand
from scoring.models import Game, Table


class Command(LoggedCommand):
    help = (
        "Write every game to FOLDER as game-<number>.json: its rami-game/1 export plus the "
        "tokens that restore_games needs to keep its links working; and every table to "
        "FOLDER/tables/table-<number>.json; the links deleted on request (digests) to "
        "FOLDER/deleted.json. FOLDER must be new or empty; it is made readable "
        "by its owner only."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="a new (or empty) folder for the files")

    def handle(self, *args, **options):
        folder: Path = options["folder"]
        made = private_folder(folder)
        written: list[Path] = []
        try:
            count = 0
            games = Game.objects.select_related("table").order_by("pk")
            for game in games.iterator(chunk_size=200):
                path = folder / f"game-{game.pk}.json"
                write_privately(path, dumps(backup_document(game)))
                written.append(path)
                count += 1
            # The links deleted on request, so that a restore of this backup into another
            # database (or after it) leaves them out as this one does.
            path = folder / DELETED_FILE
            write_privately(path, dumps(deleted_document()))
            written.append(path)
            tables = list(Table.objects.order_by("pk"))
            if tables:
                (folder / TABLES).mkdir(mode=0o700)
                for table in tables:
                    path = folder / TABLES / f"table-{table.pk}.json"
                    write_privately(path, dumps(backup_table_document(table)))
                    written.append(path)
        except OSError as error:
            # Nothing half made stays: a backup that is not whole would restore fewer games
            # than it seems to hold, and a full disk needs the room.
            if made:
                shutil.rmtree(folder, ignore_errors=True)
            else:
                for path in written:
                    path.unlink(missing_ok=True)
                shutil.rmtree(folder / TABLES, ignore_errors=True)
            name = getattr(error, "filename", None) or folder
            raise CommandError(
                f"cannot write {name}: {error.strerror or error}; nothing of this backup was kept"
            ) from None
        self.stdout.write(f"{count} games backed up to {folder}")
        if tables:
            self.stdout.write(
                f"{len(tables)} {plural_tables(len(tables))} backed up to {folder / TABLES}"
            )


def private_folder(folder: Path) -> bool:
    """Make `folder` (and its parents) with mode 0700, or take an empty one and make it 0700;
    a CommandError for one that holds anything. Whether it was made here."""
    try:
        folder.mkdir(mode=0o700, parents=True)
        made = True
    except FileExistsError:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder") from None
        if any(folder.iterdir()):
            raise CommandError(
                f"{folder} is not empty: back up into a new folder each time "
                "(e.g. one named by the date)"
            ) from None
        made = False
    except OSError as error:
        raise CommandError(f"cannot make {folder}: {error.strerror}") from None
    # mkdir's mode is cut by the umask; an empty folder given may be anyone's to read.
    os.chmod(folder, 0o700)
    return made


def plural_tables(count: int) -> str:
    return "table" if count == 1 else "tables"


def write_privately(path: Path, text: str) -> None:
    """Write the whole file or nothing, readable by its owner only: the edit token inside
    lets anyone change the game. A failed write (OSError, a full disk) leaves no partial file."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text + "\n")
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        if error.filename is None:
            error.filename = str(path)
        raise
