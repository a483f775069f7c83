"""The pages of games, one module a page.

start.py is the start page; games.py the game page and what it draws; rounds.py the changes it
makes, one view each, and a round's own page. Then come history.py, players.py, exports.py (the
files of a game), pages.py (the help page, a game's rules, the manifest, the health check) and
legacy.py (the posts of pages drawn before each change had its own address); tables.py a table's
pages and table_changes.py its changes; poll.py what a page pulls when its stream tells of a
newer version."""
