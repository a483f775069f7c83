"""gunicorn settings for `make run`: threaded workers, so that a slow phone on the network
does not hold a whole worker while the others poll."""

import multiprocessing

workers = max(2, multiprocessing.cpu_count())
worker_class = "gthread"
threads = 4
accesslog = "-"
