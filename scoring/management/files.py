"""What the import commands share: a document read from a file or standard input."""

import sys

from django.core.management.base import CommandError


def read_document(path: str) -> bytes:
    """The bytes of the file at `path` (`-`: standard input), or a CommandError that says
    why it cannot be read."""
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
