"""Reading a page as a person sees it, for the tests' asserts.

`read(response)` parses an answer (a whole page or an htmx fragment) with lxml; CSS selectors
(cssselect) find its parts:

    shown = read(response)
    assert "Ana wins the game" in shown.text
    assert shown.texts("span.sum") == ["40", "56"]
    assert shown.one("#points-2").text == "45"
    assert shown.one("input[name=not_opened_2]").checked
    assert shown.one("table.versions").rows() == [["Dana", "9", "13"]]

`.text` is the text a person reads: whitespace folded, without scripts, styles, templates,
<noscript>, <head> and elements marked `hidden`; a block (a cell, a paragraph, a line break)
is set apart by a space, an inline element (a name's <bdi>, a <span>) is not. Text only a
screen reader reads (`visually-hidden`) is kept: it is read out to a person. A form field's
value is not text; read it with `.get("value")`.
"""

from __future__ import annotations

import lxml.html

# What differs from one answer to the next, whoever draws it and whatever is kept: the masked
# CSRF token (64 letters and digits), the Content-Security-Policy's nonce (in the header and on
# a script), a new round form's key, a new cookie's value and the second it expires at. For
# the tests that compare two ways of drawing the same answer; `.encode()` it for bytes.
VARYING = (
    r'\b[A-Za-z0-9]{64}\b|nonce-[\w-]+|nonce="[^"]+"'
    r'|name="key" value="[^"]+"|^[\w-]+=[^;]+|expires=[^;]+'
)

# Elements whose text runs on with their neighbours'; every other element is a block (a cell,
# a heading, a <br>) and is read apart from them.
INLINE = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "label",
    "mark", "output", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u",
    "var",
})  # fmt: skip
# Elements a person never reads, wherever they are.
SILENT = frozenset(("head", "script", "style", "template", "noscript"))
# Attributes whose text a person reads (a placeholder) or hears (a label).
READ_ALOUD = ("aria-label", "title", "alt", "placeholder")


class Element:
    """One element of a page: its text as shown, its attributes, the elements inside it."""

    def __init__(self, node: lxml.html.HtmlElement) -> None:
        self.node = node

    def __repr__(self) -> str:
        markup = self.markup
        return f"<Element {markup[:300]}{'…' if len(markup) > 300 else ''}>"

    @property
    def tag(self) -> str:
        return self.node.tag

    @property
    def attrs(self) -> dict[str, str]:
        return dict(self.node.attrib)

    def get(self, name: str, default: str | None = None) -> str | None:
        """The attribute `name`, unescaped (`&amp;` is `&`). Names are read as HTML reads them,
        whatever their case (an <svg>'s `viewBox` is `viewbox`)."""
        return self.node.get(name.lower(), default)

    @property
    def markup(self) -> str:
        """The element as markup, to compare it whole with the same element elsewhere (the rows
        a live update sends and the rows a fresh page shows)."""
        return lxml.html.tostring(self.node, encoding="unicode", with_tail=False)

    @property
    def checked(self) -> bool:
        """A checkbox or radio button shown ticked, an <option> shown chosen."""
        return self.node.get("checked") is not None or self.node.get("selected") is not None

    @property
    def text(self) -> str:
        """The text a person reads in this element, whitespace folded."""
        pieces: list[str] = []
        _read(self.node, pieces)
        return " ".join("".join(pieces).split())

    def strings(self) -> list[str]:
        """Every text the element may show or have read out, hidden now or not (a button shown
        by JavaScript, a <template>, the <title>): each run of text between two tags, folded,
        and the attributes read aloud (`READ_ALOUD`); not scripts and styles. What a
        translation has to cover."""
        pieces: list[str] = []
        _every_string(self.node, pieces)
        return [folded for piece in pieces if (folded := " ".join(piece.split()))]

    def select(self, css: str) -> list[Element]:
        """The elements inside this one that match the CSS selector, in page order."""
        return [Element(node) for node in self.node.cssselect(css)]

    def one(self, css: str) -> Element:
        """The one element that matches `css`; an assert fails if there are none or several."""
        found = self.select(css)
        assert len(found) == 1, f"{len(found)} elements match {css!r}, not 1"
        return found[0]

    def texts(self, css: str) -> list[str]:
        """The text of each element matching `css`, in page order."""
        return [element.text for element in self.select(css)]

    def rows(self, css: str = "tr") -> list[list[str]]:
        """The text of each cell (<th> or <td>) of each row matching `css`, row by row."""
        return [row.texts("th, td") for row in self.select(css)]


def _read(node: lxml.html.HtmlElement, pieces: list[str]) -> None:
    block = node.tag not in INLINE
    if block:
        pieces.append(" ")
    if node.text:
        pieces.append(node.text)
    for child in node:
        if isinstance(child.tag, str) and child.tag not in SILENT and child.get("hidden") is None:
            _read(child, pieces)
        if child.tail:
            pieces.append(child.tail)
    if block:
        pieces.append(" ")


def _every_string(node: lxml.html.HtmlElement, pieces: list[str]) -> None:
    pieces.extend(node.get(name) or "" for name in READ_ALOUD)
    if node.text and node.tag not in ("script", "style"):
        pieces.append(node.text)
    for child in node:
        if isinstance(child.tag, str):
            _every_string(child, pieces)
        if child.tail:
            pieces.append(child.tail)


def read(answer) -> Element:
    """Read the page (or htmx fragment) of a test client's response, an HTTP response whose body
    was read into `.text`, or markup; a page already read is itself."""
    if isinstance(answer, Element):
        return answer
    if hasattr(answer, "content"):
        markup = answer.content.decode()
    elif hasattr(answer, "text"):
        markup = answer.text
    elif isinstance(answer, bytes):
        markup = answer.decode()
    else:
        markup = answer
    return Element(lxml.html.document_fromstring(markup or "<html></html>"))
