"""Commands whose output is a log, not data: what they say goes out as the server's log lines
do, JSON lines on standard error (docs/deploy.md, "Logs"), through the logger `manage.<command>`
that the settings' LOGGING writes with rami_site.logs.JsonLinesFormatter. `migrate` (run by
rami-migrate.service at every start of a server), `backup_games` (by scripts/backup, every
night), `restore_games`, `delete_game` and `delete_table` are such commands: in the journal
beside the servers' lines, one format. A caller that hands a command streams of its own
(`call_command(..., stdout=...)`, the tests) gets the plain text as before."""

from __future__ import annotations

import io
import logging
import re
import sys

from django.core.management.base import BaseCommand

# A line that says why the command failed ("CommandError: ...", as Django writes it).
FAILURE = re.compile(r"^[A-Za-z]+(Error|Exception): ")


class LogLines(io.TextIOBase):
    """A text stream whose every line is a log record of `logger`: INFO, or ERROR for a line
    that says why the command failed. A line written in pieces (migrate's "Applying …" then
    " OK") is one record."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        self.pending = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            self._log(line)
        return len(text)

    def flush(self) -> None:
        """Nothing: a line is one record only once whole (migrate flushes half a line)."""

    def end(self) -> None:
        """The last line, when it had no end of line."""
        if self.pending:
            line, self.pending = self.pending, ""
            self._log(line)

    def _log(self, line: str) -> None:
        line = line.strip()
        if line:
            level = logging.ERROR if FAILURE.match(line) else logging.INFO
            self.logger.log(level, line)


class LoggedCommand(BaseCommand):
    """A command whose standard output and error are JSON log lines (LogLines), unless the
    caller handed it streams of its own. Run from the command line, a failure that is no
    CommandError (the database away) is one JSON line too, its traceback in `exception`, and
    exit status 1, instead of a traceback in plain text."""

    @property
    def logger(self) -> logging.Logger:
        return logging.getLogger(f"manage.{self.__module__.rsplit('.', 1)[-1]}")

    def run_from_argv(self, argv):
        try:
            super().run_from_argv(argv)
        except Exception as error:
            self.logger.exception("%s: %s", type(error).__name__, error)
            sys.exit(1)

    def execute(self, *args, **options):
        logger = self.logger
        streams = []
        for name in ("stdout", "stderr"):
            if not options.get(name):
                options[name] = LogLines(logger)
                streams.append(options[name])
        try:
            return super().execute(*args, **options)
        finally:
            for stream in streams:
                stream.end()
