"""Live updates pushed: poke, then pull (reader.py, stream.py, check.py, pull.py, answers.py).

A page that follows a game (or a table) keeps one server-sent events stream open at
/live/<key>. An event carries only a version: the game's, or for a table the newest of the
table's and its games' (`versions`). The page then asks for what it lacks with the request it
sends without a stream (the game's poll, pull.poll; the table's page itself; any other page
of either, the page itself: scoring/web/following.py), so what a watching phone shows is still
what a fresh load of its link shows. The stream says nothing of
the game but that number, and only to a page that was handed its key.

- `stream.key_for(kind, token)`: the key a page is handed, "g" or "t" and the watch-only token,
  signed (django.core.signing): checked by the stream with no query. By the token, not the row's
  id: a game restored from a backup is a new row with the same tokens, and the pages left open
  on it follow it again. While a game or table is not there, its streams say so ("gone").
- One `reader.Reader` per worker process: a thread that wakes the streams whose version moved.
  While any stream is open, it reads the versions of every watched game and table every
  READ_EVERY seconds, in one query whatever the number of streams (`versions`). It compares
  versions read from the database, passes no messages: nothing is lost between two reads, and it
  works the same on SQLite, on PostgreSQL and across several servers on one database. On
  PostgreSQL it also listens on CHANNEL, where a trigger tells of every version that moved at
  its commit (scoring/migrations/0011_live_notify.py), and reads at once instead of at its next
  tick: only sooner, never more correct. Idle (no stream) for IDLE_AFTER seconds, it stops and
  closes its connection; the next stream starts it again.
- Each stream (`stream.Stream`) sends the current version at once. The page polls when it is
  newer than the `v` it was opened with, or the Last-Event-ID of a reconnecting EventSource; the
  first event also tells the page that its stream works. Then come one event for each move and
  a heartbeat comment every HEARTBEAT seconds. Its `retry:` is drawn per stream between 2 and
  6 s, so that a restart does not bring every phone back in the same second. It ends after
  about LIFETIME seconds (the browser reconnects with its Last-Event-ID), or when its reader
  stops (`stop`).
- One stream, written once: `stream.asgi_stream`, in front of Django's ASGI handler
  (rami_site/asgi.py: no thread, no database connection per stream; what granian serves). A WSGI
  server (runserver, the test suite's live server) gets the same coroutine through the view
  `stream.stream`, which runs it on an event loop of its own: a thread per stream, not for
  production.
- The pull that follows an event (`pull.poll`): the phones of a table are woken together and ask
  for the same answer; `answers.shared_answers` keeps the answers drawn lately, so that the
  first phone's is drawn and the others' looked up; those that ask while it is being drawn wait
  for it (`SharedAnswers.drawn_once`) instead of each drawing it too.
- The version check (`check`): a page without a stream asks /live/<key>/version?v=N every 2 s;
  answered 204 on the event loop when the reader read N lately (a key checked lately is read
  with the watched ones, `Reader.follow`), else "pull", and the page polls. The poll itself
  is always Django's: it reads the database, never the reader."""
