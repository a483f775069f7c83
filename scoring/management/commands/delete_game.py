"""`manage.py delete_game LINK`: delete a game for good, on its players' request."""

from django.core.management.base import CommandError
from django.db.models import Q

from scoring.management.logged import LoggedCommand
from scoring.models import Game, delete_game, token_of_link


class Command(LoggedCommand):
    help = (
        "Delete the game of LINK (its players' link or its watch-only link, whole or just the "
        "token) with its rounds and history, for good. Its links are remembered, so that "
        "restore_games does not bring it back unless asked (--bring-back)."
    )

    def add_arguments(self, parser):
        parser.add_argument("link", help="the game's link, e.g. https://rami.example.org/g/…/")

    def handle(self, *args, **options):
        game = game_of(options["link"])
        names, rounds = ", ".join(game.names), game.rounds.count()
        delete_game(game)
        self.stdout.write(f"deleted the game of {names} ({rounds} rounds)")


def game_of(link: str) -> Game:
    """The game of a link (or token), or a CommandError that says there is none."""
    token = token_of_link(link)
    if token is None:
        raise CommandError(f"not a link to a game: {link}")
    game = Game.objects.filter(Q(edit_token=token) | Q(view_token=token)).first()
    if game is None:
        raise CommandError("no game has this link (deleted already, or never made here)")
    return game
