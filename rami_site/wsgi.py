"""WSGI entry point: every view of Django's. granian serves it through rami_site/asgi.py, in a
fixed pool of threads beside the live streams (`make run`: scripts/serve); any WSGI server can
serve it alone (the benchmark's gunicorn), the live streams then answered by a Django view."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")

application = get_wsgi_application()
