"""Refusals: what the rules refuse, each with a code (Code) and typed by what the phone can do
about it: RulesError (what was typed or sent is wrong), Conflict (it does not fit the game as it
is now), ConfirmFirst (it waits for a yes).

The words a person reads for each code are in scoring/rules/messages.py.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Protocol


class Code(StrEnum):
    """Every refusal's code. What it means to a person is written once, in
    scoring/rules/messages.py (tests/test_errors.py: each has its words, and nothing is raised
    with another). The class raised says what the phone can do about it; a code is listed
    under the class it is raised with most. A limit of the web has codes of its own
    (scoring.web.limits)."""

    # What was typed or sent is wrong: RulesError itself.
    BAD_RULE = "bad_rule"
    BAD_RULE_FLAG = "bad_rule_flag"
    BAD_TARGET = "bad_target"
    CARDS_AND_VALUE = "cards_and_value"
    FIRST_DEALER_UNKNOWN = "first_dealer_unknown"
    FIRST_DEALER_UNNAMED = "first_dealer_unnamed"
    HAND_RUMMY_BLOCKED = "hand_rummy_blocked"
    HAND_RUMMY_OPENED = "hand_rummy_opened"
    MEMBER_COUNT = "member_count"
    MEMBER_DUPLICATE = "member_duplicate"
    MEMBER_LAST = "member_last"
    MEMBER_LOOKALIKE = "member_lookalike"
    MEMBER_PLAYED = "member_played"
    MISSING_BLOCKED_HAND = "missing_blocked_hand"
    MISSING_HAND = "missing_hand"
    NAME_DUPLICATE = "name_duplicate"
    NAME_EMPTY = "name_empty"
    NAME_INVISIBLE = "name_invisible"
    NAME_LOOKALIKE = "name_lookalike"
    NAME_MARKS = "name_marks"
    NAME_TAKEN = "name_taken"
    NAME_TOO_LONG = "name_too_long"
    NEGATIVE_VALUE = "negative_value"
    NO_JOKERS = "no_jokers"
    NOT_A_NUMBER = "not_a_number"
    NOT_PLAYING = "not_playing"
    PLAYER_COUNT = "player_count"
    SEATING_DEALER = "seating_dealer"
    SEATING_MISSING = "seating_missing"
    SEATING_ORDER = "seating_order"
    SEATING_TWICE = "seating_twice"
    SEATS_FULL = "seats_full"
    START_TOTAL = "start_total"
    TOO_MANY_CARDS = "too_many_cards"
    TOO_MANY_COPIES = "too_many_copies"
    UNKNOWN_CARD = "unknown_card"
    VALUE_TOO_LARGE = "value_too_large"
    VALUE_TOO_SMALL = "value_too_small"
    WINNER_HAS_CARDS = "winner_has_cards"
    WINNER_OUT_OF_RANGE = "winner_out_of_range"
    # The change does not fit the game or the table as it is now: Conflict.
    ALREADY_RESTORED = "already_restored"
    ALREADY_SAVED = "already_saved"
    GAME_AT_ANOTHER_TABLE = "game_at_another_table"
    GAME_FINISHED = "game_finished"
    GAME_NOT_FINISHED = "game_not_finished"
    JOIN_FULL = "join_full"
    LEAVE_LAST = "leave_last"
    LEAVE_UNPLAYED = "leave_unplayed"
    LEFT_ALREADY = "left_already"
    PLAYING_ALREADY = "playing_already"
    NAME_CHANGED = "name_changed"
    PLAYERS_CHANGED = "players_changed"
    PLAYER_OVERTAKEN = "player_overtaken"
    ROUND_CHANGED = "round_changed"
    ROUND_GONE = "round_gone"
    ROUND_MOVED = "round_moved"
    ROUND_TAKEN = "round_taken"
    SEATING_CHANGED = "seating_changed"
    TABLE_CHANGED = "table_changed"
    TOO_MANY_ROUNDS = "too_many_rounds"
    UNDO_CHANGED = "undo_changed"
    UNDO_DONE = "undo_done"
    UNDO_NOT_YOURS = "undo_not_yours"
    UNDO_OVERTAKEN = "undo_overtaken"
    # The change waits for the player's yes: ConfirmFirst.
    RESTORE_AS_EXTRA = "restore_as_extra"


class WithADeck(Protocol):
    """What a refusal needs of a game's rules (rulebook.Rules) to be said under them."""

    @property
    def max_hand_value(self) -> int: ...


class RulesError(ValueError):
    """A round, a hand or a name that the rules refuse: what was typed or sent is wrong.

    `code` (a Code) names the kind of mistake; `player` is the index of the player concerned
    (or None); `details` holds the rest (`card`, `value`, `count`, `limit`, ...). What a person
    reads is written once, in scoring/rules/messages.py: `rules_error_message` in the page's
    language, `english` for the command line and the importer. `str()` gives the code and the
    details.

    The other kinds of refusal are RulesErrors too, so that one `except RulesError` shows any
    refusal: Conflict and ConfirmFirst (below), and the web's limit (scoring.web.limits.TooMany).
    What each is in HTTP is said in one place, scoring/web/http.py (REFUSAL_STATUS).
    """

    # The codes this kind is raised with; a kind defined outside the rules brings its own.
    codes: ClassVar[type[StrEnum]] = Code

    def __init__(self, code: str, player: int | None = None, **details: object) -> None:
        self.code = self.codes(code)
        self.player = player
        self.details = details
        super().__init__(self.code)

    def __str__(self) -> str:
        details = ", ".join(f"{name}={value!r}" for name, value in self.details.items())
        return f"{self.code} ({details})" if details else str(self.code)

    def for_player(self, player: int) -> RulesError:
        """The same error, naming the player concerned."""
        return type(self)(self.code, player, **self.details)

    def under(self, rules: WithADeck) -> RulesError:
        """The same error, said under a game's `rules`. A hand value above any deck is refused
        as the Hand is made, before the game's rules are known (LARGEST_HAND_VALUE); the
        player is told what their game's deck is worth, as for any value above it."""
        if self.code != Code.VALUE_TOO_LARGE:
            return self
        return type(self)(self.code, self.player, **{**self.details, "limit": rules.max_hand_value})


class Conflict(RulesError):
    """The change does not fit the game or the table as it is now. Mostly the page is older
    than another phone's change: that round saved, changed or deleted there, the game
    finished, the players renamed or seated, the table changed. Or the change is another
    phone's to make (an Undo), the game has its 500 rounds, or it is at another table.
    Nothing is changed; the page is shown as it is now, with the reason."""


class RoundTaken(Conflict):
    """Another phone saved the round this one was typed for first: `number` is that round,
    `next` the number this one would be saved as (details), so that the page can show the two
    side by side, or count this one as saved when they are the same round."""


class ConfirmFirst(RulesError):
    """The change waits for the player's yes (a round deleted long ago comes back as an extra
    round, after the others): nothing is changed until the page asks and they confirm."""
