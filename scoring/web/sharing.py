"""The links a game or a table is shared by, as phones at the table can open them, and their
QR codes.

A link's QR code is a picture of its own, at the link's address plus `qr.svg`
(views.pages.qr_code), which the share panel shows as an `<img>`: drawn once for a phone
(cached by the browser for good under an address that names what it encodes) and only when the
panel is opened, not on every page load (drawing one takes about 5 ms).

A page opened as http://localhost:8000/ would share links that no phone can open; such links
use this machine's address on the local network instead, or the setting RAMI_PUBLIC_URL (from
the environment variable of that name) when it is set.
"""

from __future__ import annotations

import hashlib
import io
import socket
from dataclasses import dataclass
from functools import lru_cache

import segno
from django.conf import settings
from django.http import HttpRequest

LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, best first."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    for info in infos:
        address = info[4][0]
        if not address.startswith("127.") and address not in found:
            found.append(address)
    if not found:
        # Connecting a UDP socket sends no packet; it only asks the kernel which
        # interface would route to that (documentation-range) address.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(("192.0.2.1", 9))
                address = probe.getsockname()[0]
            except OSError:
                address = ""
        if address and not address.startswith("127."):
            found.append(address)
    return found


@lru_cache(maxsize=1)
def _lan_address() -> str | None:
    addresses = lan_addresses()
    return addresses[0] if addresses else None


def public_base(request: HttpRequest) -> str:
    """Scheme, host and port that other phones can reach, without a trailing slash."""
    configured = settings.RAMI_PUBLIC_URL
    if configured:
        return configured.rstrip("/")
    host = request.get_host()
    name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not name:
        name, port = host, ""
    if name.lower() in LOOPBACK_HOSTS:
        address = _lan_address()
        if address:
            host = f"{address}:{port}" if port else address
    return f"{request.scheme}://{host}"


def public_url(request: HttpRequest, path: str) -> str:
    return public_base(request) + path


@dataclass(frozen=True)
class Link:
    """A link to share (templates/scoring/_share.html): `kind` "edit" (the players' or the
    group's link) or "view" (the watch-only link), its `url` as phones can open it, and the
    address of its QR code, `qr`."""

    kind: str
    url: str
    qr: str


def links(request: HttpRequest, edit: str | None, view: str) -> list[Link]:
    """The links of a game or a table to share, with the addresses of their QR codes: the edit
    link's path `edit` (None on a watch-only page, where the edit token must appear nowhere)
    and the watch-only link's path `view`. A QR code's address is its link's path plus
    `qr.svg`, and names what it encodes (`for`: drawn_as), so that a browser may keep it for
    good: another address (RAMI_PUBLIC_URL set, the machine's network address moved) is
    another picture."""
    paths = [("edit", edit), ("view", view)] if edit is not None else [("view", view)]
    found = []
    for kind, path in paths:
        url = public_url(request, path)
        found.append(Link(kind=kind, url=url, qr=f"{path}qr.svg?for={drawn_as(url)}"))
    return found


def drawn_as(url: str) -> str:
    """A short digest of the link a QR code encodes: what its address names (`for`)."""
    return hashlib.blake2b(url.encode(), digest_size=8).hexdigest()


@lru_cache(maxsize=256)
def qr_svg(url: str) -> bytes:
    """The QR code of `url` as an SVG picture: black on white (what scanners read best),
    scaled by its viewBox, with no style attribute (the CSP allows none)."""
    code = segno.make(url, error="m", micro=False)
    svg = io.BytesIO()
    code.save(
        svg,
        kind="svg",
        xmldecl=False,
        scale=1,
        border=2,
        dark="#000",
        light="#fff",
        svgclass="qr",
        lineclass=None,
        omitsize=True,
    )
    return svg.getvalue()
