"""The files the app reads and writes: rami-game/1 and rami-table/1 (exchange), backups
(backup), the rounds as CSV (rounds_csv)."""
