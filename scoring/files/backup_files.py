"""What a backup folder holds besides its games' documents (scoring/files/backup.py), and how
restore_games reads it: each file bounded in size and a regular file (no link followed, no
device or FIFO read), so that no file put in a backup folder can make a restore take the
machine's memory or hang. docs/formats.md, "Backup files", says so.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from scoring.files import exchange
from scoring.files.exchange import ExchangeError

# The largest file a restore reads. The biggest game a file can hold (500 rounds, six players,
# the whole deck written out in every round) is about 1.2 MB as backup_games writes it; a table
# without its games and the deleted links are far smaller. A file past this is refused before
# any of it is read.
MAX_FILE_BYTES = 4 * 1024 * 1024


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
    """The games' files of a backup folder, by name: every *.json. A link or anything else
    that is not a file is listed too, for the restore to refuse by name."""
    return sorted(folder.glob("*.json"))


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
