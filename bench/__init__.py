"""The benchmarks, run from the repository's root as modules (`python -m bench.run`, or the
make targets). bench/server.py is the server under test that run, lighthouse and evening share;
what the tests and the screenshots share with the benchmarks lives in scripts/."""
