"""Every message a person can read about a refused round, game, table or name: the one
catalogue. `rules_error_message(error, names)` says a RulesError (or a limit's TooMany) in the
active language, naming the player and a card by their names; `english(error)` says it in
English, for the command line and the importer. tests/test_errors.py checks that every code
raised has its message here.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from scoring.rules import Code, RulesError
from scoring.rules.card_names import card_name

MESSAGES = {
    "unknown_card": _(
        "Unknown card “%(card)s”: give a rank (A, 2-10, J, Q, K) with an optional suit "
        "(♠ ♥ ♦ ♣ or S H D C), or JK for a joker."
    ),
    "negative_value": _("A hand value cannot be negative (%(value)s)."),
    "value_too_large": _(
        "A hand value of %(value)s is more than the whole deck is worth (%(limit)s)."
    ),
    "not_a_number": _("The hand value “%(value)s” is not a whole number."),
    "cards_and_value": _("Give the cards or the hand value, not both."),
    "missing_hand": _("The cards left in a hand (or their value) are missing."),
    "missing_blocked_hand": _(
        "A blocked round needs every player's hand: the cards left in one (or their value) "
        "are missing."
    ),
    "winner_has_cards": _("The winner went out, so no cards are left in the winner's hand."),
    "winner_out_of_range": _("The winner must be one of the %(count)s players."),
    "hand_rummy_opened": _("A hand rummy needs every opponent not to have opened yet."),
    "hand_rummy_blocked": _("Nobody went out in a blocked round, so it cannot be a hand rummy."),
    "no_jokers": _("This game's deck has no jokers (a house rule), so no hand can hold one."),
    # too_many_copies: a count, so ngettext in rules_error_message.
    "player_count": _("A game has 2 to 6 players, not %(count)s."),
    "bad_target": _("The target must be a positive number of points, not %(target)s."),
    "game_finished": _("The game is over: start a rematch to play on."),
    "round_taken": _(
        "Round %(number)s was saved on another phone first. Save yours as round %(next)s, or "
        "drop it."
    ),
    "already_saved": _("This round was saved already (and has since been deleted)."),
    "already_restored": _("This round has already been brought back."),
    "too_many_rounds": _(
        "A game has at most %(limit)s rounds: start a new game from the start page to play on."
    ),
    "too_many_cards": _("A hand holds at most %(limit)s cards (the whole deck), not %(count)s."),
    "round_gone": _(
        "Round %(number)s has already been deleted, on another phone or by an earlier tap: "
        "nothing more was changed."
    ),
    "round_moved": _(
        "Round %(number)s is now round %(now)s: another phone deleted or brought back an "
        "earlier round. Nothing was changed; look at round %(now)s again."
    ),
    "round_changed": _(
        "Round %(number)s was changed on another phone since you opened it. Nothing was "
        "changed here; it is shown below as it is now."
    ),
    # Restoring from the history, and Undo (Game.restore_round, Game.undo).
    "restore_as_extra": _(
        "Round %(number)s's place has been filled since it was deleted: brought back now, it "
        "becomes an extra round %(extra)s, after the others. Nothing was changed yet."
    ),
    "undo_not_yours": _(
        "Only the phone that made this change can undo it. Nothing was changed; the history "
        "shows every change."
    ),
    "undo_changed": _(
        "Round %(number)s was changed on another phone after it was saved here, so Undo no "
        "longer takes it back. Nothing was changed; its line shows it as it is now."
    ),
    "player_overtaken": _(
        "This can no longer be undone here: a round was saved or another player joined since. "
        "Nothing was changed; the players page can still put it right."
    ),
    "undo_done": _("This change has already been undone. Nothing more was changed."),
    "undo_overtaken": _(
        "Round %(number)s can no longer be undone here: round %(later)s was changed after it. "
        "Nothing was changed; the history can still put things right."
    ),
    "game_not_finished": _("Only a finished game has a rematch: play on until someone wins."),
    "value_too_small": _(
        "A hand value of %(value)s is less than the cheapest card (%(limit)s): a player who did "
        "not go out holds at least one card."
    ),
    "bad_rule": _("Give a whole number from %(low)s to %(high)s, not “%(value)s”."),
    "bad_rule_flag": _("Give true or false, not “%(value)s”."),
    "name_empty": _("Enter a name."),
    "name_invisible": _("A name needs at least one letter, digit or sign."),
    "name_too_long": _("A name has at most %(limit)s characters."),
    "name_duplicate": _("Two players have this name: make them different."),
    "name_lookalike": _(
        "Two players have names that look the same (a letter of another alphabet, or a "
        "look-alike sign): make them different."
    ),
    "name_marks": _("A letter of a name carries at most %(limit)s accents or marks."),
    "name_changed": _(
        "This player was renamed on another phone meanwhile, so nothing was changed. Save "
        "again to use the name typed here."
    ),
    "first_dealer_unnamed": _(
        "The player chosen to deal first has no name: type one, or choose another dealer."
    ),
    "first_dealer_unknown": _("Choose one of the players to deal first."),
    # Seats and dealer during a game (Game.change_seating).
    "seating_order": _("The seating order must name each player once: choose one for each seat."),
    "seating_twice": _(
        "A player is chosen for two seats and %(missing)s for none: choose each player for one "
        "seat."
    ),
    "seating_missing": _("A player has no seat: choose each player for one seat."),
    "seating_dealer": _("Choose one of the players to deal next."),
    "seating_changed": _(
        "Seats or the dealer were changed on another phone since this page was loaded, so "
        "nothing was changed here. They are shown below as they are now: choose again if needed."
    ),
    # Tables (models.Table).
    "table_changed": _(
        "Another phone changed this table since this page was loaded, so nothing was changed "
        "here. It is shown below as it is now: make your change again if it is still needed."
    ),
    "member_count": _("A table has 1 to %(limit)s members, not %(count)s."),
    "member_duplicate": _("Two members have this name: make them different."),
    "member_lookalike": _(
        "Two members have names that look the same (a letter of another alphabet, or a "
        "look-alike sign): make them different."
    ),
    "name_taken": _(
        "Another member of this table, or a guest in one of its games, already has this name."
    ),
    "game_at_another_table": _("This game is kept at another table already."),
    # A member who retires or is removed (Table.retire, Table.remove_member).
    "member_last": _(
        "A table keeps at least %(limit)s members who play its games, so this member cannot "
        "leave now: add a member, or bring one back, first."
    ),
    "member_played": _(
        "Only a member who never played can be removed, and this member has played here: "
        "retire them instead, which keeps their games in the standings."
    ),
    # Players coming and going during a game (docs/rules.md).
    "not_playing": _("A hand is given for a player who is not playing this round."),
    "start_total": _("Give a starting total from 0 to %(limit)s points, not “%(value)s”."),
    "join_full": _("A game has at most %(limit)s players playing: one must leave first."),
    "leave_last": _(
        "A game keeps at least %(limit)s players playing: to stop here, finish the game instead."
    ),
    "seats_full": _(
        "A game seats at most %(limit)s players in all, those who left included: start a new "
        "game for the next players."
    ),
    "leave_unplayed": _(
        "No round has been played yet: start a new game without this player instead."
    ),
    "left_already": _("This player has already left the game."),
    "playing_already": _("This player is playing already."),
    "players_changed": _(
        "A player left or joined on another phone while this round was typed: the form now "
        "shows who plays. Check the round and save again."
    ),
    # One client making too many games or tables in a minute: the web's codes
    # (scoring.web.limits.LimitCode), written here so that every message is in one catalogue.
    "too_many_games": _("Too many new games from this device: wait a minute, then try again."),
    "too_many_tables": _("Too many new tables from this device: wait a minute, then try again."),
}

PLAYER_MESSAGES = {
    "unknown_card": _(
        "Unknown card “%(card)s” in the hand of %(player)s: give a rank (A, 2-10, J, Q, K) "
        "with an optional suit (♠ ♥ ♦ ♣ or S H D C), or JK for a joker."
    ),
    "negative_value": _("The hand value of %(player)s cannot be negative (%(value)s)."),
    "value_too_large": _(
        "The hand value of %(player)s, %(value)s, is more than the whole deck is worth (%(limit)s)."
    ),
    "not_a_number": _("The hand value of %(player)s, “%(value)s”, is not a whole number."),
    "cards_and_value": _("For %(player)s, give the cards or the hand value, not both."),
    "missing_hand": _("The cards left in the hand of %(player)s (or their value) are missing."),
    "missing_blocked_hand": _(
        "A blocked round needs every player's hand: the cards left in the hand of %(player)s "
        "(or their value) are missing."
    ),
    "winner_has_cards": _("%(player)s went out, so no cards are left in that hand."),
    "no_jokers": _(
        "This game's deck has no jokers (a house rule), so the hand of %(player)s cannot hold one."
    ),
    "hand_rummy_opened": _("%(player)s has opened, so this round cannot be a hand rummy."),
    "too_many_cards": _(
        "A hand holds at most %(limit)s cards (the whole deck), and %(player)s has %(count)s."
    ),
    "value_too_small": _(
        "The hand value of %(player)s, %(value)s, is less than the cheapest card (%(limit)s): a "
        "player who did not go out holds at least one card."
    ),
    "name_changed": _(
        "This player was renamed %(player)s on another phone meanwhile, so nothing was "
        "changed. Save again to use the name typed here."
    ),
    "member_last": _(
        "A table keeps at least %(limit)s members who play its games, so %(player)s cannot "
        "leave now: add a member, or bring one back, first."
    ),
    "member_played": _(
        "Only a member who never played can be removed, and %(player)s has played here: "
        "retire them instead, which keeps their games in the standings."
    ),
    "seating_twice": _(
        "%(player)s is chosen for two seats and %(missing)s for none: choose each player for "
        "one seat."
    ),
    "seating_missing": _("%(player)s has no seat: choose each player for one seat."),
    "not_playing": _("%(player)s is not playing this round: no hand is taken for them."),
    "leave_last": _(
        "A game keeps at least %(limit)s players playing, so %(player)s cannot leave now: "
        "finish the game instead."
    ),
    "leave_unplayed": _(
        "%(player)s has not played a round yet, so cannot leave: take the join back with its "
        "Undo, on the phone that made it."
    ),
    "left_already": _("%(player)s has already left the game."),
    "playing_already": _("%(player)s is playing already."),
}


def _too_many_copies(details: dict, player: str | None) -> str:
    count = details["count"]
    if player is None:
        return ngettext(
            "This round holds %(count)d copy of the card “%(card)s”, but the deck has only "
            "%(limit)d.",
            "This round holds %(count)d copies of the card “%(card)s”, but the deck has only "
            "%(limit)d.",
            count,
        )
    return ngettext(
        "With the hand of %(player)s, this round holds %(count)d copy of the card “%(card)s”, "
        "but the deck has only %(limit)d.",
        "With the hand of %(player)s, this round holds %(count)d copies of the card “%(card)s”, "
        "but the deck has only %(limit)d.",
        count,
    )


# What to do about a hand the round form refuses, said after what is wrong with it: the way
# out at the table (the importer and the command line say only what is wrong).
_TAKE_BACK = _("Tap a chosen card to take it back.")
_TYPE_AGAIN = _("Type the hand's value again.")
_FILL_IN = _("Tap the cards left in it, or type their value.")
WAYS_OUT = {
    "too_many_copies": _TAKE_BACK,
    "too_many_cards": _TAKE_BACK,
    "no_jokers": _TAKE_BACK,
    "not_a_number": _TYPE_AGAIN,
    "negative_value": _TYPE_AGAIN,
    "value_too_large": _TYPE_AGAIN,
    "value_too_small": _TYPE_AGAIN,
    "missing_hand": _FILL_IN,
    "missing_blocked_hand": _FILL_IN,
}


def round_form_message(error: RulesError, names: Sequence[str] = ()) -> str:
    """rules_error_message, and then what to do about it on the round form (WAYS_OUT)."""
    message = rules_error_message(error, names)
    way_out = WAYS_OUT.get(error.code)
    return f"{message} {way_out}" if way_out else message


def rules_error_message(error: RulesError, names: Sequence[str] = ()) -> str:
    """What went wrong, in the active language, naming the player concerned (by their name in
    `names`, seat order) and the card concerned (by its name in that language)."""
    details = dict(error.details)
    player = None
    if error.player is not None and 0 <= error.player < len(names):
        player = names[error.player]
    # A seat left out of a seating order (rules.check_seating), by name.
    missing = details.get("missing")
    if type(missing) is int and 0 <= missing < len(names):
        details["missing"] = names[missing]
    if error.code == Code.TOO_MANY_COPIES:
        template = _too_many_copies(details, player)
        # The deck check reports a real card code, a rank alone or the joker; name it.
        details["card"] = card_name(str(details["card"]))
    elif player is not None and error.code in PLAYER_MESSAGES:
        template = PLAYER_MESSAGES[error.code]
    else:
        template = MESSAGES[error.code]
    return capfirst(str(template) % {**details, "player": player})


def english(error: RulesError, names: Sequence[str] = ()) -> str:
    """The same message in English: the command line's and the importer's."""
    with translation.override("en"):
        return rules_error_message(error, names)
