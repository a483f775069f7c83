"""The language menu (templates/_language.html) names each language in its own language,
whatever the page's: a visitor who cannot read the page must still find their own."""

import pytest

from scoring.models import Game
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

OWN_NAMES = [
    ("en", "English"),
    ("cs", "Čeština"),
    ("sv", "Svenska"),
    ("bg", "Български"),
    ("id", "Bahasa Indonesia"),
]
# What gettext makes of "English" in Django's own catalogues, as the menu once showed it.
ENGLISH_TRANSLATED = ["anglicky", "Engelska", "английски", "Английски", "Inggris"]


def menu(html: str) -> list[tuple[str, str, str, bool]]:
    """(value, lang, name, selected) of each option of the language menu."""
    return [
        (option.get("value"), option.get("lang"), option.text, option.checked)
        for option in read(html).one("form.language").select("option")
    ]


@pytest.mark.parametrize("language", [code for code, _name in OWN_NAMES])
def test_every_language_is_named_in_its_own_language(client, language):
    game = Game.start(["Ana", "Boris"])
    for path in ["/", "/rules/", url("game", game.edit_token), url("history", game.edit_token)]:
        html = client.get(path, headers={"accept-language": language}).content.decode()
        options = menu(html)
        assert [(value, name) for value, _lang, name, _selected in options] == OWN_NAMES, path
        # Each name is marked as written in its own language, for screen readers.
        assert all(value == lang for value, lang, _name, _selected in options)
        assert [value for value, _lang, _name, selected in options if selected] == [language]
        form = " ".join(read(html).one("form.language").strings())
        for translated in ENGLISH_TRANSLATED:
            assert translated not in form, (path, translated)
