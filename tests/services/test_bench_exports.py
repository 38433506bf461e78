"""bench/exports.py keeps working: it reaches both CSVs and reports what it measured.

No timing is asserted (house rule: performance lives in bench/ as ratios).
"""

from __future__ import annotations

from support import bench_module


def test_the_export_benchmark_measures_both_csvs_and_its_baseline(app, capsys):
    bench = bench_module("exports")
    history = bench_module("history")
    with app.app_context():
        made = history.build_club("Bench exports", 2)
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    found = bench.measure(uri, made.club_id, repeat=1, memory=True)
    assert list(found) == list(bench.REQUESTS)
    matches = found["matches CSV"]
    assert matches["rows"] == 1 + (2 + history.TONIGHT) * 4 * 2 - 2  # one table a deal short
    assert 0 < matches["first_ms"] <= matches["total_ms"] and matches["peak_kb"] > 0
    assert matches["statements"] > 0 and len(matches["sha256"]) == 16
    bench.print_table([2, 3], {2: found, 3: found})
    assert "| matches CSV |" in capsys.readouterr().out
