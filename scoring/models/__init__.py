"""Games, their players, rounds and hands, and the history of every change (game.py and its
game_*.py parts, rounds.py); tables, a group's games (table.py and its table_*.py parts), and
their members (members.py); the links deleted on request (deleted.py). Every change is a method
of its game or table under the row's lock; every write that spans a table and its games is the
table's (docs/architecture.md, "Locks").
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
