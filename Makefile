# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
# Everything lands in .venv; a second run reinstalls only when pyproject.toml changed.

VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# make run serves with DEBUG off; the secret key is made once into an ignored local file.
PROD_ENV = DJANGO_DEBUG=false DJANGO_SECRET_KEY="$$(cat .secret_key)"

.PHONY: announce run dev test test-quick test-postgres browser redis spreadsheet proxy units setup migrate static lint clean screenshots bench bench-evening bench-profile bench-pages layout lighthouse

run: setup .secret_key
	$(PROD_ENV) $(PY) manage.py migrate --no-input
	@$(PY) -m rami_site.addresses $(PORT)
	$(PROD_ENV) scripts/serve 0.0.0.0 $(PORT)

dev: setup
	$(PY) manage.py migrate --no-input
	$(PY) manage.py runserver 0.0.0.0:$(PORT)

# Every test, the browser tests on Debian's Chromium among them (installed by `browser`), on
# SQLite; at the end, the ten slowest. In parallel: a pytest-xdist worker a core (TEST_WORKERS=2,
# or 0 for one process), each with a test database, a live server, a Chromium and a temporary
# folder of its own, and the servers its tests start on free ports (tests/conftest.py); a
# worker that is done takes tests queued for the other (worksteal), so that a long test left at
# the end does not keep one core idle. On 2 cores shared with other test runs: 12 minutes at a
# load of 1-15, 28 at a load of 12-18 (about 10 minutes of CPU either way).
PYTEST_ARGS ?= --durations=10
TEST_WORKERS ?= auto
test: announce browser redis spreadsheet proxy units setup
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# The quick loop: every test but the slow ones (marked `slow`: the fuzz tests, the tests
# that start real servers, the browser tests, the translation sweep); needs no browser. In
# parallel as `make test`; about a minute on 2 cores.
test-quick: setup
	$(PY) -m pytest -m "not slow" -n $(TEST_WORKERS) $(PYTEST_ARGS)

# On a throwaway PostgreSQL 15 cluster, removed afterwards: the tests marked `database`
# (BY_DATABASE in tests/conftest.py, about a seventh of the suite), where PostgreSQL may answer
# otherwise than SQLite: row locks and concurrent saves, the snapshot and the live reader's
# query and notices, several servers and processes on one database, migrations, backup and
# restore (COPY, pg_dump), column types and constraints SQLite does not enforce (lengths,
# integer widths, NUL, jsonb, timestamps), and query counts. The rest does not differ: it
# reaches the database through the same ORM statements on both and checks what the app makes
# of them in Python (the rules, pages, forms, languages, exports), or what does not touch the
# database at all (the browser's layout and scripts, the server's processes, nginx, systemd).
# tests/test_database_selection.py keeps every test that asks for the vendor or counts
# queries in the list. 1.5 minutes on 2 shared cores, 4 at a load of 10 (the whole suite there
# took 18, in one process).
test-postgres: announce redis setup
	scripts/with-postgres $(PY) -m pytest -m database -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# What the run is about to install, said first (a fresh machine's first run takes minutes):
# `make test` drives every tool, `make test-postgres` Redis and PostgreSQL only.
announce:
	@todo=""; \
	command -v redis-server >/dev/null 2>&1 || todo="$$todo\n  Debian's redis-server (apt-get), for the two-server tests"; \
	if [ "$(filter test,$(MAKECMDGOALS))" ]; then \
	command -v chromium >/dev/null 2>&1 || todo="$$todo\n  Debian's chromium (apt-get), for the browser tests"; \
	command -v soffice >/dev/null 2>&1 || todo="$$todo\n  Debian's libreoffice-calc-nogui (apt-get), for the spreadsheet tests"; \
	command -v nginx >/dev/null 2>&1 || todo="$$todo\n  Debian's nginx (apt-get), for the proxy tests"; \
	command -v openssl >/dev/null 2>&1 || todo="$$todo\n  Debian's openssl (apt-get), for the proxy tests' certificate"; \
	command -v systemd-analyze >/dev/null 2>&1 || todo="$$todo\n  Debian's systemd (apt-get), to verify the units"; \
	fi; \
	if [ "$(filter test-postgres,$(MAKECMDGOALS))" ] && [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then \
	    todo="$$todo\n  Debian's postgresql-15 (apt-get), for the tests on PostgreSQL"; fi; \
	[ $(VENV)/.installed -nt pyproject.toml ] || todo="$$todo\n  the Python packages of pyproject.toml, into $(VENV) (pip)"; \
	if [ -n "$$todo" ]; then printf "make: installing first:$$todo\n"; else echo "make: everything is installed"; fi

# Tools some tests need, from Debian's packages (scripts/debian-tool: installed with apt when
# missing and we are root; anyone else is told the command). Those tests are never skipped.
# Chromium drives the browser tests (tests/browser/conftest.py); Redis lets two servers share
# their limits (tests/test_two_servers.py, scripts/with-redis, make bench-evening); LibreOffice
# reads the rounds' CSV as each language's spreadsheets do (tests/test_csv_spreadsheets.py).
# nginx runs deploy/nginx/rami.conf with a certificate openssl makes (tests/test_proxy.py);
# systemd-analyze verifies deploy/systemd/ (tests/test_systemd.py).
browser:
	@scripts/debian-tool chromium chromium "the browser tests"
redis:
	@scripts/debian-tool redis-server redis-server "the two-server tests"
spreadsheet:
	@scripts/debian-tool soffice libreoffice-calc-nogui "the spreadsheet tests"
proxy:
	@scripts/debian-tool nginx nginx "the proxy tests"
	@scripts/debian-tool openssl openssl "the proxy tests"
units:
	@scripts/debian-tool systemd-analyze systemd "the unit tests"

# Retake docs/*.png (README's phone screenshot among them).
screenshots: setup
	$(PY) -m scripts.screenshots

# Every page against /healthz on the production server, and the budgets: bench/RESULTS.md.
# BENCH_ARGS="--duration 10" for longer runs, "--server sync" or "granian" to compare.
bench: setup
	$(PY) -m bench.run $(BENCH_ARGS)

# An evening of many tables (bench/evening.py): phones holding their streams, saving and
# joining as rami.js does, tables raised step by step until a budget is missed: first with every
# phone polling instead (the baseline, before the streams), then on SQLite, on a throwaway
# PostgreSQL with one server and with two sharing a throwaway Redis; then 1,000 tables at rest
# and through a restart. The curves and the budgets go to bench/RESULTS.md. At most 35 minutes.
bench-evening: setup redis
	$(PY) -m bench.evening polling
	$(PY) -m bench.evening sqlite
	scripts/with-postgres scripts/with-redis $(PY) -m bench.evening postgres
	$(PY) -m bench.evening restart
	$(PY) -m bench.evening report

# Where the server's time goes: the evening's step of PROFILE_TABLES tables on SQLite, with
# py-spy on the server's workers during its window (bench/profile.py); the top frames, inclusive
# and self, to bench/PROFILE.md. The next change starts from a profile, not a guess.
PROFILE_TABLES ?= 1000
bench-profile: setup
	$(PY) -m bench.evening sqlite --steps $(PROFILE_TABLES) --profile $(PROFILE_TABLES)

# Each page's time in-process (Django's test client, no server) over /healthz's, with its
# queries, against their budgets (the game page 9x, the watch-only page 7x, the page just after
# a save 30x, the changed poll 8x: bench/in_process.py BUDGETS); printed.
bench-pages: setup
	$(PY) -m bench.in_process

# The page on every phone: the widest box of each page in each language and the chart
# labels (bench/LAYOUT.md), the round form's height, the taps of a round and the screen after a
# save at 320-1366 px (bench/ENTRY.md); printed, each file keeps its before and after.
layout: setup
	$(PY) -m bench.layout
	$(PY) -m bench.round_entry

# Lighthouse's mobile scores of three pages: bench/LIGHTHOUSE.md. Lighthouse is installed
# into bench/node_modules (never globally); Debian's Chromium runs it.
lighthouse: setup bench/node_modules/.installed
	$(PY) -m bench.run --lighthouse

bench/node_modules/.installed: bench/package.json
	cd bench && npm install --no-audit --no-fund --no-package-lock
	@touch $@

lint: setup
	$(VENV)/bin/ruff check .

# The virtual environment, rebuilt when pyproject.toml is newer than the stamp.
setup: $(VENV)/.installed static

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || { python=$$(scripts/find-python) && "$$python" -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,bench]"
	@touch $@

# Hashed, compressed static files for whitenoise, collected again only when a static file, the
# packages or the settings changed: collectstatic rewrites every hashed file and the manifest,
# which a test run beside it may be reading. One collectstatic at a time in a checkout (flock),
# so that two `make test-quick` started at once do not write the same files.
static: staticfiles/staticfiles.json

staticfiles/staticfiles.json: $(VENV)/.installed rami_site/settings.py $(shell find static -type f)
	@flock .static.lock $(PY) manage.py collectstatic --no-input --verbosity 0
	@touch $@

.secret_key:
	@$(PY) -c "import secrets; print(secrets.token_urlsafe(50))" > $@
	@chmod 600 $@

clean:
	rm -rf $(VENV) staticfiles
