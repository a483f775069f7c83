"""`manage.py delete_table LINK [--with-games]`: delete a table for good, on request."""

from django.core.management.base import CommandError
from django.db.models import Q

from scoring.management.logged import LoggedCommand
from scoring.models import Table, token_of_link


class Command(LoggedCommand):
    help = (
        "Delete the table of LINK (its link or its watch-only link, whole or just the token) "
        "with its members and history, for good; with --with-games its games too, otherwise "
        "they stay, kept at no table. Its links are remembered, so that restore_games does not "
        "bring it back unless asked (--bring-back)."
    )

    def add_arguments(self, parser):
        parser.add_argument("link", help="the table's link, e.g. https://rami.example.org/t/…/")
        parser.add_argument(
            "--with-games", action="store_true", help="delete the table's games as well"
        )

    def handle(self, *args, **options):
        token = token_of_link(options["link"])
        if token is None:
            raise CommandError(f"not a link to a table: {options['link']}")
        table = Table.objects.filter(Q(edit_token=token) | Q(view_token=token)).first()
        if table is None:
            raise CommandError("no table has this link (deleted already, or never made here)")
        name, games = table.name, table.games.count()
        deleted = table.delete_on_request(with_games=options["with_games"])
        if options["with_games"]:
            self.stdout.write(f"deleted the table {name} and its {deleted} games")
        else:
            self.stdout.write(f"deleted the table {name}; its {games} games stay, at no table")
