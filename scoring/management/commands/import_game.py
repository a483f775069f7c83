"""`manage.py import_game FILE` (or `-` for standard input): a game from a rami-game/1 file."""

from django.core.management.base import BaseCommand, CommandError

from scoring.files.exchange import ExchangeError, import_game, loads
from scoring.management.files import read_document


class Command(BaseCommand):
    help = (
        "Create a game from a rami-game/1 file (- for standard input) and print its edit link path."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a rami-game/1 JSON file, or - for standard input")

    def handle(self, *args, **options):
        text = read_document(options["file"])
        try:
            game = import_game(loads(text))
        except ExchangeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"/g/{game.edit_token}/")
