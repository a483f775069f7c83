"""Whom a request came from: the address the limits count by and the logs write."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(remote: str, forwarded: str, trust_forwarded: bool) -> str:
    """The address a request came from: `remote` (the peer, REMOTE_ADDR), or when the proxy in
    front is trusted to append the client's address to X-Forwarded-For, the last address of
    `forwarded` (the one the proxy wrote; those before it are whatever the client sent)."""
    if trust_forwarded:
        last = forwarded.split(",")[-1].strip()
        if last and last != "-":
            return last
    return remote


def address_of(request: HttpRequest) -> str:
    """The address of a request to Django (RAMI_TRUST_X_FORWARDED_FOR in the settings)."""
    return client_address(
        request.META.get("REMOTE_ADDR", ""),
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        settings.RAMI_TRUST_X_FORWARDED_FOR,
    )
