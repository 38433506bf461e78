"""bench/gc_pauses.py keeps working: at a tiny size it runs both modes in fresh processes,
every request answered, and says how much each left to the collector. Timings are never
asserted (docs/performance.md has the numbers)."""

from __future__ import annotations

import json
from pathlib import Path

from support import bench_module


def test_a_tiny_run_measures_collections_plain_and_settled(tmp_path: Path, capsys) -> None:
    gc_pauses = bench_module("gc_pauses")
    argv = ["--size", "2", "--rounds", "2", "--cache-dir", str(tmp_path / "cache")]
    assert gc_pauses.main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    plain, settled = report["modes"]["plain"], report["modes"]["settled"]
    # two processes a mode, two rounds each of two POSTs, each followed by four pages
    assert plain["requests"] == settled["requests"] == 2 * 2 * 2 * 5
    assert plain["frozen"] == 0 < settled["frozen"]  # settled: the app is out of reach
    assert settled["tracked"] < plain["tracked"]
    assert set(report["ratio"]) == {"full_ms_each", "max_pause_ms", "gc_ms_per_request"}
