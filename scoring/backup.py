"""Backing up and restoring whole games, links included (`backup_games`, `restore_games`).

A backup file is the game's rami-game/1 export with one more field, `"backup"`, which import
ignores (SPEC 2.2 lets export add fields):

    "backup": {"edit_token": "...", "view_token": "...", "first_dealer": 1,
               "created_at": "2025-01-31T20:15:00+00:00"}

The rounds are re-created through `Game.from_document`, the same checked path as an import;
then the game gets back its tokens, so that every shared link works again, and the two facts
that the exchange format does not hold: who dealt first and when the game began. The history
of changes (and deleted rounds waiting to be restored) is not part of a backup.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from django.db import IntegrityError, transaction

from .exchange import ExchangeError
from .models import Game

FIELD = "backup"
# Tokens as new_token() makes them (URL-safe, 128 bits at least): also safe as file names.
TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")


def backup_document(game: Game) -> dict:
    """The game as its export plus what a restore needs to bring back the same links."""
    document = game.to_document()
    document[FIELD] = {
        "edit_token": game.edit_token,
        "view_token": game.view_token,
        "first_dealer": game.first_dealer,
        "created_at": game.created_at.isoformat(),
    }
    return document


def restore(document: object) -> Game | None:
    """Re-create a backed-up game with its tokens; None when a game with its edit token is
    already there (restoring twice changes nothing). Raises ExchangeError, creating nothing,
    when the document is not a sound backup."""
    if not isinstance(document, Mapping) or not isinstance(document.get(FIELD), Mapping):
        raise ExchangeError(f'not a backup: no "{FIELD}" field (a plain export is for import_game)')
    fields = document[FIELD]
    edit_token, view_token = fields.get("edit_token"), fields.get("view_token")
    for name, token in (("edit_token", edit_token), ("view_token", view_token)):
        if not isinstance(token, str) or not TOKEN.fullmatch(token):
            raise ExchangeError(f'"{FIELD}": "{name}" is not a token')
    try:
        created_at = datetime.fromisoformat(fields.get("created_at"))
    except (TypeError, ValueError):
        raise ExchangeError(f'"{FIELD}": "created_at" is not a date and time') from None
    first_dealer = fields.get("first_dealer", 0)
    if not isinstance(first_dealer, int) or isinstance(first_dealer, bool) or first_dealer < 0:
        raise ExchangeError(f'"{FIELD}": "first_dealer" is not a seat number')

    if Game.objects.filter(edit_token=edit_token).exists():
        return None
    try:
        with transaction.atomic():
            game = Game.from_document(document)
            if first_dealer >= len(game.names):
                raise ExchangeError(f'"{FIELD}": "first_dealer" is not a seat number')
            # update(): created_at is auto_now_add, which save() would not let us set.
            Game.objects.filter(pk=game.pk).update(
                edit_token=edit_token,
                view_token=view_token,
                first_dealer=first_dealer,
                created_at=created_at,
            )
    except IntegrityError:
        raise ExchangeError(f'"{FIELD}": a token belongs to another game') from None
    game.refresh_from_db()
    return game
