"""Players' names: what a name keeps (clean_name), what two names of one game or table must not
share (name_key: Unicode's confusables, through ICU), and the checks that refuse a name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import icu

from scoring.rules.refusals import Code, RulesError
from scoring.rules.rulebook import MAX_PLAYERS, MIN_PLAYERS

# Not a rule of the game but of the app: a name longer than this breaks a phone's scoreboard.
MAX_NAME_LENGTH = 30


# Player names. Characters a name never keeps: control characters (NUL among them, which
# PostgreSQL refuses in text), format characters (bidi overrides that turn the page around a
# name, zero-width spaces and joiners that make "Ana" and "An\u200ba" look alike, the soft
# hyphen) and lone surrogates (which no database can store).
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs"}
# A name must keep at least one character of these: a letter, a digit, punctuation or a symbol.
VISIBLE_CATEGORIES = ("L", "N", "P", "S")
# A symbol that draws nothing, a space to the eye: the blank braille pattern.
LOOKS_BLANK = {"\u2800"}
# Accents and other marks on one letter: Vietnamese puts two on a vowel, Hebrew points and
# Tibetan stacks a few more; beyond this they only pile up over the next lines of the page.
MAX_MARKS = 4
# The name key expands each character at most 18 times (U+FDFA, one Arabic sign for a phrase).
MAX_NAME_KEY_LENGTH = 18 * MAX_NAME_LENGTH

# ICU's spoof checker: the skeleton of Unicode's confusables (TR39), kept up to date with
# ICU itself. Its skeletons are safe to compute from several threads at once.
_SPOOF_CHECKER = icu.SpoofChecker()


def _ignorable(c: str) -> bool:
    # Unicode's Default_Ignorable_Code_Point: besides the format characters, the Hangul
    # fillers (U+115F, U+1160, U+3164, U+FFA0), the combining grapheme joiner (U+034F) and the
    # variation selectors, all drawn as nothing or as a blank.
    return unicodedata.category(c) in INVISIBLE_CATEGORIES or icu.Char.hasBinaryProperty(
        c, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    )


def clean_name(name: str) -> str:
    """A name as the game keeps it: in Unicode's composed form (NFC, so that an "é" typed two
    ways is one letter), without invisible characters, trimmed, inner runs of blanks made one
    space."""
    name = unicodedata.normalize("NFC", name)
    name = "".join(" " if c in LOOKS_BLANK else c for c in name if not _ignorable(c))
    # Again: a mark that an invisible character held apart may now compose.
    return unicodedata.normalize("NFC", " ".join(name.split()))


def name_key(name: str) -> str:
    """What two names must not share in one game: Unicode's confusable skeleton (TR39) of the
    folded name. Names that differ in case only, in the width of their letters (full-width
    "Ana") or that look alike share it: "Ana" with a Cyrillic "A" is the Latin name, while
    "Zoë" stays apart from "Zoe". Stored with each player under a unique constraint, so that
    Python and every database compare names the same way (PostgreSQL's lower() and Python's
    casefold() disagree on "İ" and "i")."""
    # Case first, so that names equal ignoring case stay equal; the skeleton maps "0" to "O",
    # hence case once more.
    folded = unicodedata.normalize("NFKC", clean_name(name).casefold())
    return unicodedata.normalize("NFC", _SPOOF_CHECKER.getSkeleton(0, folded).casefold())


def check_name(name: str, limit: int = MAX_NAME_LENGTH) -> str:
    """One name cleaned (clean_name) and checked: something visible, at most `limit`
    characters, at most MAX_MARKS marks on a letter; else RulesError ("name_empty",
    "name_invisible", "name_too_long", "name_marks")."""
    cleaned = clean_name(name)
    if not cleaned and not name.strip():
        raise RulesError(Code.NAME_EMPTY)
    if not any(unicodedata.category(c).startswith(VISIBLE_CATEGORIES) for c in cleaned):
        raise RulesError(Code.NAME_INVISIBLE)
    if len(cleaned) > limit:
        raise RulesError(Code.NAME_TOO_LONG, limit=limit)
    marks = 0
    for c in unicodedata.normalize("NFD", cleaned):
        marks = marks + 1 if unicodedata.category(c) in {"Mn", "Me"} else 0
        if marks > MAX_MARKS:
            raise RulesError(Code.NAME_MARKS, limit=MAX_MARKS)
    return cleaned


def same_name(name: str, other: str, index: int | None = None, members: bool = False) -> RulesError:
    """The error for two names with one key: "name_duplicate" when they are the same name
    ignoring case, "name_lookalike" when only the eye takes them for one; "member_duplicate"
    and "member_lookalike" for a table's members."""
    same = clean_name(name).casefold() == clean_name(other).casefold()
    if members:
        return (
            RulesError(Code.MEMBER_DUPLICATE, index)
            if same
            else RulesError(Code.MEMBER_LOOKALIKE, index)
        )
    return (
        RulesError(Code.NAME_DUPLICATE, index) if same else RulesError(Code.NAME_LOOKALIKE, index)
    )


def check_names(
    names: Sequence[str], members_at_most: int | None = None, players_at_most: int = MAX_PLAYERS
) -> list[str]:
    """The names cleaned (clean_name): 2 to 6 of them (`players_at_most`: more, in a game whose
    players come and go), each checked (check_name) and unique by name key, so neither the same
    ignoring case nor look-alikes. Else RulesError naming the player (its index). The members of a
    table (`members_at_most`: how many it may have) are 1 to that many, and their errors say
    members: "member_count", "member_duplicate", "member_lookalike"."""
    if members_at_most is not None:
        if not 1 <= len(names) <= members_at_most:
            raise RulesError(Code.MEMBER_COUNT, count=len(names), limit=members_at_most)
    elif not MIN_PLAYERS <= len(names) <= players_at_most:
        raise RulesError(Code.PLAYER_COUNT, count=len(names))
    cleaned = []
    seen: dict[str, str] = {}
    for index, name in enumerate(names):
        try:
            name = check_name(name)
        except RulesError as error:
            raise error.for_player(index) from None
        key = name_key(name)
        if key in seen:
            raise same_name(name, seen[key], index, members=members_at_most is not None)
        seen[key] = name
        cleaned.append(name)
    return cleaned
