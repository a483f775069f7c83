"""Live updates: a stream tells each page the new version of its game or table, and the page
pulls what it lacks with its poll's request (docs/architecture.md, "Live updates", tells the
protocol). `reader`: the versions, one thread a process; `stream`: the stream, for granian and
for WSGI; `check`: the version check of a page without a stream; `answers`: the answers the
phones of a table share."""
