"""`manage.py import_table FILE` (or `-` for standard input): a table and its games from a
rami-table/1 file."""

import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.exchange import ExchangeError, loads
from scoring.tables import import_table


class Command(BaseCommand):
    help = (
        "Create a table, its members and its games from a rami-table/1 file (- for standard "
        "input) and print its edit link path. A bad file creates nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a rami-table/1 JSON file, or - for standard input")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            if path == "-":
                text = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as file:
                    text = file.read()
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        try:
            table = import_table(loads(text))
        except ExchangeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"/t/{table.edit_token}/")
