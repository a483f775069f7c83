"""`manage.py import_game FILE` (or `-` for standard input): a game from a rami-game/1 file."""

import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.exchange import ExchangeError, import_game, loads


class Command(BaseCommand):
    help = (
        "Create a game from a rami-game/1 file (- for standard input) and print its edit link path."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a rami-game/1 JSON file, or - for standard input")

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
            game = import_game(loads(text))
        except ExchangeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"/g/{game.edit_token}/")
