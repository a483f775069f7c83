"""`manage.py import_table FILE` (or `-` for standard input): a table and its games from a
rami-table/1 file."""

from django.core.management.base import BaseCommand, CommandError

from scoring.exchange import ExchangeError, loads
from scoring.management.files import read_document
from scoring.tables import import_table


class Command(BaseCommand):
    help = (
        "Create a table, its members and its games from a rami-table/1 file (- for standard "
        "input) and print its edit link path. A bad file creates nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a rami-table/1 JSON file, or - for standard input")

    def handle(self, *args, **options):
        text = read_document(options["file"])
        try:
            table = import_table(loads(text))
        except ExchangeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"/t/{table.edit_token}/")
