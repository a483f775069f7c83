"""Security headers on every response: the Content-Security-Policy, no Referer (a game's link
is its key), no sniffing, no framing; and CSRF checks on every form post."""

import json
import re

import pytest
from django.http import HttpResponse
from django.template import engines
from django.test import Client
from django.urls import path

from tests.pages import read

pytestmark = pytest.mark.django_db

PAGES = ["/", "/healthz"]


def policy(response) -> dict[str, list[str]]:
    """The Content-Security-Policy header as {directive: [values]}."""
    directives = [part.split() for part in response["Content-Security-Policy"].split(";")]
    return {name: values for name, *values in directives}


@pytest.mark.parametrize("url", PAGES)
def test_the_content_security_policy_allows_only_our_own_files(client, url):
    csp = policy(client.get(url))
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"][0] == "'self'"
    # Besides our own files, at most the inline script that carries this response's nonce.
    assert all(re.fullmatch(r"'nonce-[\w-]+'", value) for value in csp["script-src"][1:])
    assert csp["style-src"] == ["'self'"]
    assert csp["img-src"] == ["'self'", "data:"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["form-action"] == ["'self'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]


@pytest.mark.parametrize("url", PAGES)
def test_nothing_unsafe_is_ever_allowed(client, url):
    assert "unsafe" not in client.get(url)["Content-Security-Policy"]


@pytest.mark.parametrize("url", PAGES)
def test_no_referrer_to_other_sites_no_sniffing_no_framing(client, url):
    response = client.get(url)
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


def test_htmx_is_told_to_need_neither_inline_styles_nor_eval(client):
    config = json.loads(read(client.get("/")).one("meta[name=htmx-config]").get("content"))
    assert config["includeIndicatorStyles"] is False
    assert config["allowEval"] is False
    # A refused change (409) is swapped in, so that its reason shows; other errors are not.
    assert {"code": "409", "swap": True} in config["responseHandling"]


def inline_script(request):
    """A page with one inline script, as {% htmx_script %} writes it."""
    template = engines["django"].from_string('<script nonce="{{ csp_nonce }}">go()</script>')
    return HttpResponse(template.render({}, request))


urlpatterns = [path("inline-script", inline_script)]


@pytest.mark.urls(__name__)
def test_an_inline_script_runs_only_with_the_nonce_of_its_own_response(client):
    first, second = client.get("/inline-script"), client.get("/inline-script")
    nonce = re.search(r'nonce="([\w-]+)"', first.content.decode()).group(1)
    assert policy(first)["script-src"] == ["'self'", f"'nonce-{nonce}'"]
    assert f"'nonce-{nonce}'" not in policy(second)["script-src"]


def test_a_form_post_without_the_csrf_token_is_refused():
    response = Client(enforce_csrf_checks=True).post("/", {"players": "Ana"})
    assert response.status_code == 403


def test_the_csrf_token_is_masked_from_one_read_of_randomness_and_still_checked():
    """scoring/web/csrf_mask.py stands in for Django's mask: installed, drawing each of the 62
    characters as often as the others, and a form posted with the token of its page passes
    Django's check while one with another phone's token does not."""
    from collections import Counter

    from django.middleware import csrf

    from scoring.web import csrf_mask

    assert csrf._get_new_csrf_string is csrf_mask.new_csrf_string
    drawn = [csrf_mask.new_csrf_string() for _ in range(4_000)]
    assert {len(one) for one in drawn} == {csrf.CSRF_SECRET_LENGTH}
    counts = Counter("".join(drawn))
    assert set(counts) == set(csrf.CSRF_ALLOWED_CHARS)
    expected = 4_000 * csrf.CSRF_SECRET_LENGTH / len(csrf.CSRF_ALLOWED_CHARS)  # 2,065 each
    assert all(abs(count - expected) < 0.15 * expected for count in counts.values())
    assert len(set(drawn)) == len(drawn)

    phone, other = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    token = re.search(r'name="csrfmiddlewaretoken" value="(\w+)"', phone.get("/").content.decode())
    other.get("/")
    assert len(token.group(1)) == 2 * csrf.CSRF_SECRET_LENGTH
    started = phone.post("/", {"players": "Ana\nBoris", "csrfmiddlewaretoken": token.group(1)})
    assert started.status_code in (200, 302, 303)
    refused = other.post("/", {"players": "Ana\nBoris", "csrfmiddlewaretoken": token.group(1)})
    assert refused.status_code == 403


def test_the_random_bytes_of_each_thread_are_its_own_and_evenly_spread():
    """scoring/web/randomness.py, what the CSRF mask and the gzip padding draw from: numbers
    below a limit each as likely, across the pool's refills, and no two threads alike."""
    import threading
    from collections import Counter

    from scoring.web import randomness

    counts = Counter(randomness.below(100) for _ in range(20_000))  # about 5 reads of the system
    assert set(counts) == set(range(100))
    assert all(150 < count < 250 for count in counts.values())
    seen: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: seen.append(randomness.random_bytes(32))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(seen)) == 4
