"""Log records as JSON lines, one object per line, for whatever collects the server's output.

Settings use `JsonLinesFormatter` for every record that reaches the console. A record from
`django.request` (an unhandled error, a 404) also carries the request's method, path and the
response status. Tokens in paths (a game's /g/ and /v/, a table's /t/ and /w/) are replaced by
`<token>`: a link is its key, and logs travel further than the database.

The production server's access log (granian's `granian.access` logger) goes through the same
formatter: scripts/serve hands granian `rami_site/granian_logging.json`, so its lines are JSON
lines too, their paths masked the same way.
"""

import json
import logging
import re
from datetime import UTC, datetime

# /g/<edit-token>/... and /v/<view-token>/... (a game's), /t/<edit-token>/... and
# /w/<view-token>/... (a table's), alone or inside a message; /t/new/ is no token. The URLs:
# docs/architecture.md.
TOKEN_IN_PATH = re.compile(r"/([gvtw])/(?!new(?![A-Za-z0-9_-]))[A-Za-z0-9_-]+")


def path_without_token(text: str) -> str:
    """The text with any game's or table's token replaced, so that a log line grants nothing."""
    return TOKEN_IN_PATH.sub(r"/\1/<token>", text)


class JsonLinesFormatter(logging.Formatter):
    """Formats a record as one line of JSON: time, level, logger, message, and when there is
    one the traceback (`exception`) and the request (`method`, `path`, `status`)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": path_without_token(record.getMessage()),
        }
        request = getattr(record, "request", None)
        if request is not None and hasattr(request, "path"):
            line["method"] = request.method
            line["path"] = path_without_token(request.path)
        status = getattr(record, "status_code", None)
        if status is not None:
            line["status"] = status
        if record.exc_info:
            line["exception"] = path_without_token(self.formatException(record.exc_info))
        elif record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # Never let a record that cannot be serialised break logging itself.
        return json.dumps(line, ensure_ascii=False, default=str)
