"""Settings read from the environment, checked the way an operator meets them: by starting
manage.py in a fresh process with a given environment."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def manage(*arguments: str, **environment: str) -> subprocess.CompletedProcess:
    """Run manage.py with the environment's DJANGO_* variables and DATABASE_URL replaced by
    `environment`."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("DJANGO_") and name != "DATABASE_URL"
    }
    env.update(environment)
    return subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def production_key() -> str:
    return secrets.token_urlsafe(50)


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", DJANGO_DEBUG="false")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_production_starts_with_a_secret_key():
    result = manage("check", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=production_key())
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_check_passes_behind_https():
    result = manage(
        "check",
        "--deploy",
        "--fail-level=WARNING",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=production_key(),
        DJANGO_ALLOWED_HOSTS="rami.example.org",
        DJANGO_HTTPS="true",
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout
    assert "security.W" not in result.stdout + result.stderr


def test_without_https_the_deploy_check_names_what_https_would_set():
    result = manage("check", "--deploy", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=production_key())
    warnings = result.stdout + result.stderr
    # HSTS, the redirect to HTTPS and the two secure cookies come only with DJANGO_HTTPS=true.
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in warnings


def test_settings_follow_the_environment():
    script = (
        "from django.conf import settings as s;"
        "print(s.DEBUG, s.ALLOWED_HOSTS, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE,"
        " s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS,"
        " s.SECURE_HSTS_PRELOAD, s.SECURE_PROXY_SSL_HEADER, s.DATABASES['default']['ENGINE'])"
    )
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        script,
        DJANGO_DEBUG="no",
        DJANGO_SECRET_KEY=production_key(),
        DJANGO_ALLOWED_HOSTS=" rami.example.org, localhost ",
        DJANGO_HTTPS="1",
        DATABASE_URL="postgres://rami:secret@127.0.0.1:5432/rami",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "False ['rami.example.org', 'localhost'] True True True 31536000 True True"
        " ('HTTP_X_FORWARDED_PROTO', 'https') django.db.backends.postgresql"
    )


@pytest.mark.parametrize(("preload", "said"), [(None, "True"), ("false", "False"), ("yes", "True")])
def test_hsts_preload_is_a_setting(preload, said):
    script = "from django.conf import settings as s; print(s.SECURE_HSTS_PRELOAD)"
    variables = {"DJANGO_HSTS_PRELOAD": preload} if preload is not None else {}
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        script,
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=production_key(),
        DJANGO_HTTPS="true",
        **variables,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == said


def test_a_missing_setting_is_one_line_and_a_non_zero_exit():
    result = manage("migrate", "--no-input", DJANGO_DEBUG="false")
    assert result.returncode == 78
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    line = json.loads(result.stderr)
    assert line["level"] == "CRITICAL"
    assert line["message"].startswith("not started: DJANGO_SECRET_KEY is not set.")


def test_development_defaults_need_no_environment():
    script = (
        "from django.conf import settings as s;"
        "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.SECURE_HSTS_SECONDS,"
        " s.DATABASES['default']['ENGINE'], s.DATABASES['default']['OPTIONS']['transaction_mode'])"
    )
    result = manage("shell", "--no-imports", "-c", script, DATABASE_URL="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True False False 0 django.db.backends.sqlite3 IMMEDIATE"


def test_behind_https_plain_http_is_redirected_except_the_health_check():
    script = (
        "from django.test import Client; c = Client();"
        "print(c.get('/').status_code, c.get('/').get('Location'),"
        " c.get('/', headers={'X-Forwarded-Proto': 'https'}).status_code,"
        " c.get('/healthz').status_code, c.get('/readyz').status_code,"
        " c.get('/metrics').status_code, c.get('/metrics', HTTP_HOST='testserver').status_code)"
    )
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        script,
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=production_key(),
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_HTTPS="true",
        DATABASE_URL="sqlite:///:memory:",
    )
    assert result.returncode == 0, result.stderr
    # The health checks are answered, not redirected: 503 here, as this database in memory has
    # no migration applied (/healthz says which); /metrics is a 404 but to a local request or
    # the token's holder (the test client's address is 127.0.0.1 and it sends no Host: local,
    # until it names the host "testserver").
    assert result.stdout.strip() == "301 https://testserver/ 200 503 503 503 404"


def test_behind_https_the_language_cookie_is_secure():
    script = (
        "from django.test import Client;"
        "r = Client().post('/i18n/setlang/', {'language': 'cs', 'next': '/'},"
        " headers={'X-Forwarded-Proto': 'https'});"
        "c = r.cookies['django_language'];"
        "print(r.status_code, c.value, bool(c['secure']), bool(c['httponly']))"
    )
    environment = {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": production_key(),
        "DJANGO_ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": "sqlite:///:memory:",
    }
    result = manage("shell", "--no-imports", "-c", script, DJANGO_HTTPS="true", **environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "302 cs True True"
    # Over plain HTTP a secure cookie would not come back; the script never needs to read it.
    result = manage("shell", "--no-imports", "-c", script, **environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "302 cs False True"


def test_the_admin_is_a_404_unless_turned_on():
    script = (
        "from django.conf import settings; from django.test import Client; c = Client();"
        "r = c.get('/admin/');"
        "print(settings.ADMIN_ENABLED, r.status_code, r.get('Location'))"
    )
    environment = {"DJANGO_ALLOWED_HOSTS": "testserver", "DATABASE_URL": "sqlite:///:memory:"}
    result = manage("shell", "--no-imports", "-c", script, **environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False 404 None"
    for off in ("false", "0", ""):
        result = manage("shell", "--no-imports", "-c", script, DJANGO_ADMIN=off, **environment)
        assert result.stdout.strip() == "False 404 None", (off, result.stderr)
    result = manage("shell", "--no-imports", "-c", script, DJANGO_ADMIN="true", **environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True 302 /admin/login/?next=/admin/"


def test_the_new_games_limit_follows_the_environment():
    script = "from django.conf import settings as s; print(s.RAMI_NEW_GAMES_PER_MINUTE)"
    result = manage("shell", "--no-imports", "-c", script, RAMI_NEW_GAMES_PER_MINUTE="")
    assert result.stdout.strip() == "100"
    result = manage("shell", "--no-imports", "-c", script, RAMI_NEW_GAMES_PER_MINUTE="5")
    assert result.stdout.strip() == "5"
    result = manage("shell", "--no-imports", "-c", script, RAMI_NEW_GAMES_PER_MINUTE="many")
    assert result.returncode != 0
    assert "RAMI_NEW_GAMES_PER_MINUTE must be a whole number" in result.stderr


def test_the_limits_go_to_redis_when_one_is_named():
    script = (
        "from django.conf import settings as s; l = s.CACHES['limits'];"
        " print(l['BACKEND'].rsplit('.', 1)[1], l.get('LOCATION'))"
    )
    result = manage("shell", "--no-imports", "-c", script, RAMI_REDIS_URL="")
    assert result.stdout.strip() == "LocMemCache rami-limits"
    address = "redis://:secret@127.0.0.1:6390/2"
    result = manage("shell", "--no-imports", "-c", script, RAMI_REDIS_URL=address)
    assert result.stdout.strip() == f"RedisCache {address}"
    result = manage("shell", "--no-imports", "-c", script, RAMI_REDIS_URL="127.0.0.1:6379")
    assert result.returncode != 0
    assert "RAMI_REDIS_URL must be a Redis address, redis://host:port/db" in result.stderr


POST_FROM_PORT_8443 = (
    "from django.test import Client; c = Client(enforce_csrf_checks=True);"
    "h = {'X-Forwarded-Proto': 'https', 'Host': 'rami.example.org'};"
    "page = c.get('/rules/', headers=h);"
    "token = c.cookies['csrftoken'].value;"
    "r = c.post('/forget/', {'csrfmiddlewaretoken': token}, headers={**h,"
    " 'Origin': 'https://rami.example.org:8443',"
    " 'Referer': 'https://rami.example.org:8443/'});"
    "print(r.status_code)"
)


@pytest.mark.parametrize(
    ("variables", "status"),
    [
        # nginx's usual `proxy_set_header Host $host` drops the port: the Origin is refused.
        ({}, "403"),
        ({"RAMI_PUBLIC_URL": "https://rami.example.org:8443"}, "303"),
        ({"DJANGO_CSRF_TRUSTED_ORIGINS": "https://rami.example.org:8443"}, "303"),
    ],
)
def test_a_form_posted_through_a_proxy_on_another_port_than_443(variables, status):
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        POST_FROM_PORT_8443,
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=production_key(),
        DJANGO_ALLOWED_HOSTS="rami.example.org",
        DJANGO_HTTPS="true",
        DATABASE_URL="sqlite:///:memory:",
        **variables,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == status


def test_a_trusted_origin_must_be_an_origin():
    result = manage("check", DJANGO_CSRF_TRUSTED_ORIGINS="rami.example.org")
    assert result.returncode != 0
    assert "DJANGO_CSRF_TRUSTED_ORIGINS takes origins" in result.stderr
