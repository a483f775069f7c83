"""Games, their players, rounds and hands, and the history of every change (game.py and its
game_*.py parts, rounds.py); tables (a group's games: table.py and its table_*.py parts)
and their members (members.py).

A round is recorded, edited, deleted and restored only through the `Game` methods, each in one
transaction with the game locked, the points computed by `scoring.rules` and stored. The web
views and the importer both go through them. A table changes the same way, through its own
methods (`Table.start` as `Game.start`, `new_game`, `keep_game`, `rename_member`, ...), each with
the table locked; both take their lock through one helper (common._locked). Every write that
spans a table and its games is table.py's (with the lock order), and a game's module imports
nothing of tables: `rematch` and `rename_players` change any game, by its table when it has
one. Reading a table's numbers is scoring/board/standings.py's.

A game or a table deleted on request (`delete_on_request`) leaves the digests of its links
behind (deleted.py), so that no restore brings it back unasked.
"""

from scoring.models.common import (
    TOKEN_BYTES,
    TOKEN_PATTERN,
    RulesField,
    Status,
    new_token,
    token_of_link,
)
from scoring.models.deleted import DeletedLink
from scoring.models.game import Changes, Game, clock_version, snapshot
from scoring.models.game_seats import Seating
from scoring.models.members import MAX_MEMBERS, MAX_TABLE_NAME_LENGTH, Member, TableEvent
from scoring.models.rounds import (
    GameEvent,
    Hand,
    Player,
    Round,
    RoundQuerySet,
    total_after_return,
)
from scoring.models.table import Table, delete_game, rematch, rename_players
from scoring.models.table_members import NewMember

__all__ = [
    "MAX_MEMBERS",
    "MAX_TABLE_NAME_LENGTH",
    "TOKEN_BYTES",
    "TOKEN_PATTERN",
    "Changes",
    "DeletedLink",
    "Game",
    "GameEvent",
    "Hand",
    "Member",
    "NewMember",
    "Player",
    "Round",
    "RoundQuerySet",
    "RulesField",
    "Seating",
    "Status",
    "Table",
    "TableEvent",
    "clock_version",
    "delete_game",
    "new_token",
    "rematch",
    "rename_players",
    "snapshot",
    "token_of_link",
    "total_after_return",
]
