"""What a page shows of a game, read from its rows: the scoreboard, the statistics, the chart
and the history of changes. Every number is the rules'; these modules only arrange it."""
