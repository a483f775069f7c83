"""`manage.py export_table TOKEN`: print a table and its games as a rami-table/1 document."""

from django.core.management.base import BaseCommand, CommandError

from scoring.files.exchange import export_table_text
from scoring.models import Table


class Command(BaseCommand):
    help = "Print the table with this edit token, its games included, as a rami-table/1 document."

    def add_arguments(self, parser):
        parser.add_argument("token", help="the table's edit token (the part after /t/ in its link)")

    def handle(self, *args, **options):
        table = Table.objects.filter(
            edit_token=options["token"].strip("/").removeprefix("t/")
        ).first()
        if table is None:
            raise CommandError("no table has this edit token")
        # Game by game, as the web page streams it: a big table's document is never held whole.
        for text in export_table_text(table):
            self.stdout.write(text, ending="")
        self.stdout.write("")
