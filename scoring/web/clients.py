"""Whom a request came from: the address the limits count by and the logs write."""

from __future__ import annotations

import ipaddress

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


def is_loopback(address: str) -> bool:
    """Whether `address` (an IP address, IPv6 in brackets or not) is this machine's own."""
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def _loopback_host(host: str) -> bool:
    """Whether a Host header names this machine: localhost, 127.0.0.1, [::1], with any port."""
    name = host.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":")[0]
    return name in {"localhost", "localhost."} or is_loopback(name)


def is_local_check(request: HttpRequest) -> bool:
    """Whether a request is a check made on this machine (`curl http://127.0.0.1:8001/healthz`,
    a monitor or HAProxy beside the server): its peer is a loopback address, its Host is
    localhost or a loopback address (or absent), and it carries no X-Forwarded-For. A request
    a proxy on this machine relays has a loopback peer too, but the site's name as its Host
    and the X-Forwarded-For the proxy writes (deploy/nginx/rami.conf): it is no local check,
    whatever the client sent (docs/deploy.md, "Monitoring")."""
    meta = request.META
    if "HTTP_X_FORWARDED_FOR" in meta or not is_loopback(meta.get("REMOTE_ADDR", "")):
        return False
    host = meta.get("HTTP_HOST")
    return host is None or host == "" or _loopback_host(host)
