"""Installing the app: the web app manifest, its icons and the <head> snippet that links them."""

import json
import re
import struct

import pytest
from django.template.loader import render_to_string

from tests.pages import read

pytestmark = pytest.mark.django_db


def served(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content) if response.streaming else response.content


def png_size(content: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the signature."""
    assert content[:8] == b"\x89PNG\r\n\x1a\n"
    assert content[12:16] == b"IHDR"
    return struct.unpack(">II", content[16:24])


def test_manifest_is_json_with_what_an_install_needs(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Rami score keeper"
    assert manifest["short_name"] == "Rami"
    assert manifest["start_url"] == "/"
    assert manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    pngs = {
        (icon["sizes"], icon["purpose"])
        for icon in manifest["icons"]
        if icon["type"] == "image/png"
    }
    assert pngs == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    assert any(icon["type"] == "image/svg+xml" for icon in manifest["icons"])


def test_every_icon_in_the_manifest_is_served_at_its_size(client):
    manifest = json.loads(client.get("/manifest.webmanifest").content)
    for icon in manifest["icons"]:
        content = served(client, icon["src"])
        if icon["type"] == "image/png":
            width, height = (int(side) for side in icon["sizes"].split("x"))
            assert png_size(content) == (width, height), icon["src"]
        else:
            assert content.lstrip().startswith(b"<svg")


def test_head_snippet_links_the_manifest_icons_and_theme_colours(client):
    head = read(render_to_string("_head_icons.html"))
    assert head.one("link[rel=manifest]").get("href") == "/manifest.webmanifest"
    assert [colour.get("media") for colour in head.select("meta[name=theme-color]")] == [
        "(prefers-color-scheme: light)",
        "(prefers-color-scheme: dark)",
    ]
    apple = head.one("link[rel=apple-touch-icon]").get("href")
    assert png_size(served(client, apple)) == (180, 180)
    icons = head.select("link[rel=icon]")
    assert icons
    for icon in icons:
        served(client, icon.get("href"))
