"""docs/glossary.md holds each game term once a language, in the players' own word, with the
other spellings of the same thing; no translation in the catalogue uses one of those, and the
players' word and its label are used. A failure names the entry (its context and English)."""

import re
from pathlib import Path

import polib
import pytest
from django.conf import settings

GLOSSARY = Path(settings.BASE_DIR) / "docs" / "glossary.md"
TRANSLATED = ["cs", "sv", "bg", "id"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


def glossary() -> dict[str, list[dict[str, str]]]:
    """The tables of docs/glossary.md by language (its "## cs" headings): a row a term, by the
    names of the columns."""
    tables: dict[str, list[dict[str, str]]] = {}
    language = None
    columns: list[str] = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            language, columns = line[3:].strip(), []
            tables[language] = []
        elif language and line.startswith("|"):
            # Cells between the bars; a bar inside a cell is written "\\|".
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            cells = [cell.strip().replace("\\|", "|") for cell in cells]
            if not columns:
                columns = [cell.casefold() for cell in cells]
            elif not set(line) <= set("|-: "):
                tables[language].append(dict(zip(columns, cells, strict=True)))
    return tables


def spellings(cell: str) -> list[str]:
    return [one.strip() for one in cell.split(";") if one.strip()]


def pattern(spelling: str) -> re.Pattern:
    """A spelling as whole words, or a /regular expression/, ignoring case."""
    if len(spelling) > 2 and spelling.startswith("/") and spelling.endswith("/"):
        return re.compile(spelling[1:-1], re.IGNORECASE | re.MULTILINE)
    return re.compile(rf"(?<!\w){re.escape(spelling)}(?!\w)", re.IGNORECASE)


def translations(language: str) -> dict[str, list[str]]:
    """Each entry's translations (every plural form), by a name a reader finds it by."""
    path = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
    entries = {}
    for entry in polib.pofile(str(path)):
        if entry.obsolete:
            continue
        name = f"[{entry.msgctxt}] {entry.msgid}" if entry.msgctxt else entry.msgid
        texts = [entry.msgstr] if not entry.msgid_plural else list(entry.msgstr_plural.values())
        # A no-break space joins two words as a space does; a placeholder is no word.
        entries[name] = [PLACEHOLDER.sub("", text).replace("\u00a0", " ") for text in texts]
    return entries


def test_the_glossary_has_a_table_for_each_language():
    tables = glossary()
    assert sorted(tables) == sorted(TRANSLATED)
    for language, rows in tables.items():
        assert len(rows) >= 10, language
        terms = [row["term"] for row in rows]
        assert len(terms) == len(set(terms)), (language, "a term twice")
        for row in rows:
            assert set(row) == {"term", "word", "label", "not"}, (language, row)


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_entry_spells_a_term_another_way(language):
    entries = translations(language)
    found = [
        f"{row['term']}: “{spelling}” in {name!r} → {text!r}"
        for row in glossary()[language]
        for spelling in spellings(row["not"])
        for name, texts in entries.items()
        for text in texts
        if pattern(spelling).search(text)
    ]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_players_word_and_its_label_are_in_the_catalogue(language):
    every = "\n".join(text for texts in translations(language).values() for text in texts)
    missing = [
        (row["term"], spelling)
        for row in glossary()[language]
        for spelling in spellings(row["word"]) + spellings(row["label"])
        if spelling.casefold() not in every.casefold()
    ]
    assert missing == []


def test_a_spelling_is_found_as_whole_words_only():
    # "Platser och givare" is the word; "Platser och giv" another spelling of it.
    assert not pattern("/platser och giv\\b/").search("Platser och givare")
    assert pattern("/platser och giv\\b/").search("Spara platser och giv")
    assert not pattern("delar ut").search("fördelar utan")
    assert pattern("bez vyložení").search("Bez vyložení v zablokovaném kole")
