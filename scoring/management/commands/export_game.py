"""`manage.py export_game TOKEN`: print a game as a rami-game/1 document."""

from django.core.management.base import BaseCommand, CommandError

from scoring.files.exchange import dumps, export_game
from scoring.models import Game


class Command(BaseCommand):
    help = "Print the game with this edit token as a rami-game/1 JSON document."

    def add_arguments(self, parser):
        parser.add_argument("token", help="the game's edit token (the part after /g/ in its link)")

    def handle(self, *args, **options):
        game = Game.objects.filter(
            edit_token=options["token"].strip("/").removeprefix("g/")
        ).first()
        if game is None:
            raise CommandError("no game has this edit token")
        self.stdout.write(dumps(export_game(game)))
