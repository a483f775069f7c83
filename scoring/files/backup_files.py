"""What a backup folder holds besides its games' documents (scoring/files/backup.py), and how
restore_games reads it: each file bounded in size and a regular file (no link followed, no
device or FIFO read), so that no file put in a backup folder can make a restore take the
machine's memory or hang; and deleted.json, the links deleted on request (their digests,
scoring/models/deleted.py), carried in every backup so that no restore brings one back.
docs/formats.md, "Backup files", says both.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from django.db import transaction
from django.db.models import Q

from scoring.files import exchange
from scoring.files.exchange import ExchangeError
from scoring.models import DeletedLink, Game, Table, delete_game
from scoring.models.deleted import digest

# The largest file a restore reads. The biggest game a file can hold (500 rounds, six players,
# the whole deck written out in every round) is about 1.2 MB as backup_games writes it; a table
# without its games and the deleted links are far smaller. A file past this is refused before
# any of it is read.
MAX_FILE_BYTES = 4 * 1024 * 1024

# The links deleted on request, in the games' folder of a backup (beside game-<number>.json).
DELETED_FILE = "deleted.json"
DELETED_FORMAT = "rami-deleted/1"
DELETED_FIELDS = ("kind", "edit_digest", "view_digest", "deleted_at")
HEX = frozenset("0123456789abcdef")


def read_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a backup's file; ExchangeError, one line, when it is a symbolic link (never
    followed), not a regular file (a folder, a device, a FIFO, a socket), larger than `limit`
    or cannot be read. Its size is looked at before anything is read, and the read stops at
    the limit whatever the size said."""
    try:
        found = os.lstat(path)
    except OSError as error:
        raise ExchangeError(f"cannot read it: {error.strerror}") from None
    _check_kind(found.st_mode)
    _check_size(found.st_size, limit)
    try:
        # O_NOFOLLOW: a link put in its place since is refused; O_NONBLOCK: a FIFO put there
        # does not hang the open.
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise ExchangeError(f"cannot read it: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as file:
        opened = os.fstat(file.fileno())
        _check_kind(opened.st_mode)
        _check_size(opened.st_size, limit)
        try:
            data = file.read(limit + 1)
        except OSError as error:
            raise ExchangeError(f"cannot read it: {error.strerror}") from None
    _check_size(len(data), limit)
    return data


def _check_kind(mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise ExchangeError("a symbolic link, not a file: not followed")
    if not stat.S_ISREG(mode):
        raise ExchangeError("not a regular file (a folder, a device or a FIFO): not read")


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise ExchangeError(
            f"{size:,} bytes, over the limit of {limit:,} bytes for a backup file: not read"
        )


def load_file(path: Path) -> object:
    """The JSON document of a backup's file (read_file's checks first); ExchangeError else."""
    return exchange.loads(read_file(path))


def game_files(folder: Path) -> list[Path]:
    """The games' files of a backup folder, by name: every *.json but deleted.json. A link or
    anything else that is not a file is listed too, for the restore to refuse by name."""
    return sorted(path for path in folder.glob("*.json") if path.name != DELETED_FILE)


def subfolder(folder: Path, name: str) -> Path | None:
    """FOLDER/name when it is a folder (a backup older than tables has none: None);
    ExchangeError when it is a symbolic link or anything else, never followed."""
    path = folder / name
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ExchangeError(f"cannot read it: {error.strerror}") from None
    if stat.S_ISLNK(found.st_mode):
        raise ExchangeError("a symbolic link, not a folder: not followed")
    if not stat.S_ISDIR(found.st_mode):
        raise ExchangeError("not a folder")
    return path


# The links deleted on request.


def deleted_document() -> dict:
    """Every link deleted on request, as digests (they open nothing), for deleted.json."""
    rows = DeletedLink.objects.order_by("deleted_at", "pk")
    return {
        "format": DELETED_FORMAT,
        "deleted": [
            {
                "kind": row.kind,
                "edit_digest": row.edit_digest,
                "view_digest": row.view_digest,
                "deleted_at": row.deleted_at.isoformat(),
            }
            for row in rows
        ],
    }


def read_deleted(document: object) -> list[dict]:
    """The deleted links of a deleted.json document, checked; ExchangeError, one line, else."""
    if not isinstance(document, Mapping) or document.get("format") != DELETED_FORMAT:
        raise ExchangeError(f'not a list of deleted links: "format" is not "{DELETED_FORMAT}"')
    entries = document.get("deleted")
    if not isinstance(entries, list):
        raise ExchangeError('"deleted" must be a list')
    kinds = set(DeletedLink.Kind.values)
    checked = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, Mapping) or set(entry) != set(DELETED_FIELDS):
            raise ExchangeError(f'"deleted" {number}: must have {", ".join(DELETED_FIELDS)}')
        if entry["kind"] not in kinds:
            raise ExchangeError(f'"deleted" {number}: "kind" is "game" or "table"')
        for field in ("edit_digest", "view_digest"):
            if not _is_digest(entry[field]):
                raise ExchangeError(f'"deleted" {number}: "{field}" is not a SHA-256 digest')
        deleted_at = exchange.read_moment(entry["deleted_at"])
        if deleted_at is None:
            raise ExchangeError(
                f'"deleted" {number}: "deleted_at" is not a date and time {exchange.YEARS}'
            )
        checked.append({**entry, "deleted_at": deleted_at})
    return checked


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= HEX


def merge_deleted(entries: list[dict]) -> list[dict]:
    """Remember the deleted links of a backup beside the database's own (one transaction):
    a restore then leaves out what either lists. Those that were new here."""
    digests = {entry[field] for entry in entries for field in ("edit_digest", "view_digest")}
    if not digests:
        return []
    with transaction.atomic():
        known = DeletedLink.objects.filter(
            Q(edit_digest__in=digests) | Q(view_digest__in=digests)
        ).values_list("edit_digest", "view_digest")
        seen = {digest for pair in known for digest in pair}
        new = []
        for entry in entries:
            if {entry["edit_digest"], entry["view_digest"]} & seen:
                continue
            row = DeletedLink.objects.create(
                kind=entry["kind"],
                edit_digest=entry["edit_digest"],
                view_digest=entry["view_digest"],
            )
            # deleted_at is auto_now_add: when it was deleted goes in afterwards.
            DeletedLink.objects.filter(pk=row.pk).update(deleted_at=entry["deleted_at"])
            seen |= {entry["edit_digest"], entry["view_digest"]}
            new.append(entry)
    return new


def delete_again(entries: list[dict]) -> tuple[int, int]:
    """The games and tables here that these deleted links name (a database restored from a
    night before their deletion, then a later backup's list merged), deleted on request again,
    each as delete_game and delete_table (its games each by their own link) delete them; but
    none whose link is no longer remembered (brought back, --bring-back). How many games and
    tables."""
    still = DeletedLink.objects.filter(
        edit_digest__in={entry["edit_digest"] for entry in entries}
    ).values_list("edit_digest", "view_digest")
    listed = {digest_ for pair in still for digest_ in pair}
    if not listed:
        return 0, 0
    counts = []
    for model in (Table, Game):
        rows = model.objects.order_by("pk").values_list("pk", "edit_token", "view_token")
        named = [
            pk
            for pk, edit_token, view_token in rows.iterator(chunk_size=2000)
            if digest(edit_token) in listed or digest(view_token) in listed
        ]
        for row in model.objects.filter(pk__in=named).order_by("pk"):
            if isinstance(row, Table):
                row.delete_on_request(with_games=False)
            else:
                delete_game(row)
        counts.append(len(named))
    tables, games = counts
    return games, tables
