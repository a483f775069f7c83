"""`manage.py export_table TOKEN`: print a table and its games as a rami-table/1 document."""

from django.core.management.base import BaseCommand, CommandError

from scoring.exchange import dumps
from scoring.models import Table
from scoring.tables import export_table


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
        self.stdout.write(dumps(export_table(table)))
