"""The address of a page by its name in scoring/urls.py, for the tests that are not about the
address itself: `url("round", game.edit_token, number=2)`. A test of what an address looks like
(the shared links, a redirect's Location, the browser's address bar) writes it out instead."""

from django.urls import reverse


def url(name: str, token: str, **kwargs) -> str:
    """The page `name` of the game or table whose edit or watch-only token this is."""
    return reverse(name, kwargs={"token": token, **kwargs})
