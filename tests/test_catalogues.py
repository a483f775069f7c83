"""The translation catalogues: complete, not fuzzy, and compiled into the committed .mo files.

The .mo files are committed so that a machine without GNU gettext runs the app in every
language; these tests fail when a .po was changed and not compiled again (or the reverse).
"""

import io
import re
import tokenize

import polib
import pytest
from django.conf import settings
from django.utils import translation

from scoring.rules import card_names

LOCALE = settings.BASE_DIR / "locale"
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
NPLURALS = {"cs": 3, "sv": 2, "bg": 2, "id": 1}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")
# The only messages a language rightly leaves as in English; anything else equal to its msgid
# is an English copy that was never translated. (The card face letters A K Q J are kept in every
# language on purpose: see scoring/rules/card_names.py; so is the example hand of the cards
# field, "AH JK 5C", written with those letters. The card game is "Rami" but in Bulgarian, "Рами".)
SAME_AS_ENGLISH = {
    "cs": {"Rami", "AH JK 5C"},
    "sv": {"joker", "Joker", "Rami"},
    # A percentage is written as in English ("50%"), without a space (CLDR's "#,##0%").
    "bg": {"AH JK 5C", "%(rate)s%%"},
    "id": {"joker", "Joker", "Target", "jack", "%(rate)s%%", "total", "Rami", "AH JK 5C"},
}


def po_file(language: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))


def mo_file(language: str) -> polib.MOFile:
    return polib.mofile(str(LOCALE / language / "LC_MESSAGES" / "django.mo"))


def messages(catalogue) -> dict:
    """(context, msgid, plural msgid) -> the translation(s), as gettext will look them up."""
    found = {}
    for entry in catalogue:
        if entry.obsolete or "fuzzy" in entry.flags:
            continue
        if entry.msgid_plural:
            forms = tuple(text for _index, text in sorted(entry.msgstr_plural.items()))
        else:
            forms = (entry.msgstr,)
        found[(entry.msgctxt, entry.msgid, entry.msgid_plural or None)] = forms
    return found


def test_every_language_but_english_has_a_catalogue():
    assert sorted(path.name for path in LOCALE.iterdir() if path.is_dir()) == sorted(TRANSLATED)
    assert sorted(NPLURALS) == sorted(TRANSLATED)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_entry_is_translated_and_none_is_fuzzy(language):
    catalogue = po_file(language)
    assert not catalogue.metadata_is_fuzzy
    assert [entry.msgid for entry in catalogue.untranslated_entries()] == []
    assert [entry.msgid for entry in catalogue.fuzzy_entries()] == []
    assert catalogue.percent_translated() == 100


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_entry_is_an_english_copy(language):
    copies = {
        entry.msgid
        for entry in po_file(language)
        if not entry.obsolete and entry.msgctxt != "card face" and entry.msgstr == entry.msgid
    }
    assert copies == SAME_AS_ENGLISH[language]


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_header_names_the_language_and_its_plural_forms(language):
    metadata = po_file(language).metadata
    assert metadata["Language"] == language
    assert metadata["Plural-Forms"].startswith(f"nplurals={NPLURALS[language]};")
    assert metadata["Content-Type"] == "text/plain; charset=UTF-8"
    for entry in po_file(language):
        if entry.msgid_plural and not entry.obsolete:
            assert len(entry.msgstr_plural) == NPLURALS[language], entry.msgid


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_every_placeholder(language):
    for entry in po_file(language):
        if entry.obsolete:
            continue
        if entry.msgid_plural:
            expected = set(PLACEHOLDER.findall(entry.msgid_plural))
            for text in entry.msgstr_plural.values():
                assert set(PLACEHOLDER.findall(text)) == expected, entry.msgid
        else:
            assert set(PLACEHOLDER.findall(entry.msgstr)) == set(
                PLACEHOLDER.findall(entry.msgid)
            ), entry.msgid


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_committed_mo_matches_its_po(language):
    po, mo = po_file(language), mo_file(language)
    assert messages(mo) == messages(po)
    assert mo.metadata["Plural-Forms"] == po.metadata["Plural-Forms"]


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_card_name_is_in_the_catalogue(language):
    names = {entry.msgid for entry in po_file(language) if entry.msgctxt == "card"}
    with translation.override("en"):  # English has no catalogue: the names are the msgids
        english = {card_names.card_name(code) for code in card_names.ALL_CODES}
    assert names == english
    assert len(names) == 66


GETTEXT_NAMES = {"gettext", "ngettext", "pgettext", "npgettext", "gettext_lazy", "_"}


def gettext_inside_f_strings(source: str) -> list[int]:
    """The lines where a gettext function is called inside an f-string's braces, where
    makemessages (xgettext) does not look: its message would never reach the catalogues."""
    found, depth = [], 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.FSTRING_START:
            depth += 1
        elif token.type == tokenize.FSTRING_END:
            depth -= 1
        elif depth and token.type == tokenize.NAME and token.string in GETTEXT_NAMES:
            found.append(token.start[0])
    return found


def test_no_message_is_hidden_from_makemessages_inside_an_f_string():
    assert gettext_inside_f_strings("x = f\"<b>{gettext('leads')}</b>\"\n") == [1]
    hidden = {
        str(path.relative_to(settings.BASE_DIR)): lines
        for path in sorted((settings.BASE_DIR / "scoring").rglob("*.py"))
        if (lines := gettext_inside_f_strings(path.read_text()))
    }
    assert hidden == {}


# Czech typography never ends a line with a one-letter word (the prepositions v, s, z, k, o, u
# and the conjunctions a, i, capitals too) or with an ordinal's number ("po 3. kole"): each
# is joined to the next word by a no-break space, in the catalogue, so that every page, form
# and message carries it without a filter over the HTML.
LEFT_AT_THE_END_OF_A_LINE = re.compile(
    r"(?<![^\s(„\u00a0])(?:[vszkouiaVSZKOUIA]|(?:%\(\w+\)[sd]|\d+)\.) (?=\w|%\()"
)


def test_a_czech_one_letter_word_is_joined_to_the_next_by_a_no_break_space():
    assert LEFT_AT_THE_END_OF_A_LINE.search("karet v ruce")
    assert LEFT_AT_THE_END_OF_A_LINE.search("po %(number)s. kole")
    assert not LEFT_AT_THE_END_OF_A_LINE.search("karet v\u00a0ruce, po %(number)s.\u00a0kole")
    assert not LEFT_AT_THE_END_OF_A_LINE.search('<a href="%(help_url)s">')  # a tag, no word
    left = [
        (entry.msgid, text)
        for entry in po_file("cs")
        if not entry.obsolete and entry.msgctxt not in ("card face", "card notation")
        for text in (entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr])
        if LEFT_AT_THE_END_OF_A_LINE.search(text)
    ]
    assert left == []
