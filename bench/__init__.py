"""Benchmark scripts, run by hand and never by pytest or CI; see README.md."""
