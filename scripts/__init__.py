"""The developer's tools, and what the tests, the benchmark (bench/) and the screenshots share:
a throwaway site and a free port (throwaway_site.py), the long games (long_games.py,
layout_games.py). Imports nothing of tests/ or bench/, so that both can import it."""
