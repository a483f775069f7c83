"""`manage.py import_table FILE` (or `-` for standard input): a table and its games from a
rami-table/1 file."""

import time

from django.core.management.base import BaseCommand, CommandError

from scoring.files.exchange import ExchangeError, import_table, loads
from scoring.management.files import read_document


class Command(BaseCommand):
    help = (
        "Create a table, its members and its games from a rami-table/1 file (- for standard "
        "input) and print its edit link path. A bad file creates nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a rami-table/1 JSON file, or - for standard input")

    def handle(self, *args, **options):
        text = read_document(options["file"])
        self.last_said = time.monotonic()
        try:
            table = import_table(loads(text), progress=self.progress)
        except ExchangeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"/t/{table.edit_token}/")

    def progress(self, made: int, games: int) -> None:
        """A line on standard error every PROGRESS_SECONDS of a long import."""
        if time.monotonic() - self.last_said >= PROGRESS_SECONDS:
            self.last_said = time.monotonic()
            self.stderr.write(f"{made} of {games} games imported")


# A big table (2,000 games) takes minutes: say how far it got this often.
PROGRESS_SECONDS = 5
