"""Log records as JSON lines on one stream, for whatever collects the server's output, with the
tokens in paths masked (a link is its key, and logs travel further than the database): Django's
lines here, granian's through rami_site/granian_logging.json. A repeated failure's traceback is
written once every TRACEBACK_EVERY seconds (docs/deploy.md, "Logs")."""

import json
import logging
import os
import re
import threading
import time
import traceback
from datetime import UTC, datetime

from scoring.web.clients import client_address

# /g/<edit-token>/... and /v/<view-token>/... (a game's), /t/<edit-token>/... and
# /w/<view-token>/... (a table's), alone or inside a message; /t/new/ is no token. The URLs:
# docs/architecture.md. A live stream's key (/live/g<view-token>:<signature>) holds the
# watch-only token too. Near misses are masked as well, for they hold a token all the same: a
# capital letter (/G/..., a phone's keyboard), slashes doubled, punctuation glued to the token
# (a link pasted from a sentence, "/g/<token>)." or "/g/'<token>'"): the whole part of the
# path after the letter (blanks before it too: a decoded %20), up to the next "/", "?", "#",
# quote or blank.
TOKEN_IN_PATH = re.compile(r"/([gvtw])/+\s*(?!new(?=[/?#\s\"']|$))[^/?#\s\"]+", re.IGNORECASE)
LIVE_KEY_IN_PATH = re.compile(r"/live/+[^\s?\"]+", re.IGNORECASE)

# Seconds between two tracebacks of the same failure.
TRACEBACK_EVERY = 60

YES = {"1", "true", "yes", "on"}


def path_without_token(text: str) -> str:
    """The text with any game's or table's token replaced, so that a log line grants nothing."""
    return LIVE_KEY_IN_PATH.sub("/live/<key>", TOKEN_IN_PATH.sub(r"/\1/<token>", text))


def trusting_forwarded() -> bool:
    """RAMI_TRUST_X_FORWARDED_FOR, read where Django's settings may not be (granian's main
    process writes access lines too); the settings read the same variable."""
    return (os.environ.get("RAMI_TRUST_X_FORWARDED_FOR") or "").strip().lower() in YES


class JsonLinesFormatter(logging.Formatter):
    """Formats a record as one line of JSON: time, level, logger, message, and when there is
    one the traceback (`exception`, once a minute for the same failure) and the request
    (`method`, `path`, `status`, `client`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # When each failure's traceback was last written (time.monotonic()), by failure.
        self._tracebacks: dict[tuple, float] = {}
        self._lock = threading.Lock()

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": path_without_token(record.getMessage()),
        }
        if record.name == "granian.access" and isinstance(record.args, dict):
            line.update(self._access(record.args))
            line["message"] = (
                f'{line.get("client", "-")} "{line.get("method", "-")} {line.get("path", "-")} '
                f'{record.args.get("protocol", "-")}" {line.get("status", "-")}'
            )
        request = getattr(record, "request", None)
        if request is not None and hasattr(request, "path"):
            line["method"] = request.method
            line["path"] = path_without_token(request.path)
            line["client"] = _client_of(request)
        status = getattr(record, "status_code", None)
        if status is not None:
            line["status"] = status
        if record.exc_info:
            line["exception"] = path_without_token(self._exception(record.exc_info))
        elif record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # Never let a record that cannot be serialised break logging itself.
        return json.dumps(line, ensure_ascii=False, default=str)

    def _exception(self, exc_info) -> str:
        """The traceback, or only its last line when the same failure's was written less than
        TRACEBACK_EVERY seconds ago."""
        kind, error, stack = exc_info
        frames = traceback.extract_tb(stack) if stack is not None else []
        where = (frames[-1].filename, frames[-1].lineno) if frames else None
        failure = (getattr(kind, "__qualname__", str(kind)), where)
        now = time.monotonic()
        with self._lock:
            last = self._tracebacks.get(failure)
            if last is None or now - last >= TRACEBACK_EVERY:
                self._tracebacks[failure] = now
                if len(self._tracebacks) > 1000:  # forget the failures of long ago
                    self._tracebacks = {
                        key: at
                        for key, at in self._tracebacks.items()
                        if now - at < TRACEBACK_EVERY
                    }
                return self.formatException(exc_info)
        told = "".join(traceback.format_exception_only(kind, error)).strip()
        return f"{told} (its traceback was written less than {TRACEBACK_EVERY} s ago)"

    @staticmethod
    def _access(atoms: dict) -> dict[str, object]:
        """The fields of one of granian's access lines, from its atoms (granian.log)."""
        fields: dict[str, object] = {}
        for name in ("method", "status"):
            if name in atoms:
                fields[name] = atoms[name]
        if "path" in atoms:
            fields["path"] = path_without_token(str(atoms["path"]))
        if "dt_ms" in atoms:
            fields["ms"] = round(float(atoms["dt_ms"]), 1)
        if "addr" in atoms:
            # scripts/serve's format asks granian for X-Forwarded-For as its first header.
            forwarded = str(atoms.get("_h0", ""))
            fields["client"] = client_address(str(atoms["addr"]), forwarded, trusting_forwarded())
        return fields


def _client_of(request) -> str:
    from django.conf import settings

    return client_address(
        request.META.get("REMOTE_ADDR", ""),
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        getattr(settings, "RAMI_TRUST_X_FORWARDED_FOR", False),
    )


class Seldom(logging.Filter):
    """Lets through one record a minute of those whose message starts with one of `prefixes`,
    saying how many like it were left out since. granian writes "ASGI transport error:
    Closed(..)" each time a phone goes away while its answer is sent (a closed tab, a phone
    that lost its network): hundreds an evening, none of them anything to act on."""

    def __init__(self, prefixes: list[str] | tuple[str, ...] = ("ASGI transport error",)) -> None:
        super().__init__()
        self.prefixes = tuple(prefixes)
        self.last = -float(TRACEBACK_EVERY)
        self.left_out = 0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith(self.prefixes):
            return True
        now = time.monotonic()
        with self._lock:
            if now - self.last < TRACEBACK_EVERY:
                self.left_out += 1
                return False
            self.last, left_out, self.left_out = now, self.left_out, 0
        if left_out:
            record.msg = f"{record.getMessage()} ({left_out} more like it in the last minute)"
            record.args = None
        return True
