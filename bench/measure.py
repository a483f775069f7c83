"""The benchmark's counting pass, outside wrk: database queries and bytes per request.

Each request goes once through Django's test client (the whole middleware stack, the same
settings and database as the server under test) inside CaptureQueriesContext. Reads a JSON list
of requests ({"name", "method", "path", "headers", "data"}) on standard input and prints, for
each, {"name", "status", "queries", "raw", "gzip"}: the body's size as sent and gzipped.

Run by bench/run.py with the benchmark's environment.
"""

from __future__ import annotations

import gzip
import json
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")

import django

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402


def body(response) -> bytes:
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


def count(requests: list[dict]) -> list[dict]:
    # The test client needs the test environment (it swaps in a template-recording hook).
    setup_test_environment()
    client = Client()
    results = []
    for request in requests:
        call = client.post if request["method"] == "POST" else client.get
        with CaptureQueriesContext(connection) as queries:
            response = call(request["path"], request.get("data"), headers=request.get("headers"))
        content = body(response)
        results.append(
            {
                "name": request["name"],
                "status": response.status_code,
                "queries": len(queries),
                "raw": len(content),
                "gzip": len(gzip.compress(content, compresslevel=6)) if content else 0,
            }
        )
    return results


if __name__ == "__main__":
    print(json.dumps(count(json.load(sys.stdin))))
