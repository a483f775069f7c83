"""The rounds' CSV opens in the players' spreadsheets: in Czech, Swedish, Bulgarian and
Indonesian (decimal comma) a spreadsheet splits a CSV file on ";" and would put a
comma-separated row in one cell. LibreOffice (Debian's libreoffice-calc-nogui, installed by
`make test`) reads each language's file, as a spreadsheet set up for that language does (its
list separator, UTF-8), into the right columns."""

from __future__ import annotations

import csv
import shutil
import subprocess

import pytest

from scoring.files.exchange import import_game
from tests.links import url

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Each language's spreadsheets: the separator of a CSV's fields (Excel's list separator for
# the language's region), and the header of the file as the language writes it.
SPREADSHEETS = {
    "en": (",", "Round"),
    "cs": (";", "Kolo"),
    "sv": (";", "Omgång"),
    "bg": (";", "Раздаване"),
    "id": (";", "Ronde"),
}
NAMES = ["Šárka; Jr.", "Гошо, Ст.", '=HYPERLINK("x")']


@pytest.fixture
def awkward_names():
    return import_game(
        {
            "format": "rami-game/1",
            "players": NAMES,
            "rounds": [
                {
                    "winner": NAMES[0],
                    "hands": {NAMES[1]: {"cards": ["QS", "JK"]}, NAMES[2]: {"value": 7}},
                }
            ],
        }
    )


def read_by_libreoffice(path, separator: str, tmp_path) -> list[list[str]]:
    """The cells LibreOffice reads from the CSV file at `path`, with the language's separator
    and UTF-8 (as its import dialog offers them in that language), written out again as
    tab-separated text to be read here."""
    soffice = shutil.which("soffice")
    assert soffice, (
        "LibreOffice is missing: make test installs it (apt-get install libreoffice-calc-nogui)"
    )
    read_as = f"CSV:{ord(separator)},34,76"
    out = tmp_path / "out"
    subprocess.run(  # noqa: S603 (Debian's LibreOffice, on a file of this test)
        [
            soffice,
            "--headless",
            f"-env:UserInstallation=file://{tmp_path}/profile",
            f"--infilter={read_as}",
            "--convert-to",
            "tsv:Text - txt - csv (StarCalc):9,34,76",
            "--outdir",
            str(out),
            str(path),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    with (out / f"{path.stem}.tsv").open(encoding="utf-8-sig", newline="") as written:
        return list(csv.reader(written, delimiter="\t"))


@pytest.mark.parametrize("language", SPREADSHEETS)
def test_each_languages_spreadsheet_reads_the_rounds_into_their_columns(
    client, awkward_names, language, tmp_path
):
    separator, round_ = SPREADSHEETS[language]
    client.cookies["django_language"] = language
    response = client.get(url("view_export_csv", awkward_names.view_token))
    assert response.status_code == 200
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    first_line = text[1:].split("\r\n", 1)[0]
    assert first_line.count(separator) == 7  # eight columns
    path = tmp_path / "rounds.csv"
    path.write_bytes(response.content)

    cells = read_by_libreoffice(path, separator, tmp_path)
    assert len(cells) == 1 + len(NAMES)
    assert all(len(row) == 8 for row in cells), cells
    assert cells[0][0] == round_
    assert [row[2] for row in cells[1:]] == ["Šárka; Jr.", "Гошо, Ст.", '\'=HYPERLINK("x")']
    # Hand value, points and total stay numbers in their columns.
    assert [row[4] for row in cells[1:]] == ["0", "30", "7"]
    assert [row[6] for row in cells[1:]] == ["0", "30", "7"]
